#!/usr/bin/env python3
"""Writes random mid-size problems (memplan JSON) with the same distribution as
`memplan-crosscheck`'s generator, and exact's result for each through the
`memplan` CLI (`NNNN.exact`: `peak optimal seconds`), for `cpsat.py`.

Usage: gen.py DIR COUNT SEED MIN_BUFFERS MAX_BUFFERS EXACT_SECS MEMPLAN
(MEMPLAN `-`: write the problems only; `exact.py` plans them later.)
"""
import json, os, subprocess, sys

M = (1 << 64) - 1


class Rng:
    def __init__(self, seed):
        self.s = (0x9E3779B97F4A7C15 ^ seed) & M

    def next(self):
        self.s ^= (self.s << 13) & M
        self.s ^= self.s >> 7
        self.s ^= (self.s << 17) & M
        return self.s

    def below(self, n):
        return self.next() % max(n, 1)


def valid(bufs):
    # Fixed buffers must not collide, fixed offsets are aligned by construction.
    fx = [b for b in bufs if "offset" in b]
    for i, a in enumerate(fx):
        for b in fx[i + 1:]:
            live = any(s1 < e2 and s2 < e1 for s1, e1 in a["live"] for s2, e2 in b["live"])
            mem = a["offset"] < b["offset"] + b["size"] and b["offset"] < a["offset"] + a["size"]
            if live and mem:
                return False
    return True


def norm(live):
    live.sort()
    out = []
    for s, e in live:
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def instance(rng, n):
    while True:
        horizon = 8 + n
        bufs = []
        for i in range(n):
            r = rng.below(4)
            size = 1 + rng.below(8) if r == 0 else (8 + rng.below(56) if r == 1 else 16 * (1 + rng.below(16)))
            live = []
            for _ in range(1 + rng.below(2)):
                s = rng.below(horizon)
                live.append([s, s + 1 + rng.below(6)])
            align = [1, 1, 1, 2, 4, 8, 16, 32][rng.below(8)]
            b = {"id": f"b{i}", "size": size, "alignment": align, "live": norm(live)}
            if rng.below(10) == 0:
                b["offset"] = align * rng.below(8)
            bufs.append(b)
        if valid(bufs):
            return bufs


def main():
    d, count, seed, lo, hi, secs, memplan = sys.argv[1:8]
    count, seed, lo, hi = int(count), int(seed), int(lo), int(hi)
    os.makedirs(d, exist_ok=True)
    rng = Rng(seed)
    for idx in range(count):
        n = lo + rng.below(hi - lo + 1)
        bufs = instance(rng, n)
        path = os.path.join(d, f"{idx:04}.json")
        json.dump({"buffers": bufs}, open(path, "w"))
        if memplan == "-":
            continue
        out = subprocess.run([memplan, "plan", path, "--algo", "exact", "--time-limit", secs, "--json"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{idx}: memplan failed: {out.stderr}", file=sys.stderr)
            os.remove(path)
            continue
        s = json.loads(out.stdout)
        open(os.path.join(d, f"{idx:04}.exact"), "w").write(
            f"{s['peak']} {str(s['optimal']).lower()} {s['seconds']}\n")
        print(f"{idx:04} n={n} lb={s['lower_bound']} exact={s['peak']} optimal={s['optimal']} {s['seconds']:.3f}s", flush=True)


main()
