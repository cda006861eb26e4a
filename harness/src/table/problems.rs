//! Every problem `cases/schema.json` finds in a case file, in the harness's
//! words: the schema is the one the loader checks with (the file itself,
//! built in), so the schema an editor shows and the rules a run applies
//! cannot drift. Each problem names its case (by index, the caller names
//! it), its field as the model spells it (`messages[1].id`,
//! `failures."1"`) and what is wrong, with the bounds the schema gives.

use std::collections::HashMap;
use std::sync::LazyLock;

use jsonschema::error::ValidationErrorKind as Kind;
use serde_json::{Map, Value};

use super::MAX_ID;

/// The case files' schema, as editors read it, and its validator, built once.
static SCHEMA: LazyLock<(Value, jsonschema::Validator)> = LazyLock::new(|| {
    let text = include_str!("../../../cases/schema.json");
    let schema: Value = serde_json::from_str(text).expect("cases/schema.json is JSON");
    let validator = jsonschema::validator_for(&schema).expect("cases/schema.json is a JSON Schema");
    (schema, validator)
});

/// A problem: its field's path inside the case (or the file; `""`: the
/// case, or the file, itself) and what is wrong.
pub(super) type Found = (String, String);

/// Every problem of a file's value, by case (its index in `cases`; `None`:
/// the file's own fields), each in the validator's order (missing fields,
/// then each field's in the schema's order, then unknown fields).
/// `floats`: whether the text had a number written with a fraction or an
/// exponent (or too large for 64 bits), which JSON Schema takes for an
/// integer when it has no fraction: such numbers are checked as `null`, so
/// each is refused where it stands, and said as the number it is. `bless`:
/// for `make bless`, where a case may lack `expect`.
pub(super) fn of(root: &Value, floats: bool, bless: bool) -> HashMap<Option<usize>, Vec<Found>> {
    let (schema, validator) = &*SCHEMA;
    let checked = floats.then(|| without_floats(root));
    let mut by_case: HashMap<_, Vec<Found>> = HashMap::new();
    for error in validator.iter_errors(checked.as_ref().unwrap_or(root)) {
        let pointer = error.instance_path.as_str();
        let at = locate(schema, pointer);
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

/// Where an error is: the case, the field's path as messages spell it, and
/// the field's schema (none for an unknown field).
struct At<'s> {
    case: Option<usize>,
    field: String,
    node: Option<&'s Value>,
}

impl<'s> At<'s> {
    fn get(&self, keyword: &str) -> Option<&'s Value> {
        self.node.and_then(|node| node.get(keyword))
    }

    /// The integer range the schema gives, as text.
    fn range(&self) -> (String, String) {
        let bound = |keyword| self.get(keyword).map_or("?".to_owned(), Value::to_string);
        (bound("minimum"), bound("maximum"))
    }

    /// The path of the field `name` of this object: `field.name`, or for
    /// an entry of a map (`failures`), `field."name"`.
    fn child(&self, name: &str) -> String {
        let map = matches!(self.get("additionalProperties"), Some(Value::Object(_)));
        match (map, self.field.as_str()) {
            (true, field) => format!("{field}.{name:?}"),
            (false, "") => name.to_owned(),
            (false, field) => format!("{field}.{name}"),
        }
    }
}

/// Follows a JSON pointer (`/cases/0/messages/1/id`) through the schema:
/// `cases[i]` becomes the case, the rest the field. An error is only ever
/// inside an array the schema has `items` for.
fn locate<'s>(schema: &'s Value, pointer: &str) -> At<'s> {
    let mut at = At {
        case: None,
        field: String::new(),
        node: Some(schema),
    };
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        let node = if let Some(items) = at.get("items") {
            let index = segment.parse().unwrap_or(usize::MAX);
            if at.case.is_none() && at.field == "cases" {
                at.case = Some(index);
                at.field.clear();
            } else {
                at.field = format!("{}[{index}]", at.field);
            }
            Some(items)
        } else {
            let property = at.get("properties").and_then(|p| p.get(&segment));
            let node = property.or_else(|| at.get("additionalProperties"));
            at.field = at.child(&segment);
            node.filter(|node| node.is_object())
        };
        // A `$ref` is to a node of the file's own (`#/$defs/...`).
        at.node = node.map(|node| {
            let target = node.get("$ref").and_then(Value::as_str);
            let pointer = target.and_then(|target| target.strip_prefix('#'));
            pointer.and_then(|p| schema.pointer(p)).unwrap_or(node)
        });
    }
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
        Kind::AdditionalProperties { unexpected } => {
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

/// The fields an object's schema knows, sorted.
fn known_fields(at: &At<'_>) -> String {
    let properties = at.get("properties").and_then(Value::as_object).into_iter();
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
pub(super) fn not_an_attempt(key: &str) -> String {
    format!(
        "{key:?} is not an attempt number: write a decimal from 1 to {MAX_ID} without sign, leading \
         zero or spaces"
    )
}

/// What the schema finds wrong with a case name, if anything: what `make
/// new-case` asks before it writes the name into a file.
pub(super) fn name_problem(name: &str) -> Option<String> {
    let case = of(&serde_json::json!({"cases": [{"name": name}]}), false, true).remove(&Some(0));
    let name = case?.into_iter().find(|(field, _)| field == "name");
    name.map(|(_, message)| message)
}

/// A string's length in characters (0 for another value).
fn length(instance: &Value) -> u64 {
    instance.as_str().unwrap_or_default().chars().count() as u64
}
