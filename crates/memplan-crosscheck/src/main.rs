//! Independent optimality cross-check of `exact` (issue 11): random mid-size
//! problems (15-40 buffers; lifetimes with holes, alignments, fixed offsets)
//! are solved by `exact` and, formulated as a mixed-integer program, by the
//! HiGHS MIP solver (built from source through the `highs` crate). Whenever
//! both prove optimality, the optima must be equal; HiGHS's own solution must
//! pass memplan's independent checker with the peak it claims.
//!
//! The model, for buffers `i` of size `s_i` and alignment `a_i`, an upper bound
//! `U` (the peak of a plan the checker accepted) and the max-load bound `L`:
//! offsets `x_i = a_i k_i` with integer `k_i` (a fixed buffer's `k_i` is
//! fixed), peak `P` in `[L, U]`, `x_i + s_i <= P`, and for every pair of
//! buffers live at a common tick (not both fixed) a binary `z_ij` with
//! `x_i + s_i <= x_j + U (1 - z_ij)` and `x_j + s_j <= x_i + U z_ij`
//! (one of them lies below the other). Minimise `P`.
//!
//! Usage: `memplan-crosscheck [INSTANCES] [SEED] [EXACT_SECS] [MIP_SECS] [DUMP_DIR]`
//! (defaults 200, 1, 20, 60, none). Prints one line per instance and the
//! counts. With `DUMP_DIR`, every instance is also written there as a memplan
//! JSON problem (`NNNN.json`) with exact's result in `NNNN.exact` (`peak optimal
//! seconds`), for `cpsat.py` (the CP-SAT time comparison).

use std::time::{Duration, Instant};

use highs::{HighsModelStatus, RowProblem, Sense};
use memplan_core::{bounds, check_offsets, plan, Algorithm, Buffer, Interval, Options, Problem};

/// xorshift64: deterministic instances without extra crates.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A random single-space problem of `n` buffers that `Problem::validate` accepts.
fn instance(rng: &mut Rng, n: usize) -> Problem {
    loop {
        let horizon = 8 + n as u64;
        let mut bufs = Vec::with_capacity(n);
        for _ in 0..n {
            let size = match rng.below(4) {
                0 => 1 + rng.below(8),
                1 => 8 + rng.below(56),
                _ => 16 * (1 + rng.below(16)),
            };
            let mut live = Vec::new();
            for _ in 0..1 + rng.below(2) {
                let s = rng.below(horizon);
                live.push(Interval::new(s, s + 1 + rng.below(6)));
            }
            let align = [1, 1, 1, 2, 4, 8, 16, 32][rng.below(8) as usize];
            let mut b = Buffer::new(size, 0, 1).with_live(live).with_align(align);
            if rng.below(10) == 0 {
                b = b.fixed_at(align * rng.below(8));
            }
            bufs.push(b);
        }
        let p = Problem::new(bufs);
        if p.validate().is_ok() {
            return p;
        }
    }
}

enum Mip {
    Optimal(u64),
    Unproved,
}

/// Solves `p` with HiGHS given a valid upper bound `ub`; checks its solution.
fn solve_mip(p: &Problem, ub: u64, secs: f64) -> Mip {
    let lb = bounds::max_load(p);
    let u = ub as f64;
    let mut pb = RowProblem::default();
    let peak = pb.add_column(1.0, (lb as f64)..=u);
    let k: Vec<_> = p
        .buffers
        .iter()
        .map(|b| {
            let a = b.align as f64;
            match b.fixed_offset {
                Some(o) => {
                    let v = (o / b.align) as f64;
                    pb.add_integer_column(0.0, v..=v)
                }
                None => {
                    pb.add_integer_column(0.0, 0.0..=((ub - b.size.min(ub)) as f64 / a).floor())
                }
            }
        })
        .collect();
    for (i, b) in p.buffers.iter().enumerate() {
        // a_i k_i + s_i <= P
        pb.add_row(..=-(b.size as f64), [(k[i], b.align as f64), (peak, -1.0)]);
    }
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            let (bi, bj) = (&p.buffers[i], &p.buffers[j]);
            if !bi.overlaps_in_time(bj) || (bi.fixed_offset.is_some() && bj.fixed_offset.is_some())
            {
                continue;
            }
            let z = pb.add_integer_column(0.0, 0.0..=1.0);
            let (ai, aj) = (bi.align as f64, bj.align as f64);
            // z = 1: i below j: a_i k_i + s_i <= a_j k_j + U (1 - z)
            pb.add_row(..=(u - bi.size as f64), [(k[i], ai), (k[j], -aj), (z, u)]);
            // z = 0: j below i: a_j k_j + s_j <= a_i k_i + U z
            pb.add_row(..=-(bj.size as f64), [(k[j], aj), (k[i], -ai), (z, -u)]);
        }
    }
    let mut model = pb.optimise(Sense::Minimise);
    model.make_quiet();
    model.set_option("time_limit", secs);
    model.set_option("threads", 1);
    model.set_option("mip_rel_gap", 0.0);
    model.set_option("mip_abs_gap", 0.5);
    let solved = model.solve();
    if solved.status() != HighsModelStatus::Optimal {
        return Mip::Unproved;
    }
    let cols = solved.get_solution().columns().to_vec();
    let offsets: Vec<u64> = p
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| (cols[1 + i].round() as u64) * b.align)
        .collect();
    let peaks = check_offsets(p, &offsets)
        .unwrap_or_else(|e| panic!("HiGHS's plan fails the checker: {e}"));
    let got = peaks.iter().map(|&(_, x)| x).max().unwrap_or(0);
    let claimed = solved.objective_value().round() as u64;
    assert_eq!(got, claimed, "HiGHS's objective is not its plan's peak");
    Mip::Optimal(got)
}

/// `p` in memplan's JSON input format.
fn to_json(p: &Problem) -> String {
    let rows: Vec<String> = p
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let live: Vec<String> = b
                .live
                .iter()
                .map(|iv| format!("[{}, {}]", iv.start, iv.end))
                .collect();
            let fixed = b
                .fixed_offset
                .map_or(String::new(), |o| format!(", \"offset\": {o}"));
            format!(
                "  {{\"id\": \"b{i}\", \"size\": {}, \"alignment\": {}, \"live\": [{}]{fixed}}}",
                b.size,
                b.align,
                live.join(", ")
            )
        })
        .collect();
    format!("{{\"buffers\": [\n{}\n]}}\n", rows.join(",\n"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dump = args.get(5).map(std::path::PathBuf::from);
    if let Some(d) = &dump {
        std::fs::create_dir_all(d).expect("create the dump directory");
    }
    let arg = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (count, seed, exact_secs, mip_secs) = (arg(1, 200), arg(2, 1), arg(3, 20), arg(4, 60));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed);
    let (mut both, mut equal, mut exact_unproved, mut mip_unproved, mut above_lb) = (0, 0, 0, 0, 0);
    let (mut t_exact, mut t_mip) = (0.0f64, 0.0f64);
    for idx in 0..count {
        let n = 15 + rng.below(26) as usize;
        let p = instance(&mut rng, n);
        let lb = bounds::max_load(&p);
        let mut opts = Options::with_algorithm(Algorithm::Exact);
        opts.time_limit = Some(Duration::from_secs(exact_secs));
        let t0 = Instant::now();
        let ex = plan(&p, &opts).expect("exact plans");
        let te = t0.elapsed().as_secs_f64();
        if let Some(d) = &dump {
            std::fs::write(d.join(format!("{idx:04}.json")), to_json(&p)).expect("write");
            std::fs::write(
                d.join(format!("{idx:04}.exact")),
                format!("{} {} {te}\n", ex.peak(), ex.optimal),
            )
            .expect("write");
        }
        let t1 = Instant::now();
        let mip = solve_mip(&p, ex.peak(), mip_secs as f64);
        let tm = t1.elapsed().as_secs_f64();
        let verdict = match (&mip, ex.optimal) {
            (Mip::Optimal(m), true) => {
                both += 1;
                t_exact += te;
                t_mip += tm;
                if ex.peak() > lb {
                    above_lb += 1;
                }
                assert_eq!(
                    ex.peak(),
                    *m,
                    "instance {idx}: exact proved {} optimal, HiGHS proved {m}",
                    ex.peak()
                );
                equal += 1;
                "equal".to_string()
            }
            (Mip::Optimal(m), false) => {
                exact_unproved += 1;
                assert!(*m <= ex.peak());
                format!("exact unproved (exact {} vs HiGHS optimum {m})", ex.peak())
            }
            (Mip::Unproved, true) => {
                mip_unproved += 1;
                "HiGHS unproved".to_string()
            }
            (Mip::Unproved, false) => {
                exact_unproved += 1;
                mip_unproved += 1;
                "neither proved".to_string()
            }
        };
        println!(
            "{idx:4} n={n:2} lb={lb:5} exact={:5} exact_s={te:.3} mip_s={tm:.3} {verdict}",
            ex.peak()
        );
    }
    println!(
        "instances {count}: both proved {both} (equal {equal}; optimum above the max-load bound on {above_lb}); exact unproved {exact_unproved}; HiGHS unproved {mip_unproved}; time on the jointly proved: exact {t_exact:.2} s, HiGHS {t_mip:.2} s"
    );
}
