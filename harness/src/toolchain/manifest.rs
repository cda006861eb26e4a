//! A language is a folder: `runners/<language>/language.toml` says
//! everything the tools need to drive it (probe, build, runner, demo, unit
//! tests and their counter, lint, mutation testing, setup, the code panel),
//! so adding a language is adding a folder, and no list elsewhere can
//! forget one. Read with serde (`deny_unknown_fields`): a misspelt field is
//! an error naming the file and the field, never a silent default.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::unit::Counter;
use crate::text::relative;

/// Where the manifests live, relative to the repository root.
pub const RUNNERS: &str = "runners";
/// Each language folder's manifest file name.
pub const FILE: &str = "language.toml";

/// One language's manifest, as written but for its placeholders, which
/// [`read_all`] resolves. A test's fake starts from `Manifest::default()`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The name in trial paths; must be the folder's name, which is where
    /// its known failures and its files are found.
    pub name: String,
    /// Whether this is the reference: its demo's output is what the others'
    /// must match, and lists start with it. Exactly one manifest says so.
    #[serde(default)]
    pub reference: bool,
    /// Where the language stands in trial lists, the report and CI (lower
    /// first; ties by name): the order users see stays put as folders come.
    pub order: u32,
    /// A command that succeeds when the toolchain is installed; its first
    /// line is the version the report shows. When its last line is the
    /// absolute path of a file (an interpreter's `sys.executable`), that
    /// program replaces the probe's own program (`python3`) wherever the
    /// runner, demo and unit command lines start with it: a wrapper on PATH
    /// is resolved once per run, not paid on every start.
    pub probe: Vec<String>,
    /// What to install when the probe cannot run.
    pub install_hint: String,
    /// The optional features of the case format (`cases/schema.json`'s
    /// `x-feature`s) the port plays; a case that uses another is shown as
    /// unsupported, never passed. The reference plays every one, listed or
    /// not: every expected value is its own.
    #[serde(default)]
    pub features: Vec<String>,
    /// Run in order from the repository root before the runner starts.
    #[serde(default)]
    pub build: Vec<BuildStep>,
    /// The runner's command line; a relative program path is taken from the
    /// repository root.
    pub runner: Vec<String>,
    /// The demo's command line; the shared config path is appended.
    pub demo: Vec<String>,
    /// The port's own tests.
    pub unit: Unit,
    /// `make lint`'s commands for this language: shell lines run from the
    /// repository root, in order, the first failure stopping the lint.
    #[serde(default)]
    pub lint: Vec<String>,
    /// `make mutants`'s settings (read by harness/mutants/mutants.py).
    pub mutants: Mutants,
    /// `make setup`'s and CI's settings.
    pub setup: Setup,
    /// The code panel's files of each part of the practice.
    pub code: Code,
}

/// One build step. Its lists default to empty; so does `run`, which then
/// fails as an empty command line.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BuildStep {
    /// The command line; never holds case data.
    pub run: Vec<String>,
    /// Where the step's last success is recorded (the inputs' hash,
    /// relative to the repository root): with it the step is skipped while
    /// fresh (see [`BuildStep::is_fresh`]), so it needs both `inputs` and
    /// `outputs`; without, it always runs (the tool itself knows what is up
    /// to date).
    pub stamp: Option<String>,
    /// Everything the step reads, files or folders (every file below
    /// counts), judged by content: a source left out is an edit the step
    /// never sees.
    pub inputs: Vec<String>,
    /// Everything the step makes, each removed before the step runs again
    /// (see [`BuildStep::unstale`]). Every file an output is or holds is
    /// judged by length and modification time rather than read (the
    /// products are tens of megabytes): one that is gone, added or
    /// rewritten (by another build, or a mutant a killed make mutants left)
    /// makes the step run again.
    pub outputs: Vec<String>,
}

impl BuildStep {
    /// A step that always runs (the tool itself knows what is up to date).
    pub fn always(run: Vec<String>) -> Self {
        BuildStep {
            run,
            ..BuildStep::default()
        }
    }
}

/// The unit trial's command and how its tool counts tests.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    /// The port's own tests, run with the language's standard tool; they
    /// check the idioms the table cannot see (the language notes of
    /// SPEC.md). Exit 0 is a pass.
    pub run: Vec<String>,
    /// Which tool's count the output carries; without one only the exit
    /// code counts.
    pub counter: Option<Counter>,
    /// How many tests its tool's final report must count as passed, at the
    /// least: as many as the suite has, so a test file renamed out of the
    /// tool's sight (a Python module not named `test_*`, a Java class not
    /// named `*Test`, a Go file not named `*_test.go`) fails the trial
    /// instead of passing on the tests left. Lower it when removing a test.
    #[serde(default)]
    pub at_least: u64,
}

/// Mutation testing's settings: which tool, over which files; written as
/// they are read for mutants.py (`languages mutants`).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Mutants {
    /// `cargo-mutants`, `universalmutator`, `stryker` or `pitest`: the
    /// Makefile installs it, mutants.py drives it.
    pub tool: String,
    /// The folder the files are relative to.
    pub root: String,
    /// The files to mutate (the practice's parts, never the runner).
    pub files: Vec<String>,
    /// universalmutator's rules (its language name).
    pub rules: Option<String>,
    /// More arguments for the mutating tool.
    #[serde(default)]
    pub mutate_args: Vec<String>,
    /// A command that must succeed for a mutant to be judged (`{file}`:
    /// the mutated file).
    #[serde(default)]
    pub check: Vec<String>,
}

/// What `make setup` installs and checks, and how CI sets the toolchain up.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The toolchain CI sets up for this language's job (`rust`, `go`,
    /// `python`, `php`, `node`, `java`): two languages may share one.
    pub toolchain: String,
    /// Debian packages installed when their command is missing.
    #[serde(default)]
    pub apt: Vec<AptPackage>,
    /// Version floors checked after the install.
    #[serde(default)]
    pub versions: Vec<VersionFloor>,
    /// Shell lines run last (e.g. resolving dependencies while online).
    #[serde(default)]
    pub after: Vec<String>,
}

/// A Debian package and the command that says it is installed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AptPackage {
    /// Looked up on PATH.
    pub command: String,
    /// Installed with apt-get when the command is missing.
    pub package: String,
}

/// A tool's lowest usable version.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionFloor {
    /// The tool, as the message names it.
    pub tool: String,
    /// A shell line printing the installed version (e.g. `1.22.3`).
    pub version: String,
    /// The lowest version that works.
    pub at_least: String,
    /// What to do when it is older.
    pub hint: String,
}

/// The code panel's files: the same five parts in every language (named
/// fields, so that a part cannot be misspelt in one of them), the demo's
/// composition root and loop, and where the language's tab stands.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Code {
    message: Vec<String>,
    table: Vec<String>,
    broker: Vec<String>,
    relay: Vec<String>,
    consumer: Vec<String>,
    /// Where the language's tab stands (lower first): the practice's text
    /// shows PHP, then Go, Python and TypeScript.
    pub tab: u32,
    /// The demo's composition root and loop, shown after the parts.
    pub demo: Excerpt,
    /// Text that shows the idiom SPEC.md's language note names: the panel
    /// marks it wherever it occurs.
    #[serde(default)]
    pub idiom: Vec<String>,
}

/// A block of a file: from the first line holding `from` to the end of the
/// block that line opens.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Excerpt {
    /// Relative to the repository root.
    pub file: String,
    /// Text of the block's first line, e.g. `function main(`.
    pub from: String,
}

impl Code {
    /// The part names, in the panel's order: the message type, the outbox
    /// table, the broker and its failures, the relay, the idempotent
    /// consumer.
    pub const PARTS: [&'static str; 5] = ["message", "table", "broker", "relay", "consumer"];

    /// The files of `part` (one of [`Code::PARTS`]).
    pub fn files(&self, part: &str) -> &[String] {
        match part {
            "message" => &self.message,
            "table" => &self.table,
            "broker" => &self.broker,
            "relay" => &self.relay,
            "consumer" => &self.consumer,
            _ => &[],
        }
    }
}

/// Every language folder's manifest, parsed, checked and resolved, the
/// reference first, then by `order` and name; or what is wrong, after the file (or
/// folder) relative to `root`, naming the field where it can.
pub fn read_all(root: &Path) -> Result<Vec<Manifest>, String> {
    let runners = root.join(RUNNERS);
    let error = |file: &Path, problem: String| format!("{}: {problem}", relative(file, root));
    let entries = std::fs::read_dir(&runners).map_err(|e| error(&runners, e.to_string()))?;
    let mut folders = Vec::from_iter(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    folders.sort();
    let manifest = |folder: &PathBuf| read(root, folder).map_err(|e| error(&folder.join(FILE), e));
    let mut manifests = folders
        .iter()
        .map(manifest)
        .collect::<Result<Vec<_>, _>>()?;
    let references = manifests.iter().filter(|m| m.reference);
    let references = Vec::from_iter(references.map(|m| m.name.as_str()));
    if references.len() != 1 {
        let (count, names) = (references.len(), references.join(", "));
        let problem =
            format!("exactly one {FILE} must say `reference = true`; {count} do ({names})");
        return Err(error(&runners, problem));
    }
    manifests.sort_by_key(|m| (!m.reference, m.order, m.name.clone()));
    Ok(manifests)
}

/// Checks that each manifest's `features` are features the schema names
/// (`known`): an unknown one is a typo, which would leave a case
/// unsupported for no reason.
pub fn check_features(manifests: &[Manifest], known: &BTreeSet<String>) -> Result<(), String> {
    let unknown = |m: &Manifest| m.features.iter().find(|f| !known.contains(*f)).cloned();
    let Some((m, feature)) = manifests.iter().find_map(|m| Some((m, unknown(m)?))) else {
        return Ok(());
    };
    let known = Vec::from_iter(known.iter().map(String::as_str));
    Err(format!(
        "{RUNNERS}/{}/{FILE}: field `features`: {feature:?} is no feature of \
         cases/schema.json (its `x-feature`s: {})",
        m.name,
        if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        }
    ))
}

/// The manifest of language `name`, or an error naming the languages there
/// are (for a front given a language's name).
pub fn named<'a>(manifests: &'a [Manifest], name: &str) -> Result<&'a Manifest, String> {
    manifests.iter().find(|m| m.name == name).ok_or_else(|| {
        let known: Vec<&str> = manifests.iter().map(|m| m.name.as_str()).collect();
        format!("no language `{name}`; one of: {}", known.join(", "))
    })
}

/// The manifest of `folder`, parsed and checked; the problem names the
/// field.
fn read(root: &Path, folder: &Path) -> Result<Manifest, String> {
    let text = crate::files::read_regular(&folder.join(FILE), "a manifest")
        .map_err(|problem| format!("{problem}: every folder under {RUNNERS}/ is a language"))?;
    let mut value: toml::Value = toml::from_str(&text)
        .map_err(|e| e.to_string().trim_end().replace("TOML parse error ", ""))?;
    let folder_name = folder.file_name().unwrap_or_default().to_string_lossy();
    // `{target}` is cargo's target folder, absolute, so a tool started in
    // another folder finds it too; `{work}` the language's own folder there;
    // `{root}` the repository, links resolved, as a child's getcwd() says.
    let target = crate::config::target_dir(root);
    let work = crate::config::work_dir(root, &folder_name);
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let resolve = |word: &str| {
        word.replace("{target}", &target.to_string_lossy())
            .replace("{work}", &work.to_string_lossy())
            .replace("{root}", &real_root.to_string_lossy())
    };
    check_strings(&mut value, "", &resolve)?;
    // serde's error names the field's path (`in `unit.counter``).
    let manifest: Manifest =
        (value.try_into()).map_err(|e: toml::de::Error| e.to_string().trim_end().to_owned())?;
    if folder_name != manifest.name {
        return Err(format!(
            "field `name`: {:?} is not the folder's name, {folder_name:?} (trial names, known \
             failures and logs are found by it)",
            manifest.name,
        ));
    }
    manifest.check()?;
    manifest.check_code(root)?;
    Ok(manifest)
}

impl Manifest {
    /// Whether the port plays the optional `feature`: listed, or the
    /// reference, which plays every one.
    pub fn plays(&self, feature: &str) -> bool {
        self.reference || self.features.iter().any(|f| f == feature)
    }

    /// What serde cannot check: no empty command line, freshness only with
    /// a stamp, no output that holds a source.
    fn check(&self) -> Result<(), String> {
        let command = |field: &str, argv: &[String]| match argv.first() {
            Some(program) if !program.is_empty() => Ok(()),
            _ => Err(format!("field `{field}`: an empty command line")),
        };
        command("probe", &self.probe)?;
        command("runner", &self.runner)?;
        command("demo", &self.demo)?;
        command("unit.run", &self.unit.run)?;
        for (at, step) in self.build.iter().enumerate() {
            command(&format!("build[{at}].run"), &step.run)?;
            // A stale step's outputs are removed before it runs.
            let sources = Code::PARTS
                .iter()
                .flat_map(|p| self.code.files(p))
                .map(Path::new);
            let holds = |output: &&String| sources.clone().any(|source| source.starts_with(output));
            if let Some(output) = step.outputs.iter().find(holds) {
                return Err(format!(
                    "field `build[{at}].outputs`: {output:?} holds the port's sources (`code`), \
                     which would be removed with it before the step runs again"
                ));
            }
            let (rule, why) = match (&step.stamp, step.inputs.is_empty(), step.outputs.is_empty()) {
                (None, true, true) | (Some(_), false, false) => continue,
                (None, ..) => (
                    "",
                    "inputs or outputs without a `stamp` would never be used",
                ),
                (Some(_), true, _) => (
                    ".inputs",
                    "a step with a `stamp` needs every file it reads listed, or an edit never \
                     reruns it",
                ),
                (Some(_), false, true) => (
                    ".outputs",
                    "a step with a `stamp` needs every file or folder it makes listed, or a \
                     deleted product never reruns it",
                ),
            };
            return Err(format!("field `build[{at}]{rule}`: {why}"));
        }
        Ok(())
    }

    /// The code panel's files are read into the page CI uploads: each must
    /// be a relative path that stays inside the repository `root`, even
    /// through a symlink.
    fn check_code(&self, root: &Path) -> Result<(), String> {
        let real_root = root
            .canonicalize()
            .map_err(|e| format!("{}: {e}", root.display()))?;
        let demo = ("demo.file", std::slice::from_ref(&self.code.demo.file));
        let parts = Code::PARTS.map(|part| (part, self.code.files(part)));
        for (part, files) in parts.into_iter().chain([demo]) {
            for path in files {
                let field = format!("field `code.{part}`");
                // An absolute path starts with a root, which is not Normal.
                let outside = (Path::new(path).components())
                    .any(|c| !matches!(c, std::path::Component::Normal(_)));
                if outside {
                    return Err(format!(
                        "{field}: {path:?} must be relative to the repository, without `..` or `.`"
                    ));
                }
                if let Ok(real) = root.join(path).canonicalize() {
                    if !real.starts_with(&real_root) {
                        return Err(format!(
                            "{field}: {path:?} leads outside the repository, to {}",
                            real.display()
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Checks every string of `value` (`at`: its key path) and resolves its
/// placeholders, which mean the same in every field but `mutants.check`,
/// where `{file}` is mutants.py's. A control character is refused:
/// .ci/setup reads `languages setup` line by line and field by tab, so a
/// newline would run only a step's first line, and a command line is one
/// line in every message. So is a `{word}` the harness does not replace.
fn check_strings(
    value: &mut toml::Value,
    at: &str,
    resolve: &dyn Fn(&str) -> String,
) -> Result<(), String> {
    match value {
        toml::Value::String(text) => {
            if let Some(c) = text.chars().find(|c| c.is_control()) {
                return Err(format!(
                    "field `{at}`: holds the control character {c:?} (a string of a manifest is \
                     one line: write each command as an item of the list)"
                ));
            }
            if at.starts_with("mutants.check[") {
                return Ok(());
            }
            if let Some(word) = unknown_placeholder(text) {
                return Err(format!(
                    "field `{at}`: unknown placeholder {word} in {text:?} (known: {})",
                    PLACEHOLDERS.join(", ")
                ));
            }
            *text = resolve(text);
            Ok(())
        }
        toml::Value::Array(items) => (items.iter_mut().enumerate())
            .try_for_each(|(i, item)| check_strings(item, &format!("{at}[{i}]"), resolve)),
        toml::Value::Table(table) => table.iter_mut().try_for_each(|(key, item)| {
            let dot = if at.is_empty() { "" } else { "." };
            check_strings(item, &format!("{at}{dot}{key}"), resolve)
        }),
        _ => Ok(()),
    }
}

/// The placeholders a command line may hold, each a path: never case data.
const PLACEHOLDERS: [&str; 3] = ["{target}", "{work}", "{root}"];

/// The first `{word}` (lower case and `_`) of `text` that is not one of
/// [`PLACEHOLDERS`]; a shell's `${VAR}` is not one.
fn unknown_placeholder(text: &str) -> Option<String> {
    let pieces: Vec<&str> = text.split('{').collect();
    pieces.windows(2).find_map(|pair| {
        let (name, _) = pair[1].split_once('}')?;
        let word = format!("{{{name}}}");
        let is_word = !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_');
        (is_word && !pair[0].ends_with('$') && !PLACEHOLDERS.contains(&word.as_str()))
            .then_some(word)
    })
}

#[cfg(test)]
mod tests;
