//! The Rust demo: `demo [CONFIG]`, by default the shared `runners/demo.json`
//! from the working directory (the repository root, as Go's demo), never a
//! path compiled in, which a moved checkout would not read.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("runners/demo.json"));
    match outbox_runner::demo::load_config(&path) {
        Ok(config) => {
            print!("{}", outbox_runner::demo::run(&config));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::from(2)
        }
    }
}
