//! `make known-failures LANG=<language>`: writes
//! `runners/<language>/known-failures.json` from the last run's results
//! file (`PARITY_RESULTS`, default `target/parity/results.json`): existing
//! reasons kept, entries that pass now removed, new failures added with a
//! placeholder reason the suite refuses until a person replaces it
//! ([`known::update`] does it all, so the self-tests can run it on a
//! scratch root).

use std::process::ExitCode;

use parity::report::{known, results::Results};

fn main() -> ExitCode {
    parity::end("known-failures", 1, run().map(|()| ExitCode::SUCCESS))
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [language] = args.as_slice() else {
        return Err("usage: known-failures <language> (make known-failures LANG=go)".into());
    };
    let root = parity::repo_root();
    let manifests = parity::toolchain::manifest::read_all(&root)?;
    parity::toolchain::manifest::named(&manifests, language)?;
    let results_path = parity::config::results_file(&root);
    let results = Results::load(&results_path).map_err(|e| match results_path.exists() {
        true => e,
        false => format!("{e} (run make test first: every run writes it)"),
    })?;
    if !results.trials.iter().any(|e| &e.language == language) {
        return Err(format!(
            "{}: the last run did not run {language} (filter `{}`)",
            results_path.display(),
            results.run.filter
        ));
    }
    print!("{}", known::update(&root, language, &results)?);
    Ok(())
}
