//! `memplan opt FILE [-o OUT] [--mlir-print-op-generic]`: parse, verify, (run passes,) print.
//! Errors are rendered `file:line:col: error: ...` with the source line and a caret; exit 2.

use std::path::PathBuf;
use std::process::ExitCode;

use memplan_ir::{
    parse_module, print_module, verify, Diagnostic, Module, ParseOptions, PrintOptions, Registry,
    SourceMap,
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

/// Pass flags of `memplan opt`. Add each pass here as an option (e.g. `--merge-alloc[=OPTIONS]`
/// as `Option<Option<String>>` with `num_args = 0..=1`, `--print-lifetimes`, `--remarks`,
/// `--svg DIR`) and run it in [`run_passes`].
#[derive(clap::Args, Debug, Default)]
pub struct PassArgs {}

/// Runs the requested passes over a verified module. Returns a diagnostic on failure.
fn run_passes(_m: &mut Module, _reg: &Registry, _passes: &PassArgs) -> Result<(), Diagnostic> {
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
    if let Err(d) = run_passes(&mut m, &reg, &args.passes) {
        return fail(&d);
    }
    // The source is only needed for error messages: free it before the output is built.
    drop(sm);
    let out = print_module(
        &m,
        &reg,
        PrintOptions {
            generic: args.print_generic,
            debug_info: args.print_debuginfo,
        },
    );
    // The process exits right after: freeing a large module object by object only costs
    // time (about a tenth of a big run), so leave it to the OS.
    std::mem::forget(m);
    match &args.output {
        Some(p) if p.as_os_str() != "-" => {
            if let Err(e) = std::fs::write(p, out) {
                eprintln!("memplan opt: cannot write {}: {e}", p.display());
                return ExitCode::from(2);
            }
        }
        _ => print!("{out}"),
    }
    ExitCode::SUCCESS
}
