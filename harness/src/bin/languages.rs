//! What the tools outside the harness (the Makefile, .ci/setup, the
//! workflows) need from the language manifests (`runners/*/language.toml`),
//! so that none of them keeps a list of languages of its own:
//!
//! * `languages prefix`: what every trial's name starts with (make mutants
//!   names trials with it);
//! * `languages matrix`: the CI matrix, one line of JSON for `fromJSON`
//!   (`make languages`), each language with the optional features its port
//!   plays; and on stderr the language-by-feature matrix, for people;
//! * `languages lint [NAME...]`: runs each language's lint lines (make lint);
//! * `languages mutation-tools NAME...`: the Makefile targets that install
//!   the mutation tools of those languages (make mutants);
//! * `languages mutants [NAME...]`: each language's `[mutants]` table, one
//!   line of JSON a language (harness/mutants/mutants.py);
//! * `languages setup`: the setup's packages, version floors and last
//!   steps, one tab-separated line each (.ci/setup).
//!
//! A bad manifest is an error naming its file and field, exit 2.

use std::process::ExitCode;

use parity::contract::{Contract, SCHEMA};
use parity::exec::{self, Stdin};
use parity::toolchain::manifest::{self, Manifest};

fn main() -> ExitCode {
    parity::end("languages", 2, run())
}

fn run() -> Result<ExitCode, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = parity::repo_root();
    let manifests = manifest::read_all(&root)?;
    let (command, names) = args
        .split_first()
        .ok_or("usage: languages prefix|matrix|lint|mutation-tools|mutants|setup [NAME...]")?;
    let chosen = choose(&manifests, names)?;
    match command.as_str() {
        "prefix" => println!("{}", parity::config::PREFIX),
        "matrix" => {
            let contract = Contract::load(&root).map_err(|e| format!("{SCHEMA}: {e}"))?;
            let all = &contract.features();
            manifest::check_features(&manifests, all)?;
            let plays = |m: &Manifest| Vec::from_iter(all.iter().filter(|f| m.plays(f)));
            let row = |m: &&Manifest| {
                let (language, toolchain) = (&m.name, &m.setup.toolchain);
                serde_json::json!({"language": language, "toolchain": toolchain, "features": plays(m)})
            };
            println!("{}", serde_json::Value::from_iter(chosen.iter().map(row)));
            eprintln!("the language-by-feature matrix (x-feature in {SCHEMA}; each manifest's `features`):");
            let header: String = all.iter().map(|f| format!("{f:<14}")).collect();
            let none = match all.is_empty() {
                true => "(no optional feature yet: every case is core)",
                false => "",
            };
            eprintln!("  {:<12}{header}{none}", "language");
            for m in &chosen {
                let mark = |f| if m.plays(f) { "✓" } else { "⊘" };
                let cells: String = all.iter().map(|f| format!("{:<14}", mark(f))).collect();
                eprintln!("  {:<12}{cells}", m.name);
            }
        }
        "mutation-tools" => {
            let tools = chosen
                .iter()
                .map(|m| format!("mutants-tool-{}", m.mutants.tool));
            let tools = std::collections::BTreeSet::from_iter(tools);
            println!("{}", Vec::from_iter(tools).join(" "));
        }
        "mutants" => {
            for m in &chosen {
                let mut row = serde_json::to_value(&m.mutants).map_err(|e| e.to_string())?;
                row["name"] = m.name.clone().into();
                println!("{row}");
            }
        }
        "setup" => {
            for m in &chosen {
                for apt in &m.setup.apt {
                    println!("apt\t{}\t{}", apt.command, apt.package);
                }
                for floor in &m.setup.versions {
                    println!(
                        "version\t{}\t{}\t{}\t{}",
                        floor.tool, floor.version, floor.at_least, floor.hint
                    );
                }
                for line in &m.setup.after {
                    println!("after\t{}\t{line}", m.name);
                }
            }
        }
        "lint" => return Ok(lint(&root, &chosen)),
        other => return Err(format!("unknown command `{other}`")),
    }
    Ok(ExitCode::SUCCESS)
}

/// The manifests named (all when none is), or an error naming the unknown.
fn choose<'a>(manifests: &'a [Manifest], names: &[String]) -> Result<Vec<&'a Manifest>, String> {
    match names {
        [] => Ok(manifests.iter().collect()),
        names => names
            .iter()
            .map(|n| manifest::named(manifests, n))
            .collect(),
    }
}

/// Runs every lint line of the chosen languages with `sh -c` from the root,
/// each within `PARITY_BUILD_TIMEOUT` (default 600 s); the first that fails
/// stops the lint with its output.
fn lint(root: &std::path::Path, chosen: &[&Manifest]) -> ExitCode {
    let deadline = (parity::config::Settings::from_env().unwrap_or_default()).build_timeout;
    for m in chosen {
        for line in &m.lint {
            println!("[{}] {line}", m.name);
            let label = format!("{}'s lint `{line}`", m.name);
            let argv = vec!["sh".into(), "-c".into(), line.clone()];
            let command = exec::Command::new(label, argv, root, deadline);
            let failed = match exec::run(&command, Stdin::Null) {
                Ok(output) => {
                    print!("{}", output.stdout.text());
                    eprint!("{}", output.stderr.text());
                    (!output.success()).then(|| format!("failed ({})", output.describe()))
                }
                Err(e) => Some(format!("could not start: {e}")),
            };
            if let Some(why) = failed {
                eprintln!("lint: {} {why}", command.label);
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
