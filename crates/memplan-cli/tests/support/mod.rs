//! Shared code of the execution-oracle tests: the random program generator ([`progen`]) and the
//! MLIR 22 oracle driver ([`oracle`]).

pub mod oracle;
pub mod progen;
