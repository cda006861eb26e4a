//! A port's checks that are trials of their own besides the runner's
//! stream: its demo (two configs), its demo's refusal of bad configs, and
//! its own unit tests; each observed by the [`super::executor`] and judged
//! by [`crate::judge`] (the trial applies the known-failures list).

use std::path::{Path, PathBuf};

use super::executor::{Fixtures, DEMO_CONFIG, TRANSCRIPT};
use super::{Port, Suite};
use crate::judge::demo;
use crate::judge::{self, Reason, Verdict};

impl Suite {
    /// Judges a prepared port's demo: the committed transcript on the
    /// shared config, and the Rust demo's own output on a second config.
    pub fn check_demo(&self, port: &Port) -> Verdict {
        let committed = match &self.transcript {
            Err(why) => Verdict::Fail(Reason::Wrong(why.clone())),
            Ok(expected) => {
                let differs = format!(
                    "the {} demo's transcript differs from the Rust demo's ({TRANSCRIPT})",
                    port.name
                );
                let actual = self.run_demo(port, Path::new(DEMO_CONFIG));
                demo::transcript(&differs, expected, actual)
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
            if Ok(&transcript) == self.transcript.as_ref() {
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
    pub fn check_demo_config(&self, port: &Port) -> Verdict {
        let judged = || {
            let bad = &self.fixtures().map_err(Reason::Harness)?.bad;
            let actual = self.refusals(port, bad).map_err(Reason::Wrong)?;
            demo::judge_refusals(&port.name, &actual).map_err(Reason::Wrong)
        };
        judged().map_or_else(Verdict::Fail, |()| Verdict::Pass)
    }

    /// The demo's configs of this run, written once for all languages (and
    /// for the floor of `make bench`).
    pub fn fixtures(&self) -> Result<&Fixtures, String> {
        self.fixtures
            .get_or_init(|| self.write_fixtures())
            .as_ref()
            .map_err(String::clone)
    }

    /// Runs a prepared port's own unit tests: they must exit 0 and their
    /// tool's final report must prove them.
    pub fn check_unit(&self, port: &Port) -> Verdict {
        let command = self.unit_command(port);
        let ran = crate::exec::run(&command, crate::exec::Stdin::Null);
        let tests = format!("{} (`{}`)", command.label, command.argv.join(" "));
        judge::unit(tests, ran, port.unit.counter)
    }
}
