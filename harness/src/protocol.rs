//! The harness's side of the runner protocol (SPEC.md, "Runner protocol"):
//! request lines made from the case model, and a runner's answers read
//! strictly and checked with the contract's `$defs/answer`, so that a
//! runner that prints garbage, answers for another case or writes `null`
//! for an empty list is caught and blamed on the case it was on. An answer
//! is kept as data: a field no code here names is read, and compared, too.

use outbox_cases::protocol::CaseRequest;
use serde_json::error::Category;
use serde_json::Value;

use crate::contract::{Contract, Fields};
use crate::fault::{FaultKind, LINE_EXCERPT};
use crate::json;
use crate::table::Case;
use crate::text::excerpt;

/// One request ready to send: the case's name (to check the answer's) and
/// its line. Made once, it can go to every runner of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The case the answer must name.
    pub name: String,
    /// The request line, without its newline; never holds `expect`, so a
    /// runner cannot echo expected values.
    pub line: String,
    /// The longest answer line read for it (see
    /// [`crate::table::limits::answer_limit`]): it scales with the case, so no
    /// valid case's answer is over it.
    pub answer_limit: usize,
}

impl Request {
    /// The `case` request for a case.
    pub fn case(case: &Case) -> Self {
        Request {
            name: case.name.clone(),
            line: CaseRequest::new(&case.name, &case.scenario).line(),
            answer_limit: crate::table::limits::answer_limit(&case.name, &case.scenario),
        }
    }

    /// The requests for several cases, in order.
    pub fn cases<'a>(cases: impl IntoIterator<Item = &'a Case>) -> Vec<Self> {
        cases.into_iter().map(Request::case).collect()
    }

    /// What a runner given `requests` reads on stdin: a line each.
    pub fn input(requests: &[Request]) -> Vec<u8> {
        let lines = requests.iter().map(|r| format!("{}\n", r.line));
        lines.collect::<String>().into_bytes()
    }
}

/// What a runner said about one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A well-formed outcome, its fields as answered (the name aside),
    /// still to be compared with `expect`.
    Answer(Fields),
    /// The runner's port raised an unexpected error (an `error` answer).
    Error(String),
    /// The runner misbehaved on this case: it crashed, hung, printed
    /// something that is not the protocol, or could not be started.
    Fault(Box<crate::fault::Fault>),
}

/// Parses one line of a runner's stdout as the answer for case `name`:
/// read strictly (a repeated key is refused, never read as its last
/// value), its name checked, then the whole line checked with the
/// contract's `$defs/answer`; only a line that fails that check is walked
/// again for the words of what is wrong.
pub fn parse_answer(line: &[u8], name: &str, contract: &Contract) -> Result<Reply, FaultKind> {
    let malformed = |why: String| FaultKind::Malformed {
        why,
        line: line_excerpt(line),
    };
    let text = std::str::from_utf8(line).map_err(|_| malformed("the line is not UTF-8".into()))?;
    let (value, floats) = json::parse_value(text).map_err(|e| match e.classify() {
        Category::Data => malformed(e.to_string()),
        _ => malformed(format!("not JSON ({})", json::explain(text, &e))),
    })?;
    let not_an_object = || malformed("not a JSON object".into());
    match value.as_object().ok_or_else(not_an_object)?.get("name") {
        Some(Value::String(answered)) if answered == name => {}
        Some(Value::String(other)) => {
            let (other, line) = (other.clone(), line_excerpt(line));
            return Err(FaultKind::OtherCase { other, line });
        }
        _ => return Err(malformed("no string field `name`".into())),
    }
    if floats || !contract.is_answer(&value) {
        let problems = contract.answer_problems(&value, floats);
        let problems = problems
            .iter()
            .map(|(field, problem)| match field.as_str() {
                "" => problem.clone(),
                field => format!("field `{field}`: {problem}"),
            });
        return Err(malformed(problems.collect::<Vec<_>>().join("; ")));
    }
    let Value::Object(mut fields) = value else {
        return Err(not_an_object());
    };
    fields.shift_remove("name");
    Ok(match fields.shift_remove("error") {
        Some(Value::String(error)) => Reply::Error(error),
        _ => Reply::Answer(fields),
    })
}

/// The start of a line a runner printed, as a message quotes it.
pub(crate) fn line_excerpt(line: &[u8]) -> String {
    excerpt(&String::from_utf8_lossy(line), LINE_EXCERPT)
}

/// The requests of the `protocol` trial: each refusal every runner must
/// make (SPEC.md, "Refusals"), as its name (which the error answer must
/// carry), how the error text must start, and its line (constant data,
/// never from a case file). They go at the end of the runner's one stream
/// (no process start of their own), followed by one valid case, which
/// must be answered: a runner goes on with the next line after a refusal.
pub const REFUSALS: [(&str, &str, &str); 5] = [
    (
        "protocol_version_2",
        "unsupported protocol version",
        r#"{"kind":"case","version":2,"name":"protocol_version_2","batch_size":1,"messages":[],"failures":{},"passes":1}"#,
    ),
    (
        "protocol_no_version",
        "unsupported protocol version",
        r#"{"kind":"case","name":"protocol_no_version","batch_size":1,"messages":[],"failures":{},"passes":1}"#,
    ),
    (
        "protocol_unknown_kind",
        "unknown request kind",
        r#"{"kind":"replay","version":1,"name":"protocol_unknown_kind"}"#,
    ),
    (
        "protocol_no_kind",
        "unknown request kind",
        r#"{"version":1,"name":"protocol_no_kind"}"#,
    ),
    (
        "protocol_unknown_failure",
        "unknown failure kind",
        r#"{"kind":"case","version":1,"name":"protocol_unknown_failure","batch_size":1,"messages":[{"id":1,"aggregate":"order-1","type":"OrderPlaced"}],"failures":{"1":"timeout"},"passes":1}"#,
    ),
];

/// The valid case after the refusals (judged in
/// [`crate::judge::answers::refusals`]).
pub const AFTER_REFUSALS: (&str, &str) = (
    "protocol_after_refusals",
    r#"{"kind":"case","version":1,"name":"protocol_after_refusals","batch_size":1,"messages":[{"id":1,"aggregate":"order-1","type":"OrderPlaced"}],"failures":{},"passes":1}"#,
);

/// The `protocol` trial's requests: every refusal, then the valid case.
pub fn refusal_requests() -> Vec<Request> {
    REFUSALS
        .iter()
        .map(|&(name, _, line)| (name, line))
        .chain([AFTER_REFUSALS])
        .map(|(name, line)| Request {
            name: name.to_owned(),
            line: line.to_owned(),
            // An error answer, or the small valid case's answer.
            answer_limit: crate::table::limits::ERROR_ROOM,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Reply, FaultKind> {
        parse_answer(line.as_bytes(), "c", &Contract::repo().unwrap())
    }

    #[test]
    fn reads_an_answer_and_an_error() {
        let Ok(Reply::Answer(fields)) =
            parse(r#"{"name":"c","sent":[[2],[]],"journal":["a b"],"duplicates":1}"#)
        else {
            panic!("not an answer")
        };
        let expected = serde_json::json!({"sent": [[2], []], "journal": ["a b"], "duplicates": 1});
        assert_eq!(Value::Object(fields), expected);
        assert_eq!(
            parse(r#"{"name":"c","error":"boom"}"#),
            Ok(Reply::Error("boom".into()))
        );
    }

    /// A line for another case is that case's; every line of
    /// `answer_format.json` is malformed, and the fault says why.
    #[test]
    fn refuses_what_is_not_the_protocol() {
        let line = r#"{"name":"d","error":"x"}"#;
        let other = FaultKind::OtherCase {
            other: "d".into(),
            line: line.into(),
        };
        assert_eq!(parse(line), Err(other));
        let format: Value = serde_json::from_str(include_str!("answer_format.json")).unwrap();
        for row in format["lines"].as_array().unwrap() {
            let line = row["line"]
                .as_str()
                .map_or_else(|| row["answer"].to_string(), str::to_owned);
            let why = row["malformed"].as_str().unwrap();
            match parse(&line) {
                Err(FaultKind::Malformed { why: said, .. }) => {
                    assert!(said.contains(why), "{line}: {said}")
                }
                other => panic!("{line}: {other:?}"),
            }
        }
    }
}
