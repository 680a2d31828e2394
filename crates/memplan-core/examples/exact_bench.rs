//! Dev tool (not part of the library): runs `--algo exact` on MiniMalloc-style CSV
//! files (`id,lower,upper,size[,alignment][,offset]`) and prints one table row each.
//!
//! `cargo run --release -p memplan-core --example exact_bench -- [--time SECS] [--runs K] [--cap BYTES] [--node-limit N] [--progress] FILE...`
//!
//! A row with an `offset` value is a buffer fixed there; an empty `offset` cell
//! leaves that buffer movable (how `scripts/lns_descent.py` hands over a plan
//! with a few buffers released).
//!
//! `--node-limit N` gives the search a node budget (deterministic: the same plan
//! and node count every run); `--progress` prints each new best peak or lower
//! bound with the node count and seconds at which it was found (on stderr).
//!
//! With `--cap`, the problem gets that capacity (a decision run: the first plan within it).
//! With `--domain-bound HI`, prints the offset-domain lower bound searched up to `HI`
//! instead (no plan).
//! With `--deep-bound SECS`, prints the window-relaxation lower bound
//! (`memplan_core::algo::exact::deep_bound`) found within `SECS` seconds, and
//! how it was proved (no plan); `--upper BYTES` gives it a known plan's peak,
//! `--budget NODES` its first round's node budget per order, `--sections K` its
//! widest window, `--domains` turns on offset-domain filtering per probe.
//! With `--relax-bound SECS`, prints the subset/rounding relaxation lower bound
//! (`memplan_core::algo::exact::relax_bound`) found within `SECS` seconds and
//! the relaxation that proved it (no plan); `--upper` and `--budget` apply to
//! it too, `--max-gap F` probes relaxations whose max-load is within the
//! fraction `F` of the bound, `--keep K1,K2,..` sets the size thresholds (keep
//! the K largest buffers), `--round-factor F` the largest rounding unit (in
//! units of the problem's), `--widths W1,W2,..` the window widths,
//! `--skip-whole` leaves out the whole problem itself.
//! With `--restarts CAP`, asks whether everything fits within `CAP` bytes by
//! randomised restarts of the decision search
//! (`memplan_core::algo::exact::decide_restarts`): `--seed S` seeds the random
//! orders, `--budget N` is the node budget at Luby value 1, `--noise P` the
//! primary key's random factor in percent, `--node-limit` and `--time` stop it;
//! `--out PLAN.csv` writes the plan found (the input's columns plus `offset`),
//! after the independent checker has passed it.

use std::time::{Duration, Instant};

use memplan_core::{check_offsets, plan, Algorithm, Buffer, Options, Problem};

fn read_csv(path: &str) -> Result<Problem, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (lo, up, sz) = (col("lower"), col("upper"), col("size"));
    let (Some(lo), Some(up), Some(sz)) = (lo, up, sz) else {
        return Err("missing lower/upper/size".into());
    };
    let (al, of) = (col("alignment"), col("offset"));
    let mut bufs = Vec::new();
    for l in lines.filter(|l| !l.trim().is_empty()) {
        // An empty cell reads as "none" (only meaningful in the offset column:
        // that buffer is movable, the others are fixed where the file puts them).
        let f: Vec<Option<u64>> = l
            .split(',')
            .map(|x| match x.trim() {
                "" => Ok(None),
                t => t.parse::<u64>().map(Some).map_err(|e| format!("{l}: {e}")),
            })
            .collect::<Result<_, _>>()?;
        let get = |i: usize| {
            f.get(i)
                .copied()
                .flatten()
                .ok_or_else(|| format!("{l}: missing value"))
        };
        let mut b = Buffer::new(get(sz)?, get(lo)?, get(up)?);
        if let Some(a) = al {
            b = b.with_align(get(a)?.max(1));
        }
        if let Some(o) = of.and_then(|o| f.get(o).copied().flatten()) {
            b = b.fixed_at(o);
        }
        bufs.push(b);
    }
    Ok(Problem::new(bufs))
}

/// Writes the input CSV's rows with an `offset` column (replacing one if present).
fn write_plan(input: &str, offsets: &[u64], path: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(input).map_err(|e| e.to_string())?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| header[i] != "offset")
        .collect();
    let mut out = String::new();
    let cols: Vec<&str> = keep.iter().map(|&i| header[i]).collect();
    out.push_str(&cols.join(","));
    out.push_str(",offset\n");
    for (l, o) in lines.zip(offsets) {
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        let row: Vec<&str> = keep
            .iter()
            .map(|&i| f.get(i).copied().unwrap_or(""))
            .collect();
        out.push_str(&format!("{},{o}\n", row.join(",")));
    }
    std::fs::write(path, out).map_err(|e| e.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut time = 10.0f64;
    let mut runs = 1usize;
    let mut files = Vec::new();
    let mut cap: Option<u64> = None;
    let mut dbound: Option<u64> = None;
    let mut deep: Option<f64> = None;
    let mut dopts = memplan_core::algo::exact::DeepOptions::default();
    let mut node_limit: Option<u64> = None;
    let mut progress = false;
    let mut relax: Option<f64> = None;
    let mut restarts: Option<u64> = None;
    let mut sopts = memplan_core::algo::exact::RestartOptions::default();
    let mut out_path: Option<String> = None;
    let mut ropts = memplan_core::algo::exact::RelaxOptions::default();
    let list = |s: &str| -> Vec<usize> { s.split(',').filter_map(|x| x.parse().ok()).collect() };
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--time" => {
                time = args[i + 1].parse().unwrap_or(10.0);
                i += 1;
            }
            "--cap" => {
                cap = args[i + 1].parse().ok();
                i += 1;
            }
            "--domain-bound" => {
                dbound = args[i + 1].parse().ok();
                i += 1;
            }
            "--deep-bound" => {
                deep = args[i + 1].parse().ok();
                i += 1;
            }
            "--upper" => {
                dopts.upper = args[i + 1].parse().ok();
                ropts.upper = dopts.upper;
                i += 1;
            }
            "--restarts" => {
                restarts = args[i + 1].parse().ok();
                i += 1;
            }
            "--seed" => {
                sopts.seed = args[i + 1].parse().unwrap_or(sopts.seed);
                i += 1;
            }
            "--noise" => {
                sopts.noise_percent = args[i + 1].parse().unwrap_or(sopts.noise_percent);
                i += 1;
            }
            "--out" => {
                out_path = Some(args[i + 1].clone());
                i += 1;
            }
            "--budget" => {
                sopts.base_budget = args[i + 1].parse().unwrap_or(sopts.base_budget);
                dopts.first_budget = args[i + 1].parse().unwrap_or(dopts.first_budget);
                ropts.first_budget = args[i + 1].parse().unwrap_or(ropts.first_budget);
                i += 1;
            }
            "--relax-bound" => {
                relax = args[i + 1].parse().ok();
                i += 1;
            }
            "--skip-whole" => ropts.skip_whole = true,
            "--max-gap" => {
                ropts.max_gap = args[i + 1].parse().unwrap_or(ropts.max_gap);
                i += 1;
            }
            "--keep" => {
                ropts.keep = list(&args[i + 1]);
                i += 1;
            }
            "--widths" => {
                ropts.window_widths = list(&args[i + 1]);
                i += 1;
            }
            "--round-factor" => {
                ropts.max_round_factor = args[i + 1].parse().unwrap_or(ropts.max_round_factor);
                i += 1;
            }
            "--sections" => {
                dopts.max_sections = args[i + 1].parse().unwrap_or(dopts.max_sections);
                i += 1;
            }
            "--domains" => dopts.domains = true,
            "--node-limit" => {
                node_limit = args[i + 1].parse().ok();
                i += 1;
            }
            "--progress" => progress = true,
            "--runs" => {
                runs = args[i + 1].parse().unwrap_or(1);
                i += 1;
            }
            f => files.push(f.to_string()),
        }
        i += 1;
    }
    println!("| instance | n | LB | peak | peak/LB | proved | stop | nodes | median s |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for f in files {
        let p = match read_csv(&f) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{f}: {e}");
                continue;
            }
        };
        let mut p = p;
        p.capacity = cap;
        let lb = memplan_core::bounds::max_load(&p);
        if let Some(hi) = dbound {
            let t = Instant::now();
            let (b, runs) = memplan_core::algo::exact::domain_bound(&p, hi, u64::MAX);
            println!(
                "{f}: max-load {lb}, offset-domain bound {b} (+{}), {runs} filterings, {:.2} s",
                b - lb,
                t.elapsed().as_secs_f64()
            );
            continue;
        }
        if let Some(c) = restarts {
            use memplan_core::algo::exact::{decide_restarts, Decision};
            let t = Instant::now();
            let mut o = sopts.clone();
            o.deadline = Some(t + Duration::from_secs_f64(time));
            o.node_limit = node_limit.unwrap_or(u64::MAX);
            let r = decide_restarts(&p, c, &o);
            let what = match &r.decision {
                Decision::Plan(off) => {
                    let peak = p
                        .buffers
                        .iter()
                        .zip(off)
                        .map(|(b, &o)| o + b.size)
                        .max()
                        .unwrap_or(0);
                    match check_offsets(&p, off) {
                        Err(e) => format!("plan FAILED the checker: {e}"),
                        Ok(_) => {
                            if let Some(path) = &out_path {
                                if let Err(e) = write_plan(&f, off, path) {
                                    eprintln!("{path}: {e}");
                                }
                            }
                            format!("plan found, peak {peak}, checked")
                        }
                    }
                }
                Decision::Infeasible => "infeasible (proved)".to_string(),
                Decision::Unknown => "undecided".to_string(),
            };
            println!(
                "{f}: capacity {c}, seed {}: {what}; {} restarts, {} nodes, {:.2} s",
                o.seed,
                r.restarts,
                r.nodes,
                t.elapsed().as_secs_f64()
            );
            continue;
        }
        if let Some(secs) = relax {
            let t = Instant::now();
            let mut o = ropts.clone();
            o.deadline = Some(t + Duration::from_secs_f64(secs));
            let show = |r: &memplan_core::algo::exact::Relaxation| {
                format!(
                    "the {} buffers live in ticks [{}, {}) of at least {} bytes, sizes rounded down to {} (max-load {})",
                    r.buffers, r.start, r.end, r.min_size, r.round, r.max_load
                )
            };
            for d in memplan_core::algo::exact::relax_bound(&p, &o) {
                let how = match &d.proof {
                    Some(pr) => format!(
                        "capacity {} refuted for {} in {} nodes",
                        pr.refuted,
                        show(&pr.relaxation),
                        pr.nodes
                    ),
                    None => "no relaxation refuted".to_string(),
                };
                println!(
                    "{f}: space {} max-load {}, relaxation bound {} (+{}, unit {}): {how}; {} relaxations built, {} within the gap, {} fit at the bound, {} undecided ({} of them drop or shrink buffers){}; {} probes, {} refutations, {} nodes, {} rounds, {:.2} s",
                    d.space.0,
                    d.max_load,
                    d.bound,
                    d.bound - d.max_load,
                    d.unit,
                    d.built,
                    d.candidates,
                    d.fitting,
                    d.open.len(),
                    d.open
                        .iter()
                        .filter(|r| r.min_size > 0 || r.round > d.unit)
                        .count(),
                    d.open
                        .iter()
                        .take(5)
                        .map(|r| format!(", {}", show(r)))
                        .collect::<String>(),
                    d.probes,
                    d.refutations,
                    d.nodes,
                    d.rounds,
                    t.elapsed().as_secs_f64()
                );
            }
            continue;
        }
        if let Some(secs) = deep {
            let t = Instant::now();
            let mut o = dopts.clone();
            o.deadline = Some(t + Duration::from_secs_f64(secs));
            for d in memplan_core::algo::exact::deep_bound(&p, &o) {
                let how = match &d.proof {
                    Some(pr) => format!(
                        "capacity {} refuted for the {} buffers live in ticks [{}, {}) in {} nodes",
                        pr.refuted, pr.buffers, pr.start, pr.end, pr.nodes
                    ),
                    None => "no window refuted".to_string(),
                };
                println!(
                    "{f}: space {} max-load {}, deep bound {} (+{}, unit {}): {how}; {} windows ({} fit at the bound, narrowest undecided {}), {} probes, {} refutations, {} nodes, {} rounds, {:.2} s",
                    d.space.0,
                    d.max_load,
                    d.bound,
                    d.bound - d.max_load,
                    d.unit,
                    d.windows,
                    d.fitting,
                    d.narrowest_open
                        .map_or("none".to_string(), |(a, b, w)| format!(
                            "{w} sections, ticks [{a}, {b})"
                        )),
                    d.probes,
                    d.refutations,
                    d.nodes,
                    d.rounds,
                    t.elapsed().as_secs_f64()
                );
            }
            continue;
        }
        let mut opts = Options::with_algorithm(Algorithm::Exact);
        opts.time_limit = Some(Duration::from_secs_f64(time));
        opts.node_limit = node_limit;
        if progress {
            let t0 = Instant::now();
            let last = std::sync::Mutex::new((u64::MAX, 0u64));
            opts.progress = Some(std::sync::Arc::new(move |p: &memplan_core::Progress| {
                let mut l = last.lock().unwrap_or_else(|e| e.into_inner());
                if (p.best_peak, p.lower_bound) != *l {
                    *l = (p.best_peak, p.lower_bound);
                    eprintln!(
                        "  {:.2} s, {} nodes: peak {}, lower bound {}",
                        t0.elapsed().as_secs_f64(),
                        p.nodes,
                        p.best_peak,
                        p.lower_bound
                    );
                }
            }));
        }
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..runs {
            let t = Instant::now();
            let r = plan(&p, &opts);
            times.push(t.elapsed().as_secs_f64());
            last = Some(r);
        }
        times.sort_by(f64::total_cmp);
        let Some(Ok(r)) = last else {
            println!("| {f} | error |");
            continue;
        };
        let ok = check_offsets(&p, &r.offsets).is_ok();
        let name = f.rsplit('/').next().unwrap_or(&f);
        println!(
            "| {name} | {} | {lb} | {} | {:.4} | {} | {:?}{} | {} | {:.2} |",
            p.len(),
            r.peak(),
            r.peak() as f64 / lb.max(1) as f64,
            r.optimal,
            r.stop_reason,
            if ok { "" } else { " CHECK FAILED" },
            r.stats.nodes,
            times[times.len() / 2]
        );
    }
}
