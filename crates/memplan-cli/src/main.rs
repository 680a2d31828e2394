//! `memplan`: a thin binary over the library crates (ripgrep's shape).
//! Exit codes: 0 success, 1 a failed check or an infeasible plan, 2 bad input.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;
mod diag;
mod io;
mod svg;

/// Compile-time memory planning for tensor compilers.
#[derive(Parser)]
#[command(name = "memplan", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Place every buffer of an allocation trace (CSV or JSON) in one arena.
    Plan(commands::plan::PlanArgs),
    /// Run planners over problem files and print a markdown table.
    Bench(commands::bench::BenchArgs),
    /// Parse, verify, transform and print an MLIR file.
    Opt(commands::opt::OptArgs),
    /// Schedule a dataflow graph for memory and place its buffers (graph JSON).
    Model(commands::model::ModelArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Plan(args) => commands::plan::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Opt(args) => commands::opt::run(args),
        Command::Model(args) => commands::model::run(args),
    }
}
