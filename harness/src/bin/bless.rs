//! `make bless`: computes `expect` with the Rust reference for every case
//! that lacks one (`--all`: for every case) and writes it into its file.
//! `make new-case NAME=...`: starts a case from a template (`--new NAME
//! [--file PATH]`). Neither runs in CI: expected values are reviewed by a
//! person, then committed. `--check` (`make lint`, CI too) only checks that
//! every case file is valid and in the canonical layout the tools write.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use parity::config::Settings;
use parity::suite::case_sources;
use parity::table;
use parity::table::bless::{self, Which};

fn main() -> ExitCode {
    parity::end("bless", 1, run().map(|()| ExitCode::SUCCESS))
}

const USAGE: &str = "usage: bless [--all] | bless --new NAME [--file PATH] | bless --check";
const IN_CI: &str = "blessing never runs in CI: bless on your machine, review the diff, commit it";

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let root = parity::repo_root();
    let sources = case_sources(&root, &Settings::from_env()?);
    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
    // `None`: `--check`, which CI runs too.
    let which = match args.as_slice() {
        ["--check"] => None,
        _ if in_ci => return Err(IN_CI.into()),
        ["--new", name] => return new_case(name, &root.join("cases/edges.json"), &sources),
        ["--new", name, "--file", file] => return new_case(name, &root.join(file), &sources),
        [] => Some(Which::Missing),
        ["--all"] => Some(Which::All),
        _ => return Err(USAGE.into()),
    };
    let (files, unreadable) = table::files(&sources);
    let mut problems: Vec<String> = unreadable.iter().map(ToString::to_string).collect();
    let mut total = 0;
    for file in &files {
        let Some(which) = which else {
            problems.extend(bless::check(file).err());
            continue;
        };
        match bless::bless_file(file, which) {
            Ok((names, _)) if !names.is_empty() => {
                total += names.len();
                println!("bless: {}: {}", display(file), names.join(", "));
            }
            Ok((_, true)) => {
                println!("bless: {}: laid out in the canonical layout", display(file));
            }
            Ok(_) => {}
            Err(e) => problems.push(e),
        }
    }
    if !problems.is_empty() {
        let problems = problems.join("\n");
        return Err(format!("the case files need work:\n{problems}"));
    }
    match which {
        None => {}
        Some(_) if total == 0 => {
            println!("bless: every case already has its expect (BLESS=all recomputes them all)")
        }
        Some(_) => println!("bless: {total} case(s) blessed from the Rust reference; review with `git diff cases/`, then `make test`"),
    }
    Ok(())
}

/// `bless --new`: a template case added to `file`, which a run must load.
fn new_case(name: &str, file: &Path, sources: &[PathBuf]) -> Result<(), String> {
    if let Some(reason) = table::unloaded(file, sources) {
        return Err(format!("{}: no run would load it: {reason}", display(file)));
    }
    let existing = table::load(sources).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        format!("fix the case table first:\n{}", lines.join("\n"))
    })?;
    bless::new_case(file, name, &existing)?;
    println!(
        "bless: added case `{name}` to {}: write its description, messages and failures, then `make bless`",
        display(file)
    );
    Ok(())
}

fn display(path: &Path) -> String {
    parity::text::relative(path, &parity::repo_root())
}
