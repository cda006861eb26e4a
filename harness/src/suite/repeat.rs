//! `make test REPEAT=N` (`PARITY_REPEAT`), a flakiness check in the manner
//! of `wpt run --verify`: every selected trial runs N times and fails when
//! its verdict or answer changes between runs. Process boundaries vary
//! between runs, so state a runner leaks from one case into the next shows
//! too: odd runs stream every case to one runner process (as a plain run
//! does); run 2k starts a fresh runner every 2k + 4 requests, so each run
//! puts the restarts at other cases.

use crate::judge::{Flaky, Reason, Verdict};
use crate::protocol::{Reply, Request};
use crate::session::{Answers, Runner};

/// How many requests one runner process answers in run `run` (1-based);
/// `None`: all of them.
pub fn stretch(run: usize) -> Option<usize> {
    run.is_multiple_of(2).then_some(run + 4)
}

/// Answers `requests` `repeat` times (`expected`: the known failures,
/// whose faults use no fault budget). The first run's answers are the
/// ones judged; beside them, for each request whose reply changed, a
/// message showing each run's reply.
pub fn answers(
    runner: &dyn Runner,
    requests: &[Request],
    expected: &dyn Fn(&str) -> bool,
    repeat: usize,
) -> (Answers, Vec<Option<String>>) {
    let runs: Vec<Answers> = (1..=repeat.max(1))
        .map(|run| match stretch(run) {
            None => runner.run_all_expecting(requests, expected),
            Some(size) => {
                let mut all = Answers {
                    replies: Vec::with_capacity(requests.len()),
                    after: None,
                };
                for chunk in requests.chunks(size) {
                    let answers = runner.run_all_expecting(chunk, expected);
                    all.replies.extend(answers.replies);
                    all.after = all.after.or(answers.after);
                }
                all
            }
        })
        .collect();
    let changed = (0..requests.len())
        .map(|at| {
            let first = &runs[0].replies[at];
            if runs.iter().all(|run| &run.replies[at] == first) {
                return None;
            }
            let mut shown = format!(
                "its answer changed between the {} runs (make test REPEAT={}):",
                runs.len(),
                runs.len()
            );
            for (run, answers) in runs.iter().enumerate() {
                shown.push_str(&format!(
                    "\n  run {} ({}): {}",
                    run + 1,
                    describe_run(run + 1),
                    describe(&answers.replies[at])
                ));
            }
            Some(shown)
        })
        .collect();
    let first = runs.into_iter().next().unwrap_or(Answers {
        replies: Vec::new(),
        after: None,
    });
    (first, changed)
}

/// How run `run` starts its runner, for messages.
fn describe_run(run: usize) -> String {
    match stretch(run) {
        None => "one runner for every case".to_owned(),
        Some(size) => format!("a fresh runner every {size} requests"),
    }
}

fn describe(reply: &Reply) -> String {
    let text = match reply {
        Reply::Answer(outcome) => format!(
            "sent {:?}, journal {:?}, duplicates {}",
            outcome.sent, outcome.journal, outcome.duplicates
        ),
        Reply::Error(error) => format!("error answer: {error}"),
        Reply::Fault(fault) => {
            format!(
                "fault: {}",
                fault.to_string().lines().next().unwrap_or_default()
            )
        }
    };
    crate::text::excerpt(&text, 400)
}

/// A failure for a trial of several requests when any request's reply
/// changed between runs: the first such request's runs.
pub fn changed(changed: &[Option<String>]) -> Option<Verdict> {
    let count = changed.iter().flatten().count();
    let first = changed.iter().flatten().next()?;
    Some(Verdict::Fail(Reason::Flaky(Flaky::Requests {
        changed: count,
        total: changed.len(),
        first: first.clone(),
    })))
}

/// A check run `repeat` times: its verdict when every run agrees, else a
/// failure showing each run's.
pub fn verdict(repeat: usize, check: impl Fn() -> Verdict) -> Verdict {
    let verdicts: Vec<Verdict> = (0..repeat.max(1)).map(|_| check()).collect();
    flaky(&verdicts).unwrap_or_else(|| verdicts[0].clone())
}

/// A failure showing each run's verdict when they differ.
pub fn flaky(verdicts: &[Verdict]) -> Option<Verdict> {
    let first = verdicts.first()?;
    if verdicts.iter().all(|v| v == first) {
        return None;
    }
    Some(Verdict::Fail(Reason::Flaky(Flaky::Verdicts(
        verdicts.to_vec(),
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::demo::DemoFailure;
    use crate::table::Outcome;
    use std::cell::Cell;

    /// A runner that answers each request with the number of the process
    /// start that answered it, counted from 1: a port whose answers depend
    /// on where the process boundaries fall.
    struct Starts(Cell<usize>);

    impl Runner for Starts {
        fn run(&self, requests: &[Request]) -> Vec<Reply> {
            self.0.set(self.0.get() + 1);
            let start = self.0.get();
            requests
                .iter()
                .enumerate()
                .map(|(at, _)| {
                    Reply::Answer(Outcome {
                        sent: vec![vec![u64::from(at == 0 || start == 1)]],
                        journal: Vec::new(),
                        duplicates: 0,
                    })
                })
                .collect()
        }
    }

    fn requests(count: usize) -> Vec<Request> {
        (0..count)
            .map(|n| Request {
                name: format!("case_{n}"),
                line: String::new(),
                answer_limit: 1024,
            })
            .collect()
    }

    /// Answers that change with the runner's restarts are named, each with
    /// every run's answer; the first request of a stretch answers alike in
    /// every run, so it is not.
    #[test]
    fn an_answer_that_changes_between_runs_is_named() {
        let (first, changed) = answers(&Starts(Cell::new(0)), &requests(8), &|_| false, 2);
        assert_eq!(first.replies.len(), 8);
        assert!(changed[0].is_none(), "{:?}", changed[0]);
        let why = changed[1].as_ref().expect("request 1 changed");
        assert!(
            why.contains("run 1 (one runner for every case): sent [[1]]"),
            "{why}"
        );
        assert!(
            why.contains("run 2 (a fresh runner every 6 requests): sent [[0]]"),
            "{why}"
        );
        assert!(
            changed[6].is_none(),
            "a fresh runner's first request: {:?}",
            changed[6]
        );
    }

    #[test]
    fn answers_that_agree_in_every_run_pass() {
        struct Same;
        impl Runner for Same {
            fn run(&self, requests: &[Request]) -> Vec<Reply> {
                requests
                    .iter()
                    .map(|r| Reply::Error(r.name.clone()))
                    .collect()
            }
        }
        let (_, changed) = answers(&Same, &requests(20), &|_| false, 4);
        assert!(changed.iter().all(Option::is_none), "{changed:?}");
    }

    #[test]
    fn runs_vary_their_process_boundaries() {
        assert_eq!(stretch(1), None);
        assert_eq!(stretch(2), Some(6));
        assert_eq!(stretch(3), None);
        assert_eq!(stretch(4), Some(8));
    }

    #[test]
    fn a_changed_verdict_is_a_failure_that_shows_each_run() {
        assert_eq!(flaky(&[Verdict::Pass, Verdict::Pass]), None);
        let runs = [
            Verdict::Pass,
            Verdict::Fail(Reason::Demo(DemoFailure::NotRun(
                "the transcript differs".into(),
            ))),
            Verdict::Pass,
        ];
        let verdict = flaky(&runs);
        let Some(Verdict::Fail(reason @ Reason::Flaky(Flaky::Verdicts(shown)))) = &verdict else {
            panic!("not flaky");
        };
        assert_eq!(shown, &runs);
        let why = crate::judge::emit::text(reason);
        assert!(why.contains("run 1: pass"), "{why}");
        assert!(why.contains("run 2: fail: the transcript differs"), "{why}");
    }
}
