// RUN: memplan opt %s --affine-loop-fusion=mode=greedy,maximal --remarks 2>&1
// Loop-carried RAW inside the producer (a prefix sum) read in reverse by the consumer: the
// consumer's order would need t[i - 1] before it is computed, so even maximal fusion is refused.
func.func @raw_reversed(%in: memref<16xf32>, %out: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  %a0 = affine.load %in[0] : memref<16xf32>
  affine.store %a0, %t[0] : memref<16xf32>
  affine.for %i = 1 to 16 {
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
// CHECK-LABEL: func.func @raw_reversed
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: affine.for %{{\w+}} = 1 to 16 {
// CHECK: affine.for %{{\w+}} = 0 to 16 {
// CHECK-NEXT: affine.load %{{\w+}}[-%{{\w+}} + 15]
// CHECK: 8:3: remark: affine-loop-fusion: loop nest not fused into the consumer nest at 14:3: depth 1: the load at 9:5 would read a value other than the original's

// -----

// WAR across nests: A reads x[i], B overwrites x[i + 1]. Fusing A into B would make A's
// iteration i + 1 read the overwritten x[i + 1]: refused, also with maximal.
func.func @war(%x: memref<17xf32>, %y: memref<16xf32>, %out: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %a = affine.load %x[%i] : memref<17xf32>
    affine.store %a, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
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
// CHECK-LABEL: func.func @war
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: affine.for
// CHECK: affine.store %{{\w+}}, %{{\w+}}[%{{\w+}}] : memref<16xf32>
// CHECK: affine.for
// CHECK: affine.store %{{\w+}}, %{{\w+}}[%{{\w+}} + 1] : memref<17xf32>
// CHECK: 6:3: remark: affine-loop-fusion: loop nest not fused into the consumer nest at 14:3: depth 1: the load at 7:5 would read a value other than the original's

// -----

// WAW: A writes t[i], B writes t[i + 1] (reading the same input, so they are siblings);
// fused, A's iteration i + 1 would overwrite B's t[i + 1]. mode=sibling refuses.
// RUN: memplan opt %s --affine-loop-fusion=mode=sibling,maximal --remarks 2>&1
func.func @waw(%in: memref<16xf32>, %t: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %a = affine.load %in[%i] : memref<16xf32>
    affine.store %a, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 15 {
    %a = affine.load %in[%i] : memref<16xf32>
    %b = arith.addf %a, %a : f32
    affine.store %b, %t[%i + 1] : memref<16xf32>
  }
  return
}
// CHECK-LABEL: func.func @waw
// CHECK: affine.for %{{\w+}} = 0 to 16 {
// CHECK: affine.for %{{\w+}} = 0 to 15 {
// CHECK: 10:3: remark: affine-loop-fusion: sibling loop nest not fused into the nest at 6:3: depth 1: the final contents of a caller-visible buffer would differ

// -----

// The same two writers in the opposite order of overwriting are legal siblings: fused.
// RUN: memplan opt %s --affine-loop-fusion=mode=sibling --remarks 2>&1
func.func @waw_ok(%in: memref<16xf32>, %t: memref<16xf32>, %u: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %a = affine.load %in[%i] : memref<16xf32>
    affine.store %a, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %a = affine.load %in[%i] : memref<16xf32>
    %b = arith.addf %a, %a : f32
    affine.store %b, %u[%i] : memref<16xf32>
  }
  return
}
// CHECK-LABEL: func.func @waw_ok
// CHECK: affine.for %[[I:\w+]] = 0 to 16 {
// CHECK: affine.store %{{\w+}}, %{{\w+}}[%[[I]]] : memref<16xf32>
// CHECK-NOT: affine.for
// CHECK: arith.addf
// CHECK: affine.store %{{\w+}}, %{{\w+}}[%[[I]]] : memref<16xf32>
// CHECK: 9:3: remark: affine-loop-fusion: sibling loop nest fused into the nest at 5:3 at depth 1
