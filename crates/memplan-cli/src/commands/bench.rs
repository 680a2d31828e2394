//! `memplan bench` (placeholder).

use std::process::ExitCode;

/// Arguments of `memplan bench`.
#[derive(clap::Args)]
pub struct BenchArgs {}

/// Runs `memplan bench`.
pub fn run(_args: BenchArgs) -> ExitCode {
    eprintln!("memplan bench: not implemented yet");
    ExitCode::from(2)
}
