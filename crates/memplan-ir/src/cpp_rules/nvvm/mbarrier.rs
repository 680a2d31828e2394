//! C++ verifier rules of the NVVM `mbarrier.*` ops (MLIR 22's `verify()` of the arrive-like,
//! expect/complete-tx and wait ops): the memory scope, a result on a shared::cluster
//! barrier, and the inline-PTX (predicated) form of `arrive.expect_tx`.

use super::misc::ptr_space;
use crate::attrs::Attribute;
use crate::cpp_rules::{enum_of, group, named_operands};
use crate::ir::{Module, OpId};

/// NVVM's shared::cluster address space.
const SHARED_CLUSTER: u64 = 7;

/// Runs the rule of `id` if it is an mbarrier op with a C++ verifier.
pub(super) fn verify(m: &Module, id: OpId) -> Result<(), String> {
    let name = m.op(id).name.as_str();
    // ops whose result (if any) is checked against a shared::cluster barrier
    let with_result = matches!(
        name,
        "nvvm.mbarrier.arrive"
            | "nvvm.mbarrier.arrive_drop"
            | "nvvm.mbarrier.arrive.expect_tx"
            | "nvvm.mbarrier.arrive_drop.expect_tx"
    );
    let scope_only = matches!(
        name,
        "nvvm.mbarrier.expect_tx"
            | "nvvm.mbarrier.complete_tx"
            | "nvvm.mbarrier.test.wait"
            | "nvvm.mbarrier.try_wait"
    );
    if !with_result && !scope_only {
        return Ok(());
    }
    // `scope` defaults to CTA.
    let scope = enum_of(m, id, "scope").unwrap_or("cta");
    let space = m.operands(id).first().and_then(|&v| ptr_space(m, v));
    let has_res = !m.results(id).is_empty();
    if name == "nvvm.mbarrier.arrive.expect_tx" {
        let predicated = named_operands(m, id)
            .map(|g| !group(&g, "predicate").is_empty())
            .unwrap_or(false);
        if predicated {
            if scope != "cta" {
                return Err("mbarrier scope must be CTA when using predicate".into());
            }
            if space == Some(SHARED_CLUSTER) {
                return Err(
                    "mbarrier in shared_cluster space is not supported when using predicate".into(),
                );
            }
            if has_res {
                return Err("return-value is not supported when using predicate".into());
            }
            if matches!(
                m.op(id)
                    .props
                    .get("relaxed")
                    .or_else(|| m.op(id).attrs.get("relaxed")),
                Some(Attribute::Bool(true))
            ) {
                return Err(
                    "mbarrier with relaxed semantics is not supported when using predicate".into(),
                );
            }
        }
    }
    if scope != "cta" && scope != "cluster" {
        return Err("mbarrier scope must be either CTA or Cluster".into());
    }
    if with_result && has_res && space == Some(SHARED_CLUSTER) {
        return Err("mbarrier in shared_cluster space cannot return any value".into());
    }
    Ok(())
}
