//! Every problem `cases/schema.json` finds in a case file or a runner's
//! answer, in the harness's words. Each problem names its field as the
//! model spells it (`messages[1].id`, `failures."1"`, `sent[1]`), inside
//! its case when the value is a file (by index: the caller names it), and
//! what is wrong, with the bounds the schema gives.

use std::collections::HashMap;

use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::{Map, Value};

use super::MAX_ID;

/// A problem: its field's path inside the case (or the file, or the
/// answer; `""`: the value itself) and what is wrong.
pub type Found = (String, String);

/// Every problem `validator` finds in `root`, by case (its index in
/// `cases` when `cases` is set, the value being a case file; `None`: the
/// file's own fields, or an answer's), each in the validator's order.
/// `schema` is the root the validator was built from, which the errors'
/// keyword paths walk. `floats`: whether the text had a number written
/// with a fraction or an exponent (or too large for 64 bits), which JSON
/// Schema takes for an integer when it has no fraction: such numbers are
/// checked as `null`, so each is refused where it stands, and said as the
/// number it is. `bless`: for `make bless`, where a case may lack `expect`.
pub(super) fn of(
    (schema, validator): (&Value, &jsonschema::Validator),
    root: &Value,
    floats: bool,
    (cases, bless): (bool, bool),
) -> HashMap<Option<usize>, Vec<Found>> {
    let checked = floats.then(|| without_floats(root));
    let mut by_case: HashMap<_, Vec<Found>> = HashMap::new();
    for error in validator.iter_errors(checked.as_ref().unwrap_or(root)) {
        let pointer = error.instance_path.as_str();
        let at = locate(schema, root, pointer, &error.schema_path, cases);
        let instance = root.pointer(pointer).unwrap_or(&Value::Null);
        let found = by_case.entry(at.case).or_default();
        words(&at, &error, instance, bless, &mut |child, message| {
            let field = child.map_or_else(|| at.field.clone(), |name| at.child(name));
            found.push((field, message));
        });
    }
    by_case
}

/// `value` with every number written with a fraction or an exponent
/// replaced by `null`, which no field of the schema accepts.
fn without_floats(value: &Value) -> Value {
    match value {
        Value::Number(number) if number.is_f64() => Value::Null,
        Value::Array(items) => items.iter().map(without_floats).collect(),
        Value::Object(fields) => fields
            .iter()
            .map(|(key, item)| (key.clone(), without_floats(item)))
            .collect(),
        other => other.clone(),
    }
}

/// Where an error is: the case, the field's path as messages spell it,
/// whether the field is a map (`failures`, whose keys are quoted), and the
/// schema node whose keyword found it.
struct At<'s> {
    case: Option<usize>,
    field: String,
    map: bool,
    node: Option<&'s Value>,
    schema: &'s Value,
}

impl<'s> At<'s> {
    /// A keyword of the node, or of the node its `$ref` names (a field
    /// `{"$ref": "#/$defs/id"}` has the id's range).
    fn get(&self, keyword: &str) -> Option<&'s Value> {
        let node = self.node?;
        node.get(keyword)
            .or_else(|| target(self.schema, node).and_then(|t| t.get(keyword)))
    }

    /// The integer range the schema gives, as text.
    fn range(&self) -> (String, String) {
        let bound = |keyword| self.get(keyword).map_or("?".to_owned(), Value::to_string);
        (bound("minimum"), bound("maximum"))
    }

    /// The path of the field `name` of this object: `field.name`, or for
    /// an entry of a map (`failures`), `field."name"`.
    fn child(&self, name: &str) -> String {
        child(&self.field, self.map, name)
    }
}

/// Whether `node` (resolved) is a map's schema: its keys are data.
fn is_map(node: Option<&Value>) -> bool {
    node.and_then(|n| n.get("additionalProperties"))
        .is_some_and(Value::is_object)
}

/// `field`'s child `name`, quoted when the field is a map.
fn child(field: &str, map: bool, name: &str) -> String {
    match (map, field) {
        (true, field) => format!("{field}.{name:?}"),
        (false, "") => name.to_owned(),
        (false, field) => format!("{field}.{name}"),
    }
}

/// The node a schema node's `$ref` names: one of the file's own
/// (`#/$defs/...`).
fn target<'s>(schema: &'s Value, node: &Value) -> Option<&'s Value> {
    let pointer = node.get("$ref")?.as_str()?.strip_prefix('#')?;
    schema.pointer(pointer)
}

/// Where an error is. The field comes from the instance's path (`cases[i]`
/// becoming the case when `cases`), a list's index written `[i]`, a map's
/// key quoted; the node from the error's keyword path through the schema,
/// whose `$ref` steps jump to their target, so a field of a branch or of a
/// definition is said in its own words.
fn locate<'s>(
    schema: &'s Value,
    root: &Value,
    pointer: &str,
    keyword_path: &jsonschema::paths::Location,
    cases: bool,
) -> At<'s> {
    let mut at = At {
        case: None,
        field: String::new(),
        map: false,
        node: None,
        schema,
    };
    // The schema of the instance's value at each step, for a map's keys.
    let mut node = Some(schema);
    let mut here = root;
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        let resolved = node.map(|n| target(schema, n).unwrap_or(n));
        if let Value::Array(items) = here {
            let index: usize = segment.parse().unwrap_or(usize::MAX);
            if cases && at.case.is_none() && at.field == "cases" {
                at.case = Some(index);
                at.field.clear();
            } else {
                at.field = format!("{}[{index}]", at.field);
            }
            node = resolved.and_then(|n| n.get("items"));
            here = items.get(index).unwrap_or(&Value::Null);
        } else {
            at.field = child(&at.field, is_map(resolved), &segment);
            let property = resolved.and_then(|n| n.get("properties")?.get(&segment));
            node = property.or_else(|| resolved?.get("additionalProperties"));
            here = here.get(&segment).unwrap_or(&Value::Null);
        }
    }
    at.map = is_map(node.map(|n| target(schema, n).unwrap_or(n)));
    // The keyword's node: its path without the keyword itself.
    let steps: Vec<&str> = keyword_path.as_str().split('/').skip(1).collect();
    let mut node = Some(schema);
    for step in steps.iter().take(steps.len().saturating_sub(1)) {
        let step = step.replace("~1", "/").replace("~0", "~");
        node = node.and_then(|n| match step.as_str() {
            "$ref" => target(schema, n),
            step => n.get(step).or_else(|| n.get(step.parse::<usize>().ok()?)),
        });
    }
    at.node = node;
    at
}

/// An error in the harness's words: each with the field it is about, when
/// that is a field of the value at fault (missing, unknown, a bad key).
fn words(
    at: &At<'_>,
    error: &jsonschema::ValidationError<'_>,
    instance: &Value,
    bless: bool,
    say: &mut impl FnMut(Option<&str>, String),
) {
    let mut here = |message: String| say(None, message);
    match &error.kind {
        Kind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            // Read by `make test` too: it points to what fills `expect` in;
            // `make bless` (`bless`) fills it in.
            let hint = match name {
                "expect" if bless => return,
                "expect" => {
                    ": run `make bless` to compute it from the Rust reference, then review the diff"
                }
                _ => "",
            };
            say(Some(name), format!("required field is missing{hint}"));
        }
        Kind::AdditionalProperties { unexpected } | Kind::UnevaluatedProperties { unexpected } => {
            let problem = format!("unknown field (known fields: {})", known_fields(at));
            for name in unexpected {
                say(Some(name), problem.clone());
            }
        }
        Kind::Type { .. } => match instance.as_f64() {
            Some(x) if instance.is_f64() && at.get("type") == Some(&"integer".into()) => {
                here(float_message(at, x))
            }
            _ => here(format!("must be {}, not {}", wanted(at), kind_of(instance))),
        },
        Kind::Minimum { .. } | Kind::Maximum { .. } => {
            let (min, max) = at.range();
            here(format!("must be from {min} to {max}, not {instance}"))
        }
        Kind::Enum { options } => here(one_of(at, options, instance)),
        // Only a case's name has these three. It is part of a trial name,
        // which libtest-mimic prints whole (and panics on beyond 65,535
        // characters): the name is not quoted back when too long.
        Kind::MaxLength { limit } if at.field == "name" => here(format!(
            "is {} characters long, over the limit of {limit}: shorten it",
            length(instance)
        )),
        // A name too long is said by MaxLength alone, without the name.
        Kind::Pattern { .. } if at.field == "name" => {
            let limit = at.get("maxLength").and_then(Value::as_u64);
            if limit.is_none_or(|limit| length(instance) <= limit) {
                here(format!(
                    "{instance} is not a valid name: use lowercase letters, digits and `_` only"
                ));
            }
        }
        // Said by validate.rs's rule, which refuses a blank description too.
        Kind::MinLength { .. } if at.field == "description" => {}
        Kind::Not { .. } if at.field == "name" => here(format!(
            "{instance} is reserved for a trial of each language: pick another name"
        )),
        Kind::PropertyNames { error } => {
            let key = error.instance.as_str().unwrap_or_default();
            say(Some(key), not_an_attempt(key));
        }
        // A keyword the harness has no words of its own for (or not in
        // this field): the validator's.
        _ => here(error.to_string()),
    }
}

/// An enum's refusal: `unknown failure "x": use "down" or "lost_ack"`, its
/// word (`failure`) the schema's `title`.
fn one_of(at: &At<'_>, options: &Value, instance: &Value) -> String {
    let names = options.as_array().into_iter().flatten();
    let names = names.map(Value::to_string).collect::<Vec<_>>().join(" or ");
    match instance {
        Value::String(text) => {
            let what = at.get("title").and_then(Value::as_str).unwrap_or("value");
            format!("unknown {what} {text:?}: use {names}")
        }
        other => format!("must be {names}, not {}", kind_of(other)),
    }
}

/// The fields an object's schema knows, its own and its `$ref`'s, sorted.
fn known_fields(at: &At<'_>) -> String {
    let nodes = at
        .node
        .into_iter()
        .chain(at.node.and_then(|n| target(at.schema, n)));
    let properties = nodes.filter_map(|node| node.get("properties")?.as_object());
    let mut names: Vec<String> = properties.flat_map(Map::keys).cloned().collect();
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
fn kind_of(value: &Value) -> &'static str {
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

/// A number written with a fraction or an exponent where an integer is
/// wanted: out of range, or else to be written as an integer.
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
    // Whole digits where they are exact.
    let x = if x.abs() < 1e21 {
        format!("{x:.0}")
    } else {
        format!("{x:e}")
    };
    format!("must be from {min} to {max}, not {x}: too {side}")
}

/// What is wrong with a failure key that is no attempt number.
pub fn not_an_attempt(key: &str) -> String {
    format!(
        "{key:?} is not an attempt number: write a decimal from 1 to {MAX_ID} without sign, leading \
         zero or spaces"
    )
}

/// A string's length in characters (0 for another value).
fn length(instance: &Value) -> u64 {
    instance.as_str().unwrap_or_default().chars().count() as u64
}
