// RUN: memplan opt %s
// `scf.forall` (and `memref.generic_atomic_rmw`) parse, verify and print back in mlir-opt-22's
// custom form: normalized `in (...)` bounds, `= (..) to (..) step (..)` bounds, shared_outs,
// mapping attributes, and the implicit `scf.forall.in_parallel` terminator.

// Per-thread scratch buffer allocated inside a forall body (what merge-alloc sees).
func.func @per_thread_scratch(%in: memref<128x64xf32>, %out: memref<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%i) in (128) {
    %tmp = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
    scf.for %j = %c0 to %c64 step %c1 {
      %x = memref.load %in[%i, %j] : memref<128x64xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %tmp[%j] : memref<64xf32>
    }
    %row = memref.subview %out[%i, 0] [1, 64] [1, 1] : memref<128x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    memref.copy %tmp, %row : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
    memref.dealloc %tmp : memref<64xf32>
  } {mapping = [#gpu.thread<x>]}
  return
}
// CHECK-LABEL: func.func @per_thread_scratch(
// CHECK: scf.forall ([[I:%[\w]+]]) in (128) {
// CHECK-NEXT: [[T:%[\w]+]] = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
// CHECK-NEXT: scf.for
// CHECK: memref.copy [[T]], {{%[\w]+}} : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
// CHECK-NEXT: memref.dealloc [[T]] : memref<64xf32>
// CHECK-NOT: in_parallel
// CHECK-NEXT: } {mapping = [#gpu.thread<x>]}
// CHECK-NEXT: return

// -----

// Nested forall: blocks, then threads, with a workgroup tile allocated per block.
func.func @blocks_then_threads(%a: memref<?x256xf32>, %n: index) {
  scf.forall (%bx, %by) in (%n, 4) {
    %tile = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    scf.forall (%tx) in (64) {
      %col = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%by, %tx)
      %v = memref.load %a[%bx, %col] : memref<?x256xf32>
      memref.store %v, %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    } {mapping = [#gpu.thread<x>]}
    memref.dealloc %tile : memref<64xf32, #gpu.address_space<workgroup>>
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
// CHECK-LABEL: func.func @blocks_then_threads(
// CHECK-SAME: [[N:%[\w]+]]: index
// CHECK-NEXT: scf.forall ([[BX:%[\w]+]], [[BY:%[\w]+]]) in ([[N]], 4) {
// CHECK-NEXT: [[T:%[\w]+]] = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: scf.forall ([[TX:%[\w]+]]) in (64) {
// CHECK-NEXT: affine.apply {{.*}}([[BY]], [[TX]])
// CHECK: memref.store {{%[\w]+}}, [[T]]{{\[}}[[TX]]]
// CHECK-NEXT: } {mapping = [#gpu.thread<x>]}
// CHECK-NEXT: memref.dealloc [[T]]
// CHECK-NEXT: } {mapping = [#gpu.block<y>, #gpu.block<x>]}

// -----

// A forall inside an scf.for, with a scratch buffer allocated per outer iteration.
func.func @forall_in_for(%buf: memref<8x32xf32>, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = memref.alloc() : memref<8x32xf32>
  scf.for %t = %c0 to %steps step %c1 {
    %scratch = memref.alloc() : memref<8x32xf32>
    scf.forall (%i, %j) in (8, 32) {
      %x = memref.load %buf[%i, %j] : memref<8x32xf32>
      %y = memref.load %acc[%i, %j] : memref<8x32xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %scratch[%i, %j] : memref<8x32xf32>
    }
    memref.copy %scratch, %acc : memref<8x32xf32> to memref<8x32xf32>
    memref.dealloc %scratch : memref<8x32xf32>
  }
  memref.dealloc %acc : memref<8x32xf32>
  return
}
// CHECK-LABEL: func.func @forall_in_for(
// CHECK: scf.for
// CHECK-NEXT: [[S:%[\w]+]] = memref.alloc() : memref<8x32xf32>
// CHECK-NEXT: scf.forall ([[I:%[\w]+]], [[J:%[\w]+]]) in (8, 32) {
// CHECK: memref.store {{%[\w]+}}, [[S]]{{\[}}[[I]], [[J]]] : memref<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: memref.copy [[S]]

// -----

// Explicit bounds mixing SSA values and constants; a dynamic alloc sized by an induction var.
func.func @explicit_bounds(%m: memref<?xf32>, %lb: index, %ub: index) {
  %c4 = arith.constant 4 : index
  scf.forall (%i, %k) = (%lb, 0) to (%ub, 16) step (%c4, 2) {
    %a = memref.alloc() : memref<4xf32>
    %b = memref.alloc(%k) : memref<?xf32>
    %v = memref.load %m[%i] : memref<?xf32>
    memref.store %v, %a[%k] : memref<4xf32>
    memref.dealloc %b : memref<?xf32>
    memref.dealloc %a : memref<4xf32>
  }
  return
}
// CHECK-LABEL: func.func @explicit_bounds(
// CHECK-SAME: [[LB:%[\w]+]]: index, [[UB:%[\w]+]]: index
// CHECK-NEXT: [[C4:%[\w]+]] = arith.constant 4 : index
// CHECK-NEXT: scf.forall ({{%[\w]+}}, [[K:%[\w]+]]) = ([[LB]], 0) to ([[UB]], 16) step ([[C4]], 2) {
// CHECK-NEXT: memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.alloc([[K]]) : memref<?xf32>

// -----

// Static zero lower bounds and unit steps print in the normalized `in (...)` form.
func.func @normalized_bounds(%n: index) {
  scf.forall (%i, %j) = (0, 0) to (%n, 8) step (1, 1) {
  }
  return
}
// CHECK-LABEL: func.func @normalized_bounds(
// CHECK-SAME: [[N:%[\w]+]]: index
// CHECK-NEXT: scf.forall ({{%[\w]+}}, {{%[\w]+}}) in ([[N]], 8) {
// CHECK-NEXT: }

// -----

// Atomic histogram update from every thread.
func.func @histogram(%data: memref<1024xindex>, %hist: memref<256xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  scf.forall (%i) in (1024) {
    %v = memref.load %data[%i] : memref<1024xindex>
    %old = memref.generic_atomic_rmw %hist[%v] : memref<256xf32> {
    ^bb0(%cur: f32):
      %new = arith.addf %cur, %one : f32
      memref.atomic_yield %new : f32
    }
  } {mapping = [#gpu.thread<x>]}
  return
}
// CHECK-LABEL: func.func @histogram(
// CHECK: [[V:%[\w]+]] = memref.load
// CHECK-NEXT: memref.generic_atomic_rmw {{%[\w]+}}{{\[}}[[V]]] : memref<256xf32> {
// CHECK-NEXT: ^bb0([[CUR:%[\w]+]]: f32):
// CHECK-NEXT: [[NEW:%[\w]+]] = arith.addf [[CUR]], {{%[\w]+}} : f32
// CHECK-NEXT: memref.atomic_yield [[NEW]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: } {mapping = [#gpu.thread<x>]}

// -----

// Tensor level: shared_outs give results, and the (empty) in_parallel terminator is printed.
func.func @shared_outs(%t: tensor<16x8xf32>, %u: tensor<4xf32>, %n: index) -> (tensor<16x8xf32>, tensor<4xf32>) {
  %r:2 = scf.forall (%i) = (0) to (%n) step (2) shared_outs(%o = %t, %p = %u) -> (tensor<16x8xf32>, tensor<4xf32>) {
  }
  return %r#0, %r#1 : tensor<16x8xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @shared_outs(
// CHECK-SAME: [[T:%[\w]+]]: tensor<16x8xf32>, [[U:%[\w]+]]: tensor<4xf32>, [[N:%[\w]+]]: index
// CHECK-NEXT: [[R:%[\w]+]]:2 = scf.forall ({{%[\w]+}}) = (0) to ([[N]]) step (2) shared_outs({{%[\w]+}} = [[T]], {{%[\w]+}} = [[U]]) -> (tensor<16x8xf32>, tensor<4xf32>) {
// CHECK-NEXT: scf.forall.in_parallel {
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]]#0, [[R]]#1

// -----

// Tensor level, as tiling produces it: slices of the shared output are written back by
// tensor.parallel_insert_slice in the in_parallel terminator.
func.func @tiled_relu(%in: tensor<64x128xf32>, %init: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %r = scf.forall (%i, %j) = (0, 0) to (64, 128) step (16, 32) shared_outs(%out = %init) -> (tensor<64x128xf32>) {
    %x = tensor.extract_slice %in[%i, %j] [16, 32] [1, 1] : tensor<64x128xf32> to tensor<16x32xf32>
    %o = tensor.extract_slice %out[%i, %j] [16, 32] [1, 1] : tensor<64x128xf32> to tensor<16x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%o : tensor<16x32xf32>) -> tensor<16x32xf32>
    %y = linalg.max ins(%x, %f : tensor<16x32xf32>, tensor<16x32xf32>) outs(%o : tensor<16x32xf32>) -> tensor<16x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %out[%i, %j] [16, 32] [1, 1] : tensor<16x32xf32> into tensor<64x128xf32>
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return %r : tensor<64x128xf32>
}
// CHECK-LABEL: func.func @tiled_relu(
// CHECK-SAME: [[INIT:%[\w]+]]: tensor<64x128xf32>) -> tensor<64x128xf32> {
// CHECK: [[R:%[\w]+]] = scf.forall ([[I:%[\w]+]], [[J:%[\w]+]]) = (0, 0) to (64, 128) step (16, 32) shared_outs([[OUT:%[\w]+]] = [[INIT]]) -> (tensor<64x128xf32>) {
// CHECK: [[Y:%[\w]+]] = linalg.max
// CHECK-NEXT: scf.forall.in_parallel {
// CHECK-NEXT: tensor.parallel_insert_slice [[Y]] into [[OUT]]{{\[}}[[I]], [[J]]] [16, 32] [1, 1] : tensor<16x32xf32> into tensor<64x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: } {mapping = [#gpu.block<y>, #gpu.block<x>]}
// CHECK-NEXT: return [[R]]

// -----

// Generic form in, custom form out; the empty in_parallel is elided.
func.func @from_generic(%n: index) {
  "scf.forall"(%n, %n) <{mapping = [#gpu.thread<y>, #gpu.thread<x>], operandSegmentSizes = array<i32: 0, 1, 1, 0>, staticLowerBound = array<i64: 0, 0>, staticStep = array<i64: 1, -9223372036854775808>, staticUpperBound = array<i64: 8, -9223372036854775808>}> ({
  ^bb0(%i: index, %j: index):
    "scf.forall.in_parallel"() ({
    ^bb0:
    }) : () -> ()
  }) : (index, index) -> ()
  scf.forall () in () {
  }
  return
}
// CHECK-LABEL: func.func @from_generic(
// CHECK-SAME: [[N:%[\w]+]]: index
// CHECK-NEXT: scf.forall ({{%[\w]+}}, {{%[\w]+}}) = (0, 0) to (8, [[N]]) step (1, [[N]]) {
// CHECK-NEXT: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK-NEXT: scf.forall () in () {
// CHECK-NEXT: }

// -----
func.func @iv_count(%n: index) {
  "scf.forall"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0, 0>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: -9223372036854775808>}> ({
  ^bb0(%i: index, %j: index):
    scf.forall.in_parallel {
    }
  }) : (index) -> ()
  return
}
// ERROR: 2:3: 'scf.forall' op region expects 1 arguments

// -----
func.func @mapping_rank(%n: index) {
  scf.forall (%i) in (%n) {
  } {mapping = [#gpu.thread<x>, #gpu.thread<y>]}
  return
}
// ERROR: 2:3: 'scf.forall' op mapping attribute size must match op rank

// -----
func.func @memref_shared_out(%m: memref<4xf32>) {
  %r = scf.forall (%i) in (4) shared_outs(%o = %m) -> (memref<4xf32>) {
  }
  return
}
// ERROR: 2: 'scf.forall' op operand #0 must be variadic of ranked tensor

// -----
func.func @non_combining_op(%n: index) {
  scf.forall (%i) in (%n) {
    scf.forall.in_parallel {
      %c = arith.constant 0 : index
    }
  }
  return
}
// ERROR: 3:5: 'scf.forall.in_parallel' op expected only ParallelCombiningOpInterface ops

// -----
func.func @shared_outs_count(%t: tensor<4xf32>) {
  %r = scf.forall (%i) in (4) shared_outs(%o = %t, %p = %t) -> (tensor<4xf32>) {
  }
  return
}
// ERROR: 2:
