//! `make test REPEAT=N` (`PARITY_REPEAT`), a flakiness check in the manner
//! of `wpt run --verify`: every selected trial runs N times and fails when
//! its verdict or answer changes between runs. Process boundaries vary
//! between runs, so state a runner leaks from one case into the next shows
//! too: odd runs stream every case to one runner process (as a plain run
//! does); run 2k starts a fresh runner every 2k + 4 requests, so each run
//! puts the restarts at other cases.

use std::fmt::Write as _;

use crate::judge::{emit, Reason, Verdict};
use crate::protocol::{Reply, Request};
use crate::session::Answers;
use crate::text::{excerpt, first_line};

/// How many requests one runner process answers in run `run` (1-based);
/// `None`: all of them.
pub fn stretch(run: usize) -> Option<usize> {
    run.is_multiple_of(2).then_some(run + 4)
}

/// Answers `requests` `repeat` times, each stretch of them by a runner
/// process of its own (`answer`). The first run's answers are the ones
/// judged; beside them, for each request whose reply changed, a message
/// showing each run's reply.
pub fn answers(
    answer: &dyn Fn(&[Request]) -> Answers,
    requests: &[Request],
    repeat: usize,
) -> (Answers, Vec<Option<String>>) {
    let runs: Vec<Answers> = (1..=repeat.max(1))
        .map(|run| {
            let mut all = Answers::default();
            let size = stretch(run).unwrap_or(requests.len()).max(1);
            for chunk in requests.chunks(size) {
                let answers = answer(chunk);
                all.replies.extend(answers.replies);
                all.after = all.after.or(answers.after);
            }
            all
        })
        .collect();
    let changed = (0..requests.len())
        .map(|at| {
            let first = &runs[0].replies[at];
            if runs.iter().all(|run| &run.replies[at] == first) {
                return None;
            }
            let n = runs.len();
            let mut shown =
                format!("its answer changed between the {n} runs (make test REPEAT={n}):");
            for (run, answers) in (1..).zip(&runs) {
                let how = match stretch(run) {
                    None => "one runner for every case".to_owned(),
                    Some(size) => format!("a fresh runner every {size} requests"),
                };
                let reply = describe(&answers.replies[at]);
                shown.push_str(&format!("\n  run {run} ({how}): {reply}"));
            }
            Some(shown)
        })
        .collect();
    (runs.into_iter().next().unwrap_or_default(), changed)
}

fn describe(reply: &Reply) -> String {
    let text = match reply {
        Reply::Answer(fields) => emit::fields(fields),
        Reply::Error(error) => format!("error answer: {error}"),
        Reply::Fault(fault) => format!("fault: {}", first_line(&fault.to_string())),
    };
    excerpt(&text, 400)
}

/// A failure for a trial of several requests when any request's reply
/// changed between runs: how many, and the first such request's runs;
/// `seed`: the generated scenarios' seed, when they are the requests.
pub fn changed(changed: &[Option<String>], seed: Option<u64>) -> Option<Verdict> {
    let mut flaky = (0..)
        .zip(changed)
        .filter_map(|(at, why)| Some((at, why.as_ref()?)));
    let (index, first) = flaky.next()?;
    let (count, total) = (1 + flaky.count(), changed.len());
    Some(Verdict::Fail(Reason::Wrong(match seed {
        None => format!(
            "{count} of its {total} requests got replies that changed between runs; the first: {first}"
        ),
        Some(seed) => format!(
            "{count} of the {total} generated requests (seed {seed}; each scenario is sent twice) got \
             answers that changed between runs. The first, request {index}: {first}"
        ),
    })))
}

/// A check run `repeat` times: its verdict when every run agrees, else a
/// failure showing each run's.
pub fn verdict(repeat: usize, check: impl Fn() -> Verdict) -> Verdict {
    let mut verdicts: Vec<Verdict> = (0..repeat.max(1)).map(|_| check()).collect();
    if verdicts.iter().all(|v| *v == verdicts[0]) {
        return verdicts.swap_remove(0);
    }
    let n = verdicts.len();
    let mut text = format!("the verdict changed between the {n} runs (make test REPEAT={n}):");
    for (run, verdict) in (1..).zip(&verdicts) {
        let _ = write!(text, "\n  run {run}: {}", emit::in_brief(verdict));
    }
    Verdict::Fail(Reason::Wrong(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn requests(count: usize) -> Vec<Request> {
        (0..count)
            .map(|n| Request {
                name: format!("case_{n}"),
                line: String::new(),
                answer_limit: 1024,
            })
            .collect()
    }

    /// Runs vary their process boundaries; answers that change with the
    /// runner's restarts are named, each with every run's answer; the first
    /// request of a stretch answers alike in every run, so it is not, nor
    /// is any answer of a runner that agrees in every run.
    #[test]
    fn an_answer_that_changes_between_runs_is_named() {
        let boundaries: Vec<_> = (1..=4).map(stretch).collect();
        assert_eq!(boundaries, [None, Some(6), None, Some(8)]);
        // A runner that answers each request with the number of the
        // process start that answered it, counted from 1: a port whose
        // answers depend on where the process boundaries fall.
        let starts = Cell::new(0);
        let by_start = |requests: &[Request]| {
            starts.set(starts.get() + 1);
            let replies = (0..requests.len()).map(|at| {
                let sent = u64::from(at == 0 || starts.get() == 1);
                let answer = serde_json::json!({"sent": [[sent]], "journal": [], "duplicates": 0});
                Reply::Answer(answer.as_object().cloned().unwrap())
            });
            Answers {
                replies: replies.collect(),
                after: None,
            }
        };
        let (first, changed) = answers(&by_start, &requests(8), 2);
        assert_eq!(first.replies.len(), 8);
        // Requests 0 and 6 are each the first of a fresh runner.
        for at in [0, 6] {
            assert!(changed[at].is_none(), "request {at}: {:?}", changed[at]);
        }
        let why = changed[1].as_ref().expect("request 1 changed");
        for run in [
            "run 1 (one runner for every case): sent [[1]]",
            "run 2 (a fresh runner every 6 requests): sent [[0]]",
        ] {
            assert!(why.contains(run), "{run} in {why}");
        }
        // A runner that answers alike in every run.
        let steady = |requests: &[Request]| {
            let replies = requests.iter().map(|r| Reply::Error(r.name.clone()));
            Answers {
                replies: replies.collect(),
                after: None,
            }
        };
        let (_, changed) = answers(&steady, &requests(20), 4);
        assert!(changed.iter().all(Option::is_none), "{changed:?}");
    }

    /// A changed verdict is a failure showing each run's; a trial of
    /// several requests says how many changed and shows the first.
    #[test]
    fn a_change_is_a_failure_that_shows_each_run() {
        assert_eq!(verdict(2, || Verdict::Pass), Verdict::Pass);
        let runs = [
            Verdict::Pass,
            Verdict::Fail(Reason::Wrong("the transcript differs".into())),
            Verdict::KnownFailure("tracked".into()),
        ];
        let run = Cell::new(0);
        let verdict = verdict(3, || {
            run.set(run.get() + 1);
            runs[run.get() - 1].clone()
        });
        let flaky = |text: &str| Some(Verdict::Fail(Reason::Wrong(text.into())));
        // A text reason's summary is its first line.
        let Verdict::Fail(reason) = &verdict else {
            panic!("{verdict:?}")
        };
        assert_eq!(
            crate::judge::emit::summary(reason),
            "the verdict changed between the 3 runs (make test REPEAT=3):"
        );
        assert_eq!(
            Some(verdict),
            flaky(
                "the verdict changed between the 3 runs (make test REPEAT=3):\n  run 1: pass\n  \
                 run 2: fail: the transcript differs\n  run 3: known failure: tracked"
            )
        );
        let at = |total: usize, changed: &[usize]| -> Vec<Option<String>> {
            let why = |at| {
                changed
                    .contains(&at)
                    .then(|| "its answer changed".to_owned())
            };
            (0..total).map(why).collect()
        };
        assert_eq!(changed(&at(9, &[]), None), None);
        assert_eq!(
            changed(&at(9, &[3, 5]), None),
            flaky(
                "2 of its 9 requests got replies that changed between runs; the first: its answer \
                 changed"
            )
        );
        assert_eq!(
            changed(&at(400, &[12]), Some(7)),
            flaky(
                "1 of the 400 generated requests (seed 7; each scenario is sent twice) got answers \
                 that changed between runs. The first, request 12: its answer changed"
            )
        );
    }
}
