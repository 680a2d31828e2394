//! A small Fx-style hasher (the multiply-rotate hash rustc uses, `rustc-hash`) for the
//! parser's and printer's lookup tables: much cheaper than SipHash on short keys. Only used
//! for lookups, never for iteration order that could reach the output (determinism rule).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hasher state.
#[derive(Clone, Copy, Default)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            self.add(u64::from_le_bytes(b));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b) ^ (rest.len() as u64) << 59);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    /// The multiply leaves the low bits of the state depending only on the low bits of the
    /// input (for `m123` the low byte is always `m`), and hashbrown picks buckets from the
    /// low bits: rotating the well-mixed high bits down (as `rustc-hash` 2 does) keeps
    /// names with a common prefix from piling into a few long probe chains.
    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

/// A `HashMap` with the Fx hasher.
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A `HashSet` with the Fx hasher.
pub type FxHashSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, BuildHasherDefault};

    /// Names sharing a prefix (`m0`, `m1`, ...) must spread over the low bits that pick
    /// hash-table buckets (with the raw multiply state the low byte was constant).
    #[test]
    fn low_bits_spread_for_common_prefixes() {
        let b = BuildHasherDefault::<FxHasher>::default();
        let mut seen = FxHashSet::default();
        for i in 0..4096 {
            seen.insert(b.hash_one(format!("m{i}")) & 0xfff);
        }
        // 4096 random draws into 4096 slots hit about 63% of them.
        assert!(
            seen.len() > 2000,
            "only {} distinct low 12-bit values",
            seen.len()
        );
    }
}
