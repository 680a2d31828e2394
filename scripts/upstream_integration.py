#!/usr/bin/env python3
"""Run upstream MLIR executable integration tests through their own pipelines, with memplan at every
stage boundary and memplan's passes at the bufferized stages; mlir-opt-22 / mlir-runner-22 judge.

Usage: python3 scripts/upstream_integration.py DIR [--memplan BIN] [--jobs N] [--timeout S]
                                                  [--report FILE] [--keep DIR] [--only SUBSTR]
                                                  [--extra-pipelines]

DIR holds upstream test files (mlir/test/Integration/**/CPU/*.mlir, mlir/test/mlir-runner/*.mlir of
llvm-project); they are not part of this repository (scripts/upstream_integration.FETCHLIST names the
files and commits we ran). For each file and each of its RUN commands of the form
`mlir-opt ... | [mlir-opt ... |] mlir-(cpu-)runner ... | FileCheck %s`:

 1. The pipeline is cut into steps: every pass flag of every mlir-opt stage, and every top-level
    element of a `-pass-pipeline=builtin.module(...)`. Flags of passes that MLIR 22 no longer has
    are modernised (the old dialect bufferize passes become one `-one-shot-bufferize`,
    `-buffer-deallocation` becomes `-buffer-deallocation-pipeline`, `-convert-memref-to-llvm`
    becomes `-finalize-memref-to-llvm`, `-convert-linalg-to-llvm` goes); the case says so.
 2. The original program is lowered step by step with mlir-opt-22 and run with mlir-runner-22
    (runner_utils / c_runner_utils / async_runtime / float16 libraries of /usr/lib/llvm-22/lib).
    Its output is checked against the file's CHECK lines with FileCheck-22 (when installed).
    When the unmodified pipeline does not run on MLIR 22 (passes it lacks, syntax of another MLIR
    version, a runtime library or target feature we lack: SVE, SME, AMX, AVX-512, CUDA, sparse
    runtime), the case is SKIPPED with the reason.
 3. Round trip at every stage boundary: memplan opt parses the intermediate module and prints it in
    custom and generic form; mlir-opt-22 must read both back and print exactly what it prints for
    the intermediate module itself (generic, local scope).
 4. At every boundary where the module has `memref.alloc` and is not yet LLVM dialect (the
    bufferized stages), memplan's passes run: `--merge-alloc`, `--reorder-for-memory --merge-alloc`,
    and `--insert-lifetime-markers --verify-lifetime-markers --strip-lifetime-markers` (markers
    in, checked, out: the program must be unchanged in meaning). Each result must verify in
    mlir-opt-22, is lowered with the remaining steps and run; its output must equal the original's
    (addresses blanked). On the final LLVM-dialect module `--llvm-lifetime-markers` runs the same way.
 5. --extra-pipelines: the tensor programs are also bufferized by five other pipelines (out-params,
    buffer hoisting + allocation-liveness, ownership-based deallocation left unlowered, affine loops +
    fusion, parallel loops; EXTRA_PIPELINES), each result merged with `--merge-alloc`, both lowered
    (LOWER) and run; outputs must be equal.
 6. Savings: at the first bufferized stage boundary after the last bufferization step, the static
    `memref.alloc` bytes of every function (not only kernels: upstream tests allocate in @main)
    before and after `--merge-alloc`, counted on mlir-opt-22's print of each.

Exit status: 0 when no judged case fails, 1 otherwise. The report (markdown) lists per program the
status, the stage boundaries checked, the passes applied, the bytes, and every failure.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTRA = False  # --extra-pipelines
LIBDIR = os.environ.get("MLIR_LIB_DIR", "/usr/lib/llvm-22/lib")
OPT = "mlir-opt-22"
RUNNER = "mlir-runner-22"
FILECHECK = shutil.which("FileCheck-22") or shutil.which("FileCheck")
NORM = ["--allow-unregistered-dialect", "--mlir-print-op-generic", "--mlir-print-local-scope"]

# passes of older MLIR that MLIR 22 lacks, and what replaces them
OLD_BUFFERIZE = {
    "linalg-bufferize", "arith-bufferize", "tensor-bufferize", "func-bufferize", "scf-bufferize",
    "bufferization-bufferize", "finalizing-bufferize", "vector-bufferize", "std-bufferize",
}
RENAMED = {
    "buffer-deallocation": "buffer-deallocation-pipeline",
    "convert-memref-to-llvm": "finalize-memref-to-llvm",
    "convert-std-to-llvm": "convert-func-to-llvm",
    "naive-convert-vector-to-llvm": "convert-vector-to-llvm",
}
# appended when the RUN pipeline of an older MLIR leaves dialects that mlir-runner-22 cannot
# translate (older -convert-func-to-llvm also lowered arith and cf)
FINISH = ["--expand-strided-metadata", "--lower-affine", "--convert-scf-to-cf", "--convert-vector-to-llvm", "--convert-cf-to-llvm",
          "--convert-arith-to-llvm", "--convert-math-to-llvm", "--convert-index-to-llvm",
          "--finalize-memref-to-llvm", "--convert-func-to-llvm", "--convert-ub-to-llvm",
          "--reconcile-unrealized-casts"]
DROPPED = {"convert-linalg-to-llvm"}
# the passes whose output is "bufferized": memplan's passes run from the boundary after the last one
BUFFERIZING = ("bufferize", "buffer-deallocation", "bufferization-to-memref",
               "empty-tensor-to-alloc-tensor", "buffer-results-to-out-params")
# --extra-pipelines: other bufferization pipelines (those of tests/real_pipelines.rs's kinds) for the
# tensor programs, each followed by merge-alloc and a generic lowering; both programs run and compare
EXTRA_PIPELINES = {
    "out_params": ["--one-shot-bufferize=bufferize-function-boundaries", "--buffer-results-to-out-params",
                   "--buffer-deallocation-pipeline", "--convert-bufferization-to-memref"],
    "hoist_liveness": ["--one-shot-bufferize=bufferize-function-boundaries", "--buffer-hoisting",
                       "--buffer-loop-hoisting", "--buffer-deallocation-pipeline",
                       "--optimize-allocation-liveness", "--convert-bufferization-to-memref"],
    "ownership": ["--one-shot-bufferize=bufferize-function-boundaries",
                  "--ownership-based-buffer-deallocation", "--canonicalize",
                  "--convert-bufferization-to-memref"],
    "affine_fusion": ["--one-shot-bufferize=bufferize-function-boundaries", "--convert-linalg-to-affine-loops",
                      "--affine-loop-fusion", "--buffer-deallocation-pipeline",
                      "--convert-bufferization-to-memref"],
    "parallel": ["--one-shot-bufferize=bufferize-function-boundaries", "--convert-linalg-to-parallel-loops",
                 "--buffer-deallocation-pipeline", "--convert-bufferization-to-memref"],
}
LOWER = ["--convert-linalg-to-loops", "--convert-vector-to-scf", "--expand-strided-metadata",
         "--lower-affine", "--convert-scf-to-cf", "--convert-vector-to-llvm", "--convert-cf-to-llvm",
         "--convert-arith-to-llvm", "--convert-math-to-llvm", "--convert-index-to-llvm",
         "--finalize-memref-to-llvm", "--convert-func-to-llvm", "--convert-ub-to-llvm",
         "--reconcile-unrealized-casts"]

# ops that moved between dialects: the input is rewritten (the case says so)
SOURCE_RENAMES = {"tensor.pack": "linalg.pack", "tensor.unpack": "linalg.unpack"}
NEEDS = [  # (pattern in the file, why it is skipped)
    (r"arm_sve|ArmSVE|arm_sme|ArmSME|\+sve|\+sme|vscale", "needs Arm SVE/SME"),
    (r"\bamx\.|AMX|\+amx", "needs Intel AMX"),
    (r"avx512|x86vector\.", "needs x86 vector extensions (AVX-512)"),
    (r"gpu\.launch|cuda|nvvm|rocdl", "needs a GPU runtime"),
    (r"sparse_tensor|#sparse|sparsifier", "needs the sparse runtime"),
]


def lib(name):
    for f in (f"{LIBDIR}/lib{name}.so", f"{LIBDIR}/{name}.so"):
        if os.path.exists(f):
            return f
    return None


def run(cmd, stdin=None, timeout=60):
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", f"timeout after {timeout}s: {' '.join(cmd[:2])}"


def run_commands(text):
    """The RUN commands of a test file: continuation lines joined, `// DEFINE: %{x} = ...`
    substituted, and a compile step writing `-o %t` joined to the runner step reading `%t`."""
    def logical(tag):
        out, cur = [], ""
        for line in text.splitlines():
            m = re.match(r"\s*//\s*" + tag + r":\s?(.*)$", line)
            if not m:
                continue
            body = m.group(1).rstrip()
            if body.endswith("\\"):
                cur += body[:-1] + " "
            else:
                out.append((cur + body).strip())
                cur = ""
        if cur:
            out.append(cur.strip())
        return out

    defs = {}
    for d in logical("DEFINE"):
        m = re.match(r"%\{(\w+)\}\s*=\s*(.*)$", d)
        if m:
            defs[m.group(1)] = m.group(2)
    cmds = []
    for c in logical("RUN"):
        for _ in range(5):
            c2 = re.sub(r"%\{(\w+)\}", lambda m: defs.get(m.group(1), m.group(0)), c)
            if c2 == c:
                break
            c = c2
        c = re.sub(r"%if\s+\S+\s*%\{.*?%\}", "", c)  # lit conditionals (target-specific flags)
        for part in c.split("&&"):
            if not part.strip().startswith("rm "):
                cmds.append(part.strip())
    joined, pending = [], None
    for c in cmds:
        if "-o %t" in c and "runner" not in c:
            pending = c.replace("-o %t", "")
            continue
        if pending and re.match(r"\s*mlir-(cpu-)?runner\b", c) and "%t" in c:
            c = pending + " | " + re.sub(r"(?<=\s)%t\b", "", c)
        joined.append(c)
    return joined


def split_pipe(cmd):
    parts, depth, quote, cur = [], 0, None, ""
    for c in cmd:
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "|" and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += c
    parts.append(cur.strip())
    return [p for p in parts if p]


def top_level_split(s):
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "({[<":
            depth += 1
        elif c in ")}]>":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_case(cmd, path):
    """(steps, globals, runner_args, notes) or a skip reason string."""
    stages = split_pipe(cmd)
    opts, runner, checks = [], None, None
    for st in stages:
        toks = shlex.split(st)
        if not toks:
            continue
        tool = os.path.basename(toks[0])
        if tool == "mlir-opt":
            opts.append(toks[1:])
        elif tool in ("mlir-runner", "mlir-cpu-runner"):
            if runner is not None:
                return "two runner stages"
            runner = toks[1:]
        elif tool == "FileCheck":
            checks = [t for t in toks[1:] if t != "%s"]
        else:
            return f"stage `{tool}` is not mlir-opt / mlir-runner / FileCheck"
    if not opts or runner is None:
        return "no `mlir-opt | mlir-runner` RUN line"
    steps, glob, notes = [], [], []
    bufferize_added = any("one-shot-bufferize" in a for args in opts for a in args)
    for args in opts:
        for a in args:
            if a == "%s":
                continue
            if not a.startswith("-"):
                return f"unexpected mlir-opt argument {a}"
            flag = a.lstrip("-")
            name = flag.split("=", 1)[0]
            if name == "pass-pipeline":
                pipe = flag.split("=", 1)[1].strip("\"'")
                m = re.fullmatch(r"builtin\.module\((.*)\)", pipe)
                elems = top_level_split(m.group(1)) if m else [pipe]
                for e in elems:
                    for old, new in RENAMED.items():
                        e2 = re.sub(r"(?<![\w-])" + re.escape(old) + r"(?![\w-])", new, e)
                        if e2 != e:
                            notes.append(f"{old} -> {new}")
                            e = e2
                    steps.append(f"--pass-pipeline=builtin.module({e})" if m else f"--pass-pipeline={e}")
                continue
            if name in ("split-input-file", "verify-diagnostics"):
                return f"mlir-opt {a}"
            if name.startswith("mlir-") or name in ("allow-unregistered-dialect",):
                glob.append(a)
                continue
            if name in OLD_BUFFERIZE:
                notes.append(f"{name} dropped")
                if not bufferize_added:
                    steps.append("--one-shot-bufferize=bufferize-function-boundaries")
                    bufferize_added = True
                    notes.append("old bufferize passes -> one-shot-bufferize")
                continue
            if name in RENAMED:
                steps.append("--" + RENAMED[name] + flag[len(name):])
                notes.append(f"{name} -> {RENAMED[name]}")
                continue
            if name in DROPPED:
                notes.append(f"{name} dropped")
                continue
            steps.append("--" + flag)
    if any(n.endswith("one-shot-bufferize") for n in notes) and not any("bufferization-to-memref" in s for s in steps):
        # one-shot-bufferize leaves bufferization.* ops that the old finalizing pass removed
        i = max(i for i, s in enumerate(steps) if "bufferize" in s or "deallocation" in s)
        steps.insert(i + 1, "--convert-bufferization-to-memref")
    rargs, libs = [], []
    merge_stderr = [False]
    skip_next = False
    for i, a in enumerate(runner):
        if skip_next:
            skip_next = False
            continue
        if a.startswith("-shared-libs") or a.startswith("--shared-libs"):
            val = a.split("=", 1)[1] if "=" in a else runner[i + 1]
            skip_next = "=" not in a
            for l in val.split(","):
                l = l.strip()
                m = re.search(r"(mlir_\w+?)(%shlibext)?$", l.replace("lib" + "mlir", "mlir"))
                name = m.group(1) if m else l
                if name.startswith("%"):
                    name = name[1:]
                f = lib(name)
                if not f:
                    return f"runtime library {l} not installed"
                libs.append(f)
            continue
        if a.startswith("-march") or a.startswith("-mattr") or a.startswith("--march") or a.startswith("--mattr"):
            return f"runner target flag {a}"
        if a == "%s":
            continue
        if a == "2>&1":
            notes.append("runner stderr compared too")
            merge_stderr[0] = True
            continue
        rargs.append(a)
    cr = lib("mlir_c_runner_utils")
    if libs and cr not in libs:
        libs.append(cr)  # memrefCopy lives there (older runner_utils pulled it in)
        notes.append("c_runner_utils added")
    if libs:
        rargs.append("-shared-libs=" + ",".join(libs))
    if merge_stderr[0]:
        rargs.append("2>&1")  # marker for execute(), not passed to the runner
    return steps, glob, rargs, notes, checks


ADDR = re.compile(r"0x[0-9a-fA-F]+")
LOC = re.compile(r"loc\(.*\)")


def normalise_output(s):
    """Addresses and source locations (runtime-verification messages quote the op's location,
    which is a line of whichever text the pass read) are blanked."""
    return LOC.sub("loc(...)", ADDR.sub("ADDR", s))


class Case:
    def __init__(self, path, idx, cmd):
        self.path, self.idx, self.cmd = path, idx, cmd
        self.name = f"{os.path.basename(path)}#{idx}"
        self.status, self.reason = "", ""
        self.failures = []  # (class, detail)
        self.boundaries = 0
        self.merges = 0
        self.notes = []
        self.bytes_before = self.bytes_after = None
        self.allocs_before = self.allocs_after = None
        self.check = ""
        self.remarks = []
        self.extra = 0  # extra bufferization pipelines run and compared
        self.untested = []  # boundaries that carry a transform schedule (judged since h-transform)


def lower(module_text, steps, glob, workdir, tag, timeout, generic=False):
    """Applies steps one by one; returns list of intermediate texts [I0..In] or (k, err).
    generic: print the intermediate modules in generic form (for the few ops whose custom
    print mlir-opt-22 itself cannot read back)."""
    texts = [module_text]
    cur = module_text
    extra = ["--mlir-print-op-generic"] if generic else []
    for k, s in enumerate(steps):
        rc, out, err = run([OPT, *glob, *extra, s], stdin=cur, timeout=timeout)
        if rc != 0:
            return k, err.strip().splitlines()[:3]
        cur = out
        texts.append(cur)
    return texts


def finish(text, steps, glob, timeout, generic=False):
    """Applies the steps; consecutive plain pass flags go to one mlir-opt-22 call. The modules
    pass between the calls in custom form, like the RUN line's own pipes; when mlir-opt-22 cannot
    read its own custom print (a few ops), everything is redone with generic prints (not always:
    the generic-print flag also changes the op text some passes embed, e.g. runtime verification
    messages)."""
    groups = []
    for s in steps:
        if groups and not s.startswith("--pass-pipeline") and not groups[-1][0].startswith("--pass-pipeline"):
            groups[-1].append(s)
        else:
            groups.append([s])
    cur = text
    extra = ["--mlir-print-op-generic"] if generic else []
    for i, g in enumerate(groups):
        s = " ".join(g)
        rc, out, err = run([OPT, *glob, *extra, *g], stdin=cur, timeout=timeout)
        if rc != 0:
            if i > 0 and not generic:
                return finish(text, steps, glob, timeout, generic=True)
            return None, f"{s}: " + " ".join(err.strip().splitlines()[:2])
        cur = out
    return cur, None


def execute(llvm_text, rargs, timeout):
    """Runs the module; with the `2>&1` marker (RUN line merges stderr) stderr is appended to
    the output (runtime-verification messages go there)."""
    merged = "2>&1" in rargs
    rc, out, err = run([RUNNER, *[a for a in rargs if a != "2>&1"]], stdin=llvm_text, timeout=timeout)
    if merged:
        out = out + err
    return rc, out, err


def norm(text, timeout):
    rc, out, err = run([OPT, *NORM], stdin=text, timeout=timeout)
    return (out if rc == 0 else None), err


ELEM = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
        "index": 8}


def alloc_bytes(pretty):
    """(number of memref.alloc, static bytes) over all functions of mlir-opt-22's pretty print."""
    n, total = 0, 0
    for line in pretty.splitlines():
        if " = memref.alloc(" not in line and " = memref.alloc()" not in line:
            continue
        n += 1
        m = re.search(r"memref<((?:\d+x)*)([a-z]+\d*)", line[line.rfind(": memref<"):])
        if not m:
            continue
        dims = [int(d) for d in m.group(1).split("x") if d]
        e = ELEM.get(m.group(2))
        if e is None:
            continue
        b = e
        for d in dims:
            b *= d
        total += b
    return n, total


def memplan(args, text, workdir, name, timeout):
    f = os.path.join(workdir, name)
    with open(f, "w") as h:
        h.write(text)
    return run([MEMPLAN, "opt", *args, f], timeout=timeout)


def check_case(case, keep, timeout):
    text = open(case.path).read()
    for pat, why in NEEDS:
        if re.search(pat, text):
            case.status, case.reason = "skipped", why
            return case
    parsed = parse_case(case.cmd, case.path)
    if isinstance(parsed, str):
        case.status, case.reason = "skipped", parsed
        return case
    steps, glob, rargs, notes, has_checks = parsed
    case.notes = notes
    for old, new in SOURCE_RENAMES.items():
        if re.search(re.escape(old) + r"\b", text):
            text = re.sub(re.escape(old) + r"\b", new, text)
            case.notes.append(f"input: {old} -> {new}")
    workdir = tempfile.mkdtemp(prefix="upint.", dir=keep)
    try:
        res = lower(text, steps, glob, workdir, "orig", timeout)
        if isinstance(res, tuple) and res[0] > 0:
            # does mlir-opt-22 fail to read its own print of the previous stage? Then the
            # stages are passed on in generic form (the run of the RUN line itself is one
            # process and never re-reads them)
            k = res[0]
            again = lower(text, steps, glob, workdir, "orig", timeout, generic=True)
            if not isinstance(again, tuple):
                case.notes.append(f"mlir-opt-22 cannot re-read its own custom print after step {k - 1} "
                                  f"({' '.join(res[1])[:100]}); stages passed on in generic form")
                res = again
        if isinstance(res, tuple):
            k, err = res
            case.status = "skipped"
            case.reason = f"mlir-opt-22 fails at step {k} `{steps[k]}`: {' '.join(err)[:160]}"
            return case
        texts = res
        rc, out0, err0 = execute(texts[-1], rargs, timeout)
        if rc != 0 and ("not found for custom op" in err0 or "cannot be converted to LLVM IR" in err0
                        or "unregistered" in err0 or "Dialect `" in err0):
            more = lower(texts[-1], FINISH, glob, workdir, "fin", timeout)
            if not isinstance(more, tuple):
                steps = steps + FINISH
                texts = texts + more[1:]
                case.notes.append("finishing passes appended")
                rc, out0, err0 = execute(texts[-1], rargs, timeout)
        if rc != 0:
            case.status = "skipped"
            case.reason = f"mlir-runner-22 fails on the original: {' '.join(err0.strip().splitlines()[:2])[:160]}"
            return case
        out0n = normalise_output(out0)
        if FILECHECK and has_checks is not None:
            p = subprocess.run([FILECHECK, case.path, "--dump-input=never", *has_checks], input=out0,
                               capture_output=True, text=True)
            case.check = "pass" if p.returncode == 0 else "FAIL"
        # 3. round trips at every boundary
        for k, t in enumerate(texts):
            if re.search(r"^\s*transform\.|= transform\.", t, re.M):
                case.untested.append(k)  # a transform schedule: judged like any other boundary
            want, werr = norm(t, timeout)
            if want is None:
                continue
            case.boundaries += 1
            for mode in ([], ["--mlir-print-op-generic"]):
                rc, out, err = memplan([*mode], t, workdir, f"b{k}.mlir", timeout)
                where = f"after step {k} ({steps[k-1] if k else 'input'})"
                if rc != 0:
                    first = (err.strip().splitlines() or ["?"])[0]
                    cls = "panic" if "panicked" in err else "parse/verify rejection"
                    case.failures.append((cls, f"{where}: {first[:200]}"))
                    break
                got, gerr = norm(out, timeout)
                if got is None:
                    case.failures.append(("print not re-read by mlir-opt-22",
                                          f"{where} {' '.join(mode)}: {gerr.strip().splitlines()[0][:200] if gerr.strip() else ''}"))
                    break
                if got != want:
                    a, b = want.splitlines(), got.splitlines()
                    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
                    case.failures.append(("round-trip difference",
                                          f"{where} {' '.join(mode)}: line {i+1}: want `{a[i].strip()[:120] if i < len(a) else ''}` got `{b[i].strip()[:120] if i < len(b) else ''}`"))
                    break
        # 4. memplan passes at bufferized boundaries
        last_buf = max((i for i, s in enumerate(steps) if any(b in s for b in BUFFERIZING)), default=None)
        measured = False
        first_stage = True
        for k, t in enumerate(texts):
            if "memref.alloc" not in t or "llvm.func" in t or k == 0 and "tensor<" in t and last_buf is not None:
                continue
            if last_buf is not None and k <= last_buf:
                continue
            if k in case.untested:
                continue
            if any("to-llvm" in st for st in steps[:k]):
                break  # memref level only: merge-alloc's new arith/memref ops need the later lowerings
            # each variant: memplan invocations applied in turn (memplan runs its passes in a
            # fixed order, so markers are inserted, then verified and stripped by a second call)
            variants = [[["--merge-alloc", "--remarks"]]]
            if first_stage:  # the bufferized stage: every memplan pass; later stages: merge-alloc
                variants += [[["--reorder-for-memory", "--merge-alloc"]],
                             [["--insert-lifetime-markers"],
                              ["--verify-lifetime-markers", "--strip-lifetime-markers"]]]
                first_stage = False
            for variant in variants:
                out, rc, err = t, 0, ""
                for inv in variant:
                    rc, out, err = memplan(inv, out, workdir, f"m{k}.mlir", timeout)
                    if rc != 0:
                        break
                variant = [a for inv in variant for a in inv]
                where = f"{' '.join(v for v in variant if v != '--remarks')} after step {k}"
                if rc != 0:
                    cls = "panic" if "panicked" in err else "memplan pass error"
                    case.failures.append((cls, f"{where}: {(err.strip().splitlines() or ['?'])[0][:200]}"))
                    continue
                case.merges += 1
                rcv, _, verr = run([OPT, *glob], stdin=out, timeout=timeout)
                if rcv != 0:
                    case.failures.append(("pass output invalid in mlir-opt-22",
                                          f"{where}: {verr.strip().splitlines()[0][:200]}"))
                    continue
                if variant[0] == "--merge-alloc" and not measured:
                    measured = True
                    b0, _ = norm_pretty(t, glob, timeout)
                    b1, _ = norm_pretty(out, glob, timeout)
                    if b0 is not None and b1 is not None:
                        case.allocs_before, case.bytes_before = alloc_bytes(b0)
                        case.allocs_after, case.bytes_after = alloc_bytes(b1)
                    case.remarks = [l.strip() for l in err.splitlines() if "not merged:" in l]
                low, lerr = finish(out, steps[k:], glob, timeout)
                if low is None:
                    case.failures.append(("lowering the pass output fails", f"{where}: {lerr[:200]}"))
                    continue
                rc1, out1, err1 = execute(low, rargs, timeout)
                if rc1 != 0 or normalise_output(out1) != out0n:
                    a, b = out0n.splitlines(), normalise_output(out1).splitlines()
                    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
                    case.failures.append(("wrong output", f"{where}: rc {rc1}; line {i+1}: want "
                                          f"`{a[i][:80] if i < len(a) else ''}` got `{b[i][:80] if i < len(b) else ''}` {err1.strip()[:120]}"))
        # LLVM-dialect lifetime markers on the final module
        final = texts[-1]
        if "llvm.alloca" in final:
            rc, out, err = memplan(["--llvm-lifetime-markers"], final, workdir, "final.mlir", timeout)
            if rc != 0:
                case.failures.append(("panic" if "panicked" in err else "memplan pass error",
                                      f"--llvm-lifetime-markers: {(err.strip().splitlines() or ['?'])[0][:200]}"))
            else:
                case.merges += 1
                rc1, out1, err1 = execute(out, rargs, timeout)
                if rc1 != 0 or normalise_output(out1) != out0n:
                    case.failures.append(("wrong output", f"--llvm-lifetime-markers: rc {rc1} {err1.strip()[:160]}"))
        if EXTRA and "tensor<" in text and last_buf is not None:
            first_buf = min(i for i, s in enumerate(steps) if any(b in s for b in BUFFERIZING))
            pre = texts[first_buf]  # the RUN line's own steps before it bufferizes
            for name, pipe in EXTRA_PIPELINES.items():
                b, berr = finish(pre, ["--empty-tensor-to-alloc-tensor", *pipe], glob, timeout)
                if b is None or "memref.alloc" not in b:
                    continue  # that pipeline does not take this program (MLIR 22 refuses it)
                rc, m, err = memplan(["--merge-alloc"], b, workdir, f"x_{name}.mlir", timeout)
                where = f"extra pipeline {name}: --merge-alloc"
                if rc != 0:
                    case.failures.append(("panic" if "panicked" in err else "memplan pass error",
                                          f"{where}: {(err.strip().splitlines() or ['?'])[0][:200]}"))
                    continue
                outs = []
                for mod in (b, m):
                    low, lerr = finish(mod, LOWER, glob, timeout)
                    if low is None:
                        outs.append(None)
                        break
                    rcx, ox, ex = execute(low, rargs, timeout)
                    outs.append(normalise_output(ox) if rcx == 0 else None)
                if outs[0] is None:
                    continue  # the generic lowering does not take the un-merged program either
                case.extra += 1
                if len(outs) < 2 or outs[1] != outs[0]:
                    case.failures.append(("wrong output", f"{where}: the merged program prints other values"))
        case.status = "FAIL" if case.failures else "ok"
        return case
    finally:
        if not keep or case.status == "ok":
            shutil.rmtree(workdir, ignore_errors=True)


def norm_pretty(text, glob, timeout):
    rc, out, err = run([OPT, *glob, "--allow-unregistered-dialect"], stdin=text, timeout=timeout)
    return (out if rc == 0 else None), err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--memplan", default=os.path.join(ROOT, "target/release/memplan"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--report")
    ap.add_argument("--keep", help="keep the work files of failing cases under this directory")
    ap.add_argument("--only", help="only files whose name contains this")
    ap.add_argument("--extra-pipelines", action="store_true",
                    help="also bufferize the tensor programs with the pipelines of EXTRA_PIPELINES, "
                         "merge-alloc each and compare outputs")
    a = ap.parse_args()
    global MEMPLAN, EXTRA
    MEMPLAN = a.memplan
    EXTRA = a.extra_pipelines
    for t in (OPT, RUNNER):
        if not shutil.which(t):
            print(f"error: {t} not found", file=sys.stderr)
            return 2
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    cases = []
    for dp, _, fs in os.walk(a.dir):
        for f in sorted(fs):
            if not f.endswith(".mlir") or (a.only and a.only not in f):
                continue
            p = os.path.join(dp, f)
            cmds = [c for c in run_commands(open(p).read()) if "runner" in c]
            if not cmds:
                c = Case(p, 0, "")
                c.status, c.reason = "skipped", "no RUN line with a runner"
                cases.append(c)
            for i, c in enumerate(cmds):
                cases.append(Case(p, i, c))
    cases.sort(key=lambda c: c.name)
    todo = [c for c in cases if not c.status]
    with ThreadPoolExecutor(a.jobs) as ex:
        list(ex.map(lambda c: check_case(c, a.keep, a.timeout), todo))
    lines = ["| program | status | FileCheck | boundaries round-tripped | pass runs | allocs before | allocs after | static bytes before | static bytes after | notes |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for c in cases:
        note = c.reason or "; ".join(c.notes + ([f"{len(c.untested)} boundaries with a transform schedule"] if c.untested else []))
        lines.append(f"| {c.name} | {c.status} | {c.check} | {c.boundaries} | {c.merges} | "
                     f"{'' if c.allocs_before is None else c.allocs_before} | {'' if c.allocs_after is None else c.allocs_after} | "
                     f"{'' if c.bytes_before is None else c.bytes_before} | {'' if c.bytes_after is None else c.bytes_after} | {note} |")
    ran = [c for c in cases if c.status in ("ok", "FAIL")]
    ok = [c for c in ran if c.status == "ok"]
    skipped = [c for c in cases if c.status == "skipped"]
    bb = sum(c.bytes_before or 0 for c in ran)
    ba = sum(c.bytes_after if c.bytes_after is not None else (c.bytes_before or 0) for c in ran)
    files = {c.path for c in cases}
    summary = [f"files: {len(files)}; RUN cases: {len(cases)}; run: {len(ran)}; ok: {len(ok)}; "
               f"failed: {len(ran) - len(ok)}; skipped: {len(skipped)}",
               f"stage boundaries round-tripped: {sum(c.boundaries for c in ran)}; memplan pass runs "
               f"executed and compared: {sum(c.merges for c in ran)}"
               + (f"; extra bufferization pipelines run with merge-alloc and compared: {sum(c.extra for c in ran)}"
                  if EXTRA else ""),
               f"FileCheck on the original outputs: {sum(1 for c in ran if c.check == 'pass')} pass, "
               f"{sum(1 for c in ran if c.check == 'FAIL')} fail",
               f"static memref.alloc bytes at the bufferized stage: {bb} -> {ba} with --merge-alloc"
               + (f" ({100.0 * (bb - ba) / bb:.1f}% saved)" if bb else "")]
    why = {}
    for c in ran:
        for r in c.remarks:
            w = re.sub(r"@[\w.$-]+", "@F", r.split("not merged:", 1)[1].strip())
            w = re.sub(r"\d+", "N", w)
            why[w] = why.get(w, 0) + 1
    if why:
        summary.append("allocations merge-alloc kept at the bufferized stage, by its reason: " +
                       "; ".join(f"{n}x {w}" for w, n in sorted(why.items(), key=lambda x: (-x[1], x[0]))))
    fails = []
    for c in ran:
        for cls, d in c.failures:
            fails.append(f"- {c.name}: **{cls}**: {d}")
    rep = "\n".join(summary) + "\n\n" + "\n".join(lines) + "\n\n" + ("\n".join(fails) if fails else "no failures") + "\n"
    if a.report:
        with open(a.report, "w") as h:
            h.write(rep)
    print(rep)
    return 1 if len(ok) != len(ran) else 0


if __name__ == "__main__":
    sys.exit(main())
