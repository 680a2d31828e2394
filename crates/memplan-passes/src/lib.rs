//! memplan-passes: analyses and transforms that join memplan-ir to memplan-core.
//!
//! The merge-alloc pipeline of seed 000 (MLIR PR #95882, "Compile-time memref.alloc
//! Scheduling and Merging") in four stages: buffer view flow
//! ([`analysis::alias`]), tick-based lifetime traces ([`analysis::lifetime`]), planning
//! through [`memplan_core::plan()`] on problems built by [`extract`], and the rewrite into
//! one arena per allocation scope and memory space ([`transform::merge_alloc`]).
//!
//! ```
//! use memplan_ir::{parse_module, ParseOptions, Registry};
//! use memplan_passes::transform::merge_alloc::{merge_alloc, MergeAllocOptions};
//! let reg = Registry::with_all_dialects();
//! let src = r#"func.func @f(%x: f32, %i: index) {
//!   %a = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
//!   "memref.store"(%x, %a, %i) : (f32, memref<16xf32>, index) -> ()
//!   %b = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16xf32>
//!   "memref.store"(%x, %b, %i) : (f32, memref<16xf32>, index) -> ()
//!   return
//! }"#;
//! let mut m = parse_module(src, &reg, ParseOptions::default()).unwrap();
//! let report = merge_alloc(&mut m, &MergeAllocOptions::default()).unwrap();
//! // a and b are never live together: one 64-byte arena holds both.
//! assert_eq!(report.scopes[0].arena_bytes, 64);
//! ```

pub mod analysis;
pub mod extract;
pub mod ops;
pub mod remarks;
pub mod transform;
