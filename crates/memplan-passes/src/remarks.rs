//! Remarks: what a pass did or declined to do, attached to an op's source span.
//!
//! Like MLIR's `-pass-remarks` / `emitRemark`, a remark is information, never an error:
//! a pass that skips an allocation says why here (ARCHITECTURE.md trait 9). The library
//! only collects them; the CLI renders them with `file:line:col`.

use memplan_ir::{OpId, Span};

/// One remark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remark {
    /// The op it is about.
    pub op: OpId,
    /// Where the op was written (empty for created ops).
    pub span: Span,
    /// The text, starting with the pass name (`merge-alloc: ...`).
    pub message: String,
}
