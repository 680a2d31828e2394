//! IR transforms. Each decides legality first (with a reason for every refusal) and
//! mutates second (ARCHITECTURE.md trait 10).

pub mod llvm_lifetime;
pub mod memref_lifetime;
pub mod merge_alloc;
pub mod merge_shared;
