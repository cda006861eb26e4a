//! The record of a run, made once from the trials' results: the commit,
//! the toolchains, the filter, and per trial its identity, verdict, state,
//! reason (its one line and its text, as `judge::emit` words it),
//! duration and fault. `results.json` (`target/parity/results.json`, or
//! `PARITY_RESULTS`) is its serde form, described by
//! `harness/results.schema.json`; the page, the Markdown summary, JUnit,
//! the diff against a base and the known-failure advice are drawn from it.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::trial::{Recorded, RowId, TrialId};
use crate::judge::{emit, Reason, Verdict};
use crate::text::{excerpt, first_line};
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

/// The most of one reason's text the record keeps: a runner that floods
/// its stderr cannot push the page or the file past its size.
const MAX_TEXT: usize = 20_000;

/// The whole record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Results {
    /// [`VERSION`].
    pub version: u32,
    /// The run besides its trials, its fields at the file's top level.
    #[serde(flatten)]
    pub run: RunRecord,
    /// One entry per trial that ran, in the page's order.
    pub trials: Vec<TrialResult>,
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
    /// Each language's toolchain, in the order of the page's columns.
    pub toolchains: Vec<Toolchain>,
    /// Every optional feature of the case format (`x-feature`): the
    /// language-by-feature matrix's columns. Empty in files written before
    /// features were.
    #[serde(default)]
    pub features: Vec<String>,
}

/// One language's toolchain version, as its own `--version` says it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Toolchain {
    /// The language, e.g. `go`: a column of the page.
    pub name: String,
    /// E.g. `go1.22.2 linux/amd64`; printed verbatim.
    pub version: String,
    /// The optional features its port plays (its manifest's `features`).
    #[serde(default)]
    pub features: Vec<String>,
}

/// One trial's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialResult {
    /// The language, e.g. `php`.
    pub language: String,
    /// The case or the trial kind (the fields `kind` and `case`).
    #[serde(flatten)]
    pub row: RowId,
    /// libtest's view.
    pub verdict: Outcome,
    /// What happened: the kind of the reason.
    pub state: State,
    /// The reason in one line; absent for a pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The reason in full (cut to 20,000 bytes); absent for a pass, and in
    /// files written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// For a trial failed by a runner's fault, the fault's kind
    /// ([`crate::fault::FaultKind::id`]: `timed_out`, `exited`, ..., or
    /// [`BUILD_FAILED`]), so a tool knows which fault it was without
    /// reading the prose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// The stderr log that fault names, relative to the repository root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// How long the trial waited and judged, in milliseconds.
    #[serde(default)]
    pub time_ms: u64,
}

/// How a trial ended, as libtest counts it; in the order of the page's
/// summary counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Passed.
    Pass,
    /// Failed.
    Fail,
    /// Not judged, with a reason (a missing toolchain).
    Ignored,
    /// Failed as the known-failures list expects.
    KnownFailure,
}

/// What a cell says happened, in one word the page, the results file and
/// the CI summary share; the results file writes it as its [`State::id`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Passed.
    Pass,
    /// Failed: the port's answer is wrong.
    WrongAnswer,
    /// Failed: the runner crashed, hung or printed garbage.
    RunnerFault,
    /// Not run: the toolchain is missing (a failure under strict).
    NotRun,
    /// Not run: the case uses a feature the port does not declare (a
    /// failure under strict).
    Unsupported,
    /// Failed as the known-failures list expects.
    KnownFailure,
    /// Listed as a known failure, but passes now.
    StaleKnownFailure,
    /// Not selected by the run's filter.
    NotSelected,
    /// The reference or the harness failed.
    HarnessFault,
    /// In a base results file, a state this harness does not know (a
    /// newer one's, or a hand-made one's), kept by name: it shows as a
    /// change, named, rather than vanishing.
    #[serde(untagged)]
    Unknown(String),
}

impl State {
    /// Every state this harness writes, in the order a legend lists them.
    pub const ALL: [State; 9] = [
        State::Pass,
        State::WrongAnswer,
        State::RunnerFault,
        State::NotRun,
        State::Unsupported,
        State::KnownFailure,
        State::StaleKnownFailure,
        State::HarnessFault,
        State::NotSelected,
    ];

    /// The id the results file and the page's `data-status` use (an
    /// unknown state's, `unknown`: its name is the base file's text).
    pub fn id(&self) -> &'static str {
        self.names().0
    }

    /// Its symbol and word: colour is never the only signal, and the
    /// Markdown matrix shows the symbol alone, so no two states share one
    /// (a stale known failure asks for a list to be refreshed, a harness
    /// fault for the harness to be fixed, a wrong answer for the port).
    pub fn word(&self) -> String {
        match self {
            State::Unknown(name) => format!("? unknown state {name:?}"),
            known => known.names().1.to_owned(),
        }
    }

    /// Its id and its word, side by side in one table.
    fn names(&self) -> (&'static str, &'static str) {
        match self {
            State::Pass => ("pass", "✓ pass"),
            State::WrongAnswer => ("wrong_answer", "✗ wrong answer"),
            State::RunnerFault => ("runner_fault", "⚠ runner fault"),
            State::NotRun => ("not_run", "– not run"),
            State::Unsupported => ("unsupported", "⊘ unsupported"),
            State::KnownFailure => ("known_failure", "! known failure"),
            State::StaleKnownFailure => ("stale_known_failure", "↻ stale known failure"),
            State::HarnessFault => ("harness_fault", "⊗ harness fault"),
            State::NotSelected => ("not_selected", "· not selected"),
            State::Unknown(_) => ("unknown", "? unknown state"),
        }
    }
}

/// What kind of failure a reason is: a wrong answer is the port's bug, a
/// runner fault the runner's (it crashed, hung, printed garbage or could
/// not be built), so a reader knows where to look before the details.
impl From<&Reason> for State {
    fn from(reason: &Reason) -> State {
        match reason {
            Reason::Mismatch { .. } | Reason::ErrorAnswer { .. } | Reason::Wrong(_) => {
                State::WrongAnswer
            }
            Reason::Fault { .. }
            | Reason::Runner { .. }
            | Reason::NotReady(NotReady::BuildFailed { .. }) => State::RunnerFault,
            Reason::NotReady(NotReady::Missing { .. }) => State::NotRun,
            Reason::StaleKnownFailure { .. } => State::StaleKnownFailure,
            Reason::Harness(_) => State::HarnessFault,
            Reason::Unsupported(_) => State::Unsupported,
        }
    }
}

impl TrialResult {
    /// A trial's result with its reason `text`, whose first line is its
    /// summary; no fault, no time.
    pub fn new(id: TrialId, verdict: Outcome, state: State, text: Option<String>) -> TrialResult {
        TrialResult {
            language: id.language.to_string(),
            row: id.row,
            verdict,
            state,
            summary: text.as_deref().map(|text| first_line(text).to_owned()),
            text,
            fault: None,
            log: None,
            time_ms: 0,
        }
    }

    /// The record of one finished trial: its reason worded once, by
    /// `judge::emit`, and the fault that failed it named (a runner's
    /// fault's kind and log, or a failed build, the language's fault and
    /// not its cases', which `make known-failures` must tell apart).
    fn of(Recorded { id, verdict, time }: &Recorded) -> TrialResult {
        let (outcome, state, text) = match verdict {
            Verdict::Pass => (Outcome::Pass, State::Pass, None),
            Verdict::Fail(reason) => (Outcome::Fail, reason.into(), Some(emit::text(reason))),
            Verdict::Ignore(why) => (Outcome::Ignored, State::NotRun, Some(why.clone())),
            Verdict::KnownFailure(why) => (
                Outcome::KnownFailure,
                State::KnownFailure,
                Some(why.clone()),
            ),
            Verdict::Unsupported(why) => {
                let text = Some(emit::unsupported_text(why));
                (Outcome::Ignored, State::Unsupported, text)
            }
        };
        let mut result = TrialResult::new(id.clone(), outcome, state, text);
        result.time_ms = u64::try_from(time.as_millis()).unwrap_or(u64::MAX);
        let Verdict::Fail(reason) = verdict else {
            return result;
        };
        result.summary = Some(first_line(&emit::summary(reason)).to_owned());
        result.text = result.text.map(|text| excerpt(&text, MAX_TEXT));
        (result.fault, result.log) = match reason {
            Reason::NotReady(NotReady::BuildFailed { .. }) => (Some(BUILD_FAILED.to_owned()), None),
            Reason::Fault { fault, .. } | Reason::Runner { fault, .. } => {
                let log = fault.log().map(|log| log.display().to_string());
                (Some(fault.kind.id().to_owned()), log)
            }
            _ => (None, None),
        };
        result
    }
}

impl RunRecord {
    /// The page's columns: the languages, in order.
    pub fn languages(&self) -> impl Iterator<Item = &str> {
        self.toolchains.iter().map(|t| t.name.as_str())
    }
}

impl Results {
    /// The record of a run: `records` in the page's order, `rows` by the
    /// languages of `run`; a record of neither is left out.
    pub fn new(run: RunRecord, rows: &[super::Row], records: &[Recorded]) -> Results {
        let by_id: HashMap<&TrialId, &Recorded> = records.iter().map(|r| (&r.id, r)).collect();
        let mut trials = Vec::new();
        for row in rows {
            for language in run.languages() {
                let id = TrialId {
                    language: language.into(),
                    row: row.id.clone(),
                };
                trials.extend(by_id.get(&id).map(|record| TrialResult::of(record)));
            }
        }
        Results {
            version: VERSION,
            run,
            trials,
        }
    }

    /// The trials by (row, language), for a matrix.
    pub fn cells(&self) -> HashMap<(&RowId, &str), &TrialResult> {
        self.trials
            .iter()
            .map(|t| ((&t.row, t.language.as_str()), t))
            .collect()
    }

    /// Writes the file atomically (a reader never sees half of it) as
    /// pretty JSON, creating its folder.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        super::write_json(path, self).map_err(|e| e.to_string())
    }

    /// Reads a results file; the error names the file and what is wrong
    /// (serde's message names the field, the line and the column).
    pub fn load(path: &Path) -> Result<Results, String> {
        let text = crate::files::read_regular(path, "a results file")
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
