// RUN: memplan opt %s --affine-loop-fusion --remarks 2>&1
// A producer-consumer chain with deallocations (as bufferization leaves them): both
// intermediates become one-element private buffers, their deallocs follow them.
func.func @chain(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c = arith.constant 2.0 : f32
  %t1 = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %in[%i] : memref<64xf32>
    %b = arith.mulf %a, %c : f32
    affine.store %b, %t1[%i] : memref<64xf32>
  }
  %t2 = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %t1[%i] : memref<64xf32>
    %b = arith.addf %a, %c : f32
    affine.store %b, %t2[%i] : memref<64xf32>
  }
  memref.dealloc %t1 : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %t2[%i] : memref<64xf32>
    affine.store %a, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t2 : memref<64xf32>
  return
}
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:\w+]] = memref.alloc() : memref<1xf32>
// CHECK: %[[B:\w+]] = memref.alloc() : memref<1xf32>
// CHECK: affine.for %[[I:\w+]] = 0 to 64 {
// CHECK-NEXT: affine.load %{{\w+}}[%[[I]]] : memref<64xf32>
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: affine.store %{{\w+}}, %[[A]][0] : memref<1xf32>
// CHECK-NEXT: affine.load %[[A]][0] : memref<1xf32>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{\w+}}, %[[B]][0] : memref<1xf32>
// CHECK-NEXT: affine.load %[[B]][0] : memref<1xf32>
// CHECK-NEXT: affine.store %{{\w+}}, %{{\w+}}[%[[I]]] : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[A]] : memref<1xf32>
// CHECK-NEXT: memref.dealloc %[[B]] : memref<1xf32>
// CHECK-NEXT: return
// CHECK: 6:3: remark: affine-loop-fusion: buffer shrunk from 256 B to 4 B (memref<1xf32>)
// CHECK: 12:3: remark: affine-loop-fusion: buffer shrunk from 256 B to 4 B (memref<1xf32>)

// -----

// A 3-point vertical stencil with a heavy consumer: fused at depth 2 (recomputing three
// producer points per consumer point stays under the 30% tolerance), the intermediate keeps
// the three elements of the column, indexed relative to the row; the single-iteration column
// loop of the slice is folded away.
func.func @rows(%in: memref<10x8xf32>, %out: memref<8x8xf32>) {
  %t = memref.alloc() : memref<10x8xf32>
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 8 {
      %a = affine.load %in[%i, %j] : memref<10x8xf32>
      %b = arith.mulf %a, %a : f32
      affine.store %b, %t[%i, %j] : memref<10x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %t[%i, %j] : memref<10x8xf32>
      %y = affine.load %t[%i + 1, %j] : memref<10x8xf32>
      %z = affine.load %t[%i + 2, %j] : memref<10x8xf32>
      %s = arith.addf %x, %y : f32
      %u = arith.addf %s, %z : f32
      %v = arith.mulf %u, %u : f32
      %w = arith.subf %v, %s : f32
      %q = arith.mulf %w, %u : f32
      %q1 = arith.addf %q, %s : f32
      %q2 = arith.addf %q1, %s : f32
      %q3 = arith.addf %q2, %s : f32
      %q4 = arith.addf %q3, %s : f32
      %q5 = arith.addf %q4, %s : f32
      %q6 = arith.addf %q5, %s : f32
      %q7 = arith.addf %q6, %s : f32
      %q8 = arith.addf %q7, %s : f32
      %q9 = arith.addf %q8, %s : f32
      %q10 = arith.addf %q9, %s : f32
      %q11 = arith.addf %q10, %s : f32
      %q12 = arith.addf %q11, %s : f32
      %q13 = arith.addf %q12, %s : f32
      %q14 = arith.addf %q13, %s : f32
      %q15 = arith.addf %q14, %s : f32
      affine.store %q15, %out[%i, %j] : memref<8x8xf32>
    }
  }
  return
}
// CHECK-LABEL: func.func @rows
// CHECK: %[[T:\w+]] = memref.alloc() : memref<3x1xf32>
// CHECK: affine.for %[[I:\w+]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[J:\w+]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[K:\w+]] = affine_map<(d0) -> (d0)>(%[[I]]) to affine_map<(d0) -> (d0 + 3)>(%[[I]]) {
// CHECK-NEXT: affine.load %{{\w+}}[%[[K]], %[[J]]] : memref<10x8xf32>
// CHECK: affine.store %{{\w+}}, %[[T]][%[[K]] - %[[I]], 0] : memref<3x1xf32>
// CHECK: affine.load %[[T]][0, 0] : memref<3x1xf32>
// CHECK-NEXT: affine.load %[[T]][1, 0] : memref<3x1xf32>
// CHECK-NEXT: affine.load %[[T]][2, 0] : memref<3x1xf32>
// CHECK: remark: affine-loop-fusion: producer loop nest fused into the nest at 15:3 at depth 2
// CHECK: buffer shrunk from 320 B to 12 B (memref<3x1xf32>)

// -----

// A buffer passed to a call escapes: its producer may still be fused, the buffer keeps its size.
func.func private @use(memref<16xf32>)
func.func @escapes(%in: memref<16xf32>, %out: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %a = affine.load %in[%i] : memref<16xf32>
    affine.store %a, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %a = affine.load %t[%i] : memref<16xf32>
    affine.store %a, %out[%i] : memref<16xf32>
  }
  call @use(%t) : (memref<16xf32>) -> ()
  return
}
// CHECK-LABEL: func.func @escapes
// CHECK: memref.alloc() : memref<16xf32>
// CHECK-NOT: memref<1xf32>
// CHECK: call @use

// -----

// Unknown and malformed options are errors.
// RUN: memplan opt %s --affine-loop-fusion=mode=fastest
func.func @f() {
  return
}
// ERROR: 1:1: invalid value 'fastest' for affine-loop-fusion option 'mode'

// -----

// RUN: memplan opt %s --affine-loop-fusion=fusion-maximal
func.func @f() {
  return
}
// ERROR: 1:1: unknown affine-loop-fusion option 'fusion-maximal'

// -----

// A nest with a symbolic bound is executed as one opaque step (it reads and may overwrite all
// it touches): the chain before it still fuses (as mlir-opt-22 does), %t keeps its size for the
// symbolic nest, which is left alone.
// RUN: memplan opt %s --affine-loop-fusion
func.func @symbolic_elsewhere(%in: memref<64xf32>, %out: memref<64xf32>, %o2: memref<16xf32>, %n: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %in[%i] : memref<64xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %a = affine.load %t[%i] : memref<64xf32>
    affine.store %a, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to %n {
    %a = affine.load %t[%i] : memref<64xf32>
    affine.store %a, %o2[%i] : memref<16xf32>
  }
  return
}
// CHECK-LABEL: func.func @symbolic_elsewhere
// CHECK: memref.alloc() : memref<64xf32>
// CHECK: affine.for %{{\w+}} = 0 to 64 {
// CHECK: affine.store %{{\w+}}, %t[%{{\w+}}] : memref<64xf32>
// CHECK-NEXT: affine.load %t[%{{\w+}}] : memref<64xf32>
// CHECK: affine.for %{{\w+}} = 0 to %{{\w+}} {

// -----

// The same with the symbolic nest not touching the intermediate: it shrinks.
// RUN: memplan opt %s --affine-loop-fusion
func.func @symbolic_unrelated(%in: memref<64xf32>, %out: memref<64xf32>, %o2: memref<16xf32>, %n: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %a = affine.load %in[%i] : memref<64xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %a = affine.load %t[%i] : memref<64xf32>
    affine.store %a, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to %n {
    %a = affine.load %in[%i] : memref<64xf32>
    affine.store %a, %o2[%i] : memref<16xf32>
  }
  return
}
// CHECK-LABEL: func.func @symbolic_unrelated
// CHECK: memref.alloc() : memref<1xf32>
// CHECK: affine.for %{{\w+}} = 0 to 64 {
// CHECK-NOT: affine.for
// CHECK: affine.store %{{\w+}}, %{{\w+}}[0] : memref<1xf32>
// CHECK: affine.for %{{\w+}} = 0 to %{{\w+}} {

// -----

// fast-mem-space / local-buf-threshold (KiB): private buffers up to the threshold go to that
// memory space, larger ones keep the original's (the second consumer also reads column 0, so
// it fuses per row: 2 KiB).
// RUN: memplan opt %s --affine-loop-fusion=fast-mem-space=2,local-buf-threshold=1
func.func @fast(%in: memref<8x512xf32>, %out: memref<8x512xf32>) {
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %a = affine.load %in[%i, 0] : memref<8x512xf32>
    affine.store %a, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %a = affine.load %t[%i] : memref<8xf32>
    affine.store %a, %out[%i, 0] : memref<8x512xf32>
  }
  %u = memref.alloc() : memref<8x512xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 512 {
      %a = affine.load %in[%i, %j] : memref<8x512xf32>
      affine.store %a, %u[%i, %j] : memref<8x512xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 512 {
      %a = affine.load %u[%i, %j] : memref<8x512xf32>
      %b = affine.load %u[%i, 0] : memref<8x512xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %out[%i, %j] : memref<8x512xf32>
    }
  }
  return
}
// CHECK-LABEL: func.func @fast
// CHECK: memref.alloc() : memref<1xf32, 2>
// CHECK: memref.alloc() : memref<1x512xf32>
