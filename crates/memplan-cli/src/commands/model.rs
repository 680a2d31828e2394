//! `memplan model`: read a dataflow graph (an ONNX model or the benchmarks'
//! graph JSON),
//! choose an execution order with a memory-aware scheduler
//! ([`memplan_sched`]), place the buffers for that order with a
//! memplan-core planner, re-check order and offsets with the independent
//! checker, and report the peak with a lower bound valid over all orders.
//! Exit codes: 0 success, 1 a result failing the check, 2 bad input.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use memplan_core::Algorithm;
use memplan_sched::{check, place, schedule, Graph, ScheduleOptions, Scheduler};
use serde::Serialize;

use crate::commands::plan::{options_for, parse_algorithm, parse_seconds};
use crate::diag;

const HELP: &str = "\
Input: an ONNX model (.onnx; shapes inferred, weights may be ConstantOfShape
nodes or external data that is absent), read with the memory model of
benchmarks/onnx/README.md (views alias their input); or the graph JSON of
benchmarks/onnx/graphs/*.json and benchmarks/graphs/*.json:
  {\"buffers\": [{\"id\", \"size\", \"producer\" (node id or null for a graph input),
                \"consumers\", \"graph_input\", \"graph_output\", ...}],
   \"nodes\": [{\"id\", \"op\", \"inputs\", \"outputs\", \"preds\", \"name\"}],
   \"order\": [node ids]}
A buffer lives from its producer's step (0 for a graph input) to its last
consumer's step inclusive; graph outputs to the last step.

Schedulers: given (the file's order), lpmf, bfs, dfs (PyTorch Inductor),
list, xla-dfs, postorder (XLA), best (lowest peak of those), exact (branch
and bound from best; anytime under --time-limit, default 10 s). When the
placement of exact's order leaves a gap above the bound, exact goes on with
a joint search of order and placement together (branch and bound over ready
sets, dominance on executed-node sets by the conflicts of the buffers made
so far, every surviving order placed by the exact planner) in the time left;
the summary then has a `joint` object.

Output (-o RESULT.json): order, offsets (buffer id -> byte offset, every
buffer of non-zero size), peak (arena bytes), schedule_peak (max-load of the
order), schedule_lower_bound (valid over all orders), proved (peak equals
that bound).

--inplace elementwise: an elementwise op's output may take the bytes of an
input of the same size that the op reads last (not a graph input or output);
the peak, the bounds and the checker all count that reuse. Nodes may also
carry hints in the file: \"inplace\": [[output buffer, input buffer], ...].

--gradients FILE [--optimizer step|per-parameter]: adds the parameter gradients
of a training graph (excluded from the shared graph JSON) as buffers made by
their nodes: `step` holds each to the end (one optimizer step after the graph),
`per-parameter` lets an in-place update node read it right away (it may run
anywhere after its producer; the given order runs it at once).

--no-reuse-across-branches: two buffers share bytes only when every node
touching one precedes, in the graph, the producer of the other; the summary
then also gives the peak with reuse (the cost of the option).

Exit status: 0 success, 1 a result failing the independent check, 2 bad input.";

/// Arguments of `memplan model`.
#[derive(clap::Args)]
#[command(after_long_help = HELP)]
pub struct ModelArgs {
    /// The graph: an ONNX model (.onnx) or graph JSON (.json).
    #[arg(value_name = "GRAPH")]
    pub input: PathBuf,
    /// The scheduler choosing the execution order.
    #[arg(long, value_name = "NAME", default_value = "exact", value_parser = parse_scheduler)]
    pub schedule: Scheduler,
    /// The planner placing the buffers for that order.
    #[arg(long, value_name = "NAME", default_value = "portfolio", value_parser = parse_algorithm)]
    pub algo: Algorithm,
    /// Wall-clock limit of the exact scheduler (default 10 s) and of a searching planner.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Node budget of the exact scheduler (deterministic, unlike --time-limit).
    #[arg(long, value_name = "N")]
    pub node_limit: Option<u64>,
    /// In-place rule: `elementwise` lets elementwise ops (Relu, Add, Mul, BatchNormalization,
    /// ...) write their output into an input of the same size that they read last; hints in
    /// the file (`"inplace": [[output, input], ...]` on a node) always apply.
    #[arg(long, value_name = "RULE", value_parser = ["elementwise"])]
    pub inplace: Option<String>,
    /// Buffers of nodes on independent branches never share bytes (a runtime may run the
    /// branches in parallel); reports the cost against the normal placement.
    #[arg(long)]
    pub no_reuse_across_branches: bool,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Write a self-contained HTML report here: plan picture, live-bytes curve,
    /// schedule, and every scheduler x planner.
    #[arg(long, value_name = "OUT.html")]
    pub report: Option<PathBuf>,
    /// Training graphs: the parameter gradients, `{"gradients": [{"node": NAME, "bytes": N,
    /// "param": WHAT}]}` (scripts/training_gradients.py writes them for the shared graphs).
    #[arg(long, value_name = "FILE.json")]
    pub gradients: Option<PathBuf>,
    /// With --gradients: `step` (default) holds every gradient to the end for one optimizer
    /// step; `per-parameter` adds an in-place update node per gradient, so it dies early.
    #[arg(long, value_name = "MODE", value_parser = ["step", "per-parameter"])]
    pub optimizer: Option<String>,
    /// With an .onnx input: also write the graph it reads, as graph JSON (the schema of
    /// benchmarks/onnx/graphs/*.json).
    #[arg(long, value_name = "GRAPH.json")]
    pub emit_graph: Option<PathBuf>,
    /// Write order and offsets here (JSON; `-` for stdout).
    #[arg(short, long, value_name = "RESULT.json")]
    pub output: Option<PathBuf>,
}

fn parse_scheduler(name: &str) -> Result<Scheduler, String> {
    Scheduler::from_name(name).ok_or_else(|| {
        format!(
            "unknown scheduler `{name}`; valid names: {}",
            Scheduler::all_names()
        )
    })
}

#[derive(Serialize)]
struct Summary {
    peak: u64,
    schedule_lower_bound: u64,
    proved: bool,
    scheduler: &'static str,
    algorithm: String,
    seconds: f64,
    schedule_peak: u64,
    schedule_proved: bool,
    inplace_reuses: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_with_reuse_across_branches: Option<u64>,
    /// Present when the joint search (order and placement together) ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    joint: Option<JointSummary>,
    nodes: usize,
    buffers: usize,
}

#[derive(Serialize)]
struct JointSummary {
    improved: bool,
    proved: bool,
    nodes: u64,
    leaves: u64,
    limit_reached: bool,
}

#[derive(Serialize)]
struct ResultFile<'a> {
    graph: String,
    scheduler: &'static str,
    algorithm: &'a str,
    peak: u64,
    schedule_peak: u64,
    schedule_lower_bound: u64,
    proved: bool,
    reuse_across_branches: bool,
    order: &'a [usize],
    offsets: BTreeMap<usize, u64>,
}

/// Runs `memplan model`.
pub fn run(args: ModelArgs) -> ExitCode {
    match model(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => ExitCode::from(code),
    }
}

fn model(args: &ModelArgs) -> Result<(), u8> {
    let path = args.input.display().to_string();
    let bytes = std::fs::read(&args.input).map_err(|e| {
        diag::error(format!("{path}: cannot read: {e}"));
        2u8
    })?;
    let bad = |e: memplan_sched::GraphError| {
        diag::error(format!("{path}: {e}"));
        2u8
    };
    // An ONNX model by extension, or by content when it does not start like JSON.
    let is_onnx = args.input.extension().is_some_and(|x| x == "onnx")
        || bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{');
    let doc = if is_onnx {
        Some(memplan_sched::onnx::onnx_graph_json(&bytes).map_err(bad)?)
    } else {
        None
    };
    let mut doc = doc;
    if let Some(gpath) = &args.gradients {
        // Parameter gradients (training graphs): held to the end or updated per parameter.
        let mut d = match doc.take() {
            Some(d) => d,
            None => serde_json::from_slice(&bytes).map_err(|e| {
                diag::error(format!(
                    "{path}: line {}, column {}: {e}",
                    e.line(),
                    e.column()
                ));
                2u8
            })?,
        };
        let gname = gpath.display().to_string();
        let text = std::fs::read_to_string(gpath).map_err(|e| {
            diag::error(format!("{gname}: cannot read: {e}"));
            2u8
        })?;
        let grads = memplan_sched::parse_gradients(&text, &d).map_err(|e| {
            diag::error(format!("{gname}: {e}"));
            2u8
        })?;
        let mode = match args.optimizer.as_deref() {
            Some("per-parameter") => memplan_sched::OptimizerMode::PerParameter,
            _ => memplan_sched::OptimizerMode::Step,
        };
        memplan_sched::add_gradients(&mut d, &grads, mode).map_err(|e| {
            diag::error(format!("{gname}: {e}"));
            2u8
        })?;
        doc = Some(d);
    } else if args.optimizer.is_some() {
        diag::error(format!("{path}: --optimizer needs --gradients FILE"));
        return Err(2);
    }
    let mut graph = match &doc {
        Some(d) => Graph::from_json(&d.to_string()),
        None => Graph::from_json(&String::from_utf8_lossy(&bytes)),
    }
    .map_err(bad)?;
    if let Some(out) = &args.emit_graph {
        let Some(d) = &doc else {
            diag::error(format!(
                "{path}: --emit-graph needs an .onnx input or --gradients"
            ));
            return Err(2);
        };
        let mut text = serde_json::to_string(d).expect("serialisable");
        text.push('\n');
        if let Err(e) = std::fs::write(out, text) {
            diag::error(format!("{}: cannot write: {e}", out.display()));
            return Err(2);
        }
    }
    if args.inplace.is_some() {
        graph.add_elementwise_inplace();
    }
    let start = Instant::now();
    let sopts = ScheduleOptions {
        time_limit: Some(args.time_limit.unwrap_or(Duration::from_secs(10))),
        node_limit: args.node_limit,
    };
    let sched = schedule(&graph, args.schedule, &sopts);
    let popts = options_for(args.algo, args.time_limit, None);
    let mut placement = place(&graph, &sched.order, &popts).map_err(|e| {
        diag::error(format!("{path}: placement failed: {e}"));
        1u8
    })?;
    // The default portfolio may leave a gap above the order's max-load (in-place
    // groups make placement harder): then the exact planner gets a try.
    if args.algo == Algorithm::Portfolio && placement.peak > sched.peak {
        let eopts = options_for(Algorithm::Exact, args.time_limit, None);
        if let Ok(p) = place(&graph, &sched.order, &eopts) {
            if p.peak < placement.peak {
                placement = p;
            }
        }
    }
    // Order then place left a gap: search order and placement together
    // (memplan_sched::joint) with what is left of the time limit.
    let mut sched = sched;
    let mut joint = None;
    if args.schedule == Scheduler::Exact
        && !args.no_reuse_across_branches
        && placement.peak > sched.lower_bound
    {
        let limit = sopts.time_limit.unwrap_or(Duration::from_secs(10));
        let r = memplan_sched::joint(
            &graph,
            &sched.order,
            &placement,
            &memplan_sched::JointOptions {
                time_limit: Some(limit.saturating_sub(start.elapsed())),
                node_limit: args.node_limit,
                leaf_node_limit: None,
                lower_bound: Some(sched.lower_bound),
            },
        );
        if r.improved {
            sched.order = r.order.clone();
            sched.peak = r.max_load;
            placement = r.placement.clone();
        }
        sched.lower_bound = sched.lower_bound.max(r.lower_bound);
        sched.proved = sched.peak == sched.lower_bound;
        joint = Some(JointSummary {
            improved: r.improved,
            proved: r.proved,
            nodes: r.nodes,
            leaves: r.leaves,
            limit_reached: r.limit_reached,
        });
    }
    let mut with_reuse = None;
    if args.no_reuse_across_branches {
        with_reuse = Some(placement.peak);
        placement = memplan_sched::place_branch_safe(&graph);
        if let Err(e) = memplan_sched::check_branch_safe(&graph, &placement.offsets) {
            diag::error(format!(
                "{path}: the result fails the concurrency check: {e}"
            ));
            return Err(1);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let (max_load, arena) = check::check_schedule_plan(
        &graph,
        &sched.order,
        &placement.offsets,
        Some(placement.peak),
    )
    .map_err(|e| {
        diag::error(format!("{path}: the result fails the check: {e}"));
        1u8
    })?;
    if max_load != sched.peak || arena < sched.lower_bound {
        diag::error(format!(
            "{path}: the checker's max-load {max_load} disagrees with the scheduler's {}",
            sched.peak
        ));
        return Err(1);
    }
    let summary = Summary {
        peak: arena,
        schedule_lower_bound: sched.lower_bound,
        proved: arena == sched.lower_bound && !args.no_reuse_across_branches,
        scheduler: args.schedule.name(),
        algorithm: placement.algorithm.clone(),
        seconds,
        schedule_peak: sched.peak,
        schedule_proved: sched.proved,
        inplace_reuses: if args.no_reuse_across_branches {
            0
        } else {
            graph.inplace_pairs(&sched.order).len()
        },
        peak_with_reuse_across_branches: with_reuse,
        joint,
        nodes: graph.len(),
        buffers: graph.buffers.len(),
    };
    if let Some(out) = &args.output {
        let offsets = placement
            .offsets
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.map(|o| (i, o)))
            .collect();
        let file = ResultFile {
            graph: path.clone(),
            scheduler: args.schedule.name(),
            algorithm: &placement.algorithm,
            peak: arena,
            schedule_peak: sched.peak,
            schedule_lower_bound: sched.lower_bound,
            proved: summary.proved,
            reuse_across_branches: !args.no_reuse_across_branches,
            order: &sched.order,
            offsets,
        };
        let mut text = serde_json::to_string_pretty(&file).expect("serialisable");
        text.push('\n');
        if out.as_os_str() == "-" {
            print!("{text}");
        } else if let Err(e) = std::fs::write(out, text) {
            diag::error(format!("{}: cannot write: {e}", out.display()));
            return Err(2);
        }
    }
    if let Some(out) = &args.report {
        let html = crate::commands::report::render(&crate::commands::report::Chosen {
            path: &path,
            graph: &graph,
            schedule: &sched,
            scheduler: args.schedule,
            placement: &placement,
            seconds,
            time_limit: sopts.time_limit.unwrap_or(Duration::from_secs(10)),
        });
        if let Err(e) = std::fs::write(out, html) {
            diag::error(format!("{}: cannot write: {e}", out.display()));
            return Err(2);
        }
    }
    let to_stdout = args.output.as_ref().is_some_and(|o| o.as_os_str() == "-");
    let report = if args.json {
        serde_json::to_string(&summary).expect("serialisable")
    } else if let Some(normal) = with_reuse {
        format!(
            "{path}: {} nodes, {} buffers\nscheduler {} (order peak {}), no reuse across branches: peak {arena} bytes vs {normal} with reuse (+{:.2}%), {seconds:.3} s",
            summary.nodes,
            summary.buffers,
            summary.scheduler,
            summary.schedule_peak,
            100.0 * (arena as f64 / normal.max(1) as f64 - 1.0),
        )
    } else {
        let gap = if summary.schedule_lower_bound == 0 {
            0.0
        } else {
            100.0 * (arena as f64 / summary.schedule_lower_bound as f64 - 1.0)
        };
        format!(
            "{path}: {} nodes, {} buffers\nscheduler {} (order peak {}{}), placement {}{}\npeak {arena} bytes, lower bound over all orders {} ({}, gap {gap:.3}%), {seconds:.3} s",
            summary.nodes,
            summary.buffers,
            summary.scheduler,
            summary.schedule_peak,
            if summary.joint.as_ref().is_some_and(|j| j.improved) {
                ", from the joint search".to_string()
            } else if args.schedule == Scheduler::Best || args.schedule == Scheduler::Exact {
                format!(", from {}", sched.winner.name())
            } else {
                String::new()
            },
            summary.algorithm,
            match &summary.joint {
                Some(j) => format!(
                    "; joint order+placement search: {} nodes, {} orders placed, {}",
                    j.nodes,
                    j.leaves,
                    if j.improved { "improved" } else { "no better pair" }
                ),
                None => String::new(),
            },
            summary.schedule_lower_bound,
            if summary.proved { "proved optimal" } else { "not proved" },
        )
    };
    if to_stdout {
        eprintln!("{report}");
    } else {
        println!("{report}");
    }
    Ok(())
}
