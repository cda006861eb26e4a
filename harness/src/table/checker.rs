//! Checking JSON values one field at a time, recording what is wrong with
//! each (file, case, field) instead of stopping at the first problem: the
//! generic half of validation, which [`super::validate`] applies to the
//! case format's rules.

use std::path::Path;

use super::json::Json;
use super::CaseError;

/// The value of `key` in an object's fields.
pub(super) fn get<'j>(fields: &'j [(String, Json)], key: &str) -> Option<&'j Json> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// A field's path: `prefix.field`, or `field` at the top.
pub(super) fn join(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_owned()
    } else {
        format!("{prefix}.{field}")
    }
}

/// Checks values of one file and records what is wrong with them.
pub(super) struct Checker<'a> {
    pub(super) file: &'a Path,
    pub(super) case: Option<String>,
    pub(super) errors: &'a mut Vec<CaseError>,
}

impl Checker<'_> {
    pub(super) fn fail(&mut self, field: &str, problem: String) {
        self.errors.push(CaseError {
            file: self.file.to_path_buf(),
            case: self.case.clone(),
            field: (!field.is_empty()).then(|| field.to_owned()),
            problem,
        });
    }

    pub(super) fn wrong_type(&mut self, field: &str, wanted: &str, value: &Json) {
        self.fail(field, format!("must be {wanted}, not {}", value.kind()));
    }

    /// Reports unknown and missing fields; false if any.
    pub(super) fn fields(
        &mut self,
        prefix: &str,
        fields: &[(String, Json)],
        required: &[&str],
        optional: &[&str],
    ) -> bool {
        let before = self.errors.len();
        for (key, _) in fields {
            if !required.contains(&key.as_str()) && !optional.contains(&key.as_str()) {
                let mut known: Vec<&str> = required.iter().chain(optional).copied().collect();
                known.sort_unstable();
                self.fail(
                    &join(prefix, key),
                    format!("unknown field (known fields: {})", known.join(", ")),
                );
            }
        }
        for key in required {
            if get(fields, key).is_none() {
                self.fail(&join(prefix, key), "required field is missing".into());
            }
        }
        self.errors.len() == before
    }

    pub(super) fn object<'j>(
        &mut self,
        field: &str,
        value: &'j Json,
    ) -> Option<&'j [(String, Json)]> {
        match value {
            Json::Object(fields) => Some(fields),
            other => {
                self.wrong_type(field, "an object", other);
                None
            }
        }
    }

    pub(super) fn array<'j>(&mut self, field: &str, value: &'j Json) -> Option<&'j [Json]> {
        match value {
            Json::Array(items) => Some(items),
            other => {
                self.wrong_type(field, "an array (write `[]` for none)", other);
                None
            }
        }
    }

    pub(super) fn string(&mut self, field: &str, value: &Json) -> Option<String> {
        match value {
            Json::Str(s) => Some(s.clone()),
            other => {
                self.wrong_type(field, "a string", other);
                None
            }
        }
    }

    pub(super) fn boolean(&mut self, field: &str, value: &Json) -> Option<bool> {
        match value {
            Json::Bool(b) => Some(*b),
            other => {
                self.wrong_type(field, "true or false", other);
                None
            }
        }
    }

    pub(super) fn int(&mut self, field: &str, value: &Json, min: u64, max: u64) -> Option<u64> {
        match value {
            Json::UInt(n) if (min..=max).contains(n) => Some(*n),
            Json::UInt(n) => {
                self.fail(field, format!("must be from {min} to {max}, not {n}"));
                None
            }
            Json::NegInt(n) => {
                self.fail(field, format!("must be from {min} to {max}, not {n}"));
                None
            }
            Json::Float(x) if *x < min as f64 || *x > max as f64 => {
                // Too large for 64 bits, or written with an exponent: either
                // way the value is what is wrong, not how it is written.
                let side = if *x < min as f64 { "small" } else { "large" };
                self.fail(
                    field,
                    format!("must be from {min} to {max}, not {}: too {side}", plain(*x)),
                );
                None
            }
            Json::Float(x) => {
                self.fail(
                    field,
                    format!(
                        "must be an integer from {min} to {max} written without fraction or \
                         exponent, not {x:?}"
                    ),
                );
                None
            }
            other => {
                self.wrong_type(field, &format!("an integer from {min} to {max}"), other);
                None
            }
        }
    }
}

/// A float as a message shows it: whole digits where they are exact.
pub(super) fn plain(x: f64) -> String {
    if x.abs() < 1e21 {
        format!("{x:.0}")
    } else {
        format!("{x:e}")
    }
}
