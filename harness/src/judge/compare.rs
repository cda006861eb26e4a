//! Comparing a runner's outcome with the case's `expect` as data, in the
//! manner of toml-test: field by field, whatever the fields are (one no
//! code names is compared too), each field that differs kept with both of
//! its values and, for a list, the first item that differs. The words are
//! the emitters' ([`super::emit::differences`]), never made here.

use serde_json::Value;

use crate::contract::{Contract, Fields};

/// One field of the outcome whose expected and actual values differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The field, as the outcome names it (`sent`, `duplicates`).
    pub field: String,
    /// For two lists: the index of the first item that differs, and what
    /// an item is called (`run`, the schema's word).
    pub first: Option<(usize, String)>,
    /// The field as expected; `None`: answered, yet not expected.
    pub expected: Option<Value>,
    /// The field as answered; `None`: expected, yet absent from the answer.
    pub actual: Option<Value>,
}

impl Difference {
    /// Where the two first differ, as a key path: `sent[1]`, `duplicates`.
    pub fn path(&self) -> String {
        match &self.first {
            Some((index, _)) => format!("{}[{index}]", self.field),
            None => self.field.clone(),
        }
    }
}

/// Every field that differs between `expected` and `actual`, the expected
/// fields first in their order, then those only answered; none when the
/// two are equal.
pub fn differences(contract: &Contract, expected: &Fields, actual: &Fields) -> Vec<Difference> {
    if expected == actual {
        return Vec::new();
    }
    let answered_only = actual.keys().filter(|field| !expected.contains_key(*field));
    let fields = expected.keys().chain(answered_only);
    let differs = |field: &String| {
        let (expected, actual) = (expected.get(field), actual.get(field));
        let first = match (expected, actual) {
            _ if expected == actual => return None,
            (Some(Value::Array(e)), Some(Value::Array(a))) => {
                let at = (0..e.len().max(a.len())).find(|&i| e.get(i) != a.get(i))?;
                Some((at, contract.item_word(field).unwrap_or("item").to_owned()))
            }
            _ => None,
        };
        Some(Difference {
            field: field.clone(),
            first,
            expected: expected.cloned(),
            actual: actual.cloned(),
        })
    };
    fields.filter_map(differs).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::emit;
    use serde_json::json;

    fn fields(value: Value) -> Fields {
        value.as_object().cloned().unwrap()
    }

    fn report(expected: Value, actual: Value) -> String {
        let contract = Contract::repo().unwrap();
        emit::differences(&differences(&contract, &fields(expected), &fields(actual)))
    }

    /// Each field that differs is named with both values, a list's where it
    /// first differs; a field is compared whether or not any code names
    /// it: one absent from the answer is named with its expected value, one
    /// answered but not expected with its answer.
    #[test]
    fn says_where_each_field_first_differs_named_or_not() {
        let same = json!({"sent": [[1], []], "journal": ["x"], "duplicates": 0});
        for (expected, actual, said) in [
            (same.clone(), same, ""),
            (
                json!({"sent": [[2], [1, 3]], "journal": ["a", "b"], "duplicates": 1}),
                json!({"sent": [[2], [3]], "journal": ["a", "b"], "duplicates": 0}),
                "sent: first differs at run 2 (sent[1])\n  expected: [[2], [1, 3]]\n  \
                 actual:   [[2], [3]]\nduplicates: expected 1, actual 0\n",
            ),
            (
                json!({"duplicates": 0, "probe": 1, "gone": [1]}),
                json!({"duplicates": 0, "probe": 2, "extra": "x"}),
                "probe: expected 1, actual 2\ngone: expected [1], absent from the answer\n\
                 extra: not expected, answered \"x\"\n",
            ),
        ] {
            assert_eq!(report(expected, actual), said);
        }
    }

    #[test]
    fn a_long_list_shows_a_window() {
        let expected: Vec<Vec<u64>> = (0..100).map(|i| vec![i]).collect();
        let mut actual = expected.clone();
        actual[50] = vec![];
        let report = report(json!({"sent": expected}), json!({"sent": actual}));
        assert!(report.contains("run 51"), "{report}");
        assert!(
            report.contains("[…, [47], [48], [49], [], [51], [52], [53], …] (100 in all)"),
            "{report}"
        );
    }
}
