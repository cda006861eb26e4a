//! Reading the strict [`Json`] tree into the case model through serde, so
//! the model's own `Deserialize` says which fields exist, which are
//! optional and what type each has; nothing here knows a case's fields.
//!
//! Unlike serde_json, it does not stop at the first problem: a value of the
//! wrong type, an unknown field or a number out of its range is recorded
//! with its path (`messages[1].id`, `failures."1"`) and replaced by a zero
//! value, so every such problem of a case is listed in one round. A
//! missing required field is what serde itself reports, one at a time:
//! [`read`] learns that the struct's field is required and reads again,
//! now reporting it (and giving a zero) wherever that struct lacks it, so
//! 100,000 rows missing `type` cost two reads, not 100,000.

use std::cell::RefCell;

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Visitor};

use super::checker::{join, plain};
use super::json::Json;
use super::problems::{Numbers, Problem, Reader, Required, Stop};

/// At most this many required fields are learned by reading again: the
/// model has fewer, so this only bounds a model gone wrong.
const MAX_MISSING: usize = 64;

/// `json` read as a `T`, and every problem found. The value is `None` only
/// when serde gave up, which the zero values leave to a missing field found
/// past [`MAX_MISSING`]; with problems it holds zeros in their places.
/// `required` is what earlier reads learned, kept for the next, so 100,000
/// empty cases are read twice each, not six times.
pub(super) fn read<T: DeserializeOwned>(
    json: &Json,
    numbers: &dyn Numbers,
    required: &mut Required,
) -> (Option<T>, Vec<Problem>) {
    loop {
        let reader = Reader {
            numbers,
            required,
            problems: RefCell::new(Vec::new()),
        };
        let result = T::deserialize(De {
            reader: &reader,
            value: Some(json),
            path: String::new(),
        });
        let mut problems = reader.problems.into_inner();
        match result {
            Err(Stop::Missing {
                structure: Some(structure),
                field,
                ..
            }) if required.len() < MAX_MISSING && !required.contains(&(structure, field)) => {
                required.push((structure, field));
            }
            Err(stop) => {
                problems.push(stop.problem());
                return (None, problems);
            }
            Ok(value) => return (Some(value), problems),
        }
    }
}

/// One value being read: `None` is a zero in the place of a value that is
/// missing or of the wrong type (already reported).
struct De<'r, 'j> {
    reader: &'r Reader<'r>,
    value: Option<&'j Json>,
    path: String,
}

impl<'r, 'j> De<'r, 'j> {
    fn child(&self, value: Option<&'j Json>, path: String) -> Self {
        De {
            reader: self.reader,
            value,
            path,
        }
    }

    /// The integer read, checked against its range; a problem reads as the
    /// range's low end.
    fn integer(&self) -> u64 {
        let (min, max) = self.reader.numbers.range(&self.path);
        let Some(value) = self.value else {
            return min;
        };
        let problem = match value {
            Json::UInt(n) if (min..=max).contains(n) => return *n,
            Json::UInt(n) => format!("must be from {min} to {max}, not {n}"),
            Json::NegInt(n) => format!("must be from {min} to {max}, not {n}"),
            // Too large for 64 bits, or written with an exponent: either
            // way the value is what is wrong, not how it is written.
            Json::Float(x) if *x < min as f64 || *x > max as f64 => {
                let side = if *x < min as f64 { "small" } else { "large" };
                format!("must be from {min} to {max}, not {}: too {side}", plain(*x))
            }
            Json::Float(x) => format!(
                "must be an integer from {min} to {max} written without fraction or exponent, not {x:?}"
            ),
            other => format!("must be an integer from {min} to {max}, not {}", other.kind()),
        };
        self.reader.fail(&self.path, problem);
        min
    }
}

impl<'de> Deserializer<'de> for De<'_, '_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        match self.value {
            None | Some(Json::Null) => visitor.visit_unit(),
            Some(Json::Bool(b)) => visitor.visit_bool(*b),
            Some(Json::UInt(n)) => visitor.visit_u64(*n),
            Some(Json::NegInt(n)) => visitor.visit_i64(*n),
            Some(Json::Float(x)) => visitor.visit_f64(*x),
            Some(Json::Str(s)) => visitor.visit_str(s),
            Some(Json::Array(_)) => self.deserialize_seq(visitor),
            Some(Json::Object(_)) => self.deserialize_map(visitor),
        }
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        visitor.visit_u64(self.integer())
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        match self.value {
            Some(Json::Bool(b)) => visitor.visit_bool(*b),
            Some(other) => {
                self.reader.wrong_type(&self.path, "true or false", other);
                visitor.visit_bool(false)
            }
            None => visitor.visit_bool(false),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        match self.value {
            Some(Json::Str(s)) => visitor.visit_str(s),
            Some(other) => {
                self.reader.wrong_type(&self.path, "a string", other);
                visitor.visit_str("")
            }
            None => visitor.visit_str(""),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        // A field that is there is never "none": `null` is of the wrong type.
        match self.value {
            Some(_) => visitor.visit_some(self),
            None => visitor.visit_none(),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        let items: &[Json] = match self.value {
            Some(Json::Array(items)) => items,
            Some(other) => {
                let wanted = "an array (write `[]` for none)";
                self.reader.wrong_type(&self.path, wanted, other);
                &[]
            }
            None => &[],
        };
        visitor.visit_seq(Items {
            de: &self,
            items: items.iter().enumerate(),
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        let entries: &[(String, Json)] = match self.value {
            Some(Json::Object(entries)) => entries,
            Some(other) => {
                self.reader.wrong_type(&self.path, "an object", other);
                &[]
            }
            None => &[],
        };
        visitor.visit_map(Entries {
            de: &self,
            entries: entries.iter(),
            value: None,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Stop> {
        let entries: &[(String, Json)] = match self.value {
            Some(Json::Object(entries)) => entries,
            Some(other) => {
                self.reader.wrong_type(&self.path, "an object", other);
                &[]
            }
            None => &[],
        };
        // A struct of the wrong type is all zeros, so none of its fields is
        // called missing as well.
        let zeros = !matches!(self.value, Some(Json::Object(_)));
        let absent: Vec<&'static str> = fields
            .iter()
            .copied()
            .filter(|field| {
                zeros
                    || (self.reader.required.contains(&(name, field))
                        && !entries.iter().any(|(key, _)| key == field))
            })
            .collect();
        visitor
            .visit_map(Fields {
                de: &self,
                fields,
                entries: entries.iter(),
                absent: absent.into_iter(),
                missing: !zeros,
                value: None,
            })
            .map_err(|stop| stop.at(&self.path, name))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Stop> {
        let names: Vec<String> = variants.iter().map(|v| format!("{v:?}")).collect();
        let names = names.join(" or ");
        let first = variants.first().copied().unwrap_or_default();
        let variant = match self.value {
            Some(Json::Str(s)) if variants.contains(&s.as_str()) => s.as_str(),
            Some(Json::Str(s)) => {
                let what = name.to_lowercase();
                self.reader
                    .fail(&self.path, format!("unknown {what} {s:?}: use {names}"));
                first
            }
            Some(other) => {
                self.reader.wrong_type(&self.path, &names, other);
                first
            }
            None => first,
        };
        let variant: StrDeserializer<'_, Stop> = variant.into_deserializer();
        visitor.visit_enum(variant)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Stop> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u128 f32 f64 char bytes byte_buf unit unit_struct
        tuple tuple_struct identifier
    }
}

/// An array's items, each with its path.
struct Items<'d, 'r, 'j> {
    de: &'d De<'r, 'j>,
    items: std::iter::Enumerate<std::slice::Iter<'j, Json>>,
}

impl<'de> de::SeqAccess<'de> for Items<'_, '_, '_> {
    type Error = Stop;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Stop> {
        let Some((i, item)) = self.items.next() else {
            return Ok(None);
        };
        let path = format!("{}[{i}]", self.de.path);
        seed.deserialize(self.de.child(Some(item), path)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// A map's entries: keys as text (a number key through [`Numbers::key`]),
/// each value's path `map."key"`.
struct Entries<'d, 'r, 'j> {
    de: &'d De<'r, 'j>,
    entries: std::slice::Iter<'j, (String, Json)>,
    value: Option<(&'j str, &'j Json)>,
}

impl<'de> de::MapAccess<'de> for Entries<'_, '_, '_> {
    type Error = Stop;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        let path = format!("{}.{key:?}", self.de.path);
        seed.deserialize(Key {
            reader: self.de.reader,
            key,
            map: &self.de.path,
            path,
        })
        .map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        let (key, value) = self.value.take().expect("a key before its value");
        let path = format!("{}.{key:?}", self.de.path);
        seed.deserialize(self.de.child(Some(value), path))
    }
}

/// A struct's fields: an unknown one is reported and skipped, a missing one
/// an earlier read found required (or every one, for a struct of the wrong
/// type) is given as a zero after the others.
struct Fields<'d, 'r, 'j> {
    de: &'d De<'r, 'j>,
    fields: &'static [&'static str],
    entries: std::slice::Iter<'j, (String, Json)>,
    absent: std::vec::IntoIter<&'static str>,
    /// Whether an absent field is reported missing (not for a struct of
    /// the wrong type, already reported).
    missing: bool,
    value: Option<(String, Option<&'j Json>)>,
}

impl<'de> de::MapAccess<'de> for Fields<'_, '_, '_> {
    type Error = Stop;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        for (key, value) in self.entries.by_ref() {
            let path = join(&self.de.path, key);
            if self.fields.contains(&key.as_str()) {
                self.value = Some((path, Some(value)));
                let key: StrDeserializer<'_, Stop> = key.as_str().into_deserializer();
                return seed.deserialize(key).map(Some);
            }
            let mut known = self.fields.to_vec();
            known.sort_unstable();
            let problem = format!("unknown field (known fields: {})", known.join(", "));
            self.de.reader.fail(&path, problem);
        }
        let Some(field) = self.absent.next() else {
            return Ok(None);
        };
        let path = join(&self.de.path, field);
        if self.missing {
            let problem = "required field is missing".to_owned();
            self.de.reader.fail(&path, problem);
        }
        self.value = Some((path, None));
        let key: StrDeserializer<'_, Stop> = field.into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        let (path, value) = self.value.take().expect("a key before its value");
        seed.deserialize(self.de.child(value, path))
    }
}

/// A map's key.
struct Key<'r, 'k> {
    reader: &'r Reader<'r>,
    key: &'k str,
    /// The map's path, for [`Numbers::key`].
    map: &'k str,
    /// The entry's path, for a problem.
    path: String,
}

impl<'de> Deserializer<'de> for Key<'_, '_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        visitor.visit_str(self.key)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        match self.reader.numbers.key(self.map, self.key) {
            Ok(n) => visitor.visit_u64(n),
            Err(problem) => {
                self.reader.fail(&self.path, problem);
                visitor.visit_u64(0)
            }
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}
