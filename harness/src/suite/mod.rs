//! The run of the suite in layers: what it knows ([`Suite`], the catalog:
//! the cases, one [`Port`] per language, the settings), what it selected
//! and judges ([`trials`], libtest-mimic's front, over [`crate::judge`]'s
//! pure verdicts), and what it ran ([`executor`]: the only layer here that
//! starts a process or writes a fixture). Trials are named
//! `patterns/enterprise/outbox/practice/<language>/<case>`.

pub mod checks;
pub mod executor;
mod record;
mod repeat;
pub mod trials;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::config::{self, Settings, GENERATED_COUNT, GENERATED_SEED};
use crate::differential;
use crate::exec;
use crate::judge::known_failures::{self, KnownFailures};
use crate::judge::Verdict;
use crate::session::Session;
use crate::table::{self, Case};
use crate::toolchain::manifest::{self, Manifest};
use crate::toolchain::{Language, NotReady};
use executor::{Demo, Fixtures};

pub use trials::{trials, Recorder};

/// One language of the run: its manifest and the commands resolved from
/// it together, its known failures, and the language once made ready.
#[derive(Debug)]
pub struct Port {
    /// Its commands, as its manifest resolves them (a test's fake: its own).
    pub language: Language,
    /// Its manifest; `None` for a test's fake, whose unit tests are then
    /// judged by their exit code alone.
    pub manifest: Option<Manifest>,
    /// Its known failures, by trial name.
    pub known: KnownFailures,
    /// Probed and built once per run, whoever asks first.
    ready: OnceLock<Result<Language, NotReady>>,
}

impl From<Language> for Port {
    fn from(language: Language) -> Self {
        Port::new(language)
    }
}

impl Port {
    /// A port of `language` alone, without a manifest or known failures:
    /// a test's fake.
    pub fn new(language: Language) -> Self {
        Port {
            language,
            manifest: None,
            known: KnownFailures::new(),
            ready: OnceLock::new(),
        }
    }

    /// Its name in trial names and messages.
    pub fn name(&self) -> &str {
        &self.language.name
    }

    /// The language made ready (probe, build, its interpreter resolved:
    /// see [`Language::probe`]), once per run.
    pub fn ready(&self, root: &Path, deadline: Duration) -> Result<&Language, &NotReady> {
        self.ready
            .get_or_init(|| self.language.prepare(root, deadline))
            .as_ref()
    }

    /// The ready language, if it was made ready.
    pub fn resolved(&self) -> Option<&Language> {
        self.ready.get()?.as_ref().ok()
    }

    /// The ready language when it was made ready, else the manifest's (a
    /// test's fake is never prepared): what a check starts.
    pub fn current(&self) -> &Language {
        self.resolved().unwrap_or(&self.language)
    }

    /// `verdict` as the port's known-failures list turns it.
    pub fn listed(&self, trial: &str, verdict: Verdict) -> Verdict {
        known_failures::apply(&self.known, self.name(), trial, verdict)
    }
}

/// The catalog of one run: what it knows and checks.
#[derive(Debug)]
pub struct Suite {
    /// The repository root: builds, runners and demos start here.
    pub root: PathBuf,
    /// Every validated case, in file order.
    pub cases: Vec<Case>,
    /// The languages, the reference first.
    pub ports: Vec<Arc<Port>>,
    /// The reference, kept when a test puts its fakes in the ports' place:
    /// the second demo config's transcript is still the reference's.
    reference: Arc<Port>,
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
    /// The demo's fixtures, written once for all languages.
    fixtures: OnceLock<Result<Fixtures, String>>,
    /// The second demo config's path and the Rust demo's transcript of it.
    second: OnceLock<Result<(PathBuf, String), String>>,
}

impl Suite {
    /// The suite of this repository with the environment's settings: what
    /// `make test`, `make demo`, `make fuzz` and `make bench` start from.
    pub fn from_env() -> Result<Self, String> {
        Suite::load(&crate::repo_root(), Settings::from_env()?)
    }

    /// The suite over `cases/` plus the settings' extra cases, with the
    /// languages of the manifests. Every problem in the case table is
    /// returned at once, each naming its file, case and field.
    pub fn load(root: &Path, settings: Settings) -> Result<Self, String> {
        let cases = table::load(&case_sources(root, &settings)).map_err(|errors| {
            let mut text = format!("the case table has {} problem(s):\n", errors.len());
            for mut error in errors {
                error.file = error.file.strip_prefix(root).unwrap_or(&error.file).into();
                let _ = writeln!(text, "  {error}");
            }
            text
        })?;
        let names: HashSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        let target = config::target_dir(root);
        let mut ports = Vec::new();
        for manifest in manifest::read_all(root)? {
            ports.push(Arc::new(Port {
                language: manifest.language(&target),
                known: known_failures::load(root, &manifest.name, &names, false)?,
                manifest: Some(manifest),
                ready: OnceLock::new(),
            }));
        }
        let reference = ports
            .iter()
            .find(|p| p.manifest.as_ref().is_some_and(|m| m.reference))
            .cloned()
            .ok_or("no manifest says `reference = true`")?;
        Ok(Suite {
            root: root.to_path_buf(),
            cases,
            ports,
            reference,
            demo: Demo {
                root: root.to_path_buf(),
                config: PathBuf::from("runners/demo.json"),
                transcript: PathBuf::from("runners/demo.transcript.txt"),
                deadline: settings.timeout,
            },
            settings,
            repeat: config::repeat()?,
            generated: OnceLock::new(),
            fixtures: OnceLock::new(),
            second: OnceLock::new(),
        })
    }

    /// Puts `languages` in the ports' place, each a [`Port::new`]: a
    /// test's fakes.
    pub fn set_languages(&mut self, languages: impl IntoIterator<Item = Language>) {
        self.ports = languages.into_iter().map(Port::new).map(Arc::new).collect();
    }

    /// The port of that name.
    pub fn port(&self, name: &str) -> Option<&Arc<Port>> {
        self.ports.iter().find(|p| p.name() == name)
    }

    /// The reference's port: the one whose manifest says `reference =
    /// true`, whatever stands in the ports' place.
    pub fn reference(&self) -> &Port {
        &self.reference
    }

    /// The fixed-seed scenario pairs, `expect` from the reference, or why
    /// the reference could not give one.
    pub fn generated_cases(&self) -> Result<&[Case], &str> {
        self.generated
            .get_or_init(|| differential::cases(GENERATED_SEED, GENERATED_COUNT))
            .as_deref()
            .map_err(String::as_str)
    }

    /// The port made ready, within the settings' build deadline.
    pub fn ready<'p>(&self, port: &'p Port) -> Result<&'p Language, &'p NotReady> {
        port.ready(&self.root, self.settings.build_timeout)
    }

    /// The ready languages of the ports `only` names (every port when it
    /// names none), in order: what the fronts that run only ready
    /// languages (fuzz, bench, floor) start from. A port not ready is
    /// skipped, said on stderr by `front`, when `skip` allows it;
    /// otherwise why is the error.
    pub fn ready_languages(
        &self,
        front: &str,
        only: &[String],
        skip: impl Fn(&NotReady) -> bool,
    ) -> Result<Vec<&Language>, String> {
        let named = |port: &&Arc<Port>| only.is_empty() || only.iter().any(|n| n == port.name());
        let mut languages = Vec::new();
        for port in self.ports.iter().filter(named) {
            match self.ready(port) {
                Ok(language) => languages.push(language),
                Err(why) if skip(why) => eprintln!("{front}: skipping {}: {why}", port.name()),
                Err(why) => return Err(why.to_string()),
            }
        }
        Ok(languages)
    }

    /// The runner session of a ready language.
    pub fn runner(&self, language: &Language) -> Session {
        Session {
            command: exec::Command::new(
                format!("the {} runner", language.name),
                language.runner.clone(),
                &self.root,
                self.settings.timeout,
            ),
            log_dir: config::work_dir(&self.root, &language.name),
        }
    }
}

/// Where the cases come from: `cases/` and the settings' extra sources.
pub fn case_sources(root: &Path, settings: &Settings) -> Vec<PathBuf> {
    let mut sources = vec![root.join("cases")];
    sources.extend(settings.extra_cases.iter().map(|p| root.join(p)));
    sources
}
