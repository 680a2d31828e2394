//! MLIR 22's C++ verifier rules of the NVVM memory, barrier and conversion ops
//! (`mbarrier.*`, `cp.async.bulk.*` / TMA, `prefetch`, `convert.f32x2.to.{f16,bf16}x2`,
//! `clusterlaunchcontrol.query.cancel`, `fence.proxy.sync_restrict`, the `range` of
//! `read.ptx.sreg.*`, the `LLVM pointer in address space N` operand constraints) and of
//! `vector.expandload` / `compressstore`
//! (`crates/memplan-ir/src/cpp_rules/nvvm/{mbarrier,bulk,convert,misc}.rs`,
//! `cpp_rules/misc.rs`). Each case states memplan's verdict (accept, or reject with a
//! message fragment); with `mlir-opt-22` installed the same case goes through it and must get
//! the same verdict and message. Without the tool that half is skipped unless
//! `MEMPLAN_REQUIRE_MLIR=1`.

mod common;

use common::{assert_mlir_agrees, assert_round_trips, assert_verdicts};

/// (module text, `None` = accepted / `Some(fragment)` = rejected with this message)
type Case = (&'static str, Option<&'static str>);

const CASES: &[Case] = &[
    (
        r#"func.func @f(%b: !llvm.ptr<3>, %g: !llvm.ptr, %k: !llvm.ptr<7>, %c: i32, %p: i1) {
  %0 = nvvm.mbarrier.arrive %b, %c {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3> -> i64
  %1 = nvvm.mbarrier.arrive %g : !llvm.ptr -> i64
  nvvm.mbarrier.arrive %k, %c {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
  nvvm.mbarrier.arrive_drop %k : !llvm.ptr<7>
  nvvm.mbarrier.arrive.expect_tx %b, %c, predicate = %p : !llvm.ptr<3>, i32, i1
  nvvm.mbarrier.arrive.expect_tx %k, %c {scope = #nvvm.mem_scope<cluster>, relaxed = true} : !llvm.ptr<7>, i32
  nvvm.mbarrier.expect_tx %k, %c {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
  nvvm.mbarrier.complete_tx %b, %c : !llvm.ptr<3>, i32
  %2 = nvvm.mbarrier.test.wait %b, %c {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32 -> i1
  %3 = nvvm.mbarrier.try_wait %b, %c, %c : !llvm.ptr<3>, i32, i32 -> i1
  return
}"#,
        None,
    ),
    (
        r#"func.func @f(%k: !llvm.ptr<7>) {
  %0 = nvvm.mbarrier.arrive %k : !llvm.ptr<7> -> i64
  return
}"#,
        Some("mbarrier in shared_cluster space cannot return any value"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<3>) {
  %0 = nvvm.mbarrier.arrive %b {scope = #nvvm.mem_scope<gpu>} : !llvm.ptr<3> -> i64
  return
}"#,
        Some("mbarrier scope must be either CTA or Cluster"),
    ),
    (
        r#"func.func @f(%k: !llvm.ptr<7>, %c: i32) {
  %0 = nvvm.mbarrier.arrive_drop %k, %c : !llvm.ptr<7> -> i64
  return
}"#,
        Some("mbarrier in shared_cluster space cannot return any value"),
    ),
    (
        r#"func.func @f(%k: !llvm.ptr<7>, %c: i32) {
  nvvm.mbarrier.expect_tx %k, %c {scope = #nvvm.mem_scope<sys>} : !llvm.ptr<7>, i32
  return
}"#,
        Some("mbarrier scope must be either CTA or Cluster"),
    ),
    (
        r#"func.func @f(%k: !llvm.ptr<3>, %c: i32) {
  nvvm.mbarrier.complete_tx %k, %c {scope = #nvvm.mem_scope<gpu>} : !llvm.ptr<3>, i32
  return
}"#,
        Some("mbarrier scope must be either CTA or Cluster"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<3>, %c: i32, %p: i1) {
  nvvm.mbarrier.arrive.expect_tx %b, %c, predicate = %p {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32, i1
  return
}"#,
        Some("mbarrier scope must be CTA when using predicate"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<7>, %c: i32, %p: i1) {
  nvvm.mbarrier.arrive.expect_tx %b, %c, predicate = %p : !llvm.ptr<7>, i32, i1
  return
}"#,
        Some("mbarrier in shared_cluster space is not supported when using predicate"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<3>, %c: i32, %p: i1) {
  %0 = nvvm.mbarrier.arrive.expect_tx %b, %c, predicate = %p : !llvm.ptr<3>, i32, i1 -> i64
  return
}"#,
        Some("return-value is not supported when using predicate"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<3>, %c: i32, %p: i1) {
  nvvm.mbarrier.arrive.expect_tx %b, %c, predicate = %p {relaxed = true} : !llvm.ptr<3>, i32, i1
  return
}"#,
        Some("mbarrier with relaxed semantics is not supported when using predicate"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<7>, %c: i32) {
  %0 = nvvm.mbarrier.arrive_drop.expect_tx %b, %c : !llvm.ptr<7>, i32 -> i64
  return
}"#,
        Some("mbarrier in shared_cluster space cannot return any value"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<3>, %c: i32) {
  %0 = nvvm.mbarrier.test.wait %b, %c {scope = #nvvm.mem_scope<gpu>} : !llvm.ptr<3>, i32 -> i1
  return
}"#,
        Some("mbarrier scope must be either CTA or Cluster"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<3>, %c: i64) {
  %0 = nvvm.mbarrier.try_wait %b, %c {scope = #nvvm.mem_scope<sys>} : !llvm.ptr<3>, i64 -> i1
  return
}"#,
        Some("mbarrier scope must be either CTA or Cluster"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %s: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32, %o: i16, %mc: i16, %h: i64, %p: i1, %gl: !llvm.ptr<1>) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x, %x] multicast_mask = %mc l2_cache_hint = %h : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %s, %t, %bar, box[%x] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x, %x, %x, %x] im2col[%o, %o] {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x, %x, %x] im2col[%o, %o] {mode = #nvvm.tma_load_mode<im2col_w>} : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x, %x, %x, %x, %x] {mode = #nvvm.tma_load_mode<tile_gather4>} : !llvm.ptr<7>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global %s, %t, %bar, box[%x, %x] predicate = %p : !llvm.ptr<3>, !llvm.ptr
  nvvm.cp.async.bulk.tensor.prefetch %t, box[%x, %x, %x] im2col[%o] l2_cache_hint = %h {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, box[%x, %x], predicate = %p : !llvm.ptr, !llvm.ptr<3>
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, box[%x, %x, %x, %x, %x] {mode = #nvvm.tma_store_mode<tile_scatter4>} : !llvm.ptr, !llvm.ptr<3>
  nvvm.cp.async.bulk.tensor.reduce %t, %s, box[%x, %x, %x] {redKind = #nvvm.tma_redux_kind<add>, mode = #nvvm.tma_store_mode<im2col>} : !llvm.ptr, !llvm.ptr<3>
  nvvm.cp.async.bulk.shared.cluster.global %d, %gl, %bar, %x multicast_mask = %mc : !llvm.ptr<7>, !llvm.ptr<1>
  return
}"#,
        None,
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %bar: !llvm.ptr<3>) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[] : !llvm.ptr<7>, !llvm.ptr
  return
}"#,
        Some("expects coordinates between 1 to 5 dimension"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %bar: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x, %x] {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
  return
}"#,
        Some("to use im2col mode, the tensor has to be at least 3-dimensional"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %bar: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x, %x, %x, %x] {mode = #nvvm.tma_load_mode<tile_gather4>} : !llvm.ptr<7>, !llvm.ptr
  return
}"#,
        Some("Gather4 mode expects 5 coordinates"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %bar: !llvm.ptr<3>, %x: i32, %o: i16, %p: i1) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x, %x, %x] im2col[%o, %o] predicate = %p {mode = #nvvm.tma_load_mode<im2col_w>} : !llvm.ptr<7>, !llvm.ptr
  return
}"#,
        Some("Predicate is supported only for Tile and Im2col modes."),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32, %p: i1) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x] predicate = %p {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
  return
}"#,
        Some("Predicate is supported only for shared::cluster mode."),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32, %mc: i16) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x] multicast_mask = %mc {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
  return
}"#,
        Some("Multicast is not supported with shared::cta mode."),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x] {isCTAOnly = true, group = #nvvm.cta_group<cta_1>} : !llvm.ptr<3>, !llvm.ptr
  return
}"#,
        Some("CTAGroup is not supported with shared::cta mode."),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %bar: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x] {isCTAOnly = true} : !llvm.ptr<7>, !llvm.ptr
  return
}"#,
        Some("Shared::cta destination requires address-space 3."),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x] : !llvm.ptr<3>, !llvm.ptr
  return
}"#,
        Some("Shared::cluster destination requires address-space 7."),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %d: !llvm.ptr<7>, %bar: !llvm.ptr<3>, %x: i32, %o: i16) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %t, %bar, box[%x, %x, %x, %x] im2col[%o] {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
  return
}"#,
        Some("im2col offsets expected 2 (provided 1)"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %x: i32, %o: i16) {
  nvvm.cp.async.bulk.tensor.prefetch %t, box[%x, %x, %x] im2col[%o] : !llvm.ptr
  return
}"#,
        Some("im2col offsets expected 0 (provided 1)"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %x: i32, %o: i16) {
  nvvm.cp.async.bulk.tensor.prefetch %t, box[%x, %x] im2col[%o, %o] {mode = #nvvm.tma_load_mode<im2col_w_128>} : !llvm.ptr
  return
}"#,
        Some("to use im2col_w_128 mode, the tensor has to be at least 3-dimensional"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %s: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, box[%x, %x] {mode = #nvvm.tma_store_mode<tile_scatter4>} : !llvm.ptr, !llvm.ptr<3>
  return
}"#,
        Some("Scatter4 mode expects 5 coordinates"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %s: !llvm.ptr<3>, %x: i32, %h: i64, %p: i1) {
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, box[%x] l2_cache_hint = %h, predicate = %p : !llvm.ptr, !llvm.ptr<3>
  return
}"#,
        Some("Inline-ptx lowering unsupported with L2 cache-hint."),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %s: !llvm.ptr<3>, %x: i32, %p: i1) {
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, box[%x, %x, %x], predicate = %p {mode = #nvvm.tma_store_mode<im2col>} : !llvm.ptr, !llvm.ptr<3>
  return
}"#,
        Some("Inline-ptx lowering supported only for Tile mode."),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %s: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, box[%x] {mode = #nvvm.tma_store_mode<im2col>} : !llvm.ptr, !llvm.ptr<3>
  return
}"#,
        Some("to use im2col mode, the tensor has to be at least 3-dimensional"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %s: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, box[%x, %x, %x, %x, %x, %x] : !llvm.ptr, !llvm.ptr<3>
  return
}"#,
        Some("expects coordinates between 1 to 5 dimension"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %s: !llvm.ptr<3>, %x: i32) {
  nvvm.cp.async.bulk.tensor.reduce %t, %s, box[%x, %x, %x, %x, %x] {redKind = #nvvm.tma_redux_kind<add>, mode = #nvvm.tma_store_mode<tile_scatter4>} : !llvm.ptr, !llvm.ptr<3>
  return
}"#,
        Some("Scatter mode unsupported for CpAsyncBulkTensorReduceOp"),
    ),
    (
        r#"func.func @f(%t: !llvm.ptr, %s: !llvm.ptr<3>) {
  nvvm.cp.async.bulk.tensor.reduce %t, %s, box[] {redKind = #nvvm.tma_redux_kind<min>} : !llvm.ptr, !llvm.ptr<3>
  return
}"#,
        Some("expects coordinates between 1 to 5 dimension"),
    ),
    (
        r#"func.func @f(%d: !llvm.ptr<3>, %g: !llvm.ptr<1>, %bar: !llvm.ptr<3>, %x: i32, %mc: i16) {
  nvvm.cp.async.bulk.shared.cluster.global %d, %g, %bar, %x multicast_mask = %mc : !llvm.ptr<3>, !llvm.ptr<1>
  return
}"#,
        Some("Multicast is not supported with shared::cta mode."),
    ),
    (
        r#"func.func @f(%a: f32, %b: f32, %r: i32) {
  %0 = nvvm.convert.f32x2.to.f16x2 %a, %b {rnd = #nvvm.fp_rnd_mode<rn>} : vector<2xf16>
  %1 = nvvm.convert.f32x2.to.f16x2 %a, %b, %r {rnd = #nvvm.fp_rnd_mode<rs>} : vector<2xf16>
  %2 = nvvm.convert.f32x2.to.bf16x2 %a, %b {rnd = #nvvm.fp_rnd_mode<rz>, relu = true} : vector<2xbf16>
  return
}"#,
        None,
    ),
    (
        r#"func.func @f(%a: f32, %b: f32) {
  %0 = nvvm.convert.f32x2.to.f16x2 %a, %b : vector<2xf16>
  return
}"#,
        Some("Only RN, RZ, and RS rounding modes are supported for conversions from f32x2 to f16x2."),
    ),
    (
        r#"func.func @f(%a: f32, %b: f32) {
  %0 = nvvm.convert.f32x2.to.bf16x2 %a, %b {rnd = #nvvm.fp_rnd_mode<rna>} : vector<2xbf16>
  return
}"#,
        Some("Only RN, RZ, and RS rounding modes are supported for conversions from f32x2 to bf16x2."),
    ),
    (
        r#"func.func @f(%a: f32, %b: f32) {
  %0 = nvvm.convert.f32x2.to.bf16x2 %a, %b {rnd = #nvvm.fp_rnd_mode<rs>} : vector<2xbf16>
  return
}"#,
        Some("random_bits is required for RS rounding mode."),
    ),
    (
        r#"func.func @f(%a: f32, %b: f32, %r: i32) {
  %0 = nvvm.convert.f32x2.to.f16x2 %a, %b, %r {rnd = #nvvm.fp_rnd_mode<rz>} : vector<2xf16>
  return
}"#,
        Some("random_bits not supported for RN and RZ rounding modes."),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr, %gl: !llvm.ptr<1>, %l: !llvm.ptr<5>, %c: !llvm.ptr<4>, %p: i1) {
  nvvm.prefetch level = L1, %g : !llvm.ptr
  nvvm.prefetch level = L2, %l : !llvm.ptr<5>
  nvvm.prefetch level = L1 uniform, %g : !llvm.ptr
  nvvm.prefetch level = L2, evict_priority = evict_last, %gl : !llvm.ptr<1>
  nvvm.prefetch tensormap, %c : !llvm.ptr<4>
  nvvm.prefetch tensormap in_param_space, %g, predicate = %p : !llvm.ptr, i1
  return
}"#,
        None,
    ),
    (
        r#"func.func @f(%g: !llvm.ptr) {
  nvvm.prefetch %g : !llvm.ptr
  return
}"#,
        Some("requires specification of either cache level or tensormap"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr) {
  nvvm.prefetch level = L1, tensormap, %g : !llvm.ptr
  return
}"#,
        Some("cannot specify both tensormap and cache level"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr<1>) {
  nvvm.prefetch tensormap, %g : !llvm.ptr<1>
  return
}"#,
        Some("prefetch tensormap requires a generic or constant pointer"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr) {
  nvvm.prefetch tensormap, evict_priority = evict_last, %g : !llvm.ptr
  return
}"#,
        Some("prefetch tensormap does not support eviction priority"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr<4>) {
  nvvm.prefetch tensormap in_param_space, %g : !llvm.ptr<4>
  return
}"#,
        Some("in_param_space can only be specified for a generic pointer"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr<4>) {
  nvvm.prefetch level = L1, %g : !llvm.ptr<4>
  return
}"#,
        Some("prefetch to cache level requires a generic, global, or local pointer"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr) {
  nvvm.prefetch level = L2 uniform, %g : !llvm.ptr
  return
}"#,
        Some("unsupported cache level, the only supported uniform cache level is L1"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr<1>) {
  nvvm.prefetch level = L1 uniform, %g : !llvm.ptr<1>
  return
}"#,
        Some("prefetch to uniform cache requires a generic pointer"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr<1>) {
  nvvm.prefetch level = L1, evict_priority = evict_last, %g : !llvm.ptr<1>
  return
}"#,
        Some("cache eviction priority supported only for cache level L2"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr) {
  nvvm.prefetch level = L2, evict_priority = evict_last, %g : !llvm.ptr
  return
}"#,
        Some("cache eviction priority requires a global pointer"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr<1>) {
  nvvm.prefetch level = L2, evict_priority = evict_first, %g : !llvm.ptr<1>
  return
}"#,
        Some("unsupported cache eviction priority, only evict_last and evict_normal are supported"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr, %p: i1) {
  nvvm.prefetch level = L1, %g, predicate = %p : !llvm.ptr, i1
  return
}"#,
        Some("predicate supported only on prefetch tensormap"),
    ),
    (
        r#"func.func @f(%r: i128) {
  %0 = nvvm.clusterlaunchcontrol.query.cancel query = is_canceled, %r : i1
  %1 = nvvm.clusterlaunchcontrol.query.cancel query = get_first_cta_id_y, %r : i32
  %2 = nvvm.read.ptx.sreg.tid.x range <i32, 0, 64> : i32
  %3 = nvvm.read.ptx.sreg.ctaid.y range <i32, 0, 0> : i32
  %4 = nvvm.read.ptx.sreg.laneid range <i32, -1, -1> : i32
  %5 = nvvm.read.ptx.sreg.warpsize range <i32, 4294967295, 4294967295> : i32
  %6 = nvvm.read.ptx.sreg.nctaid.z range <i64, 10, 2> : i32
  return
}"#,
        None,
    ),
    (
        r#"func.func @f(%r: i128) {
  %0 = nvvm.clusterlaunchcontrol.query.cancel query = is_canceled, %r : i32
  return
}"#,
        Some("is_canceled query type returns an i1"),
    ),
    (
        r#"func.func @f(%r: i128) {
  %0 = nvvm.clusterlaunchcontrol.query.cancel query = get_first_cta_id_z, %r : i1
  return
}"#,
        Some("get_first_cta_id_x, get_first_cta_id_y, get_first_cta_id_z query types return an i32"),
    ),
    (
        r#"func.func @f() {
  %0 = nvvm.read.ptx.sreg.tid.x range <i32, 5, 5> : i32
  return
}"#,
        Some("invalid range attribute: Lower == Upper, but they aren't min (0) or max (4294967295) value!"),
    ),
    (
        r#"func.func @f() {
  %0 = nvvm.read.ptx.sreg.cluster.ctarank range <i8, -3, -3> : i32
  return
}"#,
        Some("invalid range attribute: Lower == Upper, but they aren't min (0) or max (255) value!"),
    ),
    (
        r#"func.func @f(%m: memref<?xf32>, %m2: memref<4x?xf32>, %i: index, %mask: vector<16xi1>, %v: vector<16xf32>) {
  %0 = vector.expandload %m[%i], %mask, %v : memref<?xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
  vector.compressstore %m2[%i, %i], %mask, %v : memref<4x?xf32>, vector<16xi1>, vector<16xf32>
  return
}"#,
        None,
    ),
    (
        r#"func.func @f(%m: memref<?xf32>, %i: index, %mask: vector<16xi1>, %p: vector<16xf64>) {
  %0 = "vector.expandload"(%m, %i, %mask, %p) : (memref<?xf32>, index, vector<16xi1>, vector<16xf64>) -> vector<16xf64>
  return
}"#,
        Some("base and result element type should match"),
    ),
    (
        r#"func.func @f(%m: memref<?xf32>, %i: index, %mask: vector<16xi1>, %p: vector<8xf32>) {
  %0 = "vector.expandload"(%m, %i, %mask, %p) : (memref<?xf32>, index, vector<16xi1>, vector<8xf32>) -> vector<8xf32>
  return
}"#,
        Some("expected result dim to match mask dim"),
    ),
    (
        r#"func.func @f(%m: memref<?xf32>, %i: index, %mask: vector<16xi1>, %p: vector<8xf32>) {
  %0 = "vector.expandload"(%m, %i, %mask, %p) : (memref<?xf32>, index, vector<16xi1>, vector<8xf32>) -> vector<16xf32>
  return
}"#,
        Some("expected pass_thru of same type as result type"),
    ),
    (
        r#"func.func @f(%m: memref<?x?xf32>, %i: index, %mask: vector<16xi1>, %p: vector<16xf32>) {
  "vector.compressstore"(%m, %i, %mask, %p) : (memref<?x?xf32>, index, vector<16xi1>, vector<16xf32>) -> ()
  return
}"#,
        Some("requires 2 indices"),
    ),
    (
        r#"func.func @f(%m: memref<?xf32>, %i: index, %mask: vector<16xi1>, %p: vector<8xf32>) {
  "vector.compressstore"(%m, %i, %mask, %p) : (memref<?xf32>, index, vector<16xi1>, vector<8xf32>) -> ()
  return
}"#,
        Some("expected valueToStore dim to match mask dim"),
    ),
    (
        r#"func.func @f(%m: memref<?xi32>, %i: index, %mask: vector<16xi1>, %p: vector<16xf32>) {
  "vector.compressstore"(%m, %i, %mask, %p) : (memref<?xi32>, index, vector<16xi1>, vector<16xf32>) -> ()
  return
}"#,
        Some("base and valueToStore element type should match"),
    ),
    (
        r#"func.func @f() {
  nvvm.fence.proxy.sync_restrict {order = #nvvm.mem_order<acquire>}
  nvvm.fence.proxy.sync_restrict {order = #nvvm.mem_order<release>, fromProxy = #nvvm.proxy_kind<generic>, toProxy = #nvvm.proxy_kind<async>}
  return
}"#,
        None,
    ),
    (
        r#"func.func @f() {
  nvvm.fence.proxy.sync_restrict {order = #nvvm.mem_order<acquire>, fromProxy = #nvvm.proxy_kind<tensormap>, toProxy = #nvvm.proxy_kind<alias>}
  return
}"#,
        Some("only generic is support for from_proxy attribute"),
    ),
    (
        r#"func.func @f() {
  nvvm.fence.proxy.sync_restrict {order = #nvvm.mem_order<release>, toProxy = #nvvm.proxy_kind<async.shared>}
  return
}"#,
        Some("only async is supported for to_proxy attribute"),
    ),
    (
        r#"func.func @f() {
  nvvm.fence.proxy.sync_restrict {order = #nvvm.mem_order<weak>, toProxy = #nvvm.proxy_kind<alias>}
  return
}"#,
        Some("only acquire and release semantics are supported"),
    ),
    (
        r#"func.func @f(%a: !llvm.ptr<3>, %g: !llvm.ptr, %n: i32) {
  %0 = nvvm.mapa %a, %n : !llvm.ptr<3> -> !llvm.ptr<7>
  %1 = nvvm.mapa %g, %n : !llvm.ptr -> !llvm.ptr
  nvvm.mbarrier.init %a, %n : !llvm.ptr<3>, i32
  %2 = nvvm.mbarrier.test.wait %g, %n : !llvm.ptr, i32 -> i1
  return
}"#,
        None,
    ),
    (
        r#"func.func @f(%b: !llvm.ptr, %c: i32) {
  nvvm.mbarrier.complete_tx %b, %c : !llvm.ptr, i32
  return
}"#,
        Some("operand #0 must be LLVM pointer in address space 3 or LLVM pointer in address space 7, but got '!llvm.ptr'"),
    ),
    (
        r#"func.func @f(%b: !llvm.ptr<7>, %c: i32) {
  %0 = nvvm.mbarrier.try_wait %b, %c : !llvm.ptr<7>, i32 -> i1
  return
}"#,
        Some("operand #0 must be LLVM pointer in address space 0 or LLVM pointer in address space 3, but got '!llvm.ptr<7>'"),
    ),
    (
        r#"func.func @f(%a: !llvm.ptr<3>, %n: i32) {
  %0 = nvvm.mapa %a, %n : !llvm.ptr<3> -> !llvm.ptr<3>
  return
}"#,
        Some("result #0 must be LLVM pointer in address space 0 or LLVM pointer in address space 7, but got '!llvm.ptr<3>'"),
    ),
    (
        r#"func.func @f(%g: !llvm.ptr<3>) {
  nvvm.prefetch level = L1, %g : !llvm.ptr<3>
  return
}"#,
        Some("operand #0 must be LLVM pointer in address space 1 or LLVM pointer in address space 5 or LLVM pointer in address space 0 or LLVM pointer in address space 4, but got '!llvm.ptr<3>'"),
    ),
];

#[test]
fn nvvm_mem_rules_verdicts() {
    assert_verdicts(CASES);
}

#[test]
fn nvvm_mem_rules_messages_match_mlir_opt() {
    assert_mlir_agrees(CASES, "nvvm-mem");
}

#[test]
fn nvvm_mem_accepted_cases_round_trip() {
    let ok: Vec<&str> = CASES
        .iter()
        .filter(|(_, want)| want.is_none())
        .map(|(src, _)| *src)
        .collect();
    assert_round_trips(&ok);
}
