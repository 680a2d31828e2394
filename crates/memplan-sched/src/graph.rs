//! The dataflow graph of activation buffers, read from the graph JSON of
//! `benchmarks/onnx/graphs/*.json` and `benchmarks/graphs/*.json`.
//!
//! Memory model (the benchmarks' README): a buffer is live from its
//! producer's step (step 0 for a graph input) to the step of its last
//! consumer, inclusive; a graph output lives to the last step; a buffer
//! nobody reads lives at its producer's step only. Views are already folded
//! into the buffers they alias (a consumer of a view is a consumer of the
//! buffer), so the graph needs no view handling of its own.

use serde::Deserialize;

/// One activation buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Bytes (0 is allowed: such a buffer is never placed).
    pub size: u64,
    /// The node that creates it; `None` for a graph input (live from step 0).
    pub producer: Option<usize>,
    /// Every node that reads it, directly or through a view; sorted, no duplicates.
    pub consumers: Vec<usize>,
    /// Lives to the last step.
    pub graph_output: bool,
    /// The tensor name (for messages).
    pub tensor: String,
}

/// One schedule node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Operator name.
    pub op: String,
    /// Node name (the XLA DFS scheduler breaks ties by it).
    pub name: String,
    /// Nodes this one must follow, in file order, no duplicates.
    pub preds: Vec<usize>,
    /// Buffers this node creates.
    pub outputs: Vec<usize>,
    /// In-place hints `(output, input)`: the output may take the input's
    /// bytes when this node is the input's last reader (see [`Graph::inplace_at`]).
    pub inplace: Vec<(usize, usize)>,
}

/// A dataflow graph: nodes, buffers, precedence and the file's own order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// Nodes, indexed by id.
    pub nodes: Vec<Node>,
    /// Buffers, indexed by id.
    pub buffers: Vec<Buffer>,
    /// The order given in the file (a topological order).
    pub given_order: Vec<usize>,
    /// For each node, the buffers it reads (derived from `consumers`), sorted.
    pub reads: Vec<Vec<usize>>,
    /// For each node, the nodes that must follow it (inverse of `preds`), sorted.
    pub succs: Vec<Vec<usize>>,
    /// The checksum peak of the given order stored in the file, if any.
    pub stated_peak: Option<u64>,
}

/// Why a graph file was rejected. `at` names the place (a JSON path or `line:column`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct GraphError {
    /// Where: `line L, column C` for syntax errors, a JSON path such as `nodes[3].preds[1]` otherwise.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

fn err(at: impl Into<String>, message: impl Into<String>) -> GraphError {
    GraphError {
        at: at.into(),
        message: message.into(),
    }
}

#[derive(Deserialize)]
struct RawBuffer {
    id: usize,
    size: u64,
    producer: Option<usize>,
    #[serde(default)]
    consumers: Vec<usize>,
    #[serde(default)]
    tensor: Option<String>,
    #[serde(default)]
    graph_input: bool,
    #[serde(default)]
    graph_output: bool,
}

#[derive(Deserialize)]
struct RawNode {
    id: usize,
    #[serde(default)]
    op: Option<String>,
    #[serde(default)]
    inputs: Option<Vec<usize>>,
    #[serde(default)]
    outputs: Vec<usize>,
    #[serde(default)]
    preds: Vec<usize>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    inplace: Vec<[usize; 2]>,
}

#[derive(Deserialize)]
struct RawGraph {
    buffers: Vec<RawBuffer>,
    nodes: Vec<RawNode>,
    #[serde(default)]
    order: Option<Vec<usize>>,
    #[serde(default)]
    onnx_order_peak: Option<u64>,
    #[serde(default)]
    given_order_peak: Option<u64>,
}

impl Graph {
    /// Parses and validates the graph JSON.
    pub fn from_json(text: &str) -> Result<Graph, GraphError> {
        let raw: RawGraph = serde_json::from_str(text).map_err(|e| {
            err(
                format!("line {}, column {}", e.line(), e.column()),
                e.to_string()
                    .split(" at line ")
                    .next()
                    .unwrap_or("")
                    .to_string(),
            )
        })?;
        let n = raw.nodes.len();
        let nb = raw.buffers.len();
        let mut nodes = Vec::with_capacity(n);
        for (i, rn) in raw.nodes.iter().enumerate() {
            if rn.id != i {
                return Err(err(
                    format!("nodes[{i}].id"),
                    format!("node ids must be 0..{n} in order, found {}", rn.id),
                ));
            }
            let mut preds = Vec::new();
            for (k, &p) in rn.preds.iter().enumerate() {
                if p >= n {
                    return Err(err(
                        format!("nodes[{i}].preds[{k}]"),
                        format!("node {p} does not exist ({n} nodes)"),
                    ));
                }
                if p == i {
                    return Err(err(
                        format!("nodes[{i}].preds[{k}]"),
                        "a node cannot precede itself",
                    ));
                }
                if !preds.contains(&p) {
                    preds.push(p);
                }
            }
            let inputs = rn.inputs.as_deref().unwrap_or(&[]);
            for (k, &b) in inputs.iter().chain(&rn.outputs).enumerate() {
                if b >= nb {
                    let field = if k < inputs.len() {
                        format!("nodes[{i}].inputs[{k}]")
                    } else {
                        format!("nodes[{i}].outputs[{}]", k - inputs.len())
                    };
                    return Err(err(
                        field,
                        format!("buffer {b} does not exist ({nb} buffers)"),
                    ));
                }
            }
            nodes.push(Node {
                op: rn.op.clone().unwrap_or_default(),
                name: rn.name.clone().unwrap_or_else(|| format!("n{i}")),
                preds,
                outputs: Vec::new(),
                inplace: Vec::new(),
            });
        }
        let mut buffers = Vec::with_capacity(nb);
        let mut reads = vec![Vec::new(); n];
        for (i, rb) in raw.buffers.iter().enumerate() {
            if rb.id != i {
                return Err(err(
                    format!("buffers[{i}].id"),
                    format!("buffer ids must be 0..{nb} in order, found {}", rb.id),
                ));
            }
            match rb.producer {
                Some(p) if p >= n => {
                    return Err(err(
                        format!("buffers[{i}].producer"),
                        format!("node {p} does not exist ({n} nodes)"),
                    ))
                }
                Some(p) => {
                    if rb.graph_input {
                        return Err(err(
                            format!("buffers[{i}]"),
                            "a graph input cannot have a producer",
                        ));
                    }
                    nodes[p].outputs.push(i);
                }
                None => {}
            }
            let mut consumers = rb.consumers.clone();
            for (k, &c) in rb.consumers.iter().enumerate() {
                if c >= n {
                    return Err(err(
                        format!("buffers[{i}].consumers[{k}]"),
                        format!("node {c} does not exist ({n} nodes)"),
                    ));
                }
                if Some(c) == rb.producer {
                    return Err(err(
                        format!("buffers[{i}].consumers[{k}]"),
                        format!("node {c} both produces and reads this buffer"),
                    ));
                }
            }
            consumers.sort_unstable();
            consumers.dedup();
            for &c in &consumers {
                reads[c].push(i);
            }
            buffers.push(Buffer {
                size: rb.size,
                producer: rb.producer,
                consumers,
                graph_output: rb.graph_output,
                tensor: rb.tensor.clone().unwrap_or_else(|| format!("b{i}")),
            });
        }
        // Every declared node output must name this node as its producer, and
        // declared inputs must be exactly the buffers that list the node as a consumer.
        for (i, rn) in raw.nodes.iter().enumerate() {
            if let Some(inputs) = &rn.inputs {
                let mut declared = inputs.clone();
                declared.sort_unstable();
                declared.dedup();
                if declared != reads[i] {
                    let missing: Vec<usize> = declared
                        .iter()
                        .copied()
                        .filter(|b| !reads[i].contains(b))
                        .collect();
                    let message = match missing.first() {
                        Some(b) => format!("buffer {b} does not list node {i} among its consumers"),
                        None => {
                            format!(
                            "buffers {:?} list node {i} as a consumer but are not among its inputs",
                            reads[i].iter().filter(|b| !declared.contains(b)).collect::<Vec<_>>()
                        )
                        }
                    };
                    return Err(err(format!("nodes[{i}].inputs"), message));
                }
            }
            for (k, &b) in rn.outputs.iter().enumerate() {
                if buffers[b].producer != Some(i) {
                    return Err(err(
                        format!("nodes[{i}].outputs[{k}]"),
                        format!(
                            "buffer {b} names producer {:?}, not node {i}",
                            buffers[b].producer
                        ),
                    ));
                }
            }
        }
        // Sums of sizes must not overflow anywhere (peaks, bounds, arenas).
        let mut total: u64 = 0;
        for (i, b) in buffers.iter().enumerate() {
            total = total.checked_add(b.size).ok_or_else(|| {
                err(
                    format!("buffers[{i}].size"),
                    "the buffers' total size overflows 64 bits",
                )
            })?;
        }
        let mut succs = vec![Vec::new(); n];
        for (v, node) in nodes.iter().enumerate() {
            for &p in &node.preds {
                succs[p].push(v);
            }
        }
        for s in &mut succs {
            s.sort_unstable();
        }
        let mut graph = Graph {
            nodes,
            buffers,
            given_order: Vec::new(),
            reads,
            succs,
            stated_peak: raw.onnx_order_peak.or(raw.given_order_peak),
        };
        // Data edges imply precedence too: a consumer must follow the producer.
        graph.add_data_edges();
        if graph.topological_order().is_none() {
            return Err(err("nodes", "the precedence graph has a cycle"));
        }
        let order = match raw.order {
            Some(order) => order,
            None => graph.topological_order().expect("acyclic"),
        };
        if let Err(e) = crate::check::check_order(&graph, &order) {
            return Err(err("order", e.to_string()));
        }
        graph.given_order = order;
        for (i, rn) in raw.nodes.iter().enumerate() {
            for (k, &[o, b]) in rn.inplace.iter().enumerate() {
                graph
                    .add_inplace(i, o, b)
                    .map_err(|m| err(format!("nodes[{i}].inplace[{k}]"), m))?;
            }
        }
        Ok(graph)
    }

    /// Adds `producer -> consumer` to `preds` where the file left it implicit.
    fn add_data_edges(&mut self) {
        for b in 0..self.buffers.len() {
            if let Some(p) = self.buffers[b].producer {
                for k in 0..self.buffers[b].consumers.len() {
                    let c = self.buffers[b].consumers[k];
                    if !self.nodes[c].preds.contains(&p) {
                        self.nodes[c].preds.push(p);
                        self.succs[p].push(c);
                        self.succs[p].sort_unstable();
                    }
                }
            }
        }
    }

    /// Builds a graph directly (tests, generators); the given order is the smallest-id-first topological order.
    /// `buffers` are `(size, producer, consumers, graph_output)`; `preds` per node.
    pub fn from_parts(
        preds: Vec<Vec<usize>>,
        buffers: Vec<(u64, Option<usize>, Vec<usize>, bool)>,
    ) -> Result<Graph, GraphError> {
        let nodes: Vec<serde_json::Value> = preds
            .iter()
            .enumerate()
            .map(|(i, p)| serde_json::json!({"id": i, "preds": p}))
            .collect();
        let bufs: Vec<serde_json::Value> = buffers
            .iter()
            .enumerate()
            .map(|(i, (size, prod, cons, out))| {
                serde_json::json!({"id": i, "size": size, "producer": prod,
                    "consumers": cons, "graph_input": prod.is_none(), "graph_output": out})
            })
            .collect();
        let doc = serde_json::json!({"nodes": nodes, "buffers": bufs});
        Graph::from_json(&doc.to_string())
    }

    /// Number of schedule nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Some topological order (Kahn, smallest id first), or `None` on a cycle.
    pub fn topological_order(&self) -> Option<Vec<usize>> {
        let n = self.len();
        let mut indeg: Vec<usize> = self.nodes.iter().map(|v| v.preds.len()).collect();
        let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
            .filter(|&v| indeg[v] == 0)
            .map(std::cmp::Reverse)
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(std::cmp::Reverse(v)) = ready.pop() {
            order.push(v);
            for &s in &self.succs[v] {
                indeg[s] -= 1;
                if indeg[s] == 0 {
                    ready.push(std::cmp::Reverse(s));
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    /// Bytes of the outputs of `v`.
    pub fn out_bytes(&self, v: usize) -> u64 {
        self.nodes[v]
            .outputs
            .iter()
            .map(|&b| self.buffers[b].size)
            .sum()
    }

    /// Bytes of the buffers `v` reads.
    pub fn read_bytes(&self, v: usize) -> u64 {
        self.reads[v].iter().map(|&b| self.buffers[b].size).sum()
    }

    /// Total bytes of all buffers (the no-reuse arena).
    pub fn total_bytes(&self) -> u64 {
        self.buffers.iter().map(|b| b.size).sum()
    }

    /// Lets node `v` write its output `o` into the bytes of its input `b`
    /// (when `v` reads `b` last). `o` must be an output of `v`, `b` a buffer
    /// `v` reads, both of one size.
    pub fn add_inplace(&mut self, v: usize, o: usize, b: usize) -> Result<(), String> {
        let nb = self.buffers.len();
        if v >= self.nodes.len() {
            return Err(format!("node {v} does not exist"));
        }
        if o >= nb || self.buffers[o].producer != Some(v) {
            return Err(format!("buffer {o} is not an output of node {v}"));
        }
        if b >= nb || !self.reads[v].contains(&b) {
            return Err(format!("buffer {b} is not read by node {v}"));
        }
        if self.buffers[o].size != self.buffers[b].size {
            return Err(format!(
                "an in-place output must have its input's size ({} vs {} bytes)",
                self.buffers[o].size, self.buffers[b].size
            ));
        }
        if !self.nodes[v].inplace.contains(&(o, b)) {
            self.nodes[v].inplace.push((o, b));
        }
        Ok(())
    }

    /// Adds in-place hints by a graph rule: every node whose `op` is an
    /// elementwise operator (ONNX names, or ATen names without the trailing
    /// underscore) may write each output into an input of the same size.
    /// Returns the number of hints added.
    pub fn add_elementwise_inplace(&mut self) -> usize {
        const ELEMENTWISE: &[&str] = &[
            "Relu",
            "LeakyRelu",
            "Sigmoid",
            "Tanh",
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Pow",
            "Sqrt",
            "Erf",
            "Exp",
            "Log",
            "Neg",
            "Abs",
            "Clip",
            "BatchNormalization",
            "Elu",
            "HardSigmoid",
            "Softplus",
            "Reciprocal",
            "Where",
        ];
        let mut added = 0;
        for v in 0..self.nodes.len() {
            let op = self.nodes[v].op.as_str();
            let aten = op
                .strip_prefix("aten.")
                .map(|s| s.split('.').next().unwrap_or(""));
            let elementwise = ELEMENTWISE.contains(&op)
                || aten.is_some_and(|a| {
                    [
                        "relu",
                        "add",
                        "sub",
                        "mul",
                        "div",
                        "gelu",
                        "tanh",
                        "sigmoid",
                        "neg",
                        "exp",
                        "pow",
                        "threshold_backward",
                        "native_dropout_backward",
                    ]
                    .contains(&a)
                });
            if !elementwise {
                continue;
            }
            for k in 0..self.nodes[v].outputs.len() {
                let o = self.nodes[v].outputs[k];
                for j in 0..self.reads[v].len() {
                    let b = self.reads[v][j];
                    if self.buffers[o].size == self.buffers[b].size
                        && !self.nodes[v].inplace.contains(&(o, b))
                    {
                        self.nodes[v].inplace.push((o, b));
                        added += 1;
                    }
                }
            }
        }
        added
    }

    /// The in-place reuses node `v` makes, given which of its inputs it reads
    /// last (`is_last`): its hints in order, each taken when the input is a
    /// non-empty buffer made by a node (not a graph input), not a graph
    /// output, read last by `v`, and neither side is already taken.
    pub fn inplace_at(&self, v: usize, is_last: impl Fn(usize) -> bool) -> Vec<(usize, usize)> {
        let mut taken: Vec<(usize, usize)> = Vec::new();
        for &(o, b) in &self.nodes[v].inplace {
            let buf = &self.buffers[b];
            if buf.size > 0
                && buf.producer.is_some()
                && !buf.graph_output
                && is_last(b)
                && !taken.iter().any(|&(to, tb)| to == o || tb == b)
            {
                taken.push((o, b));
            }
        }
        taken
    }

    /// Every in-place reuse under `order`: `(node, output, input)`.
    pub fn inplace_pairs(&self, order: &[usize]) -> Vec<(usize, usize, usize)> {
        if self.nodes.iter().all(|v| v.inplace.is_empty()) {
            return Vec::new();
        }
        let mut pos = vec![0usize; self.len()];
        for (i, &v) in order.iter().enumerate() {
            pos[v] = i;
        }
        let mut pairs = Vec::new();
        for &v in order {
            let last = |b: usize| self.buffers[b].consumers.iter().all(|&c| pos[c] <= pos[v]);
            for (o, b) in self.inplace_at(v, last) {
                pairs.push((v, o, b));
            }
        }
        pairs
    }

    /// Lifetimes of every buffer under `order` (which must be a topological
    /// order): `(first step, last step)`, both inclusive.
    pub fn lifetimes(&self, order: &[usize]) -> Vec<(usize, usize)> {
        let mut pos = vec![0usize; self.len()];
        for (i, &v) in order.iter().enumerate() {
            pos[v] = i;
        }
        let last = order.len().saturating_sub(1);
        self.buffers
            .iter()
            .map(|b| {
                let start = b.producer.map_or(0, |p| pos[p]);
                let mut end = b.consumers.iter().map(|&c| pos[c]).max().unwrap_or(start);
                if b.graph_output {
                    end = last;
                }
                (start, end.max(start))
            })
            .collect()
    }

    /// The bytes live at every step of `order` (an in-place output and its
    /// input count once at their common step).
    pub fn step_loads(&self, order: &[usize]) -> Vec<u64> {
        let steps = order.len().max(1);
        let mut delta = vec![0i128; steps + 1];
        for (b, (s, e)) in self.buffers.iter().zip(self.lifetimes(order)) {
            delta[s] += i128::from(b.size);
            delta[e + 1] -= i128::from(b.size);
        }
        // An in-place output shares its input's bytes at the step that links them.
        let mut pos = vec![0usize; self.len()];
        for (i, &v) in order.iter().enumerate() {
            pos[v] = i;
        }
        for (v, o, _) in self.inplace_pairs(order) {
            delta[pos[v]] -= i128::from(self.buffers[o].size);
            delta[pos[v] + 1] += i128::from(self.buffers[o].size);
        }
        let mut cur = 0i128;
        delta[..steps]
            .iter()
            .map(|d| {
                cur += d;
                cur as u64
            })
            .collect()
    }

    /// The peak of `order`: the largest total size of the buffers live at one
    /// step (an in-place output and its input count once at their common step).
    pub fn peak(&self, order: &[usize]) -> u64 {
        self.step_loads(order).into_iter().max().unwrap_or(0)
    }
}

/// How the parameter gradients of a training graph are consumed (see [`add_gradients`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptimizerMode {
    /// One optimizer step after the graph: every gradient lives from its producer to the end.
    Step,
    /// Per-parameter updates in the backward pass: each gradient is read by its own in-place
    /// update node (the parameter is not an activation) and dies there.
    PerParameter,
}

/// One parameter gradient: the node making it and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gradient {
    /// The producing node's id.
    pub node: usize,
    /// Bytes.
    pub bytes: u64,
    /// What it is the gradient of (for names).
    pub param: String,
}

/// Reads a gradient annotation file (`scripts/training_gradients.py` writes them):
/// `{"gradients": [{"node": NODE NAME, "bytes": N, "param": WHAT}, ...]}`, node names as in
/// the graph document `doc` (graph JSON).
pub fn parse_gradients(text: &str, doc: &serde_json::Value) -> Result<Vec<Gradient>, GraphError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        err(
            format!("line {}, column {}", e.line(), e.column()),
            e.to_string(),
        )
    })?;
    let list = v
        .get("gradients")
        .and_then(|g| g.as_array())
        .ok_or_else(|| err("gradients", "a list `gradients` is required"))?;
    let mut by_name = std::collections::HashMap::new();
    if let Some(nodes) = doc.get("nodes").and_then(|n| n.as_array()) {
        for (i, n) in nodes.iter().enumerate() {
            if let Some(name) = n.get("name").and_then(|s| s.as_str()) {
                by_name.entry(name.to_string()).or_insert(i);
            }
        }
    }
    let mut out = Vec::with_capacity(list.len());
    for (k, g) in list.iter().enumerate() {
        let name = g
            .get("node")
            .and_then(|s| s.as_str())
            .ok_or_else(|| err(format!("gradients[{k}].node"), "a node name is required"))?;
        let node = *by_name.get(name).ok_or_else(|| {
            err(
                format!("gradients[{k}].node"),
                format!("the graph has no node named `{name}`"),
            )
        })?;
        let bytes = g
            .get("bytes")
            .and_then(|b| b.as_u64())
            .ok_or_else(|| err(format!("gradients[{k}].bytes"), "a byte count is required"))?;
        let param = g
            .get("param")
            .and_then(|s| s.as_str())
            .unwrap_or("param")
            .to_string();
        out.push(Gradient { node, bytes, param });
    }
    Ok(out)
}

/// Adds parameter gradients to a graph document (graph JSON): one buffer per gradient, made
/// by its node; under [`OptimizerMode::Step`] it is a graph output (held for the optimizer
/// step after the graph), under [`OptimizerMode::PerParameter`] it is read by a new
/// `optimizer.update` node that must follow its producer and that the given order runs right
/// after it. The file's checksum peak is dropped (it no longer holds).
pub fn add_gradients(
    doc: &mut serde_json::Value,
    grads: &[Gradient],
    mode: OptimizerMode,
) -> Result<(), GraphError> {
    let nb = doc["buffers"].as_array().map_or(0, Vec::len);
    let n = doc["nodes"].as_array().map_or(0, Vec::len);
    if let Some(obj) = doc.as_object_mut() {
        obj.remove("onnx_order_peak");
        obj.remove("given_order_peak");
    }
    let mut new_buffers = Vec::new();
    let mut new_nodes = Vec::new();
    let mut after: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (k, g) in grads.iter().enumerate() {
        if g.node >= n {
            return Err(err(
                format!("gradients[{k}]"),
                format!("node {} does not exist", g.node),
            ));
        }
        let b = nb + k;
        let update = n + k;
        let per = mode == OptimizerMode::PerParameter;
        new_buffers.push(serde_json::json!({
            "id": b, "size": g.bytes, "producer": g.node,
            "consumers": if per { vec![update] } else { vec![] },
            "tensor": format!("grad:{}", g.param), "graph_input": false, "graph_output": !per,
            "aliases": []}));
        if let Some(outs) = doc
            .get_mut("nodes")
            .and_then(|n| n.get_mut(g.node))
            .and_then(|n| n.get_mut("outputs"))
            .and_then(|o| o.as_array_mut())
        {
            outs.push(b.into());
        }
        if per {
            new_nodes.push(serde_json::json!({
                "id": update, "op": "optimizer.update", "inputs": [b], "outputs": [],
                "preds": [g.node], "name": format!("update:{}", g.param)}));
            after.entry(g.node).or_default().push(update);
        }
    }
    if let Some(bufs) = doc["buffers"].as_array_mut() {
        bufs.extend(new_buffers);
    }
    if let Some(nodes) = doc["nodes"].as_array_mut() {
        nodes.extend(new_nodes);
    }
    if !after.is_empty() {
        if let Some(order) = doc.get("order").and_then(|o| o.as_array()).cloned() {
            let mut new_order = Vec::with_capacity(order.len() + grads.len());
            for v in order {
                let id = v.as_u64().map(|x| x as usize);
                new_order.push(v);
                if let Some(ups) = id.and_then(|i| after.get(&i)) {
                    new_order.extend(ups.iter().map(|&u| serde_json::Value::from(u)));
                }
            }
            doc["order"] = new_order.into();
        }
    }
    Ok(())
}
