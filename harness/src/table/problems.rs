//! What a read of a case into the model ([`super::de`]) records and why it
//! stops: the problems found, each with its field's path, and the rules'
//! word on numbers, which serde's types cannot carry.

use std::cell::RefCell;
use std::fmt;

use serde::de;

use super::checker::join;
use super::json::Json;

/// What the rules say about numbers, which serde's types cannot: the range
/// of each integer field, and what a map's integer key must look like.
pub(super) trait Numbers {
    /// The range of the integer at `field` (a path such as `messages[1].id`).
    fn range(&self, field: &str) -> (u64, u64);
    /// The integer a map key at `field` stands for, or what is wrong with it.
    fn key(&self, field: &str, key: &str) -> Result<u64, String>;
}

/// A field's path and what is wrong with it (`""`: the value read).
pub(super) type Problem = (String, String);

/// Required fields learned by reading: (struct's name, field). A field is
/// required wherever its struct is, so what one read learns holds for all.
pub(super) type Required = Vec<(&'static str, &'static str)>;

/// What one read shares: the rules, the fields an earlier read found
/// required, and the problems found so far.
pub(super) struct Reader<'r> {
    pub(super) numbers: &'r dyn Numbers,
    /// Required fields found by an earlier read: (struct's name, field),
    /// reported wherever that struct lacks one.
    pub(super) required: &'r [(&'static str, &'static str)],
    pub(super) problems: RefCell<Vec<Problem>>,
}

impl Reader<'_> {
    pub(super) fn fail(&self, path: &str, problem: String) {
        self.problems.borrow_mut().push((path.to_owned(), problem));
    }

    pub(super) fn wrong_type(&self, path: &str, wanted: &str, value: &Json) {
        self.fail(path, format!("must be {wanted}, not {}", value.kind()));
    }
}

/// Why a read stopped: serde's missing field (its struct's path added on
/// the way out), or a message of its own.
#[derive(Debug)]
pub(super) enum Stop {
    /// A required field is missing.
    Missing {
        /// The struct's path, once known.
        at: Option<String>,
        /// The struct's name, once known.
        structure: Option<&'static str>,
        /// The field.
        field: &'static str,
    },
    /// Anything else serde says.
    Other(String),
}

impl Stop {
    /// The innermost struct's path and name, for a missing field.
    pub(super) fn at(self, path: &str, name: &'static str) -> Self {
        match self {
            Stop::Missing {
                at: None, field, ..
            } => Stop::Missing {
                at: Some(path.to_owned()),
                structure: Some(name),
                field,
            },
            other => other,
        }
    }

    pub(super) fn problem(self) -> Problem {
        match self {
            Stop::Missing { at, field, .. } => (
                join(&at.unwrap_or_default(), field),
                "required field is missing".to_owned(),
            ),
            Stop::Other(message) => (String::new(), message),
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Missing { field, .. } => write!(f, "missing field `{field}`"),
            Stop::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Stop::Other(message.to_string())
    }

    fn missing_field(field: &'static str) -> Self {
        Stop::Missing {
            at: None,
            structure: None,
            field,
        }
    }
}
