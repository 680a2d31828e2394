#!/usr/bin/env python3
"""Plans every NNNN.json of DIR (from `gen.py ... -`) with `memplan plan --algo
exact` and writes exact's result to NNNN.TAG.exact (`peak optimal seconds`),
for `cpsat.py`. START/END pick a slice of the sorted names (runs in chunks).

Usage: exact.py DIR SECS MEMPLAN TAG [START END]
"""
import json, os, subprocess, sys


def main():
    d, secs, memplan, tag = sys.argv[1:5]
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
    if len(sys.argv) > 6:
        names = names[int(sys.argv[5]):int(sys.argv[6])]
    for n in names:
        path = os.path.join(d, n + ".json")
        out = subprocess.run([memplan, "plan", path, "--algo", "exact", "--time-limit", secs, "--json"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{n}: memplan failed: {out.stderr}", file=sys.stderr)
            continue
        s = json.loads(out.stdout)
        open(os.path.join(d, f"{n}.{tag}.exact"), "w").write(
            f"{s['peak']} {str(s['optimal']).lower()} {s['seconds']}\n")
        print(f"{n} lb={s['lower_bound']} exact={s['peak']} optimal={s['optimal']} {s['seconds']:.3f}s", flush=True)


main()
