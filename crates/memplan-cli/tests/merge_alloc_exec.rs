//! merge-alloc regressions proven by execution: every program in `tests/merge_alloc_exec/`
//! (one per defect class of issue 9, most of them as mlir-opt-22 pipelines print them) is
//! rewritten by `memplan opt --merge-alloc[=OPTIONS]`; the output must verify in mlir-opt-22,
//! print exactly what the input prints under mlir-runner-22 (under `MALLOC_PERTURB_`, so a
//! double free or a read of reused bytes shows), and merge at least `MIN-MERGED` allocations
//! (counted as `memref.view`s of an arena), so a pass that stops merging fails too.
//!
//! Header lines of a program: `// MIN-MERGED: N`, `// OPTIONS: alignment=4` (pass options).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::oracle;

fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix(key).map(str::trim))
}

/// Number of `memref.view`s whose source is an arena the pass created.
pub fn merged_count(out: &str) -> usize {
    out.lines()
        .filter(|l| l.contains("memref.view %arena"))
        .count()
}

fn check_one(bin: &Path, file: &Path, dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let min: usize = header(&text, "// MIN-MERGED:")
        .map(|n| n.parse().expect("MIN-MERGED is a number"))
        .unwrap_or(0);
    let pass = match header(&text, "// OPTIONS:") {
        Some(o) => format!("--merge-alloc={o}"),
        None => "--merge-alloc".to_string(),
    };
    let out_file = dir.join(file.file_name().expect("file name"));
    let st = Command::new(bin)
        .arg("opt")
        .arg(file)
        .arg(&pass)
        .arg("-o")
        .arg(&out_file)
        .output()
        .map_err(|e| e.to_string())?;
    if !st.status.success() {
        return Err(format!(
            "memplan failed: {}",
            String::from_utf8_lossy(&st.stderr)
        ));
    }
    let out = std::fs::read_to_string(&out_file).map_err(|e| e.to_string())?;
    let merged = merged_count(&out);
    if merged < min {
        return Err(format!(
            "merged {merged} allocations, expected at least {min}"
        ));
    }
    oracle::verify(&out_file).map_err(|e| format!("output rejected by mlir-opt-22: {e}"))?;
    let before = oracle::run(file).map_err(|e| format!("input does not run: {e}"))?;
    let before_alt = oracle::run_perturbed(file, oracle::PERTURB_ALT)
        .map_err(|e| format!("input does not run: {e}"))?;
    if before != before_alt {
        return Err("the input reads uninitialised memory (not a usable reference)".into());
    }
    let after = oracle::run(&out_file).map_err(|e| format!("output does not run: {e}"))?;
    if before != after {
        return Err(format!(
            "output prints different values:\n--- input\n{before}\n--- merged\n{after}"
        ));
    }
    Ok(())
}

#[test]
fn merge_alloc_regressions_keep_their_values() {
    if !oracle::require_tools("merge_alloc_regressions_keep_their_values") {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/merge_alloc_exec");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/merge_alloc_exec")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "regression programs missing");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_memplan"));
    let dir = oracle::scratch_dir("merge-alloc-exec");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            check_one(&bin, f, &dir)
                .err()
                .map(|e| format!("{}: {e}", f.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
