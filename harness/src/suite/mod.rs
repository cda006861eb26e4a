//! The run of the suite in layers: what it knows ([`Suite`], the catalog:
//! the contract, the cases, one [`Port`] per language, the settings), what
//! it selected ([`trials`], libtest-mimic's front, each trial's verdict
//! found once), and what it runs and hands to [`crate::judge`]'s pure
//! verdicts ([`Executor`]: the demos, the unit tests, the runner streams and
//! the shrinking of a wrong generated scenario, the fixtures and the run's
//! record; the only layer here that starts a process). Trials are named
//! `patterns/enterprise/outbox/practice/<language>/<case>`.

pub mod executor;
mod repeat;
pub mod trials;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::config::{self, LanguageId, Settings, GENERATED_COUNT, GENERATED_SEED};
use crate::contract::{Contract, SCHEMA};
use crate::differential::{self, Draw};
use crate::exec;
use crate::judge::known_failures::{self, KnownFailures};
use crate::judge::Verdict;
use crate::session::Session;
use crate::table::{self, Case};
use crate::toolchain::{manifest, Manifest, NotReady, Ready};
use executor::TRANSCRIPT;

pub use executor::Executor;
pub use trials::{trials, Recorder};

/// One language of the run, keyed by its id: its manifest (which it
/// derefs to), its known failures, and what preparing it found.
#[derive(Debug)]
pub struct Port {
    /// The language's id: its manifest's `name`.
    pub id: LanguageId,
    /// Its manifest, placeholders resolved (a test's fake: its own).
    pub manifest: Manifest,
    /// Its known failures, by trial name.
    pub known: KnownFailures,
    /// Probed and built once per run, whoever asks first.
    ready: OnceLock<Result<Ready, NotReady>>,
}

impl From<Manifest> for Port {
    /// A port without known failures: a test's fake.
    fn from(manifest: Manifest) -> Self {
        Port {
            id: manifest.name.as_str().into(),
            manifest,
            known: KnownFailures::new(),
            ready: OnceLock::new(),
        }
    }
}

impl std::ops::Deref for Port {
    type Target = Manifest;

    fn deref(&self) -> &Manifest {
        &self.manifest
    }
}

impl Port {
    /// What preparing it found, once it is ready.
    pub fn prepared(&self) -> Option<&Ready> {
        self.ready.get()?.as_ref().ok()
    }

    /// `argv` (its runner's, demo's or unit tests' line) as the port starts
    /// it: once ready, with the program its probe printed in place of the
    /// probe's own (see [`Manifest::probe`]).
    pub fn command(&self, argv: &[String]) -> Vec<String> {
        let mut argv = argv.to_vec();
        let printed = self.prepared().and_then(|r| r.program.clone());
        if let (Some(program), Some(first)) = (printed, argv.first_mut()) {
            if Some(&*first) == self.probe.first() {
                *first = program;
            }
        }
        argv
    }

    /// `verdict` as the port's known-failures list turns it.
    pub fn listed(&self, trial: &str, verdict: Verdict) -> Verdict {
        known_failures::apply(&self.known, &self.name, trial, verdict)
    }
}

/// The catalog of one run: what it knows and checks.
#[derive(Debug)]
pub struct Suite {
    /// The repository root: builds, runners and demos start here.
    pub root: PathBuf,
    /// The checkout's `cases/schema.json`: what its cases and answers may
    /// be, and the features.
    pub contract: Arc<Contract>,
    /// Every validated case, in file order.
    pub cases: Vec<Case>,
    /// The languages, the reference first.
    pub ports: Vec<Arc<Port>>,
    /// The reference, found by its manifest's flag and kept when a test
    /// puts its fakes in the ports' place: the second demo config's
    /// transcript is still the reference's.
    reference: Arc<Port>,
    /// The environment's settings.
    pub settings: Settings,
    /// The fixed-seed generated scenarios, drawn once for all languages:
    /// without the features' fields, and with them.
    generated: [OnceLock<Result<Vec<Case>, String>>; 2],
}

impl Suite {
    /// The suite of this repository with the environment's settings: what
    /// `make test`, `make demo`, `make fuzz` and `make bench` start from.
    pub fn from_env() -> Result<Self, String> {
        Suite::load(&crate::repo_root(), Settings::from_env()?)
    }

    /// The suite over `cases/` plus the settings' extra cases, checked with
    /// the checkout's own schema, with the languages of the manifests.
    /// Every problem in the case table is returned at once, each naming its
    /// file, case and field.
    pub fn load(root: &Path, settings: Settings) -> Result<Self, String> {
        if !config::judging_a_mutant() {
            no_mutant_in_place(root)?;
        }
        let contract = Contract::load(root).map_err(|e| format!("{SCHEMA}: {e}"))?;
        let sources = case_sources(root, &settings);
        let cases = table::load_with(&contract, &sources).map_err(|errors| {
            let mut text = format!("the case table has {} problem(s):\n", errors.len());
            for mut error in errors {
                error.file = error.file.strip_prefix(root).unwrap_or(&error.file).into();
                let _ = writeln!(text, "  {error}");
            }
            text
        })?;
        let names: HashSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        let mut ports = Vec::new();
        let manifests = manifest::read_all(root)?;
        manifest::check_features(&manifests, &contract.features())?;
        for manifest in manifests {
            let known = known_failures::load(root, &manifest.name, &names, false)?;
            ports.push(Arc::new(Port {
                known,
                ..Port::from(manifest)
            }));
        }
        // read_all found exactly one.
        let reference = ports.iter().find(|p| p.reference).cloned();
        Ok(Suite {
            root: root.to_path_buf(),
            contract,
            cases,
            reference: reference.ok_or("no manifest says `reference = true`")?,
            ports,
            settings,
            generated: Default::default(),
        })
    }

    /// Puts `languages` in the ports' place, without known failures: a
    /// test's fakes.
    pub fn set_languages(&mut self, languages: impl IntoIterator<Item = Manifest>) {
        let ports = languages
            .into_iter()
            .map(|language| Arc::new(Port::from(language)));
        self.ports = ports.collect();
    }

    /// The committed transcript every demo must print, read when a demo is
    /// judged and only then, by the one reader of regular files (a FIFO
    /// there hung every run), or why it could not be.
    pub fn transcript(&self) -> Result<String, String> {
        crate::files::read_regular(&self.root.join(TRANSCRIPT), "the demo's transcript")
            .map_err(|e| format!("cannot read {TRANSCRIPT}: {e}"))
    }

    /// The port of that language.
    pub fn port(&self, id: &str) -> Option<&Arc<Port>> {
        self.ports.iter().find(|p| &*p.id == id)
    }

    /// The reference's port: the one whose manifest says `reference =
    /// true`, whatever stands in the ports' place.
    pub fn reference(&self) -> &Port {
        &self.reference
    }

    /// What `port`'s generated trial draws: the features' fields only when
    /// it plays every feature (a scenario may combine them), so a port
    /// that lacks one is not failed for it.
    pub fn generated_draw(&self, port: &Port) -> Draw {
        let features = self.contract.features().iter().all(|f| port.plays(f));
        Draw {
            features,
            ..Draw::ALL
        }
    }

    /// The fixed-seed scenario pairs `port` is sent, `expect` from the
    /// reference, or why the reference could not give one.
    pub fn generated_cases(&self, port: &Port) -> Result<&[Case], &str> {
        let drawn = self.generated_draw(port);
        let draw = || differential::cases(GENERATED_SEED, GENERATED_COUNT, drawn);
        let generated = self.generated[usize::from(drawn.features)].get_or_init(draw);
        generated.as_deref().map_err(String::as_str)
    }

    /// The port probed and built, once per run whoever asks first, within
    /// the settings' build deadline.
    pub fn ready<'p>(&self, port: &'p Port) -> Result<&'p Port, &'p NotReady> {
        let deadline = self.settings.build_timeout;
        let prepared = port
            .ready
            .get_or_init(|| port.prepare(&self.root, deadline));
        prepared.as_ref().map(|_| port)
    }

    /// The ready ports of those `only` names (every port when it names
    /// none), in order: what the fronts that run only ready languages
    /// (fuzz, bench, floor) start from. A port not ready is skipped, said
    /// on stderr by `front`, when `skip` allows it; otherwise why is the
    /// error.
    pub fn ready_languages(
        &self,
        front: &str,
        only: &[String],
        skip: impl Fn(&NotReady) -> bool,
    ) -> Result<Vec<&Port>, String> {
        let named = |port: &&Arc<Port>| only.is_empty() || only.iter().any(|n| *n == port.name);
        let mut languages = Vec::new();
        for port in self.ports.iter().filter(named) {
            match self.ready(port) {
                Ok(language) => languages.push(language),
                Err(why) if skip(why) => eprintln!("{front}: skipping {}: {why}", port.name),
                Err(why) => return Err(why.to_string()),
            }
        }
        Ok(languages)
    }

    /// The runner session of a ready port.
    pub fn runner(&self, port: &Port) -> Session {
        Session {
            command: exec::Command::new(
                format!("the {} runner", port.name),
                port.command(&port.runner),
                &self.root,
                self.settings.timeout,
            ),
            log_dir: config::work_dir(&self.root, &port.name),
            contract: Arc::clone(&self.contract),
        }
    }
}

/// Where make mutants keeps the original of the file its mutant is in
/// (harness/mutants/mutants.py), from the root.
pub const PENDING: &str = "target/mutants/pending.json";

/// Refuses a run while make mutants has a mutant in place (its pending
/// file exists), which the run would judge as the port; names the mutated
/// file and how to put the original back.
pub fn no_mutant_in_place(root: &Path) -> Result<(), String> {
    let Ok(text) = crate::files::read_regular(&root.join(PENDING), "a pending file") else {
        return Ok(());
    };
    let pending: serde_json::Map<_, _> = serde_json::from_str(&text).unwrap_or_default();
    Err(format!(
        "{PENDING} exists: make mutants has a mutant in place ({}), and this run would judge it as the \
         port. If no make mutants is running in this tree, `make mutants-restore` puts the original back.",
        Vec::from_iter(pending.keys().map(String::as_str)).join(", ")
    ))
}

/// Where the cases come from: `cases/` and the settings' extra sources.
pub fn case_sources(root: &Path, settings: &Settings) -> Vec<PathBuf> {
    let mut sources = vec![root.join("cases")];
    sources.extend(settings.extra_cases.iter().map(|p| root.join(p)));
    sources
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe's first line is the report's version; the program on its
    /// last replaces the probe's own where a command line starts with it.
    #[test]
    fn a_probe_that_prints_an_interpreter_resolves_it() {
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let port = Port::from(Manifest {
            probe: argv(&["sh", "-c", "echo 'tool 1.2'; echo /bin/sh"]),
            runner: argv(&["sh", "runner.sh"]),
            ..Manifest::default()
        });
        assert_eq!(port.command(&port.runner), ["sh", "runner.sh"]);
        let suite = Suite::load(&crate::repo_root(), Settings::default()).unwrap();
        suite.ready(&port).unwrap();
        assert_eq!(port.prepared().unwrap().version, "tool 1.2");
        assert_eq!(port.command(&port.runner), ["/bin/sh", "runner.sh"]);
        assert_eq!(port.command(&argv(&["true", "sh"])), ["true", "sh"]);
    }

    /// A port that lacks a feature is sent generated scenarios without any
    /// feature's fields, not failed on those it does not play; the
    /// reference's scenarios use every feature.
    #[test]
    fn the_generated_trial_draws_only_what_the_port_plays() {
        let suite = Suite::load(&crate::repo_root(), Settings::default()).unwrap();
        let uses = |port: &Port| -> std::collections::BTreeSet<String> {
            let cases = suite.generated_cases(port).unwrap().iter();
            let scenarios = cases.map(|case| serde_json::to_value(&case.scenario).unwrap());
            scenarios
                .flat_map(|s| suite.contract.features_of(&s))
                .collect()
        };
        let lacks_heads = Port::from(Manifest {
            features: vec!["attempt_cap".into(), "retention".into(), "relays".into()],
            ..Manifest::default()
        });
        assert_eq!(uses(&lacks_heads), Default::default());
        assert_eq!(uses(suite.reference()), suite.contract.features());
    }

    /// Issue 38, item 7: a make mutants killed with SIGKILL left a mutant
    /// class file in Java's build, and the next make test on a clean tree
    /// failed `java/unit`, blaming a correct OutboxTable.java.
    #[test]
    fn a_run_refuses_while_a_mutant_is_in_place() {
        let root = config::scratch_dir("mutant-in-place");
        std::fs::create_dir_all(root.join("target/mutants")).unwrap();
        assert_eq!(no_mutant_in_place(&root), Ok(()));
        let class = "target/parity/java/classes/outbox/OutboxTable.class";
        std::fs::write(root.join(PENDING), format!(r#"{{"{class}": "yv66vg=="}}"#)).unwrap();
        let refused = Suite::load(&root, Settings::default()).unwrap_err();
        for said in [PENDING, class, "as the port", "`make mutants-restore`"] {
            assert!(refused.contains(said), "{said:?} in {refused}");
        }
    }
}
