//! What a run does besides a runner's stream ([`crate::session`]): a
//! language's demo and unit tests started as processes, and the demo's
//! fixtures written. It returns what it saw (a transcript, refusals, a
//! unit suite's output), never a verdict: [`crate::judge`] gives those.

use std::path::{Path, PathBuf};

use super::{Port, Suite};
use crate::config;
use crate::exec::{self, Stdin};
use crate::judge::demo::{Refusal, BAD_CONFIGS, SECOND_DEMO_CONFIG};
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

impl Suite {
    /// A port's demo on `config` (public for the floor, which starts the
    /// same commands).
    pub fn demo_command(&self, port: &Port, config: &Path) -> exec::Command {
        let mut argv = port.command(&port.demo);
        argv.push(config.to_string_lossy().into_owned());
        let label = format!("the {} demo", port.name);
        exec::Command {
            keep: KEEP,
            ..exec::Command::new(label, argv, &self.root, self.settings.timeout)
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
                self.settings.timeout.as_secs_f64()
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
        let dir = config::work_dir(&self.root, "demo-configs");
        let dir = dir.strip_prefix(&self.root).unwrap_or(&dir).to_path_buf();
        let write = |name: String, text: Option<&str>| -> std::io::Result<PathBuf> {
            let path = dir.join(name);
            let file = self.root.join(&path);
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
            std::fs::create_dir_all(self.root.join(&dir))?;
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
    pub(super) fn refusals(
        &self,
        port: &Port,
        configs: &[PathBuf],
    ) -> Result<Vec<Refusal>, String> {
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
        exec::Command::new(label, argv, &self.root, self.settings.build_timeout)
    }
}
