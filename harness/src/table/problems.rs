//! Every problem `cases/schema.json` finds in a case file, in the harness's
//! words: the schema is the one the loader checks with (the file itself,
//! built in), so the schema an editor shows and the rules a run applies
//! cannot drift. Each problem names its case (by index, the caller names
//! it), its field as the model spells it (`messages[1].id`,
//! `failures."1"`) and what is wrong, with the bounds the schema gives.
//!
//! What a JSON Schema cannot see is added here too: a number written with a
//! fraction or an exponent where the schema wants an integer (the validator
//! takes `1.0` for one).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::OnceLock;

use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::Value;

use super::checker::{join, not_an_attempt, plain};

/// The case files' schema, as editors read it.
const SCHEMA: &str = include_str!("../../../cases/schema.json");

/// One problem of a file.
#[derive(Debug)]
pub(super) struct Problem {
    /// The case it is in: its index in `cases`; `None` for the file's own fields.
    pub(super) case: Option<usize>,
    /// The field's path inside the case (or the file); `""`: the case itself.
    pub(super) field: String,
    /// The schema keyword that refused it (`required`, `pattern`, ...), so a
    /// rule that says the same in its own words can take its place.
    pub(super) keyword: &'static str,
    /// What is wrong.
    pub(super) message: String,
}

/// The schema and its validator, built once.
fn schema() -> &'static (Value, jsonschema::Validator) {
    static SCHEMA_AND_VALIDATOR: OnceLock<(Value, jsonschema::Validator)> = OnceLock::new();
    SCHEMA_AND_VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(SCHEMA).expect("cases/schema.json is JSON");
        let validator =
            jsonschema::validator_for(&schema).expect("cases/schema.json is a JSON Schema");
        (schema, validator)
    })
}

/// Every problem of a file's value: the file's own first, then case by
/// case, each case's in the validator's order (missing fields, then each
/// field's in the schema's order, then unknown fields), then the numbers
/// written with a fraction or an exponent.
/// `floats`: whether the text had a number written with a fraction or an
/// exponent, which only then are looked for.
pub(super) fn of(root: &Value, floats: bool) -> Vec<Problem> {
    let (schema, validator) = schema();
    let mut found: Vec<Problem> = Vec::new();
    // The place of the last error's value: the errors of one value come
    // together (a case missing six fields is six errors at one place).
    let mut last: Option<(String, At<'_>)> = None;
    let case = At::case(schema);
    for error in validator.iter_errors(root) {
        let pointer = error.instance_path.as_str();
        if !matches!(&last, Some((seen, _)) if seen == pointer) {
            last = Some((pointer.to_owned(), locate(schema, &case, root, pointer)));
        }
        let Some((_, at)) = &last else { continue };
        // A number with a fraction or an exponent is said once, by `find_floats`.
        if error.instance.is_f64() && at.wants_integer() {
            continue;
        }
        let keyword = keyword(&error);
        words(at, &error, &mut |child, message| {
            let field =
                child.map_or_else(|| at.field.clone(), |name| step(at.shape, &at.field, name));
            found.push(Problem {
                case: at.case,
                field,
                keyword,
                message,
            });
        });
    }
    if floats {
        find_floats(schema, root, root, &mut Vec::new(), &mut found);
    }
    // Stable: within a case, the validator's order stays.
    found.sort_by_key(|problem| problem.case);
    found
}

/// The keywords a rule of the harness may take the place of; any other is
/// `other`.
const KEYWORDS: [&str; 7] = [
    "required",
    "pattern",
    "maxLength",
    "minLength",
    "not",
    "type",
    "enum",
];

fn keyword(error: &jsonschema::ValidationError<'_>) -> &'static str {
    if let Kind::PropertyNames { .. } = error.kind {
        return "propertyNames";
    }
    let last = error
        .schema_path
        .as_str()
        .rsplit('/')
        .next()
        .unwrap_or_default();
    KEYWORDS.into_iter().find(|k| *k == last).unwrap_or("other")
}

/// Where an instance path leads: the case, the field's path as messages
/// spell it, and the schema that field has (none for an unknown field).
#[derive(Clone)]
struct At<'s> {
    case: Option<usize>,
    field: String,
    node: Option<&'s Value>,
    /// The node's object shape: its fields, and whether it is a map.
    shape: Shape<'s>,
}

/// What [`step`] needs of an object's schema.
#[derive(Clone, Copy, Default)]
struct Shape<'s> {
    properties: Option<&'s serde_json::Map<String, Value>>,
    is_map: bool,
}

impl<'s> Shape<'s> {
    fn of(node: Option<&'s Value>) -> Self {
        let get = |keyword| node.and_then(|node| node.get(keyword));
        Shape {
            properties: get("properties").and_then(Value::as_object),
            is_map: get("additionalProperties").is_some_and(Value::is_object),
        }
    }
}

impl At<'_> {
    fn wants_integer(&self) -> bool {
        self.get("type").and_then(Value::as_str) == Some("integer")
    }

    fn get(&self, keyword: &str) -> Option<&Value> {
        self.node.and_then(|node| node.get(keyword))
    }

    /// The integer range the schema gives, as text.
    fn range(&self) -> (String, String) {
        let bound = |keyword| self.get(keyword).map_or("?".to_owned(), Value::to_string);
        (bound("minimum"), bound("maximum"))
    }
}

/// Follows a JSON pointer (`/cases/0/messages/1/id`) through the value and
/// the schema side by side; `cases[i]` becomes the case, the rest the field.
/// A case's place starts from `case` (its schema, found once per file).
fn locate<'s>(schema: &'s Value, case: &At<'s>, root: &Value, pointer: &str) -> At<'s> {
    let unescape = |raw: &str| Cow::Owned(raw.replace("~1", "/").replace("~0", "~"));
    if let Some(rest) = pointer.strip_prefix("/cases/") {
        let (index, rest) = rest.split_once('/').unwrap_or((rest, ""));
        if let Ok(index) = index.parse::<usize>() {
            let at = At {
                case: Some(index),
                ..case.clone()
            };
            let value = root.get("cases").and_then(|cases| cases.get(index));
            let segments = (!rest.is_empty()).then(|| rest.split('/').map(unescape));
            return walk(schema, at, value, segments.into_iter().flatten());
        }
    }
    let segments = pointer.split('/').skip(1).map(unescape);
    walk(schema, At::top(schema), Some(root), segments)
}

impl<'s> At<'s> {
    /// The file itself.
    fn top(schema: &'s Value) -> Self {
        At {
            case: None,
            field: String::new(),
            node: Some(schema),
            shape: Shape::of(Some(schema)),
        }
    }

    /// A case, before its index is known.
    fn case(schema: &'s Value) -> Self {
        let node = schema
            .pointer("/properties/cases/items")
            .map(|node| resolve(schema, node));
        At {
            node,
            shape: Shape::of(node),
            ..At::top(schema)
        }
    }
}

fn walk<'s, 'a>(
    schema: &'s Value,
    mut at: At<'s>,
    mut value: Option<&Value>,
    segments: impl Iterator<Item = Cow<'a, str>>,
) -> At<'s> {
    for segment in segments {
        if let Some(Value::Array(items)) = value {
            let index = segment.parse().unwrap_or(usize::MAX);
            value = items.get(index);
            if at.case.is_none() && at.field == "cases" {
                at.case = Some(index);
                at.field.clear();
            } else {
                let _ = write!(at.field, "[{index}]");
            }
            at.node = at.node.and_then(|node| node.get("items"));
        } else {
            value = value.and_then(|value| value.get(segment.as_ref()));
            at.field = step(at.shape, &at.field, &segment);
            at.node = at.node.and_then(|node| {
                let property = node.get("properties").and_then(|p| p.get(segment.as_ref()));
                property.or_else(|| node.get("additionalProperties").filter(|e| e.is_object()))
            });
        }
        at.node = at.node.map(|node| resolve(schema, node));
        at.shape = Shape::of(at.node);
    }
    at
}

/// The path of the field `name` of an object at `field` whose schema has
/// `shape`: `field.name`, or for an entry of a map, `field."name"`.
fn step(shape: Shape<'_>, field: &str, name: &str) -> String {
    let known = shape.properties.is_some_and(|p| p.contains_key(name));
    if !known && shape.is_map {
        format!("{field}.{name:?}")
    } else {
        join(field, name)
    }
}

/// A schema node, its `$ref` followed (only `#/...` refs: the file's own).
fn resolve<'s>(schema: &'s Value, mut node: &'s Value) -> &'s Value {
    for _ in 0..8 {
        let target = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix('#'))
            .and_then(|pointer| schema.pointer(pointer));
        match target {
            Some(target) => node = target,
            None => break,
        }
    }
    node
}

/// An error in the harness's words: each with the field it is about, when
/// that is a field of the value at fault (missing, unknown, a bad key).
fn words(
    at: &At<'_>,
    error: &jsonschema::ValidationError<'_>,
    say: &mut impl FnMut(Option<&str>, String),
) {
    let mut here = |message: String| say(None, message);
    let instance = error.instance.as_ref();
    match &error.kind {
        Kind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            say(Some(name), "required field is missing".to_owned());
        }
        Kind::AdditionalProperties { unexpected } => {
            let problem = format!("unknown field (known fields: {})", known_fields(at));
            for name in unexpected {
                say(Some(name), problem.clone());
            }
        }
        Kind::Type { .. } => here(format!("must be {}, not {}", wanted(at), kind_of(instance))),
        Kind::Minimum { .. } | Kind::Maximum { .. } => {
            let (min, max) = at.range();
            here(format!("must be from {min} to {max}, not {instance}"))
        }
        Kind::Enum { options } => here(one_of(at, options, instance)),
        Kind::PropertyNames { error } => {
            let key = error.instance.as_str().unwrap_or_default();
            say(Some(key), not_an_attempt(key));
        }
        // A keyword the harness has no words of its own for: the validator's.
        _ => here(error.to_string()),
    }
}

/// An enum's refusal: `unknown failure "x": use "down" or "lost_ack"`, its
/// word (`failure`) the schema's `title`.
fn one_of(at: &At<'_>, options: &Value, instance: &Value) -> String {
    let names: Vec<String> = options
        .as_array()
        .into_iter()
        .flatten()
        .map(Value::to_string)
        .collect();
    let names = names.join(" or ");
    match instance {
        Value::String(text) => {
            let what = at.get("title").and_then(Value::as_str).unwrap_or("value");
            format!("unknown {what} {text:?}: use {names}")
        }
        other => format!("must be {names}, not {}", kind_of(other)),
    }
}

/// The fields an object's schema knows, sorted.
fn known_fields(at: &At<'_>) -> String {
    let properties = at.get("properties").and_then(Value::as_object);
    let mut names: Vec<&str> = properties
        .into_iter()
        .flatten()
        .map(|(name, _)| name.as_str())
        .collect();
    names.sort_unstable();
    names.join(", ")
}

/// What the schema wants at a field, for "must be ...".
fn wanted(at: &At<'_>) -> String {
    match at.get("type").and_then(Value::as_str) {
        Some("integer") => {
            let (min, max) = at.range();
            format!("an integer from {min} to {max}")
        }
        Some("string") => "a string".to_owned(),
        Some("array") => "an array (write `[]` for none)".to_owned(),
        Some("object") => "an object".to_owned(),
        Some("boolean") => "true or false".to_owned(),
        other => format!("of type {}", other.unwrap_or("?")),
    }
}

/// What kind of value this is, for "not ...".
pub(super) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a non-integer number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A path step of [`find_floats`]' walk.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// Every number written with a fraction or an exponent (or too large for
/// 64 bits) where the schema wants an integer, found by walking `value`
/// (at `path` in the file `root`): out of range, or else to be written as
/// an integer. Builds no path until it finds one.
fn find_floats<'v>(
    schema: &Value,
    root: &Value,
    value: &'v Value,
    path: &mut Vec<Step<'v>>,
    out: &mut Vec<Problem>,
) {
    let mut inner = |step, item: &'v Value, path: &mut Vec<Step<'v>>| {
        path.push(step);
        find_floats(schema, root, item, path, out);
        path.pop();
    };
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                inner(Step::Index(index), item, path);
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                inner(Step::Key(key), item, path);
            }
        }
        Value::Number(number) if number.is_f64() => {
            let segments = path.iter().map(|step| match step {
                Step::Key(key) => Cow::Borrowed(*key),
                Step::Index(index) => Cow::Owned(index.to_string()),
            });
            let at = walk(schema, At::top(schema), Some(root), segments);
            if let (true, Some(x)) = (at.wants_integer(), number.as_f64()) {
                out.push(Problem {
                    message: float_message(&at, x),
                    case: at.case,
                    field: at.field,
                    keyword: "type",
                });
            }
        }
        _ => {}
    }
}

fn float_message(at: &At<'_>, x: f64) -> String {
    let bound = |keyword| at.get(keyword).and_then(Value::as_f64);
    let (min, max) = at.range();
    let side = match (bound("minimum"), bound("maximum")) {
        (Some(low), _) if x < low => "small",
        (_, Some(high)) if x > high => "large",
        _ => {
            return format!(
                "must be an integer from {min} to {max} written without fraction or exponent, not {x:?}"
            )
        }
    };
    format!("must be from {min} to {max}, not {}: too {side}", plain(x))
}
