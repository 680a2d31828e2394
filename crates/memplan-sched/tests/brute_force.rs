//! `exact` against brute force: on random DAGs of up to 9 nodes, the least
//! peak over all topological orders (enumerated) equals `exact`'s peak, its
//! lower bound is valid, and every scheduler's order passes the independent
//! checker together with a placement.

use memplan_sched::{
    check, exact, heuristic_order, must_live_bound, place, schedule, ExactOptions, Graph,
    ScheduleOptions, Scheduler,
};

/// xorshift64*: a tiny deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random DAG: nodes 0..n, edges only from lower to higher ids (then the
/// ids are what a file would give), buffers produced by nodes or graph inputs,
/// read by later nodes, some graph outputs, some zero-size, some unread.
fn random_graph(rng: &mut Rng, n: usize) -> Graph {
    let mut preds = Vec::with_capacity(n);
    let mut buffers = Vec::new();
    // graph inputs
    for _ in 0..rng.below(3) {
        let cons: Vec<usize> = (0..n).filter(|_| rng.below(4) == 0).collect();
        buffers.push((1 + rng.below(50), None, cons, rng.below(8) == 0));
    }
    let density = 2 + rng.below(4);
    for v in 0..n {
        for _ in 0..rng.below(4) {
            let mut cons: Vec<usize> = (v + 1..n).filter(|_| rng.below(density) == 0).collect();
            if cons.is_empty() && v + 1 < n && rng.below(4) != 0 {
                cons.push(v + 1 + rng.below((n - v - 1) as u64) as usize);
            }
            let size = if rng.below(10) == 0 {
                0
            } else {
                1 + rng.below(100)
            };
            buffers.push((size, Some(v), cons, rng.below(10) == 0));
        }
        // extra ordering edges without buffers
        let extra: Vec<usize> = (0..v).filter(|_| rng.below(4 * density) == 0).collect();
        preds.push(extra);
    }
    Graph::from_parts(preds, buffers).expect("generated graphs are valid")
}

/// The least peak over all topological orders, by enumeration.
fn brute_force(g: &Graph) -> u64 {
    fn rec(g: &Graph, order: &mut Vec<usize>, used: &mut [bool], best: &mut u64) {
        let n = g.len();
        if order.len() == n {
            *best = (*best).min(g.peak(order));
            return;
        }
        for v in 0..n {
            if !used[v] && g.nodes[v].preds.iter().all(|&p| used[p]) {
                used[v] = true;
                order.push(v);
                rec(g, order, used, best);
                order.pop();
                used[v] = false;
            }
        }
    }
    let mut best = u64::MAX;
    rec(g, &mut Vec::new(), &mut vec![false; g.len()], &mut best);
    best
}

#[test]
fn exact_equals_brute_force_on_random_dags() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut loose, mut searched) = (0, 0);
    for case in 0..600 {
        let n = 1 + (case % 9);
        let g = random_graph(&mut rng, n);
        let opt = brute_force(&g);
        let bound = must_live_bound(&g);
        assert!(
            bound <= opt,
            "case {case}: bound {bound} above optimum {opt}"
        );
        loose += usize::from(bound < opt);
        // From a plain Kahn order (the search has work to do) ...
        let r = exact::exact(&g, &ExactOptions::default());
        assert_eq!(
            r.peak, opt,
            "case {case}: exact {} vs brute force {opt}",
            r.peak
        );
        assert!(r.proved && r.lower_bound == opt, "case {case}");
        assert_eq!(g.peak(&r.order), r.peak, "case {case}");
        searched += usize::from(r.nodes > 1);
        // ... and through `schedule`, starting from the best heuristic.
        let s = schedule(&g, Scheduler::Exact, &ScheduleOptions::default());
        assert_eq!(s.peak, opt, "case {case}");
        assert!(s.proved);
        for sch in Scheduler::ALL {
            let s = schedule(&g, sch, &ScheduleOptions::default());
            assert!(
                s.peak >= opt,
                "case {case}: {} below the optimum",
                sch.name()
            );
            assert!(s.lower_bound <= opt, "case {case}: {} bound", sch.name());
            let p = place(&g, &s.order, &memplan_core::Options::default()).unwrap();
            let (load, arena) =
                check::check_schedule_plan(&g, &s.order, &p.offsets, Some(p.peak)).unwrap();
            assert_eq!(load, s.peak, "case {case}: {}", sch.name());
            assert!(arena >= load);
        }
    }
    // The cases must exercise the search, not only the bound.
    eprintln!("{loose} cases with a loose static bound, {searched} searched");
    assert!(
        loose >= 60 && searched >= 60,
        "{loose} loose, {searched} searched"
    );
}

/// Random in-place hints: some outputs get their size set to an input's.
fn random_inplace_graph(rng: &mut Rng, n: usize) -> Graph {
    let g = random_graph(rng, n);
    let preds: Vec<Vec<usize>> = g.nodes.iter().map(|v| v.preds.clone()).collect();
    let mut bufs: Vec<(u64, Option<usize>, Vec<usize>, bool)> = g
        .buffers
        .iter()
        .map(|b| (b.size, b.producer, b.consumers.clone(), b.graph_output))
        .collect();
    let mut hints = Vec::new();
    for v in 0..n {
        for &o in &g.nodes[v].outputs {
            if let Some(&b) = g.reads[v].get(rng.below(3) as usize) {
                if rng.below(2) == 0 {
                    // equal sizes make several hints of one node compete
                    if rng.below(3) == 0 {
                        for &o2 in &g.nodes[v].outputs {
                            bufs[o2].0 = bufs[b].0;
                        }
                    }
                    bufs[o].0 = bufs[b].0;
                    hints.push((v, o, b));
                }
            }
        }
    }
    let mut g = Graph::from_parts(preds, bufs).unwrap();
    for (v, o, b) in hints {
        if g.buffers[o].size == g.buffers[b].size {
            g.add_inplace(v, o, b).unwrap();
        }
    }
    // Sometimes every output-input pair of equal size, so that hints compete.
    if rng.below(3) == 0 {
        for v in 0..n {
            for o in g.nodes[v].outputs.clone() {
                for b in g.reads[v].clone() {
                    if g.buffers[o].size == g.buffers[b].size {
                        g.add_inplace(v, o, b).unwrap();
                    }
                }
            }
        }
    }
    g
}

#[test]
fn exact_equals_brute_force_with_inplace_hints() {
    let mut rng = Rng(0x1234_5678);
    let mut reused = 0;
    for case in 0..1500 {
        let g = random_inplace_graph(&mut rng, 1 + case % 9);
        let opt = brute_force(&g);
        assert!(must_live_bound(&g) <= opt, "case {case}");
        let r = exact::exact(&g, &ExactOptions::default());
        assert_eq!(r.peak, opt, "case {case}");
        assert!(r.proved);
        for sch in Scheduler::ALL {
            let s = schedule(&g, sch, &ScheduleOptions::default());
            reused += g.inplace_pairs(&s.order).len();
            let p = place(&g, &s.order, &memplan_core::Options::default()).unwrap();
            let (load, arena) =
                check::check_schedule_plan(&g, &s.order, &p.offsets, Some(p.peak)).unwrap();
            assert_eq!(load, s.peak, "case {case}: {}", sch.name());
            assert!(arena >= load && s.peak >= opt);
        }
    }
    assert!(reused > 500, "{reused}");
}

#[test]
fn a_node_limit_keeps_a_valid_order_and_bound() {
    let mut rng = Rng(7);
    for _ in 0..50 {
        let g = random_graph(&mut rng, 9);
        let opt = brute_force(&g);
        let r = exact::exact(
            &g,
            &ExactOptions {
                node_limit: Some(2),
                ..ExactOptions::default()
            },
        );
        check::check_order(&g, &r.order).unwrap();
        assert!(r.peak >= opt && r.lower_bound <= opt);
        assert_eq!(r.proved, r.peak == r.lower_bound);
    }
}

#[test]
fn checker_rejects_bad_orders_and_overlaps() {
    // 0 -> 1 -> 2, buffers a (0 -> 1), b (1 -> 2), c (2, output).
    let g = Graph::from_parts(
        vec![vec![], vec![0], vec![1]],
        vec![
            (10, Some(0), vec![1], false),
            (20, Some(1), vec![2], false),
            (5, Some(2), vec![], true),
        ],
    )
    .unwrap();
    assert!(matches!(
        check::check_order(&g, &[1, 0, 2]),
        Err(check::ScheduleError::NotTopological { .. })
    ));
    assert!(check::check_order(&g, &[0, 0, 2]).is_err());
    assert!(check::check_order(&g, &[0, 1]).is_err());
    let order = heuristic_order(&g, Scheduler::Given);
    // a and b overlap in time at step 1; c reuses a's bytes (a dies at step 1).
    let good = [Some(0), Some(10), Some(0)];
    assert_eq!(
        check::check_schedule_plan(&g, &order, &good, Some(30)),
        Ok((30, 30))
    );
    let clash = [Some(0), Some(5), Some(0)];
    assert!(matches!(
        check::check_schedule_plan(&g, &order, &clash, None),
        Err(check::ScheduleError::Overlap {
            a: 0,
            b: 1,
            step: 1
        })
    ));
    let missing = [Some(0), None, Some(0)];
    assert!(matches!(
        check::check_schedule_plan(&g, &order, &missing, None),
        Err(check::ScheduleError::MissingOffset(1, 20))
    ));
    assert!(matches!(
        check::check_schedule_plan(&g, &order, &good, Some(31)),
        Err(check::ScheduleError::WrongPeak { .. })
    ));
}

#[test]
fn bad_graphs_name_the_place() {
    let e = Graph::from_json("{\"nodes\": [], \"buffers\": [}").unwrap_err();
    assert!(e.at.starts_with("line 1, column"), "{e}");
    let e = Graph::from_json(r#"{"nodes": [{"id": 0, "preds": [3]}], "buffers": []}"#).unwrap_err();
    assert_eq!(e.at, "nodes[0].preds[0]");
    let e = Graph::from_json(
        r#"{"nodes": [{"id": 0, "preds": [1]}, {"id": 1, "preds": [0]}], "buffers": []}"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("cycle") || e.at == "order", "{e}");
    let e = Graph::from_json(
        r#"{"nodes": [{"id": 0}], "buffers": [{"id": 0, "size": 4, "producer": 0, "consumers": [7]}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.at, "buffers[0].consumers[0]");
    let e = Graph::from_json(
        r#"{"nodes": [{"id": 0, "outputs": [0]}, {"id": 1, "inputs": []}], "buffers": [{"id": 0, "size": 4, "producer": 0, "consumers": [1]}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.at, "nodes[1].inputs");
    let e = Graph::from_json(
        r#"{"nodes": [], "buffers": [{"id": 0, "size": 18446744073709551615, "producer": null},
            {"id": 1, "size": 1, "producer": null}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.at, "buffers[1].size");
}

#[test]
fn diamond_needs_the_search() {
    // s makes P and Q; p reads P, makes P'; q reads Q, makes Q'; t reads P', Q'.
    let g = Graph::from_parts(
        vec![vec![], vec![0], vec![0], vec![1, 2]],
        vec![
            (100, Some(0), vec![1], false),
            (100, Some(0), vec![2], false),
            (100, Some(1), vec![3], false),
            (100, Some(2), vec![3], false),
            (1, Some(3), vec![], true),
        ],
    )
    .unwrap();
    assert_eq!(brute_force(&g), 300);
    assert_eq!(must_live_bound(&g), 201);
    let r = exact::exact(&g, &ExactOptions::default());
    assert_eq!((r.peak, r.lower_bound, r.proved), (300, 300, true));
}

/// On every shared benchmark graph (when ../shared is there): the given
/// order's peak is the file's checksum, every scheduler's order passes the
/// checker with a placement, and `exact` is at or below `best`.
#[test]
fn shared_graphs() {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/benchmarks");
    let mut files = Vec::new();
    for dir in ["onnx/graphs", "graphs"] {
        if let Ok(rd) = std::fs::read_dir(base.join(dir)) {
            for e in rd.flatten() {
                if e.path().extension().is_some_and(|x| x == "json") {
                    files.push(e.path());
                }
            }
        }
    }
    files.sort();
    assert!(!base.exists() || files.len() >= 14, "{files:?}");
    for f in files {
        let g = Graph::from_json(&std::fs::read_to_string(&f).unwrap()).unwrap();
        assert_eq!(Some(g.peak(&g.given_order)), g.stated_peak, "{f:?}");
        let opts = ScheduleOptions {
            time_limit: Some(std::time::Duration::from_secs(5)),
            node_limit: None,
        };
        let best = schedule(&g, Scheduler::Best, &opts);
        let ex = schedule(&g, Scheduler::Exact, &opts);
        assert!(ex.peak <= best.peak && ex.lower_bound <= ex.peak, "{f:?}");
        for s in Scheduler::HEURISTICS {
            let sc = schedule(&g, s, &opts);
            assert!(best.peak <= sc.peak);
            let p = place(&g, &sc.order, &memplan_core::Options::default()).unwrap();
            let (load, _) =
                check::check_schedule_plan(&g, &sc.order, &p.offsets, Some(p.peak)).unwrap();
            assert_eq!(load, sc.peak, "{f:?} {}", s.name());
        }
        // Seed 001's option: independently checked, and valid sequentially too.
        let p = memplan_sched::place_branch_safe(&g);
        memplan_sched::check_branch_safe(&g, &p.offsets).unwrap();
        check::check_schedule_plan(&g, &ex.order, &p.offsets, Some(p.peak)).unwrap();
        // In-place elementwise ops: never worse, checked with the reuses.
        let mut gi = g.clone();
        gi.add_elementwise_inplace();
        let exi = schedule(&gi, Scheduler::Exact, &opts);
        assert!(exi.peak <= ex.peak && exi.lower_bound <= exi.peak, "{f:?}");
        let p = place(&gi, &exi.order, &memplan_core::Options::default()).unwrap();
        let (load, _) =
            check::check_schedule_plan(&gi, &exi.order, &p.offsets, Some(p.peak)).unwrap();
        assert_eq!(load, exi.peak, "{f:?}");
    }
}

#[test]
fn branch_safe_placements_pass_both_checkers() {
    let mut rng = Rng(99);
    for case in 0..300 {
        let g = random_graph(&mut rng, 2 + case % 12);
        let p = memplan_sched::place_branch_safe(&g);
        memplan_sched::check_branch_safe(&g, &p.offsets).unwrap();
        for s in [Scheduler::Given, Scheduler::Best, Scheduler::Exact] {
            let order = schedule(&g, s, &ScheduleOptions::default()).order;
            let (_, arena) =
                check::check_schedule_plan(&g, &order, &p.offsets, Some(p.peak)).unwrap();
            assert_eq!(arena, p.peak);
        }
    }
}

#[test]
fn concurrency_checker_rejects_sharing_across_branches() {
    // s makes P and Q; p reads P, makes P'; q reads Q, makes Q'; t reads P', Q'.
    let g = Graph::from_parts(
        vec![vec![], vec![0], vec![0], vec![1, 2]],
        vec![
            (100, Some(0), vec![1], false),
            (100, Some(0), vec![2], false),
            (100, Some(1), vec![3], false),
            (100, Some(2), vec![3], false),
            (1, Some(3), vec![], true),
        ],
    )
    .unwrap();
    // In the order s, p, q, t, P dies at step 1 and Q' is born at step 2: the
    // sequential checker accepts sharing, the concurrency checker does not (p ‖ q).
    let offsets = [Some(0), Some(100), Some(200), Some(0), Some(300)];
    check::check_schedule_plan(&g, &[0, 1, 2, 3], &offsets, None).unwrap();
    assert_eq!(
        memplan_sched::check_branch_safe(&g, &offsets),
        Err(memplan_sched::concurrent::BranchConflict { a: 0, b: 3 })
    );
    // P dies (at p) before t makes its output: sharing is fine.
    let offsets = [Some(0), Some(100), Some(200), Some(300), Some(0)];
    memplan_sched::check_branch_safe(&g, &offsets).unwrap();
    let p = memplan_sched::place_branch_safe(&g);
    memplan_sched::check_branch_safe(&g, &p.offsets).unwrap();
    assert_eq!(p.peak, 400);
}
