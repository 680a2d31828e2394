//! merge-alloc: one arena per allocation scope and memory space.
//!
//! Seed 000 end to end. For every `memref.alloc` the pass first decides legality
//! ([`Legality`], with a [`SkipReason`] for each refusal): static shape, identity layout,
//! a known element size (see [`crate::ops::element_bytes`]), and none of the
//! [`Hazard`]s the lifetime collector found (returned, yielded, stored, passed to an
//! external call, pointer taken, ambiguous free, unknown region op, unstructured control
//! flow). Then it plans every (scope, memory space) with [`memplan_core::plan()`] and
//! checks the plan with the independent [`memplan_core::check()`]. Only then does it
//! mutate: an `memref.alloc() {alignment = A} : memref<Nxi8[, space]>` at the start of
//! the scope block, one `arith.constant` per distinct offset, a `memref.view` in place
//! of each merged allocation, the merged buffers' `memref.dealloc`s removed, and a
//! `memref.dealloc` of the arena before the scope's terminator when the input freed its
//! buffers. In analysis-only mode it annotates the allocations instead.
//!
//! Lifetime markers. When the module holds `memplan.lifetime_start` lifelines (seed 002),
//! the pass first runs [`verify_lifetime_markers`] on them; a module whose markers fail it
//! is an error ([`MergeAllocError::InvalidMarkers`], at the offending op) rather than
//! something to plan around, since the markers are the producer's statement about the
//! buffers. Verified lifelines become the lifetime source of their buffer
//! ([`Lifetimes::compute_with_markers`]): a lifeline inside a loop body makes the buffer
//! live per iteration, so it may share bytes with another buffer of the same body. A
//! buffer accessed outside its lifelines (or under a CFG, or with a start inside a
//! parallel op) keeps the analysis' lifetime, with a remark.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use memplan_core::{bounds, check, plan, Algorithm, Options, Plan, Problem};
use memplan_ir::{Attribute, BlockId, Module, OpId, OperationState, Type, TypeKind};

use crate::analysis::alias::BufferViewFlow;
use crate::analysis::lifetime::{Hazard, Lifetimes, MarkerUse};
use crate::extract::{extract, MergeableAlloc, ScopeProblem};
use crate::ops::element_bytes;
use crate::remarks::Remark;
use crate::transform::memref_lifetime::{verify_lifetime_markers, START};

/// Options of the pass, written mlir-opt style: `alignment=64 planner=portfolio analysis-only`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeAllocOptions {
    /// Every merged buffer's offset is a multiple of this (a power of two; default 64).
    pub alignment: u64,
    /// The planner (any [`Algorithm`] name; default `portfolio`).
    pub planner: Algorithm,
    /// Annotate allocations with scope, ticks and offset instead of rewriting.
    pub analysis_only: bool,
    /// With the default planner, problems of at most this many buffers whose plan is
    /// above the lower bound are also given to `exact` (0 disables).
    pub exact_max_buffers: usize,
    /// Node budget of that exact search (deterministic).
    pub exact_nodes: u64,
}

impl Default for MergeAllocOptions {
    fn default() -> Self {
        MergeAllocOptions {
            alignment: 64,
            planner: Algorithm::Portfolio,
            analysis_only: false,
            exact_max_buffers: 256,
            exact_nodes: 200_000,
        }
    }
}

/// The largest `alignment=` option (1 GiB).
pub const MAX_ALIGNMENT: u64 = 1 << 30;

/// The largest buffer the pass merges (256 TiB); larger ones are left alone with a remark.
/// Together with [`MAX_ARENA_BYTES`] this keeps every size, offset and padding computation
/// of the pass far from `u64`/`i64` overflow.
pub const MAX_BUFFER_BYTES: u64 = 1 << 48;

/// The largest sum of (aligned) buffer sizes planned into one arena; buffers beyond it stay.
pub const MAX_ARENA_BYTES: u64 = 1 << 60;

/// A malformed option string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// `key=value` with an unknown key.
    #[error("unknown merge-alloc option `{0}` (known: alignment=N, planner=NAME, analysis-only, exact-max-buffers=N, exact-nodes=N)")]
    UnknownKey(String),
    /// A value that does not parse.
    #[error("bad value `{value}` for merge-alloc option `{key}`: {why}")]
    BadValue {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What was expected.
        why: String,
    },
}

impl MergeAllocOptions {
    /// Parses `key=value` items separated by spaces or commas (mlir-opt pass-option style).
    pub fn parse(text: &str) -> Result<MergeAllocOptions, OptionsError> {
        let mut o = MergeAllocOptions::default();
        for (key, value) in super::option_items(text) {
            let bad = |why: &str| OptionsError::BadValue {
                key: key.to_string(),
                value: value.to_string(),
                why: why.to_string(),
            };
            let num = || value.parse::<u64>().map_err(|_| bad("expected a number"));
            match key {
                "alignment" => {
                    let a = num()?;
                    if a == 0 || !a.is_power_of_two() || a > MAX_ALIGNMENT {
                        return Err(bad(&format!(
                            "expected a power of two between 1 and {MAX_ALIGNMENT}"
                        )));
                    }
                    o.alignment = a;
                }
                "planner" | "algo" => {
                    o.planner = Algorithm::from_name(value).ok_or_else(|| {
                        bad(&format!("expected one of {}", Algorithm::all_names()))
                    })?;
                }
                "analysis-only" => {
                    o.analysis_only = match value {
                        "" | "true" | "1" => true,
                        "false" | "0" => false,
                        _ => return Err(bad("expected true or false")),
                    }
                }
                "exact-max-buffers" => o.exact_max_buffers = num()? as usize,
                "exact-nodes" => o.exact_nodes = num()?,
                _ => return Err(OptionsError::UnknownKey(key.to_string())),
            }
        }
        Ok(o)
    }
}

/// Why an allocation is left alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A dimension is `?` or the alloc has size operands.
    DynamicShape,
    /// The memref has a non-identity layout.
    Layout,
    /// The element type has no known byte size.
    UnknownElementSize(String),
    /// The memref has no bytes.
    Empty,
    /// Its size, or the arena it would join, is out of the range the pass plans.
    TooLarge(String),
    /// Something in the lifetime facts.
    Hazard(Hazard),
    /// The planner failed or its plan did not pass the checker.
    PlanFailed(String),
    /// The arena would be larger than the buffers it replaces.
    NoGain(String),
    /// GPU workgroup (shared) memory: left to `--merge-shared-memory`.
    WorkgroupMemory,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::DynamicShape => write!(f, "its shape is dynamic"),
            SkipReason::Layout => write!(f, "its layout is not the identity"),
            SkipReason::UnknownElementSize(t) => {
                write!(f, "the size of its element type {t} is unknown")
            }
            SkipReason::Empty => write!(f, "it has no bytes"),
            SkipReason::TooLarge(why) => write!(f, "{why}"),
            SkipReason::Hazard(h) => h.fmt(f),
            SkipReason::PlanFailed(e) => write!(f, "planning its scope failed: {e}"),
            SkipReason::NoGain(why) => write!(f, "{why}"),
            SkipReason::WorkgroupMemory => write!(
                f,
                "it is GPU workgroup memory, shared by the threads of a block (reuse needs barriers: use --merge-shared-memory)"
            ),
        }
    }
}

/// The legality verdict for one allocation.
#[derive(Clone, Debug)]
pub enum Legality {
    /// It may be merged.
    Mergeable(MergeableAlloc),
    /// It stays, for these reasons (at least one).
    Skip(Vec<SkipReason>),
}

/// What happened in one (scope, memory space).
#[derive(Clone, Debug)]
pub struct ScopeReport {
    /// The function.
    pub function: String,
    /// `func`, `scf.parallel#0`, ...
    pub label: String,
    /// The memory space attribute as text (empty = default space).
    pub space: String,
    /// Arena bytes (the plan's peak).
    pub arena_bytes: u64,
    /// Sum of the (rounded) buffer sizes.
    pub sum_bytes: u64,
    /// The max-load lower bound.
    pub lower_bound: u64,
    /// The problem given to the planner.
    pub problem: Problem,
    /// The plan.
    pub plan: Plan,
    /// Buffer names, in problem order.
    pub names: Vec<String>,
}

/// One allocation as `--print-lifetimes` shows it.
#[derive(Clone, Debug)]
pub struct LifetimeRecord {
    /// The alloc op.
    pub alloc: OpId,
    /// `%name`.
    pub name: String,
    /// `@function`.
    pub function: String,
    /// Scope label, if any.
    pub scope: Option<String>,
    /// Inclusive first/last access ticks.
    pub ticks: Option<(u32, u32)>,
    /// Bytes (static allocations).
    pub bytes: Option<u64>,
    /// Offset in the arena when merged.
    pub offset: Option<u64>,
    /// Why it is not merged.
    pub skipped: Vec<SkipReason>,
}

impl fmt::Display for LifetimeRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "@{} {} {}",
            self.function,
            self.scope.as_deref().unwrap_or("-"),
            self.name
        )?;
        match self.ticks {
            Some((a, b)) => write!(f, " ticks [{a}, {b}]")?,
            None => write!(f, " ticks none")?,
        }
        if let Some(b) = self.bytes {
            write!(f, " {b} B")?;
        }
        if let Some(o) = self.offset {
            write!(f, " offset {o}")?;
        }
        if !self.skipped.is_empty() {
            let why: Vec<String> = self.skipped.iter().map(|r| r.to_string()).collect();
            write!(f, " not merged: {}", why.join("; "))?;
        }
        Ok(())
    }
}

/// Everything the pass reports.
#[derive(Clone, Debug, Default)]
pub struct MergeAllocReport {
    /// One entry per planned (scope, memory space), in scope order.
    pub scopes: Vec<ScopeReport>,
    /// One entry per `memref.alloc`, in pre-order.
    pub lifetimes: Vec<LifetimeRecord>,
    /// Remarks (skipped allocations, per-scope summaries).
    pub remarks: Vec<Remark>,
}

/// Failure of the pass (only for bad options; bad IR is skipped with remarks).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeAllocError {
    /// The options are invalid.
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// The module's `memplan.lifetime_*` markers fail `--verify-lifetime-markers`.
    #[error("invalid lifetime markers: {}", .0.message)]
    InvalidMarkers(memplan_ir::Diagnostic),
}

/// Decides whether one allocation may be merged.
pub fn legality(m: &Module, lt: &Lifetimes, trace: usize, opts: &MergeAllocOptions) -> Legality {
    let t = &lt.traces[trace];
    let alloc = t.alloc;
    let mut reasons: Vec<SkipReason> = t.hazards.iter().cloned().map(SkipReason::Hazard).collect();
    let ty = m.results(alloc).first().map(|&r| m.value_type(r).clone());
    let mut bytes = None;
    let mut space_attr = None;
    let mut natural = 1;
    match ty.as_ref().map(Type::kind) {
        Some(TypeKind::MemRef {
            shape,
            elem,
            layout,
            memory_space,
        }) => {
            // Memory space `0` is the default space (MLIR drops it from the type).
            space_attr = match memory_space {
                Some(a) if a.as_int() == Some(0) => None,
                s => s.clone(),
            };
            // GPU workgroup memory is shared by the threads of a block: reusing its bytes
            // needs barriers, which only --merge-shared-memory places.
            if let Some(sp) = &space_attr {
                if sp.as_int() == Some(3) || sp.to_string().contains("workgroup") {
                    reasons.push(SkipReason::WorkgroupMemory);
                }
            }
            if shape.iter().any(|&d| d < 0) || !m.operands(alloc).is_empty() {
                reasons.push(SkipReason::DynamicShape);
            }
            if layout
                .as_ref()
                .is_some_and(|l| !is_identity_layout(l, shape.len()))
            {
                reasons.push(SkipReason::Layout);
            }
            match element_bytes(elem) {
                None => reasons.push(SkipReason::UnknownElementSize(elem.to_string())),
                Some(_) if shape.iter().any(|&d| d < 0) => {}
                Some(e) => {
                    let n = shape
                        .iter()
                        .try_fold(e, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?));
                    match n {
                        Some(0) => reasons.push(SkipReason::Empty),
                        Some(n) if n <= MAX_BUFFER_BYTES => bytes = Some(n),
                        Some(n) => reasons.push(SkipReason::TooLarge(format!(
                            "its size of {n} bytes is above the {MAX_BUFFER_BYTES}-byte limit of the pass"
                        ))),
                        None => reasons.push(SkipReason::TooLarge(
                            "its size in bytes does not fit in 64 bits".to_string(),
                        )),
                    }
                    natural = natural_alignment(e);
                }
            }
        }
        _ => reasons.push(SkipReason::DynamicShape),
    }
    let own_align = alloc_alignment(m, alloc).unwrap_or(1);
    if own_align > MAX_ALIGNMENT {
        reasons.push(SkipReason::TooLarge(format!(
            "its alignment of {own_align} bytes is above the {MAX_ALIGNMENT}-byte limit of the pass"
        )));
    }
    let Some(bytes) = bytes.filter(|_| reasons.is_empty()) else {
        return Legality::Skip(reasons);
    };
    Legality::Mergeable(MergeableAlloc {
        alloc,
        trace,
        bytes,
        // The offset honours the option, the alloc's own alignment and the element's
        // natural alignment (a vector<4xf32> load assumes 16 bytes).
        align: own_align.max(opts.alignment).max(natural),
        space_attr,
        name: value_label(m, alloc, trace),
    })
}

/// The alignment LLVM's data layout gives an element of `bytes` bytes: the size rounded up
/// to a power of two (capped at 4 KiB, well above any scalar or vector load's need).
fn natural_alignment(bytes: u64) -> u64 {
    bytes
        .max(1)
        .checked_next_power_of_two()
        .unwrap_or(4096)
        .min(4096)
}

fn is_identity_layout(l: &Attribute, rank: usize) -> bool {
    match l {
        Attribute::AffineMap(map) => map.to_string() == identity_map_text(rank),
        _ => false,
    }
}

fn identity_map_text(rank: usize) -> String {
    let dims: Vec<String> = (0..rank).map(|i| format!("d{i}")).collect();
    format!("({}) -> ({})", dims.join(", "), dims.join(", "))
}

/// The `alignment` attribute of an alloc (property or discardable attribute).
fn alloc_alignment(m: &Module, alloc: OpId) -> Option<u64> {
    let d = m.op(alloc);
    let a = d
        .props
        .get("alignment")
        .or_else(|| d.attrs.get("alignment"))?;
    let v = u64::try_from(a.as_int()?).ok()?;
    (v > 0 && v.is_power_of_two()).then_some(v)
}

fn value_label(m: &Module, alloc: OpId, trace: usize) -> String {
    m.results(alloc)
        .first()
        .and_then(|&r| m.name_hint(r).map(str::to_string))
        .map_or_else(|| format!("alloc#{trace}"), |h| format!("%{h}"))
}

/// Plans one problem: the chosen planner, then (for the default planner on small
/// problems above the lower bound) a budgeted exact search; the better plan wins and
/// must pass the independent checker.
fn plan_scope(p: &Problem, opts: &MergeAllocOptions) -> Result<Plan, String> {
    let mut best = plan(p, &Options::with_algorithm(opts.planner)).map_err(|e| e.to_string())?;
    let lb = bounds::max_load(p);
    if opts.planner == Algorithm::Portfolio && best.peak() > lb && p.len() <= opts.exact_max_buffers
    {
        let mut o = Options::with_algorithm(Algorithm::Exact);
        o.node_limit = Some(opts.exact_nodes);
        if let Ok(e) = plan(p, &o) {
            if e.peak() < best.peak() && check(p, &e).is_ok() {
                best = e;
            }
        }
    }
    check(p, &best).map_err(|e| format!("the plan fails the checker: {e}"))?;
    Ok(best)
}

/// Runs merge-alloc over every function of the module.
pub fn merge_alloc(
    m: &mut Module,
    opts: &MergeAllocOptions,
) -> Result<MergeAllocReport, MergeAllocError> {
    let has_markers = m
        .walk_ops(m.top)
        .into_iter()
        .any(|op| m.op(op).name.as_str() == START);
    if has_markers {
        verify_lifetime_markers(m).map_err(MergeAllocError::InvalidMarkers)?;
    }
    let flow = BufferViewFlow::compute_interprocedural(m, m.top);
    let lt = Lifetimes::compute_with_markers(m, m.top, &flow, has_markers);
    let mut report = MergeAllocReport::default();

    // Legality, with reasons.
    let mut verdicts: Vec<Legality> = (0..lt.traces.len())
        .map(|i| legality(m, &lt, i, opts))
        .collect();
    cap_arena_sizes(&lt, &mut verdicts);

    // Planning; a scope whose plan fails leaves its buffers alone, which may make frees or
    // address comparisons shared with other scopes ambiguous: settle again and re-plan.
    let planned: Vec<(ScopeProblem, Plan)> = loop {
        settle(&lt, &mut verdicts);
        let mergeable: Vec<MergeableAlloc> = verdicts
            .iter()
            .filter_map(|v| match v {
                Legality::Mergeable(a) => Some(a.clone()),
                Legality::Skip(_) => None,
            })
            .collect();
        let mut planned = Vec::new();
        let mut failed = false;
        for sp in extract(&lt, &mergeable, opts.alignment) {
            let raw: u64 = sp.allocs.iter().map(|a| a.bytes).sum();
            match plan_scope(&sp.problem, opts).and_then(|p| separate_addresses(&flow, &lt, &sp, p))
            {
                Ok(p) if p.peak() > raw => {
                    // Alignment padding can outweigh the reuse in a scope of small buffers:
                    // never make a program take more bytes than it did.
                    failed = true;
                    let why = format!(
                        "merging its scope would not save bytes (a {} B arena for {} B of buffers)",
                        p.peak(),
                        raw
                    );
                    for a in &sp.allocs {
                        verdicts[a.trace] = Legality::Skip(vec![SkipReason::NoGain(why.clone())]);
                    }
                }
                Ok(p) => planned.push((sp, p)),
                Err(e) => {
                    failed = true;
                    for a in &sp.allocs {
                        verdicts[a.trace] = Legality::Skip(vec![SkipReason::PlanFailed(e.clone())]);
                    }
                }
            }
        }
        if !failed {
            break planned;
        }
    };

    // Records, remarks.
    let mut offsets: BTreeMap<usize, u64> = BTreeMap::new();
    for (sp, p) in &planned {
        for (k, a) in sp.allocs.iter().enumerate() {
            offsets.insert(a.trace, p.offsets[k]);
        }
    }
    for (i, t) in lt.traces.iter().enumerate() {
        let scope = t.scope.map(|s| &lt.scopes[s]);
        let function = scope.map_or_else(|| enclosing_function(m, t.alloc), |s| s.function.clone());
        let skipped = match &verdicts[i] {
            Legality::Skip(r) => r.clone(),
            Legality::Mergeable(_) => Vec::new(),
        };
        let bytes = match &verdicts[i] {
            Legality::Mergeable(a) => Some(a.bytes),
            Legality::Skip(_) => m
                .results(t.alloc)
                .first()
                .and_then(|&r| static_bytes(m.value_type(r))),
        };
        let rec = LifetimeRecord {
            alloc: t.alloc,
            name: value_label(m, t.alloc, i),
            function,
            scope: scope.map(|s| s.label.clone()),
            ticks: t.ticks,
            bytes,
            offset: offsets.get(&i).copied(),
            skipped,
        };
        if !rec.skipped.is_empty() {
            let why: Vec<String> = rec.skipped.iter().map(|r| r.to_string()).collect();
            report.remarks.push(Remark {
                op: t.alloc,
                span: m.op(t.alloc).span,
                message: format!("merge-alloc: {} not merged: {}", rec.name, why.join("; ")),
            });
        }
        match &t.markers {
            Some(MarkerUse::Used { count, analysis }) if *analysis != t.live => {
                report.remarks.push(Remark {
                    op: t.alloc,
                    span: m.op(t.alloc).span,
                    message: format!(
                        "merge-alloc: {} is live over its {count} lifeline(s): ticks {} (the analysis alone: {})",
                        rec.name,
                        ranges_text(&t.live),
                        ranges_text(analysis)
                    ),
                });
            }
            Some(MarkerUse::Ignored(why)) => report.remarks.push(Remark {
                op: t.alloc,
                span: m.op(t.alloc).span,
                message: format!(
                    "merge-alloc: the lifetime markers of {} are not used: {why}",
                    rec.name
                ),
            }),
            _ => {}
        }
        report.lifetimes.push(rec);
    }
    for (sp, p) in &planned {
        let scope = &lt.scopes[sp.scope];
        let lb = bounds::max_load(&sp.problem);
        let sum: u64 = sp.problem.buffers.iter().map(|b| b.size).sum();
        let peak = p.peak();
        report.remarks.push(Remark {
            op: scope.op,
            span: m.op(scope.op).span,
            message: format!(
                "merge-alloc: @{} {}{}: {} buffers in a {} B arena (sum {} B, lower bound {} B)",
                scope.function,
                scope.label,
                sp.space_attr
                    .as_ref()
                    .map(|s| format!(" space {s}"))
                    .unwrap_or_default(),
                sp.allocs.len(),
                peak,
                sum,
                lb
            ),
        });
        report.scopes.push(ScopeReport {
            function: scope.function.clone(),
            label: scope.label.clone(),
            space: sp
                .space_attr
                .as_ref()
                .map(|s| s.to_string())
                .unwrap_or_default(),
            arena_bytes: peak,
            sum_bytes: sum,
            lower_bound: lb,
            problem: sp.problem.clone(),
            plan: p.clone(),
            names: sp.allocs.iter().map(|a| a.name.clone()).collect(),
        });
    }

    // Mutation.
    if opts.analysis_only {
        annotate(m, &lt, &report);
    } else {
        let merged: BTreeSet<usize> = planned
            .iter()
            .flat_map(|(sp, _)| sp.allocs.iter().map(|a| a.trace))
            .collect();
        for (sp, p) in &planned {
            rewrite_scope(m, &lt, sp, p);
        }
        drop_frees(m, &lt, &merged);
    }
    Ok(report)
}

fn ranges_text(r: &[(u32, u32)]) -> String {
    let parts: Vec<String> = r.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
    parts.join(" ")
}

/// Leaves out the buffers that would push an arena's total past [`MAX_ARENA_BYTES`].
fn cap_arena_sizes(lt: &Lifetimes, verdicts: &mut [Legality]) {
    let mut sums: BTreeMap<(usize, String), u64> = BTreeMap::new();
    for v in verdicts.iter_mut() {
        let Legality::Mergeable(a) = v else { continue };
        let Some(scope) = lt.traces[a.trace].scope else {
            continue;
        };
        let key = (
            scope,
            a.space_attr
                .as_ref()
                .map(|s| s.to_string())
                .unwrap_or_default(),
        );
        let sum = sums.entry(key).or_insert(0);
        // Size rounded to its alignment plus the worst padding before it.
        let need = a.bytes.saturating_add(a.align.saturating_mul(2));
        match sum.checked_add(need).filter(|&t| t <= MAX_ARENA_BYTES) {
            Some(t) => *sum = t,
            None => {
                *v = Legality::Skip(vec![SkipReason::TooLarge(format!(
                    "its arena would exceed {MAX_ARENA_BYTES} bytes"
                ))])
            }
        }
    }
}

/// Un-merges, to a fixed point, every buffer that a free ties to something that is not
/// merged: a free of a value that may be a merged buffer or something else can neither stay
/// (it would free part of an arena) nor go (it would leak or skip a free).
fn settle(lt: &Lifetimes, verdicts: &mut [Legality]) {
    let merged = |v: &[Legality], c: usize| matches!(v[c], Legality::Mergeable(_));
    loop {
        let mut changed = false;
        for site in &lt.frees {
            let any = site.allocs.iter().any(|&c| merged(verdicts, c as usize));
            let all = !site.foreign && site.allocs.iter().all(|&c| merged(verdicts, c as usize));
            if any && !all {
                for &c in &site.allocs {
                    if merged(verdicts, c as usize) {
                        verdicts[c as usize] =
                            Legality::Skip(vec![SkipReason::Hazard(Hazard::AmbiguousDealloc)]);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
}

/// Gives distinct addresses to merged buffers of one arena whose addresses are compared
/// with one another ([`Lifetimes::address_groups`]): two distinct allocations never compare
/// equal, and after the rewrite they still do not. A buffer sharing its offset with such a
/// partner moves to the lowest offset that is aligned, overlaps nothing live at the same
/// time, and is free of its partners' offsets (the arena's end always qualifies).
fn separate_addresses(
    flow: &BufferViewFlow,
    lt: &Lifetimes,
    sp: &ScopeProblem,
    plan: Plan,
) -> Result<Plan, String> {
    let index: BTreeMap<usize, usize> = sp
        .allocs
        .iter()
        .enumerate()
        .map(|(k, a)| (a.trace, k))
        .collect();
    // Pairs of buffers (problem indices) that must not share an offset.
    let mut apart: BTreeSet<(usize, usize)> = BTreeSet::new();
    for group in &lt.address_groups {
        let mut members: BTreeSet<usize> = BTreeSet::new();
        for &v in group {
            for c in flow.alloc_origins(v) {
                if let Some(&k) = index.get(&(c as usize)) {
                    members.insert(k);
                }
            }
        }
        let members: Vec<usize> = members.into_iter().collect();
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                apart.insert((a, b));
                apart.insert((b, a));
            }
        }
    }
    if apart.is_empty() {
        return Ok(plan);
    }
    let p = &sp.problem;
    let n = p.buffers.len();
    let mut offsets = plan.offsets.clone();
    let clashes = |offsets: &[u64], k: usize, o: u64| {
        (0..n).any(|j| j != k && offsets[j] == o && apart.contains(&(k, j)))
    };
    // The lowest offset for buffer `k` that is aligned, clash-free and overlaps nothing live
    // at the same time (the arena's end always qualifies).
    let best_spot = |offsets: &[u64], k: usize| -> u64 {
        let b = &p.buffers[k];
        let fits = |o: u64| {
            o.is_multiple_of(b.align)
                && !clashes(offsets, k, o)
                && (0..n).all(|j| {
                    j == k
                        || !b.overlaps_in_time(&p.buffers[j])
                        || o >= offsets[j] + p.buffers[j].size
                        || offsets[j] >= o + b.size
                })
        };
        let mut candidates: Vec<u64> = (0..n)
            .filter(|&j| j != k)
            .flat_map(|j| {
                let end = (offsets[j] + p.buffers[j].size).next_multiple_of(b.align);
                let next = offsets[j].saturating_add(b.align).next_multiple_of(b.align);
                [end, next]
            })
            .collect();
        candidates.push(0);
        candidates.sort_unstable();
        candidates.dedup();
        let end = (0..n)
            .filter(|&j| j != k)
            .map(|j| offsets[j] + p.buffers[j].size)
            .max()
            .unwrap_or(0)
            .next_multiple_of(b.align);
        candidates.into_iter().find(|&o| fits(o)).unwrap_or(end)
    };
    let peak_with = |offsets: &[u64], k: usize, o: u64| {
        (0..n)
            .map(|j| if j == k { o } else { offsets[j] } + p.buffers[j].size)
            .max()
            .unwrap_or(0)
    };
    // Each step moves one buffer of a clashing pair (whichever move keeps the arena smaller)
    // to a clash-free spot; the number of clashing pairs strictly falls.
    while let Some(k) = (0..n).find(|&k| clashes(&offsets, k, offsets[k])) {
        let mut movers: Vec<usize> = vec![k];
        movers.extend(
            (0..n).filter(|&j| j != k && offsets[j] == offsets[k] && apart.contains(&(k, j))),
        );
        let (who, to) = movers
            .into_iter()
            .map(|w| (w, best_spot(&offsets, w)))
            .min_by_key(|&(w, o)| (peak_with(&offsets, w, o), w))
            .expect("at least one mover");
        offsets[who] = to;
    }
    let fixed = Plan::from_offsets(p, offsets);
    check(p, &fixed).map_err(|e| {
        format!("the plan fails the checker after separating compared addresses: {e}")
    })?;
    Ok(fixed)
}

/// Removes the frees of merged buffers: a `memref.dealloc` goes; a `bufferization.dealloc`
/// loses those entries of its memref list (with their conditions). The settle step made
/// sure every such site frees merged buffers only, none of which is retained, so the
/// ownership results of a `bufferization.dealloc` do not change.
fn drop_frees(m: &mut Module, lt: &Lifetimes, merged: &BTreeSet<usize>) {
    let mut by_op: BTreeMap<OpId, Vec<usize>> = BTreeMap::new();
    for site in &lt.frees {
        if !site.allocs.is_empty()
            && !site.foreign
            && site.allocs.iter().all(|&c| merged.contains(&(c as usize)))
        {
            by_op.entry(site.op).or_default().push(site.operand);
        }
    }
    for (op, drop) in by_op {
        if m.is_erased(op) {
            continue;
        }
        if m.op(op).name == "bufferization.dealloc" {
            drop_dealloc_entries(m, op, &drop);
        } else {
            m.erase_op(op);
        }
    }
}

fn drop_dealloc_entries(m: &mut Module, op: OpId, drop: &[usize]) {
    let seg = match m
        .op(op)
        .props
        .get("operandSegmentSizes")
        .and_then(Attribute::as_int_array)
    {
        Some(s) if s.len() == 3 => [s[0] as usize, s[1] as usize, s[2] as usize],
        _ => return,
    };
    let operands = m.operands(op).to_vec();
    let (memrefs, rest) = operands.split_at(seg[0]);
    let (conds, retained) = rest.split_at(seg[1]);
    let keep: Vec<usize> = (0..seg[0]).filter(|i| !drop.contains(i)).collect();
    if keep.is_empty() && retained.is_empty() {
        m.erase_op(op);
        return;
    }
    let mut st = OperationState::new("bufferization.dealloc");
    st.operands = keep.iter().map(|&i| memrefs[i]).collect();
    st.operands.extend(keep.iter().map(|&i| conds[i]));
    st.operands.extend_from_slice(retained);
    st.result_types = m
        .results(op)
        .iter()
        .map(|&r| m.value_type(r).clone())
        .collect();
    st.attrs = m.op(op).attrs.clone();
    st.props = m.op(op).props.clone();
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[keep.len() as i64, keep.len() as i64, retained.len() as i64]),
    );
    st.loc = m.op(op).loc().clone();
    let new = m.create_op(st);
    m.insert_before(op, new);
    for (i, &r) in m.results(op).to_vec().iter().enumerate() {
        let nr = m.result(new, i);
        let hint = m.name_hint(r).map(str::to_string);
        m.set_name_hint(nr, hint.as_deref());
        m.replace_all_uses(r, nr);
    }
    m.erase_op(op);
}

fn static_bytes(t: &Type) -> Option<u64> {
    match t.kind() {
        TypeKind::MemRef { shape, elem, .. } => {
            shape.iter().try_fold(element_bytes(elem)?, |acc, &d| {
                acc.checked_mul(u64::try_from(d).ok()?)
            })
        }
        _ => None,
    }
}

fn enclosing_function(m: &Module, op: OpId) -> String {
    let mut cur = Some(op);
    while let Some(o) = cur {
        if crate::ops::FUNCTION_OPS.contains(&m.op(o).name.as_str()) {
            return crate::analysis::lifetime::function_name(m, o);
        }
        cur = m.parent_op(o);
    }
    String::new()
}

/// Analysis-only mode: `memplan.scope`, `memplan.ticks` and `memplan.offset` (or
/// `memplan.skipped`) attributes on every `memref.alloc`.
fn annotate(m: &mut Module, lt: &Lifetimes, report: &MergeAllocReport) {
    let arena: BTreeMap<(String, String), u64> = report
        .scopes
        .iter()
        .map(|s| ((s.function.clone(), s.label.clone()), s.arena_bytes))
        .collect();
    for (rec, t) in report.lifetimes.iter().zip(&lt.traces) {
        let attrs = &mut m.op_mut(t.alloc).attrs;
        if let Some(s) = &rec.scope {
            attrs.set(
                "memplan.scope",
                Attribute::string(&format!("@{} {}", rec.function, s)),
            );
        }
        if let Some((a, b)) = rec.ticks {
            attrs.set(
                "memplan.ticks",
                Attribute::i64_array(&[i64::from(a), i64::from(b)]),
            );
        }
        if let Some(o) = rec.offset {
            attrs.set(
                "memplan.offset",
                Attribute::int(i128::from(o), Type::int(64)),
            );
            if let Some(bytes) = rec
                .scope
                .as_ref()
                .and_then(|s| arena.get(&(rec.function.clone(), s.clone())))
            {
                attrs.set(
                    "memplan.arena_bytes",
                    Attribute::int(i128::from(*bytes), Type::int(64)),
                );
            }
        } else {
            let why: Vec<String> = rec.skipped.iter().map(|r| r.to_string()).collect();
            attrs.set("memplan.skipped", Attribute::string(&why.join("; ")));
        }
    }
}

/// Replaces the allocations of one planned (scope, space) by views of a new arena.
fn rewrite_scope(m: &mut Module, lt: &Lifetimes, sp: &ScopeProblem, p: &Plan) {
    let scope = &lt.scopes[sp.scope];
    let block: BlockId = scope.block;
    let arena_bytes = p.peak().max(1);
    let align = sp
        .problem
        .buffers
        .iter()
        .map(|b| b.align)
        .max()
        .unwrap_or(1);
    let arena_ty = Type::new(TypeKind::MemRef {
        shape: vec![arena_bytes as i64],
        elem: Type::int(8),
        layout: None,
        memory_space: sp.space_attr.clone(),
    });
    let mut st = OperationState::new("memref.alloc");
    st.result_types.push(arena_ty);
    st.props.set(
        "alignment",
        Attribute::int(i128::from(align), Type::int(64)),
    );
    st.props
        .set("operandSegmentSizes", Attribute::i32_array(&[0, 0]));
    let arena_op = m.create_op(st);
    m.prepend_op(block, arena_op);
    let arena = m.result(arena_op, 0);
    m.set_name_hint(arena, Some("arena"));

    // One constant per distinct offset, right after the arena.
    let distinct: BTreeSet<u64> = p.offsets.iter().copied().collect();
    let mut consts: BTreeMap<u64, memplan_ir::ValueId> = BTreeMap::new();
    let mut anchor = arena_op;
    for off in distinct {
        let mut st = OperationState::new("arith.constant");
        st.result_types.push(Type::index());
        st.props
            .set("value", Attribute::int(i128::from(off), Type::index()));
        let c = m.create_op(st);
        m.insert_after(anchor, c);
        anchor = c;
        consts.insert(off, m.result(c, 0));
    }

    // The arena is freed (at every exit of the scope) when any merged buffer was; the
    // buffers' own frees are dropped by `drop_frees`.
    let freed = sp
        .allocs
        .iter()
        .any(|a| !lt.traces[a.trace].frees.is_empty());

    for (k, a) in sp.allocs.iter().enumerate() {
        let old = m.result(a.alloc, 0);
        let ty = m.value_type(old).clone();
        let mut st = OperationState::new("memref.view");
        st.operands = vec![arena, consts[&p.offsets[k]]];
        st.result_types.push(ty);
        st.loc = m.op(a.alloc).loc().clone();
        let view = m.create_op(st);
        m.insert_before(a.alloc, view);
        let new = m.result(view, 0);
        let hint = m.name_hint(old).map(str::to_string);
        m.set_name_hint(new, hint.as_deref());
        m.replace_all_uses(old, new);
        m.erase_op(a.alloc);
    }

    if freed {
        let blocks: Vec<BlockId> = match scope.cfg {
            Some(r) => m.region_blocks(r).to_vec(),
            None => vec![block],
        };
        for b in blocks {
            // Scope ops always end their blocks with a terminator; free before each one
            // that leaves the region.
            let Some(last) = m.last_op(b) else { continue };
            if !m.op(last).successors.is_empty() {
                continue;
            }
            let mut st = OperationState::new("memref.dealloc");
            st.operands = vec![arena];
            let d = m.create_op(st);
            m.insert_before(last, d);
        }
    }
}
