//! `memplan opt --merge-alloc` options and output stability: nonsense options are errors with
//! exit code 2 (never a silent wrap), and the same input with the same options prints the same
//! bytes on every run, with the default planner and with `planner=exact` (the CLI builds
//! memplan-core with its `parallel` feature).

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn memplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(args)
        .output()
        .expect("run memplan")
}

#[test]
fn nonsense_merge_alloc_options_exit_2() {
    let input = root().join("examples/matmul_chain.mlir");
    let input = input.to_str().expect("utf-8 path");
    for (opt, fragment) in [
        (
            "alignment=9223372036854775808",
            "power of two between 1 and",
        ),
        ("alignment=2147483648", "power of two between 1 and"),
        ("alignment=3", "power of two"),
        ("alignment=0", "power of two"),
        ("alignment=-64", "expected a number"),
        ("alignment=99999999999999999999999", "expected a number"),
        ("planner=nope", "expected one of"),
        ("exact-nodes=x", "expected a number"),
        ("colour=blue", "unknown merge-alloc option"),
    ] {
        let o = memplan(&["opt", input, &format!("--merge-alloc={opt}")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{opt}: {err}");
        assert!(err.contains(fragment), "{opt}: {err}");
        assert!(o.stdout.is_empty(), "{opt}: printed IR despite the error");
    }
    // The largest accepted alignment still works.
    let o = memplan(&["opt", input, "--merge-alloc=alignment=1073741824"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn twenty_runs_print_identical_bytes() {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/merge_alloc_exec"))
        .expect("tests/merge_alloc_exec")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    inputs.push(root().join("examples/matmul_chain.mlir"));
    inputs.sort();
    for input in &inputs {
        let input = input.to_str().expect("utf-8 path");
        for opts in ["--merge-alloc", "--merge-alloc=planner=exact"] {
            let first = memplan(&["opt", input, opts, "--print-lifetimes"]);
            assert!(first.status.success(), "{input} {opts}");
            for run in 1..20 {
                let again = memplan(&["opt", input, opts, "--print-lifetimes"]);
                assert_eq!(
                    first.stdout, again.stdout,
                    "{input} {opts}: run {run} printed different bytes"
                );
            }
        }
    }
}
