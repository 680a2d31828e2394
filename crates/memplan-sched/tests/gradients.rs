//! Parameter gradients of training graphs (`add_gradients`): on random DAGs with random
//! gradients, `exact` equals brute force over all topological orders under both optimizer
//! modes, the lower bound (with the end-of-order term) never exceeds the optimum, and
//! per-parameter updates never need more than one step after the graph.

use memplan_sched::{
    add_gradients, exact, must_live_bound, parse_gradients, tail_lower_bound, ExactOptions,
    Gradient, Graph, OptimizerMode,
};
use serde_json::json;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A random graph document: nodes 0..n, buffers made by nodes and read by later ones.
fn random_doc(rng: &mut Rng, n: usize) -> serde_json::Value {
    let mut buffers = Vec::new();
    let mut preds = vec![Vec::new(); n];
    for v in 0..n {
        for _ in 0..rng.below(3) {
            let cons: Vec<usize> = (v + 1..n).filter(|_| rng.below(3) == 0).collect();
            for &c in &cons {
                preds[c].push(v);
            }
            let id = buffers.len();
            buffers.push(json!({"id": id, "size": 1 + rng.below(60), "producer": v,
                "consumers": cons, "graph_output": rng.below(12) == 0}));
        }
    }
    let nodes: Vec<_> = (0..n)
        .map(|v| json!({"id": v, "preds": preds[v], "name": format!("n{v}")}))
        .collect();
    json!({"buffers": buffers, "nodes": nodes})
}

fn brute_force(g: &Graph) -> u64 {
    fn rec(g: &Graph, order: &mut Vec<usize>, used: &mut [bool], best: &mut u64) {
        if order.len() == g.len() {
            *best = (*best).min(g.peak(order));
            return;
        }
        for v in 0..g.len() {
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
fn exact_equals_brute_force_with_gradients() {
    let mut rng = Rng(7);
    let mut tail_raised = 0;
    for case in 0..300 {
        let n = 2 + case % 6;
        let doc = random_doc(&mut rng, n);
        let k = 1 + rng.below(3) as usize;
        let grads: Vec<Gradient> = (0..k)
            .map(|i| Gradient {
                node: rng.below(n as u64) as usize,
                bytes: 1 + rng.below(80),
                param: format!("p{i}"),
            })
            .collect();
        let mut optima = Vec::new();
        for mode in [OptimizerMode::Step, OptimizerMode::PerParameter] {
            let mut d = doc.clone();
            add_gradients(&mut d, &grads, mode).unwrap();
            let g = Graph::from_json(&d.to_string()).unwrap();
            let opt = brute_force(&g);
            assert!(must_live_bound(&g) <= opt, "case {case} {mode:?}");
            // The tail bound, as high as it can prove: never above the optimum.
            let tail = tail_lower_bound(&g, g.total_bytes(), 100_000);
            assert!(
                tail <= opt,
                "case {case} {mode:?}: tail bound {tail} > {opt}"
            );
            tail_raised += usize::from(tail > must_live_bound(&g));
            let r = exact::exact(&g, &ExactOptions::default());
            assert_eq!(r.peak, opt, "case {case} {mode:?}");
            assert!(r.proved && r.lower_bound == opt, "case {case} {mode:?}");
            optima.push(opt);
        }
        assert!(optima[1] <= optima[0], "case {case}: {optima:?}");
    }
    eprintln!("the tail bound raised the must-live bound in {tail_raised} cases");
    assert!(tail_raised >= 5, "{tail_raised}");
}

#[test]
fn gradient_files_name_nodes_by_name() {
    let doc = json!({"buffers": [{"id": 0, "size": 4, "producer": 0, "consumers": [1]}],
        "nodes": [{"id": 0, "name": "fwd"}, {"id": 1, "name": "bwd"}]});
    let g = parse_gradients(
        r#"{"gradients": [{"node": "bwd", "bytes": 16, "param": "w"}]}"#,
        &doc,
    )
    .unwrap();
    assert_eq!(g[0].node, 1);
    let e = parse_gradients(r#"{"gradients": [{"node": "nope", "bytes": 1}]}"#, &doc).unwrap_err();
    assert_eq!(e.at, "gradients[0].node");
    let mut d = doc.clone();
    add_gradients(&mut d, &g, OptimizerMode::PerParameter).unwrap();
    let g2 = Graph::from_json(&d.to_string()).unwrap();
    // The update runs right after its producer in the given order.
    assert_eq!(g2.given_order, vec![0, 1, 2]);
    assert_eq!(g2.buffers[1].consumers, vec![2]);
}
