//! The languages the suite checks: one entry each says which tool it needs,
//! how to build it and how to start its runner and its demo. Adding a
//! language is adding an entry here (and its folder under `runners/`).

use std::path::{Path, PathBuf};

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
}

/// One build command.
#[derive(Debug, Clone)]
pub struct Step {
    /// The command line; never holds case data.
    pub argv: Vec<String>,
    /// Skip the step while this output is newer than this input (e.g.
    /// `npm ci` while `node_modules` is newer than the lockfile).
    pub unless_fresh: Option<(PathBuf, PathBuf)>,
}

impl Step {
    /// A step that always runs (the tool itself knows what is up to date).
    pub fn always(argv: Vec<String>) -> Self {
        Step {
            argv,
            unless_fresh: None,
        }
    }

    /// Whether the step can be skipped, judged from the repository root.
    pub fn is_fresh(&self, root: &Path) -> bool {
        let Some((output, input)) = &self.unless_fresh else {
            return false;
        };
        let modified = |path: &PathBuf| {
            std::fs::metadata(root.join(path))
                .and_then(|m| m.modified())
                .ok()
        };
        matches!((modified(output), modified(input)), (Some(out), Some(inp)) if out >= inp)
    }
}

/// A constant command line written as one string (never case data).
fn line(command: &str) -> Vec<String> {
    command.split_whitespace().map(str::to_owned).collect()
}

/// Where the parity suite keeps what it builds and logs for a language.
pub fn work_dir(name: &str) -> PathBuf {
    Path::new("target").join("parity").join(name)
}

/// The built-in languages, the reference first. `target` is cargo's target
/// folder, relative to the repository root or absolute.
pub fn builtin(target: &Path) -> Vec<Language> {
    let release = |bin: &str| {
        target
            .join("release")
            .join(bin)
            .to_string_lossy()
            .into_owned()
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
        },
        Language {
            name: "go".into(),
            probe: line("go version"),
            install_hint: "install Go 1.22 or newer (https://go.dev/dl/)".into(),
            build: vec![Step::always(line(
                "go -C runners/go build -o ../../target/parity/go/ ./cmd/runner ./cmd/demo",
            ))],
            runner: line("target/parity/go/runner"),
            demo: line("target/parity/go/demo"),
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
        },
        Language {
            name: "typescript".into(),
            probe: line("node --version"),
            install_hint: "install Node.js 20 or newer with npm".into(),
            build: vec![
                Step {
                    argv: line("npm ci --prefix runners/typescript --no-audit --no-fund"),
                    // npm writes this file last; newer than the lockfile means installed.
                    unless_fresh: Some((
                        "runners/typescript/node_modules/.package-lock.json".into(),
                        "runners/typescript/package-lock.json".into(),
                    )),
                },
                Step::always(line(
                    "node runners/typescript/node_modules/typescript/bin/tsc -p runners/typescript",
                )),
            ],
            runner: line("node runners/typescript/dist/runner.js"),
            demo: line("node runners/typescript/dist/demo.js"),
        },
    ]
}
