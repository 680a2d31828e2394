//! Random stack-buffer programs through both lifetime-marker passes (issue 13), judged by
//! execution and by structural checkers written apart from the passes.
//!
//! For each seed ([`support::stackgen`]: `memref.alloca` buffers in loops, branches, calls,
//! escapes), with the original's `mlir-runner-22` output as reference:
//!
//! - memref level: `--insert-lifetime-markers`; the result passes `--verify-lifetime-markers`,
//!   parses in `mlir-opt-22 --allow-unregistered-dialect`, and passes [`check_lifelines`] (each
//!   buffer has one lifeline whose start and end sit in the allocating block, every use of the
//!   buffer goes through the lifeline and lies between them, the buffer itself is used by
//!   nothing but the start; escaping buffers have none, every other used buffer has one);
//!   stripped again it prints the reference values.
//! - LLVM level: lowered with mlir-opt-22 (`lower.sh`'s pipeline), then `--llvm-lifetime-markers`;
//!   [`check_llvm`] (a forward {dead, live} dataflow per stack slot over the CFG: every access
//!   through a derived pointer happens while the slot is live on every path, every start while
//!   it is dead, markers sit only on allocas, escaping slots have none and every accessed
//!   non-escaping slot has some); `mlir-runner-22` (default and `-O3`) prints the reference; and
//!   where `llc-22`/`llvm-readobj-22` exist, `@compute`'s frame under `llc-22 -O2` is at most its
//!   frame without markers.
//!
//! `MEMPLAN_STACKGEN_SEEDS` (default 4) and `MEMPLAN_STACKGEN_FIRST` (default 0) choose the
//! seeds; the totals (slots, frames) are printed to stderr.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use memplan_ir::{parse_module, BlockId, Module, OpId, ParseOptions, Registry, ValueId};
use support::{oracle, stackgen};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn name(m: &Module, op: OpId) -> &str {
    m.op(op).name.as_str()
}

fn parse(text: &str) -> Result<Module, String> {
    let reg = Registry::with_all_dialects();
    parse_module(text, &reg, ParseOptions::default()).map_err(|d| d.message)
}

// ------------------------------------------------------------------ memref-level checker

/// The ancestor of `op` (itself included) in block `b`.
fn ancestor_in(m: &Module, mut op: OpId, b: BlockId) -> Option<OpId> {
    loop {
        if m.op_block(op) == Some(b) {
            return Some(op);
        }
        op = m.parent_op(op)?;
    }
}

/// `v` and every memref value computed from it (views, casts), never through a lifetime op.
fn memref_family(m: &Module, v: ValueId) -> Vec<ValueId> {
    let mut out = vec![v];
    let mut i = 0;
    while i < out.len() {
        let x = out[i];
        i += 1;
        for u in m.uses(x) {
            if name(m, u.op).starts_with("memplan.lifetime") {
                continue;
            }
            for &r in m.results(u.op) {
                if m.value_type(r).to_string().starts_with("memref<") && !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
    out
}

/// Structural check of `--insert-lifetime-markers` output (see the module doc).
fn check_lifelines(m: &Module) -> Result<usize, String> {
    let mut marked = 0;
    let allocas: Vec<OpId> = m
        .walk_ops(m.top)
        .into_iter()
        .filter(|&op| name(m, op) == "memref.alloca")
        .collect();
    for (k, a) in allocas.into_iter().enumerate() {
        let buf = m.result(a, 0);
        let raw: Vec<OpId> = m.uses(buf).iter().map(|u| u.op).collect();
        let starts: Vec<OpId> = raw
            .iter()
            .copied()
            .filter(|&o| name(m, o) == "memplan.lifetime_start")
            .collect();
        let escapes = memref_family(m, buf)
            .iter()
            .any(|&v| m.uses(v).iter().any(|u| name(m, u.op) == "func.call"));
        if starts.is_empty() {
            if !raw.is_empty() && !escapes {
                return Err(format!(
                    "buffer {k}: used, does not escape, has no lifeline"
                ));
            }
            continue;
        }
        if escapes {
            return Err(format!(
                "buffer {k}: escapes through a call but has a lifeline"
            ));
        }
        if starts.len() != 1 || raw.len() != 1 {
            return Err(format!(
                "buffer {k}: {} starts, {} direct uses (the buffer itself must only feed its start)",
                starts.len(),
                raw.len()
            ));
        }
        let s = starts[0];
        let b = m.op_block(s).ok_or("start outside a block")?;
        if m.op_block(a) != Some(b) {
            return Err(format!("buffer {k}: start not in the allocating block"));
        }
        let l = m.result(s, 0);
        let ends: Vec<OpId> = m
            .uses(l)
            .iter()
            .map(|u| u.op)
            .filter(|&o| name(m, o) == "memplan.lifetime_end")
            .collect();
        if ends.len() != 1 || m.op_block(ends[0]) != Some(b) {
            return Err(format!(
                "buffer {k}: needs exactly one end in the start's block"
            ));
        }
        let order: Vec<OpId> = m.block_ops(b).collect();
        let pos = |o: OpId| order.iter().position(|&x| x == o);
        let (ps, pe) = (pos(s).unwrap_or(0), pos(ends[0]).unwrap_or(0));
        if pe <= ps {
            return Err(format!("buffer {k}: end before start"));
        }
        for v in memref_family(m, l) {
            for u in m.uses(v) {
                if u.op == ends[0] {
                    continue;
                }
                let p = ancestor_in(m, u.op, b).and_then(pos);
                if !p.is_some_and(|p| ps < p && p < pe) {
                    return Err(format!(
                        "buffer {k}: `{}` uses the lifeline outside [start, end]",
                        name(m, u.op)
                    ));
                }
            }
        }
        marked += 1;
    }
    Ok(marked)
}

// -------------------------------------------------------------------- LLVM-level checker

/// The operands `op` (a `llvm.br` / `llvm.cond_br`) passes to each successor.
fn branch_operands(m: &Module, op: OpId) -> Vec<Vec<ValueId>> {
    let d = m.op(op);
    let ops = m.operands(op);
    match d.name.as_str() {
        "llvm.br" => vec![ops.to_vec()],
        "llvm.cond_br" => {
            let seg = d
                .props
                .get("operandSegmentSizes")
                .or_else(|| d.attrs.get("operandSegmentSizes"))
                .and_then(|a| a.as_int_array());
            match seg {
                Some(s) if s.len() == 3 => {
                    let (t, f) = (s[1] as usize, s[2] as usize);
                    vec![ops[1..1 + t].to_vec(), ops[1 + t..1 + t + f].to_vec()]
                }
                // Unknown layout: every operand may reach either successor.
                _ => vec![ops.to_vec(), ops.to_vec()],
            }
        }
        _ => Vec::new(),
    }
}

/// Pointers derived from slot pointer `p`: GEP base, casts, select, insert/extractvalue
/// (pointer-typed extracts), and block arguments fed through branches.
fn llvm_derived(m: &Module, p: ValueId) -> Vec<ValueId> {
    let mut out = vec![p];
    let mut i = 0;
    while i < out.len() {
        let v = out[i];
        i += 1;
        for u in m.uses(v) {
            let n = name(m, u.op);
            let mut new: Vec<ValueId> = Vec::new();
            match n {
                "llvm.getelementptr" if u.index == 0 => new.push(m.result(u.op, 0)),
                "llvm.bitcast" | "llvm.addrspacecast" | "llvm.insertvalue" => {
                    new.push(m.result(u.op, 0))
                }
                "llvm.select" if u.index > 0 => new.push(m.result(u.op, 0)),
                "llvm.extractvalue" => {
                    let r = m.result(u.op, 0);
                    if m.value_type(r).to_string().contains("ptr") {
                        new.push(r);
                    }
                }
                "llvm.br" | "llvm.cond_br" => {
                    let succs = m.op(u.op).successors.clone();
                    for (s, args) in succs.iter().zip(branch_operands(m, u.op)) {
                        for (j, &a) in args.iter().enumerate() {
                            if a == v {
                                if let Some(&ba) = m.block_args(*s).get(j) {
                                    new.push(ba);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
            for r in new {
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
    out
}

/// How op `o` uses a derived pointer at operand `index`.
#[derive(PartialEq)]
enum PtrUse {
    Derive,
    Marker,
    Access,
    Escape,
    Nothing,
}

fn ptr_use(m: &Module, o: OpId, index: usize) -> PtrUse {
    match name(m, o) {
        "llvm.getelementptr" if index == 0 => PtrUse::Derive,
        "llvm.getelementptr" => PtrUse::Access,
        "llvm.bitcast" | "llvm.addrspacecast" | "llvm.insertvalue" | "llvm.br" | "llvm.cond_br" => {
            PtrUse::Derive
        }
        "llvm.select" if index > 0 => PtrUse::Derive,
        "llvm.extractvalue" => {
            if m.value_type(m.result(o, 0)).to_string().contains("ptr") {
                PtrUse::Derive
            } else {
                PtrUse::Nothing
            }
        }
        "llvm.intr.lifetime.start" | "llvm.intr.lifetime.end" => PtrUse::Marker,
        "llvm.store" if index == 0 => PtrUse::Escape,
        "llvm.load" | "llvm.store" | "llvm.icmp" | "llvm.select" | "llvm.intr.memcpy"
        | "llvm.intr.memmove" | "llvm.intr.memset" => PtrUse::Access,
        // Calls (func-to-llvm drops nocapture), returns, ptrtoint, anything unknown.
        _ => PtrUse::Escape,
    }
}

/// Structural check of `--llvm-lifetime-markers` output (see the module doc). Returns the
/// number of marked slots.
fn check_llvm(m: &Module) -> Result<usize, String> {
    let mut marked = 0;
    let funcs: Vec<OpId> = m
        .walk_ops(m.top)
        .into_iter()
        .filter(|&op| {
            name(m, op) == "llvm.func"
                && m.regions(op)
                    .first()
                    .is_some_and(|&r| !m.region_blocks(r).is_empty())
        })
        .collect();
    for f in funcs {
        let blocks: Vec<BlockId> = m.region_blocks(m.regions(f)[0]).to_vec();
        let fname = m
            .op(f)
            .props
            .get("sym_name")
            .or_else(|| m.op(f).attrs.get("sym_name"))
            .map(|a| a.to_string())
            .unwrap_or_default();
        let slots: BTreeSet<ValueId> = m
            .block_ops(blocks[0])
            .filter(|&o| name(m, o) == "llvm.alloca")
            .map(|o| m.result(o, 0))
            .collect();
        // Markers only on entry-block allocas.
        for b in &blocks {
            for o in m.block_ops(*b) {
                if name(m, o).starts_with("llvm.intr.lifetime")
                    && !m.operands(o).first().is_some_and(|v| slots.contains(v))
                {
                    return Err(format!("{fname}: a lifetime marker not on a static alloca"));
                }
            }
        }
        for (k, &p) in slots.iter().enumerate() {
            let ders = llvm_derived(m, p);
            let mut escapes = false;
            let mut accessed = false;
            let mut access_ops: BTreeSet<OpId> = BTreeSet::new();
            for &v in &ders {
                for u in m.uses(v) {
                    match ptr_use(m, u.op, u.index as usize) {
                        PtrUse::Escape => escapes = true,
                        PtrUse::Access => {
                            accessed = true;
                            access_ops.insert(u.op);
                        }
                        PtrUse::Marker if v != p => {
                            return Err(format!("{fname} slot {k}: marker on a derived pointer"))
                        }
                        _ => {}
                    }
                }
            }
            let marker = |o: OpId| -> Option<bool> {
                let n = name(m, o);
                (n.starts_with("llvm.intr.lifetime") && m.operands(o).first() == Some(&p))
                    .then(|| n.ends_with("start"))
            };
            let has_markers = blocks
                .iter()
                .any(|&b| m.block_ops(b).any(|o| marker(o).is_some()));
            if escapes {
                if has_markers {
                    return Err(format!("{fname} slot {k}: escapes but has markers"));
                }
                continue;
            }
            if !has_markers {
                if accessed {
                    return Err(format!(
                        "{fname} slot {k}: accessed, not escaping, no markers"
                    ));
                }
                continue;
            }
            marked += 1;
            // Forward may-dataflow: bit 0 = may be dead, bit 1 = may be live.
            let n = blocks.len();
            let mut at = vec![0u8; n];
            at[0] = 1;
            let transfer = |b: BlockId, mut s: u8, report: bool| -> Result<u8, String> {
                for o in m.block_ops(b) {
                    if let Some(start) = marker(o) {
                        if start {
                            if report && s != 1 {
                                return Err(format!("{fname} slot {k}: start while maybe live"));
                            }
                            s = 2;
                        } else {
                            s = 1;
                        }
                    } else if report && access_ops.contains(&o) && s != 2 {
                        return Err(format!(
                            "{fname} slot {k}: `{}` accesses it while it may be dead",
                            name(m, o)
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
                        let j = blocks
                            .iter()
                            .position(|x| x == s)
                            .ok_or("successor outside the function")?;
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
    }
    Ok(marked)
}

// ------------------------------------------------------------------------- the driver

const LOWER: &[&str] = &[
    "--convert-linalg-to-loops",
    "--lower-affine",
    "--convert-scf-to-cf",
    "--expand-strided-metadata",
    "--finalize-memref-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-index-to-llvm",
    "--convert-cf-to-llvm",
    "--convert-func-to-llvm",
    "--reconcile-unrealized-casts",
];

/// `@compute`'s frame in bytes under `llc-22 -O2`, or `None` without the tools.
fn frame(file: &Path, dir: &Path, tag: &str) -> Result<Option<u64>, String> {
    let have = |t: &str| Command::new(t).arg("--version").output().is_ok();
    if !have("llc-22") || !have("llvm-readobj-22") || !have("mlir-translate-22") {
        return Ok(None);
    }
    let ll = dir.join(format!("{tag}.ll"));
    let obj = dir.join(format!("{tag}.o"));
    let text = oracle::tool(
        "mlir-translate-22",
        &["--mlir-to-llvmir", &file.to_string_lossy()],
    )?;
    std::fs::write(&ll, text).map_err(|e| e.to_string())?;
    oracle::tool(
        "llc-22",
        &[
            "-O2",
            "-stack-size-section",
            "-filetype=obj",
            &ll.to_string_lossy(),
            "-o",
            &obj.to_string_lossy(),
        ],
    )?;
    let sizes = oracle::tool(
        "llvm-readobj-22",
        &["--stack-sizes", &obj.to_string_lossy()],
    )?;
    // Entries: `Functions: [compute]` followed by `Size: N`.
    let mut cur = false;
    for l in sizes.lines() {
        let l = l.trim();
        if l.starts_with("Functions:") {
            cur = l.contains("[compute]") || l.contains("[compute,") || l.ends_with(" compute]");
        } else if cur && l.starts_with("Size:") {
            let n = l.trim_start_matches("Size:").trim();
            let n = n.strip_prefix("0x").map_or_else(
                || n.parse::<u64>().ok(),
                |h| u64::from_str_radix(h, 16).ok(),
            );
            return n.map(Some).ok_or_else(|| format!("bad size line {l}"));
        }
    }
    // No entry: the function has a dynamic alloca (the unranked descriptor of a
    // `printMemrefF32` call after a loop), so its frame is not static.
    Ok(None)
}

#[derive(Default)]
struct Totals {
    programs: u64,
    slots: u64,
    slot_bytes: u64,
    memref_marked: u64,
    llvm_marked: u64,
    frame_without: u64,
    frame_with: u64,
    framed: u64,
}

fn check_seed(bin: &Path, seed: u64, dir: &Path, tot: &mut Totals) -> Result<(), String> {
    let p = stackgen::generate(seed);
    let src = dir.join(format!("s{seed}.mlir"));
    std::fs::write(&src, &p.text).map_err(|e| e.to_string())?;
    let reference = oracle::run(&src).map_err(|e| format!("original does not run: {e}"))?;

    // Memref level.
    let ins = dir.join(format!("s{seed}.ins.mlir"));
    oracle::memplan_opt(bin, &src, &["--insert-lifetime-markers"], &ins)?;
    oracle::memplan_opt(
        bin,
        &ins,
        &["--verify-lifetime-markers"],
        &dir.join("verified.mlir"),
    )?;
    oracle::tool(
        oracle::MLIR_OPT,
        &["--allow-unregistered-dialect", &ins.to_string_lossy()],
    )
    .map_err(|e| format!("inserted program rejected by mlir-opt-22: {e}"))?;
    let ins_text = std::fs::read_to_string(&ins).map_err(|e| e.to_string())?;
    let mm = parse(&ins_text)?;
    let memref_marked = check_lifelines(&mm).map_err(|e| format!("memref markers: {e}"))?;
    let stripped = dir.join(format!("s{seed}.strip.mlir"));
    oracle::memplan_opt(bin, &ins, &["--strip-lifetime-markers"], &stripped)?;
    let after = oracle::run(&stripped).map_err(|e| format!("stripped does not run: {e}"))?;
    if after != reference {
        return Err("values changed after insert + strip".into());
    }

    // LLVM level.
    let lowered = dir.join(format!("s{seed}.llvm.mlir"));
    let mut args: Vec<String> = vec![src.to_string_lossy().into_owned()];
    args.extend(LOWER.iter().map(|s| s.to_string()));
    args.push("-o".into());
    args.push(lowered.to_string_lossy().into_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    oracle::tool(oracle::MLIR_OPT, &args)?;
    let marked = dir.join(format!("s{seed}.llvm.marked.mlir"));
    oracle::memplan_opt(bin, &lowered, &["--llvm-lifetime-markers"], &marked)?;
    let mtext = std::fs::read_to_string(&marked).map_err(|e| e.to_string())?;
    let lm = parse(&mtext)?;
    let llvm_marked = check_llvm(&lm).map_err(|e| format!("llvm markers: {e}"))?;
    for extra in [&[][..], &["-O3"][..]] {
        let base = oracle::run_llvm(&lowered, extra)?;
        if base != reference {
            return Err(format!("lowered program prints other values ({extra:?})"));
        }
        let got = oracle::run_llvm(&marked, extra)?;
        if got != reference {
            return Err(format!(
                "values changed by --llvm-lifetime-markers ({extra:?}):\n--- reference\n{reference}\n--- marked\n{got}"
            ));
        }
    }
    let without = frame(&lowered, dir, &format!("s{seed}.without"))?;
    let with = frame(&marked, dir, &format!("s{seed}.with"))?;
    if without.is_some() && with.is_none() {
        return Err("@compute has a static frame without markers but not with them".into());
    }
    if let (Some(a), Some(b)) = (without, with) {
        if b > a {
            return Err(format!(
                "@compute frame grew: {a} B without markers, {b} B with"
            ));
        }
        tot.frame_without += a;
        tot.frame_with += b;
        tot.framed += 1;
    }
    tot.programs += 1;
    tot.slots += p.sizes.len() as u64;
    tot.slot_bytes += p.sizes.iter().map(|n| 4 * n).sum::<u64>();
    tot.memref_marked += memref_marked as u64;
    tot.llvm_marked += llvm_marked as u64;
    Ok(())
}

#[test]
fn stack_programs_keep_values_and_markers_pass_structure() {
    if !oracle::require_tools("stack_programs_keep_values_and_markers_pass_structure") {
        return;
    }
    let first = env_u64("MEMPLAN_STACKGEN_FIRST", 0);
    let n = env_u64("MEMPLAN_STACKGEN_SEEDS", 4);
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_memplan"));
    let dir = oracle::scratch_dir("stackgen");
    let mut tot = Totals::default();
    let mut failures = Vec::new();
    for seed in first..first + n {
        if let Err(e) = check_seed(&bin, seed, &dir, &mut tot) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    eprintln!(
        "stackgen: {} / {n} programs pass; {} slots ({} B), lifelines {}, LLVM slots marked {}; @compute frames under llc-22 -O2 ({} programs with a static frame): {} B without markers, {} B with",
        tot.programs,
        tot.slots,
        tot.slot_bytes,
        tot.memref_marked,
        tot.llvm_marked,
        tot.framed,
        tot.frame_without,
        tot.frame_with
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The checkers can fail: dropping every start (or moving an end before the last use) is
/// caught.
#[test]
fn checkers_reject_broken_markers() {
    let p = stackgen::generate(3);
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_memplan"));
    let dir = oracle::scratch_dir("stackgen-neg");
    let src = dir.join("p.mlir");
    std::fs::write(&src, &p.text).expect("write");
    let ins = dir.join("p.ins.mlir");
    oracle::memplan_opt(&bin, &src, &["--insert-lifetime-markers"], &ins).expect("insert");
    let mut m = parse(&std::fs::read_to_string(&ins).expect("read")).expect("parse");
    assert!(check_lifelines(&m).expect("clean") > 0, "nothing marked");
    // Move each end right after its start: uses now follow the end.
    let ends: Vec<OpId> = m
        .walk_ops(m.top)
        .into_iter()
        .filter(|&o| name(&m, o) == "memplan.lifetime_end")
        .collect();
    for e in ends {
        let l = m.operands(e)[0];
        let s = m.defining_op(l).expect("start");
        m.erase_op(e);
        let mut st = memplan_ir::OperationState::new("memplan.lifetime_end");
        st.operands = vec![l];
        let ne = m.create_op(st);
        m.insert_after(s, ne);
    }
    assert!(check_lifelines(&m).is_err(), "early ends accepted");

    // LLVM level: drop every start.
    if !oracle::tools_available() {
        return;
    }
    let lowered = dir.join("p.llvm.mlir");
    let mut args: Vec<String> = vec![src.to_string_lossy().into_owned()];
    args.extend(LOWER.iter().map(|s| s.to_string()));
    args.push("-o".into());
    args.push(lowered.to_string_lossy().into_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    oracle::tool(oracle::MLIR_OPT, &args).expect("lower");
    let marked = dir.join("p.marked.mlir");
    oracle::memplan_opt(&bin, &lowered, &["--llvm-lifetime-markers"], &marked).expect("mark");
    let mut lm = parse(&std::fs::read_to_string(&marked).expect("read")).expect("parse");
    assert!(check_llvm(&lm).expect("clean") > 0, "no LLVM slot marked");
    let starts: Vec<OpId> = lm
        .walk_ops(lm.top)
        .into_iter()
        .filter(|&o| name(&lm, o) == "llvm.intr.lifetime.start")
        .collect();
    for s in starts {
        lm.erase_op(s);
    }
    assert!(check_llvm(&lm).is_err(), "markers without starts accepted");
    // Unmarked lowered code: accessed non-escaping slots without markers are caught.
    let plain = parse(&std::fs::read_to_string(&lowered).expect("read")).expect("parse");
    assert!(check_llvm(&plain).is_err(), "unmarked slots accepted");
}
