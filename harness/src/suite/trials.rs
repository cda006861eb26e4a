//! Every (language, case) pair and every language's demo, demo configs
//! and unit tests as one libtest-mimic trial, and how each is judged.
//!
//! Each language is prepared (toolchain probe, build) and its runner run
//! once for all of its selected cases, lazily and in a thread of its own, so
//! languages build and run side by side while trials wait for their verdict.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use libtest_mimic::{Arguments, Trial};

use super::executor::{DEMO_CONFIG, TRANSCRIPT};
use super::{repeat, Port, Suite};
use crate::config::{Kind, GENERATED_SEED};
use crate::differential;
use crate::judge::{self, answers, demo, emit, Reason, Verdict};
use crate::protocol::{self, Request};
use crate::report::trial::{Recorded, RowId, TrialId};
use crate::session::{Answers, Session};
use crate::table::Case;

/// One language's work in a run, done once and shared by its trials.
struct Job {
    suite: Arc<Suite>,
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

/// What a language's runner stream is made of, in the order it is sent.
struct Stream<'a> {
    table: Vec<&'a Case>,
    /// Empty when the reference could not make them ([`Job::verdict`]
    /// says why).
    generated: &'a [Case],
    refusals: Vec<Request>,
}

impl<'a> Stream<'a> {
    /// The stream for the trials `selection` names.
    fn selected(suite: &'a Suite, selection: &Selection) -> Self {
        let selected = |case: &&Case| selection.contains(&RowId::Case(case.name.clone()));
        let table: Vec<&Case> = suite.cases.iter().filter(selected).collect();
        let has = |kind| selection.contains(&RowId::Kind(kind));
        let generated = match has(Kind::Generated) {
            true => suite.generated_cases().unwrap_or_default(),
            false => &[],
        };
        let refusals = (has(Kind::Protocol).then(protocol::refusal_requests)).unwrap_or_default();
        Stream {
            table,
            generated,
            refusals,
        }
    }

    /// Whether there is nothing to send, so no runner need start.
    fn is_empty(&self) -> bool {
        self.table.is_empty() && self.generated.is_empty() && self.refusals.is_empty()
    }

    /// Every request of the stream, in the order it is sent.
    fn requests(&self) -> Vec<Request> {
        let mut requests = Request::cases(self.table.iter().copied().chain(self.generated));
        requests.extend(self.refusals.iter().cloned());
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
    /// without starting the runner.
    fn run_once(&self) -> Run {
        let suite = &self.suite;
        let stream = Stream::selected(suite, &self.selection);
        if stream.is_empty() {
            return Run::new();
        }
        match suite.ready(&self.port) {
            Ok(port) => self.judge_stream(stream, &suite.runner(port)),
            // Every selected row; the checks besides the stream find the
            // same themselves.
            Err(why) => (self.selection.iter())
                .map(|row| (row.clone(), answers::not_ready(suite.settings.strict, why)))
                .collect(),
        }
    }

    /// Sends the stream to the language's runner and judges each part of
    /// its answers.
    fn judge_stream(&self, stream: Stream, runner: &Session) -> Run {
        let port = &self.port;
        // A known failure's fault restarts the runner but does not use
        // its fault budget (which guards against a broken runner).
        let expected = |case: &str| port.known.contains_key(case);
        let runs = self.suite.settings.repeat;
        let (answers, changed) = repeat::answers(runner, &stream.requests(), &expected, runs);
        let Answers { mut replies, after } = answers;
        // The replies split back by the part of the stream they answer.
        let table = stream.table.len();
        let cases = table + stream.generated.len();
        let refusals = replies.split_off(cases);
        let scenarios = replies.split_off(table);
        let protocol = (!stream.refusals.is_empty()).then(|| {
            let verdict = answers::refusals(&runner.command.label, &refusals);
            let verdict = port.listed(Kind::Protocol.name(), verdict);
            repeat::changed(&changed[cases..], None).unwrap_or(verdict)
        });
        let verdicts = answers::answers(&self.suite.root, &port.name, &stream.table, replies);
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
                (!stream.generated.is_empty()).then(|| {
                    let problems = differential::judge_all(stream.generated, &scenarios);
                    let shrunk = problems.iter().find(|p| !p.fault).map(|wrong| {
                        let why = wrong.text.clone();
                        differential::shrink(runner, GENERATED_SEED, wrong.index, why)
                            .report(&runner.command.label)
                    });
                    let faults: Vec<(usize, &str)> = (problems.iter().filter(|p| p.fault))
                        .map(|p| (p.index, p.text.as_str()))
                        .collect();
                    let verdict = answers::generated(problems.len(), &faults, shrunk);
                    port.listed(Kind::Generated.name(), verdict)
                })
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
        let (kind, check): (_, fn(&Suite, &Port) -> Verdict) = match row {
            RowId::Kind(kind @ Kind::Demo) => (kind, Suite::check_demo),
            RowId::Kind(kind @ Kind::DemoConfig) => (kind, Suite::check_demo_config),
            RowId::Kind(kind @ Kind::Unit) => (kind, Suite::check_unit),
            // Answered in the runner's stream, unless the reference could
            // not make the scenarios.
            RowId::Kind(Kind::Generated | Kind::Protocol) | RowId::Case(_) => {
                let generated =
                    (row == &RowId::Kind(Kind::Generated)).then(|| self.suite.generated_cases());
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
        let (suite, port) = (&self.suite, &self.port);
        self.checks[kind]
            .get_or_init(|| match suite.ready(port) {
                Err(why) => answers::not_ready(suite.settings.strict, why),
                Ok(_) => repeat::verdict(suite.settings.repeat, || {
                    port.listed(kind.name(), check(suite, port))
                }),
            })
            .clone()
    }
}

/// The checks besides the runner's stream, each observed by the
/// [`super::executor`] and judged by [`crate::judge`].
impl Suite {
    /// Judges a prepared port's demo: the committed transcript on the
    /// shared config, and the Rust demo's own output on a second config.
    fn check_demo(&self, port: &Port) -> Verdict {
        let committed = match self.transcript() {
            Err(why) => Verdict::Fail(Reason::Wrong(why)),
            Ok(expected) => {
                let differs = format!(
                    "the {} demo's transcript differs from the Rust demo's ({TRANSCRIPT})",
                    port.name
                );
                let actual = self.run_demo(port, Path::new(DEMO_CONFIG));
                demo::transcript(&differs, &expected, actual)
            }
        };
        match (committed, self.second_demo()) {
            (Verdict::Pass, Err(why)) => Verdict::Fail(Reason::Reference(why)),
            (Verdict::Pass, Ok((path, expected))) => {
                let differs = format!(
                    "on a second config ({}: {}), the {} demo's transcript differs from the \
                     Rust demo's",
                    path.display(),
                    demo::SECOND_DEMO_CONFIG,
                    port.name
                );
                demo::transcript(&differs, &expected, self.run_demo(port, &path))
            }
            (failed, _) => failed,
        }
    }

    /// The second config's path and the Rust demo's transcript on it,
    /// found once (the reference is prepared here if it is not yet); it
    /// must differ from the committed transcript, or the check proves
    /// nothing.
    fn second_demo(&self) -> Result<(PathBuf, String), String> {
        let found = || {
            let path = self.fixtures()?.second.clone();
            let rust = self
                .ready(self.reference())
                .map_err(|why| why.to_string())?;
            let transcript = (self.run_demo(rust, &path))
                .map_err(|why| format!("the Rust demo on {}: {why}", path.display()))?;
            if self.transcript().as_ref() == Ok(&transcript) {
                return Err(format!(
                    "the Rust demo prints the same transcript on {} as on {DEMO_CONFIG}: the \
                     second config checks nothing",
                    path.display(),
                ));
            }
            Ok((path, transcript))
        };
        self.second.get_or_init(found).clone()
    }

    /// Judges how a prepared port's demo refuses bad configs: exit 2, and
    /// a first line of stderr that names the path and the key at fault.
    fn check_demo_config(&self, port: &Port) -> Verdict {
        let judged = || {
            let bad = &self.fixtures().map_err(Reason::Harness)?.bad;
            let actual = self.refusals(port, bad).map_err(Reason::Wrong)?;
            demo::judge_refusals(&port.name, &actual).map_err(Reason::Wrong)
        };
        judged().map_or_else(Verdict::Fail, |()| Verdict::Pass)
    }

    /// Runs a prepared port's own unit tests: they must exit 0 and their
    /// tool's final report must prove them.
    pub fn check_unit(&self, port: &Port) -> Verdict {
        let command = self.unit_command(port);
        let counter = port.unit.counter;
        let tally = move |lines| counter.map(|c| c.tally(lines)).unwrap_or_default();
        let ran = crate::exec::read_lines(&command, tally);
        let tests = format!("{} (`{}`)", command.label, command.argv.join(" "));
        judge::unit(tests, ran, &port.unit)
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
            suite: Arc::clone(&suite),
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
