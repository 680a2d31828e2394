//! Read-only analyses over memplan-ir: buffer view flow ([`alias`]) and lifetime traces
//! ([`lifetime`]). They never mutate IR; transforms consume their results.

pub mod alias;
pub mod lifetime;
