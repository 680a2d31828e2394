//! IR transforms. Each decides legality first (with a reason for every refusal) and
//! mutates second (ARCHITECTURE.md trait 10).

pub mod affine_fusion;
pub mod llvm_lifetime;
pub mod memref_lifetime;
pub mod merge_alloc;
pub mod merge_shared;

/// The `key=value` items of a pass-option string, mlir-opt style: separated by spaces or
/// commas, optionally wrapped in `{...}`; a bare `key` has the empty value.
pub(crate) fn option_items(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.trim()
        .trim_matches(|c| c == '{' || c == '}')
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|item| !item.is_empty())
        .map(|item| item.split_once('=').unwrap_or((item, "")))
}
