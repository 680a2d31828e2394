// RUN: memplan opt %s --merge-alloc --mlir-print-op-generic
// The rewrite: one i8 arena at the start of each scope, one arith.constant per distinct offset, a
// memref.view in place of every merged alloc; generic output so the checks do not depend on which
// custom printers exist.

// The seed's own example (seed 000): four 128x128xf32 matmuls; a0, b0, c0 merge into exactly
// 2 x 65536 bytes (c0 reuses a0's bytes), d0 is returned and stays.
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x128xf32>, memref<128x128xf32>) -> memref<128x128xf32>, sym_name = "mlp"}> ({
  ^bb0(%arg0: memref<128x128xf32>, %arg1: memref<128x128xf32>):
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<128x128xf32>
    "linalg.matmul"(%arg0, %arg1, %0) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg11: f32, %arg12: f32, %arg13: f32):
      %10 = "arith.mulf"(%arg11, %arg12) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %11 = "arith.addf"(%arg13, %10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%11) : (f32) -> ()
    }) : (memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32>) -> ()
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<128x128xf32>
    "linalg.matmul"(%0, %arg1, %1) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg8: f32, %arg9: f32, %arg10: f32):
      %8 = "arith.mulf"(%arg8, %arg9) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %9 = "arith.addf"(%arg10, %8) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%9) : (f32) -> ()
    }) : (memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32>) -> ()
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<128x128xf32>
    "linalg.matmul"(%1, %arg1, %2) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg5: f32, %arg6: f32, %arg7: f32):
      %6 = "arith.mulf"(%arg5, %arg6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %7 = "arith.addf"(%arg7, %6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%7) : (f32) -> ()
    }) : (memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32>) -> ()
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<128x128xf32>
    "linalg.matmul"(%2, %arg1, %3) <{indexing_maps = [#map, #map1, #map2], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
      %4 = "arith.mulf"(%arg2, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %5 = "arith.addf"(%arg4, %4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%5) : (f32) -> ()
    }) : (memref<128x128xf32>, memref<128x128xf32>, memref<128x128xf32>) -> ()
    "func.return"(%3) : (memref<128x128xf32>) -> ()
  }) : () -> ()
}) : () -> ()
// CHECK-LABEL: sym_name = "mlp"
// CHECK: [[ARENA:%[a-z0-9_]+]] = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<131072xi8>
// CHECK-NEXT: [[O0:%[a-z0-9_]+]] = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-NEXT: [[O1:%[a-z0-9_]+]] = "arith.constant"() <{value = 65536 : index}> : () -> index
// CHECK-NEXT: "memref.view"([[ARENA]], [[O0]]) : (memref<131072xi8>, index) -> memref<128x128xf32>
// CHECK: "memref.view"([[ARENA]], [[O1]]) : (memref<131072xi8>, index) -> memref<128x128xf32>
// CHECK: "memref.view"([[ARENA]], [[O0]]) : (memref<131072xi8>, index) -> memref<128x128xf32>
// CHECK: [[D:%[a-z0-9_]+]] = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<128x128xf32>
// CHECK-NOT: "memref.alloc"
// CHECK: "func.return"([[D]])

// -----

// Existing deallocs: the merged buffers' memref.deallocs go (also one through a memref.cast, and
// the per-iteration one inside the loop), and the arena is freed once before the return.
"builtin.module"() ({
  "func.func"() <{function_type = (f32, index) -> (), sym_name = "deallocs"}> ({
  ^bb0(%arg0: f32, %arg1: index):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg0, %2, %0) : (f32, memref<16xf32>, index) -> ()
    "memref.dealloc"(%2) : (memref<16xf32>) -> ()
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<32xf32>
    "memref.store"(%arg0, %3, %0) : (f32, memref<32xf32>, index) -> ()
    "scf.for"(%0, %arg1, %1) ({
    ^bb0(%arg2: index):
      %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
      "memref.store"(%arg0, %5, %0) : (f32, memref<4xf32>, index) -> ()
      "memref.dealloc"(%5) : (memref<4xf32>) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    %4 = "memref.cast"(%3) : (memref<32xf32>) -> memref<?xf32>
    "memref.dealloc"(%4) : (memref<?xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK-LABEL: sym_name = "deallocs"
// CHECK: [[ARENA:%[a-z0-9_]+]] = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<128xi8>
// CHECK-NOT: "memref.alloc"
// CHECK-NOT: "memref.dealloc"
// CHECK: "scf.for"
// CHECK: "memref.view"([[ARENA]], {{%[a-z0-9_]+}}) : (memref<128xi8>, index) -> memref<4xf32>
// CHECK-NOT: "memref.dealloc"
// CHECK: "scf.yield"
// CHECK-NOT: "memref.dealloc"
// CHECK: "memref.dealloc"([[ARENA]]) : (memref<128xi8>) -> ()
// CHECK-NEXT: "func.return"

// -----

// Several scopes: the function arena at the top of the body, and a per-iteration arena at the top
// of the scf.parallel and scf.forall bodies (never hoisted out of a parallel body).
"builtin.module"() ({
  "func.func"() <{function_type = (f32, memref<8x16xf32>) -> (), sym_name = "scopes"}> ({
  ^bb0(%arg0: f32, %arg1: memref<8x16xf32>):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "arith.constant"() <{value = 8 : index}> : () -> index
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg0, %3, %0) : (f32, memref<16xf32>, index) -> ()
    "scf.parallel"(%0, %2, %1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%arg3: index):
      %6 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
      %7 = "memref.load"(%3, %0) : (memref<16xf32>, index) -> f32
      "memref.store"(%7, %6, %0) : (f32, memref<16xf32>, index) -> ()
      %8 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
      %9 = "memref.load"(%6, %0) : (memref<16xf32>, index) -> f32
      "memref.store"(%9, %8, %0) : (f32, memref<16xf32>, index) -> ()
      %10 = "memref.load"(%8, %0) : (memref<16xf32>, index) -> f32
      "memref.store"(%10, %arg1, %arg3, %0) : (f32, memref<8x16xf32>, index, index) -> ()
      "scf.reduce"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.forall"() <{operandSegmentSizes = array<i32: 0, 0, 0, 0>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 4>}> ({
    ^bb0(%arg2: index):
      %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8xf32>
      "memref.store"(%arg0, %5, %0) : (f32, memref<8xf32>, index) -> ()
      "scf.forall.in_parallel"() ({
      ^bb0:
      }) : () -> ()
    }) : () -> ()
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg0, %4, %0) : (f32, memref<16xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK-LABEL: sym_name = "scopes"
// CHECK: [[F:%[a-z0-9_]+]] = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xi8>
// CHECK: "scf.parallel"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: [[P:%[a-z0-9_]+]] = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xi8>
// CHECK: "memref.view"([[P]]
// CHECK: "memref.view"([[P]]
// CHECK: "scf.forall"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: [[Q:%[a-z0-9_]+]] = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<32xi8>
// CHECK: "memref.view"([[Q]]
// CHECK: "memref.view"([[F]]
// CHECK-NOT: "memref.alloc"

// -----

// Dynamic shapes and non-identity layouts are untouched; the two buffers behind the dealloc through
// arith.select both merge, the dealloc goes and the arena is freed instead.
"builtin.module"() ({
  "func.func"() <{function_type = (index, f32) -> (), sym_name = "dynamic"}> ({
  ^bb0(%arg0: index, %arg1: f32):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "memref.alloc"(%arg0) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> memref<?xf32>
    "memref.store"(%arg1, %1, %0) : (f32, memref<?xf32>, index) -> ()
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4x4xf32, strided<[1, 4]>>
    "memref.store"(%arg1, %2, %0, %0) : (f32, memref<4x4xf32, strided<[1, 4]>>, index, index) -> ()
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg1, %3, %0) : (f32, memref<16xf32>, index) -> ()
    %4 = "arith.cmpi"(%arg0, %0) <{predicate = 0 : i64}> : (index, index) -> i1
    %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    %6 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    %7 = "arith.select"(%4, %5, %6) : (i1, memref<16xf32>, memref<16xf32>) -> memref<16xf32>
    "memref.store"(%arg1, %7, %0) : (f32, memref<16xf32>, index) -> ()
    "memref.dealloc"(%7) : (memref<16xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK-LABEL: sym_name = "dynamic"
// CHECK: [[A:%[a-z0-9_]+]] = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<128xi8>
// CHECK: "memref.alloc"(%arg0) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> memref<?xf32>
// CHECK: "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4x4xf32, strided<[1, 4]>>
// CHECK: "memref.view"
// CHECK: "memref.view"
// CHECK: "memref.view"
// CHECK: "arith.select"
// CHECK: "memref.dealloc"([[A]])
// CHECK-NEXT: "func.return"
