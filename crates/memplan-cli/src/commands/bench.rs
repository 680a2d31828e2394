//! `memplan bench`: run planners over many problem files and tabulate them.
//!
//! For every problem (files given directly, or `*.csv` / `*.json` found under
//! the given directories, sorted) and every algorithm, the planner runs
//! `--repeat` times; every plan goes through the independent checker
//! ([`memplan_core::check()`]), as the shared benchmarks' README asks ("check
//! every plan with an independent checker"). The report follows the same
//! README: peak/LB per problem and planner, whether optimality was proved, and
//! the median wall time, with a geometric-mean row. Output is a markdown
//! table, or JSON / CSV for scripts.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use memplan_core::{bounds, check, Algorithm, PlanError};
use serde::Serialize;

use super::plan::{options_for, parse_seconds, ratio};
use crate::diag;
use crate::io::{self, LoadedProblem};

/// Arguments of `memplan bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Problem files, or directories searched (recursively) for *.csv and *.json.
    #[arg(value_name = "DIR_OR_FILES", required = true)]
    pub paths: Vec<PathBuf>,
    /// Comma-separated algorithm names, or `all`. Default: every algorithm except `exact`.
    #[arg(long, value_name = "LIST")]
    pub algo: Option<String>,
    /// Wall-clock limit per run for searching planners (exact defaults to 10 s).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Node budget per run for searching planners.
    #[arg(long, value_name = "N")]
    pub node_limit: Option<u64>,
    /// Runs per problem and algorithm; the median time is reported.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Print JSON instead of a markdown table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV (one row per problem and algorithm) instead of a markdown table.
    #[arg(long)]
    pub csv: bool,
}

/// What one algorithm did on one problem.
#[derive(Clone, Debug, Serialize)]
struct Outcome {
    algorithm: &'static str,
    /// Peak of the median run: the run whose wall time is the median (the lower
    /// of the two middle runs for an even count), so the peak, `optimal` and the
    /// time in a table all come from the same run (None when planning failed).
    peak: Option<u64>,
    ratio: Option<f64>,
    /// Whether the median run proved its plan optimal.
    optimal: bool,
    median_seconds: f64,
    seconds: Vec<f64>,
    /// The peak of every run, in run order (they differ only under a time limit).
    peaks: Vec<u64>,
    /// Whether each run proved optimality, in run order.
    #[serde(skip)]
    optimals: Vec<bool>,
    /// Why there is no valid plan: a planning error or a failed check.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// True when a plan failed the independent checker.
    invalid: bool,
}

/// One problem's row.
#[derive(Debug, Serialize)]
struct Row {
    file: String,
    buffers: usize,
    lower_bound: u64,
    results: Vec<Outcome>,
}

/// Runs `memplan bench`.
pub fn run(args: BenchArgs) -> ExitCode {
    let algos = match parse_list(args.algo.as_deref()) {
        Ok(a) => a,
        Err(msg) => {
            diag::error(msg);
            return ExitCode::from(2);
        }
    };
    let files = match collect_files(&args.paths) {
        Ok(f) => f,
        Err(msg) => {
            diag::error(msg);
            return ExitCode::from(2);
        }
    };
    let mut problems = Vec::new();
    let mut bad = false;
    for (path, name) in &files {
        match io::load(path).and_then(|l| l.check_file_capacity().map(|()| l)) {
            Ok(l) => problems.push((name.clone(), l)),
            Err(e) => {
                e.print();
                bad = true;
            }
        }
    }
    if bad {
        return ExitCode::from(2);
    }
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new((problems.len() * algos.len()) as u64);
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        let style = indicatif::ProgressStyle::with_template(
            "[{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        bar
    });
    let mut rows = Vec::new();
    for (name, loaded) in &problems {
        let mut results = Vec::new();
        for &algo in &algos {
            if let Some(bar) = &bar {
                bar.set_message(format!("{name} · {algo}"));
            }
            results.push(bench_one(loaded, algo, &args));
            if let Some(bar) = &bar {
                bar.inc(1);
            }
        }
        rows.push(Row {
            file: name.clone(),
            buffers: loaded.problem.len(),
            lower_bound: bounds::max_load(&loaded.problem),
            results,
        });
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let text = if args.json {
        json_report(&rows, &algos)
    } else if args.csv {
        csv_report(&rows)
    } else {
        markdown(&rows, &algos)
    };
    print!("{text}");
    let invalid: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.results.iter().filter(|o| o.invalid).map(move |o| {
                format!(
                    "{} on {}: {}",
                    o.algorithm,
                    r.file,
                    o.error.as_deref().unwrap_or("")
                )
            })
        })
        .collect();
    for line in &invalid {
        diag::error(format!("invalid plan: {line}"));
    }
    if invalid.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The algorithms named by `--algo` (default: all but exact).
fn parse_list(list: Option<&str>) -> Result<Vec<Algorithm>, String> {
    let Some(list) = list else {
        return Ok(Algorithm::ALL
            .into_iter()
            .filter(|&a| a != Algorithm::Exact)
            .collect());
    };
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "all" {
            out.extend(Algorithm::ALL);
            continue;
        }
        out.push(Algorithm::from_name(name).ok_or_else(|| {
            format!(
                "unknown algorithm `{name}`; valid names: {}, or all",
                Algorithm::all_names()
            )
        })?);
    }
    if out.is_empty() {
        return Err("--algo names no algorithm".to_string());
    }
    let mut seen = Vec::new();
    out.retain(|a| {
        let new = !seen.contains(a);
        seen.push(*a);
        new
    });
    Ok(out)
}

/// The files to run, each with the name the report gives it, sorted.
fn collect_files(paths: &[PathBuf]) -> Result<Vec<(PathBuf, String)>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)
                .map_err(|e| format!("cannot read directory {}: {e}", p.display()))?;
            found.sort();
            if found.is_empty() {
                return Err(format!("{}: no *.csv or *.json files found", p.display()));
            }
            for f in found {
                let name = f.strip_prefix(p).unwrap_or(&f).display().to_string();
                out.push((f, name));
            }
        } else if p.exists() {
            out.push((p.clone(), p.display().to_string()));
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("csv" | "json")
        ) {
            out.push(path);
        }
    }
    Ok(())
}

fn bench_one(loaded: &LoadedProblem, algo: Algorithm, args: &BenchArgs) -> Outcome {
    let opts = options_for(algo, args.time_limit, args.node_limit);
    let mut out = Outcome {
        algorithm: algo.name(),
        peak: None,
        ratio: None,
        optimal: false,
        median_seconds: 0.0,
        seconds: Vec::new(),
        peaks: Vec::new(),
        optimals: Vec::new(),
        error: None,
        invalid: false,
    };
    let lb = bounds::max_load(&loaded.problem);
    for _ in 0..args.repeat {
        let start = Instant::now();
        let result = memplan_core::plan(&loaded.problem, &opts);
        out.seconds.push(start.elapsed().as_secs_f64());
        match result {
            Ok(plan) => {
                // plan() has checked the plan already; checked again here, apart from it.
                if let Err(e) = check::check(&loaded.problem, &plan) {
                    out.invalid = true;
                    out.error = Some(loaded.check_error(&e));
                    break;
                }
                out.peaks.push(plan.peak());
                out.optimals.push(plan.optimal);
            }
            Err(PlanError::FailedCheck { error, .. }) => {
                out.invalid = true;
                out.error = Some(loaded.check_error(&error));
                break;
            }
            Err(e) => {
                out.error = Some(match e {
                    PlanError::Invalid(pe) => loaded.problem_error(&pe).message().to_string(),
                    other => other.to_string(),
                });
                break;
            }
        }
    }
    if out.error.is_none() && !out.peaks.is_empty() {
        let k = median_run(&out.seconds);
        out.peak = Some(out.peaks[k]);
        out.optimal = out.optimals[k];
        out.median_seconds = out.seconds[k];
    } else {
        out.median_seconds = median(&mut out.seconds.clone());
    }
    out.ratio = out.peak.map(|p| ratio(p, lb));
    out
}

/// The index of the median run by time (the lower middle one for an even count).
fn median_run(seconds: &[f64]) -> usize {
    let mut idx: Vec<usize> = (0..seconds.len()).collect();
    idx.sort_by(|&a, &b| seconds[a].total_cmp(&seconds[b]).then(a.cmp(&b)));
    idx.get(seconds.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0)
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Geometric mean of positive values (None when there are none).
fn geomean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in values.filter(|v| *v > 0.0 && v.is_finite()) {
        sum += v.ln();
        n += 1;
    }
    (n > 0).then(|| (sum / n as f64).exp())
}

/// A duration for a table cell: `812 µs`, `3.4 ms`, `1.20 s`.
fn fmt_seconds(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.0} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn cell(o: &Outcome) -> String {
    let (lo, hi) = (o.peaks.iter().min(), o.peaks.iter().max());
    let varied = match (lo, hi) {
        (Some(lo), Some(hi)) if lo != hi => format!(" † peaks {lo}–{hi}"),
        _ => String::new(),
    };
    match (o.ratio, &o.error) {
        (Some(r), _) => format!(
            "{r:.4}{} ({}){varied}",
            if o.optimal { "*" } else { "" },
            fmt_seconds(o.median_seconds)
        ),
        (None, _) if o.invalid => "INVALID".to_string(),
        (None, Some(e)) if e.contains("infeasible") => "infeasible".to_string(),
        (None, _) => "no fit".to_string(),
    }
}

/// Per algorithm: geomean of peak/LB and of median time over the problems it solved, and how many.
fn geomeans(rows: &[Row], k: usize) -> (Option<f64>, Option<f64>, usize) {
    let solved: Vec<&Outcome> = rows
        .iter()
        .map(|r| &r.results[k])
        .filter(|o| o.ratio.is_some())
        .collect();
    (
        geomean(solved.iter().filter_map(|o| o.ratio)),
        geomean(solved.iter().map(|o| o.median_seconds)),
        solved.len(),
    )
}

fn markdown(rows: &[Row], algos: &[Algorithm]) -> String {
    let mut s = String::from("| problem | buffers | LB |");
    for a in algos {
        s.push_str(&format!(" {a} |"));
    }
    s.push_str("\n|---|---:|---:|");
    s.push_str(&"---:|".repeat(algos.len()));
    s.push('\n');
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} |",
            r.file, r.buffers, r.lower_bound
        ));
        for o in &r.results {
            s.push_str(&format!(" {} |", cell(o)));
        }
        s.push('\n');
    }
    s.push_str("| geomean | | |");
    for k in 0..algos.len() {
        let (gr, gt, n) = geomeans(rows, k);
        let partial = if n < rows.len() {
            format!(" [{n}/{}]", rows.len())
        } else {
            String::new()
        };
        match (gr, gt) {
            (Some(r), Some(t)) => s.push_str(&format!(" {r:.4} ({}){partial} |", fmt_seconds(t))),
            (Some(r), None) => s.push_str(&format!(" {r:.4}{partial} |")),
            _ => s.push_str(" – |"),
        }
    }
    s.push_str("\n\npeak/LB and wall time of the median run (by time) of each cell; * = that run proved optimality; † = the runs' peaks differed (only a time limit makes runs differ); every plan passed the independent checker unless marked INVALID.\n");
    s
}

fn json_report(rows: &[Row], algos: &[Algorithm]) -> String {
    #[derive(Serialize)]
    struct Mean {
        algorithm: &'static str,
        ratio: Option<f64>,
        seconds: Option<f64>,
        solved: usize,
    }
    #[derive(Serialize)]
    struct Report<'a> {
        problems: &'a [Row],
        geomean: Vec<Mean>,
    }
    let geomean = algos
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let (ratio, seconds, solved) = geomeans(rows, k);
            Mean {
                algorithm: a.name(),
                ratio,
                seconds,
                solved,
            }
        })
        .collect();
    let report = Report {
        problems: rows,
        geomean,
    };
    serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
}

fn csv_report(rows: &[Row]) -> String {
    let mut s = String::from(
        "file,buffers,lower_bound,algorithm,peak,ratio,optimal,median_seconds,status\n",
    );
    for r in rows {
        for o in &r.results {
            let status = if o.invalid {
                "invalid"
            } else if o.peak.is_some() {
                "ok"
            } else {
                "failed"
            };
            let file = if r.file.contains([',', '"']) {
                format!("\"{}\"", r.file.replace('"', "\"\""))
            } else {
                r.file.clone()
            };
            s.push_str(&format!(
                "{file},{},{},{},{},{},{},{:.6},{status}\n",
                r.buffers,
                r.lower_bound,
                o.algorithm,
                o.peak.map_or(String::new(), |p| p.to_string()),
                o.ratio.map_or(String::new(), |x| format!("{x:.6}")),
                o.optimal,
                o.median_seconds
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_lists() {
        let default = parse_list(None).unwrap();
        assert!(!default.contains(&Algorithm::Exact));
        assert_eq!(default.len(), Algorithm::ALL.len() - 1);
        assert_eq!(parse_list(Some("all")).unwrap().len(), Algorithm::ALL.len());
        assert_eq!(
            parse_list(Some("exact, naive,exact")).unwrap(),
            vec![Algorithm::Exact, Algorithm::Naive]
        );
        assert!(parse_list(Some("naive,bogus"))
            .unwrap_err()
            .contains("bogus"));
        assert!(parse_list(Some(",")).is_err());
    }

    #[test]
    fn statistics() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        let g = geomean([1.0, 4.0].into_iter()).unwrap();
        assert!((g - 2.0).abs() < 1e-12);
        assert_eq!(geomean(std::iter::empty()), None);
        assert_eq!(fmt_seconds(0.0034), "3.4 ms");
        assert_eq!(median_run(&[3.0, 1.0, 2.0]), 2);
        assert_eq!(median_run(&[4.0, 1.0, 2.0, 3.0]), 2);
        assert_eq!(median_run(&[5.0]), 0);
    }
}
