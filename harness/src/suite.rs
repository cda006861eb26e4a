//! The parity suite: every (language, case) pair and every language's demo
//! as one libtest-mimic trial, named
//! `patterns/enterprise/outbox/practice/<language>/<case>`.
//!
//! Each language is prepared (toolchain probe, build) and its runner run
//! once for all of its selected cases, lazily and in a thread of its own, so
//! languages build and run side by side while trials wait for their verdict.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::case::{self, Case, DEMO_TRIAL, GENERATED_TRIAL};
use crate::compare::compare;
use crate::differential;
use crate::junit::{Recorded, Recorder};
use crate::known_failures::{self, KnownFailures};
use crate::language::{self, Language};
use crate::process::{describe_status, Group, Implementation, ProcessRunner};
use crate::protocol::Reply;

/// Every trial name starts with this.
pub const PREFIX: &str = "patterns/enterprise/outbox/practice";
/// The seed of the generated scenarios every `make test` checks.
pub const GENERATED_SEED: u64 = 20_261_130;
/// How many generated scenarios every `make test` checks per language.
pub const GENERATED_COUNT: usize = 300;

/// The result of one trial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It matched.
    Pass,
    /// It did not, and this says why.
    Fail(String),
    /// Not judged, and this says why (toolchain missing, known failure).
    Ignore(String),
}

impl Verdict {
    fn into_trial_result(self) -> Result<Completion, Failed> {
        match self {
            Verdict::Pass => Ok(Completion::Completed),
            Verdict::Ignore(reason) => Ok(Completion::ignored_with(reason)),
            Verdict::Fail(message) => Err(message.into()),
        }
    }
}

/// What one run of the suite checks and how.
#[derive(Debug)]
pub struct Suite {
    /// The repository root: builds, runners and demos start here.
    pub root: PathBuf,
    /// Every validated case, in file order.
    pub cases: Vec<Case>,
    /// The languages, the reference first.
    pub languages: Vec<Language>,
    /// Known failures per language name.
    pub known_failures: HashMap<String, KnownFailures>,
    /// How long one case (or one demo) may take before its runner is killed.
    pub timeout: Duration,
    /// A missing toolchain fails its trials instead of ignoring them (CI).
    pub strict: bool,
    /// The demo config every demo reads, relative to the root.
    pub demo_config: PathBuf,
    /// The transcript every demo must print byte for byte: the Rust demo's.
    pub transcript: PathBuf,
    /// The fixed-seed generated scenarios, drawn once for all languages.
    pub generated: OnceLock<Vec<Case>>,
}

/// Settings read from the environment, with their defaults.
pub struct Settings {
    /// `PARITY_CASES`: more case files or folders (relative to the root).
    pub extra_cases: Vec<PathBuf>,
    /// `PARITY_TIMEOUT`: seconds per case, default 10.
    pub timeout: Duration,
    /// `PARITY_STRICT=1`: a missing toolchain is a failure.
    pub strict: bool,
}

impl Settings {
    /// Reads `PARITY_CASES`, `PARITY_TIMEOUT` and `PARITY_STRICT`.
    pub fn from_env() -> Result<Self, String> {
        let extra_cases = std::env::var_os("PARITY_CASES")
            .map(|paths| {
                std::env::split_paths(&paths)
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let timeout = match std::env::var("PARITY_TIMEOUT") {
            Err(_) => Duration::from_secs(10),
            Ok(text) => text
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| {
                    format!("PARITY_TIMEOUT={text:?}: give a number of seconds greater than 0")
                })?,
        };
        let strict = match std::env::var("PARITY_STRICT").as_deref() {
            Err(_) | Ok("") | Ok("0") => false,
            Ok("1") => true,
            Ok(other) => return Err(format!("PARITY_STRICT={other:?}: use 1 (strict) or 0")),
        };
        Ok(Settings {
            extra_cases,
            timeout,
            strict,
        })
    }
}

impl Suite {
    /// The suite of this repository with the environment's settings: what
    /// `make test`, `make demo`, `make fuzz` and `make bench` start from.
    pub fn from_env() -> Result<Self, String> {
        Suite::load(&crate::repo_root(), Settings::from_env()?)
    }

    /// The suite over `cases/` plus the settings' extra cases, with the
    /// built-in languages. Every problem in the case table is returned at
    /// once, each naming its file, case and field.
    pub fn load(root: &Path, settings: Settings) -> Result<Self, String> {
        let mut sources = vec![root.join("cases")];
        sources.extend(settings.extra_cases.iter().map(|p| root.join(p)));
        let cases = case::load(&sources).map_err(|errors| {
            let mut text = format!("the case table has {} problem(s):\n", errors.len());
            for error in errors {
                let _ = writeln!(text, "  {}", display_relative(&error.to_string(), root));
            }
            text
        })?;
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target"));
        let languages = language::builtin(&target);
        let names: HashSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        let mut known = HashMap::new();
        for language in &languages {
            known.insert(
                language.name.clone(),
                known_failures::load(root, &language.name, &names)?,
            );
        }
        Ok(Suite {
            root: root.to_path_buf(),
            cases,
            languages,
            known_failures: known,
            timeout: settings.timeout,
            strict: settings.strict,
            demo_config: PathBuf::from("runners/demo.json"),
            transcript: PathBuf::from("runners/demo.transcript.txt"),
            generated: OnceLock::new(),
        })
    }

    /// The fixed-seed scenario pairs, `expect` from the reference.
    pub fn generated_cases(&self) -> &[Case] {
        self.generated
            .get_or_init(|| differential::cases(GENERATED_SEED, GENERATED_COUNT))
    }

    /// Probes the toolchain and builds; `Err` is the verdict for every trial
    /// of the language (ignored when the tool is missing, unless strict).
    pub fn prepare(&self, language: &Language) -> Result<(), Verdict> {
        if let Err(e) = self.probe(language) {
            let mut why = format!(
                "{} toolchain not available (`{}`: {e}); {}",
                language.name,
                language.probe.join(" "),
                language.install_hint
            );
            return Err(if self.strict {
                why.push_str(" (PARITY_STRICT=1 makes this a failure)");
                Verdict::Fail(why)
            } else {
                why.push_str(", or set PARITY_STRICT=1 to make this a failure");
                Verdict::Ignore(why)
            });
        }
        for step in &language.build {
            if step.is_fresh(&self.root) {
                continue;
            }
            let output = self
                .command(&step.argv)
                .stderr_to_stdout()
                .stdout_capture()
                .unchecked()
                .run();
            let failure = match output {
                Ok(output) if output.status.success() => {
                    if let Err(e) = step.mark_done(&self.root) {
                        eprintln!(
                            "parity: cannot record that `{}` succeeded: {e}",
                            step.argv.join(" ")
                        );
                    }
                    continue;
                }
                Ok(output) => format!(
                    "({}):\n{}",
                    describe_status(Some(output.status)),
                    tail(&String::from_utf8_lossy(&output.stdout), 60)
                ),
                Err(e) => format!("(could not start: {e})"),
            };
            return Err(Verdict::Fail(format!(
                "building {} failed: `{}` {failure}",
                language.name,
                step.argv.join(" ")
            )));
        }
        Ok(())
    }

    fn probe(&self, language: &Language) -> std::io::Result<()> {
        let output = self
            .command(&language.probe)
            .stdout_null()
            .stderr_capture()
            .unchecked()
            .run()?;
        if output.status.success() {
            Ok(())
        } else {
            Err(std::io::Error::other(format!(
                "{}: {}",
                describe_status(Some(output.status)),
                String::from_utf8_lossy(&output.stderr).trim()
            )))
        }
    }

    /// A command from the repository root, stdin closed, in its own process
    /// group; a relative program path is taken from the root.
    fn command(&self, argv: &[String]) -> duct::Expression {
        let (program, args) = argv.split_first().expect("a command line has a program");
        // duct reads a `Path` as a file path and a string as a PATH lookup.
        let program = if program.contains('/') {
            self.root.join(program).into_os_string()
        } else {
            program.into()
        };
        duct::cmd(program, args)
            .dir(&self.root)
            .stdin_null()
            .before_spawn(|command| {
                command.process_group(0);
                Ok(())
            })
    }

    /// The runner process of a prepared language.
    pub fn runner(&self, language: &Language) -> ProcessRunner {
        let mut argv = language.runner.clone();
        if argv[0].contains('/') {
            argv[0] = self.root.join(&argv[0]).to_string_lossy().into_owned();
        }
        ProcessRunner {
            label: format!("the {} runner", language.name),
            argv,
            dir: self.root.clone(),
            timeout: self.timeout,
            stderr_log: self
                .root
                .join(language::work_dir(&language.name))
                .join("runner.stderr"),
        }
    }

    /// Judges one language's replies to `cases`, known failures applied.
    pub fn judge(&self, language: &str, cases: &[&Case], replies: Vec<Reply>) -> Vec<Verdict> {
        cases
            .iter()
            .zip(replies)
            .map(|(case, reply)| {
                let verdict = match reply {
                    Reply::Answer(actual) => match compare(&case.expect, &actual) {
                        Ok(()) => Verdict::Pass,
                        Err(report) => Verdict::Fail(format!("{}{report}", self.case_header(case))),
                    },
                    Reply::Error(error) => Verdict::Fail(format!(
                        "{}the {language} runner answered with an error: {error}",
                        self.case_header(case)
                    )),
                    Reply::Fault(why) => Verdict::Fail(format!("{}{why}", self.case_header(case))),
                };
                self.apply_known_failure(language, &case.name, verdict)
            })
            .collect()
    }

    fn case_header(&self, case: &Case) -> String {
        let file = case.file.strip_prefix(&self.root).unwrap_or(&case.file);
        format!(
            "case `{}` ({}): {}\n",
            case.name,
            file.display(),
            case.description
        )
    }

    /// Turns a verdict into what the language's known-failures list says.
    pub fn apply_known_failure(&self, language: &str, trial: &str, verdict: Verdict) -> Verdict {
        let Some(reason) = self.known_failures.get(language).and_then(|k| k.get(trial)) else {
            return verdict;
        };
        match verdict {
            Verdict::Fail(_) => Verdict::Ignore(format!("known failure: {reason}")),
            Verdict::Pass => Verdict::Fail(format!(
                "`{trial}` is listed as a known failure of {language} ({reason}) but passes now: \
                 remove it from {}",
                known_failures::path(language).display()
            )),
            ignored @ Verdict::Ignore(_) => ignored,
        }
    }

    /// Runs a prepared language's demo and returns its stdout, or why not.
    pub fn run_demo(&self, language: &Language) -> Result<String, String> {
        let mut argv = language.demo.clone();
        argv.push(self.demo_config.to_string_lossy().into_owned());
        let handle = self
            .command(&argv)
            .stdout_capture()
            .stderr_capture()
            .unchecked()
            .start()
            .map_err(|e| format!("the {} demo could not be started: {e}", language.name))?;
        let group = Group(handle.pids().first().copied());
        let output = match handle.wait_timeout(self.timeout) {
            Ok(Some(output)) => output,
            Ok(None) => {
                group.kill();
                return Err(format!(
                    "the {} demo did not finish within {} s (PARITY_TIMEOUT); it was killed",
                    language.name,
                    self.timeout.as_secs_f64()
                ));
            }
            Err(e) => {
                return Err(format!(
                    "waiting for the {} demo failed: {e}",
                    language.name
                ))
            }
        };
        if !output.status.success() {
            return Err(format!(
                "the {} demo failed ({}):\n{}",
                language.name,
                describe_status(Some(output.status)),
                tail(&String::from_utf8_lossy(&output.stderr), 30)
            ));
        }
        String::from_utf8(output.stdout.clone()).map_err(|_| {
            format!(
                "the {} demo printed something that is not UTF-8",
                language.name
            )
        })
    }

    /// Judges a prepared language's demo against the Rust transcript.
    pub fn check_demo(&self, language: &Language) -> Verdict {
        let expected = match std::fs::read_to_string(self.root.join(&self.transcript)) {
            Ok(text) => text,
            Err(e) => {
                return Verdict::Fail(format!("cannot read {}: {e}", self.transcript.display()))
            }
        };
        let verdict = match self.run_demo(language) {
            Err(why) => Verdict::Fail(why),
            Ok(actual) => match transcript_difference(&expected, &actual) {
                None => Verdict::Pass,
                Some(difference) => Verdict::Fail(format!(
                    "the {} demo's transcript differs from the Rust demo's ({}) {difference}",
                    language.name,
                    self.transcript.display()
                )),
            },
        };
        self.apply_known_failure(&language.name, DEMO_TRIAL, verdict)
    }
}

/// Where two transcripts first differ, byte for byte, or `None`.
pub fn transcript_difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let mut expected_lines = expected.split_inclusive('\n');
    let mut actual_lines = actual.split_inclusive('\n');
    let mut number = 1;
    loop {
        match (expected_lines.next(), actual_lines.next()) {
            (Some(e), Some(a)) if e == a => number += 1,
            (e, a) => {
                return Some(format!(
                    "at line {number}:\n  expected: {}\n  actual:   {}",
                    e.map_or("(end of output)".into(), |l| format!("{l:?}")),
                    a.map_or("(end of output)".into(), |l| format!("{l:?}")),
                ))
            }
        }
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    let mut shown = all[start..].join("\n");
    if start > 0 {
        shown.insert_str(0, &format!("(last {lines} lines)\n"));
    }
    shown
}

fn display_relative(text: &str, root: &Path) -> String {
    let root = format!("{}/", root.display());
    text.replace(&root, "")
}

/// One language's work in a run, done once and shared by its trials.
struct Job {
    suite: Arc<Suite>,
    language: usize,
    selection: OnceLock<Selection>,
    prepared: OnceLock<Result<(), Verdict>>,
    run: OnceLock<Run>,
    demo: OnceLock<Verdict>,
}

/// Which of a language's trials the filter selected.
#[derive(Default)]
struct Selection {
    cases: Vec<usize>,
    generated: bool,
    demo: bool,
}

/// The verdicts of one runner session: the table's cases, then the
/// generated scenarios in the same stream.
#[derive(Default)]
struct Run {
    cases: BTreeMap<String, Verdict>,
    generated: Option<Verdict>,
}

impl Job {
    fn language(&self) -> &Language {
        &self.suite.languages[self.language]
    }

    fn prepared(&self) -> &Result<(), Verdict> {
        self.prepared
            .get_or_init(|| self.suite.prepare(self.language()))
    }

    fn run(&self) -> &Run {
        self.run.get_or_init(|| {
            let Some(selection) = self.selection.get() else {
                return Run::default();
            };
            let table: Vec<&Case> = selection
                .cases
                .iter()
                .map(|&i| &self.suite.cases[i])
                .collect();
            let generated: &[Case] = if selection.generated {
                self.suite.generated_cases()
            } else {
                &[]
            };
            if table.is_empty() && generated.is_empty() {
                return Run::default();
            }
            let name = &self.language().name;
            if let Err(verdict) = self.prepared() {
                return Run {
                    cases: table
                        .iter()
                        .map(|c| (c.name.clone(), verdict.clone()))
                        .collect(),
                    generated: selection.generated.then(|| verdict.clone()),
                };
            }
            let runner = self.suite.runner(self.language());
            let all: Vec<&Case> = table.iter().copied().chain(generated).collect();
            let mut replies = runner.run(&all);
            let generated_replies = replies.split_off(table.len());
            let verdicts = self.suite.judge(name, &table, replies);
            Run {
                cases: table.iter().map(|c| c.name.clone()).zip(verdicts).collect(),
                generated: selection.generated.then(|| {
                    let verdict = judge_generated(&runner, name, generated, &generated_replies);
                    self.suite
                        .apply_known_failure(name, GENERATED_TRIAL, verdict)
                }),
            }
        })
    }

    fn case_verdict(&self, name: &str) -> Verdict {
        self.run().cases.get(name).cloned().unwrap_or_else(|| {
            Verdict::Fail(format!("case `{name}` was not run: a bug in the harness"))
        })
    }

    fn generated_verdict(&self) -> Verdict {
        self.run().generated.clone().unwrap_or_else(|| {
            Verdict::Fail("the generated scenarios were not run: a bug in the harness".into())
        })
    }

    fn demo_verdict(&self) -> Verdict {
        self.demo
            .get_or_init(|| match self.prepared() {
                Err(verdict) => verdict.clone(),
                Ok(()) => self.suite.check_demo(self.language()),
            })
            .clone()
    }
}

/// Judges a language's answers to the fixed-seed scenarios; the first one
/// it gets wrong is shrunk and shown as a ready case.
fn judge_generated(
    runner: &ProcessRunner,
    language: &str,
    cases: &[Case],
    replies: &[Reply],
) -> Verdict {
    let problems = differential::judge_all(cases, replies);
    let Some((index, problem)) = problems.first().cloned() else {
        return Verdict::Pass;
    };
    let failed = problems.len();
    let finding = differential::shrink(runner, GENERATED_SEED, index, problem);
    Verdict::Fail(format!(
        "{failed} of {} generated scenarios (seed {GENERATED_SEED}) failed.\n{}",
        cases.len() / 2,
        finding.report(language)
    ))
}

/// Every trial of the suite; each puts its result in `recorder` as it
/// finishes. Unless `args` only lists them, each language with a selected
/// trial starts its work in the background right away.
pub fn trials(suite: Arc<Suite>, args: &Arguments, recorder: &Recorder) -> Vec<Trial> {
    let mut trials = Vec::new();
    let mut jobs = Vec::new();
    for (index, language) in suite.languages.iter().enumerate() {
        let job = Arc::new(Job {
            suite: Arc::clone(&suite),
            language: index,
            selection: OnceLock::new(),
            prepared: OnceLock::new(),
            run: OnceLock::new(),
            demo: OnceLock::new(),
        });
        let trial = |name: &str, verdict: Box<dyn Fn(&Job) -> Verdict + Send>| {
            let job = Arc::clone(&job);
            let recorder = Arc::clone(recorder);
            let trial = format!("{PREFIX}/{}/{name}", language.name);
            let language = language.name.clone();
            Trial::ignorable_test(trial.clone(), move || {
                let started = Instant::now();
                let verdict = verdict(&job);
                let record = Recorded {
                    language,
                    trial,
                    verdict: verdict.clone(),
                    time: started.elapsed(),
                };
                recorder
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push(record);
                verdict.into_trial_result()
            })
        };
        let mut selection = Selection::default();
        for (case_index, case) in suite.cases.iter().enumerate() {
            let name = case.name.clone();
            let case_trial = trial(&case.name, Box::new(move |job| job.case_verdict(&name)));
            if is_selected(args, &case_trial) {
                selection.cases.push(case_index);
            }
            trials.push(case_trial);
        }
        let generated = trial(GENERATED_TRIAL, Box::new(Job::generated_verdict));
        selection.generated = is_selected(args, &generated);
        trials.push(generated);
        let demo = trial(DEMO_TRIAL, Box::new(Job::demo_verdict));
        selection.demo = is_selected(args, &demo);
        trials.push(demo);
        let busy = !selection.cases.is_empty() || selection.generated || selection.demo;
        let _ = job.selection.set(selection);
        if busy && !args.list {
            jobs.push(job);
        }
    }
    for job in jobs {
        std::thread::spawn(move || {
            job.run();
            if job.selection.get().is_some_and(|s| s.demo) {
                job.demo_verdict();
            }
        });
    }
    trials
}

fn is_selected(args: &Arguments, trial: &Trial) -> bool {
    !args.is_filtered_out(trial) && !args.is_ignored(trial)
}
