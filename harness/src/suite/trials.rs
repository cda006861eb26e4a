//! Every (language, case) pair and every language's demo, demo configs
//! and unit tests as one libtest-mimic trial, and how each is judged.
//!
//! Each language is prepared (toolchain probe, build) and its runner run
//! once for all of its selected cases, lazily and in a thread of its own, so
//! languages build and run side by side while trials wait for their verdict.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use libtest_mimic::{Arguments, Trial};

use super::executor::Ran;
use super::{repeat, Executor, Port, Suite};
use crate::config::{Kind, GENERATED_SEED};
use crate::judge::{answers, emit, Reason, Verdict};
use crate::protocol::{self, Request};
use crate::report::trial::{Recorded, RowId, TrialId};
use crate::table::Case;

/// One language's work in a run, done once and shared by its trials.
struct Job {
    executor: Arc<Executor>,
    port: Arc<Port>,
    /// The plan: which of the language's trials the filter selected.
    selection: Selection,
    /// The verdicts of its runner's stream, by row.
    run: OnceLock<Run>,
    /// The verdicts of its checks besides the stream (demo, demo_config,
    /// unit), each found once.
    checks: HashMap<Kind, OnceLock<Verdict>>,
}

/// Which of a language's trials the filter selected: the plan.
type Selection = HashSet<RowId>;

/// What a language's runner stream is made of, in the order it is sent,
/// and the selected cases it leaves out: those its port does not support.
struct Stream<'a> {
    table: Vec<&'a Case>,
    /// Empty when the reference could not make them ([`Job::verdict`]
    /// says why).
    generated: &'a [Case],
    /// Whether the protocol's refusals end it.
    refusals: bool,
    /// Each selected case that uses a feature the port lacks, and it.
    unsupported: Vec<(&'a Case, &'a str)>,
}

impl<'a> Stream<'a> {
    /// The stream for the trials `selection` names, to `port`.
    fn selected(suite: &'a Suite, port: &Port, selection: &Selection) -> Self {
        let has = |row: RowId| selection.contains(&row);
        let (mut table, mut unsupported) = (Vec::new(), Vec::new());
        for case in suite
            .cases
            .iter()
            .filter(|c| has(RowId::Case(c.name.clone())))
        {
            match port.lacks(case) {
                Some(feature) => unsupported.push((case, feature)),
                None => table.push(case),
            }
        }
        let generated = match has(RowId::Kind(Kind::Generated)) {
            true => suite.generated_cases().unwrap_or_default(),
            false => &[],
        };
        let refusals = has(RowId::Kind(Kind::Protocol));
        Stream {
            table,
            generated,
            refusals,
            unsupported,
        }
    }

    /// Every request of the stream, in the order it is sent; none when
    /// there is nothing to send, so no runner need start.
    fn requests(&self) -> Vec<Request> {
        let mut requests = Request::cases(self.table.iter().copied().chain(self.generated));
        if self.refusals {
            requests.extend(protocol::refusal_requests());
        }
        requests
    }
}

/// The verdicts of one runner session: the table's cases, then the
/// generated scenarios, then the protocol's refusals, in one stream.
type Run = HashMap<RowId, Verdict>;

impl Job {
    fn run(&self) -> &Run {
        self.run.get_or_init(|| self.run_once())
    }

    /// The verdicts of the selected cases, scenarios and refusals, from one
    /// runner stream; or, when none is needed or the language is not ready,
    /// without starting the runner. A case the port does not support is
    /// not sent: its verdict says so.
    fn run_once(&self) -> Run {
        let suite = &self.executor.suite;
        let stream = Stream::selected(suite, &self.port, &self.selection);
        let strict = suite.settings.strict;
        let unsupported = stream.unsupported.iter().map(|(case, feature)| {
            let verdict = answers::unsupported(strict, &self.port.name, case, feature);
            (RowId::Case(case.name.clone()), verdict)
        });
        let mut run: Run = unsupported.collect();
        let requests = stream.requests();
        if requests.is_empty() {
            return run;
        }
        match suite.ready(&self.port) {
            Ok(port) => {
                let generated = (stream.table.len(), stream.generated);
                let ran = self.executor.stream(port, &requests, generated);
                run.extend(self.judge_stream(&stream, ran));
            }
            // Every selected row; the checks besides the stream find the
            // same themselves.
            Err(why) => run.extend(
                (self.selection.iter()).map(|row| (row.clone(), answers::not_ready(strict, why))),
            ),
        }
        run
    }

    /// Judges each part of a runner's answers to the stream: pure, the
    /// stream run (and any shrinking done) by the executor.
    fn judge_stream(&self, stream: &Stream, ran: Ran) -> Run {
        let (port, suite) = (&self.port, &self.executor.suite);
        let Ran {
            answers: crate::session::Answers { mut replies, after },
            changed,
            generated,
        } = ran;
        // The replies split back by the part of the stream they answer.
        let table = stream.table.len();
        let cases = table + stream.generated.len();
        let refusals = replies.split_off(cases);
        replies.truncate(table);
        let protocol = stream.refusals.then(|| {
            let label = format!("the {} runner", port.name);
            let verdict = answers::refusals(&label, &refusals);
            let verdict = port.listed(Kind::Protocol.name(), verdict);
            repeat::changed(&changed[cases..], None).unwrap_or(verdict)
        });
        let context = (suite.root.as_path(), &*suite.contract);
        let verdicts = answers::answers(context, &port.name, &stream.table, replies);
        let cases_judged = stream.table.iter().zip(verdicts).zip(&changed[..table]);
        let mut run: Run = cases_judged
            .map(|((case, verdict), changed)| {
                // A changed answer fails whatever the known-failures list
                // says: a flaky port is not a known failure.
                let verdict = match changed {
                    Some(why) => Verdict::Fail(Reason::Wrong(why.clone())),
                    None => port.listed(&case.name, verdict),
                };
                (RowId::Case(case.name.clone()), verdict)
            })
            .collect();
        let generated =
            repeat::changed(&changed[table..cases], Some(GENERATED_SEED)).or_else(|| {
                let (problems, shrunk) = generated?;
                let faults: Vec<(usize, &str)> = (problems.iter().filter(|p| p.fault))
                    .map(|p| (p.index, p.text.as_str()))
                    .collect();
                let verdict = answers::generated(problems.len(), &faults, shrunk);
                Some(port.listed(Kind::Generated.name(), verdict))
            });
        for (kind, verdict) in [(Kind::Generated, generated), (Kind::Protocol, protocol)] {
            run.extend(verdict.map(|v| (RowId::Kind(kind), v)));
        }
        // A fault after the last answer is the runner's: the generated
        // trial carries it when it ran, else the last case's, else (the
        // refusals alone in the stream) the protocol trial.
        if let Some(fault) = after {
            let carrier = match (stream.generated.is_empty(), stream.table.last()) {
                (false, _) => RowId::Kind(Kind::Generated),
                (true, Some(last)) => RowId::Case(last.name.clone()),
                (true, None) => RowId::Kind(Kind::Protocol),
            };
            if let Some(own) = run.remove(&carrier) {
                run.insert(carrier, answers::after_last_answer(fault, own));
            }
        }
        run
    }

    /// The verdict of the language's trial `row`: the one place that says
    /// how each kind is judged (a new kind is a compile error here).
    fn verdict(&self, row: &RowId) -> Verdict {
        let (kind, check): (_, fn(&Executor, &Port) -> Verdict) = match row {
            RowId::Kind(kind @ Kind::Demo) => (kind, Executor::check_demo),
            RowId::Kind(kind @ Kind::DemoConfig) => (kind, Executor::check_demo_config),
            RowId::Kind(kind @ Kind::Unit) => (kind, Executor::check_unit),
            // Answered in the runner's stream, unless the reference could
            // not make the scenarios.
            RowId::Kind(Kind::Generated | Kind::Protocol) | RowId::Case(_) => {
                let generated = (row == &RowId::Kind(Kind::Generated))
                    .then(|| self.executor.suite.generated_cases());
                if let Some(Err(why)) = generated {
                    return Verdict::Fail(Reason::Reference(why.to_owned()));
                }
                return self.run().get(row).cloned().unwrap_or_else(|| {
                    Verdict::Fail(Reason::Harness(format!(
                        "`{}` was not run: a bug in the harness",
                        row.name()
                    )))
                });
            }
        };
        let (executor, port) = (&*self.executor, &self.port);
        let suite = &executor.suite;
        self.checks[kind]
            .get_or_init(|| match suite.ready(port) {
                Err(why) => answers::not_ready(suite.settings.strict, why),
                Ok(_) => repeat::verdict(suite.settings.repeat, || {
                    port.listed(kind.name(), check(executor, port))
                }),
            })
            .clone()
    }
}

/// Where trials put their results while they run on libtest-mimic's pool.
pub type Recorder = Arc<Mutex<Vec<Recorded>>>;

/// Every trial of the suite; each puts its result in `recorder` as it
/// finishes. Unless `args` only lists them, each language with a selected
/// trial starts its work in the background right away.
pub fn trials(suite: Arc<Suite>, args: &Arguments, recorder: &Recorder) -> Vec<Trial> {
    let mut trials = Vec::new();
    let mut jobs = Vec::new();
    let executor = Arc::new(Executor::new(Arc::clone(&suite)));
    for port in &suite.ports {
        let ids: Vec<TrialId> = (suite.cases.iter())
            .map(|case| RowId::Case(case.name.clone()))
            .chain(Kind::ALL.map(RowId::Kind))
            .map(|row| TrialId {
                language: port.name.clone(),
                row,
            })
            .collect();
        // A trial is chosen by its name alone (no kind, none ignored up
        // front), so the plan is known before the trials sharing it exist.
        let selection: Selection = (ids.iter())
            .filter(|id| crate::config::is_selected(args, &Trial::test(id.name(), || Ok(()))))
            .map(|id| id.row.clone())
            .collect();
        let job = Arc::new(Job {
            executor: Arc::clone(&executor),
            port: Arc::clone(port),
            selection,
            run: OnceLock::new(),
            checks: Kind::ALL.map(|kind| (kind, OnceLock::new())).into(),
        });
        trials.extend(ids.into_iter().map(|id| {
            let job = Arc::clone(&job);
            let recorder = Arc::clone(recorder);
            Trial::ignorable_test(id.name(), move || {
                let started = Instant::now();
                let verdict = job.verdict(&id.row);
                let record = Recorded {
                    id,
                    verdict: verdict.clone(),
                    time: started.elapsed(),
                };
                recorder
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push(record);
                emit::terminal(&verdict)
            })
        }));
        if !job.selection.is_empty() && !args.list {
            jobs.push(job);
        }
    }
    for job in jobs {
        std::thread::spawn(move || {
            // The stream, then every selected check, in the background: a
            // trial only waits for its verdict.
            job.run();
            for row in &job.selection {
                job.verdict(row);
            }
        });
    }
    trials
}
