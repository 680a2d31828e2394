//! Random LLVM-dialect functions (stack slots accessed in straight-line code, loops, branches,
//! through GEPs and memref-style descriptors; some slots escape through a call or a store)
//! run through `--llvm-lifetime-markers`; the output is judged by a structural checker
//! written apart from the pass: a forward dataflow over {dead, live} per slot on the CFG
//! proves that every access through a derived pointer happens while the slot is live on
//! every path and every start happens while it is dead on every path; escaping slots have
//! no markers and every other accessed slot has some.
//!
//! `MEMPLAN_LIFETIME_RANDOM=N` sets the number of programs (default 300).

use std::collections::BTreeSet;

use memplan_ir::{parse_module, verify, BlockId, Module, OpId, ParseOptions, Registry, ValueId};
use memplan_passes::transform::llvm_lifetime::llvm_lifetime_markers;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Gen {
    rng: Rng,
    text: String,
    n: usize,
    slots: usize,
    escaping: BTreeSet<usize>,
}

const DESC: &str = "!llvm.struct<(ptr, ptr, i64)>";

impl Gen {
    fn fresh(&mut self) -> usize {
        self.n += 1;
        self.n
    }
    fn line(&mut self, s: &str) {
        self.text.push_str("    ");
        self.text.push_str(s);
        self.text.push('\n');
    }
    fn access(&mut self) {
        let k = self.rng.below(self.slots as u64) as usize;
        let id = self.fresh();
        match self.rng.below(4) {
            0 => self.line(&format!("llvm.store %c1, %s{k} : i64, !llvm.ptr")),
            1 => {
                self.line(&format!("%v{id} = llvm.load %s{k} : !llvm.ptr -> i64"));
                self.line(&format!("llvm.store %v{id}, %out : i64, !llvm.ptr"));
            }
            2 => {
                self.line(&format!(
                    "%g{id} = llvm.getelementptr inbounds|nuw %s{k}[%c1] : (!llvm.ptr, i64) -> !llvm.ptr, i64"
                ));
                self.line(&format!("llvm.store %c1, %g{id} : i64, !llvm.ptr"));
            }
            _ => {
                self.line(&format!("%e{id} = llvm.extractvalue %d{k}[1] : {DESC}"));
                self.line(&format!("%v{id} = llvm.load %e{id} : !llvm.ptr -> i64"));
                self.line(&format!("llvm.store %v{id}, %out : i64, !llvm.ptr"));
            }
        }
    }
    fn escape(&mut self) {
        let k = self.rng.below(self.slots as u64) as usize;
        self.escaping.insert(k);
        if self.rng.below(2) == 0 {
            self.line(&format!("llvm.call @sink(%s{k}) : (!llvm.ptr) -> ()"));
        } else {
            self.line(&format!("llvm.store %d{k}, %box : {DESC}, !llvm.ptr"));
        }
    }
    fn stmts(&mut self, depth: u32) {
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            match self.rng.below(if depth >= 3 { 5 } else { 10 }) {
                0..=4 => self.access(),
                5 => {
                    if self.rng.below(4) == 0 {
                        self.escape()
                    } else {
                        self.access()
                    }
                }
                6..=7 => {
                    let id = self.fresh();
                    self.line(&format!("llvm.br ^h{id}(%c0 : i64)"));
                    self.text.push_str(&format!("  ^h{id}(%i{id}: i64):\n"));
                    self.line(&format!("%p{id} = llvm.icmp \"slt\" %i{id}, %c4 : i64"));
                    self.line(&format!("llvm.cond_br %p{id}, ^b{id}, ^x{id}"));
                    self.text.push_str(&format!("  ^b{id}:\n"));
                    self.stmts(depth + 1);
                    self.line(&format!("%n{id} = llvm.add %i{id}, %c1 : i64"));
                    self.line(&format!("llvm.br ^h{id}(%n{id} : i64)"));
                    self.text.push_str(&format!("  ^x{id}:\n"));
                }
                _ => {
                    let id = self.fresh();
                    self.line(&format!("llvm.cond_br %c, ^t{id}, ^f{id}"));
                    self.text.push_str(&format!("  ^t{id}:\n"));
                    self.stmts(depth + 1);
                    self.line(&format!("llvm.br ^j{id}"));
                    self.text.push_str(&format!("  ^f{id}:\n"));
                    if self.rng.below(2) == 0 {
                        self.stmts(depth + 1);
                    }
                    self.line(&format!("llvm.br ^j{id}"));
                    self.text.push_str(&format!("  ^j{id}:\n"));
                }
            }
        }
    }
}

fn program(seed: u64) -> (String, usize, BTreeSet<usize>) {
    let mut g = Gen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        text: String::new(),
        n: 0,
        slots: 0,
        escaping: BTreeSet::new(),
    };
    g.slots = 1 + g.rng.below(5) as usize;
    g.text.push_str("module {\n  llvm.func @sink(!llvm.ptr)\n");
    g.text
        .push_str("  llvm.func @f(%out: !llvm.ptr, %box: !llvm.ptr, %c: i1) {\n");
    g.line("%c0 = llvm.mlir.constant(0 : index) : i64");
    g.line("%c1 = llvm.mlir.constant(1 : index) : i64");
    g.line("%c4 = llvm.mlir.constant(4 : index) : i64");
    g.line(&format!("%u = llvm.mlir.poison : {DESC}"));
    for k in 0..g.slots {
        g.line(&format!(
            "%s{k} = llvm.alloca %c4 x i64 : (i64) -> !llvm.ptr"
        ));
        g.line(&format!("%a{k} = llvm.insertvalue %s{k}, %u[0] : {DESC}"));
        g.line(&format!(
            "%d{k} = llvm.insertvalue %s{k}, %a{k}[1] : {DESC}"
        ));
    }
    g.stmts(0);
    g.line("llvm.return");
    g.text.push_str("  }\n}\n");
    let (slots, esc) = (g.slots, g.escaping.clone());
    (g.text, slots, esc)
}

fn name(m: &Module, op: OpId) -> &str {
    m.op(op).name.as_str()
}

/// Derived pointers of `p`: GEP (base), insertvalue, extractvalue results.
fn derived(m: &Module, p: ValueId) -> Vec<ValueId> {
    let mut out = vec![p];
    let mut i = 0;
    while i < out.len() {
        let v = out[i];
        i += 1;
        for u in m.uses(v) {
            let n = name(m, u.op);
            let d = (n == "llvm.getelementptr" && u.index == 0)
                || n == "llvm.insertvalue"
                || n == "llvm.extractvalue";
            if d {
                let r = m.result(u.op, 0);
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
    out
}

/// The structural check; `Err` describes the first violation.
fn check(m: &Module, slots: usize, escaping: &BTreeSet<usize>) -> Result<(), String> {
    let f = m
        .walk_ops(m.top)
        .into_iter()
        .find(|&op| {
            name(m, op) == "llvm.func"
                && m.regions(op)
                    .first()
                    .is_some_and(|&r| !m.region_blocks(r).is_empty())
        })
        .ok_or("no function")?;
    let r = m.regions(f)[0];
    let blocks: Vec<BlockId> = m.region_blocks(r).to_vec();
    let allocas: Vec<OpId> = m
        .walk_ops(f)
        .into_iter()
        .filter(|&op| name(m, op) == "llvm.alloca")
        .collect();
    if allocas.len() != slots {
        return Err(format!("{} allocas, expected {slots}", allocas.len()));
    }
    for (k, &a) in allocas.iter().enumerate() {
        if m.op_block(a) != Some(blocks[0]) {
            return Err(format!("slot {k} not in the entry block"));
        }
        let p = m.result(a, 0);
        let ders = derived(m, p);
        let marker = |op: OpId| -> Option<bool> {
            let n = name(m, op);
            if (n == "llvm.intr.lifetime.start" || n == "llvm.intr.lifetime.end")
                && m.operands(op).first() == Some(&p)
            {
                return Some(n.ends_with("start"));
            }
            None
        };
        let is_access = |op: OpId| -> bool {
            let n = name(m, op);
            !n.starts_with("llvm.intr.lifetime")
                && n != "llvm.getelementptr"
                && n != "llvm.insertvalue"
                && n != "llvm.extractvalue"
                && m.operands(op).iter().any(|v| ders.contains(v))
                || (n == "llvm.getelementptr"
                    && m.operands(op)[1..].iter().any(|v| ders.contains(v)))
        };
        let ops: Vec<OpId> = blocks.iter().flat_map(|&b| m.block_ops(b)).collect();
        let has_markers = ops.iter().any(|&op| marker(op).is_some());
        let accessed = ops.iter().any(|&op| is_access(op));
        if escaping.contains(&k) {
            if has_markers {
                return Err(format!("escaping slot {k} has markers"));
            }
            continue;
        }
        if accessed && !has_markers {
            return Err(format!("non-escaping slot {k} has no markers"));
        }
        if !has_markers {
            continue;
        }
        // States: bit 0 = may be dead, bit 1 = may be live.
        let n = blocks.len();
        let mut at: Vec<u8> = vec![0; n];
        at[0] = 1;
        let transfer = |b: BlockId, mut s: u8, report: bool| -> Result<u8, String> {
            for op in m.block_ops(b) {
                if let Some(start) = marker(op) {
                    if start {
                        if report && s != 1 {
                            return Err(format!("slot {k}: start while possibly live"));
                        }
                        s = 2;
                    } else {
                        s = 1;
                    }
                } else if is_access(op) && report && s != 2 {
                    return Err(format!(
                        "slot {k}: access '{}' while possibly dead",
                        name(m, op)
                    ));
                }
            }
            Ok(s)
        };
        let mut changed = true;
        while changed {
            changed = false;
            for (i, &b) in blocks.iter().enumerate() {
                if at[i] == 0 {
                    continue;
                }
                let out = transfer(b, at[i], false)?;
                let t = m.last_op(b).ok_or("empty block")?;
                for s in &m.op(t).successors {
                    let j = blocks.iter().position(|x| x == s).ok_or("bad successor")?;
                    if at[j] | out != at[j] {
                        at[j] |= out;
                        changed = true;
                    }
                }
            }
        }
        for (i, &b) in blocks.iter().enumerate() {
            if at[i] != 0 {
                transfer(b, at[i], true)?;
            }
        }
    }
    Ok(())
}

#[test]
fn random_llvm_functions_keep_every_access_inside_its_lifetime() {
    let count: u64 = std::env::var("MEMPLAN_LIFETIME_RANDOM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let reg = Registry::with_all_dialects();
    let mut marked = 0;
    for seed in 0..count {
        let (text, slots, escaping) = program(seed);
        let mut m = parse_module(&text, &reg, ParseOptions::default()).unwrap_or_else(|d| {
            panic!(
                "seed {seed}: generated program does not parse: {}\n{text}",
                d.message
            )
        });
        verify(&m, &reg).unwrap_or_else(|d| panic!("seed {seed}: input invalid: {}", d.message));
        let report = llvm_lifetime_markers(&mut m);
        marked += report.marked;
        verify(&m, &reg).unwrap_or_else(|d| panic!("seed {seed}: output invalid: {}", d.message));
        if let Err(e) = check(&m, slots, &escaping) {
            panic!("seed {seed}: {e}\n{text}");
        }
    }
    assert!(marked > 0);
    eprintln!("{count} programs, {marked} slots marked");
}

/// The checker itself catches broken markers: without the starts, some access is dead.
#[test]
fn checker_rejects_markers_without_starts() {
    let reg = Registry::with_all_dialects();
    let mut caught = 0;
    for seed in 0..50 {
        let (text, slots, escaping) = program(seed);
        let mut m = parse_module(&text, &reg, ParseOptions::default()).expect("parses");
        if llvm_lifetime_markers(&mut m).marked == 0 {
            continue;
        }
        let starts: Vec<OpId> = m
            .walk_ops(m.top)
            .into_iter()
            .filter(|&op| name(&m, op) == "llvm.intr.lifetime.start")
            .collect();
        for op in starts {
            m.erase_op(op);
        }
        assert!(
            check(&m, slots, &escaping).is_err(),
            "seed {seed}: the checker accepted markers without starts"
        );
        caught += 1;
    }
    assert!(caught > 10);
}
