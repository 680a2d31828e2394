// RUN: memplan opt %s --merge-alloc=analysis-only --mlir-print-op-generic
// analysis-only annotates every alloc with its scope, tick range and planned offset (or why it is
// skipped) and changes nothing else.
"builtin.module"() ({
  "func.func"() <{function_type = (f32) -> (), sym_name = "aligned"}> ({
  ^bb0(%arg0: f32):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg0, %1, %0) : (f32, memref<16xf32>, index) -> ()
    %3 = "memref.load"(%1, %0) : (memref<16xf32>, index) -> f32
    %2 = "memref.alloc"() <{alignment = 256 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8xf32>
    "memref.store"(%arg0, %2, %0) : (f32, memref<8xf32>, index) -> ()
    "memref.store"(%3, %2, %0) : (f32, memref<8xf32>, index) -> ()
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
    "memref.store"(%3, %4, %0) : (f32, memref<4xf32>, index) -> ()
    "memref.store"(%3, %2, %0) : (f32, memref<8xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> {memplan.scope = "@aligned func", memplan.ticks = array<i64: 4, 5>, memplan.offset = 0 : i64, memplan.arena_bytes = 80 : i64} : () -> memref<16xf32>
// CHECK: "memref.alloc"() <{alignment = 256 : i64, operandSegmentSizes = array<i32: 0, 0>}> {memplan.scope = "@aligned func", memplan.ticks = array<i64: 7, 11>, memplan.offset = 0 : i64, memplan.arena_bytes = 80 : i64} : () -> memref<8xf32>
// CHECK: "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> {memplan.scope = "@aligned func", memplan.ticks = array<i64: 10, 10>, memplan.offset = 64 : i64, memplan.arena_bytes = 80 : i64} : () -> memref<4xf32>
// CHECK-NOT: memref.view

// -----

// Skipped allocations say why, and --remarks prints the same reasons with their source position.
"builtin.module"() ({
  "func.func"() <{function_type = (memref<16xf32>) -> (), sym_name = "external", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (memref<16xf32>) -> (), sym_name = "internal"}> ({
  ^bb0(%arg4: memref<16xf32>):
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> memref<16xf32>, sym_name = "returned"}> ({
    %13 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "func.return"(%13) : (memref<16xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> memref<4xf32, strided<[1], offset: 4>>, sym_name = "returned_view"}> ({
    %11 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    %12 = "memref.subview"(%11) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 4>, static_sizes = array<i64: 4>, static_strides = array<i64: 1>}> : (memref<16xf32>) -> memref<4xf32, strided<[1], offset: 4>>
    "func.return"(%12) : (memref<4xf32, strided<[1], offset: 4>>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (index) -> (), sym_name = "yielded"}> ({
  ^bb0(%arg1: index):
    %6 = "arith.constant"() <{value = 0 : index}> : () -> index
    %7 = "arith.constant"() <{value = 1 : index}> : () -> index
    %8 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    %9 = "scf.for"(%6, %arg1, %7, %8) ({
    ^bb0(%arg2: index, %arg3: memref<16xf32>):
      %10 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
      "memref.copy"(%arg3, %10) : (memref<16xf32>, memref<16xf32>) -> ()
      "scf.yield"(%10) : (memref<16xf32>) -> ()
    }) : (index, index, index, memref<16xf32>) -> memref<16xf32>
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (memref<1xmemref<16xf32>>) -> (), sym_name = "stored"}> ({
  ^bb0(%arg0: memref<1xmemref<16xf32>>):
    %4 = "arith.constant"() <{value = 0 : index}> : () -> index
    %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%5, %arg0, %4) : (memref<16xf32>, memref<1xmemref<16xf32>>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "calls"}> ({
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "func.call"(%2) <{callee = @external}> : (memref<16xf32>) -> ()
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "func.call"(%3) <{callee = @internal}> : (memref<16xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = () -> index, sym_name = "pointer"}> ({
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    %1 = "memref.extract_aligned_pointer_as_index"(%0) : (memref<16xf32>) -> index
    "func.return"(%1) : (index) -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: memplan.skipped = "it is returned from the function"
// CHECK: memplan.skipped = "it is yielded out of a region by `scf.yield`"
// CHECK: memplan.skipped = "it is passed to the external function @external"
