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

use super::executor::Run;
use super::{repeat, Executor, Port, Suite};
use crate::config::Kind;
use crate::judge::{answers, emit, Reason, Verdict};
use crate::report::trial::{Recorded, RowId, TrialId};

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

impl Job {
    fn run(&self) -> &Run {
        let run = || self.executor.run(&self.port, &self.selection);
        self.run.get_or_init(run)
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
                    .then(|| self.executor.suite.generated_cases(&self.port));
                if let Some(Err(why)) = generated {
                    return Verdict::Fail(Reason::Harness(why.to_owned()));
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
                language: port.id.clone(),
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
