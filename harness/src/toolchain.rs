//! The languages the suite checks: one entry each says which tool it needs,
//! how to build it and how to start its runner and its demo; and getting a
//! language ready (probe, build), each step a child with a deadline.
//! Adding a language is adding an entry here (and its folder under
//! `runners/`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::exec::{self, Stdin};
use crate::text::tail;

/// One implementation of the practice and how to drive it.
#[derive(Debug, Clone)]
pub struct Language {
    /// Name in trial paths and messages, e.g. `go`.
    pub name: String,
    /// A command that succeeds when the toolchain is installed.
    pub probe: Vec<String>,
    /// What to install when the probe cannot run.
    pub install_hint: String,
    /// Run in order from the repository root before the runner starts.
    pub build: Vec<Step>,
    /// The runner's command line; a relative program path is taken from the
    /// repository root.
    pub runner: Vec<String>,
    /// The demo's command line; the shared config path is appended.
    pub demo: Vec<String>,
    /// The port's own tests, run with the language's standard tool; they
    /// check the idioms the table cannot see (the language notes of
    /// SPEC.md). Exit 0 is a pass.
    pub unit: Vec<String>,
}

/// One build command.
#[derive(Debug, Clone)]
pub struct Step {
    /// The command line; never holds case data.
    pub argv: Vec<String>,
    /// Skip the step while it is fresh: see [`Freshness`].
    pub unless_fresh: Option<Freshness>,
}

/// When a step's last success still stands, Make-style: its stamp (written
/// by the harness after the step succeeded) is newer than every input, and
/// every input exists (a deleted output is an input that is gone).
#[derive(Debug, Clone)]
pub struct Freshness {
    /// Written after the step succeeds, relative to the repository root.
    pub stamp: PathBuf,
    /// Files or folders (every file below counts) the step depends on.
    pub inputs: Vec<PathBuf>,
}

impl Step {
    /// A step that always runs (the tool itself knows what is up to date).
    pub fn always(argv: Vec<String>) -> Self {
        Step {
            argv,
            unless_fresh: None,
        }
    }

    /// A step skipped while `stamp` is newer than all of `inputs`.
    pub fn unless_fresh(argv: Vec<String>, stamp: &str, inputs: &[&str]) -> Self {
        Step {
            argv,
            unless_fresh: Some(Freshness {
                stamp: stamp.into(),
                inputs: inputs.iter().map(PathBuf::from).collect(),
            }),
        }
    }

    /// Whether the step can be skipped, judged from the repository root.
    pub fn is_fresh(&self, root: &Path) -> bool {
        let Some(freshness) = &self.unless_fresh else {
            return false;
        };
        let Some(stamp) = newest(&root.join(&freshness.stamp)) else {
            return false;
        };
        freshness
            .inputs
            .iter()
            .all(|input| newest(&root.join(input)).is_some_and(|modified| modified <= stamp))
    }

    /// Records a success, so that the step is skipped until an input changes.
    pub fn mark_done(&self, root: &Path) -> std::io::Result<()> {
        let Some(freshness) = &self.unless_fresh else {
            return Ok(());
        };
        let stamp = root.join(&freshness.stamp);
        if let Some(parent) = stamp.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(stamp, self.argv.join(" "))
    }
}

/// The newest modification time of a file, or of any file below a folder;
/// `None` when the path does not exist.
fn newest(path: &Path) -> Option<std::time::SystemTime> {
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_dir() {
        return metadata.modified().ok();
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(|entry| entry.ok().and_then(|e| newest(&e.path())))
        .max()
        .or_else(|| metadata.modified().ok())
}

/// A constant command line written as one string (never case data).
fn line(command: &str) -> Vec<String> {
    command.split_whitespace().map(str::to_owned).collect()
}

/// The built-in languages, the reference first. `target` is cargo's target
/// folder, relative to the repository root or absolute: what the harness
/// builds and stamps goes under it (`CARGO_TARGET_DIR` moves it all).
pub fn builtin(target: &Path) -> Vec<Language> {
    let under = |path: &str| target.join(path).to_string_lossy().into_owned();
    let release = |bin: &str| under(&format!("release/{bin}"));
    // `go -C` runs in runners/go, so the output folder must not be relative.
    let go_out = {
        let out = target.join("parity/go");
        let out = if out.is_absolute() {
            out
        } else {
            Path::new("../..").join(out)
        };
        format!("{}/", out.display())
    };
    vec![
        Language {
            name: "rust".into(),
            probe: line("cargo --version"),
            install_hint: "install Rust with rustup (https://rustup.rs)".into(),
            build: vec![Step::always(line(
                "cargo build --quiet --release --package outbox-runner --bins",
            ))],
            runner: vec![release("outbox-runner")],
            demo: vec![release("outbox-demo")],
            // Every Rust test of the workspace: the reference's and the
            // runner's, and the harness's own self-tests, so that the filter
            // `patterns/enterprise/outbox/practice` selects everything.
            unit: line("cargo test --quiet --workspace"),
        },
        Language {
            name: "go".into(),
            probe: line("go version"),
            install_hint: "install Go 1.22 or newer (https://go.dev/dl/)".into(),
            build: vec![Step::always(
                ["go", "-C", "runners/go", "build", "-o", &go_out]
                    .into_iter()
                    .map(str::to_owned)
                    .chain(line("./cmd/runner ./cmd/demo"))
                    .collect(),
            )],
            runner: vec![under("parity/go/runner")],
            demo: vec![under("parity/go/demo")],
            unit: line("go -C runners/go test ./..."),
        },
        Language {
            name: "python".into(),
            probe: line("python3 --version"),
            install_hint: "install Python 3.11 or newer".into(),
            build: Vec::new(),
            // -S -E: nothing from site-packages or the environment is needed,
            // and skipping them halves the start-up time.
            runner: line("python3 -S -E runners/python/runner.py"),
            demo: line("python3 -S -E runners/python/demo.py"),
            unit: line("python3 -S -E -m unittest discover -s runners/python/tests -t runners/python"),
        },
        Language {
            name: "php".into(),
            probe: line("php --version"),
            install_hint: "install PHP 8.2 or newer (Debian: apt-get install php-cli)".into(),
            build: Vec::new(),
            // -n: no php.ini, nothing from it is needed. display_errors on the
            // command line too, so even a parse error stays off stdout.
            runner: line("php -n -d display_errors=stderr runners/php/runner.php"),
            demo: line("php -n -d display_errors=stderr runners/php/demo.php"),
            unit: line("php -n -d display_errors=stderr runners/php/tests/run.php"),
        },
        Language {
            name: "typescript".into(),
            probe: line("node --version"),
            install_hint: "install Node.js 20 or newer with npm".into(),
            build: vec![
                Step::unless_fresh(
                    line("npm ci --prefix runners/typescript --no-audit --no-fund"),
                    &under("parity/typescript/npm-ci.stamp"),
                    &[
                        "runners/typescript/package-lock.json",
                        "runners/typescript/node_modules/.package-lock.json",
                    ],
                ),
                // tsc's start-up alone takes a second: skip it while nothing changed.
                Step::unless_fresh(
                    line("node runners/typescript/node_modules/typescript/bin/tsc -p runners/typescript"),
                    &under("parity/typescript/tsc.stamp"),
                    &[
                        "runners/typescript/src",
                        "runners/typescript/tsconfig.json",
                        "runners/typescript/node_modules/.package-lock.json",
                        "runners/typescript/dist/runner.js",
                        "runners/typescript/dist/demo.js",
                        "runners/typescript/dist/test/outbox.test.js",
                    ],
                ),
            ],
            runner: line("node runners/typescript/dist/runner.js"),
            demo: line("node runners/typescript/dist/demo.js"),
            unit: line("node --test runners/typescript/dist/test/outbox.test.js"),
        },
    ]
}

/// Why a language cannot run: never a pass, so a caller cannot mistake it
/// for one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotReady {
    /// Its toolchain is not installed: the probe could not run.
    Missing {
        /// The language.
        language: String,
        /// The probe's command line and what went wrong.
        probe: String,
        /// What to install.
        hint: String,
    },
    /// A build step failed or ran out of time.
    BuildFailed {
        /// The language.
        language: String,
        /// The step's command line.
        step: String,
        /// How it ended and the tail of what it printed.
        output: String,
    },
}

impl fmt::Display for NotReady {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotReady::Missing {
                language,
                probe,
                hint,
            } => write!(f, "{language} toolchain not available ({probe}); {hint}"),
            NotReady::BuildFailed {
                language,
                step,
                output,
            } => write!(f, "building {language} failed: `{step}` {output}"),
        }
    }
}

impl Language {
    /// Probes the toolchain, then runs the build steps that are not fresh,
    /// each from `root` within `deadline`.
    pub fn prepare(&self, root: &Path, deadline: Duration) -> Result<(), NotReady> {
        let command = |argv: &[String]| exec::Command {
            label: format!("`{}`", argv.join(" ")),
            argv: argv.to_vec(),
            dir: root.to_path_buf(),
            deadline,
            keep: exec::KEEP,
        };
        let probe = exec::run(&command(&self.probe), Stdin::Null);
        let missing = match probe {
            Ok(output) if output.success() => None,
            Ok(output) => Some(format!(
                "{}: {}",
                output.describe(),
                output.stderr.text().trim()
            )),
            Err(e) => Some(e.to_string()),
        };
        if let Some(why) = missing {
            return Err(NotReady::Missing {
                language: self.name.clone(),
                probe: format!("`{}`: {why}", self.probe.join(" ")),
                hint: self.install_hint.clone(),
            });
        }
        for step in &self.build {
            if step.is_fresh(root) {
                continue;
            }
            let failure = match exec::run(&command(&step.argv), Stdin::Null) {
                Ok(output) if output.success() => {
                    if let Err(e) = step.mark_done(root) {
                        eprintln!(
                            "parity: cannot record that `{}` succeeded: {e}",
                            step.argv.join(" ")
                        );
                    }
                    continue;
                }
                Ok(output) if output.status.is_none() => format!(
                    "(did not finish within {} s, PARITY_BUILD_TIMEOUT; its process group was killed):\n{}",
                    deadline.as_secs_f64(),
                    tail(&both(&output), 60)
                ),
                Ok(output) => format!("({}):\n{}", output.describe(), tail(&both(&output), 60)),
                Err(e) => format!("(could not start: {e})"),
            };
            return Err(NotReady::BuildFailed {
                language: self.name.clone(),
                step: step.argv.join(" "),
                output: failure,
            });
        }
        Ok(())
    }
}

/// A build's stdout, then its stderr.
fn both(output: &exec::Output) -> String {
    let mut text = output.stdout.text();
    text.push_str(&output.stderr.text());
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_harness_builds_goes_under_the_target_folder() {
        for target in ["/elsewhere/target", "relative/target"] {
            let languages = builtin(Path::new(target));
            let go = &languages[1];
            assert_eq!(go.runner, [format!("{target}/parity/go/runner")]);
            let out = &go.build[0].argv;
            let out = &out[out.iter().position(|a| a == "-o").unwrap() + 1];
            let seen_from_the_root = Path::new("runners/go").join(out);
            assert!(
                seen_from_the_root.ends_with(format!("{target}/parity/go"))
                    || out == &format!("{target}/parity/go/"),
                "{out}"
            );
            for step in &languages[4].build {
                let stamp = &step.unless_fresh.as_ref().unwrap().stamp;
                assert!(stamp.starts_with(target), "{}", stamp.display());
            }
            assert!(languages[0].runner[0].starts_with(target));
        }
    }

    #[test]
    fn a_step_is_fresh_only_after_success_and_until_an_input_changes() {
        let root = crate::config::scratch_dir(&crate::repo_root(), "freshness");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.txt"), "a").unwrap();
        let step = Step::unless_fresh(line("true"), "out/stamp", &["src", "gone.txt"]);
        assert!(!step.is_fresh(&root), "no stamp yet");
        step.mark_done(&root).unwrap();
        assert!(!step.is_fresh(&root), "an input is missing");
        // Times set, not waited for: a sleep would assume the clock and the
        // file system's granularity.
        let at = |path: &str, second: u64| {
            let file = std::fs::File::options()
                .write(true)
                .open(root.join(path))
                .unwrap();
            let time =
                std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000 + second);
            file.set_modified(time).unwrap();
        };
        std::fs::write(root.join("gone.txt"), "here").unwrap();
        step.mark_done(&root).unwrap();
        at("src/a.txt", 0);
        at("gone.txt", 0);
        at("out/stamp", 1);
        assert!(step.is_fresh(&root));
        std::fs::write(root.join("src/a.txt"), "changed").unwrap();
        at("src/a.txt", 2);
        assert!(!step.is_fresh(&root), "an input below a folder changed");
    }
}
