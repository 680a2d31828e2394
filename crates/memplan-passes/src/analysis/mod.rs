//! Read-only analyses over memplan-ir: buffer view flow ([`alias`]), lifetime traces
//! ([`lifetime`]) and affine memory dependences ([`affine_deps`]). They never mutate IR;
//! transforms consume their results.

pub mod affine_deps;
pub mod alias;
pub mod lifetime;
