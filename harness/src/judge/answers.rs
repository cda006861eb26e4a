//! Verdicts on what a runner answered: a case's reply, the generated
//! scenarios' and the protocol's refusals, a fault after the last answer.
//! Pure: the answers are the executor's, the shrunk case too.

use std::fmt::Write as _;
use std::path::Path;

use super::compare::differences;
use super::{CaseHeader, Reason, Unsupported, Verdict};
use crate::config::{GENERATED_COUNT, GENERATED_SEED};
use crate::contract::Contract;
use crate::fault::Fault;
use crate::oracle;
use crate::protocol::{Reply, AFTER_REFUSALS, REFUSALS};
use crate::table::Case;
use crate::text::excerpt;
use crate::toolchain::NotReady;

/// The verdict of each of a language's replies to `cases` (its known
/// failures not applied), compared as `contract` says; `root`: what the
/// cases' files are shown from.
pub fn answers(
    (root, contract): (&Path, &Contract),
    language: &str,
    cases: &[&Case],
    replies: Vec<Reply>,
) -> Vec<Verdict> {
    let verdict = |(case, reply): (&&Case, Reply)| {
        Verdict::Fail(match reply {
            Reply::Answer(actual) if actual == case.expect => return Verdict::Pass,
            Reply::Answer(actual) => Reason::Mismatch {
                case: CaseHeader::of(case, root),
                differences: differences(contract, &case.expect, &actual),
            },
            Reply::Error(error) => Reason::ErrorAnswer {
                case: CaseHeader::of(case, root),
                language: language.to_owned(),
                error,
            },
            Reply::Fault(fault) => Reason::Fault {
                case: CaseHeader::of(case, root),
                fault,
            },
        })
    };
    cases.iter().zip(replies).map(verdict).collect()
}

/// The verdict for every trial of a language that is not ready: a
/// missing toolchain is ignored with the reason, unless `strict`.
pub fn not_ready(strict: bool, why: &NotReady) -> Verdict {
    match why {
        NotReady::Missing { .. } if !strict => Verdict::Ignore(format!(
            "{why}, or set PARITY_STRICT=1 to make this a failure"
        )),
        _ => Verdict::Fail(Reason::NotReady(why.clone())),
    }
}

/// The verdict of a case its port does not support (it uses `feature`):
/// not run, or under `strict` a failure, never a pass.
pub fn unsupported(strict: bool, language: &str, case: &Case, feature: &str) -> Verdict {
    let unsupported = Unsupported {
        language: language.to_owned(),
        case: case.name.clone(),
        feature: feature.to_owned(),
    };
    match strict {
        true => Verdict::Fail(Reason::Unsupported(unsupported)),
        false => Verdict::Unsupported(unsupported),
    }
}

/// The verdict of the trial that carries its runner's fault after the last
/// answer: a failure that names the runner, showing the trial's `own`.
pub fn after_last_answer(fault: Fault, own: Verdict) -> Verdict {
    if matches!(own, Verdict::Ignore(_)) {
        return own;
    }
    Verdict::Fail(Reason::Runner {
        fault: Box::new(fault),
        own: Box::new(own),
    })
}

/// A runner's replies to [`crate::protocol::refusal_requests`]: one problem per
/// request it got wrong, naming the request. (An answer naming another
/// request is a fault the session already caught.)
pub fn refusals(runner: &str, replies: &[Reply]) -> Verdict {
    let refusals = REFUSALS.iter().zip(replies);
    let mut problems: Vec<String> = (refusals.filter_map(|(&(name, prefix, line), reply)| {
        let wrong = match reply {
            Reply::Error(error) if error.starts_with(prefix) => return None,
            Reply::Error(error) => {
                format!("the error must start with `{prefix}`, it was {error:?}")
            }
            Reply::Answer(fields) => format!(
                "played instead of refused ({}); the error must start with `{prefix}`",
                excerpt(&super::emit::fields(fields), 300)
            ),
            Reply::Fault(fault) => format!("no error answer: {}", excerpt(&fault.to_string(), 600)),
        };
        Some(format!("`{name}` ({}): {wrong}", excerpt(line, 100)))
    }))
    .collect();
    // What the reference answers to the valid case.
    let expected = outbox_cases::decode(AFTER_REFUSALS.1).map(|r| oracle::expect(&r.scenario));
    let expected = expected.ok();
    let after = AFTER_REFUSALS.0;
    match replies.get(REFUSALS.len()) {
        Some(Reply::Answer(fields)) if Some(fields) == expected.as_ref() => {}
        Some(other) => {
            // A fault by its message, the rest as data.
            let got = match other {
                Reply::Fault(fault) => format!("Fault({:?})", fault.to_string()),
                other => format!("{other:?}"),
            };
            problems.push(format!(
                "after the refusals, the valid case `{after}` must be played (sent [[1]]), it got {}",
                excerpt(&got, 600)
            ));
        }
        None => problems.push(format!("the valid case `{after}` got no reply")),
    }
    if problems.is_empty() {
        return Verdict::Pass;
    }
    Verdict::Fail(Reason::Wrong(format!(
        "{runner} does not refuse as SPEC.md (\"Refusals\") requires (each refusal is an error \
         answer naming the request, and the runner goes on with the next line):\n  {}",
        problems.join("\n  ")
    )))
}

/// The fixed-seed scenarios' verdict: how many `failed` of those drawn
/// (with the `features`' fields or without), the index and text of those
/// the runner faulted on, the first wrong one `shrunk` to a ready case; a
/// runner fault is shown as it is, never shrunk.
pub fn generated(
    features: bool,
    failed: usize,
    faults: &[(usize, &str)],
    shrunk: Option<String>,
) -> Verdict {
    if failed == 0 {
        return Verdict::Pass;
    }
    let drawn = match features {
        true => "",
        false => ", drawn without the features' fields: the port does not play every feature",
    };
    let mut text = format!(
        "{failed} of {GENERATED_COUNT} generated scenarios (seed {GENERATED_SEED}{drawn}) failed.\n"
    );
    if let Some((index, what)) = faults.first() {
        let _ = writeln!(
            text,
            "{} of them are runner faults (a crash, a hang, garbage), not shrunk: a fault is not \
             a wrong result. The first, on scenario {index}:\n{what}",
            faults.len()
        );
    }
    Verdict::Fail(Reason::Wrong(text + &shrunk.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Right replies pass, and each bug the trial is there for fails.
    #[test]
    fn the_refusal_check_passes_right_replies_and_fails_each_bug() {
        let error = |text: &str| Reply::Error(text.to_owned());
        // SPEC.md's answer to the valid case, written out.
        let answer =
            serde_json::json!({"sent": [[1]], "journal": ["order-1 OrderPlaced"], "duplicates": 0});
        let right = vec![
            error("unsupported protocol version: 2"),
            error("unsupported protocol version: missing"),
            error("unknown request kind: \"replay\""),
            error("unknown request kind: missing"),
            error("unknown failure kind: \"timeout\""),
            Reply::Answer(serde_json::from_value(answer).unwrap()),
        ];
        assert_eq!(crate::protocol::refusal_requests().len(), right.len());
        assert_eq!(refusals("r", &right), Verdict::Pass);
        let plant = |at: usize, reply: Reply| {
            let mut replies = right.clone();
            replies[at] = reply;
            match refusals("r", &replies) {
                Verdict::Fail(Reason::Wrong(problems)) => problems,
                other => panic!("{other:?}"),
            }
        };
        let exited = || {
            Reply::Fault(Box::new(crate::fault::Fault {
                runner: "the fake runner".into(),
                kind: crate::fault::FaultKind::Exited { status: None },
                stderr: crate::fault::Stderr::Empty,
            }))
        };
        let played = Reply::Answer(Default::default());
        for (at, reply, why) in [
            (0, played, "played instead of refused"),
            (2, error("bad kind"), "start with `unknown request kind`"),
            (4, exited(), "no error answer"),
            (5, exited(), "must be played"),
        ] {
            let problems = plant(at, reply);
            let first = problems.split("\n  ").nth(1).unwrap_or_default();
            assert!(first.contains(why), "{problems}");
        }
    }

    /// A port that does not play every feature is sent scenarios drawn
    /// without their fields, and its failure says so; one that does is not
    /// told so.
    #[test]
    fn a_generated_failure_says_how_the_scenarios_were_drawn() {
        let said = "drawn without the features' fields";
        let text = |features| match generated(features, 1, &[], None) {
            Verdict::Fail(Reason::Wrong(text)) => text,
            other => panic!("not a failure: {other:?}"),
        };
        assert!(text(false).contains(said), "{}", text(false));
        assert!(!text(true).contains(said), "{}", text(true));
        assert_eq!(generated(true, 0, &[], None), Verdict::Pass);
    }
}
