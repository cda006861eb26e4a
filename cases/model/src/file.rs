//! A case file as its author writes it: the file (`$schema`, `cases`) and
//! each case (name, description, the scenario's fields, `expect`), every
//! field known, so an unknown one is refused rather than ignored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::scenario::{is_false, Failure, Outcome, Row, Scenario};

/// A whole case file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// The schema an editor checks the file with, as its author gave it.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The cases, in file order.
    pub cases: Vec<CaseSpec>,
}

/// One case as a case file spells it: the scenario's fields sit beside the
/// name, description and `expect`, in this order, which is also the
/// canonical layout's order. `expect` is `None` until `make bless` has
/// computed it.
///
/// The scenario's fields are spelled out rather than flattened, because
/// serde cannot refuse unknown fields through `flatten`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseSpec {
    /// Stable id, unique across files; part of the trial name.
    pub name: String,
    /// What the case shows.
    pub description: String,
    /// See [`Scenario::batch_size`].
    pub batch_size: u64,
    /// See [`Scenario::messages`].
    pub messages: Vec<Row>,
    /// See [`Scenario::failures`]; left out of a file when empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failures: BTreeMap<u64, Failure>,
    /// See [`Scenario::passes`].
    pub passes: u64,
    /// See [`Scenario::restart_each_pass`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub restart_each_pass: bool,
    /// The expected result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Outcome>,
}

impl CaseSpec {
    /// A case from its parts.
    pub fn new(
        name: String,
        description: String,
        scenario: Scenario,
        expect: Option<Outcome>,
    ) -> Self {
        // The features' fields (SPEC.md, issues 40 and 41) join a case
        // file when it flattens the scenario; until then no file has them.
        let Scenario {
            batch_size,
            messages,
            failures,
            passes,
            restart_each_pass,
            ..
        } = scenario;
        CaseSpec {
            name,
            description,
            batch_size,
            messages,
            failures,
            passes,
            restart_each_pass,
            expect,
        }
    }

    /// The name, description, scenario and expect.
    pub fn into_parts(self) -> (String, String, Scenario, Option<Outcome>) {
        let CaseSpec {
            name,
            description,
            batch_size,
            messages,
            failures,
            passes,
            restart_each_pass,
            expect,
        } = self;
        let scenario = Scenario {
            batch_size,
            messages,
            failures,
            passes,
            restart_each_pass,
            ..Scenario::default()
        };
        (name, description, scenario, expect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_is_its_parts_and_unknown_fields_are_refused() {
        let text = r#"{"name":"c","description":"d","batch_size":1,"messages":[],"passes":0}"#;
        let spec: CaseSpec = serde_json::from_str(text).unwrap();
        assert_eq!(spec.expect, None);
        assert_eq!(serde_json::to_string(&spec).unwrap(), text);
        let (name, description, scenario, expect) = spec.clone().into_parts();
        assert_eq!(CaseSpec::new(name, description, scenario, expect), spec);
        let unknown = text.replace("\"passes\"", "\"pases\":1,\"passes\"");
        let error = serde_json::from_str::<CaseSpec>(&unknown).unwrap_err();
        assert!(
            error.to_string().contains("unknown field `pases`"),
            "{error}"
        );
        let file: CaseFile = serde_json::from_str(&format!(r#"{{"cases":[{text}]}}"#)).unwrap();
        assert_eq!(file.cases, [spec]);
    }
}
