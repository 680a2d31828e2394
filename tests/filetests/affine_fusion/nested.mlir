// RUN: memplan opt %s --affine-loop-fusion=mode=greedy,maximal --remarks 2>&1
// Nests inside a loop body are fused among themselves (FINDINGS G6), as mlir-opt-22 runs its
// driver on every block with two or more affine.for ops. The shape of upstream's
// `one_common_loop` (memref-dependence-check.mlir): a row writer over 0..10 and a row reader
// over 0..9 in one outer loop. mlir-opt-22 (maximal) fuses them and allocates memref<1x9xf32>
// in the loop body (36 B); memplan fuses them too (the writer's tenth iteration is read by
// nobody and disappears) and the buffer shrinks to one element.
func.func @one_row(%out: memref<10x9xf32>) {
  %m = memref.alloc() : memref<10x10xf32>
  %c7 = arith.constant 7.0 : f32
  affine.for %i0 = 0 to 10 {
    affine.for %i1 = 0 to 10 {
      affine.store %c7, %m[%i0, %i1] : memref<10x10xf32>
    }
    affine.for %i2 = 0 to 9 {
      %v = affine.load %m[%i0, %i2] : memref<10x10xf32>
      affine.store %v, %out[%i0, %i2] : memref<10x9xf32>
    }
  }
  return
}
// CHECK-LABEL: func.func @one_row
// CHECK: %[[B:\w+]] = memref.alloc() : memref<1x1xf32>
// CHECK: affine.for %[[I:\w+]] = 0 to 10 {
// CHECK-NEXT: affine.for %[[J:\w+]] = 0 to 9 {
// CHECK-NEXT: affine.store %{{\w+}}, %[[B]][0, 0] : memref<1x1xf32>
// CHECK-NEXT: %[[V:\w+]] = affine.load %[[B]][0, 0] : memref<1x1xf32>
// CHECK-NEXT: affine.store %[[V]], %{{\w+}}[%[[I]], %[[J]]] : memref<10x9xf32>
// CHECK-NOT: affine.for
// CHECK: return

// The second nest writes x[j + 1], which the first one reads in the next iteration of the
// outer loop: fusing them (siblings over %a) would read this iteration's value. The exact
// check runs the whole function, every outer iteration included, and refuses.
func.func @war_across_outer(%a: memref<6x8xf32>, %x: memref<9xf32>, %out: memref<6x8xf32>) {
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 8 {
      %p = affine.load %x[%j] : memref<9xf32>
      %q = affine.load %a[%i, %j] : memref<6x8xf32>
      %r = arith.addf %p, %q : f32
      affine.store %r, %out[%i, %j] : memref<6x8xf32>
    }
    affine.for %j = 0 to 8 {
      %q = affine.load %a[%i, %j] : memref<6x8xf32>
      %r = arith.mulf %q, %q : f32
      affine.store %r, %x[%j + 1] : memref<9xf32>
    }
  }
  return
}
// CHECK-LABEL: func.func @war_across_outer
// CHECK: affine.for %{{\w+}} = 0 to 6 {
// CHECK-NEXT: affine.for
// CHECK: affine.for
// The remarks follow the output.
// CHECK: remark: affine-loop-fusion: producer loop nest fused into the nest at {{[0-9]+}}:5 at depth 1
// CHECK: remark: affine-loop-fusion: buffer shrunk from 400 B to 4 B (memref<1x1xf32>)
// CHECK: remark: affine-loop-fusion: sibling loop nest not fused into the nest at {{[0-9]+}}:5: depth 1: the load at {{[0-9]+:[0-9]+}} would read a value other than the original's
