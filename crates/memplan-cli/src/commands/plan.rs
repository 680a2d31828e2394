//! `memplan plan`: read one problem file, plan it, and report.
//!
//! The command is a thin shell over [`memplan_core::plan()`]: [`crate::io`]
//! reads and checks the file, the core plans it with the algorithm named on
//! the command line (regalloc2's one-entry-point shape), the independent
//! checker ([`memplan_core::check()`]) re-verifies the result on request, and
//! the plan is written back in the input's shape, summarised on stdout and
//! optionally drawn ([`crate::svg`]). Exit codes follow ripgrep: 0 success,
//! 1 an infeasible capacity or a plan that fails the check, 2 bad input.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use memplan_core::{bounds, check, Algorithm, Options, Plan, PlanError, Progress, StopReason};
use serde::Serialize;

use crate::diag;
use crate::io::{self, Format, LoadedProblem};
use crate::svg;

/// Input formats, shown by `memplan plan --help`.
const FORMATS: &str = "\
Input formats (chosen by extension: .json is JSON, anything else CSV):

CSV, the MiniMalloc convention: a header naming the columns, in any order.
  id,lower,upper,size[,alignment][,offset][,space]
  - id: any string, unique; size: bytes (>= 1)
  - the buffer is live over the half-open interval [lower, upper)
  - alignment: a power of two (empty = 1); offset: a non-empty cell fixes the
    buffer there; space: memory space number (empty = 0)
  - other columns are copied to the output; lines starting with # are comments

JSON, for lifetimes with holes, memory spaces and a capacity:
  {\"capacity\": 4096,
   \"buffers\": [
     {\"id\": \"x\", \"size\": 1024, \"lower\": 0, \"upper\": 3},
     {\"id\": \"kv\", \"size\": 512, \"live\": [[0, 2], [6, 9]], \"alignment\": 64},
     {\"id\": 7, \"size\": 256, \"lower\": 1, \"upper\": 4, \"space\": 3, \"offset\": 0}]}
  - capacity (optional): every arena must fit in this many bytes
  - a lifetime is `lower`/`upper` or `live`, a list of half-open [start, end) pairs
  - alignment, space and offset as for CSV; unknown keys are errors

Output (-o): CSV input gives the same rows plus an `offset` column; JSON input
gives the same JSON with every `offset` filled in and a `plan` summary. The
extension of OUT (.csv / .json) picks the other format; `-o -` writes to stdout
(the summary then goes to stderr).

Every plan is verified by the independent checker before it is reported.

Exit status: 0 success, 1 infeasible capacity or a plan failing the check (a
planner bug), 2 bad input (the message names file:line:column), including a
problem whose bytes do not fit in 64 bits.";

/// Arguments of `memplan plan`.
#[derive(clap::Args)]
#[command(after_long_help = FORMATS)]
pub struct PlanArgs {
    /// The problem file (.csv or .json).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The planner to use.
    #[arg(long, value_name = "NAME", default_value = "portfolio", value_parser = parse_algorithm)]
    pub algo: Algorithm,
    /// Arena capacity in bytes (suffixes K, M, G = KiB, MiB, GiB); overrides the file's.
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub capacity: Option<u64>,
    /// Wall-clock limit for searching planners (exact defaults to 10 s).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Node budget for searching planners (deterministic, unlike --time-limit).
    #[arg(long, value_name = "N")]
    pub node_limit: Option<u64>,
    /// `exact` only: give the search half the time and nodes, then look for plans below the
    /// best peak, seeded by SEED (default 1): band moves (re-place the buffers at the top of
    /// the best plan and their co-live neighbours, the rest kept, one unit lower) and
    /// randomised restarts of the whole problem (capacities from the top quarter of the gap
    /// to the lower bound); for hard instances and long limits (run different seeds side by
    /// side)
    #[arg(long, value_name = "SEED", num_args = 0..=1, default_missing_value = "1")]
    pub restarts: Option<u64>,
    /// Write the plan here (.csv or .json; `-` for stdout).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Every plan is checked by the independent checker before it is reported; this
    /// runs the checker once more and reports how long it took.
    #[arg(long)]
    pub verify: bool,
    /// Draw the plan (time on x, address on y) as an SVG file.
    #[arg(long, value_name = "PLOT.svg")]
    pub svg: Option<PathBuf>,
}

/// Parses an algorithm name for clap, listing the valid names on failure.
pub fn parse_algorithm(name: &str) -> Result<Algorithm, String> {
    Algorithm::from_name(name).ok_or_else(|| {
        format!(
            "unknown algorithm `{name}`; valid names: {}",
            Algorithm::all_names()
        )
    })
}

/// Parses a byte count with an optional binary suffix (`64K`, `1MiB`, `2G`).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let unit: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        _ => {
            return Err(format!(
                "`{text}` is not a byte count (e.g. 4096, 64K, 1MiB)"
            ))
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or_else(|| format!("`{text}` is not a byte count (e.g. 4096, 64K, 1MiB)"))
}

/// Parses a positive number of seconds.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

/// Planner options for one run: `exact` gets a 10 s limit unless one is given.
pub fn options_for(
    algorithm: Algorithm,
    time_limit: Option<Duration>,
    node_limit: Option<u64>,
) -> Options {
    let default_limit = (algorithm == Algorithm::Exact).then(|| Duration::from_secs(10));
    Options {
        algorithm,
        time_limit: time_limit.or(default_limit),
        node_limit,
        progress: None,
        restarts: None,
    }
}

/// The summary of one plan, printed as text or JSON.
#[derive(Serialize)]
struct Summary {
    file: String,
    algorithm: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    winner: Option<String>,
    peak: u64,
    lower_bound: u64,
    /// The best proved lower bound on the optimum (max over spaces): the max-load
    /// bound raised by exact's refutations, the peak itself where proved optimal.
    proved_lower_bound: u64,
    ratio: f64,
    optimal: bool,
    stop_reason: &'static str,
    seconds: f64,
    buffers: usize,
    nodes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity: Option<u64>,
    spaces: Vec<SpaceSummary>,
    /// Always true: `memplan_core::plan()` checks every plan it returns.
    verified: bool,
    /// Seconds the CLI's second run of the checker took (`--verify`).
    #[serde(skip_serializing_if = "Option::is_none")]
    check_seconds: Option<f64>,
}

/// Peak and lower bound of one memory space.
#[derive(Serialize)]
struct SpaceSummary {
    space: u32,
    peak: u64,
    lower_bound: u64,
    proved_lower_bound: u64,
}

/// The name a report gives a stop reason.
pub fn stop_reason_name(r: StopReason) -> &'static str {
    match r {
        StopReason::Completed => "completed",
        StopReason::ReachedLowerBound => "reached-lower-bound",
        StopReason::NodeLimit => "node-limit",
        StopReason::TimeLimit => "time-limit",
    }
}

/// peak / lower bound, 1 for an empty problem.
pub fn ratio(peak: u64, lb: u64) -> f64 {
    if lb == 0 {
        if peak == 0 {
            1.0
        } else {
            f64::INFINITY
        }
    } else {
        peak as f64 / lb as f64
    }
}

/// Runs `memplan plan`.
pub fn run(args: PlanArgs) -> ExitCode {
    match plan_command(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => ExitCode::from(code),
    }
}

/// Plans with `opts`, showing a progress spinner for exact search on a terminal.
fn plan_with_progress(loaded: &LoadedProblem, mut opts: Options) -> Result<(Plan, f64), PlanError> {
    let bar = (opts.algorithm == Algorithm::Exact && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        let style = indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] exact search: {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    if let Some(bar) = &bar {
        let bar = bar.clone();
        opts.progress = Some(Arc::new(move |p: &Progress| {
            bar.set_message(format!(
                "best peak {} · LB {} · peak/LB {:.4} · {} nodes",
                p.best_peak,
                p.lower_bound,
                ratio(p.best_peak, p.lower_bound),
                p.nodes
            ));
        }));
    }
    let start = Instant::now();
    let result = memplan_core::plan(&loaded.problem, &opts);
    let seconds = start.elapsed().as_secs_f64();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result.map(|p| (p, seconds))
}

fn plan_command(args: &PlanArgs) -> Result<(), u8> {
    let mut loaded = io::load(&args.input).map_err(|e| {
        e.print();
        2u8
    })?;
    match args.capacity {
        Some(c) => loaded.problem.capacity = Some(c),
        None => loaded.check_file_capacity().map_err(|e| {
            e.print();
            2u8
        })?,
    }
    if args.restarts.is_some() && args.algo != Algorithm::Exact {
        diag::error(format!(
            "--restarts applies to --algo exact only (got --algo {})",
            args.algo.name()
        ));
        return Err(2);
    }
    let mut opts = options_for(args.algo, args.time_limit, args.node_limit);
    opts.restarts = args.restarts;
    let (plan, seconds) = match plan_with_progress(&loaded, opts) {
        Ok(r) => r,
        Err(PlanError::Invalid(e)) => {
            loaded.problem_error(&e).print();
            return Err(2);
        }
        Err(PlanError::FailedCheck { algorithm, error }) => {
            diag::error(format!(
                "{}: internal error: the {algorithm} plan fails the independent check: {} (please report this)",
                loaded.path,
                loaded.check_error(&error)
            ));
            return Err(1);
        }
        Err(e) => {
            diag::error(format!("{}: {e}", loaded.path));
            return Err(1);
        }
    };
    // memplan_core::plan() has run the independent checker on this plan already (a
    // plan failing it is an error above); --verify runs it once more here and times it.
    let check_seconds = if args.verify {
        let start = Instant::now();
        if let Err(e) = check::check(&loaded.problem, &plan) {
            diag::error(format!(
                "{}: the {} plan fails the check: {}",
                loaded.path,
                args.algo,
                loaded.check_error(&e)
            ));
            return Err(1);
        }
        Some(start.elapsed().as_secs_f64())
    } else {
        None
    };
    let lbs = bounds::max_load_per_space(&loaded.problem);
    let lower_bound = lbs.iter().map(|&(_, l)| l).max().unwrap_or(0);
    let summary = Summary {
        file: loaded.path.clone(),
        algorithm: args.algo.name(),
        winner: plan.stats.winner.clone(),
        peak: plan.peak(),
        lower_bound,
        proved_lower_bound: plan
            .stats
            .lower_bounds
            .iter()
            .map(|&(_, l)| l)
            .max()
            .unwrap_or(0),
        ratio: ratio(plan.peak(), lower_bound),
        optimal: plan.optimal,
        stop_reason: stop_reason_name(plan.stop_reason),
        seconds,
        buffers: loaded.problem.len(),
        nodes: plan.stats.nodes,
        capacity: loaded.problem.capacity,
        spaces: lbs
            .iter()
            .map(|&(s, lb)| SpaceSummary {
                space: s.0,
                peak: plan.peak_of(s),
                lower_bound: lb,
                proved_lower_bound: plan
                    .stats
                    .lower_bounds
                    .iter()
                    .find(|&&(x, _)| x == s)
                    .map_or(lb, |&(_, l)| l),
            })
            .collect(),
        verified: true,
        check_seconds,
    };
    let summary_json = serde_json::to_value(&summary).unwrap_or_default();

    let mut plan_on_stdout = false;
    if let Some(out) = &args.output {
        plan_on_stdout = out.as_os_str() == "-";
        write_plan_file(&loaded, &plan, summary_json.clone(), out)?;
    }
    if let Some(path) = &args.svg {
        let title = format!(
            "{} — {}: peak {} bytes, lower bound {} (×{:.4})",
            loaded.path,
            args.algo,
            plan.peak(),
            lower_bound,
            summary.ratio
        );
        let text = svg::render(&svg::PlotInput {
            problem: &loaded.problem,
            ids: &loaded.ids,
            plan: &plan,
            lower_bounds: &lbs,
            title: &title,
        });
        std::fs::write(path, text).map_err(|e| {
            diag::error(format!("cannot write {}: {e}", path.display()));
            2u8
        })?;
    }
    let text = if args.json {
        format!("{}\n", serde_json::to_string(&summary).unwrap_or_default())
    } else {
        human_summary(&summary)
    };
    if plan_on_stdout {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    Ok(())
}

fn write_plan_file(
    loaded: &LoadedProblem,
    plan: &Plan,
    summary: serde_json::Value,
    out: &Path,
) -> Result<(), u8> {
    let to_stdout = out.as_os_str() == "-";
    let format = match out.extension().and_then(|e| e.to_str()) {
        _ if to_stdout => None,
        Some(e) if e.eq_ignore_ascii_case("csv") => Some(Format::Csv),
        Some(e) if e.eq_ignore_ascii_case("json") => Some(Format::Json),
        _ => None,
    }
    .unwrap_or(match loaded.original {
        io::Original::Csv(_) => Format::Csv,
        io::Original::Json(_) => Format::Json,
    });
    let mut buf = Vec::new();
    if let Err(e) = loaded.write_plan(plan, summary, format, &mut buf) {
        diag::error(format!("cannot write the plan to {}: {e}", out.display()));
        return Err(2);
    }
    let written = if to_stdout {
        std::io::stdout().write_all(&buf)
    } else {
        std::fs::write(out, &buf)
    };
    written.map_err(|e| {
        diag::error(format!("cannot write {}: {e}", out.display()));
        2u8
    })
}

fn human_summary(s: &Summary) -> String {
    let mut out = String::new();
    let spaces = s.spaces.len();
    out.push_str(&format!(
        "{}: {} buffers, {} memory space{}\n",
        s.file,
        s.buffers,
        spaces,
        if spaces == 1 { "" } else { "s" }
    ));
    let winner = s
        .winner
        .as_ref()
        .map_or(String::new(), |w| format!(" (winner: {w})"));
    out.push_str(&format!("  algorithm    {}{winner}\n", s.algorithm));
    out.push_str(&format!("  peak         {} bytes\n", s.peak));
    out.push_str(&format!("  lower bound  {} bytes\n", s.lower_bound));
    if !s.optimal && s.proved_lower_bound > s.lower_bound {
        out.push_str(&format!(
            "  proved LB    {} bytes (raised by the search, +{:.4}% over max-load)\n",
            s.proved_lower_bound,
            100.0 * (s.proved_lower_bound - s.lower_bound) as f64 / s.lower_bound.max(1) as f64
        ));
    }
    let status = if s.optimal {
        "  optimal (proved)".to_string()
    } else if s.stop_reason == "node-limit" || s.stop_reason == "time-limit" {
        format!("  (search stopped: {})", s.stop_reason)
    } else {
        String::new()
    };
    out.push_str(&format!("  peak/LB      {:.4}{status}\n", s.ratio));
    if spaces > 1 {
        for sp in &s.spaces {
            out.push_str(&format!(
                "  space {:<6} peak {} bytes, lower bound {} bytes\n",
                sp.space, sp.peak, sp.lower_bound
            ));
        }
    }
    if let Some(c) = s.capacity {
        out.push_str(&format!("  capacity     {c} bytes\n"));
    }
    out.push_str(&format!("  time         {:.3} s\n", s.seconds));
    match s.check_seconds {
        Some(t) => out.push_str(&format!(
            "  verified     ok (independent checker; re-checked in {:.3} s)\n",
            t
        )),
        None => out.push_str("  verified     ok (independent checker)\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_and_seconds() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("64K"), Ok(65536));
        assert_eq!(parse_bytes("1MiB"), Ok(1 << 20));
        assert!(parse_bytes("12q").is_err());
        assert!(parse_bytes("").is_err());
        assert!(parse_bytes("99999999999G").is_err());
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_seconds("-1").is_err());
        assert!(parse_seconds("nan").is_err());
    }

    #[test]
    fn exact_gets_a_default_time_limit() {
        assert_eq!(
            options_for(Algorithm::Exact, None, None).time_limit,
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            options_for(Algorithm::GreedySize, None, None).time_limit,
            None
        );
        let given = Some(Duration::from_secs(1));
        assert_eq!(
            options_for(Algorithm::Exact, given, Some(5)).time_limit,
            given
        );
        assert!(parse_algorithm("nope").unwrap_err().contains("greedy-size"));
    }
}
