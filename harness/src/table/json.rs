//! A strict JSON tree for the case table.
//!
//! `serde_json::Value` silently keeps the last of two repeated keys and turns
//! `1.0` into a number like any other. Case files must reject both (a
//! repeated key is almost always a merge mistake, and `1.0` is read
//! differently by different languages), so files are parsed into this tree,
//! which keeps integers apart from other numbers and refuses repeated keys.
//!
//! Case files are read by [`parse_value`] instead: a `serde_json::Value`
//! (what the JSON Schema validator takes) built with the same refusal of
//! repeated keys; there `1.0` is a float, told apart from `1` by
//! `Number::is_f64`.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// One JSON value, with integers kept apart from other numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A non-negative integer that fits in 64 bits.
    UInt(u64),
    /// A negative integer.
    NegInt(i64),
    /// Any other number: a fraction, an exponent, or too large for 64 bits.
    Float(f64),
    /// A string (valid UTF-8: lone surrogates are refused by the parser).
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in file order, none repeated.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Parses text, refusing repeated keys; errors carry line and column.
    pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Like [`Json::parse`], with the error as a message for a person: a
    /// lone surrogate is named as such, where serde_json speaks of a hex
    /// escape it could not finish.
    pub fn parse_for_people(text: &str) -> Result<Json, String> {
        if text.trim().is_empty() {
            return Err("the file is empty (a case file is at least `{\"cases\": []}`)".to_owned());
        }
        Json::parse(text).map_err(|e| explain(text, &e))
    }

    /// What kind of value this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::UInt(_) | Json::NegInt(_) => "an integer",
            Json::Float(_) => "a non-integer number",
            Json::Str(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::UInt(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(if v >= 0 {
            Json::UInt(v as u64)
        } else {
            Json::NegInt(v)
        })
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries: Vec<(String, Json)> = Vec::new();
        // A set beside the list, so an object of n keys is checked in n
        // steps, not n^2 / 2 (100,000 keys took 74 s that way).
        let mut seen: HashSet<String> = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format_args!(
                    "repeated key {key:?} in one object"
                )));
            }
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Json::Object(entries))
    }
}

/// `text` as a `serde_json::Value`, refusing repeated keys, with the error
/// as [`Json::parse_for_people`] words it; and whether a number was written
/// with a fraction or an exponent (or is too large for 64 bits).
pub fn parse_value(text: &str) -> Result<(serde_json::Value, bool), String> {
    if text.trim().is_empty() {
        return Err("the file is empty (a case file is at least `{\"cases\": []}`)".to_owned());
    }
    let floats = Cell::new(false);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Strict(&floats)
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value))
        .map(|value| (value, floats.get()))
        .map_err(|e| explain(text, &e))
}

/// Reads a `serde_json::Value` whose objects have no repeated key, noting
/// any float in its cell.
#[derive(Clone, Copy)]
struct Strict<'f>(&'f Cell<bool>);

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = serde_json::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// serde_json's own `Value` visitor, but for objects: a key seen before in
/// the same object is an error where it stands (the map's lookup keeps it
/// linear).
impl<'de> Visitor<'de> for Strict<'_> {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        self.0.set(true);
        Ok(v.into())
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(items.into())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let slot = match entries.entry(key) {
                serde_json::map::Entry::Vacant(slot) => slot,
                serde_json::map::Entry::Occupied(seen) => {
                    return Err(de::Error::custom(format_args!(
                        "repeated key {:?} in one object",
                        seen.key()
                    )));
                }
            };
            slot.insert(map.next_value_seed(self)?);
        }
        Ok(entries.into())
    }
}

/// serde_json's message about `text`, or for a lone surrogate one that
/// says so and points at the escape itself (serde_json points past it).
pub fn explain(text: &str, error: &serde_json::Error) -> String {
    let message = error.to_string();
    let about_escape = ["hex escape", "surrogate"]
        .iter()
        .any(|words| message.contains(words));
    if !about_escape || error.line() == 0 {
        return message;
    }
    let Some(line) = text.split('\n').nth(error.line() - 1) else {
        return message;
    };
    let before: String = line.chars().take(error.column()).collect();
    match last_surrogate_escape(&before) {
        Some((column, escape)) => format!(
            "a lone surrogate ({escape}) is not valid UTF-8 text at line {} column {column}",
            error.line()
        ),
        None => message,
    }
}

/// The 1-based column and text of the last `\uD800`-`\uDFFF` escape in
/// `line`, if any.
fn last_surrogate_escape(line: &str) -> Option<(usize, String)> {
    let chars: Vec<char> = line.chars().collect();
    (0..chars.len()).rev().find_map(|at| {
        let escape: String = chars.get(at..at + 6)?.iter().collect();
        let hex = escape.strip_prefix("\\u")?;
        let code = u16::from_str_radix(hex, 16).ok()?;
        // `\\ud800` is a backslash and text, not an escape.
        let backslashes_before = chars[..at].iter().rev().take_while(|c| **c == '\\').count();
        ((0xD800..=0xDFFF).contains(&code) && backslashes_before % 2 == 0).then(|| (at + 1, escape))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_integers_apart_from_other_numbers() {
        assert_eq!(Json::parse("7").unwrap(), Json::UInt(7));
        assert_eq!(Json::parse("-7").unwrap(), Json::NegInt(-7));
        assert_eq!(Json::parse("1.0").unwrap(), Json::Float(1.0));
        assert_eq!(Json::parse("1e0").unwrap(), Json::Float(1.0));
        assert!(matches!(Json::parse("1e400"), Err(_) | Ok(Json::Float(_))));
    }

    #[test]
    fn refuses_a_repeated_key_with_its_position() {
        let err = Json::parse("{\"a\": 1,\n \"a\": 2}")
            .unwrap_err()
            .to_string();
        assert!(err.contains("repeated key \"a\" in one object"), "{err}");
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn names_a_lone_surrogate() {
        for (text, message) in [
            (
                r#""\ud800""#,
                r"a lone surrogate (\ud800) is not valid UTF-8 text at line 1 column 2",
            ),
            (
                r#"["x", "\ud800\u0041"]"#,
                r"a lone surrogate (\ud800) is not valid UTF-8 text at line 1 column 8",
            ),
            (
                r#"["\udc00"]"#,
                r"a lone surrogate (\udc00) is not valid UTF-8 text at line 1 column 3",
            ),
        ] {
            assert_eq!(Json::parse_for_people(text).unwrap_err(), message);
        }
        // A pair is one character, and other bad escapes keep serde_json's words.
        assert_eq!(
            Json::parse_for_people(r#""\ud83d\ude00""#),
            Ok(Json::Str("\u{1f600}".into()))
        );
        assert_eq!(
            Json::parse_for_people(r#""\uzzzz""#).unwrap_err(),
            "invalid escape at line 1 column 7"
        );
    }
}
