//! The results file of a run (`target/parity/results.json`, or
//! `PARITY_RESULTS`): one entry per trial that ran, with its verdict, the
//! state of its cell and the one-line reason, plus the commit, the
//! toolchains and the filter. It is what a later run compares itself with
//! (`make report BASE=...`), what CI keeps of main, and what
//! `make known-failures` reads. `harness/results.schema.json` describes it.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::trial::{Recorded, TrialId};
use super::{Cell, Report, State, Toolchain};

/// The format's version; a reader refuses another. A field added later
/// is optional and leaves the version alone: a reader ignores the fields it
/// does not know (no `deny_unknown_fields` here), so main's results, written
/// by a newer harness, stay a pull request's base. A field whose meaning
/// changes makes a new version.
pub const VERSION: u32 = 1;

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Results {
    /// [`VERSION`].
    pub version: u32,
    /// The run besides its trials, its fields at the file's top level.
    #[serde(flatten)]
    pub run: RunRecord,
    /// One entry per trial that ran, in the page's order.
    pub trials: Vec<Entry>,
}

/// What a run was besides its trials, collected once by the suite and
/// handed in: the page and the results file show it as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The commit the run tested (a hash, `-dirty` when the tree had
    /// changes).
    pub commit: String,
    /// When the run happened, as the page prints it.
    pub date: String,
    /// The libtest arguments that chose the trials (a filter, `--skip`),
    /// empty when every trial ran, so a filtered run is not taken for a
    /// broken one.
    pub filter: String,
    /// Each toolchain's version, as its `--version` says it, in the order
    /// the page lists them.
    pub toolchains: Vec<Toolchain>,
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
    pub state: State,
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

impl Results {
    /// The results of the run `report` shows, from the trials' records:
    /// every cell that ran, in the page's order, each failed trial's runner
    /// fault named (its kind and log, [`Recorded::fault`]).
    pub fn of(report: &Report, records: &[Recorded]) -> Results {
        let faults: HashMap<&TrialId, (&str, Option<String>)> = records
            .iter()
            .filter_map(|record| Some((&record.id, record.fault()?)))
            .collect();
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
                let id = TrialId {
                    language: language.clone(),
                    row: row.id.clone(),
                };
                let (fault, log) = match faults.get(&id) {
                    Some((fault, log)) => (Some((*fault).to_owned()), log.clone()),
                    None => (None, None),
                };
                trials.push(Entry {
                    kind: row.id.kind().to_owned(),
                    case: row.name().to_owned(),
                    language: id.language,
                    verdict: verdict.to_owned(),
                    state: cell.state(),
                    summary: cell.summary().map(str::to_owned),
                    fault,
                    log,
                });
            }
        }
        Results {
            version: VERSION,
            run: report.run.clone(),
            trials,
        }
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
