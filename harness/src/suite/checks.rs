//! A prepared language's checks that are trials of their own besides the
//! runner's stream: its demo (two configs), its demo's refusal of bad
//! configs, and its own unit tests (which must run at least one test).

use std::path::PathBuf;

use super::Suite;
use crate::config::{self, Kind};
use crate::exec::{self, Stdin};
use crate::judge::demo::{self, Against, BadConfig, DemoFailure, Transcripts};
use crate::judge::{Reason, UnitFailure, UnitWhat, Verdict};
use crate::toolchain::Language;

/// The demo's second config: another batch size and a pass limit that
/// stops with rows unsent, so its transcript differs from the shared
/// config's and a demo that prints a stored transcript fails. Constant
/// data written by the harness.
pub const SECOND_DEMO_CONFIG: &str = r#"{"batch_size": 2, "max_passes": 2}"#;

impl Suite {
    /// Judges a prepared language's demo: the committed transcript on the
    /// shared config, and the Rust demo's own output on a second config.
    pub fn check_demo(&self, language: &Language) -> Verdict {
        let language = self.resolved(language).unwrap_or_else(|| language.clone());
        let verdict = match self.demo.check(&language) {
            Err(why) => Verdict::Fail(Reason::Demo(why)),
            Ok(()) => match self.second_demo() {
                Err(why) => Verdict::Fail(Reason::Reference(why.clone())),
                Ok((config, expected)) => match self.demo.run(&language, config) {
                    Err(why) => Verdict::Fail(Reason::Demo(DemoFailure::NotRun(why))),
                    Ok(actual) if actual == *expected => Verdict::Pass,
                    Ok(actual) => Verdict::Fail(Reason::Demo(DemoFailure::Transcript(Box::new(
                        Transcripts {
                            language: language.name.clone(),
                            against: Against::SecondConfig {
                                path: config.clone(),
                                config: SECOND_DEMO_CONFIG.to_owned(),
                            },
                            expected: expected.clone(),
                            actual,
                        },
                    )))),
                },
            },
        };
        self.apply_known_failure(&language.name, Kind::Demo.name(), verdict)
    }

    /// The second config's path and the Rust demo's transcript on it, found
    /// once (the reference is prepared here if it is not yet); it must
    /// differ from the committed transcript, or the check proves nothing.
    fn second_demo(&self) -> Result<&(PathBuf, String), &String> {
        self.second_demo
            .get_or_init(|| {
                let rust = self
                    .prepared(self.reference())
                    .map_err(|why| why.to_string())?;
                let dir = config::work_dir(&self.root, "demo-configs");
                let dir = dir.strip_prefix(&self.root).unwrap_or(&dir).to_path_buf();
                let path = dir.join("second.json");
                std::fs::create_dir_all(self.root.join(&dir))
                    .and_then(|()| {
                        crate::atomic::write(&self.root.join(&path), SECOND_DEMO_CONFIG.as_bytes())
                    })
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                let transcript = self
                    .demo
                    .run(&rust, &path)
                    .map_err(|why| format!("the Rust demo on {}: {why}", path.display()))?;
                let committed = std::fs::read_to_string(self.root.join(&self.demo.transcript))
                    .unwrap_or_default();
                if transcript == committed {
                    return Err(format!(
                        "the Rust demo prints the same transcript on {} as on {}: the second \
                         config checks nothing",
                        path.display(),
                        self.demo.config.display()
                    ));
                }
                Ok((path, transcript))
            })
            .as_ref()
    }

    /// Judges how a prepared language's demo refuses bad configs: exit 2,
    /// and a first line of stderr that names the path and the key at fault.
    pub fn check_demo_config(&self, language: &Language) -> Verdict {
        let language = self.resolved(language).unwrap_or_else(|| language.clone());
        let verdict = match self.bad_configs() {
            Err(why) => Verdict::Fail(Reason::Harness(why.clone())),
            Ok(configs) => match self.demo.refusals(&language, configs) {
                Err(why) => Verdict::Fail(Reason::Demo(DemoFailure::NotRun(why))),
                Ok(actual) => match demo::judge_refusals(&language.name, configs, &actual) {
                    Ok(()) => Verdict::Pass,
                    Err(why) => Verdict::Fail(Reason::Demo(DemoFailure::Refusals(why))),
                },
            },
        };
        self.apply_known_failure(&language.name, Kind::DemoConfig.name(), verdict)
    }

    /// The bad configs of this run, written once for all languages (and
    /// for the floor of `make bench`).
    pub fn bad_configs(&self) -> Result<&[BadConfig], &String> {
        self.bad_configs
            .get_or_init(|| {
                let dir = config::work_dir(&self.root, "demo-configs");
                let dir = dir.strip_prefix(&self.root).unwrap_or(&dir).to_path_buf();
                self.demo.write_bad_configs(&dir).map_err(|e| {
                    format!("cannot write the bad configs under {}: {e}", dir.display())
                })
            })
            .as_deref()
    }

    /// Runs a prepared language's own unit tests: they must exit 0 and
    /// their tool's final report must prove them (see
    /// [`crate::toolchain::unit::Tally::proves`]).
    pub fn check_unit(&self, language: &Language) -> Verdict {
        let language = self.resolved(language).unwrap_or_else(|| language.clone());
        let command = exec::Command {
            label: format!("the {} unit tests", language.name),
            argv: language.unit.clone(),
            dir: self.root.clone(),
            deadline: self.settings.build_timeout,
            keep: exec::KEEP,
        };
        let fail = |what| {
            Verdict::Fail(Reason::Unit(UnitFailure {
                tests: format!("{} (`{}`)", command.label, command.argv.join(" ")),
                what,
            }))
        };
        let verdict = match exec::run(&command, Stdin::Null) {
            Ok(output) => {
                let mut printed = output.stdout.text();
                printed.push_str(&output.stderr.text());
                let tally = self.counter(&language.name).map(|c| c.tally(&printed));
                match tally {
                    _ if !output.success() => fail(UnitWhat::Failed {
                        ended: output.describe(),
                        tail: crate::text::tail(&printed, 60),
                    }),
                    Some(tally) if !tally.proves() => fail(UnitWhat::Unproven {
                        tally,
                        tail: crate::text::tail(&printed, 30),
                    }),
                    Some(_) | None => Verdict::Pass,
                }
            }
            Err(e) => fail(UnitWhat::CouldNotStart {
                error: e.to_string(),
            }),
        };
        self.apply_known_failure(&language.name, Kind::Unit.name(), verdict)
    }
}
