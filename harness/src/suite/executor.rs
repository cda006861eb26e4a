//! What a run does besides a runner's stream ([`crate::session`]): a
//! language's demo and unit tests started as processes, and the demo's
//! fixtures written. It returns what it saw (a transcript, refusals, a
//! unit suite's output), never a verdict: [`crate::judge`] gives those.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Port;
use crate::config;
use crate::exec::{self, Stdin};
use crate::judge::demo::{BadConfig, Refusal, BAD_CONFIGS, SECOND_DEMO_CONFIG};
use crate::text::tail;

/// The most a demo may print before it is cut off: 1 MiB, a hundred times
/// the transcript.
const KEEP: usize = 1024 * 1024;

/// Where the demos' config and the transcript they must print live.
#[derive(Debug, Clone)]
pub struct Demo {
    /// The repository root: demos start here.
    pub root: PathBuf,
    /// The config every demo reads, relative to the root.
    pub config: PathBuf,
    /// The transcript every demo must print: the Rust demo's.
    pub transcript: PathBuf,
    /// How long a demo may run.
    pub deadline: Duration,
}

/// The configs the demo checks write, once per run: the bad ones and the
/// second config ([`SECOND_DEMO_CONFIG`]), paths relative to the root.
#[derive(Debug, Clone)]
pub struct Fixtures {
    /// Every demo must refuse these.
    pub bad: Vec<BadConfig>,
    /// Every demo must print the Rust demo's transcript of this one.
    pub second: PathBuf,
}

impl Demo {
    /// A port's demo on `config`, keeping `keep` bytes of each stream
    /// (public for the floor, which starts the same commands).
    pub fn command(&self, port: &Port, config: &Path, keep: usize) -> exec::Command {
        let mut argv = port.command(&port.demo);
        argv.push(config.to_string_lossy().into_owned());
        let label = format!("the {} demo", port.name);
        exec::Command {
            keep,
            ..exec::Command::new(label, argv, &self.root, self.deadline)
        }
    }

    /// Runs a port's demo on `config`: its output within `keep` bytes.
    fn start(
        &self,
        port: &Port,
        config: &Path,
        keep: usize,
    ) -> Result<(exec::Command, exec::Output), String> {
        let command = self.command(port, config, keep);
        let output = exec::run(&command, Stdin::Null)
            .map_err(|e| format!("{} could not be started: {e}", command.label))?;
        Ok((command, output))
    }

    /// Runs a prepared port's demo on `config` and returns its stdout,
    /// or why not.
    pub fn run(&self, port: &Port, config: &Path) -> Result<String, String> {
        let (command, output) = self.start(port, config, KEEP)?;
        if output.status.is_none() {
            return Err(format!(
                "{} did not finish within {} s (PARITY_TIMEOUT); its process group was killed",
                command.label,
                self.deadline.as_secs_f64()
            ));
        }
        if !output.success() {
            return Err(format!(
                "{} failed ({}):\n{}",
                command.label,
                output.describe(),
                tail(&output.stderr.text(), 30)
            ));
        }
        let stdout = output.stdout.whole().ok_or_else(|| {
            format!(
                "{} printed {} bytes, more than the {KEEP} a transcript may have",
                command.label,
                output.stdout.total()
            )
        })?;
        String::from_utf8(stdout)
            .map_err(|_| format!("{} printed something that is not UTF-8", command.label))
    }

    /// The committed transcript every demo must print on the shared config.
    pub fn committed(&self) -> Result<String, String> {
        std::fs::read_to_string(self.root.join(&self.transcript))
            .map_err(|e| format!("cannot read {}: {e}", self.transcript.display()))
    }

    /// Writes [`BAD_CONFIGS`] and [`SECOND_DEMO_CONFIG`] under the work
    /// folder, atomically; the missing bad one is made sure not to exist.
    pub fn write_fixtures(&self) -> Result<Fixtures, String> {
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
            let mut bad = Vec::new();
            for (number, (text, key)) in BAD_CONFIGS.into_iter().enumerate() {
                let path = write(format!("bad-{}.json", number + 1), text)?;
                bad.push(BadConfig { path, text, key });
            }
            let second = write("second.json".into(), Some(SECOND_DEMO_CONFIG))?;
            Ok(Fixtures { bad, second })
        };
        written().map_err(|e| format!("cannot write the demo configs under {}: {e}", dir.display()))
    }

    /// How a prepared port's demo refuses each config. They all start
    /// at once: each is mostly a runtime starting up, so side by side they
    /// cost about one start-up of wall time.
    pub fn refusals(&self, port: &Port, configs: &[BadConfig]) -> Result<Vec<Refusal>, String> {
        let refuse = |config: &BadConfig| -> Result<Refusal, String> {
            let (_, output) = self.start(port, &config.path, exec::KEEP)?;
            let stderr = output.stderr.text();
            Ok(Refusal {
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
}

/// The command of a language's unit tests (public for the floor, which
/// starts the same commands).
pub fn unit_command(port: &Port, root: &Path, deadline: Duration) -> exec::Command {
    let label = format!("the {} unit tests", port.name);
    exec::Command::new(label, port.command(&port.unit.run), root, deadline)
}
