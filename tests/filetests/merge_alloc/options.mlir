// RUN: memplan opt %s --merge-alloc=alignment=128,planner=exact --mlir-print-op-generic --remarks 2>&1
// Pass options (mlir-opt style, here comma separated): every offset a multiple of 128, and an
// alloc's own {alignment = 256} honoured (max of both): the arena is 256-aligned and %2 sits at a
// multiple of 256; %4 reuses %1's bytes.
"builtin.module"() ({
  "func.func"() <{function_type = (f32) -> (), sym_name = "aligned"}> ({
  ^bb0(%arg0: f32):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
    "memref.store"(%arg0, %1, %0) : (f32, memref<64xf32>, index) -> ()
    %2 = "memref.alloc"() <{alignment = 256 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<32xf32>
    "memref.store"(%arg0, %2, %0) : (f32, memref<32xf32>, index) -> ()
    %3 = "memref.load"(%1, %0) : (memref<64xf32>, index) -> f32
    "memref.store"(%3, %2, %0) : (f32, memref<32xf32>, index) -> ()
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
    "memref.store"(%3, %4, %0) : (f32, memref<64xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: [[ARENA:%[a-z0-9_]+]] = "memref.alloc"() <{alignment = 256 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<384xi8>
// CHECK-NEXT: [[O0:%[a-z0-9_]+]] = "arith.constant"() <{value = 0 : index}> : () -> index
// CHECK-NEXT: [[O1:%[a-z0-9_]+]] = "arith.constant"() <{value = 256 : index}> : () -> index
// CHECK: "memref.view"([[ARENA]], [[O0]]) : (memref<384xi8>, index) -> memref<64xf32>
// CHECK: "memref.view"([[ARENA]], [[O1]]) : (memref<384xi8>, index) -> memref<32xf32>
// CHECK: "memref.view"([[ARENA]], [[O0]]) : (memref<384xi8>, index) -> memref<64xf32>
// CHECK: {{.*}}:6:3: remark: merge-alloc: @aligned func: 3 buffers in a 384 B arena (sum 640 B, lower bound 384 B)
