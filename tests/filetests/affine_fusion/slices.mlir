// RUN: memplan opt %s --affine-loop-fusion --remarks 2>&1
// The consumer reads t[(i + 1) mod 4]: the slice's lower corner is that subscript (not a
// linear fit, which would need a window of 5), so the private buffer keeps one element.
func.func @mod_slice(%in: memref<20xf32>, %out: memref<4xf32>) {
  %c = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<20xf32>
  affine.for %i = 0 to 20 {
    %a = affine.load %in[%i] : memref<20xf32>
    %b = arith.subf %a, %c : f32
    affine.store %b, %t[%i] : memref<20xf32>
  }
  affine.for %i = 0 to 4 {
    %a = affine.load %t[(%i + 1) mod 4] : memref<20xf32>
    %b = arith.mulf %a, %c : f32
    affine.store %b, %out[%i] : memref<4xf32>
  }
  return
}
// CHECK-LABEL: func.func @mod_slice
// CHECK: %[[T:\w+]] = memref.alloc() : memref<1xf32>
// CHECK: affine.for %[[I:\w+]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[J:\w+]] = max affine_map<(d0) -> ((d0 + 1) mod 4, 0)>(%[[I]]) to min affine_map<(d0) -> ((d0 + 1) mod 4 + 1, 20)>(%[[I]]) {
// CHECK: affine.store %{{\w+}}, %[[T]][-((%[[I]] + 1) mod 4) + %[[J]]] : memref<1xf32>
// CHECK: affine.load %[[T]][0] : memref<1xf32>
// CHECK: 7:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 12:3 at depth 1
// CHECK: 6:3: remark: affine-loop-fusion: buffer shrunk from 80 B to 4 B (memref<1xf32>)

// -----

// The second nest updates t[i + 1] four times in place: the consumer needs its last
// iteration, whose load reads the one before; the slice keeps the whole inner loop (not
// just the last writer), then the first nest fuses too and t becomes one element.
func.func @inplace_source(%in: memref<13xf32>, %out: memref<10xf32>) {
  %c = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<13xf32>
  affine.for %i = 0 to 13 {
    %a = affine.load %in[%i] : memref<13xf32>
    affine.store %a, %t[%i] : memref<13xf32>
  }
  affine.for %i = 2 to 12 {
    affine.for %j = 0 to 4 {
      %a = affine.load %t[%i + 1] : memref<13xf32>
      %b = arith.addf %a, %c : f32
      affine.store %b, %t[%i + 1] : memref<13xf32>
    }
  }
  affine.for %i = 2 to 12 {
    %a = affine.load %t[%i + 1] : memref<13xf32>
    affine.store %a, %out[%i - 2] : memref<10xf32>
  }
  return
}
// CHECK-LABEL: func.func @inplace_source
// CHECK: %[[T:\w+]] = memref.alloc() : memref<1xf32>
// CHECK: affine.for %[[I:\w+]] = 2 to 12 {
// CHECK: affine.load %{{\w+}}[%{{\w+}}] : memref<13xf32>
// CHECK: affine.for %{{\w+}} = 0 to 4 {
// CHECK-NEXT: affine.load %[[T]][0] : memref<1xf32>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{\w+}}, %[[T]][0] : memref<1xf32>
// CHECK-NEXT: }
// CHECK: 12:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 19:3 at depth 1
// CHECK: 8:3: remark: affine-loop-fusion: producer loop nest fused into the nest at 19:3 at depth 1
// CHECK: 7:3: remark: affine-loop-fusion: buffer shrunk from 52 B to 4 B (memref<1xf32>)

