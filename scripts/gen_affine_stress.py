#!/usr/bin/env python3
"""Writes a dependence-analysis stress program: one depth-3 nest with N shifted,
strided and transposed loads/stores on one 3-D buffer (N*N*(4) remark lines).
Usage: scripts/gen_affine_stress.py N > FILE.mlir"""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
subs = ["%i, %j, %k", "%i + 1, %j, %k", "%j, %i, %k", "%i, %j + 1, %k floordiv 2",
        "%i, 2 * %j, %k", "%k, %j, %i", "%i, %j, %k + 3", "%i floordiv 2, %j mod 4, %k"]
print("func.func @stress(%t: memref<64x64x64xf32>, %x: f32) {")
print("  affine.for %i = 0 to 16 {")
print("    affine.for %j = 0 to 16 {")
print("      affine.for %k = 0 to 16 {")
for a in range(n):
    s = subs[a % len(subs)]
    if a % 3 == 0:
        print(f"        affine.store %x, %t[{s}] : memref<64x64x64xf32>")
    else:
        print(f"        %v{a} = affine.load %t[{s}] : memref<64x64x64xf32>")
print("      }\n    }\n  }\n  return\n}")
