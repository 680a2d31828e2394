#!/usr/bin/env python3
"""The space-indexed LP of lp_bound.py at full size, by a first-order method
(issue 11, D and J): estimates instead of HiGHS's exact answer.

At capacity C (units of the size gcd) the LP asks for a fractional placement
x (per buffer a distribution over its start units) whose load on every
(maximal clique, unit) cell is at most 1. Its min-max form
    lambda*(C) = min over x of the largest cell load
is solved by mirror-prox with entropic steps on both sides (Nemirovski 2004):
x against prices v on the cells (v >= 0, sum 1). The LP is feasible exactly
when lambda*(C) <= 1, and since a max-load clique is full at C = max-load,
lambda* >= 1 there. Every iterate bounds lambda* from both sides:
    upper: the largest cell load of the averaged placement,
    lower: for any prices v, sum over buffers of (min over offsets of the
           prices the buffer covers) / sum v, since every placement's
           largest load is at least its price-weighted mean load.
Both are floating-point estimates, not certificates: only a lower value
above 1, checked in exact arithmetic as lp_bound.py does, would prove the
LP infeasible. Per iteration: two prefix sums and two small matrix products
(buffers x cliques times cliques x units), about 15 ms on D.

Usage: lp_fo.py FILE.csv [--cap BYTES] [--min-load F] [--iters N]
                [--gx STEP] [--gv STEP] [--time SECS]
Prints the two bounds every 200 iterations.
"""
import sys, time, math, argparse
import numpy as np
sys.path.insert(0, __import__('os').path.dirname(__file__))
from lp_bound import read, Problem

class LP:
    def __init__(s, p, cap, rows):
        s.p, s.C = p, cap
        used = sorted({b for k in rows for b in p.cliques[k]})
        s.bufs = used
        s.nB, s.nK = len(used), len(rows)
        pos = {b: i for i, b in enumerate(used)}
        M = np.zeros((s.nB, s.nK))
        for j, k in enumerate(rows):
            for b in p.cliques[k]:
                M[pos[b], j] = 1.0
        s.M = M
        s.size = np.array([p.size[b] for b in used])
        C = cap
        o = np.arange(C)[None, :]
        mask = o <= (C - s.size)[:, None]
        for i, b in enumerate(used):
            if p.fixed[b] is not None:
                mask[i, :] = False
                if p.fixed[b] + p.size[b] <= C:
                    mask[i, p.fixed[b]] = True
            elif p.align[b] > 1:
                mask[i, :] &= (np.arange(C) % p.align[b]) == 0
        assert mask.any(axis=1).all()
        s.mask = mask
        s.endidx = np.minimum(o + s.size[:, None], C)  # index into prefix (len C+1)
        s.shift = o - s.size[:, None]  # u - s_b
        s.shiftok = s.shift >= 0
        s.shiftc = np.maximum(s.shift, 0)

    def loads(s, x):
        F = np.cumsum(x, axis=1)
        G = np.take_along_axis(F, s.shiftc, axis=1) * s.shiftok
        contrib = F - G
        return s.M.T @ contrib  # nK x C

    def cost(s, v):
        P = np.zeros((s.nK, s.C + 1))
        np.cumsum(v, axis=1, out=P[:, 1:])
        S = s.M @ P  # nB x (C+1)
        c = np.take_along_axis(S, s.endidx, axis=1) - S[:, :s.C]
        return c

    def ratio(s, v):
        c = s.cost(v)
        c = np.where(s.mask, c, np.inf)
        return c.min(axis=1).sum() / v.sum()

def run(lp, iters, gx, gv, log_every=200, tlimit=1e9):
    nB, nK, C = lp.nB, lp.nK, lp.C
    lx = np.where(lp.mask, 0.0, -np.inf)
    lx -= np.log(lp.mask.sum(axis=1))[:, None]
    lv = np.full((nK, C), -math.log(nK * C))
    xs = np.zeros((nB, C)); vs = np.zeros((nK, C)); wsum = 0.0
    best = 0.0; bestv = None
    t0 = time.time()
    def norm_rows(l):
        m = l.max(axis=1, keepdims=True)
        e = np.exp(l - m)
        return l - m - np.log(e.sum(axis=1, keepdims=True))
    def norm_all(l):
        m = l.max()
        return l - m - math.log(np.exp(l - m).sum())
    for it in range(iters):
        x = np.exp(lx); v = np.exp(lv)
        cx = np.where(lp.mask, lp.cost(v), 0.0) * (nK * C)
        L = lp.loads(x)
        lxh = norm_rows(lx - gx * cx); lvh = norm_all(lv + gv * L)
        xh = np.exp(lxh); vh = np.exp(lvh)
        cxh = lp.cost(vh)
        r = (np.where(lp.mask, cxh, np.inf).min(axis=1).sum()) / vh.sum()
        if r > best:
            best, bestv = r, vh.copy()
        Lh = lp.loads(xh)
        lx = norm_rows(lx - gx * np.where(lp.mask, cxh, 0.0) * (nK * C)); lv = norm_all(lv + gv * Lh)
        xs += xh; vs += vh; wsum += 1
        if it % log_every == 0 or it == iters - 1:
            ub = lp.loads(xs / wsum).max()
            ra = lp.ratio(vs / wsum)
            print(f"it {it} t {time.time()-t0:.1f}s cur_lb {r:.5f} best_lb {best:.5f} avg_lb {ra:.5f} ub(avg x) {ub:.5f} maxLh {Lh.max():.3f}", flush=True)
        if time.time() - t0 > tlimit:
            break
    return best, bestv, xs / wsum

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('file'); ap.add_argument('--cap', type=int); ap.add_argument('--min-load', type=float, default=0.0)
    ap.add_argument('--iters', type=int, default=2000); ap.add_argument('--gx', type=float, default=0.01)
    ap.add_argument('--gv', type=float, default=1.0); ap.add_argument('--time', type=float, default=1e9)
    a = ap.parse_args()
    p = Problem(read(a.file))
    cap = a.cap // p.g if a.cap else p.max_load
    rows = [k for k in range(len(p.cliques)) if p.load[k] >= a.min_load * p.max_load]
    lp = LP(p, cap, rows)
    print(f"g {p.g} cap {cap} units max_load {p.max_load} cliques {len(rows)} buffers {lp.nB}")
    best, v, x = run(lp, a.iters, a.gx, a.gv, tlimit=a.time)
    print("best", best)
