//! The parity suite: what one run checks (the validated case table, the
//! languages, their known failures and the settings) and how a language's
//! answers and demo are judged. [`trials`] turns it into libtest-mimic
//! trials named `patterns/enterprise/outbox/practice/<language>/<case>`.

pub mod checks;
mod record;
mod repeat;
pub mod trials;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::config::{self, Settings, GENERATED_COUNT, GENERATED_SEED};
use crate::differential;
use crate::exec;
use crate::judge::compare::compare;
use crate::judge::demo::{BadConfig, Demo};
use crate::judge::known_failures::{self, KnownFailures};
use crate::judge::{CaseHeader, Reason, Verdict};
use crate::protocol::Reply;
use crate::session::Session;
use crate::table::{self, Case};
use crate::toolchain::manifest::{self, Manifest};
use crate::toolchain::unit::Counter;
use crate::toolchain::{Language, NotReady};

pub use trials::{trials, Recorder};

/// What one run of the suite checks and how.
#[derive(Debug)]
pub struct Suite {
    /// The repository root: builds, runners and demos start here.
    pub root: PathBuf,
    /// Every validated case, in file order.
    pub cases: Vec<Case>,
    /// The languages, the reference first.
    pub languages: Vec<Language>,
    /// The languages' manifests (`runners/*/language.toml`), in the same
    /// order: what the tools besides the trials read.
    pub manifests: Vec<Manifest>,
    /// The reference as its manifest says it, for a suite whose languages
    /// were replaced (a test's fakes): the second demo config's transcript
    /// is still the reference's.
    reference: Language,
    /// Known failures per language name.
    pub known_failures: HashMap<String, KnownFailures>,
    /// The environment's settings.
    pub settings: Settings,
    /// The demo check's config, transcript and deadline.
    pub demo: Demo,
    /// How many times each selected trial runs (`PARITY_REPEAT`, `make
    /// test REPEAT=N`): more than once, a trial whose verdict or answer
    /// changes between runs fails.
    pub repeat: usize,
    /// The fixed-seed generated scenarios, drawn once for all languages.
    generated: OnceLock<Result<Vec<Case>, String>>,
    /// Each built-in language made ready once per run (probe, build, its
    /// interpreter resolved), whoever asks first.
    prepared: Vec<OnceLock<Result<Language, NotReady>>>,
    /// The bad demo configs, written once for all languages.
    bad_configs: OnceLock<Result<Vec<BadConfig>, String>>,
    /// The demo's second config and the Rust demo's transcript of it.
    second_demo: OnceLock<Result<(PathBuf, String), String>>,
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
        let cases = table::load(&case_sources(root, &settings)).map_err(|errors| {
            let mut text = format!("the case table has {} problem(s):\n", errors.len());
            for mut error in errors {
                error.file = error.file.strip_prefix(root).unwrap_or(&error.file).into();
                let _ = writeln!(text, "  {error}");
            }
            text
        })?;
        let manifests = manifest::read_all(root).map_err(|e| e.to_string())?;
        let target = config::target_dir(root);
        let languages: Vec<Language> = manifests.iter().map(|m| m.language(&target)).collect();
        let reference = languages
            .iter()
            .zip(&manifests)
            .find(|(_, m)| m.reference)
            .map(|(l, _)| l.clone())
            .ok_or("no manifest says `reference = true`")?;
        let names: HashSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        let mut known = HashMap::new();
        for language in &languages {
            known.insert(
                language.name.clone(),
                known_failures::load(root, &language.name, &names)?,
            );
        }
        let repeat = config::repeat()?;
        Ok(Suite {
            root: root.to_path_buf(),
            cases,
            prepared: languages.iter().map(|_| OnceLock::new()).collect(),
            languages,
            manifests,
            reference,
            known_failures: known,
            demo: Demo {
                root: root.to_path_buf(),
                config: PathBuf::from("runners/demo.json"),
                transcript: PathBuf::from("runners/demo.transcript.txt"),
                deadline: settings.timeout,
            },
            settings,
            repeat,
            generated: OnceLock::new(),
            bad_configs: OnceLock::new(),
            second_demo: OnceLock::new(),
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

    /// Probes the toolchain and builds: once per run for a language of
    /// [`Suite::languages`] (known by its name), every time for any other.
    pub fn prepare(&self, language: &Language) -> Result<(), NotReady> {
        self.prepared(language).map(drop)
    }

    /// The language as [`Suite::prepare`] made it ready: its interpreter
    /// resolved (see [`Language::probe`]).
    pub fn prepared(&self, language: &Language) -> Result<Language, NotReady> {
        let prepare = || language.prepare_resolved(&self.root, self.settings.build_timeout);
        match self.slot(language) {
            Some(slot) => slot.get_or_init(prepare).clone(),
            None => prepare(),
        }
    }

    /// Where the language of [`Suite::languages`] of that name is kept
    /// ready once prepared.
    fn slot(&self, language: &Language) -> Option<&OnceLock<Result<Language, NotReady>>> {
        let at = self
            .languages
            .iter()
            .position(|known| known.name == language.name)?;
        self.prepared.get(at)
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

    /// The runner session of a prepared language (its interpreter
    /// resolved, when it was prepared through [`Suite::prepare`]).
    pub fn runner(&self, language: &Language) -> Session {
        let argv = match self.resolved(language) {
            Some(resolved) => resolved.runner,
            None => language.runner.clone(),
        };
        Session {
            command: exec::Command {
                label: format!("the {} runner", language.name),
                argv,
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
                        Err(_) => Verdict::Fail(Reason::Mismatch {
                            case: header,
                            expected: Box::new(case.expect.clone()),
                            actual: Box::new(actual),
                        }),
                    },
                    Reply::Error(error) => Verdict::Fail(Reason::ErrorAnswer {
                        case: header,
                        language: language.to_owned(),
                        error,
                    }),
                    Reply::Fault(fault) => Verdict::Fail(Reason::Fault {
                        case: header,
                        fault,
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

    /// The reference language: the one of [`Suite::languages`] with the
    /// name of the manifest that says `reference = true`, else (a test's
    /// fakes in their place) the reference itself.
    pub fn reference(&self) -> &Language {
        self.languages
            .iter()
            .find(|l| l.name == self.reference.name)
            .unwrap_or(&self.reference)
    }

    /// The unit counter the language's manifest names; none for a language
    /// without a manifest (a test's fake): then only the exit code counts.
    pub fn counter(&self, language: &str) -> Option<Counter> {
        self.manifests
            .iter()
            .find(|m| m.name == language)
            .and_then(|m| m.unit.counter)
    }

    /// The ready copy of a language of [`Suite::languages`], if it was
    /// prepared and is ready.
    pub(crate) fn resolved(&self, language: &Language) -> Option<Language> {
        self.slot(language)?.get()?.as_ref().ok().cloned()
    }
}

/// Where the cases come from: `cases/` and the settings' extra sources.
pub fn case_sources(root: &Path, settings: &Settings) -> Vec<PathBuf> {
    let mut sources = vec![root.join("cases")];
    sources.extend(settings.extra_cases.iter().map(|p| root.join(p)));
    sources
}
