//! What the passes know about individual operations, by name.
//!
//! MLIR answers these questions through interfaces (`ViewLikeOpInterface`,
//! `MemoryEffectOpInterface`, `RegionBranchOpInterface`, `CallOpInterface`); memplan's IR
//! has no interfaces, so this module keeps the equivalent tables. Everything not listed
//! here is treated conservatively: an unknown op reads and writes every buffer it is
//! given and its memref results may alias its memref operands (the fallback of MLIR's
//! `BufferViewFlowAnalysis`, ARCHITECTURE.md trait 9), and an unknown op *with regions*
//! that touches a buffer makes that buffer unmergeable.

use memplan_ir::{Module, OpId, Type, TypeKind};

/// How an operation relates to the buffers its operands point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// `memref.alloc`: a fresh buffer (a merge candidate).
    Alloc,
    /// Produces a buffer the pass does not own (`memref.alloca`, `memref.get_global`, ...).
    ForeignBuffer,
    /// Result 0 is a view of operand 0; no memory access to operand 0 (`memref.subview`,
    /// `memref.cast`, ...). Any *other* memref operand is read (`memref.reshape` reads its
    /// shape operand).
    View,
    /// `arith.select`: the result is operand 1 or operand 2; no access.
    Select,
    /// Reads only metadata (`memref.dim`): no access, no alias.
    MetadataOnly,
    /// `memref.dealloc`: frees its operand; not an access.
    Dealloc,
    /// `bufferization.dealloc`: frees its first operand group under conditions and answers,
    /// for each retained value, whether ownership of it passed (a pointer comparison).
    BufferizationDealloc,
    /// `func.return`: its operands escape the function.
    Return,
    /// `func.call`: escapes when the callee is only a declaration, otherwise an access.
    Call,
    /// A call the pass cannot resolve (`func.call_indirect`): operands escape.
    UnknownCall,
    /// Turns a buffer into a plain pointer or integer (`memref.extract_aligned_pointer_as_index`).
    PointerEscape,
    /// Stores operand 0 into memory (`memref.store`): a buffer there escapes.
    Store,
    /// A region terminator that hands values to the parent op (`scf.yield`, `scf.condition`).
    Yield,
    /// A branch (`cf.br`, `cf.cond_br`): operands flow into successor block arguments.
    Branch,
    /// An op with regions whose control flow the pass understands (`scf.for`, `linalg.generic`).
    KnownRegion,
    /// An op with regions the pass does not understand.
    UnknownRegion,
    /// Anything else: an access to every buffer operand; results alias operands.
    Other,
}

const VIEWS: &[&str] = &[
    "memref.view",
    "memref.subview",
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.transpose",
    "memref.memory_space_cast",
    "memref.assume_alignment",
    "memref.reshape",
    "memref.extract_strided_metadata",
    "bufferization.to_tensor",
    "bufferization.to_buffer",
    "bufferization.to_memref",
    // The lifeline of seed 002: the buffer itself, between its lifetime markers. Its
    // `memplan.lifetime_end` touches no memory (METADATA_ONLY): a buffer is live from its
    // first to its last access, wherever the markers sit.
    "memplan.lifetime_start",
];

const METADATA_ONLY: &[&str] = &["memref.dim", "memref.rank", "memplan.lifetime_end"];

const FOREIGN: &[&str] = &[
    "memref.alloca",
    "memref.get_global",
    "memref.realloc",
    "gpu.alloc",
    "bufferization.alloc_tensor",
];

const POINTER_ESCAPES: &[&str] = &[
    "memref.extract_aligned_pointer_as_index",
    "builtin.unrealized_conversion_cast",
    "llvm.ptrtoint",
    "memref.atomic_rmw_pointer",
];

const STORES: &[&str] = &[
    "memref.store",
    "affine.store",
    "llvm.store",
    "memref.atomic_rmw",
];

const YIELDS: &[&str] = &[
    "scf.yield",
    "scf.condition",
    "scf.reduce",
    "scf.reduce.return",
    "scf.forall.in_parallel",
    "affine.yield",
    "memref.alloca_scope.return",
    "memref.atomic_yield",
    "gpu.terminator",
    "gpu.yield",
    "linalg.yield",
    "tensor.yield",
];

/// Region ops whose regions run in a way the tick model covers: each region runs zero or
/// more times, in order, while the op executes, and values reach the parent only through
/// its terminators.
const KNOWN_REGION_OPS: &[&str] = &[
    "builtin.module",
    "func.func",
    "gpu.func",
    "gpu.module",
    "gpu.launch",
    "scf.for",
    "scf.if",
    "scf.while",
    "scf.execute_region",
    "scf.index_switch",
    "scf.forall",
    "scf.forall.in_parallel",
    "scf.parallel",
    "scf.reduce",
    "affine.for",
    "affine.if",
    "affine.parallel",
    "memref.alloca_scope",
    "memref.generic_atomic_rmw",
];

/// Region ops whose regions run at most once per execution of the op (no repetition, no
/// parallel instances): an access inside them is ordered like straight-line code, so the
/// lifetime of an outer buffer is not stretched over them. Everything else with regions
/// (loops, parallel ops, linalg bodies, kernels) may run its body many times or at once.
pub const NON_REPEATING_OPS: &[&str] = &[
    "scf.if",
    "scf.execute_region",
    "scf.index_switch",
    "affine.if",
];

/// Loops whose terminators carry values into the next iteration.
pub const LOOP_OPS: &[&str] = &["scf.for", "scf.while", "affine.for"];

/// Ops whose (first) region body is an allocation scope: one arena per body.
pub const SCOPE_OPS: &[&str] = &[
    "func.func",
    "gpu.func",
    "scf.forall",
    "scf.parallel",
    "gpu.launch",
    "affine.parallel",
    "memref.alloca_scope",
];

/// Function-like ops: their entry block arguments come from callers.
pub const FUNCTION_OPS: &[&str] = &["func.func", "gpu.func", "llvm.func"];

/// Classifies an op by its name (and whether it has regions or successors).
pub fn classify(m: &Module, op: OpId) -> OpKind {
    let d = m.op(op);
    let name = d.name.as_str();
    if !m.regions(op).is_empty() {
        if KNOWN_REGION_OPS.contains(&name) || name.starts_with("linalg.") {
            return OpKind::KnownRegion;
        }
        return OpKind::UnknownRegion;
    }
    if !d.successors.is_empty() {
        return OpKind::Branch;
    }
    match name {
        "memref.alloc" => OpKind::Alloc,
        "memref.dealloc" => OpKind::Dealloc,
        "bufferization.dealloc" => OpKind::BufferizationDealloc,
        "func.return" => OpKind::Return,
        "func.call" => OpKind::Call,
        "func.call_indirect" => OpKind::UnknownCall,
        "arith.select" => OpKind::Select,
        _ if VIEWS.contains(&name) => OpKind::View,
        _ if METADATA_ONLY.contains(&name) => OpKind::MetadataOnly,
        _ if FOREIGN.contains(&name) => OpKind::ForeignBuffer,
        _ if POINTER_ESCAPES.contains(&name) => OpKind::PointerEscape,
        _ if STORES.contains(&name) => OpKind::Store,
        _ if YIELDS.contains(&name) => OpKind::Yield,
        _ => OpKind::Other,
    }
}

/// True for types that may carry a buffer address: memrefs, tensors (after
/// `bufferization.to_tensor`), tuples and dialect types. Scalars and vectors cannot.
pub fn is_pointer_like(t: &Type) -> bool {
    !matches!(
        t.kind(),
        TypeKind::Integer { .. }
            | TypeKind::Index
            | TypeKind::Float(_)
            | TypeKind::Vector { .. }
            | TypeKind::Complex(_)
            | TypeKind::None
            | TypeKind::Function { .. }
    )
}

/// Bytes one element of `t` occupies in memory under the default data layout of the
/// LLVM lowering: `index` is 8 bytes; integers and floats round their bit width up to a
/// power-of-two number of bytes (`i1` and `i4` take 1, `i24` takes 4, like LLVM's alloc
/// size); `complex<T>` is two `T`; a vector counts all its elements, its innermost
/// dimension rounded up to a power of two (MLIR's default vector layout, and LLVM's
/// alloc size of `<3 x float>` is 16). `None` for types without a known size.
pub fn element_bytes(t: &Type) -> Option<u64> {
    match t.kind() {
        TypeKind::Index => Some(8),
        TypeKind::Integer { width, .. } => Some(scalar_bytes(u64::from(*width))),
        TypeKind::Float(k) => Some(scalar_bytes(u64::from(k.bit_width()))),
        TypeKind::Complex(e) => element_bytes(e)?.checked_mul(2),
        TypeKind::Vector {
            shape,
            scalable,
            elem,
        } => {
            if scalable.iter().any(|&s| s) || shape.is_empty() {
                return None;
            }
            let bits = match elem.kind() {
                TypeKind::Index => 64,
                TypeKind::Integer { width, .. } => u64::from(*width),
                TypeKind::Float(k) => u64::from(k.bit_width()),
                _ => return None,
            };
            let (&inner, outer) = shape.split_last()?;
            let inner = u64::try_from(inner).ok()?.checked_next_power_of_two()?;
            let outer = outer
                .iter()
                .try_fold(1u64, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?))?;
            let total_bits = outer.checked_mul(inner)?.checked_mul(bits)?;
            Some(total_bits.div_ceil(8).max(1))
        }
        _ => None,
    }
}

fn scalar_bytes(bits: u64) -> u64 {
    bits.div_ceil(8).max(1).next_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;
    use memplan_ir::FloatKind;

    #[test]
    fn element_sizes_follow_the_data_layout() {
        assert_eq!(element_bytes(&Type::index()), Some(8));
        assert_eq!(element_bytes(&Type::int(1)), Some(1));
        assert_eq!(element_bytes(&Type::int(4)), Some(1));
        assert_eq!(element_bytes(&Type::int(16)), Some(2));
        assert_eq!(element_bytes(&Type::int(24)), Some(4));
        assert_eq!(element_bytes(&Type::float(FloatKind::F32)), Some(4));
        let c = Type::new(TypeKind::Complex(Type::float(FloatKind::F64)));
        assert_eq!(element_bytes(&c), Some(16));
        let v = |shape: Vec<i64>, elem: Type| {
            Type::new(TypeKind::Vector {
                scalable: vec![false; shape.len()],
                shape,
                elem,
            })
        };
        assert_eq!(
            element_bytes(&v(vec![4], Type::float(FloatKind::F32))),
            Some(16)
        );
        assert_eq!(
            element_bytes(&v(vec![3], Type::float(FloatKind::F32))),
            Some(16)
        );
        assert_eq!(element_bytes(&v(vec![2, 4], Type::index())), Some(64));
        assert_eq!(element_bytes(&v(vec![8], Type::int(1))), Some(1));
        assert_eq!(element_bytes(&Type::none()), None);
    }
}
