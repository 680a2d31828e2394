// RUN: memplan opt %s --merge-alloc=alignment=128,planner=exact --mlir-print-op-generic --remarks 2>&1
// Pass options (mlir-opt style, here comma separated): every offset a multiple of 128, and an
// alloc's own {alignment = 256} honoured (max of both): the arena is 256-aligned, %b sits at 0.
"builtin.module"() ({
  "func.func"() <{function_type = (f32) -> (), sym_name = "aligned"}> ({
  ^bb0(%arg0: f32):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg0, %1, %0) : (f32, memref<16xf32>, index) -> ()
    %2 = "memref.alloc"() <{alignment = 256 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8xf32>
    "memref.store"(%arg0, %2, %0) : (f32, memref<8xf32>, index) -> ()
    %3 = "memref.load"(%1, %0) : (memref<16xf32>, index) -> f32
    "memref.store"(%3, %2, %0) : (f32, memref<8xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: [[ARENA:%[a-z0-9_]+]] = "memref.alloc"() <{alignment = 256 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<256xi8>
// CHECK-NEXT: [[O0:%[a-z0-9_]+]] = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-NEXT: [[O1:%[a-z0-9_]+]] = "arith.constant"() <{value = 128 : index}> : () -> index
// CHECK: "memref.view"([[ARENA]], [[O1]]) : (memref<256xi8>, index) -> memref<16xf32>
// CHECK: "memref.view"([[ARENA]], [[O0]]) : (memref<256xi8>, index) -> memref<8xf32>
// CHECK: {{.*}}:5:3: remark: merge-alloc: @aligned func: 2 buffers in a 256 B arena (sum 256 B, lower bound 256 B)
