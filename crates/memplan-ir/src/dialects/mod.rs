//! Custom assembly formats, one file per dialect. Each file exposes `register(&mut Registry)`
//! adding [`OpDef`](crate::registry::OpDef)s with a parse fn, a print fn, traits, a default
//! dialect and the inherent attribute names. `builtin.rs` and `func.rs` are the reference
//! examples (regions, symbols, signatures); `arith.rs` shows the compact pattern for
//! families of simple ops. To add a dialect: create `dialects/NAME.rs` with a `register`
//! function and call it from [`register_all`].

pub mod affine;
pub mod affine_dma;
pub mod arith;
pub mod async_ops;
pub mod bufferization;
pub mod builtin;
pub mod cf;
pub mod dlti;
pub mod func;
pub mod gpu;
pub mod linalg;
pub mod linalg_named;
#[rustfmt::skip]
pub mod linalg_named_table;
pub mod llvm;
pub mod math;
pub mod memref;
pub mod nvgpu;
pub mod nvvm;
pub mod rocdl;
pub mod scf;
pub mod tensor;
pub mod transform;
pub mod ub;
pub mod vector;

use crate::registry::Registry;

/// Registers every dialect memplan knows.
pub fn register_all(r: &mut Registry) {
    builtin::register(r);
    func::register(r);
    arith::register(r);
    memref::register(r);
    scf::register(r);
    cf::register(r);
    affine::register(r);
    affine_dma::register(r);
    bufferization::register(r);
    math::register(r);
    linalg::register(r);
    tensor::register(r);
    vector::register(r);
    ub::register(r);
    gpu::register(r);
    llvm::register(r);
    async_ops::register(r);
    nvvm::register(r);
    transform::register(r);
}
