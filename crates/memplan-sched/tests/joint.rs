//! The joint search (order and placement together) against brute force: on
//! random DAGs of up to 8 nodes with small sizes and several outputs per
//! node (so that fragmentation matters), the least arena over **every**
//! topological order and **every** placement, enumerated here with code of
//! its own, equals the arena `joint` reaches from the order-then-place pair,
//! `joint` proves it, and every result passes the independent checker.
//!
//! Why integer offsets in `[0, T - size]` are an exhaustive enumeration of
//! placements into an arena of `T` bytes: take any placement (real offsets)
//! that fits. Repeatedly take a buffer that neither sits at 0 nor rests on the
//! top of a buffer it conflicts with, and lower it until it does; nothing it
//! conflicts with is in the way (it stops at the first top below it), the arena
//! does not grow, and the sum of the offsets falls. This ends with every
//! buffer at 0 or on the top of another one, so every offset is a sum of
//! buffer sizes: an integer. So some placement of least arena has integer
//! offsets, and enumerating them all finds it.

use memplan_sched::{check, joint, place, schedule, Graph, JointOptions, Placement, Scheduler};

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

/// A random DAG with sizes 1..=5, one to three outputs per node, a few graph
/// inputs and outputs, extra ordering edges, and (with `inplace`) random
/// in-place hints between an output and an input of equal size.
fn random_graph(rng: &mut Rng, n: usize, inplace: bool) -> Graph {
    let mut buffers: Vec<(u64, Option<usize>, Vec<usize>, bool)> = Vec::new();
    for _ in 0..rng.below(2) {
        let cons: Vec<usize> = (0..n).filter(|_| rng.below(3) == 0).collect();
        buffers.push((1 + rng.below(5), None, cons, false));
    }
    let mut preds = Vec::with_capacity(n);
    for v in 0..n {
        let outs = 1 + rng.below(if n <= 6 { 3 } else { 2 });
        for _ in 0..outs {
            let mut cons: Vec<usize> = (v + 1..n).filter(|_| rng.below(3) == 0).collect();
            if cons.is_empty() && v + 1 < n && rng.below(5) != 0 {
                cons.push(v + 1 + rng.below((n - v - 1) as u64) as usize);
            }
            let out = cons.is_empty() && rng.below(2) == 0;
            buffers.push((1 + rng.below(5), Some(v), cons, out));
        }
        preds.push((0..v).filter(|_| rng.below(8) == 0).collect::<Vec<_>>());
    }
    let mut g = Graph::from_parts(preds, buffers.clone()).expect("valid");
    if inplace {
        // Give some outputs the size of an input and a hint to reuse it.
        for v in 0..n {
            let (outs, reads) = (g.nodes[v].outputs.clone(), g.reads[v].clone());
            if let (Some(&o), Some(&b)) = (outs.first(), reads.first()) {
                if rng.below(2) == 0 {
                    buffers[o].0 = buffers[b].0;
                }
            }
        }
        let preds: Vec<Vec<usize>> = g.nodes.iter().map(|v| v.preds.clone()).collect();
        g = Graph::from_parts(preds, buffers.clone()).expect("valid");
        for v in 0..n {
            for &o in &g.nodes[v].outputs.clone() {
                for &b in &g.reads[v].clone() {
                    if buffers[o].0 == buffers[b].0 && rng.below(2) == 0 {
                        g.add_inplace(v, o, b).expect("valid hint");
                    }
                }
            }
        }
    }
    g
}

/// Every topological order (precedence and data edges, derived here).
fn all_orders(g: &Graph) -> Vec<Vec<usize>> {
    let n = g.len();
    let mut must: Vec<Vec<usize>> = g.nodes.iter().map(|v| v.preds.clone()).collect();
    for b in &g.buffers {
        if let Some(p) = b.producer {
            for &c in &b.consumers {
                must[c].push(p);
            }
        }
    }
    fn rec(
        must: &[Vec<usize>],
        order: &mut Vec<usize>,
        used: &mut [bool],
        out: &mut Vec<Vec<usize>>,
    ) {
        let n = must.len();
        if order.len() == n {
            out.push(order.clone());
            return;
        }
        for v in 0..n {
            if !used[v] && must[v].iter().all(|&p| used[p]) {
                used[v] = true;
                order.push(v);
                rec(must, order, used, out);
                order.pop();
                used[v] = false;
            }
        }
    }
    let mut out = Vec::new();
    rec(&must, &mut Vec::new(), &mut vec![false; n], &mut out);
    out
}

/// One order's placement problem, derived here: units (a buffer, or an
/// in-place output merged with the input it reuses), their sizes, and which
/// pairs of units are live at a common step.
struct Instance {
    sizes: Vec<u64>,
    conflict: Vec<Vec<bool>>,
    max_load: u64,
}

fn instance(g: &Graph, order: &[usize]) -> Instance {
    let n = order.len();
    let mut step = vec![0; n];
    for (i, &v) in order.iter().enumerate() {
        step[v] = i;
    }
    let nb = g.buffers.len();
    let life: Vec<(usize, usize)> = g
        .buffers
        .iter()
        .map(|b| {
            let first = b.producer.map_or(0, |p| step[p]);
            let mut last = b.consumers.iter().map(|&c| step[c]).max().unwrap_or(first);
            if b.graph_output {
                last = n - 1;
            }
            (first, last.max(first))
        })
        .collect();
    // In-place merges: at v's step, v's hints in order; the input non-empty,
    // made by a node, not a graph output, read last by v; each side once.
    let mut unit: Vec<usize> = (0..nb).collect();
    fn root(unit: &mut [usize], mut x: usize) -> usize {
        while unit[x] != x {
            x = unit[x];
        }
        x
    }
    for (s, &v) in order.iter().enumerate() {
        let mut used = Vec::new();
        for &(o, b) in &g.nodes[v].inplace {
            let buf = &g.buffers[b];
            if buf.size > 0
                && buf.producer.is_some()
                && !buf.graph_output
                && buf.consumers.iter().all(|&c| step[c] <= s)
                && !used.contains(&o)
                && !used.contains(&b)
            {
                used.push(o);
                used.push(b);
                let (ro, rb) = (root(&mut unit, o), root(&mut unit, b));
                unit[ro] = rb;
            }
        }
    }
    let mut roots: Vec<usize> = Vec::new();
    let mut of = vec![usize::MAX; nb];
    for (b, unit_of) in of.iter_mut().enumerate() {
        if g.buffers[b].size == 0 {
            continue;
        }
        let r = root(&mut unit, b);
        if !roots.contains(&r) {
            roots.push(r);
        }
        *unit_of = roots.iter().position(|&x| x == r).unwrap();
    }
    let m = roots.len();
    let mut sizes = vec![0; m];
    let mut conflict = vec![vec![false; m]; m];
    for a in 0..nb {
        if of[a] == usize::MAX {
            continue;
        }
        sizes[of[a]] = g.buffers[a].size;
        for b in 0..nb {
            if of[b] != usize::MAX
                && of[a] != of[b]
                && life[a].0 <= life[b].1
                && life[b].0 <= life[a].1
            {
                conflict[of[a]][of[b]] = true;
            }
        }
    }
    // Max-load: per step, the units with a member live then.
    let mut max_load = 0;
    for s in 0..n.max(1) {
        let mut seen = vec![false; m];
        let mut load = 0;
        for b in 0..nb {
            if of[b] != usize::MAX && life[b].0 <= s && s <= life[b].1 && !seen[of[b]] {
                seen[of[b]] = true;
                load += sizes[of[b]];
            }
        }
        max_load = max_load.max(load);
    }
    Instance {
        sizes,
        conflict,
        max_load,
    }
}

/// Does every unit fit below `cap` at integer offsets? Exhaustive.
fn fits(inst: &Instance, cap: u64) -> bool {
    let m = inst.sizes.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by_key(|&u| std::cmp::Reverse(inst.sizes[u]));
    fn rec(inst: &Instance, idx: &[usize], k: usize, off: &mut [Option<u64>], cap: u64) -> bool {
        if k == idx.len() {
            return true;
        }
        let u = idx[k];
        let s = inst.sizes[u];
        if s > cap {
            return false;
        }
        for x in 0..=cap - s {
            let free = (0..off.len()).all(|w| match off[w] {
                Some(y) if inst.conflict[u][w] => x + s <= y || y + inst.sizes[w] <= x,
                _ => true,
            });
            if free {
                off[u] = Some(x);
                if rec(inst, idx, k + 1, off, cap) {
                    return true;
                }
                off[u] = None;
            }
        }
        false
    }
    rec(inst, &idx, 0, &mut vec![None; m], cap)
}

/// The least arena over every order and every placement.
fn brute_force(g: &Graph) -> u64 {
    let mut best = g.total_bytes();
    for order in all_orders(g) {
        let inst = instance(g, &order);
        let mut cap = inst.max_load;
        while cap < best {
            if fits(&inst, cap) {
                best = cap;
                break;
            }
            cap += 1;
        }
    }
    best
}

/// What `memplan model --schedule exact` does before the joint search: the
/// order of least max-load, placed by the portfolio, then by the exact
/// planner if the portfolio leaves a gap.
fn order_then_place(g: &Graph) -> (Vec<usize>, Placement) {
    let s = schedule(g, Scheduler::Exact, &Default::default());
    let mut p = place(g, &s.order, &memplan_core::Options::default()).unwrap();
    if p.peak > s.peak {
        let e = memplan_core::Options::with_algorithm(memplan_core::Algorithm::Exact);
        let q = place(g, &s.order, &e).unwrap();
        if q.peak < p.peak {
            p = q;
        }
    }
    (s.order, p)
}

fn check_joint(g: &Graph, what: &str) -> (u64, u64, u64) {
    let opt = brute_force(g);
    let (order, p) = order_then_place(g);
    let before = p.peak;
    assert!(
        before >= opt,
        "{what}: order-then-place {before} below brute force {opt}"
    );
    let r = joint(g, &order, &p, &JointOptions::default());
    assert_eq!(
        r.placement.peak, opt,
        "{what}: joint {} vs brute force {opt}",
        r.placement.peak
    );
    assert!(
        r.proved && r.lower_bound == opt && !r.limit_reached,
        "{what}: {r:?}"
    );
    let (load, arena) =
        check::check_schedule_plan(g, &r.order, &r.placement.offsets, Some(r.placement.peak))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!((load, arena), (r.max_load, opt), "{what}");
    // From a poor start (the file's order, placed naively) the search must
    // still get there.
    let naive = place(
        g,
        &g.given_order,
        &memplan_core::Options::with_algorithm(memplan_core::Algorithm::Naive),
    )
    .unwrap();
    let r2 = joint(g, &g.given_order, &naive, &JointOptions::default());
    assert_eq!(r2.placement.peak, opt, "{what}: joint from naive");
    check::check_schedule_plan(g, &r2.order, &r2.placement.offsets, Some(opt))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    (before, opt, r2.nodes)
}

#[test]
fn joint_equals_brute_force_over_orders_and_placements() {
    let mut rng = Rng(0x51_7cc1_b727_220a);
    let (mut strictly_better, mut searched) = (0, 0);
    for case in 0..160 {
        let n = 3 + case % 6;
        let g = if case % 5 == 4 {
            two_chains(&mut rng, n + 1)
        } else {
            random_graph(&mut rng, n, case % 4 == 3)
        };
        let (before, opt, nodes) = check_joint(&g, &format!("case {case}"));
        strictly_better += usize::from(opt < before);
        searched += usize::from(nodes > 1);
    }
    // Order-then-place is rarely beaten on graphs this small (one in
    // thousands; see `order_then_place_is_beaten_on_two_chains`), but from the
    // naive start the search must do real work.
    eprintln!("{strictly_better} cases beat order-then-place, {searched} searched");
    assert!(searched >= 40, "only {searched} cases exercised the search");
}

/// The randomised search that found the regression graph: random graphs on
/// which the joint search beats order-then-place (`SEED=N cargo test --release
/// -p memplan-sched --test joint hunt -- --ignored --nocapture`).
#[test]
#[ignore]
fn hunt() {
    let seed: u64 = std::env::var("SEED")
        .map(|s| s.parse().unwrap())
        .unwrap_or(1);
    let mut rng = Rng(seed);
    let mut found = 0;
    for case in 0..20000 {
        let n = 8 + case % 6;
        let g = if case % 2 == 0 {
            wide_graph(&mut rng, n)
        } else {
            two_chains(&mut rng, n + 2)
        };
        let (order, p) = order_then_place(&g);
        let r = joint(
            &g,
            &order,
            &p,
            &JointOptions {
                node_limit: Some(200_000),
                ..Default::default()
            },
        );
        if r.placement.peak < p.peak {
            found += 1;
            eprintln!(
                "case {case} n {} otp {} joint {} bufs {}",
                g.len(),
                p.peak,
                r.placement.peak,
                g.buffers.len()
            );
            for (i, b) in g.buffers.iter().enumerate() {
                eprintln!(
                    "  b{i} size {} prod {:?} cons {:?} out {}",
                    b.size, b.producer, b.consumers, b.graph_output
                );
            }
            for (i, v) in g.nodes.iter().enumerate() {
                eprintln!("  n{i} preds {:?}", v.preds);
            }
            if found >= 4 {
                break;
            }
        }
    }
    eprintln!("found {found}");
}

/// Two chains joined at a last node: their interleavings are the orders.
fn two_chains(rng: &mut Rng, n: usize) -> Graph {
    let split = 1 + (n - 1) / 2;
    let chain = |v: usize| usize::from(v >= split);
    let mut buffers: Vec<(u64, Option<usize>, Vec<usize>, bool)> = Vec::new();
    let mut preds = Vec::new();
    for v in 0..n {
        let last = v + 1 == n;
        let p: Vec<usize> = if last {
            vec![split - 1, n - 2]
        } else if v == 0 || v == split {
            vec![]
        } else {
            vec![v - 1]
        };
        preds.push(p);
        if last {
            buffers.push((1 + rng.below(5), Some(v), vec![], true));
            continue;
        }
        for _ in 0..1 + rng.below(2) {
            let later: Vec<usize> = (v + 1..n - 1).filter(|&w| chain(w) == chain(v)).collect();
            let mut cons = Vec::new();
            if !later.is_empty() && rng.below(4) != 0 {
                cons.push(later[rng.below(later.len().min(3) as u64) as usize]);
            } else {
                cons.push(n - 1);
            }
            buffers.push((1 + rng.below(5), Some(v), cons, false));
        }
    }
    Graph::from_parts(preds, buffers).expect("valid")
}

fn wide_graph(rng: &mut Rng, n: usize) -> Graph {
    let mut buffers: Vec<(u64, Option<usize>, Vec<usize>, bool)> = Vec::new();
    let mut preds = Vec::new();
    for v in 0..n {
        for _ in 0..1 + rng.below(3) {
            let mut cons: Vec<usize> = Vec::new();
            if v + 1 < n {
                for _ in 0..1 + rng.below(2) {
                    let span = 1 + rng.below(5) as usize;
                    cons.push((v + span).min(n - 1));
                }
            }
            cons.sort_unstable();
            cons.dedup();
            let out = cons.is_empty();
            buffers.push(([1, 2, 3, 5, 8][rng.below(5) as usize], Some(v), cons, out));
        }
        preds.push(if v > 0 && rng.below(3) == 0 {
            vec![rng.below(v as u64) as usize]
        } else {
            vec![]
        });
    }
    Graph::from_parts(preds, buffers).expect("valid")
}

/// Two chains, 0..=5 and 6..=9, joined at 10 (which reads most buffers).
/// Several interleavings reach the least max-load, 24; the one `exact` picks
/// (chain 6..=9 started after node 2) fragments: no placement of it fits in
/// less than 25 bytes. Running the whole of 3 and 4 before 6 leaves lifetimes
/// that place in 24. Found by the randomised search `hunt` over two-chain
/// graphs, checked here by brute force over all 210 interleavings and every
/// placement.
fn two_chain_regression() -> Graph {
    let b = |size: u64, p: usize, c: &[usize]| (size, Some(p), c.to_vec(), false);
    let buffers = vec![
        b(5, 0, &[1]),
        b(1, 0, &[10]),
        b(1, 1, &[10]),
        b(4, 1, &[10]),
        b(1, 2, &[5]),
        b(4, 3, &[10]),
        b(5, 3, &[4]),
        b(1, 4, &[5]),
        b(3, 5, &[10]),
        b(2, 6, &[8]),
        b(4, 6, &[7]),
        b(2, 7, &[9]),
        b(4, 7, &[10]),
        b(2, 8, &[9]),
        b(4, 9, &[10]),
        (3, Some(10), vec![], true),
    ];
    let preds = vec![
        vec![],
        vec![0],
        vec![1],
        vec![2],
        vec![3],
        vec![4, 2],
        vec![],
        vec![6],
        vec![7, 6],
        vec![8, 7],
        vec![5, 9, 0, 1, 3, 7],
    ];
    Graph::from_parts(preds, buffers).expect("valid")
}

#[test]
fn order_then_place_is_beaten_on_two_chains() {
    let g = two_chain_regression();
    let (order, p) = order_then_place(&g);
    let otp_load = g.peak(&order);
    eprintln!(
        "order then place: {order:?} max-load {otp_load} arena {}",
        p.peak
    );
    let opt = brute_force(&g);
    eprintln!("brute force {opt}");
    let r = joint(&g, &order, &p, &JointOptions::default());
    eprintln!(
        "joint: {:?} max-load {} arena {} {r:?}",
        r.order, r.max_load, r.placement.peak
    );
    assert!(opt < p.peak);
    assert_eq!(r.placement.peak, opt);
    assert!(r.proved && r.improved);
    check::check_schedule_plan(&g, &r.order, &r.placement.offsets, Some(opt)).unwrap();
}
