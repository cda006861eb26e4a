//! What a run does, as a type of its own over the catalog ([`Suite`]):
//! a language's runner stream ([`crate::session`], under `REPEAT`), the
//! shrinking of a generated scenario it got wrong, its demo and unit tests
//! started as processes, the demo's fixtures written, and what the run's
//! record is handed (the commit, the toolchains). It hands what it saw to
//! [`crate::judge`], whose pure functions give the verdicts.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libtest_mimic::Arguments;

use super::{repeat, Port, Suite};
use crate::config::{self, GENERATED_SEED};
use crate::differential::{self, Problem};
use crate::exec::{self, Stdin};
use crate::judge::demo::{self, Refusal, BAD_CONFIGS, SECOND_DEMO_CONFIG};
use crate::judge::{self, Reason, Verdict};
use crate::protocol::Request;
use crate::report::results::{RunRecord, Toolchain};
use crate::report::trial::Recorded;
use crate::report::{self, Report};
use crate::session::Answers;
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

/// What a runner's stream gave: the replies and the fault after them, the
/// requests whose reply changed between `REPEAT` runs, and the first wrong
/// generated scenario, shrunk, when the stream held them.
pub struct Ran {
    /// The first run's answers.
    pub answers: Answers,
    /// Per request, how its reply changed between runs.
    pub changed: Vec<Option<String>>,
    /// The generated scenarios' problems and the first wrong one shrunk.
    pub generated: Option<(Vec<Problem>, Option<String>)>,
}

impl Executor {
    /// The executor of a run of `suite`.
    pub fn new(suite: Arc<Suite>) -> Self {
        Executor {
            suite,
            fixtures: OnceLock::new(),
            second: OnceLock::new(),
        }
    }

    /// Sends `requests` (the table's cases, then `generated`'s, then any
    /// others) to a ready port's runner, `REPEAT` times; a generated
    /// scenario it gets wrong is shrunk (starting the runner again).
    pub fn stream(
        &self,
        port: &Port,
        requests: &[Request],
        generated: (usize, &[crate::table::Case]),
    ) -> Ran {
        let runner = self.suite.runner(port);
        // A known failure's fault restarts the runner but does not use
        // its fault budget (which guards against a broken runner).
        let expected = |case: &str| port.known.contains_key(case);
        let runs = self.suite.settings.repeat;
        let (answers, changed) = repeat::answers(&runner, requests, &expected, runs);
        let (from, cases) = generated;
        let generated = (!cases.is_empty()).then(|| {
            let replies = answers
                .replies
                .get(from..from + cases.len())
                .unwrap_or_default();
            let problems = differential::judge_all(&runner.contract, cases, replies);
            let shrunk = problems.iter().find(|p| !p.fault).map(|wrong| {
                let why = wrong.text.clone();
                let drawn = (GENERATED_SEED, differential::Draw::ALL);
                differential::shrink(&runner, drawn, wrong.index, why).report(&runner.command.label)
            });
            (problems, shrunk)
        });
        Ran {
            answers,
            changed,
            generated,
        }
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

    /// Runs a port's demo on `config`.
    fn start_demo(
        &self,
        port: &Port,
        config: &Path,
    ) -> Result<(exec::Command, exec::Output), String> {
        let command = self.demo_command(port, config);
        let output = exec::run(&command, Stdin::Null)
            .map_err(|e| format!("{} could not be started: {e}", command.label))?;
        Ok((command, output))
    }

    /// Runs a prepared port's demo on `config` and returns its stdout,
    /// or why not.
    pub fn run_demo(&self, port: &Port, config: &Path) -> Result<String, String> {
        let (command, output) = self.start_demo(port, config)?;
        let label = &command.label;
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
            let (_, output) = self.start_demo(port, path)?;
            let stderr = output.stderr.text();
            Ok(Refusal {
                path: path.clone(),
                code: output.status.and_then(|s| s.code()),
                first_line: stderr.lines().next().unwrap_or_default().to_owned(),
            })
        };
        std::thread::scope(|scope| {
            let running: Vec<_> = (configs.iter())
                .map(|config| scope.spawn(|| refuse(config)))
                .collect();
            let panicked = || Err("a demo thread panicked".to_owned());
            (running.into_iter())
                .map(|thread| thread.join().unwrap_or_else(|_| panicked()))
                .collect()
        })
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
        let manifests: Vec<_> = self
            .suite
            .ports
            .iter()
            .map(|p| p.manifest.clone())
            .collect();
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
        (self.suite.ports.iter())
            .map(|port| Toolchain {
                name: port.name.clone(),
                version: version(port),
                features: match port.reference {
                    true => self.suite.contract.features().into_iter().collect(),
                    false => port.features.clone(),
                },
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
