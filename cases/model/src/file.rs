//! A case file as its author writes it: the file (`$schema`, `cases`) and
//! each case, its name, description, the scenario's fields beside them and
//! `expect`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::scenario::Scenario;

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

/// One case as a case file spells it: the name, the description, the
/// scenario's fields (flattened beside them) and `expect`, in this order,
/// which is also the canonical layout's. A new scenario field is a field
/// of [`Scenario`] alone.
///
/// serde cannot refuse an unknown field through `flatten`; the harness
/// checks every file against `cases/schema.json`, whose objects allow no
/// other property, before serde reads it, and that refuses one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseSpec {
    /// Stable id, unique across files; part of the trial name.
    pub name: String,
    /// What the case shows.
    pub description: String,
    /// What the relay is asked to do.
    #[serde(flatten)]
    pub scenario: Scenario,
    /// The expected outcome as data, valid under the schema's
    /// `$defs/outcome`: an outcome field no Rust code names is compared
    /// too. `None` until `make bless` has computed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Map<String, Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_is_its_parts_with_the_scenario_beside_them() {
        let text = r#"{"name":"c","description":"d","batch_size":1,"messages":[],"failures":{"2":"down"},"passes":0,"expect":{"sent":[],"probe":1}}"#;
        let spec: CaseSpec = serde_json::from_str(text).unwrap();
        assert_eq!(spec.scenario.failures[&2], crate::Failure::Down);
        assert_eq!(spec.expect.as_ref().unwrap()["probe"], 1);
        assert_eq!(serde_json::to_string(&spec).unwrap(), text);
        let file: CaseFile = serde_json::from_str(&format!(r#"{{"cases":[{text}]}}"#)).unwrap();
        assert_eq!(file.cases, [spec]);
        let typo = text.replace("\"down\"", "\"dwon\"");
        let error = serde_json::from_str::<CaseSpec>(&typo).unwrap_err();
        assert!(
            error
                .to_string()
                .contains(r#"field `failures."2"`: "dwon" is not one of "down", "lost_ack""#),
            "{error}"
        );
    }
}
