//! Every problem `cases/schema.json` finds in a case file or a runner's
//! answer, in the harness's words. Each problem names its field as the
//! model spells it (`messages[1].id`, `failures."1"`, `sent[1]`), inside
//! its case when the value is a file (by index: the caller names it), and
//! what is wrong, with the bounds the schema gives.

use std::collections::HashMap;

use jsonschema::error::ValidationErrorKind as Kind;
use jsonschema::paths::Location;
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
        let at = locate(schema, pointer, &error.schema_path, cases);
        let instance = root.pointer(pointer).unwrap_or(&Value::Null);
        let found = by_case.entry(at.case).or_default();
        let mut say = |field, message| found.push((field, message));
        words(&at, &error, instance, bless, &mut say);
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
/// and the schema node whose keyword found it.
struct At<'s> {
    case: Option<usize>,
    field: String,
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

/// Where an error is: its keyword's node, found by the keyword's path
/// through the schema, whose `$ref` steps jump to their target (so a
/// field of a branch or of a definition is said in its own words); and
/// its field, each step into the value taking the next segment of the
/// instance's path: `properties` its name, `items` a list's index written
/// `[i]` (`cases[i]` becoming the case when `cases`), and
/// `additionalProperties` a map's key, quoted.
fn locate<'s>(schema: &'s Value, pointer: &str, path: &Location, cases: bool) -> At<'s> {
    let unescape = |segment: &str| segment.replace("~1", "/").replace("~0", "~");
    let mut instance = pointer.split('/').skip(1).map(unescape);
    let steps: Vec<String> = path.as_str().split('/').skip(1).map(unescape).collect();
    // The keyword's node: its path without the keyword itself.
    let mut steps = steps.iter().take(steps.len().saturating_sub(1));
    let (mut case, mut field, mut node) = (None, String::new(), Some(schema));
    while let Some(step) = steps.next() {
        node = match step.as_str() {
            "$ref" => node.and_then(|n| target(schema, n)),
            "properties" => {
                let name = steps.next().cloned().unwrap_or_default();
                instance.next();
                field = child(&field, false, &name);
                node.and_then(|n| n.get("properties")?.get(&name))
            }
            "additionalProperties" => {
                field = child(&field, true, &instance.next().unwrap_or_default());
                node.and_then(|n| n.get(step))
            }
            "items" => {
                let index = instance.next().unwrap_or_default();
                if cases && case.is_none() && field == "cases" {
                    (case, field) = (index.parse().ok(), String::new());
                } else {
                    field = format!("{field}[{index}]");
                }
                node.and_then(|n| n.get(step))
            }
            step => node.and_then(|n| n.get(step).or_else(|| n.get(step.parse::<usize>().ok()?))),
        };
    }
    At {
        case,
        field,
        node,
        schema,
    }
}

/// An error in the harness's words: each with the field it is about, when
/// that is a field of the value at fault (missing, unknown, a bad key).
fn words(
    at: &At<'_>,
    error: &jsonschema::ValidationError<'_>,
    instance: &Value,
    bless: bool,
    say: &mut impl FnMut(String, String),
) {
    let mut here = |message: String| say(at.field.clone(), message);
    let field = |name: &str| child(&at.field, false, name);
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
            say(field(name), format!("required field is missing{hint}"));
        }
        Kind::AdditionalProperties { unexpected } | Kind::UnevaluatedProperties { unexpected } => {
            let problem = format!("unknown field (known fields: {})", known_fields(at));
            for name in unexpected {
                say(field(name), problem.clone());
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
            // The key is data, a map's (`failures`): quoted.
            say(child(&at.field, true, key), not_an_attempt(key));
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
    let own = at.node.and_then(|n| target(at.schema, n));
    let nodes = at.node.into_iter().chain(own);
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
    let x = match x.abs() < 1e21 {
        true => format!("{x:.0}"),
        false => format!("{x:e}"),
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
