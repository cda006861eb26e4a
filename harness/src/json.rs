//! JSON read strictly, for case files, runner answers and known-failure
//! lists: `serde_json::Value` silently keeps the last of two repeated keys
//! (a repeated key is almost always a merge mistake, and in an answer it
//! would let `{"error":"a","error":"b"}` pass as "b"), so [`parse_value`]
//! refuses them where they stand; a number written with a fraction or an
//! exponent stays an f64 (`Number::is_f64`), told apart from `1`.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// `text` as a `serde_json::Value`, refusing repeated keys (the error
/// carries line and column; [`explain`] words it for people); and whether
/// a number was written with a fraction or an exponent (or is too large
/// for 64 bits).
pub fn parse_value(text: &str) -> Result<(serde_json::Value, bool), serde_json::Error> {
    let floats = Cell::new(false);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Strict(&floats).deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok((value, floats.get()))
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
    let lone_surrogate = || {
        let line = text.split('\n').nth(error.line().checked_sub(1)?)?;
        let chars: Vec<char> = line.chars().take(error.column()).collect();
        // The last `\uD800`-`\uDFFF` escape before the error, and its column.
        let (column, escape) = (0..chars.len()).rev().find_map(|at| {
            let escape: String = chars.get(at..at + 6)?.iter().collect();
            let code = u16::from_str_radix(escape.strip_prefix("\\u")?, 16).ok()?;
            // `\\ud800` is a backslash and text, not an escape.
            let backslashes = chars[..at].iter().rev().take_while(|c| **c == '\\');
            let escaped = (0xD800..=0xDFFF).contains(&code) && backslashes.count() % 2 == 0;
            escaped.then(|| (at + 1, escape))
        })?;
        Some(format!(
            "a lone surrogate ({escape}) is not valid UTF-8 text at line {} column {column}",
            error.line()
        ))
    };
    let about_escape = ["hex escape", "surrogate"]
        .iter()
        .any(|words| message.contains(words));
    about_escape
        .then(lone_surrogate)
        .flatten()
        .unwrap_or(message)
}
