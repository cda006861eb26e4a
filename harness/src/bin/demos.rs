//! `make demo`: runs the Rust demo, prints its transcript, then runs every
//! other language's demo whose toolchain is installed and says whether it
//! prints the same transcript byte for byte.

use std::process::ExitCode;

use parity::judge::answers::not_ready;
use parity::judge::demo::{self, Against};
use parity::judge::{emit, Verdict};
use parity::suite::Suite;

fn main() -> ExitCode {
    let suite = match Suite::from_env() {
        Ok(suite) => suite,
        Err(message) => {
            eprintln!("demo: {message}");
            return ExitCode::FAILURE;
        }
    };
    let reference = suite.reference();
    let transcript = match suite
        .ready(reference)
        .map_err(|why| why.to_string())
        .and_then(|rust| suite.demo.run(rust, &suite.demo.config))
    {
        Ok(transcript) => transcript,
        Err(why) => {
            eprintln!("demo: {why}");
            return ExitCode::FAILURE;
        }
    };
    println!("=== {} demo ===\n{transcript}", reference.name());
    let mut all_match = true;
    for port in suite.ports.iter().filter(|p| p.name() != reference.name()) {
        let verdict = match suite.ready(port) {
            Err(why) => not_ready(suite.settings.strict, why),
            Ok(language) => {
                let actual = suite.demo.run(language, &suite.demo.config);
                demo::transcript(port.name(), Against::Reference, &transcript, actual)
            }
        };
        match verdict {
            Verdict::Pass => println!("{:<12} same transcript", port.name()),
            Verdict::Ignore(why) | Verdict::KnownFailure(why) => {
                println!("{:<12} skipped: {why}", port.name())
            }
            Verdict::Fail(why) => {
                all_match = false;
                println!("{:<12} MISMATCH: {}", port.name(), emit::text(&why));
            }
        }
    }
    if all_match {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
