#!/usr/bin/env python3
"""Run memplan over a directory of upstream-style MLIR test files, with mlir-opt-22 as the judge.

Usage: python3 scripts/upstream_cases.py DIR [--memplan BIN] [--mlir-opt BIN] [--jobs N]
                                          [--timeout S] [--report FILE] [--keep DIR] [--show N]

Every `*.mlir` file below DIR is cut into cases at lines `// -----` when one of its RUN lines
asks for `-split-input-file` (otherwise the whole file is one case). The test files themselves
are not part of this repository: fetch them elsewhere and point DIR at them.

  valid case    (no `expected-error` in its text) counts only when
                `mlir-opt-22 --allow-unregistered-dialect` accepts it. memplan must then accept it
                (`memplan opt`), and both of memplan's prints, custom form and
                `--mlir-print-op-generic`, must be accepted by mlir-opt-22 and normalise
                (`--mlir-print-op-generic --mlir-print-local-scope`) to exactly the text that
                mlir-opt-22 prints for the case itself.
  invalid case  (has `expected-error`) counts only when mlir-opt-22 rejects it. memplan must then
                exit 2 with an error that names a line:col, without a panic.

Cases that mlir-opt-22 decides the other way (syntax of another MLIR version, diagnostics that
come from passes) are counted as "not judged" and skipped. The summary gives, per directory
(dialect), the cases judged and passed, then the failures grouped into classes (memplan's first
error message with names and numbers blanked, or the first line where the normalised prints
differ). Exit status 0 when every judged case passes, 1 otherwise.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPLIT_RE = re.compile(r"^// -----\s*$", re.M)
NORM = ["--allow-unregistered-dialect", "--mlir-print-op-generic", "--mlir-print-local-scope"]


def cases_of(path):
    """[(index, first line number, text)] of one test file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    run_lines = [l for l in text.splitlines() if re.match(r"\s*//\s*RUN:", l)]
    split = any("split-input-file" in l for l in run_lines)
    if not split:
        return [(0, 1, text)]
    out, line = [], 1
    pos = 0
    for i, m in enumerate(list(SPLIT_RE.finditer(text)) + [None]):
        end = m.start() if m else len(text)
        chunk = text[pos:end]
        # keep line numbers of the original file, so that errors point into it
        out.append((i, line, "\n" * (line - 1) + chunk))
        line += chunk.count("\n") + (1 if m else 0)
        pos = (m.end() + 1) if m else len(text)
    return out


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def blank(msg):
    m = re.sub(r"'[^']*'", "'X'", msg)
    m = re.sub(r'"[^"]*"', '"X"', m)
    m = re.sub(r"%[\w.$-]+", "%v", m)
    m = re.sub(r"@[\w.$-]+", "@s", m)
    m = re.sub(r"\d+", "N", m)
    return m.strip()[:110]


def first_error(text):
    m = re.search(r"error: (.*)", text)
    return m.group(1) if m else (text.strip().splitlines() or [""])[0]


def op_hint(text):
    m = re.search(r"\b([a-z_]+\.[a-z_.]+)\b", text)
    return m.group(1) if m else ""


def judge(job):
    """Returns (status, class, detail) for one case; status in pass/fail/skip."""
    a, path, idx, text = job
    tmp = tempfile.mkdtemp(prefix="upc.", dir=a.work)
    src = os.path.join(tmp, "case.mlir")
    with open(src, "w") as f:
        f.write(text)
    invalid = "expected-error" in text
    rc, ref, rerr = run([a.mlir_opt, "--allow-unregistered-dialect", src], a.timeout)
    if rc not in (0, 1):
        return ("skip", "mlir-opt-22 crashed or timed out", "")
    ref_ok = rc == 0
    if invalid and ref_ok:
        return ("skip", "invalid case that mlir-opt-22 accepts", "")
    if not invalid and not ref_ok:
        return ("skip", "valid case that mlir-opt-22 rejects", blank(first_error(rerr)))
    out = os.path.join(tmp, "out.mlir")
    mrc, mout, merr = run([a.memplan, "opt", src, "-o", out], a.timeout)
    both = merr + mout
    crashed = mrc not in (0, 1, 2) or "panicked at" in both
    if crashed:
        return ("fail", f"memplan crash (exit {mrc})", both[-300:])
    if invalid:
        if mrc == 0:
            return ("fail", "invalid accepted: " + blank(first_error(rerr)), first_error(rerr))
        if mrc != 2:
            return ("fail", f"invalid rejected with exit {mrc} (want 2)", first_error(both))
        if not re.search(r"\d+:\d+", both):
            return ("fail", "invalid rejected without line:col", first_error(both))
        return ("pass", "", "")
    if mrc != 0:
        return ("fail", "valid rejected: " + blank(first_error(both)), first_error(both))
    nrc, norm_ref, nerr = run([a.mlir_opt, *NORM, src], a.timeout)
    if nrc != 0:
        return ("skip", "mlir-opt-22 cannot re-print the case generically", first_error(nerr))
    for form, flags in (("custom", []), ("generic", ["--mlir-print-op-generic"])):
        if flags:
            mrc, mout, merr = run([a.memplan, "opt", *flags, src, "-o", out], a.timeout)
            if mrc != 0:
                return ("fail", f"valid rejected in {form} print: " + blank(first_error(merr)), first_error(merr))
        nrc, norm, nerr = run([a.mlir_opt, *NORM, out], a.timeout)
        if nrc != 0:
            e = first_error(nerr)
            return ("fail", f"{form} print rejected by mlir-opt-22: " + blank(e), e)
        if norm != norm_ref:
            ra, rb = norm_ref.splitlines(), norm.splitlines()
            k = next((i for i in range(min(len(ra), len(rb))) if ra[i] != rb[i]), min(len(ra), len(rb)))
            la = ra[k] if k < len(ra) else "<end>"
            lb = rb[k] if k < len(rb) else "<end>"
            return ("fail", f"{form} print normalises differently ({op_hint(la) or op_hint(lb)})",
                    f"mlir-opt: {la.strip()[:200]}\nmemplan:  {lb.strip()[:200]}")
    return ("pass", "", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--memplan", default=os.path.join(ROOT, "target", "release", "memplan"))
    ap.add_argument("--mlir-opt", default=os.environ.get("MLIR_OPT", "mlir-opt-22"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--report", help="write the per-case failures (with details) to this file")
    ap.add_argument("--keep", help="copy every failing case here (one file each)")
    ap.add_argument("--show", type=int, default=40, help="failure classes to list")
    a = ap.parse_args()
    for tool in (a.memplan, a.mlir_opt):
        if run([tool, "--version"], 30)[0] == 127:
            sys.exit(f"error: {tool} not found")
    files = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(a.dir) for f in fs if f.endswith(".mlir")
    )
    if not files:
        sys.exit(f"error: no .mlir files below {a.dir}")
    a.work = tempfile.mkdtemp(prefix="upstream_cases.")
    jobs = []
    for p in files:
        for idx, _, text in cases_of(p):
            jobs.append((a, p, idx, text))
    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(judge, jobs))
    subprocess.run(["rm", "-rf", a.work])

    def group(p):
        rel = os.path.relpath(p, a.dir)
        return rel.split(os.sep)[0] if os.sep in rel else "."

    per = defaultdict(Counter)
    classes = defaultdict(list)
    skips = Counter()
    fails = []
    for (_, p, idx, text), (st, cls, det) in zip(jobs, results):
        kind = "invalid" if "expected-error" in text else "valid"
        g = group(p)
        if st == "skip":
            skips[cls] += 1
            per[g]["skip"] += 1
            continue
        per[g][kind] += 1
        per[g][kind + "_pass"] += st == "pass"
        if st == "fail":
            classes[cls].append((p, idx))
            fails.append((p, idx, cls, det, text))
    tot = Counter()
    print(f"{'dir':<16} {'files':>5} {'valid':>6} {'pass':>6} {'invalid':>7} {'pass':>6} {'skipped':>7}")
    nfiles = Counter(group(p) for p in files)
    for g in sorted(per):
        c = per[g]
        tot.update(c)
        print(f"{g:<16} {nfiles[g]:>5} {c['valid']:>6} {c['valid_pass']:>6} {c['invalid']:>7} "
              f"{c['invalid_pass']:>6} {c['skip']:>7}")

    def pct(x, y):
        return f"{100.0 * x / y:.1f}%" if y else "-"

    print(f"{'total':<16} {len(files):>5} {tot['valid']:>6} {tot['valid_pass']:>6} {tot['invalid']:>7} "
          f"{tot['invalid_pass']:>6} {tot['skip']:>7}")
    print(f"valid cases accepted and round-tripped: {tot['valid_pass']}/{tot['valid']} ({pct(tot['valid_pass'], tot['valid'])})")
    print(f"invalid cases rejected (exit 2, line:col): {tot['invalid_pass']}/{tot['invalid']} ({pct(tot['invalid_pass'], tot['invalid'])})")
    print("not judged (mlir-opt-22 decides the other way): "
          + ", ".join(f"{n} {k}" for k, n in skips.most_common()))
    if classes:
        print("\nfailure classes (count, class, first case):")
        for cls, lst in sorted(classes.items(), key=lambda kv: (-len(kv[1]), kv[0]))[: a.show]:
            p, idx = lst[0]
            print(f"{len(lst):>4}  {cls}   [{os.path.relpath(p, a.dir)}#{idx}]")
    if a.report:
        with open(a.report, "w") as f:
            for p, idx, cls, det, _ in fails:
                f.write(f"== {os.path.relpath(p, a.dir)}#{idx}: {cls}\n{det}\n\n")
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        for p, idx, cls, det, text in fails:
            name = os.path.relpath(p, a.dir).replace(os.sep, "_").replace(".mlir", f"_{idx}.mlir")
            with open(os.path.join(a.keep, name), "w") as f:
                f.write(f"// {cls}\n" + "\n".join("// " + l for l in det.splitlines()) + "\n" + text.lstrip("\n"))
    sys.exit(0 if not fails else 1)


if __name__ == "__main__":
    main()
