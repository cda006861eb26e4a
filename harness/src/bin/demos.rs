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
        match verdict {
            Verdict::Pass => println!("{:<12} same transcript", port.name),
            Verdict::Ignore(why) | Verdict::KnownFailure(why) => {
                println!("{:<12} skipped: {why}", port.name)
            }
            Verdict::Unsupported(_) => println!("{:<12} skipped: unsupported", port.name),
            Verdict::Fail(why) => {
                all_match = false;
                println!("{:<12} MISMATCH: {}", port.name, emit::text(&why));
            }
        }
    }
    Ok(ExitCode::from(u8::from(!all_match)))
}
