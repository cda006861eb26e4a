//! `make demo`: runs the Rust demo, prints its transcript, then runs every
//! other language's demo whose toolchain is installed and says whether it
//! prints the same transcript byte for byte.

use std::process::ExitCode;

use parity::judge::demo::{Against, DemoFailure, Transcripts};
use parity::judge::{emit, Reason, Verdict};
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
    let others = suite.languages.iter().filter(|l| l.name != reference.name);
    let transcript = match suite
        .prepare(reference)
        .map_err(|why| why.to_string())
        .and_then(|()| suite.demo.run(reference, &suite.demo.config))
    {
        Ok(transcript) => transcript,
        Err(why) => {
            eprintln!("demo: {why}");
            return ExitCode::FAILURE;
        }
    };
    println!("=== {} demo ===\n{transcript}", reference.name);
    let mut all_match = true;
    for language in others {
        let outcome = suite
            .prepare(language)
            .map_err(|why| suite.not_ready(&why))
            .and_then(|()| {
                let output = suite
                    .demo
                    .run(language, &suite.demo.config)
                    .map_err(|why| Verdict::Fail(Reason::Demo(DemoFailure::NotRun(why))))?;
                if output == transcript {
                    return Ok(());
                }
                Err(Verdict::Fail(Reason::Demo(DemoFailure::Transcript(
                    Box::new(Transcripts {
                        language: language.name.clone(),
                        against: Against::Reference,
                        expected: transcript.clone(),
                        actual: output,
                    }),
                ))))
            });
        match outcome {
            Ok(()) | Err(Verdict::Pass) => println!("{:<12} same transcript", language.name),
            Err(Verdict::Ignore(why) | Verdict::KnownFailure(why)) => {
                println!("{:<12} skipped: {why}", language.name)
            }
            Err(Verdict::Fail(why)) => {
                all_match = false;
                println!("{:<12} MISMATCH: {}", language.name, emit::text(&why));
            }
        }
    }
    if all_match {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
