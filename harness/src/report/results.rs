//! The results file of a run (`target/parity/results.json`, or
//! `PARITY_RESULTS`): one entry per trial that ran, with its verdict, the
//! state of its cell and the one-line reason, plus the commit, the
//! toolchains and the filter. It is what a later run compares itself with
//! (`make report BASE=...`), what CI keeps of main, and what
//! `make known-failures` reads. `harness/results.schema.json` describes it.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Cell, Report, State};
use crate::config::PREFIX;
use crate::judge::{Reason, Verdict};
use crate::suite::junit::Recorded;
use crate::toolchain::NotReady;

/// The format's version; a reader refuses another. A field added later
/// is optional and leaves the version alone: a reader ignores the fields it
/// does not know (no `deny_unknown_fields` here), so main's results, written
/// by a newer harness, stay a pull request's base. A field whose meaning
/// changes makes a new version.
pub const VERSION: u32 = 1;

/// The `fault` of every trial of a language whose build step failed: no
/// runner ran, so no case is to blame.
pub const BUILD_FAILED: &str = "build_failed";

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Results {
    /// [`VERSION`].
    pub version: u32,
    /// The commit the run tested (`-dirty` when the tree had changes).
    pub commit: String,
    /// When the run happened.
    pub date: String,
    /// The libtest arguments that chose the trials; empty for all.
    pub filter: String,
    /// Each toolchain's version, as its `--version` says it.
    pub toolchains: Vec<ToolchainVersion>,
    /// One entry per trial that ran, in the page's order.
    pub trials: Vec<Entry>,
}

/// One toolchain's version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolchainVersion {
    /// E.g. `go`.
    pub name: String,
    /// The first line its version command printed.
    pub version: String,
}

/// One trial's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The language, e.g. `php`.
    pub language: String,
    /// `case`, or the trial kind's name (`generated`, `protocol`, ...).
    pub kind: String,
    /// The case's name, or the trial's for the other kinds.
    pub case: String,
    /// libtest's view: `pass`, `fail`, `ignored` or `known_failure`.
    pub verdict: String,
    /// What happened, one of [`State`]'s ids (`wrong_answer`,
    /// `runner_fault`, ...): the kind of the reason.
    pub state: String,
    /// The reason in one line; absent for a pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// For a trial failed by a runner's fault, the fault's kind
    /// ([`crate::fault::FaultKind::id`]: `timed_out`, `exited`, ...), so a
    /// tool knows which fault it was without reading the prose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// The stderr log that fault names, relative to the repository root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

impl Entry {
    /// The entry's state; an unknown id (a newer harness's) reads as a
    /// harness fault, so it shows as a change rather than vanishing.
    pub fn state(&self) -> State {
        State::from_id(&self.state).unwrap_or(State::HarnessFault)
    }
}

impl Results {
    /// The results of the run `report` shows: every cell that ran.
    pub fn of(report: &Report) -> Results {
        let mut trials = Vec::new();
        for row in &report.rows {
            for language in &report.languages {
                let Some(cell) = row.cells.get(language) else {
                    continue;
                };
                let verdict = match cell {
                    Cell::Pass => "pass",
                    Cell::Fail(..) => "fail",
                    Cell::Ignored(_) => "ignored",
                    Cell::KnownFailure(_) => "known_failure",
                };
                trials.push(Entry {
                    language: language.clone(),
                    kind: if row.scenario.is_some() {
                        "case".to_owned()
                    } else {
                        row.name.clone()
                    },
                    case: row.name.clone(),
                    verdict: verdict.to_owned(),
                    state: cell.state().id().to_owned(),
                    summary: cell.summary().map(str::to_owned),
                    fault: None,
                    log: None,
                });
            }
        }
        Results {
            version: VERSION,
            commit: report.commit.clone(),
            date: report.date.clone(),
            filter: report.selection.clone(),
            toolchains: report
                .toolchains
                .iter()
                .map(|t| ToolchainVersion {
                    name: t.name.clone(),
                    version: t.version.clone(),
                })
                .collect(),
            trials,
        }
    }

    /// The results with each failed trial's runner fault named (its kind
    /// and log), from the run's typed verdicts: the page's cells keep text
    /// only. A failed build is named too ([`BUILD_FAILED`]): it is the
    /// language's fault, not its cases', and `make known-failures` must
    /// tell it from theirs.
    pub fn with_faults(mut self, records: &[Recorded]) -> Results {
        let faults: HashMap<(&str, &str), (&str, Option<String>)> = records
            .iter()
            .filter_map(|record| {
                let Verdict::Fail(reason) = &record.verdict else {
                    return None;
                };
                let prefix = format!("{PREFIX}/{}/", record.language);
                let row = record.trial.strip_prefix(&prefix)?;
                let named = match reason {
                    Reason::NotReady(NotReady::BuildFailed { .. }) => (BUILD_FAILED, None),
                    _ => {
                        let fault = reason.fault()?;
                        (fault.id(), fault.log().map(|log| log.display().to_string()))
                    }
                };
                Some(((record.language.as_str(), row), named))
            })
            .collect();
        for entry in &mut self.trials {
            if let Some((id, log)) = faults.get(&(entry.language.as_str(), entry.case.as_str())) {
                entry.fault = Some((*id).to_owned());
                entry.log.clone_from(log);
            }
        }
        self
    }

    /// The file's text: pretty JSON, one field a line, so a diff of two
    /// files reads.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("plain strings serialize");
        text.push('\n');
        text
    }

    /// Writes the file atomically (a reader never sees half of it),
    /// creating its folder.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let written = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir),
            _ => Ok(()),
        }
        .and_then(|()| crate::atomic::write(path, self.to_json().as_bytes()));
        written.map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Reads a results file; the error names the file and what is wrong
    /// (serde's message names the field, the line and the column).
    pub fn load(path: &Path) -> Result<Results, String> {
        let text = crate::table::read_regular(path, "a results file")
            .map_err(|problem| format!("{}: {problem}", path.display()))?;
        let results: Results = serde_json::from_str(&text)
            .map_err(|e| format!("{}: not a results file: {e}", path.display()))?;
        if results.version != VERSION {
            return Err(format!(
                "{}: version {} (this harness reads version {VERSION})",
                path.display(),
                results.version
            ));
        }
        Ok(results)
    }
}
