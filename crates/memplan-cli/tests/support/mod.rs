//! Shared code of the execution-oracle tests: the random program generators ([`progen`] for
//! merge-alloc, [`affgen`] for affine dependence analysis and fusion) and the MLIR 22 oracle
//! driver ([`oracle`]).
//!
//! Each integration-test binary compiles this module on its own (`mod support;`) and uses a
//! different part of it (`conformance` only the oracle's runner, `random_programs` everything),
//! so whatever one binary leaves unused would be reported as dead code there.
#![allow(dead_code)]

pub mod affgen;
pub mod oracle;
pub mod progen;
pub mod stackgen;
