//! `make demo`: runs the Rust demo, prints its transcript, then runs every
//! other language's demo whose toolchain is installed and says whether it
//! prints the same transcript byte for byte.

use std::process::ExitCode;

use parity::suite::{transcript_difference, Suite, Verdict};

fn main() -> ExitCode {
    let suite = match Suite::from_env() {
        Ok(suite) => suite,
        Err(message) => {
            eprintln!("demo: {message}");
            return ExitCode::FAILURE;
        }
    };
    let (reference, others) = suite
        .languages
        .split_first()
        .expect("the reference is listed first");
    let transcript = match suite
        .prepare(reference)
        .map_err(verdict_text)
        .and_then(|()| suite.run_demo(reference))
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
        let verdict = match suite.prepare(language) {
            Err(verdict) => verdict,
            Ok(()) => match suite.run_demo(language) {
                Err(why) => Verdict::Fail(why),
                Ok(output) => match transcript_difference(&transcript, &output) {
                    None => Verdict::Pass,
                    Some(difference) => Verdict::Fail(format!("differs {difference}")),
                },
            },
        };
        match verdict {
            Verdict::Pass => println!("{:<12} same transcript", language.name),
            Verdict::Ignore(why) => println!("{:<12} skipped: {why}", language.name),
            Verdict::Fail(why) => {
                all_match = false;
                println!("{:<12} MISMATCH: {why}", language.name);
            }
        }
    }
    if all_match {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn verdict_text(verdict: Verdict) -> String {
    match verdict {
        Verdict::Pass => String::new(),
        Verdict::Fail(why) | Verdict::Ignore(why) => why,
    }
}
