// RUN: memplan opt %s --print-lifetimes
// The lifetime analysis printer: scope, first/last access tick (pre-order, inclusive), bytes and
// the planned offset of every memref.alloc, or why it is not merged. Inputs are generic form.

// A buffer allocated before an scf.for and used only inside an scf.if in the loop lives over the
// WHOLE loop (ticks 5..12 = the scf.for), so the per-iteration temporary (alloc#1) cannot share its
// bytes; the buffer after the loop (alloc#2) reuses them.
"builtin.module"() ({
  "func.func"() <{function_type = (index, i1, f32) -> (), sym_name = "loop_if"}> ({
  ^bb0(%arg0: index, %arg1: i1, %arg2: f32):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "scf.for"(%0, %arg0, %1) ({
    ^bb0(%arg3: index):
      "scf.if"(%arg1) ({
        %5 = "memref.load"(%2, %0) : (memref<16xf32>, index) -> f32
        "memref.store"(%5, %2, %1) : (f32, memref<16xf32>, index) -> ()
        "scf.yield"() : () -> ()
      }, {
      }) : (i1) -> ()
      %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
      "memref.store"(%arg2, %4, %0) : (f32, memref<16xf32>, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg2, %3, %0) : (f32, memref<16xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: // lifetime: @loop_if func alloc#0 ticks [5, 12] 64 B offset 0
// CHECK: // lifetime: @loop_if func alloc#1 ticks [11, 11] 64 B offset 64
// CHECK: // lifetime: @loop_if func alloc#2 ticks [14, 14] 64 B offset 0
// CHECK: // arena: @loop_if func 128 B (sum 192 B, lower bound 128 B)

// -----

// Seed 000's loop example: e and f, allocated outside, are accessed e f e f ... inside the loop and
// both live over the whole loop; g and h, allocated inside the second loop and used only there,
// are per-iteration and share bytes.
"builtin.module"() ({
  "func.func"() <{function_type = (index, f32) -> (), sym_name = "per_iteration"}> ({
  ^bb0(%arg0: index, %arg1: f32):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x64xf32>
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x64xf32>
    "scf.for"(%0, %arg0, %1) ({
    ^bb0(%arg3: index):
      "memref.store"(%arg1, %2, %0, %0) : (f32, memref<8x64xf32>, index, index) -> ()
      "memref.store"(%arg1, %3, %0, %0) : (f32, memref<8x64xf32>, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.for"(%0, %arg0, %1) ({
    ^bb0(%arg2: index):
      %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x64xf32>
      %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x64xf32>
      "memref.store"(%arg1, %4, %0, %0) : (f32, memref<8x64xf32>, index, index) -> ()
      "memref.store"(%arg1, %5, %0, %0) : (f32, memref<8x64xf32>, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: // lifetime: @per_iteration func alloc#0 ticks [6, 9] 2048 B offset 0
// CHECK: // lifetime: @per_iteration func alloc#1 ticks [6, 9] 2048 B offset 2048
// CHECK: // lifetime: @per_iteration func alloc#2 ticks [13, 13] 2048 B offset [[G:\d+]]
// CHECK: // lifetime: @per_iteration func alloc#3 ticks [14, 14] 2048 B offset [[G]]
// CHECK: // arena: @per_iteration func 4096 B

// -----

// Aliasing views: alloc#0 is only read through a subview and a collapse_shape long after they are
// created; it lives from the first to the last access through any view (12..16). Creating a view
// and memref.dim are not accesses, so alloc#1 and alloc#2, used before, may share its bytes.
"builtin.module"() ({
  "func.func"() <{function_type = (f32, memref<4xf32>) -> (), sym_name = "views"}> ({
  ^bb0(%arg0: f32, %arg1: memref<4xf32>):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    %2 = "memref.subview"(%1) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>}> : (memref<8x8xf32>) -> memref<4x4xf32, strided<[8, 1]>>
    %3 = "memref.cast"(%1) : (memref<8x8xf32>) -> memref<?x?xf32>
    %4 = "memref.collapse_shape"(%1) <{reassociation = [[0, 1]]}> : (memref<8x8xf32>) -> memref<64xf32>
    %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    "memref.store"(%arg0, %5, %0, %0) : (f32, memref<8x8xf32>, index, index) -> ()
    %6 = "memref.dim"(%1, %0) : (memref<8x8xf32>, index) -> index
    %7 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    "memref.store"(%arg0, %7, %0, %0) : (f32, memref<8x8xf32>, index, index) -> ()
    %8 = "memref.load"(%2, %0, %0) : (memref<4x4xf32, strided<[8, 1]>>, index, index) -> f32
    "memref.store"(%8, %arg1, %0) : (f32, memref<4xf32>, index) -> ()
    %9 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    "memref.store"(%arg0, %9, %0, %0) : (f32, memref<8x8xf32>, index, index) -> ()
    %10 = "memref.load"(%4, %6) : (memref<64xf32>, index) -> f32
    "memref.store"(%10, %arg1, %0) : (f32, memref<4xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: // lifetime: @views func alloc#0 ticks [12, 16] 256 B offset 0
// CHECK: // lifetime: @views func alloc#1 ticks [8, 8] 256 B offset 0
// CHECK: // lifetime: @views func alloc#2 ticks [11, 11] 256 B offset 0
// CHECK: // lifetime: @views func alloc#3 ticks [15, 15] 256 B offset 256
// CHECK: // arena: @views func 512 B

// -----

// Escaping buffers stay, each with its reason: returned (directly and through a view), yielded out
// of a loop, stored into memory, passed to an external function, pointer extracted. The loop's init
// buffer (flows into the loop, never yielded) and a buffer passed to a function with a body merge.
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
// CHECK: // lifetime: @returned func alloc#0 ticks none 64 B not merged: it is returned from the function
// CHECK: // lifetime: @returned_view func alloc#1 ticks none 64 B not merged: it is returned from the function
// CHECK: // lifetime: @yielded func alloc#2 ticks [15, 18] 64 B offset 0
// CHECK: // lifetime: @yielded func alloc#3 ticks [17, 17] 64 B not merged: it is yielded out of a region by `scf.yield`
// CHECK: // lifetime: @stored func alloc#4 ticks none 64 B not merged: it is stored into memory by `memref.store`
// CHECK: // lifetime: @calls func alloc#5 ticks none 64 B not merged: it is passed to the external function @external
// CHECK: // lifetime: @calls func alloc#6 ticks [29, 29] 64 B offset 0
// CHECK: // lifetime: @pointer func alloc#7 ticks none 64 B not merged: its address is taken by `memref.extract_aligned_pointer_as_index`

// -----

// Element sizes from the data layout: index 8 B, vector<4xf32> 16 B, i1 1 B, complex<f32> 8 B,
// i4 rounds up to 1 B, vector<3xf32> pads to 16 B; a zero-sized memref stays. All live at once:
// with 64-aligned offsets an arena would be larger than the buffers, so nothing merges.
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "types"}> ({
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<3xindex>
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2xvector<4xf32>>
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<5xi1>
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<3xcomplex<f32>>
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<10xi4>
    %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x3xvector<3xf32>>
    %6 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<0xf32>
    "test.use"(%0, %1, %2, %3, %4, %5, %6) : (memref<3xindex>, memref<2xvector<4xf32>>, memref<5xi1>, memref<3xcomplex<f32>>, memref<10xi4>, memref<2x3xvector<3xf32>>, memref<0xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: // lifetime: @types func alloc#0 ticks [9, 9] 24 B not merged: merging its scope would not save bytes (a 389 B arena for 191 B of buffers)
// CHECK: // lifetime: @types func alloc#1 ticks [9, 9] 32 B not merged: merging its scope would not save bytes (a 389 B arena for 191 B of buffers)
// CHECK: // lifetime: @types func alloc#2 ticks [9, 9] 5 B not merged: merging its scope would not save bytes (a 389 B arena for 191 B of buffers)
// CHECK: // lifetime: @types func alloc#3 ticks [9, 9] 24 B not merged: merging its scope would not save bytes (a 389 B arena for 191 B of buffers)
// CHECK: // lifetime: @types func alloc#4 ticks [9, 9] 10 B not merged: merging its scope would not save bytes (a 389 B arena for 191 B of buffers)
// CHECK: // lifetime: @types func alloc#5 ticks [9, 9] 96 B not merged: merging its scope would not save bytes (a 389 B arena for 191 B of buffers)
// CHECK: // lifetime: @types func alloc#6 ticks [9, 9] 0 B not merged: it has no bytes

// -----

// Dynamic shapes and non-identity layouts stay; a dealloc through arith.select that may free either
// of two buffers, both merged, simply goes (the arena is freed instead).
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
// CHECK: // lifetime: @dynamic func alloc#0 ticks [4, 4] not merged: its shape is dynamic
// CHECK: // lifetime: @dynamic func alloc#1 ticks [6, 6] 64 B not merged: its layout is not the identity
// CHECK: // lifetime: @dynamic func alloc#2 ticks [8, 8] 64 B offset 0
// CHECK: // lifetime: @dynamic func alloc#3 ticks [13, 13] 64 B offset 0
// CHECK: // lifetime: @dynamic func alloc#4 ticks [13, 13] 64 B offset 64

// -----

// Several scopes: the function body, the scf.parallel body and the scf.forall body each get their
// own problem; %g (function scope) is used inside the scf.parallel and lives over all of it.
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
// CHECK: // lifetime: @scopes func alloc#0 ticks [6, 16] 64 B offset 0
// CHECK: // lifetime: @scopes scf.parallel#0 alloc#1 ticks [10, 12] 64 B offset 0
// CHECK: // lifetime: @scopes scf.parallel#0 alloc#2 ticks [13, 14] 64 B offset 0
// CHECK: // lifetime: @scopes scf.forall#0 alloc#3 ticks [19, 19] 32 B offset 0
// CHECK: // lifetime: @scopes func alloc#4 ticks [22, 22] 64 B offset 0
// CHECK: // arena: @scopes func 64 B
// CHECK: // arena: @scopes scf.parallel#0 64 B
// CHECK: // arena: @scopes scf.forall#0 32 B

// -----

// Bad input: an unknown op with regions touching a buffer and an alloc inside one are left alone
// with a reason; the rest of the function still merges. Allocs in a multi-block function body get
// their liveness from the CFG: %1 is used only in ^bb1, %2 only in ^bb2, so they share.
"builtin.module"() ({
  "func.func"() <{function_type = (f32) -> (), sym_name = "unknown_region"}> ({
  ^bb0(%arg2: f32):
    %3 = "arith.constant"() <{value = 0 : index}> : () -> index
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "test.region"() ({
      "memref.store"(%arg2, %4, %3) : (f32, memref<16xf32>, index) -> ()
      "test.terminator"() : () -> ()
    }) : () -> ()
    "test.region"() ({
      %6 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
      "memref.store"(%arg2, %6, %3) : (f32, memref<16xf32>, index) -> ()
      "test.terminator"() : () -> ()
    }) : () -> ()
    %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg2, %5, %3) : (f32, memref<16xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (f32, i1) -> (), sym_name = "unstructured"}> ({
  ^bb0(%arg0: f32, %arg1: i1):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "cf.cond_br"(%arg1)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  ^bb1:  // pred: ^bb0
    "memref.store"(%arg0, %1, %0) : (f32, memref<16xf32>, index) -> ()
    "cf.br"()[^bb2] : () -> ()
  ^bb2:  // 2 preds: ^bb0, ^bb1
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
    "memref.store"(%arg0, %2, %0) : (f32, memref<16xf32>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: // lifetime: @unknown_region func alloc#0 ticks [4, 6] 64 B not merged: it is used by or inside `test.region`, an op with regions the pass does not understand
// CHECK: // lifetime: @unknown_region - alloc#1 ticks [9, 9] 64 B not merged: it is used by or inside `test.region`, an op with regions the pass does not understand
// CHECK: // lifetime: @unknown_region func alloc#2 ticks [12, 12] 64 B offset 0
// CHECK: // lifetime: @unstructured func alloc#3 ticks [18, 18] 64 B offset 0
// CHECK: // lifetime: @unstructured func alloc#4 ticks [21, 21] 64 B offset 0
