//! What a run does, as a type of its own over the catalog ([`Suite`]):
//! a language's runner stream ([`crate::session`], under `REPEAT`), the
//! shrinking of a generated scenario it got wrong, its demo and unit tests
//! started as processes, the demo's fixtures written, and what the run's
//! record is handed (the commit, the toolchains). It hands what it saw to
//! [`crate::judge`], whose pure functions give the verdicts.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libtest_mimic::Arguments;

use super::{repeat, Port, Suite};
use crate::config::{self, Kind, GENERATED_SEED};
use crate::differential;
use crate::exec::{self, Stdin};
use crate::judge::demo::{self, Refusal, BAD_CONFIGS, SECOND_DEMO_CONFIG};
use crate::judge::{self, answers, Reason, Verdict};
use crate::protocol::{self, Reply, Request};
use crate::report::results::{RunRecord, Toolchain};
use crate::report::trial::{Recorded, RowId};
use crate::report::{self, Report};
use crate::session::{Answers, Session};
use crate::table::Case;
use crate::text::tail;

/// The most a demo may print before it is cut off: 1 MiB, a hundred times
/// the transcript.
const KEEP: usize = 1024 * 1024;

/// The config every demo reads, relative to the root.
pub const DEMO_CONFIG: &str = "runners/demo.json";
/// The transcript every demo must print on [`DEMO_CONFIG`]: the Rust demo's.
pub const TRANSCRIPT: &str = "runners/demo.transcript.txt";

/// The configs the demo checks write, once per run: the bad ones and the
/// second config ([`SECOND_DEMO_CONFIG`]), paths relative to the root.
#[derive(Debug, Clone)]
pub struct Fixtures {
    /// Every demo must refuse these: [`BAD_CONFIGS`], in order.
    pub bad: Vec<PathBuf>,
    /// Every demo must print the Rust demo's transcript of this one.
    pub second: PathBuf,
}

/// The run's executor: the catalog it runs, and what it makes once for
/// every language (the demo's fixtures, the Rust demo's second transcript).
#[derive(Debug)]
pub struct Executor {
    /// What the run knows.
    pub suite: Arc<Suite>,
    /// The demo's fixtures, written once for all languages.
    fixtures: OnceLock<Result<Fixtures, String>>,
    /// The second demo config's path and the Rust demo's transcript of it.
    second: OnceLock<Result<(PathBuf, String), String>>,
}

/// What a language's runner stream is made of, in the order it is sent.
struct Stream<'a> {
    /// The selected cases its port supports.
    table: Vec<&'a Case>,
    /// Empty when the reference could not make them (the trial
    /// says why).
    generated: &'a [Case],
    /// Whether the protocol's refusals end it.
    refusals: bool,
}

impl Stream<'_> {
    /// Every request of the stream, in the order it is sent; none when
    /// there is nothing to send, so no runner need start.
    fn requests(&self) -> Vec<Request> {
        let mut requests = Request::cases(self.table.iter().copied().chain(self.generated));
        if self.refusals {
            requests.extend(protocol::refusal_requests());
        }
        requests
    }
}

/// The verdicts of one runner stream, by row: the table's cases, the
/// generated scenarios, the protocol's refusals.
pub(super) type Run = HashMap<RowId, Verdict>;

impl Executor {
    /// The executor of a run of `suite`.
    pub fn new(suite: Arc<Suite>) -> Self {
        Executor {
            suite,
            fixtures: OnceLock::new(),
            second: OnceLock::new(),
        }
    }

    /// The verdicts of a port's selected cases, scenarios and refusals,
    /// from one runner stream; or, when none is needed or the language is
    /// not ready, without starting the runner. A case the port does not
    /// support is not sent: its verdict says so.
    pub(super) fn run(&self, port: &Port, selection: &HashSet<RowId>) -> Run {
        let (suite, mut run, mut table) = (&self.suite, Run::new(), Vec::new());
        let strict = suite.settings.strict;
        let has = |row: RowId| selection.contains(&row);
        let named = |case: &&Case| has(RowId::Case(case.name.clone()));
        for case in suite.cases.iter().filter(named) {
            // The first feature it uses that the port does not play.
            match case.features.iter().find(|f| !port.plays(f)) {
                Some(feature) => {
                    let verdict = answers::unsupported(strict, &port.name, case, feature);
                    run.insert(RowId::Case(case.name.clone()), verdict);
                }
                None => table.push(case),
            }
        }
        let stream = Stream {
            table,
            generated: match has(RowId::Kind(Kind::Generated)) {
                true => suite.generated_cases(port).unwrap_or_default(),
                false => &[],
            },
            refusals: has(RowId::Kind(Kind::Protocol)),
        };
        let requests = stream.requests();
        if requests.is_empty() {
            return run;
        }
        match suite.ready(port) {
            Ok(port) => run.extend(self.stream(port, &stream, &requests)),
            // Every selected row; the checks besides the stream find the
            // same themselves.
            Err(why) => run.extend(
                (selection.iter()).map(|row| (row.clone(), answers::not_ready(strict, why))),
            ),
        }
        run
    }

    /// Sends `stream` (its `requests`) to a ready port's runner, `REPEAT`
    /// times, and judges each part of its answers with [`crate::judge`]; a
    /// generated scenario it gets wrong is shrunk (starting the runner again).
    fn stream(&self, port: &Port, stream: &Stream, requests: &[Request]) -> Run {
        let runner = self.suite.runner(port);
        // A known failure's fault restarts the runner but does not use
        // its fault budget (which guards against a broken runner).
        let expected = |case: &str| port.known.contains_key(case);
        let runs = self.suite.settings.repeat;
        let answer = |chunk: &[Request]| runner.answer(chunk, &expected);
        let (Answers { mut replies, after }, changed) = repeat::answers(&answer, requests, runs);
        // The replies split back by the part of the stream they answer.
        let table = stream.table.len();
        let cases = table + stream.generated.len();
        let refusals = replies.split_off(cases);
        let generated = replies.split_off(table);
        let protocol = stream.refusals.then(|| {
            let verdict = answers::refusals(&runner.command.label, &refusals);
            let verdict = port.listed(Kind::Protocol.name(), verdict);
            repeat::changed(&changed[cases..], None).unwrap_or(verdict)
        });
        let context = (self.suite.root.as_path(), &*self.suite.contract);
        let verdicts = answers::answers(context, &port.name, &stream.table, replies);
        let cases_judged = stream.table.iter().zip(verdicts).zip(&changed[..table]);
        let mut run: Run = cases_judged
            .map(|((case, verdict), changed)| {
                // A changed answer fails whatever the known-failures list
                // says: a flaky port is not a known failure.
                let verdict = match changed {
                    Some(why) => Verdict::Fail(Reason::Wrong(why.clone())),
                    None => port.listed(&case.name, verdict),
                };
                (RowId::Case(case.name.clone()), verdict)
            })
            .collect();
        let generated = (!stream.generated.is_empty()).then(|| {
            let changed = repeat::changed(&changed[table..cases], Some(GENERATED_SEED));
            changed.unwrap_or_else(|| self.judge_generated(port, &runner, stream, &generated))
        });
        for (kind, verdict) in [(Kind::Generated, generated), (Kind::Protocol, protocol)] {
            run.extend(verdict.map(|v| (RowId::Kind(kind), v)));
        }
        // A fault after the last answer is the runner's: the generated
        // trial carries it when it ran, else the last case's, else (the
        // refusals alone in the stream) the protocol trial.
        if let Some(fault) = after {
            let carrier = match (stream.generated.is_empty(), stream.table.last()) {
                (false, _) => RowId::Kind(Kind::Generated),
                (true, Some(last)) => RowId::Case(last.name.clone()),
                (true, None) => RowId::Kind(Kind::Protocol),
            };
            if let Some(own) = run.remove(&carrier) {
                run.insert(carrier, answers::after_last_answer(fault, own));
            }
        }
        run
    }

    /// The generated scenarios' verdict from the runner's `replies`: the
    /// first wrong one shrunk, a fault shown as it is.
    fn judge_generated(
        &self,
        port: &Port,
        runner: &Session,
        stream: &Stream,
        replies: &[Reply],
    ) -> Verdict {
        let problems = differential::judge_all(&runner.contract, stream.generated, replies);
        let drawn = self.suite.generated_draw(port);
        let shrunk = problems.iter().find(|p| !p.fault).map(|wrong| {
            let why = wrong.text.clone();
            let shrunk = differential::shrink(runner, (GENERATED_SEED, drawn), wrong.index, why);
            shrunk.report(&runner.command.label)
        });
        let faults = problems.iter().filter(|p| p.fault);
        let faults = Vec::from_iter(faults.map(|p| (p.index, p.text.as_str())));
        let verdict = answers::generated(drawn.features, problems.len(), &faults, shrunk);
        port.listed(Kind::Generated.name(), verdict)
    }

    /// A port's demo on `config` (public for the floor, which starts the
    /// same commands).
    pub fn demo_command(&self, port: &Port, config: &Path) -> exec::Command {
        let mut argv = port.command(&port.demo);
        argv.push(config.to_string_lossy().into_owned());
        let label = format!("the {} demo", port.name);
        let suite = &self.suite;
        exec::Command {
            keep: KEEP,
            ..exec::Command::new(label, argv, &suite.root, suite.settings.timeout)
        }
    }

    /// Runs a port's demo on `config`: how it ended, and its label.
    fn start_demo(&self, port: &Port, config: &Path) -> Result<(exec::Output, String), String> {
        let command = self.demo_command(port, config);
        match exec::run(&command, Stdin::Null) {
            Ok(output) => Ok((output, command.label)),
            Err(e) => Err(format!("{} could not be started: {e}", command.label)),
        }
    }

    /// Runs a prepared port's demo on `config` and returns its stdout,
    /// or why not.
    pub fn run_demo(&self, port: &Port, config: &Path) -> Result<String, String> {
        let (output, label) = self.start_demo(port, config)?;
        if output.status.is_none() {
            return Err(format!(
                "{label} did not finish within {} s (PARITY_TIMEOUT); its process group was killed",
                self.suite.settings.timeout.as_secs_f64()
            ));
        }
        if !output.success() {
            let stderr = tail(&output.stderr.text(), 30);
            return Err(format!("{label} failed ({}):\n{stderr}", output.describe()));
        }
        let stdout = output.stdout.whole().ok_or_else(|| {
            let total = output.stdout.total();
            format!("{label} printed {total} bytes, more than the {KEEP} a transcript may have")
        })?;
        String::from_utf8(stdout)
            .map_err(|_| format!("{label} printed something that is not UTF-8"))
    }

    /// The demo's configs of this run, written once for all languages (and
    /// for the floor of `make bench`) under the work folder, atomically:
    /// [`BAD_CONFIGS`] (the missing one made sure not to exist) and
    /// [`SECOND_DEMO_CONFIG`].
    pub fn fixtures(&self) -> Result<&Fixtures, String> {
        let root = &self.suite.root;
        let dir = config::work_dir(root, "demo-configs");
        let dir = dir.strip_prefix(root).unwrap_or(&dir).to_path_buf();
        let write = |name: String, text: Option<&str>| -> std::io::Result<PathBuf> {
            let path = dir.join(name);
            let file = root.join(&path);
            match text {
                Some(text) => crate::atomic::write(&file, text.as_bytes())?,
                None => match std::fs::remove_file(file) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                },
            }
            Ok(path)
        };
        let written = || -> std::io::Result<Fixtures> {
            std::fs::create_dir_all(root.join(&dir))?;
            let bad = (1..).zip(BAD_CONFIGS);
            let bad = bad.map(|(number, (text, _))| write(format!("bad-{number}.json"), text));
            Ok(Fixtures {
                bad: bad.collect::<std::io::Result<_>>()?,
                second: write("second.json".into(), Some(SECOND_DEMO_CONFIG))?,
            })
        };
        let failed = |e| format!("cannot write the demo configs under {}: {e}", dir.display());
        let fixtures = self.fixtures.get_or_init(|| written().map_err(failed));
        fixtures.as_ref().map_err(String::clone)
    }

    /// How a prepared port's demo refuses each config. They all start
    /// at once: each is mostly a runtime starting up, so side by side they
    /// cost about one start-up of wall time.
    fn refusals(&self, port: &Port, configs: &[PathBuf]) -> Result<Vec<Refusal>, String> {
        let refuse = |path: &PathBuf| -> Result<Refusal, String> {
            let (output, _) = self.start_demo(port, path)?;
            let stderr = output.stderr.text();
            Ok(Refusal {
                path: path.clone(),
                code: output.status.and_then(|s| s.code()),
                first_line: stderr.lines().next().unwrap_or_default().to_owned(),
            })
        };
        exec::side_by_side(configs, refuse).into_iter().collect()
    }

    /// The command of a port's unit tests (public for the floor, which
    /// starts the same commands).
    pub fn unit_command(&self, port: &Port) -> exec::Command {
        let label = format!("the {} unit tests", port.name);
        let argv = port.command(&port.unit.run);
        let (root, deadline) = (&self.suite.root, self.suite.settings.build_timeout);
        exec::Command::new(label, argv, root, deadline)
    }

    /// Judges a prepared port's demo: the committed transcript on the
    /// shared config, and the Rust demo's own output on a second config.
    pub fn check_demo(&self, port: &Port) -> Verdict {
        let committed = match self.suite.transcript() {
            Err(why) => Verdict::Fail(Reason::Wrong(why)),
            Ok(expected) => {
                let differs = format!(
                    "the {} demo's transcript differs from the Rust demo's ({TRANSCRIPT})",
                    port.name
                );
                let actual = self.run_demo(port, Path::new(DEMO_CONFIG));
                demo::transcript(&differs, &expected, actual)
            }
        };
        match (committed, self.second_demo()) {
            (Verdict::Pass, Err(why)) => Verdict::Fail(Reason::Harness(why)),
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
            let suite = &self.suite;
            let rust = (suite.ready(suite.reference())).map_err(|why| why.to_string())?;
            let transcript = (self.run_demo(rust, &path))
                .map_err(|why| format!("the Rust demo on {}: {why}", path.display()))?;
            if self.suite.transcript().as_ref() == Ok(&transcript) {
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

    /// Runs a prepared port's own unit tests: they must exit 0 and their
    /// tool's final report must prove them.
    pub fn check_unit(&self, port: &Port) -> Verdict {
        let command = self.unit_command(port);
        let counter = port.unit.counter;
        let tally = move |lines| counter.map(|c| c.tally(lines)).unwrap_or_default();
        let ran = crate::exec::read_lines(&command, tally);
        let tests = format!("{} (`{}`)", command.label, command.argv.join(" "));
        judge::unit(tests, ran, &port.unit)
    }

    /// The report of a run: one row per case and per trial of each
    /// language (`generated`, `demo`, `demo_config`, `unit`), one column
    /// per language, and what each language supports. `args` are the run's
    /// libtest arguments: the page says which trials they chose.
    pub fn report(&self, records: &[Recorded], args: &Arguments) -> Report {
        let manifests = Vec::from_iter(self.suite.ports.iter().map(|p| p.manifest.clone()));
        let run = RunRecord {
            commit: self.commit(),
            date: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
            filter: crate::config::arguments(args),
            toolchains: self.toolchains(),
            features: self.suite.contract.features().into_iter().collect(),
        };
        let code = report::code::panel(&manifests, &self.suite.root, TRANSCRIPT);
        report::run::report(run, &self.suite.cases, records, code)
    }

    /// Each language's toolchain version: the one its preparation found,
    /// else what its probe says now.
    fn toolchains(&self) -> Vec<Toolchain> {
        let version = |port: &Port| match port.prepared() {
            Some(ready) => ready.version.clone(),
            None => (port.run_probe(&self.suite.root, Duration::from_secs(30)))
                .map_or_else(|why| why.to_string(), |ready| ready.version),
        };
        let features = self.suite.contract.features();
        (self.suite.ports.iter())
            .map(|port| Toolchain {
                name: port.name.clone(),
                version: version(port),
                features: Vec::from_iter(features.iter().filter(|f| port.plays(f)).cloned()),
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
            &self.suite.root,
            Duration::from_secs(30),
        );
        match exec::run(&command, Stdin::Null) {
            Ok(output) if output.success() => output.stdout.text().trim().to_owned(),
            Ok(output) => format!("not available ({})", output.describe()),
            Err(e) => format!("not available ({e})"),
        }
    }
}
