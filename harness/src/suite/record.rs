//! What the report is handed about a run, collected here once: the
//! commit, the date, each toolchain's version and the arguments that chose
//! the trials, beside the trials' records. The report starts nothing itself.

use std::time::Duration;

use libtest_mimic::Arguments;

use super::{Port, Suite};
use crate::exec::{self, Stdin};
use crate::report::results::RunRecord;
use crate::report::results::Toolchain;
use crate::report::trial::Recorded;
use crate::report::{self, Report};

impl Suite {
    /// The report of a run: one row per case and per trial of each
    /// language (`generated`, `demo`, `demo_config`, `unit`), one column
    /// per language. `args` are the run's libtest arguments: the page
    /// says which trials they chose.
    pub fn report(&self, records: &[Recorded], args: &Arguments) -> Report {
        let manifests: Vec<_> = self.ports.iter().map(|p| p.manifest.clone()).collect();
        let run = RunRecord {
            commit: self.commit(),
            date: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
            filter: crate::config::arguments(args),
            toolchains: self.toolchains(),
        };
        let code = report::code::panel(&manifests, &self.root, super::executor::TRANSCRIPT);
        report::run::report(run, &self.cases, records, code)
    }

    /// Each language's toolchain version: the one its preparation found,
    /// else what its probe says now.
    fn toolchains(&self) -> Vec<Toolchain> {
        let version = |port: &Port| match port.prepared() {
            Some(ready) => ready.version.clone(),
            None => (port.run_probe(&self.root, Duration::from_secs(30)))
                .map_or_else(|why| why.to_string(), |ready| ready.version),
        };
        (self.ports.iter())
            .map(|port| Toolchain {
                name: port.name.clone(),
                version: version(port),
            })
            .collect()
    }

    /// The commit checked out, `-dirty` when tracked files changed (tags
    /// excluded, so it is always the hash).
    fn commit(&self) -> String {
        let describe = "git describe --always --dirty --abbrev=12 --exclude=*";
        let command = exec::Command::new(
            "`git describe`",
            describe.split(' ').map(str::to_owned).collect(),
            &self.root,
            Duration::from_secs(30),
        );
        match exec::run(&command, Stdin::Null) {
            Ok(output) if output.success() => output.stdout.text().trim().to_owned(),
            Ok(output) => format!("not available ({})", output.describe()),
            Err(e) => format!("not available ({e})"),
        }
    }
}
