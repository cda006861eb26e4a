//! `make demo`: runs the Rust demo, prints its transcript, then runs every
//! other language's demo whose toolchain is installed and says whether it
//! prints the same transcript byte for byte.

use std::path::Path;
use std::process::ExitCode;

use parity::judge::answers::not_ready;
use parity::judge::demo;
use parity::judge::{emit, Verdict};
use parity::suite::executor::DEMO_CONFIG;
use parity::suite::{Executor, Suite};

fn main() -> ExitCode {
    parity::end("demo", 1, run())
}

/// Fails (with why) only when the Rust demo could not give the transcript.
fn run() -> Result<ExitCode, String> {
    let executor = Executor::new(std::sync::Arc::new(Suite::from_env()?));
    let suite = &executor.suite;
    let reference = suite.reference();
    let rust = suite.ready(reference).map_err(|why| why.to_string())?;
    let config = Path::new(DEMO_CONFIG);
    let transcript = executor.run_demo(rust, config)?;
    println!("=== {} demo ===\n{transcript}", reference.name);
    let mut all_match = true;
    for port in suite.ports.iter().filter(|p| p.name != reference.name) {
        let verdict = match suite.ready(port) {
            Err(why) => not_ready(suite.settings.strict, why),
            Ok(language) => {
                let actual = executor.run_demo(language, config);
                demo::transcript("differs", &transcript, actual)
            }
        };
        let said = match &verdict {
            Verdict::Pass => "same transcript".to_owned(),
            Verdict::Ignore(why) | Verdict::KnownFailure(why) => format!("skipped: {why}"),
            Verdict::Unsupported(_) => "skipped: unsupported".to_owned(),
            Verdict::Fail(why) => format!("MISMATCH: {}", emit::text(why)),
        };
        all_match &= !matches!(verdict, Verdict::Fail(_));
        println!("{:<12} {said}", port.name);
    }
    Ok(ExitCode::from(u8::from(!all_match)))
}
