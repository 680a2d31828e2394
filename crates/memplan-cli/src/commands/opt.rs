//! `memplan opt` (placeholder).

use std::process::ExitCode;

/// Arguments of `memplan opt`.
#[derive(clap::Args)]
pub struct OptArgs {}

/// Runs `memplan opt`.
pub fn run(_args: OptArgs) -> ExitCode {
    eprintln!("memplan opt: not implemented yet");
    ExitCode::from(2)
}
