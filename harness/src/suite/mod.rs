//! The parity suite: what one run checks (the validated case table, the
//! languages, their known failures and the settings) and how a language's
//! answers and demo are judged. [`trials`] turns it into libtest-mimic
//! trials named `patterns/enterprise/outbox/practice/<language>/<case>`.

pub mod junit;
pub mod trials;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::config::{self, Settings, GENERATED_COUNT, GENERATED_SEED};
use crate::differential;
use crate::exec;
use crate::judge::compare::compare;
use crate::judge::demo::{self, Demo, Refusal};
use crate::judge::known_failures::{self, KnownFailures};
use crate::judge::{CaseHeader, Reason, Verdict};
use crate::protocol::Reply;
use crate::session::Session;
use crate::table::{self, Case};
use crate::text::relative_in;
use crate::toolchain::{self, Language, NotReady};

pub use trials::trials;

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
    /// The environment's settings.
    pub settings: Settings,
    /// The demo check's config, transcript and deadline.
    pub demo: Demo,
    /// The fixed-seed generated scenarios, drawn once for all languages.
    generated: OnceLock<Result<Vec<Case>, String>>,
    /// The bad demo configs and how the Rust demo refuses them, found once
    /// for all languages.
    refusals: OnceLock<Result<BadConfigs, String>>,
}

/// The bad demo configs (name, path) and the Rust demo's refusal of each.
type BadConfigs = (Vec<(String, PathBuf)>, Vec<Refusal>);

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
        let cases = table::load(&case_sources(root, &settings)).map_err(|errors| {
            let mut text = format!("the case table has {} problem(s):\n", errors.len());
            for error in errors {
                let _ = writeln!(text, "  {}", relative_in(&error.to_string(), root));
            }
            text
        })?;
        let languages = toolchain::builtin(&config::target_dir(root));
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
            demo: Demo {
                root: root.to_path_buf(),
                config: PathBuf::from("runners/demo.json"),
                transcript: PathBuf::from("runners/demo.transcript.txt"),
                deadline: settings.timeout,
            },
            settings,
            generated: OnceLock::new(),
            refusals: OnceLock::new(),
        })
    }

    /// The fixed-seed scenario pairs, `expect` from the reference, or why
    /// the reference could not give one.
    pub fn generated_cases(&self) -> Result<&[Case], &str> {
        self.generated
            .get_or_init(|| differential::cases(GENERATED_SEED, GENERATED_COUNT))
            .as_deref()
            .map_err(String::as_str)
    }

    /// Probes the toolchain and builds.
    pub fn prepare(&self, language: &Language) -> Result<(), NotReady> {
        language.prepare(&self.root, self.settings.build_timeout)
    }

    /// The verdict for every trial of a language that is not ready: a
    /// missing toolchain is ignored with the reason, unless strict.
    pub fn not_ready(&self, why: &NotReady) -> Verdict {
        match why {
            NotReady::Missing { .. } if !self.settings.strict => Verdict::Ignore(format!(
                "{why}, or set PARITY_STRICT=1 to make this a failure"
            )),
            NotReady::Missing { .. } => Verdict::Fail(Reason::NotReady(why.clone())),
            NotReady::BuildFailed { .. } => Verdict::Fail(Reason::NotReady(why.clone())),
        }
    }

    /// The runner session of a prepared language.
    pub fn runner(&self, language: &Language) -> Session {
        Session {
            command: exec::Command {
                label: format!("the {} runner", language.name),
                argv: language.runner.clone(),
                dir: self.root.clone(),
                deadline: self.settings.timeout,
                keep: exec::KEEP,
            },
            log_dir: config::work_dir(&self.root, &language.name),
        }
    }

    /// Judges one language's replies to `cases`, known failures applied.
    pub fn judge(&self, language: &str, cases: &[&Case], replies: Vec<Reply>) -> Vec<Verdict> {
        cases
            .iter()
            .zip(replies)
            .map(|(case, reply)| {
                let header = CaseHeader::of(case, &self.root);
                let verdict = match reply {
                    Reply::Answer(actual) => match compare(&case.expect, &actual) {
                        Ok(()) => Verdict::Pass,
                        Err(report) => Verdict::Fail(Reason::Mismatch {
                            case: header,
                            report,
                        }),
                    },
                    Reply::Error(error) => Verdict::Fail(Reason::ErrorAnswer {
                        case: header,
                        language: language.to_owned(),
                        error,
                    }),
                    Reply::Fault(fault) => Verdict::Fail(Reason::Fault {
                        case: header,
                        fault: relative_in(&fault, &self.root),
                    }),
                };
                self.apply_known_failure(language, &case.name, verdict)
            })
            .collect()
    }

    /// Turns a verdict into what the language's known-failures list says.
    pub fn apply_known_failure(&self, language: &str, trial: &str, verdict: Verdict) -> Verdict {
        let Some(reason) = self.known_failures.get(language).and_then(|k| k.get(trial)) else {
            return verdict;
        };
        match verdict {
            Verdict::Fail(_) => Verdict::KnownFailure(reason.clone()),
            Verdict::Pass => Verdict::Fail(Reason::StaleKnownFailure {
                trial: trial.to_owned(),
                language: language.to_owned(),
                reason: reason.clone(),
                list: known_failures::path(language),
            }),
            other @ (Verdict::Ignore(_) | Verdict::KnownFailure(_)) => other,
        }
    }

    /// Judges a prepared language's demo against the Rust transcript.
    pub fn check_demo(&self, language: &Language) -> Verdict {
        let verdict = match self.demo.check(language) {
            Ok(()) => Verdict::Pass,
            Err(why) => Verdict::Fail(Reason::Demo(why)),
        };
        self.apply_known_failure(&language.name, config::DEMO_TRIAL, verdict)
    }
}

impl Suite {
    /// Judges how a prepared language's demo refuses bad configs, against
    /// the Rust demo (the reference is prepared here if it is not yet).
    pub fn check_demo_config(&self, language: &Language) -> Verdict {
        let reference = self.refusals.get_or_init(|| {
            let rust = &self.languages[0];
            self.prepare(rust).map_err(|why| why.to_string())?;
            let dir = config::work_dir(&self.root, "demo-configs");
            let dir = dir.strip_prefix(&self.root).unwrap_or(&dir).to_path_buf();
            let configs = self.demo.write_bad_configs(&dir).map_err(|e| {
                format!("cannot write the bad configs under {}: {e}", dir.display())
            })?;
            let refusals = self.demo.refusals(rust, &configs)?;
            Ok((configs, refusals))
        });
        let verdict = match reference {
            Err(why) => Verdict::Fail(Reason::Reference(format!(
                "the Rust demo's refusals could not be found: {why}"
            ))),
            Ok((configs, expected)) => match self.demo.refusals(language, configs) {
                Err(why) => Verdict::Fail(Reason::Demo(why)),
                Ok(actual) => {
                    match demo::compare_refusals(&language.name, configs, expected, &actual) {
                        Ok(()) => Verdict::Pass,
                        Err(why) => Verdict::Fail(Reason::Demo(why)),
                    }
                }
            },
        };
        self.apply_known_failure(&language.name, config::DEMO_CONFIG_TRIAL, verdict)
    }

    /// Runs a prepared language's own unit tests.
    pub fn check_unit(&self, language: &Language) -> Verdict {
        let command = exec::Command {
            label: format!("the {} unit tests", language.name),
            argv: language.unit.clone(),
            dir: self.root.clone(),
            deadline: self.settings.build_timeout,
            keep: exec::KEEP,
        };
        let verdict = match exec::run(&command, exec::Stdin::Null) {
            Ok(output) if output.success() => Verdict::Pass,
            Ok(output) => {
                let mut printed = output.stdout.text();
                printed.push_str(&output.stderr.text());
                Verdict::Fail(Reason::Unit(format!(
                    "{} (`{}`) failed ({}):\n{}",
                    command.label,
                    command.argv.join(" "),
                    output.describe(),
                    crate::text::tail(&printed, 60)
                )))
            }
            Err(e) => Verdict::Fail(Reason::Unit(format!(
                "{} (`{}`) could not be started: {e}",
                command.label,
                command.argv.join(" ")
            ))),
        };
        self.apply_known_failure(&language.name, config::UNIT_TRIAL, verdict)
    }
}

/// Where the cases come from: `cases/` and the settings' extra sources.
pub fn case_sources(root: &Path, settings: &Settings) -> Vec<PathBuf> {
    let mut sources = vec![root.join("cases")];
    sources.extend(settings.extra_cases.iter().map(|p| root.join(p)));
    sources
}
