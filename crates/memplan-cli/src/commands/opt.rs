//! `memplan opt FILE [-o OUT] [--mlir-print-op-generic]`: parse, verify, (run passes,) print.
//! Errors are rendered `file:line:col: error: ...` with the source line and a caret; exit 2.

use std::path::PathBuf;
use std::process::ExitCode;

use memplan_ir::{
    parse_module, print_module_to, verify, Diagnostic, Module, ParseOptions, PrintOptions,
    Registry, SourceMap,
};

/// Arguments of `memplan opt`.
#[derive(clap::Args, Debug)]
pub struct OptArgs {
    /// Input MLIR file (`-` reads standard input).
    pub input: PathBuf,
    /// Output file (standard output when absent).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Print every operation in generic form.
    #[arg(long = "mlir-print-op-generic")]
    pub print_generic: bool,
    /// Print locations (`loc(...)`) on operations and block arguments.
    #[arg(long = "mlir-print-debuginfo")]
    pub print_debuginfo: bool,
    /// Accepted for mlir-opt compatibility (unregistered ops are always allowed in generic form).
    #[arg(long = "allow-unregistered-dialect")]
    pub allow_unregistered_dialect: bool,
    /// Skip the verifier.
    #[arg(long = "no-verify")]
    pub no_verify: bool,
    /// Pass options (transforms and analyses), run in command-line order after verification.
    #[command(flatten)]
    pub passes: PassArgs,
}

/// Pass flags of `memplan opt`.
#[derive(clap::Args, Debug, Default)]
pub struct PassArgs {
    /// Fuse affine loop nests (producer-consumer and sibling) and shrink the intermediate
    /// buffers to private ones; mlir-opt-22's options:
    /// `--affine-loop-fusion="mode=greedy|producer|sibling maximal compute-tolerance=F
    /// fast-mem-space=N local-buf-threshold=N"`. Runs before every other pass.
    #[arg(long = "affine-loop-fusion", value_name = "OPTIONS", num_args = 0..=1, require_equals = true)]
    pub affine_loop_fusion: Option<Option<String>>,
    /// Merge static allocations into one arena per allocation scope and memory space.
    /// Options mlir-opt style: `--merge-alloc="alignment=64 planner=portfolio"`, any planner
    /// of `memplan plan --algo` (e.g. `exact`), `analysis-only` to annotate instead of rewrite.
    #[arg(long = "merge-alloc", value_name = "OPTIONS", num_args = 0..=1, require_equals = true)]
    pub merge_alloc: Option<Option<String>>,
    /// Merge each GPU kernel's workgroup (shared) memory into one arena, adding the
    /// barriers reuse needs: `--merge-shared-memory="alignment=16 capacity=49152
    /// planner=NAME barriers=free|min"` (or `arch=sm_80|sm_90|gfx942` for the capacity).
    /// A kernel above the capacity is an error (exit 1).
    #[arg(long = "merge-shared-memory", value_name = "OPTIONS", num_args = 0..=1, require_equals = true)]
    pub merge_shared_memory: Option<Option<String>>,
    /// Print every allocation's scope and tick range (as `//` comment lines on stdout,
    /// before the module); runs the merge-alloc analysis when `--merge-alloc` is absent.
    #[arg(long = "print-lifetimes")]
    pub print_lifetimes: bool,
    /// Print the passes' remarks (why an allocation was not merged, arena summaries) to stderr.
    #[arg(long = "remarks")]
    pub remarks: bool,
    /// LLVM dialect: insert `llvm.intr.lifetime.start/end` around every non-escaping static
    /// `llvm.alloca` (moved to the entry block), outside every loop it is used in.
    #[arg(long = "llvm-lifetime-markers")]
    pub llvm_lifetime_markers: bool,
    /// Memref level: wrap each non-escaping `memref.alloca`/`memref.alloc` in a lifeline
    /// (`"memplan.lifetime_start"` .. `"memplan.lifetime_end"`), outside every loop and branch
    /// that uses it.
    #[arg(long = "insert-lifetime-markers")]
    pub insert_lifetime_markers: bool,
    /// Reject a use of a lifeline after its `memplan.lifetime_end` on some path, or a start
    /// while the buffer may still be live (error at the offending op, exit 2).
    #[arg(long = "verify-lifetime-markers")]
    pub verify_lifetime_markers: bool,
    /// Remove every `memplan.lifetime_*` op (uses go back to the buffer).
    #[arg(long = "strip-lifetime-markers")]
    pub strip_lifetime_markers: bool,
    /// Affine dependence analysis: for every ordered pair of `affine.load`/`affine.store`
    /// and every loop depth, print mlir-opt's `--test-memref-dependence-check` remark
    /// (`FILE:LINE:COL: remark: dependence from A to B at depth D = RESULT`) to stderr.
    #[arg(long = "test-memref-dependence-check")]
    pub test_memref_dependence_check: bool,
    /// Draw each planned scope as an SVG file in this directory.
    #[arg(long = "svg", value_name = "DIR")]
    pub svg: Option<PathBuf>,
}

/// Runs the requested passes over a verified module. Returns a diagnostic on failure.
fn run_passes(
    m: &mut Module,
    _reg: &Registry,
    passes: &PassArgs,
    sm: &SourceMap,
) -> Result<(), Diagnostic> {
    use memplan_passes::transform::merge_alloc::{merge_alloc, MergeAllocOptions};
    let wanted = passes.merge_alloc.is_some()
        || passes.print_lifetimes
        || (passes.svg.is_some() && passes.merge_shared_memory.is_none());
    if !wanted {
        return Ok(());
    }
    let mut opts = match &passes.merge_alloc {
        Some(Some(text)) => MergeAllocOptions::parse(text)
            .map_err(|e| Diagnostic::new(memplan_ir::Span::default(), e.to_string()))?,
        _ => MergeAllocOptions::default(),
    };
    if passes.merge_alloc.is_none() {
        // Only the analysis views were asked for: leave the IR as it is.
        opts.analysis_only = true;
    }
    let annotate = passes.merge_alloc.is_some();
    let mut scratch;
    let target: &mut Module = if annotate {
        m
    } else {
        scratch = m.clone();
        &mut scratch
    };
    let report = merge_alloc(target, &opts)
        .map_err(|e| Diagnostic::new(memplan_ir::Span::default(), e.to_string()))?;
    if passes.print_lifetimes {
        let mut out = String::new();
        for rec in &report.lifetimes {
            out.push_str("// lifetime: ");
            out.push_str(&rec.to_string());
            out.push('\n');
        }
        for s in &report.scopes {
            out.push_str(&format!(
                "// arena: @{} {}{} {} B (sum {} B, lower bound {} B)\n",
                s.function,
                s.label,
                if s.space.is_empty() {
                    String::new()
                } else {
                    format!(" space {}", s.space)
                },
                s.arena_bytes,
                s.sum_bytes,
                s.lower_bound
            ));
        }
        print!("{out}");
    }
    if passes.remarks {
        print_remarks(&report.remarks, sm);
    }
    if let Some(dir) = &passes.svg {
        write_svgs(dir, &report.scopes).map_err(|e| {
            Diagnostic::new(
                memplan_ir::Span::default(),
                format!("cannot write SVG files to {}: {e}", dir.display()),
            )
        })?;
    }
    Ok(())
}

/// Runs `--merge-shared-memory`; `Err((message, exit code))` on failure (1 for a kernel
/// above the capacity, 2 for bad options or an internal failure).
fn run_merge_shared(m: &mut Module, passes: &PassArgs, sm: &SourceMap) -> Result<(), (String, u8)> {
    use memplan_passes::transform::merge_shared::{
        merge_shared_memory, MergeSharedError, MergeSharedOptions,
    };
    let Some(text) = &passes.merge_shared_memory else {
        return Ok(());
    };
    let opts = match text {
        Some(t) => {
            MergeSharedOptions::parse(t).map_err(|e| (format!("{}: error: {e}\n", sm.name()), 2))?
        }
        None => MergeSharedOptions::default(),
    };
    let report = merge_shared_memory(m, &opts).map_err(|e| match e {
        MergeSharedError::OverCapacity { span, .. } => {
            (sm.render(&Diagnostic::new(span, e.to_string())), 1)
        }
        _ => (format!("{}: error: {e}\n", sm.name()), 2),
    })?;
    if passes.remarks {
        print_remarks(&report.remarks, sm);
    }
    if let Some(dir) = &passes.svg {
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(dir)?;
            for k in &report.kernels {
                let file: String = k
                    .kernel
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                let lbs = memplan_core::bounds::max_load_per_space(&k.problem);
                let names: Vec<String> = k.buffers.iter().map(|b| b.name.clone()).collect();
                let title = format!(
                    "merge-shared-memory @{}: arena {} B, before {} B, lower bound {} B, {} barriers added",
                    k.kernel, k.arena_bytes, k.bytes_before, k.lower_bound, k.barriers_added
                );
                let text = crate::svg::render(&crate::svg::PlotInput {
                    problem: &k.problem,
                    ids: &names,
                    plan: &k.plan,
                    lower_bounds: &lbs,
                    title: &title,
                });
                std::fs::write(dir.join(format!("{file}.shared.svg")), text)?;
            }
            Ok(())
        };
        write().map_err(|e| {
            (
                format!("cannot write SVG files to {}: {e}", dir.display()),
                2,
            )
        })?;
    }
    Ok(())
}

/// Prints a pass's remarks to stderr as `file:line:col: remark: ...`.
fn print_remarks(remarks: &[memplan_passes::remarks::Remark], sm: &SourceMap) {
    let mut err = String::new();
    for r in remarks {
        let (line, col) = sm.line_col(r.span.start);
        err.push_str(&format!(
            "{}:{line}:{col}: remark: {}\n",
            sm.name(),
            r.message
        ));
    }
    eprint!("{err}");
}

/// Where an op's remark points: an explicit `loc("file":line:col)`, else the op name in
/// the source (`%a = affine.load` -> the column of `affine.load`, as mlir-opt reports it).
fn op_location(m: &Module, op: memplan_ir::OpId, sm: &SourceMap) -> String {
    if let memplan_ir::Location::File {
        file,
        line,
        col: Some(col),
        ..
    } = m.op(op).loc()
    {
        return format!("{file}:{line}:{col}");
    }
    let text = sm.text().as_bytes();
    let mut pos = m.op(op).span.start as usize;
    if text.get(pos) == Some(&b'%') {
        // Skip the result list `%a, %b:2 =`.
        while pos < text.len() && text[pos] != b'=' {
            pos += 1;
        }
        pos += 1;
        while pos < text.len() && text[pos].is_ascii_whitespace() {
            pos += 1;
        }
    }
    let (line, col) = sm.line_col(pos.min(text.len()) as u32);
    format!("{}:{line}:{col}", sm.name())
}

/// `--test-memref-dependence-check`: the remarks of every access pair, on stderr.
fn print_dependence_remarks(m: &Module, sm: &SourceMap) {
    use memplan_passes::analysis::affine_deps::{test_memref_dependence_check, Mode};
    let remarks = test_memref_dependence_check(m, m.top, Mode::Upstream);
    let mut err = String::new();
    for r in &remarks {
        let kind = if r.result.is_ok() { "remark" } else { "error" };
        err.push_str(&format!(
            "{}: {kind}: {}\n",
            op_location(m, r.src, sm),
            r.message()
        ));
    }
    eprint!("{err}");
}

/// Writes one `FUNCTION.SCOPE[.SPACE].svg` per planned scope.
fn write_svgs(
    dir: &std::path::Path,
    scopes: &[memplan_passes::transform::merge_alloc::ScopeReport],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for s in scopes {
        let clean = |t: &str| -> String {
            t.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        let mut file = format!("{}.{}", clean(&s.function), clean(&s.label));
        if !s.space.is_empty() {
            file.push('.');
            file.push_str(&clean(&s.space));
        }
        file.push_str(".svg");
        let lbs = memplan_core::bounds::max_load_per_space(&s.problem);
        let title = format!(
            "merge-alloc @{} {}: arena {} B, sum {} B, lower bound {} B",
            s.function, s.label, s.arena_bytes, s.sum_bytes, s.lower_bound
        );
        let text = crate::svg::render(&crate::svg::PlotInput {
            problem: &s.problem,
            ids: &s.names,
            plan: &s.plan,
            lower_bounds: &lbs,
            title: &title,
        });
        std::fs::write(dir.join(file), text)?;
    }
    Ok(())
}

/// Runs `memplan opt`.
pub fn run(args: OptArgs) -> ExitCode {
    // Deeply nested input is bounded by the parser's depth limit; give the recursion room.
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run_inner(&args));
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("memplan opt: internal error");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &OptArgs) -> ExitCode {
    let name = args.input.display().to_string();
    let text = if name == "-" {
        let mut s = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut s) {
            eprintln!("memplan opt: cannot read standard input: {e}");
            return ExitCode::from(2);
        }
        s
    } else {
        match std::fs::read(&args.input) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("memplan opt: cannot read {name}: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let text = match String::from_utf8(text) {
        Ok(t) => t,
        Err(e) => {
            let pos = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let sm = SourceMap::new(&name, lossy);
            eprint!(
                "{}",
                sm.render(&Diagnostic::new(
                    memplan_ir::Span::at(pos),
                    "invalid UTF-8 in input"
                ))
            );
            return ExitCode::from(2);
        }
    };
    let sm = SourceMap::new(&name, text);
    let reg = Registry::with_all_dialects();
    let fail = |d: &Diagnostic| {
        eprint!("{}", sm.render(d));
        ExitCode::from(2)
    };
    let mut m = match parse_module(sm.text(), &reg, ParseOptions::default()) {
        Ok(m) => m,
        Err(d) => return fail(&d),
    };
    if !args.no_verify {
        if let Err(d) = verify(&m, &reg) {
            return fail(&d);
        }
    }
    // The dependence analysis reads the input as written, before any transform.
    if args.passes.test_memref_dependence_check {
        print_dependence_remarks(&m, &sm);
    }
    // Loop fusion first: it changes which buffers exist, which merge-alloc then packs.
    if let Some(text) = &args.passes.affine_loop_fusion {
        use memplan_passes::transform::affine_fusion::{
            affine_loop_fusion_with, AffineFusionOptions,
        };
        let opts = match text {
            Some(t) => match AffineFusionOptions::parse(t) {
                Ok(o) => o,
                Err(e) => return fail(&Diagnostic::new(memplan_ir::Span::default(), e)),
            },
            None => AffineFusionOptions::default(),
        };
        let place = |s: memplan_ir::Span| {
            let (line, col) = sm.line_col(s.start);
            format!("{line}:{col}")
        };
        let report = affine_loop_fusion_with(&mut m, &opts, &place);
        if args.passes.remarks {
            print_remarks(&report.remarks, &sm);
        }
    }
    {
        use memplan_passes::transform::memref_lifetime as ml;
        if args.passes.verify_lifetime_markers {
            if let Err(d) = ml::verify_lifetime_markers(&m) {
                return fail(&d);
            }
        }
        if args.passes.strip_lifetime_markers {
            ml::strip_lifetime_markers(&mut m);
        }
        if args.passes.insert_lifetime_markers {
            let remarks = ml::insert_lifetime_markers(&mut m);
            if args.passes.remarks {
                let mut err = String::new();
                for r in &remarks {
                    let (line, col) = sm.line_col(r.span.start);
                    err.push_str(&format!(
                        "{}:{line}:{col}: remark: {}\n",
                        sm.name(),
                        r.message
                    ));
                }
                eprint!("{err}");
            }
        }
    }
    if let Err(d) = run_passes(&mut m, &reg, &args.passes, &sm) {
        return fail(&d);
    }
    if args.passes.llvm_lifetime_markers {
        let report = memplan_passes::transform::llvm_lifetime::llvm_lifetime_markers(&mut m);
        if args.passes.remarks {
            let mut err = String::new();
            for r in &report.remarks {
                let (line, col) = sm.line_col(r.span.start);
                err.push_str(&format!(
                    "{}:{line}:{col}: remark: {}\n",
                    sm.name(),
                    r.message
                ));
            }
            eprint!("{err}");
        }
    }
    if let Err((msg, code)) = run_merge_shared(&mut m, &args.passes, &sm) {
        eprint!("{msg}");
        return ExitCode::from(code);
    }
    // A pass re-verifies what it produced: invalid IR is never printed.
    if args.passes.merge_alloc.is_some()
        || args.passes.affine_loop_fusion.is_some()
        || args.passes.merge_shared_memory.is_some()
        || args.passes.llvm_lifetime_markers
    {
        if let Err(d) = verify(&m, &reg) {
            eprintln!(
                "memplan opt: internal error: the rewritten module fails verification ({}); nothing was written. Please report this with the input file.",
                d.message
            );
            return ExitCode::from(3);
        }
    }
    // The source is only needed for error messages: free it before the output is built.
    drop(sm);
    let opts = PrintOptions {
        generic: args.print_generic,
        debug_info: args.print_debuginfo,
    };
    // Stream the text out (a large module's output is never held whole in memory).
    let written = match &args.output {
        Some(p) if p.as_os_str() != "-" => std::fs::File::create(p).and_then(|f| {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
            print_module_to(&m, &reg, opts, &mut w)?;
            std::io::Write::flush(&mut w)
        }),
        _ => {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            print_module_to(&m, &reg, opts, &mut w).and_then(|()| std::io::Write::flush(&mut w))
        }
    };
    // The process exits right after: freeing a large module object by object only costs
    // time (about a tenth of a big run), so leave it to the OS.
    std::mem::forget(m);
    if let Err(e) = written {
        let to = match &args.output {
            Some(p) if p.as_os_str() != "-" => p.display().to_string(),
            _ => "standard output".to_string(),
        };
        eprintln!("memplan opt: cannot write {to}: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
