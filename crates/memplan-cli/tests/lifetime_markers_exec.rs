//! Lifetime markers proven by execution (issue 13).
//!
//! `marked_merge_alloc_*`: every program in `tests/lifetime_markers_exec/` carries
//! user-written `memplan.lifetime_start/end` lifelines that are shorter than what the
//! lifetime analysis finds (per-iteration temporaries of a loop, buffers private to a
//! branch). `memplan opt --merge-alloc` must take them as the lifetime source: the merged
//! program (markers stripped afterwards) verifies in mlir-opt-22, prints exactly what the
//! original prints under mlir-runner-22 (two `MALLOC_PERTURB_` bytes, so a read of bytes
//! another buffer reused shows), and its arenas are strictly smaller than merge-alloc's on
//! the same program without markers.

mod support;

use std::path::{Path, PathBuf};

use support::oracle;

/// Sum of the byte sizes of the arenas merge-alloc created (`%arena... : memref<Nxi8...>`).
fn arena_bytes(text: &str) -> u64 {
    text.lines()
        .filter(|l| l.contains("%arena") && l.contains("= memref.alloc()"))
        .filter_map(|l| {
            let t = l.split("memref<").nth(1)?;
            t.split('x').next()?.parse::<u64>().ok()
        })
        .sum()
}

fn check_marked(bin: &Path, file: &Path, dir: &Path) -> Result<(u64, u64), String> {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("p");
    let plain = dir.join(format!("{stem}.plain.mlir"));
    let merged = dir.join(format!("{stem}.merged.mlir"));
    let merged_plain = dir.join(format!("{stem}.merged.plain.mlir"));
    let baseline = dir.join(format!("{stem}.baseline.mlir"));
    oracle::memplan_opt(bin, file, &["--strip-lifetime-markers"], &plain)?;
    oracle::memplan_opt(bin, file, &["--merge-alloc"], &merged)?;
    oracle::memplan_opt(bin, &merged, &["--strip-lifetime-markers"], &merged_plain)?;
    oracle::memplan_opt(bin, &plain, &["--merge-alloc"], &baseline)?;
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| e.to_string());
    let with = arena_bytes(&read(&merged)?);
    let without = arena_bytes(&read(&baseline)?);
    if with == 0 || with >= without {
        return Err(format!(
            "arena bytes with markers {with}, without {without}: the markers bought nothing"
        ));
    }
    oracle::verify(&merged_plain).map_err(|e| format!("output rejected by mlir-opt-22: {e}"))?;
    let before = oracle::run(&plain).map_err(|e| format!("input does not run: {e}"))?;
    let before_alt = oracle::run_perturbed(&plain, oracle::PERTURB_ALT)
        .map_err(|e| format!("input does not run: {e}"))?;
    if before != before_alt {
        return Err("the input reads uninitialised memory (not a usable reference)".into());
    }
    for p in [oracle::PERTURB, oracle::PERTURB_ALT] {
        let after = oracle::run_perturbed(&merged_plain, p)
            .map_err(|e| format!("output does not run: {e}"))?;
        if before != after {
            return Err(format!(
                "merged program prints different values (MALLOC_PERTURB_={p}):\n--- input\n{before}\n--- merged\n{after}"
            ));
        }
    }
    Ok((with, without))
}

#[test]
fn marked_merge_alloc_keeps_values_and_saves_bytes() {
    if !oracle::require_tools("marked_merge_alloc_keeps_values_and_saves_bytes") {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/lifetime_markers_exec");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/lifetime_markers_exec")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "marker programs missing");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_memplan"));
    let dir = oracle::scratch_dir("lifetime-markers-exec");
    let mut failures = Vec::new();
    for f in &files {
        match check_marked(&bin, f, &dir) {
            Ok((with, without)) => eprintln!(
                "{}: arena {with} B with markers, {without} B without",
                f.display()
            ),
            Err(e) => failures.push(format!("{}: {e}", f.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
