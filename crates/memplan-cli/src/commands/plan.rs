//! `memplan plan` (placeholder).

use std::process::ExitCode;

/// Arguments of `memplan plan`.
#[derive(clap::Args)]
pub struct PlanArgs {}

/// Runs `memplan plan`.
pub fn run(_args: PlanArgs) -> ExitCode {
    eprintln!("memplan plan: not implemented yet");
    ExitCode::from(2)
}
