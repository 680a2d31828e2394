#!/usr/bin/env python3
"""Space-indexed LP lower bound for a MiniMalloc-style CSV (issue 11, D and J).

Units are g = the gcd of every size, alignment and fixed offset. At a capacity
of C units, buffer b (size s_b units) takes a fractional distribution x[b,o]
over its allowed start units o (0 <= o <= C - s_b, aligned, or its fixed
offset), sum_o x[b,o] = 1; for every time section s that is a maximal clique of
the interval graph (optionally only the heavy ones: any subset of rows is still
a relaxation) and every unit a < C, the buffers live in s cover a at most once:
sum over b live in s, o <= a < o + s_b of x[b,o] <= 1. The LP is written with
cumulative variables X[b,k] = x[b,o_0] + .. + x[b,o_k] (two nonzeros per live
buffer and row) and made elastic (cover - z <= 1, z >= 0, minimise the sum of
z: optimum 0 exactly when the LP is feasible). HiGHS solves it whole, or by
column and row generation (--method cg) for large instances.

A positive optimum proves nothing until it is certified. By Farkas' lemma the
LP is infeasible exactly when there are prices v[s,a] >= 0 on the
(section, unit) cells such that every buffer, wherever it is put, pays more in
total than the prices sum to:
    sum_b min_o cost_b(o) > sum_{s,a} v[s,a],
    cost_b(o) = sum over sections s live for b of v[s,o] + .. + v[s,o+s_b-1].
(Any plan at C puts each buffer somewhere and covers each cell at most once, so
sum_b cost_b(o_b) <= sum v; the inequality above rules that out.) The script
takes the elastic LP's duals on the cover rows as prices, scales them to
integers (floor(v / max v * 2^30): any nonnegative prices are allowed) and
checks the inequality in exact integer arithmetic on the x form, independently
of the cumulative LP. Only a checked certificate counts as infeasible. Since
plans with offsets in multiples of g lose nothing (push every buffer down), a
certificate at C proves that every plan needs at least (C + 1) * g bytes.

Usage:
  lp_bound.py FILE.csv [--cap C | --hi HI] [--min-load F] [--method lp|cg]
                       [--solver choose|simplex|ipm] [--cols K] [--time T]
                       [--json] [--quiet] [--clique-csv OUT.csv]
    --cap C     decide the LP at C bytes (a multiple of g) and print the verdict
    --hi HI     bisect between the max-load bound and HI bytes (default: max-load
                + 8%) for the smallest capacity at which the LP is feasible
    --min-load F  keep only the maximal cliques whose load is >= F * max-load
                (default 0: all)
    --method    lp: the whole LP (default); cg: column and row generation
    --solver    HiGHS's solver for the (master) LP (default choose)
    --cols K    cg: offsets added per buffer and round (default 3)
    --time T    time limit per capacity in seconds (default 600)
    --json      one JSON line with the result at the end
    --clique-csv OUT  write the kept cliques as a problem of their own (time
                step k = the k-th kept clique) and stop: an integer plan of it
                at C is a point of this LP at C
Exit 0; prints one line per LP solved.
"""
import csv, json, math, sys, time
from functools import reduce

import numpy as np

try:  # only the LP solves need HiGHS; lp_fo.py reuses the problem reader without it
    import highspy
except ImportError:
    highspy = None


def read(path):
    bufs = []
    with open(path) as f:
        for r in csv.DictReader(f):
            b = {"lower": int(r["lower"]), "upper": int(r["upper"]), "size": int(r["size"])}
            if r.get("alignment"):
                b["alignment"] = int(r["alignment"])
            if r.get("offset"):
                b["offset"] = int(r["offset"])
            bufs.append(b)
    return bufs


class Problem:
    """The buffers in units of g, and the maximal cliques of their lifetimes."""

    def __init__(self, bufs):
        nums = [b["size"] for b in bufs]
        nums += [b["alignment"] for b in bufs if b.get("alignment", 1) > 1]
        nums += [b["offset"] for b in bufs if b.get("offset", 0) > 0]
        self.g = g = reduce(math.gcd, nums)
        self.size = [b["size"] // g for b in bufs]
        self.align = [max(1, b.get("alignment", 1) // g) for b in bufs]
        self.fixed = [b["offset"] // g if "offset" in b else None for b in bufs]
        pts = sorted({t for b in bufs for t in (b["lower"], b["upper"])})
        secs = []
        for t in pts[:-1]:
            live = frozenset(i for i, b in enumerate(bufs) if b["lower"] <= t < b["upper"])
            if live:
                secs.append(live)
        cl = []
        for i, s in enumerate(secs):
            if (i > 0 and s <= secs[i - 1]) or (i + 1 < len(secs) and s <= secs[i + 1]):
                continue
            if s not in cl:
                cl.append(s)
        self.cliques = [sorted(s) for s in cl]
        self.load = [sum(self.size[i] for i in s) for s in self.cliques]
        self.max_load = max(self.load) if self.load else 0
        # The smallest capacity (units) worth asking about: max-load, every fixed top.
        self.floor = max([self.max_load] + [f + s for f, s in zip(self.fixed, self.size) if f is not None])

    def offsets(self, b, cap):
        """Allowed start units of buffer b at capacity cap (sorted numpy array)."""
        if self.fixed[b] is not None:
            o = self.fixed[b]
            return np.array([o] if o + self.size[b] <= cap else [], dtype=np.int64)
        return np.arange(0, cap - self.size[b] + 1, self.align[b], dtype=np.int64)


def build(p, cap, rows_of):
    """The cumulative LP at capacity cap over the cliques rows_of. Returns (lp,
    number of cover rows) or None when some buffer has no allowed offset."""
    used = sorted({b for s in rows_of for b in p.cliques[s]})
    offs = [p.offsets(b, cap) if b in set(used) else np.zeros(0, dtype=np.int64) for b in range(len(p.size))]
    if any(len(offs[b]) == 0 for b in used):
        return None
    base = np.cumsum([0] + [len(o) for o in offs])
    ncol = int(base[-1])
    rr, cc, vv = [], [], []
    row = 0
    units = np.arange(cap, dtype=np.int64)
    for s in rows_of:
        for b in p.cliques[s]:
            o = offs[b]
            i1 = np.searchsorted(o, units, side="right") - 1
            i0 = np.searchsorted(o, units - p.size[b], side="right") - 1
            keep = i1 != i0
            a1 = keep & (i1 >= 0)
            rr.append(row + units[a1]); cc.append(base[b] + i1[a1]); vv.append(np.ones(int(a1.sum())))
            a0 = keep & (i0 >= 0)
            rr.append(row + units[a0]); cc.append(base[b] + i0[a0]); vv.append(-np.ones(int(a0.sum())))
        row += cap
    ncover = row
    # Elastic cover rows: coverage - z <= 1, z >= 0, minimise sum z (always
    # feasible; optimum 0 exactly when the LP at cap is feasible).
    nx = ncol
    zc = nx + np.arange(ncover, dtype=np.int64)
    rr.append(np.arange(ncover, dtype=np.int64)); cc.append(zc); vv.append(-np.ones(ncover))
    ncol = nx + ncover
    lower = [np.full(ncover, -highspy.kHighsInf)]
    upper = [np.ones(ncover)]
    # Monotone rows X[b,k] - X[b,k-1] >= 0.
    for b in range(len(p.size)):
        k = len(offs[b])
        if k < 2:
            continue
        ks = np.arange(1, k, dtype=np.int64)
        r = row + ks - 1
        rr.append(r); cc.append(base[b] + ks); vv.append(np.ones(k - 1))
        rr.append(r); cc.append(base[b] + ks - 1); vv.append(-np.ones(k - 1))
        lower.append(np.zeros(k - 1)); upper.append(np.full(k - 1, highspy.kHighsInf))
        row += k - 1
    r = np.concatenate(rr); c = np.concatenate(cc); v = np.concatenate(vv)
    order = np.lexsort((r, c))
    r, c, v = r[order], c[order], v[order]
    lp = highspy.HighsLp()
    lp.num_col_ = ncol
    lp.num_row_ = row
    lp.col_cost_ = np.concatenate([np.zeros(nx), np.ones(ncover)])
    lo = np.zeros(ncol); hi = np.concatenate([np.ones(nx), np.full(ncover, highspy.kHighsInf)])
    lo[[base[b + 1] - 1 for b in used]] = 1.0  # X[b, last] = 1
    lp.col_lower_ = lo
    lp.col_upper_ = hi
    lp.row_lower_ = np.concatenate(lower)
    lp.row_upper_ = np.concatenate(upper)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(c, np.arange(ncol + 1)).astype(np.int32)
    lp.a_matrix_.index_ = r.astype(np.int32)
    lp.a_matrix_.value_ = v
    return lp, ncover, len(v)


def certify(p, cap, rows_of, duals):
    """Checks the prices (cover-row duals, either sign) in exact integer arithmetic (module doc).
    Returns (ok, total buffer cost, total price) of the better sign."""
    results = []
    for sign in (1.0, -1.0):
        y = np.maximum(sign * np.asarray(duals[: len(rows_of) * cap]), 0.0)
        top = y.max() if len(y) else 0.0
        if not top > 0:
            continue
        vint = np.floor(y / top * (1 << 30)).astype(np.int64).reshape(len(rows_of), cap)
        pref = np.zeros((len(rows_of), cap + 1), dtype=object)
        pref[:, 1:] = np.cumsum(vint.astype(object), axis=1)
        total_price = int(vint.astype(object).sum())
        live_in = [[] for _ in p.size]
        for j, s in enumerate(rows_of):
            for b in p.cliques[s]:
                live_in[b].append(j)
        pay = 0
        for b, js in enumerate(live_in):
            if not js:
                continue
            o = p.offsets(b, cap)
            cost = np.zeros(len(o), dtype=object)
            for j in js:
                cost = cost + (pref[j, o + p.size[b]] - pref[j, o])
            pay += int(min(cost))
        results.append((pay > total_price, pay, total_price))
    if not results:
        return (False, 0, 0)
    return max(results, key=lambda t: (t[0], t[1] / max(t[2], 1)))


def decide(p, cap, rows_of, tlimit, log, solver="choose"):
    """'infeasible' (certified), 'feasible', or 'unknown' at cap units."""
    t0 = time.perf_counter()
    built = build(p, cap, rows_of)
    if built is None:
        log(f"cap {cap * p.g}: some buffer has no place: infeasible (trivially)")
        return "infeasible"
    lp, ncover, nnz = built
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(tlimit))
    h.setOptionValue("threads", 1)
    h.setOptionValue("solver", solver)
    h.passModel(lp)
    tb = time.perf_counter() - t0
    h.run()
    st = h.getModelStatus()
    ts = time.perf_counter() - t0 - tb
    info = f"cols {lp.num_col_} rows {lp.num_row_} nnz {nnz}; build {tb:.1f}s solve {ts:.1f}s"
    if st != highspy.HighsModelStatus.kOptimal:
        log(f"cap {cap * p.g}: HiGHS status {h.modelStatusToString(st)} ({info}): unknown")
        return "unknown"
    excess = h.getInfo().objective_function_value
    duals = np.asarray(h.getSolution().row_dual)
    ok, pay, price = certify(p, cap, rows_of, duals)
    if ok:
        log(f"cap {cap * p.g} ({cap} units): LP infeasible (total excess {excess:.6g}), certificate checked "
            f"(buffers pay {pay} > prices {price}; {info})")
        return "infeasible"
    if excess <= 1e-7:
        log(f"cap {cap * p.g} ({cap} units): LP feasible (total excess {excess:.3g}; {info})")
        return "feasible"
    log(f"cap {cap * p.g} ({cap} units): LP excess {excess:.6g} but the duals do not certify "
        f"(buffers pay {pay}, prices {price}; {info}): unknown")
    return "unknown"


FEAS_TOL = 1e-6


def cg_decide(p, cap, rows_of, tlimit, log, solver="choose", max_rows=4000, cols_per_buffer=3, verbose=False):
    """The same LP decided by column and row generation: a master LP over a few
    start offsets per buffer and the cover rows its solutions violated, with
    elastic slacks (minimise their sum). Each round adds the violated cover
    rows, or else, for every buffer, the offsets that the master's duals price
    below its cheapest offset in the master. 'feasible' only when the master's
    own solution, checked against every cover row, covers no cell more than
    once (up to FEAS_TOL, HiGHS's own feasibility tolerance is 1e-7): a point
    of the full LP; 'infeasible' only through a
    certificate checked by certify() on the master's duals (prices), which is
    tried every round (a Lagrangian bound). Otherwise 'unknown' (time)."""
    t0 = time.perf_counter()
    nrow = len(rows_of) * cap
    used = sorted({b for s in rows_of for b in p.cliques[s]})
    offs = {b: p.offsets(b, cap) for b in used}
    if any(len(offs[b]) == 0 for b in used):
        log(f"cap {cap * p.g}: some buffer has no place: infeasible (trivially)")
        return "infeasible"
    cl_of = {b: [] for b in used}
    for j, s in enumerate(rows_of):
        for b in p.cliques[s]:
            cl_of[b].append(j)
    member = np.zeros((len(rows_of), len(p.size)), dtype=bool)
    for b in used:
        member[cl_of[b], b] = True
    conv = {b: i for i, b in enumerate(used)}

    def cells(b, o):
        return np.concatenate([j * cap + np.arange(o, o + p.size[b]) for j in cl_of[b]])

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("solver", solver)
    for b in used:
        h.addRow(1.0, 1.0, 0, np.zeros(0, dtype=np.int32), np.zeros(0))
    active = {}          # cover cell -> master row
    xs = []              # master x columns: (b, o)
    have = {b: set() for b in used}
    xb, xo = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)

    def add_col(b, o):
        nonlocal xb, xo
        rows = [conv[b]] + [active[c] for c in cells(b, o).tolist() if c in active]
        h.addCol(0.0, 0.0, highspy.kHighsInf, len(rows), np.array(rows, dtype=np.int32), np.ones(len(rows)))
        xs.append((b, o))
        have[b].add(int(o))
        xb = np.append(xb, b)
        xo = np.append(xo, o)

    # x columns are numbered 0.. in the order added, but z columns interleave:
    # keep the master's column index of every x column.
    xcol = []

    def add_x(b, o):
        xcol.append(h.getNumCol())
        add_col(b, o)

    def add_z_row(c):
        nonlocal xcol
        j, a = divmod(int(c), cap)
        sz = np.array([p.size[b] for b in xb.tolist()], dtype=np.int64)
        hit = np.nonzero(member[j, xb] & (xo <= a) & (a < xo + sz))[0]
        r = h.getNumRow()
        cols = np.array(xcol, dtype=np.int64)[hit]
        h.addRow(-highspy.kHighsInf, 1.0, len(cols), cols.astype(np.int32), np.ones(len(cols)))
        active[int(c)] = r
        h.addCol(1.0, 0.0, highspy.kHighsInf, 1, np.array([r], dtype=np.int32), np.array([-1.0]))

    for b in used:
        for o in {int(offs[b][0]), int(offs[b][-1]), int(offs[b][len(offs[b]) // 2])}:
            add_x(b, o)
    rounds = 0
    while True:
        if time.perf_counter() - t0 > tlimit:
            log(f"cap {cap * p.g}: column generation out of time after {rounds} rounds "
                f"({len(xs)} columns, {len(active)} cover rows): unknown")
            return "unknown"
        rounds += 1
        # HiGHS's clock runs on across the master's solves: the limit is the total.
        h.setOptionValue("time_limit", float(tlimit))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            log(f"cap {cap * p.g}: master status {h.modelStatusToString(h.getModelStatus())}: unknown")
            return "unknown"
        sol = h.getSolution()
        excess = h.getInfo().objective_function_value
        colv = np.asarray(sol.col_value)
        xv = colv[np.array(xcol, dtype=np.int64)]
        cover = np.zeros(nrow)
        for k in np.nonzero(xv > 1e-12)[0].tolist():
            b, o = xs[k]
            np.add.at(cover, cells(b, o), xv[k])
        viol = np.nonzero(cover > 1.0 + FEAS_TOL)[0]
        new = [c for c in viol[np.argsort(-cover[viol])].tolist() if c not in active][:max_rows]
        if new:
            for c in new:
                add_z_row(c)
            continue
        if not len(viol):
            log(f"cap {cap * p.g} ({cap} units): LP feasible: the master's solution covers every cell at "
                f"most once (max {cover.max():.9f}); {rounds} rounds, {len(xs)} columns, "
                f"{len(active)} cover rows, {time.perf_counter() - t0:.1f}s")
            return "feasible"
        # Prices from the master's duals on the active cover rows.
        rd = np.asarray(sol.row_dual)
        price = np.zeros(nrow)
        for c, r in active.items():
            price[c] = abs(rd[r])
        pref = np.zeros((len(rows_of), cap + 1))
        pref[:, 1:] = np.cumsum(price.reshape(len(rows_of), cap), axis=1)
        pay = 0.0
        added = 0
        for b in used:
            o = offs[b]
            cost = np.zeros(len(o))
            for j in cl_of[b]:
                cost += pref[j, o + p.size[b]] - pref[j, o]
            pay += cost.min()
            inm = min(cost[np.searchsorted(o, k)] for k in have[b])
            order = np.argsort(cost, kind="stable")
            mine = 0
            for k in order[: cols_per_buffer * 4].tolist():
                if mine < cols_per_buffer and cost[k] < inm - 1e-9 and int(o[k]) not in have[b]:
                    add_x(b, int(o[k]))
                    mine += 1
            added += mine
        gap = pay - price.sum()
        if gap > 1e-9:
            ok, ip, iprice = certify(p, cap, rows_of, price)
            if ok:
                log(f"cap {cap * p.g} ({cap} units): LP infeasible, certificate checked (buffers pay {ip} > "
                    f"prices {iprice}); {rounds} rounds, {len(xs)} columns, {len(active)} cover rows, "
                    f"{time.perf_counter() - t0:.1f}s")
                return "infeasible"
        if added == 0:
            log(f"cap {cap * p.g}: master optimal (excess {excess:.3g}) but no "
                f"certificate (Lagrangian gap {gap:.3g}): unknown")
            return "unknown"
        if verbose:
            log(f"  round {rounds}: {len(xs)} columns, {len(active)} cover rows, master excess "
                f"{excess:.6g}, max cover {cover.max():.6f} on {len(viol)} cells, "
                f"Lagrangian {gap:.6g}, "
                f"{time.perf_counter() - t0:.1f}s")


def lp_bound(p, hi_units, min_load=0.0, tlimit=600.0, log=print, solver="choose", method="lp"):
    """Bisects for the smallest capacity in [floor, hi] at which the LP is
    feasible. Returns (bound in units, smallest feasible cap or None): every
    plan needs at least bound units (bound = 1 + largest certified infeasible
    capacity, or floor)."""
    rows_of = [j for j, l in enumerate(p.load) if l >= min_load * p.max_load]
    lo = p.floor - 1          # largest capacity known infeasible (floor - 1 is, by max-load)
    hi = None                 # smallest capacity known feasible
    a, b = p.floor, hi_units
    while a <= b:
        mid = a if hi is None and a == p.floor else (a + b) // 2
        r = (cg_decide if method == "cg" else decide)(p, mid, rows_of, tlimit, log, solver)
        if r == "infeasible":
            lo = max(lo, mid)
            a = mid + 1
        elif r == "feasible":
            hi = mid
            b = mid - 1
        else:
            break  # unknown: stop, keep what is proved
    return lo + 1, hi


def main():
    args = sys.argv[1:]
    path = args[0]
    opt = {}
    i = 1
    while i < len(args):
        if args[i] in ("--json", "--quiet"):
            opt[args[i]] = True
            i += 1
        else:
            opt[args[i]] = args[i + 1]
            i += 2
    p = Problem(read(path))
    min_load = float(opt.get("--min-load", 0))
    tl = float(opt.get("--time", 600))
    log = (lambda s: None) if "--quiet" in opt else (lambda s: print(s, flush=True))
    rows_of = [j for j, l in enumerate(p.load) if l >= min_load * p.max_load]
    if "--quiet" not in opt:
        print(f"{path}: {len(p.size)} buffers, g {p.g}, max-load {p.max_load * p.g} ({p.max_load} units), "
              f"{len(p.cliques)} maximal cliques, {len(rows_of)} used", flush=True)
    if "--clique-csv" in opt:
        # The used cliques as a problem of their own (time step k = the k-th used
        # clique in time order; lifetimes stay intervals): a plan of it at C is an
        # integer point of this LP at C, so the LP over these cliques is feasible there.
        with open(opt["--clique-csv"], "w") as f:
            f.write("id,lower,upper,size\n")
            for b in range(len(p.size)):
                ks = [k for k, j in enumerate(rows_of) if b in set(p.cliques[j])]
                if ks:
                    f.write(f"{b},{ks[0]},{ks[-1] + 1},{p.size[b] * p.g}\n")
        return
    t0 = time.perf_counter()
    if "--cap" in opt:
        cap = int(opt["--cap"]) // p.g
        if opt.get("--method") == "cg":
            r = cg_decide(p, cap, rows_of, tl, log, opt.get("--solver", "choose"),
                          cols_per_buffer=int(opt.get("--cols", 3)), verbose=True)
        else:
            r = decide(p, cap, rows_of, tl, log, opt.get("--solver", "choose"))
        bound, feas = (cap + 1 if r == "infeasible" else p.floor), (cap if r == "feasible" else None)
    else:
        hi = int(opt["--hi"]) // p.g if "--hi" in opt else int(p.floor * 1.08) + 1
        bound, feas = lp_bound(p, hi, min_load, tl, log, opt.get("--solver", "choose"), opt.get("--method", "lp"))
    secs = time.perf_counter() - t0
    if "--json" in opt:
        print(json.dumps({"max_load": p.max_load * p.g, "bound": bound * p.g,
                          "feasible": None if feas is None else feas * p.g, "seconds": round(secs, 3)}))
    else:
        print(f"bound {bound * p.g} (max-load {p.max_load * p.g}, +{(bound - p.floor) * p.g}); "
              f"smallest LP-feasible capacity {'not found' if feas is None else feas * p.g}; {secs:.1f}s")


if __name__ == "__main__":
    main()
