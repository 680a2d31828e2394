// RUN: memplan opt %s --affine-loop-fusion=mode=greedy,maximal --remarks 2>&1
// A symbol in the consumer's bound (`0 to %n`): the exact check runs for n = 0..64 (smaller
// values run no iteration, like 0; from 65 on the consumer reads t out of bounds, and it only
// reads more as n grows): the producer is fused per element and t shrinks to one element.
func.func @legal(%in: memref<64xf32>, %out: memref<64xf32>, %n: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %in[%i] : memref<64xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to %n {
    %a = affine.load %t[%i] : memref<64xf32>
    affine.store %a, %out[%i] : memref<64xf32>
  }
  return
}
// CHECK-LABEL: func.func @legal
// CHECK: memref.alloc() : memref<1xf32>
// CHECK: affine.for %[[I:\w+]] = 0 to %{{\w+}} {
// CHECK-NEXT: affine.for %{{\w+}} = max affine_map<(d0) -> (d0, 0)>(%[[I]]) to min affine_map<(d0) -> (d0 + 1, 64)>(%[[I]]) {
// CHECK: 8:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 13:3 at depth 1
// CHECK: 7:3: remark: affine-loop-fusion: buffer shrunk from 256 B to 4 B (memref<1xf32>)

// -----

// A symbol in an `affine.if` guard of the consumer: decided false for n <= 0 and true for
// n >= 16 (j < 16), so n = 0..16 are checked; fused at depth 2, t shrinks to one element.
func.func @guard(%in: memref<8x16xf32>, %out: memref<8x16xf32>, %n: index) {
  %t = memref.alloc() : memref<8x16xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      %a = affine.load %in[%i, %j] : memref<8x16xf32>
      affine.store %a, %t[%i, %j] : memref<8x16xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      affine.if affine_set<(d0)[s0] : (s0 - d0 - 1 >= 0)>(%j)[%n] {
        %a = affine.load %t[%i, %j] : memref<8x16xf32>
        affine.store %a, %out[%i, %j] : memref<8x16xf32>
      }
    }
  }
  return
}
// CHECK-LABEL: func.func @guard
// CHECK: memref.alloc() : memref<1x1xf32>
// CHECK: affine.store %{{\w+}}, %{{\w+}}[0, 0] : memref<1x1xf32>
// CHECK-NEXT: affine.if
// CHECK: 6:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 12:3 at depth 2
// CHECK: 5:3: remark: affine-loop-fusion: buffer shrunk from 512 B to 4 B (memref<1x1xf32>)

// -----

// Loop-carried RAW in a producer with a symbolic trip count (a prefix sum over 1..n), read in
// reverse: illegal from n = 3 on (the check says at which value), so even maximal fusion is
// refused and t keeps its size.
func.func @raw_symbolic(%in: memref<16xf32>, %out: memref<16xf32>, %n: index) {
  %t = memref.alloc() : memref<16xf32>
  %a0 = affine.load %in[0] : memref<16xf32>
  affine.store %a0, %t[0] : memref<16xf32>
  affine.for %i = 1 to %n {
    %p = affine.load %t[%i - 1] : memref<16xf32>
    %a = affine.load %in[%i] : memref<16xf32>
    %s = arith.addf %p, %a : f32
    affine.store %s, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %v = affine.load %t[15 - %i] : memref<16xf32>
    affine.store %v, %out[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
// CHECK-LABEL: func.func @raw_symbolic
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: affine.for %{{\w+}} = 1 to %{{\w+}} {
// CHECK: affine.for %{{\w+}} = 0 to 16 {
// CHECK: 9:3: remark: affine-loop-fusion: loop nest not fused into the consumer nest at 15:3: depth 1: the load at 10:5 would read a value other than the original's (when %n = 3)

// -----

// WAR across a nest with a symbolic trip count: B overwrites x[i + 1] for i < n. Fusing A
// (reads x[i]) into C is legal for n <= 0 only; refused (at n = 1).
func.func @war_symbolic(%x: memref<17xf32>, %y: memref<16xf32>, %out: memref<16xf32>, %n: index) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %a = affine.load %x[%i] : memref<17xf32>
    affine.store %a, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to %n {
    %b = affine.load %y[%i] : memref<16xf32>
    affine.store %b, %x[%i + 1] : memref<17xf32>
  }
  affine.for %i = 0 to 16 {
    %v = affine.load %t[%i] : memref<16xf32>
    %w = affine.load %x[%i] : memref<17xf32>
    %s = arith.addf %v, %w : f32
    affine.store %s, %out[%i] : memref<16xf32>
  }
  return
}
// CHECK-LABEL: func.func @war_symbolic
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: affine.for %{{\w+}} = 0 to 16 {
// CHECK: affine.for %{{\w+}} = 0 to %{{\w+}} {
// CHECK: affine.for %{{\w+}} = 0 to 16 {
// CHECK: 6:3: remark: affine-loop-fusion: loop nest not fused into the consumer nest at 14:3: depth 1: the load at 7:5 would read a value other than the original's (when %n = 1)

// -----

// A symbol as a lower bound (FINDINGS F3, h-f4g5): the loop is empty from n = 64 on, and as n
// decreases it only runs more iterations (step 1), so once the original reads t out of bounds
// (n = -1) it does at every smaller value: the check runs n = 64 down to 0, the producer is
// fused per element and t shrinks to one element.
func.func @symbolic_lower_bound(%in: memref<64xf32>, %out: memref<64xf32>, %n: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %in[%i] : memref<64xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<64xf32>
  }
  affine.for %i = %n to 64 {
    %a = affine.load %t[%i] : memref<64xf32>
    affine.store %a, %out[%i] : memref<64xf32>
  }
  return
}
// CHECK-LABEL: func.func @symbolic_lower_bound
// CHECK: memref.alloc() : memref<1xf32>
// CHECK: affine.for %[[I:\w+]] = %{{\w+}} to 64 {
// CHECK-NEXT: affine.for %{{\w+}} = max affine_map<(d0) -> (d0, 0)>(%[[I]]) to min affine_map<(d0) -> (d0 + 1, 64)>(%[[I]]) {
// CHECK: 9:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 14:3 at depth 1
// CHECK: 8:3: remark: affine-loop-fusion: buffer shrunk from 256 B to 4 B (memref<1xf32>)

// -----

// A stepped loop with a symbolic lower bound: its iterations shift with n instead of growing,
// so the small values cannot be covered: the nest stays opaque and nothing is fused, with
// remarks saying why.
func.func @symbolic_lower_bound_step(%in: memref<64xf32>, %out: memref<64xf32>, %n: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %in[%i] : memref<64xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<64xf32>
  }
  affine.for %i = %n to 64 step 2 {
    %a = affine.load %t[%i] : memref<64xf32>
    affine.store %a, %out[%i] : memref<64xf32>
  }
  return
}
// CHECK-LABEL: func.func @symbolic_lower_bound_step
// CHECK: memref.alloc() : memref<64xf32>
// CHECK: affine.for %{{\w+}} = 0 to 64 {
// CHECK: affine.for %{{\w+}} = %{{\w+}} to 64 step 2 {
// CHECK: 5:1: remark: affine-loop-fusion: nests with %n in their bounds stay opaque: the small values of a symbol cannot be shown to behave alike
// CHECK: 8:3: remark: affine-loop-fusion: loop nest not fused into the consumer nest at 13:3: the destination nest holds a loop bound that is not a constant

// -----

// A symbolic lower bound on a nest that overwrites t behind its reads (t[i] after reading
// t[i + 1]): every read still sees the producer's value, at every n; fused with a two-element
// window.
func.func @symbolic_lower_bound_inplace(%in: memref<64xf32>, %out: memref<64xf32>, %n: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %in[%i] : memref<64xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<64xf32>
  }
  affine.for %i = %n to 63 {
    %a = affine.load %t[%i + 1] : memref<64xf32>
    affine.store %a, %t[%i] : memref<64xf32>
    affine.store %a, %out[%i] : memref<64xf32>
  }
  return
}
// CHECK-LABEL: func.func @symbolic_lower_bound_inplace
// CHECK: memref.alloc() : memref<2xf32>
// CHECK: affine.for %{{\w+}} = %{{\w+}} to 63 {
// CHECK: 8:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 13:3 at depth 1
// CHECK: 7:3: remark: affine-loop-fusion: buffer shrunk from 256 B to 8 B (memref<2xf32>)

// -----

// A symbol in subscripts of a written buffer (FINDINGS F4): the consumer's accesses run at
// every iteration, so t[i + n] and t[i + n - 1] are in bounds only for n in 1..25 and the
// original is undefined elsewhere; the check runs those 25 values, fuses the producer and
// shrinks t to the window the slices need (the reads at n stay as subscripts).
func.func @subscript_symbol(%in: memref<40xf32>, %out: memref<15xf32>, %n: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<40xf32>
  affine.for %i = 0 to 40 {
    %a = affine.load %in[%i] : memref<40xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<40xf32>
  }
  affine.for %i = 0 to 15 {
    %a = affine.load %t[%i + symbol(%n)] : memref<40xf32>
    affine.store %a, %t[%i + symbol(%n) - 1] : memref<40xf32>
    affine.store %a, %out[%i] : memref<15xf32>
  }
  return
}
// CHECK-LABEL: func.func @subscript_symbol
// CHECK: memref.alloc() : memref<26xf32>
// CHECK: affine.load %{{\w+}}[symbol(%{{\w+}})] : memref<26xf32>
// CHECK: affine.store %{{\w+}}, %{{\w+}}[symbol(%{{\w+}}) - 1] : memref<26xf32>
// CHECK: 9:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 14:3 at depth 1
// CHECK: 8:3: remark: affine-loop-fusion: buffer shrunk from 160 B to 104 B (memref<26xf32>)

// -----

// Two symbols, each in its own consumer's bound: the check runs over the points (n, m) from
// (0, -1) up, raising one at a time, up to m = 7 (from there the bound min(8, m + 1) is 8) and
// as long as n does not read t out of bounds; t is fused into both consumers and shrinks.
func.func @two_symbols(%in: memref<8xf32>, %out: memref<8xf32>, %out2: memref<8xf32>, %n: index, %m: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %a = affine.load %in[%i] : memref<8xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to %n {
    %a = affine.load %t[%i] : memref<8xf32>
    affine.store %a, %out[%i] : memref<8xf32>
  }
  affine.for %i = 0 to min affine_map<()[s0] -> (8, s0 + 1)>()[%m] {
    %a = affine.load %t[%i] : memref<8xf32>
    %b = arith.addf %a, %c2 : f32
    affine.store %b, %out2[%i] : memref<8xf32>
  }
  return
}
// CHECK-LABEL: func.func @two_symbols
// CHECK: memref.alloc() : memref<1xf32>
// CHECK: affine.for %{{\w+}} = 0 to %{{\w+}} {
// CHECK: affine.for %{{\w+}} = 0 to min affine_map<()[s0] -> (8, s0 + 1)>()[%{{\w+}}] {
// CHECK-NEXT: affine.for
// CHECK: 8:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 13:3 at depth 1
// CHECK: 8:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 17:3 at depth 1
// CHECK: 7:3: remark: affine-loop-fusion: buffer shrunk from 32 B to 4 B (memref<1xf32>)
