//! MLIR's C++ verifier rules that memplan re-implements for table ops
//! (`crates/memplan-ir/src/cpp_rules/` and the rank/shape traits of `ods/verify.rs`), found by
//! differential fuzzing (`scripts/fuzz_ods.py`). Every case states memplan's verdict (accept,
//! or reject with a message fragment); with `mlir-opt-22` installed the same case goes
//! through it too and must get the same verdict and, when rejected, the same message
//! fragment. Without the tool that half is skipped unless `MEMPLAN_REQUIRE_MLIR=1`.

mod common;

use common::memplan_verdict;

/// (module text, `None` = accepted / `Some(fragment)` = rejected with this message)
type Case = (&'static str, Option<&'static str>);

const CASES: &[Case] = &[
    // arith.scaling_extf / scaling_truncf: cast compatibility (width, shape)
    ("func.func @f(%h: f16, %s: f8E8M0FNU) {\n  %0 = arith.scaling_extf %h, %s : f16, f8E8M0FNU to f32\n  return\n}", None),
    ("func.func @f(%v: vector<4xf8E5M2>, %s: vector<4xf8E8M0FNU>) {\n  %0 = arith.scaling_extf %v, %s : vector<4xf8E5M2>, vector<4xf8E8M0FNU> to vector<4xf32>\n  return\n}", None),
    ("func.func @f(%a: f32, %s: f8E8M0FNU) {\n  %0 = arith.scaling_extf %a, %s : f32, f8E8M0FNU to f16\n  return\n}", Some("operand types 'f32', 'f8E8M0FNU' and result type 'f16' are cast incompatible")),
    ("func.func @f(%v: vector<4xf8E5M2>, %s: vector<4xf8E8M0FNU>) {\n  %0 = arith.scaling_extf %v, %s : vector<4xf8E5M2>, vector<4xf8E8M0FNU> to vector<2xf32>\n  return\n}", Some("are cast incompatible")),
    ("func.func @f(%a: f32, %s: f8E8M0FNU) {\n  %0 = arith.scaling_truncf %a, %s : f32, f8E8M0FNU to f16\n  return\n}", None),
    ("func.func @f(%h: f16, %s: f8E8M0FNU) {\n  %0 = arith.scaling_truncf %h, %s : f16, f8E8M0FNU to f32\n  return\n}", Some("operand types 'f16', 'f8E8M0FNU' and result type 'f32' are cast incompatible")),
    // symbol references that must name a particular kind of op
    ("async.func @g(%a: i64) -> !async.token {\n  async.return\n}\nfunc.func @f(%a: i64) {\n  %t = async.call @g(%a) : (i64) -> !async.token\n  return\n}", None),
    ("func.func @g(%a: i64) {\n  return\n}\nfunc.func @f(%a: i64) {\n  \"async.call\"(%a) <{callee = @g}> : (i64) -> ()\n  return\n}", Some("'g' does not reference a valid async function")),
    ("func.func @f(%a: i64) {\n  \"async.call\"(%a) <{callee = @sym}> : (i64) -> ()\n  return\n}", Some("'sym' does not reference a valid async function")),
    ("llvm.mlir.global external @g(0 : i32) : i32\nllvm.func @h()\nfunc.func @f() {\n  %0 = llvm.mlir.addressof @g : !llvm.ptr\n  %1 = llvm.mlir.addressof @h : !llvm.ptr\n  return\n}", None),
    ("func.func @f() {\n  %0 = llvm.mlir.addressof @f : !llvm.ptr\n  return\n}", Some("must reference a global defined by 'llvm.mlir.global', 'llvm.mlir.alias' or 'llvm.func' or 'llvm.mlir.ifunc'")),
    ("func.func @f() {\n  %0 = llvm.mlir.addressof @nothing : !llvm.ptr\n  return\n}", Some("must reference a global defined by")),
    ("llvm.mlir.global external @g(0 : i32) {addr_space = 3 : i32} : i32\nfunc.func @f() {\n  %0 = llvm.mlir.addressof @g : !llvm.ptr\n  return\n}", Some("pointer address space must match address space of the referenced global")),
    ("llvm.func @h()\nfunc.func @f() {\n  %0 = llvm.dso_local_equivalent @h : !llvm.ptr\n  return\n}", None),
    ("llvm.mlir.global external @g(0 : i32) : i32\nfunc.func @f() {\n  %0 = llvm.dso_local_equivalent @g : !llvm.ptr\n  return\n}", Some("must reference a global defined by 'llvm.func' or 'llvm.mlir.alias'")),
    // llvm.landingpad
    ("func.func @f(%a: !llvm.ptr) {\n  %0 = llvm.mlir.zero : !llvm.ptr\n  %1 = \"llvm.landingpad\"(%0) : (!llvm.ptr) -> !llvm.struct<(ptr, i32)>\n  %2 = \"llvm.landingpad\"() <{cleanup}> : () -> !llvm.struct<(ptr, i32)>\n  return\n}", None),
    ("func.func @f() {\n  %0 = \"llvm.landingpad\"() : () -> i32\n  return\n}", Some("landingpad instruction expects at least one clause or cleanup attribute")),
    ("func.func @f(%a: f32) {\n  %0 = \"llvm.landingpad\"(%a) : (f32) -> i64\n  return\n}", Some("clause #0 is not a known constant - null, addressof, bitcast")),
    ("llvm.func @f() {\n  %1 = \"llvm.landingpad\"() <{cleanup}> : () -> !llvm.struct<(ptr, i32)>\n  llvm.return\n}", Some("llvm.landingpad needs to be in a function with a personality")),
    // llvm.intr.sincos
    ("func.func @f(%a: f32) {\n  %0 = llvm.intr.sincos(%a) : (f32) -> !llvm.struct<(f32, f32)>\n  return\n}", None),
    ("func.func @f(%a: f64) {\n  %0 = \"llvm.intr.sincos\"(%a) : (f64) -> i64\n  return\n}", Some("expected result type to be an homogeneous struct with two elements matching the operand type, but got 'i64'")),
    ("func.func @f(%a: f64) {\n  %0 = \"llvm.intr.sincos\"(%a) : (f64) -> !llvm.struct<(f32, f32)>\n  return\n}", Some("homogeneous struct")),
    // llvm.load / llvm.store / llvm.fence: atomic accesses
    ("func.func @f(%p: !llvm.ptr, %x: i32) {\n  %0 = llvm.load %p atomic syncscope(\"agent\") acquire {alignment = 4 : i64} : !llvm.ptr -> i32\n  %1 = llvm.load %p atomic acquire {alignment = 2 : i64} : !llvm.ptr -> bf16\n  llvm.store %x, %p atomic release {alignment = 4 : i64} : i32, !llvm.ptr\n  %2 = llvm.load %p atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr\n  return\n}", None),
    ("func.func @f(%p: !llvm.ptr) {\n  %0 = \"llvm.load\"(%p) <{syncscope = \"agent\"}> : (!llvm.ptr) -> i32\n  return\n}", Some("expected syncscope to be null for non-atomic access")),
    ("func.func @f(%p: !llvm.ptr, %x: i32) {\n  \"llvm.store\"(%x, %p) <{syncscope = \"agent\"}> : (i32, !llvm.ptr) -> ()\n  return\n}", Some("expected syncscope to be null for non-atomic access")),
    ("func.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p atomic release {alignment = 4 : i64} : !llvm.ptr -> i32\n  return\n}", Some("unsupported ordering 'release'")),
    ("func.func @f(%p: !llvm.ptr, %x: i32) {\n  llvm.store %x, %p atomic acquire {alignment = 4 : i64} : i32, !llvm.ptr\n  return\n}", Some("unsupported ordering 'acquire'")),
    ("func.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p atomic acquire : !llvm.ptr -> i32\n  return\n}", Some("expected alignment for atomic access")),
    ("func.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i1\n  return\n}", Some("unsupported type 'i1' for atomic access")),
    ("func.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p atomic acquire {alignment = 4 : i64} : !llvm.ptr -> vector<2xi32>\n  return\n}", Some("unsupported type 'vector<2xi32>' for atomic access")),
    ("func.func @f() {\n  llvm.fence syncscope(\"agent\") seq_cst\n  return\n}", None),
    ("func.func @f() {\n  llvm.fence monotonic\n  return\n}", Some("can be given only acquire, release, acq_rel, and seq_cst orderings")),
    // amdgpu
    ("func.func @f(%m: memref<4xf32>) {\n  %0 = amdgpu.fat_raw_buffer_cast %m : memref<4xf32> to memref<4xf32, #amdgpu.address_space<fat_raw_buffer>>\n  return\n}", None),
    ("func.func @f(%m: memref<4xf32>) {\n  %0 = \"amdgpu.fat_raw_buffer_cast\"(%m) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (memref<4xf32>) -> memref<4xf32>\n  return\n}", Some("expected result type to be 'memref<4xf32, #amdgpu.address_space<fat_raw_buffer>>' but got 'memref<4xf32>'")),
    ("func.func @f(%m: memref<4xf32, strided<[1], offset: 2>>) {\n  %0 = amdgpu.fat_raw_buffer_cast %m resetOffset : memref<4xf32, strided<[1], offset: 2>> to memref<4xf32, #amdgpu.address_space<fat_raw_buffer>>\n  return\n}", None),
    ("func.func @f(%m: memref<4xf32, strided<[1], offset: 2>>) {\n  %0 = amdgpu.fat_raw_buffer_cast %m resetOffset : memref<4xf32, strided<[1], offset: 2>> to memref<4xf32, strided<[1]>, #amdgpu.address_space<fat_raw_buffer>>\n  return\n}", Some("but got 'memref<4xf32, strided<[1]>, #amdgpu.address_space<fat_raw_buffer>>'")),
    ("func.func @f(%s: memref<8xf32>, %d: memref<8xf32, 3>, %i: index) {\n  amdgpu.gather_to_lds %s[%i], %d[%i] : f32, memref<8xf32>, memref<8xf32, 3>\n  return\n}", None),
    ("func.func @f(%s: memref<8xi32>, %d: memref<8xf32, 3>, %i: index) {\n  amdgpu.gather_to_lds %s[%i], %d[%i] : f32, memref<8xi32>, memref<8xf32, 3>\n  return\n}", Some("source and destination element types must match")),
    ("func.func @f(%s: memref<8xf32>, %d: memref<8xf32>, %i: index) {\n  amdgpu.gather_to_lds %s[%i], %d[%i] : f32, memref<8xf32>, memref<8xf32>\n  return\n}", Some("destination memory address space must be Workgroup")),
    // nvvm
    ("func.func @f(%a: f32, %b: f32) {\n  %0 = nvvm.convert.f32x2.to.f4x2 %a, %b : i8 (f4E2M1FN)\n  return\n}", None),
    ("func.func @f(%a: f32, %b: f32) {\n  %0 = \"nvvm.convert.f32x2.to.f4x2\"(%a, %b) <{dstTy = f32}> : (f32, f32) -> i8\n  return\n}", Some("Only 'f4E2M1FN' type is supported for conversions from f32x2 to f4x2.")),
    ("func.func @f(%a: f32, %b: f32) {\n  %0 = \"nvvm.convert.f32x2.to.f6x2\"(%a, %b) <{dstTy = f8E4M3FN}> : (f32, f32) -> i16\n  return\n}", Some("Only 'f6E2M3FN' and 'f6E3M2FN' types are supported for conversions from f32x2 to f6x2.")),
    ("func.func @f(%v: vector<2xbf16>) {\n  %0 = \"nvvm.convert.bf16x2.to.f8x2\"(%v) <{dstTy = f8E8M0FNU, rnd = #nvvm.fp_rnd_mode<rn>}> : (vector<2xbf16>) -> i16\n  return\n}", Some("Only RZ and RP rounding modes are supported for conversions from bf16x2 to f8x2.")),
    ("func.func @f(%a: f32, %b: f32) {\n  %0 = \"nvvm.convert.f32x2.to.f8x2\"(%a, %b) <{dstTy = f8E4M3FN, rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>}> : (f32, f32) -> i16\n  return\n}", None),
    ("func.func @f(%a: f32, %b: f32) {\n  %0 = \"nvvm.convert.f32x2.to.f8x2\"(%a, %b) <{dstTy = f8E4M3FN, rnd = #nvvm.fp_rnd_mode<rz>, sat = #nvvm.sat_mode<satfinite>}> : (f32, f32) -> i16\n  return\n}", Some("Only RN rounding mode is supported for conversions from f32x2 to 'f8E4M3FN' and 'f8E5M2' types")),
    ("func.func @f(%a: vector<2xi8>) {\n  %0 = \"nvvm.convert.f8x2.to.f16x2\"(%a) <{srcType = f8E8M0FNU}> : (vector<2xi8>) -> vector<2xf16>\n  return\n}", Some("types are supported for conversions from f8x2 to f16x2.")),
    ("func.func @f(%a: f32) {\n  %0 = nvvm.convert.float.to.tf32 %a {rnd = #nvvm.fp_rnd_mode<rz>}\n  return\n}", None),
    ("func.func @f(%a: f32) {\n  %0 = nvvm.convert.float.to.tf32 %a {rnd = #nvvm.fp_rnd_mode<rs>}\n  return\n}", Some("rounding modes supported for ConvertFloatToTF32Op.")),
    ("func.func @f() {\n  nvvm.pmevent id = 3\n  nvvm.pmevent mask = 5\n  return\n}", None),
    ("func.func @f() {\n  \"nvvm.pmevent\"() : () -> ()\n  return\n}", Some("either `id` or `mask` must be set")),
    ("func.func @f() {\n  \"nvvm.pmevent\"() <{eventId = 3 : i32, maskedEventId = 1 : i16}> : () -> ()\n  return\n}", Some("`id` and `mask` cannot be set at the same time")),
    ("func.func @f() {\n  \"nvvm.pmevent\"() <{eventId = 16 : i32}> : () -> ()\n  return\n}", Some("`id` must be between 0 and 15")),
    ("func.func @f(%p: !llvm.ptr, %n: i64) {\n  nvvm.st.bulk %p, size = %n : !llvm.ptr\n  return\n}", None),
    ("func.func @f(%p: !llvm.ptr, %n: i64) {\n  \"nvvm.st.bulk\"(%p, %n) <{initVal = 7 : i64}> : (!llvm.ptr, i64) -> ()\n  return\n}", Some("only 0 is supported for initVal, got 7")),
    ("func.func @f(%a: i32, %b: i32, %s: i32) {\n  %0 = nvvm.prmt #nvvm.permute_mode<default> %s, %a, %b : i32\n  %1 = nvvm.prmt #nvvm.permute_mode<ecl> %s, %a : i32\n  return\n}", None),
    ("func.func @f(%a: i32, %b: i32, %s: i32) {\n  %0 = \"nvvm.prmt\"(%a, %b, %s) <{mode = #nvvm.permute_mode<ecl>}> : (i32, i32, i32) -> i32\n  return\n}", Some("mode 'ecl' does not accept 'hi' operand.")),
    ("func.func @f(%a: i32, %s: i32) {\n  %0 = \"nvvm.prmt\"(%a, %s) <{mode = #nvvm.permute_mode<f4e>}> : (i32, i32) -> i32\n  return\n}", Some("mode 'f4e' requires 'hi' operand.")),
    ("func.func @f(%a: i32, %b: i32) {\n  nvvm.barrier id = %a number_of_threads = %b\n  %r = nvvm.barrier #nvvm.reduction<and> %b -> i32\n  return\n}", None),
    ("func.func @f(%a: i32) {\n  \"nvvm.barrier\"(%a) <{operandSegmentSizes = array<i32: 0, 0, 1>}> : (i32) -> ()\n  return\n}", Some("reduction predicate and reduction operation must be specified together")),
    ("func.func @f(%a: i32, %b: i32) {\n  \"nvvm.barrier\"(%a, %b) <{reductionOp = #nvvm.reduction<and>, operandSegmentSizes = array<i32: 1, 0, 1>}> : (i32, i32) -> ()\n  return\n}", Some("reduction are only available when id is 0")),
    ("func.func @f(%b: i32) {\n  \"nvvm.barrier\"(%b) <{operandSegmentSizes = array<i32: 0, 1, 0>}> : (i32) -> ()\n  return\n}", Some("barrier id is missing, it should be set between 0 to 15")),
    ("func.func @f() {\n  nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}\n  nvvm.fence.proxy {kind = #nvvm.proxy_kind<alias>}\n  nvvm.fence.proxy.release #nvvm.mem_scope<cta>\n  return\n}", None),
    ("func.func @f() {\n  \"nvvm.fence.proxy\"() <{kind = #nvvm.proxy_kind<async.shared>}> : () -> ()\n  return\n}", Some("async_shared fence requires space attribute")),
    ("func.func @f() {\n  \"nvvm.fence.proxy\"() <{kind = #nvvm.proxy_kind<generic>}> : () -> ()\n  return\n}", Some("generic proxy not a supported proxy kind")),
    ("func.func @f() {\n  \"nvvm.fence.proxy\"() <{kind = #nvvm.proxy_kind<tensormap>}> : () -> ()\n  return\n}", Some("tensormap proxy is not a supported proxy kind")),
    ("func.func @f() {\n  \"memref.distinct_objects\"() : () -> ()\n  return\n}", Some("expected at least one operand")),
    ("func.func @f() {\n  \"nvvm.fence.proxy\"() <{kind = #nvvm.proxy_kind<alias>, space = #nvvm.shared_space<cta>}> : () -> ()\n  return\n}", Some("only async_shared fence can have space attribute")),
    ("func.func @f() {\n  \"nvvm.fence.proxy.release\"() <{scope = #nvvm.mem_scope<gpu>, fromProxy = #nvvm.proxy_kind<async.global>}> : () -> ()\n  return\n}", Some("uni-directional proxies only support generic for from_proxy attribute")),
    ("func.func @f() {\n  \"nvvm.fence.proxy.release\"() <{scope = #nvvm.mem_scope<gpu>, toProxy = #nvvm.proxy_kind<async>}> : () -> ()\n  return\n}", Some("uni-directional proxies only support tensormap for to_proxy attribute")),
    // gpu
    ("func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {\n  gpu.memcpy %a, %b : memref<4xf32>, memref<4xf32>\n  return\n}", None),
    ("func.func @f(%a: memref<4xf32>, %b: memref<4xi32>) {\n  \"gpu.memcpy\"(%a, %b) : (memref<4xf32>, memref<4xi32>) -> ()\n  return\n}", Some("arguments have incompatible element type")),
    ("func.func @f(%a: memref<4xf32>, %b: memref<8xf32>) {\n  \"gpu.memcpy\"(%a, %b) : (memref<4xf32>, memref<8xf32>) -> ()\n  return\n}", Some("arguments have incompatible shape")),
    ("func.func @f(%x: f32, %l: i32) {\n  %0 = gpu.subgroup_broadcast %x, specific_lane %l : f32\n  %1 = gpu.subgroup_broadcast %x, first_active_lane : f32\n  return\n}", None),
    ("func.func @f(%x: f32) {\n  %0 = \"gpu.subgroup_broadcast\"(%x) <{broadcast_type = #gpu<broadcast specific_lane>}> : (f32) -> f32\n  return\n}", Some("lane must be specified for `specific_lane` broadcast")),
    ("func.func @f(%x: i64, %l: i32) {\n  %0 = \"gpu.subgroup_broadcast\"(%x, %l) <{broadcast_type = #gpu<broadcast first_active_lane>}> : (i64, i32) -> i64\n  return\n}", Some("lane can only be specified for `specific_lane` broadcast")),
    ("func.func @f(%x: f32) {\n  %0:2 = \"gpu.rotate\"(%x) <{offset = 7 : i32, width = 4 : i32}> : (f32) -> (f32, i1)\n  return\n}", Some("offset must be in the range [0, 4)")),
    // bufferization, memref
    ("func.func @f(%t: tensor<4xf32>, %m: memref<4xf32>) {\n  bufferization.materialize_in_destination %t in writable %m : (tensor<4xf32>, memref<4xf32>) -> ()\n  return\n}", None),
    ("func.func @f(%t: tensor<4xf32>, %m: memref<4xf32>) {\n  \"bufferization.materialize_in_destination\"(%t, %m) : (tensor<4xf32>, memref<4xf32>) -> ()\n  return\n}", Some("'writable' must be specified if and only if the destination is of memref type")),
    ("func.func @f(%m: memref<*xf32>) {\n  %0 = memref.cast %m : memref<*xf32> to memref<4xf32>\n  return\n}", None),
    ("func.func @f(%m: memref<*xf32>) {\n  %0 = \"memref.cast\"(%m) : (memref<*xf32>) -> memref<*xf32>\n  return\n}", Some("operand type 'memref<*xf32>' and result type 'memref<*xf32>' are cast incompatible")),
    ("func.func @f(%m: memref<4xf32>) {\n  memref.assume_alignment %m, 16 : memref<4xf32>\n  return\n}", None),
    ("func.func @f(%m: memref<4xf32>) {\n  %0 = \"memref.assume_alignment\"(%m) <{alignment = 12 : i32}> : (memref<4xf32>) -> memref<4xf32>\n  return\n}", Some("alignment must be power of 2")),
    // vector
    ("func.func @f(%v: vector<2x4xf32>) {\n  %0 = vector.transpose %v, [1, 0] : vector<2x4xf32> to vector<4x2xf32>\n  %1 = vector.shape_cast %v : vector<2x4xf32> to vector<8xf32>\n  %2 = vector.bitcast %v : vector<2x4xf32> to vector<2x8xf16>\n  return\n}", None),
    ("func.func @f(%v: vector<4xf32>) {\n  %0 = \"vector.transpose\"(%v) <{permutation = array<i64: 0, 0>}> : (vector<4xf32>) -> vector<4xf32>\n  return\n}", Some("transposition length mismatch: 2")),
    ("func.func @f(%v: vector<4xf32>) {\n  %0 = \"vector.transpose\"(%v) <{permutation = array<i64: 0>}> : (vector<4xf32>) -> vector<f32>\n  return\n}", Some("vector result rank mismatch: 0")),
    ("func.func @f(%v: vector<2x4xf32>) {\n  %0 = \"vector.transpose\"(%v) <{permutation = array<i64: 0, 1>}> : (vector<2x4xf32>) -> vector<4x2xf32>\n  return\n}", Some("dimension size mismatch at: 0")),
    ("func.func @f(%v: vector<2x4xf32>) {\n  %0 = \"vector.shape_cast\"(%v) : (vector<2x4xf32>) -> vector<4xf32>\n  return\n}", Some("has different number of elements at source (8) and result (4)")),
    ("func.func @f(%v: vector<2x4xf32>) {\n  %0 = \"vector.bitcast\"(%v) : (vector<2x4xf32>) -> vector<16xf16>\n  return\n}", Some("failed to verify that all of {source, result} have same rank")),
    ("func.func @f(%m: memref<2x3xi32>, %i: index, %k: vector<4xi1>, %v: vector<2x3xi32>) {\n  \"vector.maskedstore\"(%m, %i, %i, %k, %v) : (memref<2x3xi32>, index, index, vector<4xi1>, vector<2x3xi32>) -> ()\n  return\n}", Some("expected valueToStore shape to match mask shape")),
    ("func.func @f(%v: vector<4xf32>, %x: f32, %w: vector<4xf32>) {\n  %0 = \"vector.outerproduct\"(%v, %x, %w) <{kind = #vector.kind<add>}> : (vector<4xf32>, f32, vector<4xf32>) -> vector<4xf32>\n  return\n}", None),
    ("func.func @f(%v: vector<4xf32>, %x: f32, %w: vector<2x3xi32>) {\n  %0 = \"vector.outerproduct\"(%v, %x, %w) <{kind = #vector.kind<mul>}> : (vector<4xf32>, f32, vector<2x3xi32>) -> vector<4xf32>\n  return\n}", Some("expected operand #3 of same type as result type")),
    ("func.func @f(%a: i32) {\n  %0 = llvm.intr.experimental.constrained.uitofp %a towardzero ignore : i32 to f32\n  return\n}", None),
    ("func.func @f(%a: i32) {\n  %0 = \"llvm.intr.experimental.constrained.uitofp\"(%a) <{roundingmode = -1 : i64, fpExceptionBehavior = 2 : i64}> : (i32) -> f32\n  return\n}", Some("LLVM Rounding Mode whose minimum value is 0")),
    // dense arrays: bool literals for i1 only, and only those; no decimal integers for floats
    ("func.func @f() attributes {a = array<i1: true, false>, b = array<i8: -1>, c = array<f32: 2.5>} {\n  return\n}", None),
    ("func.func @f() attributes {a = array<i1: 0>} {\n  return\n}", Some("expected 'true' or 'false' values for i1 type")),
    ("func.func @f() attributes {a = array<i32: true>} {\n  return\n}", Some("expected i1 type for 'true' or 'false' values")),
    ("func.func @f() attributes {a = array<f32: 1>} {\n  return\n}", Some("unexpected decimal integer literal for a floating point value")),
    // affine index ops: dynamic basis entries
    ("func.func @f(%i: index, %b: index) {\n  %0:2 = affine.delinearize_index %i into (%b, 4) : index, index\n  return\n}", None),
    ("func.func @f(%i: index, %b: index) {\n  %0:2 = \"affine.delinearize_index\"(%i, %b) <{static_basis = array<i64: 1, 2>}> : (index, index) -> (index, index)\n  return\n}", Some("mismatch between dynamic and static basis")),
    // llvm.func linkage keywords are MLIR's enum (no `private_linkage`)
    ("llvm.func private @g() {\n  llvm.return\n}\nllvm.func linkonce_odr @h() {\n  llvm.return\n}\nllvm.func extern_weak @k()", None),
    ("llvm.func private @g()", Some("external functions must have 'external' or 'extern_weak' linkage")),
    ("llvm.func private_linkage @g()", Some("")),
    // ODS ConfinedAttr constraints, read from the table (IntIsOneOf, DenseArrayStrictlySorted,
    // ArrayMinCount, a dense-array count, IntNonNegative + IntMaxValue)
    ("func.func @f(%a: f32, %b: f32, %c: vector<32xf32>) {\n  %d = amdgpu.mfma 32x32x1 %a * %b + %c { blocks = 2 : i32, abid = 0 : i32, cbsz = 0 : i32 } blgp = none : f32, f32, vector<32xf32>\n  return\n}", None),
    ("func.func @f(%a: f32, %b: f32, %c: vector<32xf32>) {\n  %d = amdgpu.mfma 7x32x1 %a * %b + %c { abid = 0 : i32, cbsz = 0 : i32 } blgp = none : f32, f32, vector<32xf32>\n  return\n}", Some("attribute 'm' failed to satisfy constraint: 32-bit signless integer attribute whose value is one of {4, 16, 32}")),
    ("func.func @f(%x: tensor<4x5xf32>, %o: tensor<f32>) {\n  %r = linalg.reduce ins(%x : tensor<4x5xf32>) outs(%o : tensor<f32>) dimensions = [0, 1]\n    (%in: f32, %init: f32) {\n      %s = arith.addf %in, %init : f32\n      linalg.yield %s : f32\n    }\n  return\n}", None),
    ("func.func @f(%x: tensor<4x5xf32>, %o: tensor<f32>) {\n  %r = linalg.reduce ins(%x : tensor<4x5xf32>) outs(%o : tensor<f32>) dimensions = [1, 0]\n    (%in: f32, %init: f32) {\n      %s = arith.addf %in, %init : f32\n      linalg.yield %s : f32\n    }\n  return\n}", Some("attribute 'dimensions' failed to satisfy constraint: i64 dense array attribute should be in increasing order")),
    ("gpu.binary @b [#gpu.object<#nvvm.target, \"\">]", None),
    ("gpu.binary @b []", Some("attribute 'objects' failed to satisfy constraint: an array of GPU object attributes with at least 1 elements")),
    ("gpu.module @m {\n  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {\n    gpu.return\n  }\n}", None),
    ("gpu.module @m {\n  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1>} {\n    gpu.return\n  }\n}", Some("attribute 'known_block_size' failed to satisfy constraint: i32 dense array attribute with 3 elements (if present)")),
    ("func.func @f(%v: vector<2xf32>, %s: f32, %e: vector<4xf8E5M2>) {\n  %0 = amdgpu.packed_scaled_trunc %v into %e[7], %s : vector<2xf32> to vector<4xf8E5M2> into vector<4xf8E5M2>\n  return\n}", None),
    ("func.func @f(%v: vector<2xf32>, %s: f32, %e: vector<4xf8E5M2>) {\n  %0 = amdgpu.packed_scaled_trunc %v into %e[8], %s : vector<2xf32> to vector<4xf8E5M2> into vector<4xf8E5M2>\n  return\n}", Some("attribute 'index' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative whose maximum value is 7")),
    // amdgpu: the verify() of every op MLIR 22 marks hasVerifier (cpp_rules/amdgpu.rs)
    ("func.func @f(%a: f32, %e: vector<4xf8E4M3FNUZ>) {\n  %0 = amdgpu.packed_trunc_2xfp8 %a, undef into %e[word 0] : f32 to vector<4xf8E4M3FNUZ> into vector<4xf8E4M3FNUZ>\n  return\n}", None),
    ("func.func @f(%a: f32, %e: vector<4xf8E5M2FNUZ>) {\n  %0 = amdgpu.packed_trunc_2xfp8 %a, undef into %e[word 0] : f32 to vector<4xf8E4M3FNUZ> into vector<4xf8E5M2FNUZ>\n  return\n}", Some("existing values must have same type as result")),
    ("func.func @f(%a: f32, %r: i32, %e: vector<4xf8E4M3FNUZ>) {\n  %0 = amdgpu.packed_stoch_round_fp8 %a + %r into %e[0] : f32 to vector<4xf8E4M3FNUZ> into vector<4xf8E4M3FNUZ>\n  return\n}", None),
    ("func.func @f(%a: f32, %r: i32, %e: vector<4xf8E5M2FNUZ>) {\n  %0 = amdgpu.packed_stoch_round_fp8 %a + %r into %e[0] : f32 to vector<4xf8E4M3FNUZ> into vector<4xf8E5M2FNUZ>\n  return\n}", Some("existing values must have same type as result")),
    ("func.func @f(%v: vector<2xf32>, %s: f32, %e: vector<4xf8E4M3FN>) {\n  %0 = amdgpu.packed_scaled_trunc %v into %e[0], %s : vector<2xf32> to vector<4xf8E5M2> into vector<4xf8E4M3FN>\n  return\n}", Some("existing values must have same type as result")),
    ("func.func @f(%m: memref<8xi32, strided<[1]>>) {\n  %0 = amdgpu.fat_raw_buffer_cast %m : memref<8xi32, strided<[1]>> to memref<8xi32, strided<[1]>, #amdgpu.address_space<fat_raw_buffer>>\n  return\n}", None),
    ("func.func @f(%m: memref<4x?xi32, strided<[?, 1], offset: ?>>) {\n  %0 = amdgpu.fat_raw_buffer_cast %m resetOffset : memref<4x?xi32, strided<[?, 1], offset: ?>> to memref<4x?xi32, strided<[?, 1]>, #amdgpu.address_space<fat_raw_buffer>>\n  return\n}", None),
    ("func.func @f(%m: memref<8xi32, affine_map<(d0)[s0] -> (d0 + s0)>>) {\n  %0 = amdgpu.fat_raw_buffer_cast %m resetOffset : memref<8xi32, affine_map<(d0)[s0] -> (d0 + s0)>> to memref<8xi32, #amdgpu.address_space<fat_raw_buffer>>\n  return\n}", Some("can't have its offset reset")),
    ("func.func @f(%m: memref<8xi32, affine_map<(d0)[s0] -> (d0 + s0)>>) {\n  %0 = amdgpu.fat_raw_buffer_cast %m : memref<8xi32, affine_map<(d0)[s0] -> (d0 + s0)>> to memref<8xi32, affine_map<(d0)[s0] -> (d0 + s0)>, #amdgpu.address_space<fat_raw_buffer>>\n  return\n}", None),
    ("func.func @f(%m: memref<4x4xf32, 1>, %i: i32) {\n  %0 = amdgpu.raw_buffer_load %m[%i, %i] : memref<4x4xf32, 1>, i32, i32 -> f32\n  amdgpu.raw_buffer_store %0 -> %m[%i, %i] : f32 -> memref<4x4xf32, 1>, i32, i32\n  return\n}", None),
    ("func.func @f(%m: memref<4x4xf32>, %i: i32) {\n  %0 = amdgpu.raw_buffer_load %m[%i] : memref<4x4xf32>, i32 -> f32\n  return\n}", Some("Expected 2 indices to memref")),
    ("func.func @f(%m: memref<4xf32, 3>, %i: i32, %v: f32) {\n  amdgpu.raw_buffer_atomic_fadd %v -> %m[%i] : f32 -> memref<4xf32, 3>, i32\n  return\n}", Some("Buffer ops must operate on a memref in global memory")),
    ("func.func @f(%v: vector<8xf4E2M1FN>, %s: vector<4xf8E8M0FNU>) {\n  %0 = amdgpu.scaled_ext_packed_matrix %v scale(%s) blockSize(32) firstScaleLane(0) firstScaleByte(2) : vector<8xf4E2M1FN>, vector<4xf8E8M0FNU> -> vector<8xf16>\n  return\n}", None),
    ("func.func @f(%v: vector<8xf4E2M1FN>, %s: vector<4xf8E8M0FNU>) {\n  %0 = amdgpu.scaled_ext_packed_matrix %v scale(%s) blockSize(32) firstScaleLane(0) firstScaleByte(1) : vector<8xf4E2M1FN>, vector<4xf8E8M0FNU> -> vector<8xf16>\n  return\n}", Some("blockSize of 32 can only have firstScaleByte be 0 or 2 for f4 and f6.")),
    ("func.func @f(%v: vector<8xf8E4M3FN>, %s: vector<4xf8E8M0FNU>) {\n  %0 = amdgpu.scaled_ext_packed_matrix %v scale(%s) blockSize(16) firstScaleLane(16) firstScaleByte(0) : vector<8xf8E4M3FN>, vector<4xf8E8M0FNU> -> vector<8xf16>\n  return\n}", Some("blockSize of 16 can only have (firstScaleLane, firstScaleByte) be (0, 0) or (16, 2) for f8.")),
    ("func.func @f(%a: vector<16xi8>, %c: vector<8xi32>) {\n  %0 = amdgpu.wmma 16x16x16 %a * %a + %c {clamp, unsignedA} : vector<16xi8>, vector<16xi8>, vector<8xi32>\n  return\n}", None),
    ("func.func @f(%a: vector<8xf16>, %c: vector<8xf32>) {\n  %0 = amdgpu.wmma 16x16x16 %a * %a + %c {clamp} : vector<8xf16>, vector<8xf16>, vector<8xf32>\n  return\n}", Some("clamp flag is not supported for float types")),
    ("func.func @f(%a: vector<8xf16>, %b: vector<16xf16>, %c: vector<8xf32>) {\n  %0 = amdgpu.wmma 16x16x16 %a * %b + %c : vector<8xf16>, vector<16xf16>, vector<8xf32>\n  return\n}", Some("source vectors have different lengths: 'vector<8xf16>' vs. 'vector<16xf16>'")),
    ("func.func @f(%a: vector<16xi8>, %c: vector<8xf32>) {\n  %0 = amdgpu.wmma 16x16x16 %a * %a + %c : vector<16xi8>, vector<16xi8>, vector<8xf32>\n  return\n}", Some("expected float sources with float destination")),
    ("func.func @f(%sa: vector<4xf8E8M0FNU>, %a: vector<64xf8E4M3FN>, %c: vector<8xf32>) {\n  %0 = amdgpu.scaled_wmma 16x16x128 (%sa * %a) * (%sa * %a) + %c {a_first_scale_lane = 0 : i32, b_first_scale_lane = 0 : i32} : vector<4xf8E8M0FNU>, vector<64xf8E4M3FN>, vector<4xf8E8M0FNU>, vector<64xf8E4M3FN>, vector<8xf32>\n  return\n}", None),
    ("func.func @f(%sa: vector<4xf8E8M0FNU>, %a: vector<128xf4E2M1FN>, %c: vector<8xf32>) {\n  %0 = amdgpu.scaled_wmma 16x16x128 (%sa * %a) * (%sa * %a) + %c {a_first_scale_lane = 0 : i32, b_first_scale_lane = 0 : i32} : vector<4xf8E8M0FNU>, vector<128xf4E2M1FN>, vector<4xf8E8M0FNU>, vector<128xf4E2M1FN>, vector<8xf32>\n  return\n}", Some("for 16x16x128, sourceA must have 64 elements but got 128")),
    ("func.func @f(%sa: vector<4xf8E4M3FN>, %a: vector<64xf8E4M3FN>, %c: vector<8xf32>) {\n  %0 = amdgpu.scaled_wmma 16x16x128 (%sa * %a) * (%sa * %a) + %c {a_first_scale_lane = 0 : i32, b_first_scale_lane = 0 : i32} : vector<4xf8E4M3FN>, vector<64xf8E4M3FN>, vector<4xf8E4M3FN>, vector<64xf8E4M3FN>, vector<8xf32>\n  return\n}", Some("invalid combination of matrix and scale types")),
    ("func.func @f(%a: f64, %b: f64, %c: vector<4xf64>) {\n  %d = amdgpu.mfma 16x16x4 %a * %b + %c { abid = 0 : i32, cbsz = 0 : i32, negateA } blgp = none : f64, f64, vector<4xf64>\n  return\n}", None),
    ("func.func @f(%a: vector<4xi8>, %b: vector<4xi8>, %c: vector<16xi32>) {\n  %d = amdgpu.mfma 32x32x8 %a * %b + %c { abid = 0 : i32, cbsz = 0 : i32 } blgp = none : vector<4xi8>, vector<4xi8>, vector<16xi32>\n  return\n}", None),
    ("func.func @f(%a: i32, %b: i32, %c: vector<16xi32>) {\n  %d = amdgpu.mfma 32x32x8 %a * %b + %c { abid = 0 : i32, cbsz = 0 : i32 } blgp = none : i32, i32, vector<16xi32>\n  return\n}", None),
    ("func.func @f(%a: f32, %b: f32, %c: vector<32xf32>) {\n  %d = amdgpu.mfma 32x32x1 %a * %b + %c { blocks = 2 : i32, abid = 2 : i32, cbsz = 1 : i32 } blgp = none : f32, f32, vector<32xf32>\n  return\n}", Some("block ID for permuting A (abid) must be below 2 ** cbsz")),
    ("func.func @f(%a: f32, %b: f32, %c: vector<16xf32>) {\n  %d = amdgpu.mfma 32x32x1 %a * %b + %c { blocks = 2 : i32, abid = 0 : i32, cbsz = 0 : i32 } blgp = none : f32, f32, vector<16xf32>\n  return\n}", Some("expected 32 result values for this operation but got 16")),
    ("func.func @f(%a: vector<8xf8E4M3FN>, %b: vector<32xf4E2M1FN>, %c: vector<4xf32>) {\n  %d = amdgpu.mfma 16x16x128 %a * %b + %c { abid = 0 : i32, cbsz = 0 : i32 } blgp = none : vector<8xf8E4M3FN>, vector<32xf4E2M1FN>, vector<4xf32>\n  return\n}", Some("expected both small-float source vectors to have the same length")),
    ("func.func @f(%a: vector<4xf16>, %b: vector<8xf16>, %c: vector<4xf32>, %i: vector<4xi8>) {\n  %d = amdgpu.sparse_mfma 16x16x32 %a * %b + %c sparse(%i : vector<4xi8>) { abid = 3 : i32 } : vector<4xf16>, vector<8xf16>, vector<4xf32>\n  return\n}", None),
    ("func.func @f(%a: vector<4xf16>, %b: vector<8xf16>, %c: vector<4xf32>, %i: vector<2xi16>) {\n  %d = amdgpu.sparse_mfma 16x16x32 %a * %b + %c sparse(%i : vector<2xi16>) : vector<4xf16>, vector<8xf16>, vector<4xf32>\n  return\n}", Some("expected vector<4xi8> sparse indices for 16-bit source data, but got 'vector<2xi16>'")),
    ("func.func @f(%a: vector<8xi8>, %b: vector<16xi8>, %c: vector<4xi32>, %i: vector<2xi16>) {\n  %d = amdgpu.sparse_mfma 16x16x64 %a * %b + %c sparse(%i : vector<2xi16>) { abid = 2 : i32 } : vector<8xi8>, vector<16xi8>, vector<4xi32>\n  return\n}", Some("ABID must be 0 or 1 for 8-bit source data")),
    ("func.func @f(%a: i32, %b: i32) {\n  %0 = amdgpu.dpp %a %b quad_perm([0 : i32, 1 : i32, 2 : i32, 3 : i32]) : i32\n  %1 = amdgpu.dpp %a %b row_shl(15 : i32) : i32\n  %2 = amdgpu.dpp %a %b row_mirror : i32\n  return\n}", None),
    ("func.func @f(%a: i32, %b: i32) {\n  %0 = amdgpu.dpp %a %b quad_perm([0 : i32, 1 : i32, 4 : i32, 3 : i32]) : i32\n  return\n}", Some("Each element of quad_perm must be in the range [0, 3]")),
    ("func.func @f(%a: i32, %b: i32) {\n  %0 = amdgpu.dpp %a %b quad_perm([0 : i32, 1 : i32]) : i32\n  return\n}", Some("quad_perm attribute must have exactly 4 elements")),
    ("func.func @f(%a: i32, %b: i32) {\n  %0 = amdgpu.dpp %a %b row_shl(16 : i32) : i32\n  return\n}", Some("Attribute value must be between 1 and 15")),
    ("func.func @f(%a: i32, %b: i32) {\n  %0 = amdgpu.dpp %a %b row_shr : i32\n  return\n}", Some("Attribute 'row_shr' value not specified")),
    ("func.func @f(%a: i32, %b: i32) {\n  %0 = amdgpu.dpp %a %b wave_shl(1 : i32) : i32\n  return\n}", Some("Expected unit attribute for permArgument, but found non-trivial argument")),
    ("func.func @f(%a: i32) {\n  %0 = amdgpu.permlane_swap %a 32 : i32\n  return\n}", None),
    ("func.func @f(%a: i32) {\n  %0 = amdgpu.permlane_swap %a 8 : i32\n  return\n}", Some("row_length attribute must either be 16 or 32.")),
    ("func.func @f(%s: memref<8xf16, #amdgpu.address_space<fat_raw_buffer>>, %d: memref<8xf16, #gpu.address_space<workgroup>>, %i: index) {\n  amdgpu.gather_to_lds %s[%i], %d[%i] : vector<2xf16>, memref<8xf16, #amdgpu.address_space<fat_raw_buffer>>, memref<8xf16, #gpu.address_space<workgroup>>\n  return\n}", None),
    ("func.func @f(%s: memref<8xf64>, %d: memref<8xf64, 3>, %i: index) {\n  amdgpu.gather_to_lds %s[%i], %d[%i] : f64, memref<8xf64>, memref<8xf64, 3>\n  return\n}", Some("Transfering type size must be 8, 16, 32, 96 or 128 bits")),
    ("func.func @f(%s: memref<8xf32, 3>, %d: memref<8xf32, 3>, %i: index) {\n  amdgpu.gather_to_lds %s[%i], %d[%i] : f32, memref<8xf32, 3>, memref<8xf32, 3>\n  return\n}", Some("source memory address space must be global or fat raw buffer")),
    ("func.func @f(%s: memref<8xf16>, %d: memref<8xf16, strided<[2]>, 3>, %i: index) {\n  amdgpu.gather_to_lds %s[%i], %d[%i] : vector<2xf16>, memref<8xf16>, memref<8xf16, strided<[2]>, 3>\n  return\n}", Some("destination type inner most dim must be contiguous")),
    ("func.func @f(%m: memref<128x32xi4, #gpu.address_space<workgroup>>, %i: index) {\n  %0 = amdgpu.transpose_load %m[%i, %i] : memref<128x32xi4, #gpu.address_space<workgroup>> -> vector<16xi4>\n  return\n}", None),
    ("func.func @f(%m: memref<128x32xf32, 3>, %i: index) {\n  %0 = amdgpu.transpose_load %m[%i, %i] : memref<128x32xf32, 3> -> vector<4xf32>\n  return\n}", Some("Unsupported element type size for transpose load: 32 bits")),
    ("func.func @f(%m: memref<128x32xf16, 3>, %i: index) {\n  %0 = amdgpu.transpose_load %m[%i, %i] : memref<128x32xf16, 3> -> vector<8xf16>\n  return\n}", Some("Transferring type size mismatch: expected num of elements: 4")),
    ("func.func @f(%g: memref<8xi32, #gpu.address_space<global>>, %l: memref<8xi32, #gpu.address_space<workgroup>>, %i: index) {\n  %0 = amdgpu.make_dma_base %g[%i], %l[%i] : memref<8xi32, #gpu.address_space<global>>, memref<8xi32, #gpu.address_space<workgroup>> -> !amdgpu.tdm_base<i32>\n  return\n}", None),
    ("func.func @f(%g: memref<8xi32>, %i: index) {\n  %0 = amdgpu.make_gather_dma_base %g[%i], %g[%i] : memref<8xi32>, memref<8xi32> -> !amdgpu.tdm_gather_base<i32, i16>\n  return\n}", Some("lds memref must have workgroup address space attribute.")),
    ("func.func @f(%l: memref<8xi32, 3>, %i: index) {\n  %0 = amdgpu.make_dma_base %l[%i], %l[%i] : memref<8xi32, 3>, memref<8xi32, 3> -> !amdgpu.tdm_base<i32>\n  return\n}", Some("global memref must have global address space attribute.")),
    ("func.func @f(%b: !amdgpu.tdm_base<i32>) {\n  %0 = amdgpu.make_dma_descriptor %b globalSize [64, 64] globalStride [64, 1] sharedSize [64, 64] : !amdgpu.tdm_base<i32> -> !amdgpu.tdm_descriptor\n  return\n}", None),
    ("func.func @f(%b: !amdgpu.tdm_base<i32>) {\n  %0 = amdgpu.make_dma_descriptor %b globalSize [2, 2] globalStride [1, 2] sharedSize [1, 1] : !amdgpu.tdm_base<i32> -> !amdgpu.tdm_descriptor\n  return\n}", Some("strides for the innermost dimension must be 1.")),
    ("func.func @f(%b: !amdgpu.tdm_base<i32>) {\n  %0 = amdgpu.make_dma_descriptor %b globalSize [4, 4] globalStride [4, 1] sharedSize [1, 2, 3] : !amdgpu.tdm_base<i32> -> !amdgpu.tdm_descriptor\n  return\n}", Some("tensor must have same rank as tile.")),
    ("func.func @f(%b: !amdgpu.tdm_base<i32>, %bar: memref<8xi64>, %i: index) {\n  %0 = amdgpu.make_dma_descriptor %b globalSize [64, 64] globalStride [64, 1] sharedSize [64, 64] atomicBarrier(%bar[%i] : memref<8xi64>) : !amdgpu.tdm_base<i32> -> !amdgpu.tdm_descriptor\n  return\n}", Some("atomic barrier address must be in LDS.")),
    ("func.func @f(%b: !amdgpu.tdm_gather_base<i32, i16>, %x: vector<8xi16>) {\n  %0 = amdgpu.make_gather_dma_descriptor %b[%x] globalSize [4, 4] globalStride [4, 1] sharedSize [1, 2] : !amdgpu.tdm_gather_base<i32, i16>, vector<8xi16> -> !amdgpu.tdm_descriptor\n  return\n}", None),
    ("func.func @f(%b: !amdgpu.tdm_gather_base<i32, i16>, %x: vector<8xi32>) {\n  %0 = amdgpu.make_gather_dma_descriptor %b[%x] globalSize [4, 4] globalStride [4, 1] sharedSize [1, 2] : !amdgpu.tdm_gather_base<i32, i16>, vector<8xi32> -> !amdgpu.tdm_descriptor\n  return\n}", Some("indices' element type must match base's element type.")),
    ("func.func @f(%b: !amdgpu.tdm_gather_base<i32, i16>, %x: vector<8xi16>) {\n  %0 = amdgpu.make_gather_dma_descriptor %b[%x] globalSize [4, 4, 4] globalStride [16, 4, 1] sharedSize [1, 2, 2] : !amdgpu.tdm_gather_base<i32, i16>, vector<8xi16> -> !amdgpu.tdm_descriptor\n  return\n}", Some("tensor and tile must be at most of rank two in gather mode.")),
    // operand constraints: AnyIntegerOrFloatOr1DVector, and constraints known by their summary
    ("func.func @f(%a: vector<4xf32>, %b: i8) {\n  %0 = amdgpu.swizzle_bitmode %a 1 2 4 : vector<4xf32>\n  %1 = amdgpu.swizzle_bitmode %b 1 2 4 : i8\n  return\n}", None),
    ("func.func @f(%a: si32) {\n  %0 = amdgpu.swizzle_bitmode %a 1 2 4 : si32\n  return\n}", Some("operand #0 must be Integer or Float or fixed-length vector of Integer or Float values of ranks 1, but got 'si32'")),
    ("func.func @f(%a: vector<[4]xf32>) {\n  %0 = amdgpu.swizzle_bitmode %a 1 2 4 : vector<[4]xf32>\n  return\n}", Some("operand #0 must be Integer or Float or fixed-length vector of Integer or Float values of ranks 1")),
    ("func.func @f(%a: vector<2x2xf32>) {\n  %0 = amdgpu.permlane_swap %a 16 : vector<2x2xf32>\n  return\n}", Some("operand #0 must be Integer or Float or fixed-length vector of Integer or Float values of ranks 1")),
    // !amdgpu.tdm_gather_base: TDMGatherBaseType::verify
    ("func.func @f(%x: vector<8xi32>, %b: !amdgpu.tdm_gather_base<f16, i32>) {\n  %0 = amdgpu.make_gather_dma_descriptor %b[%x] globalSize [4, 4] globalStride [4, 1] sharedSize [1, 2] : !amdgpu.tdm_gather_base<f16, i32>, vector<8xi32> -> !amdgpu.tdm_descriptor\n  return\n}", None),
    ("func.func @f(%b: !amdgpu.tdm_gather_base<i32, i64>) {\n  \n  return\n}", Some("index type must be i16 or i32 but index type is 'i64'.")),
    ("func.func @f(%b: !amdgpu.tdm_gather_base<i4, i16>) {\n  \n  return\n}", Some("element type must be 1, 2, 4, or 8 bytes wide but type 'i4' is 0 bytes wide.")),
    // summaries: AnyTypeOf of scalars and (fixed-length) vectors of given lengths
    ("func.func @f(%v: vector<4xf8E5M2FNUZ>, %s: f8E4M3FN) {\n  %0 = amdgpu.ext_packed_fp8 %v[0] : vector<4xf8E5M2FNUZ> to f32\n  %1 = amdgpu.ext_packed_fp8 %s[0] : f8E4M3FN to f32\n  return\n}", None),
    ("func.func @f(%v: vector<8xf8E5M2FNUZ>) {\n  %0 = amdgpu.ext_packed_fp8 %v[0] : vector<8xf8E5M2FNUZ> to f32\n  return\n}", Some("op operand #0 must be f8E5M2FNUZ type or f8E4M3FNUZ type or f8E5M2 type or f8E4M3FN type or vector of f8E5M2FNUZ type or f8E4M3FNUZ type or f8E5M2 type or f8E4M3FN type values of length 1/2/3/4, but got 'vector<8xf8E5M2FNUZ>'")),
    ("func.func @f(%v: vector<2x2xf8E5M2FNUZ>) {\n  %0 = amdgpu.ext_packed_fp8 %v[0] : vector<2x2xf8E5M2FNUZ> to f32\n  return\n}", None),
    ("func.func @f(%a: f32, %e: vector<4xf8E4M3FN>) {\n  %0 = amdgpu.packed_trunc_2xfp8 %a, undef into %e[word 0] : f32 to vector<4xf8E4M3FN> into vector<4xf8E4M3FN>\n  return\n}", None),
    ("func.func @f(%a: f32, %e: vector<[4]xf8E4M3FN>) {\n  %0 = amdgpu.packed_trunc_2xfp8 %a, undef into %e[word 0] : f32 to vector<[4]xf8E4M3FN> into vector<[4]xf8E4M3FN>\n  return\n}", Some("op operand #1 must be fixed-length vector of f8E4M3FNUZ type or f8E5M2FNUZ type or f8E4M3FN type or f8E5M2 type values of length 4, but got 'vector<[4]xf8E4M3FN>'")),
    // named constraints read through the table's `%summary` lines
    ("func.func @f(%a: vector<4xf16>, %b: vector<8xf16>, %c: vector<4xf32>, %i: i32) {\n  %d = amdgpu.sparse_mfma 16x16x32 %a * %b + %c sparse(%i : i32) : vector<4xf16>, vector<8xf16>, vector<4xf32>\n  return\n}", Some("op operand #3 must be fixed-length vector of 8-bit signless integer values of length 4 or fixed-length vector of 16-bit signless integer values of length 2, but got 'i32'")),
    ("func.func @f(%a: vector<8xf8E5M2FNUZ>, %b: vector<4xf8E5M2FNUZ>, %c: vector<4xf32>) {\n  %d = amdgpu.mfma 16x16x32 %a * %b + %c { abid = 0 : i32, cbsz = 0 : i32 } blgp = none : vector<8xf8E5M2FNUZ>, vector<4xf8E5M2FNUZ>, vector<4xf32>\n  return\n}", Some("op operand #1 must be 32-bit float or 64-bit float or 32-bit signless integer or 64-bit signless integer or vector of 32-bit float values of length 2 or vector of 16-bit float values of length 4/8")),
];

#[test]
fn memplan_accepts_and_rejects_like_mlir() {
    for (src, want) in CASES {
        match (memplan_verdict(src), want) {
            (Ok(()), None) => {}
            (Err(e), Some(frag)) => assert!(e.contains(frag), "{src}\nmessage: {e}"),
            (Ok(()), Some(frag)) => panic!("accepted, want rejection ({frag}):\n{src}"),
            (Err(e), None) => panic!("rejected ({e}), want acceptance:\n{src}"),
        }
    }
}

/// The same cases through mlir-opt-22: the expected verdicts are MLIR's.
#[test]
fn mlir_opt_agrees_with_the_cases() {
    common::assert_mlir_agrees(CASES, "cpp-rules");
}
