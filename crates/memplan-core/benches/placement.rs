//! Criterion benchmarks of the placement heuristics on a large synthetic trace.
//!
//! The trace mimics an inference graph run op by op: every tick produces one or
//! two tensors, most of which die a few ticks later (activations), a few live
//! much longer (skip connections), sizes span 256 B to a few MiB, a quarter of
//! the buffers want 64-byte alignment. About twenty to forty buffers are live at
//! any tick. The generator is a fixed 64-bit LCG, so every run sees the same
//! problem without a `rand` dependency.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use memplan_core::{plan, Algorithm, Buffer, Options, Problem};

/// Knuth's MMIX LCG; the high bits are the good ones.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// Uniform-ish in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `n` buffers of a realistic inference trace (deterministic).
fn synthetic(n: usize, seed: u64) -> Problem {
    let mut rng = Lcg(seed);
    let mut buffers = Vec::with_capacity(n);
    let mut tick = 0u64;
    while buffers.len() < n {
        tick += 1;
        let produced = 1 + rng.below(2);
        for _ in 0..produced {
            let kind = rng.below(100);
            let len = match kind {
                0..=79 => 1 + rng.below(6),   // consumed by the next few ops
                80..=97 => 6 + rng.below(40), // branches, residuals
                _ => 50 + rng.below(400),     // long skip connections
            };
            // 256 B .. 4 MiB, log-uniform, times a small odd factor.
            let size = (256u64 << rng.below(14)) * (1 + 2 * rng.below(3));
            let mut b = Buffer::new(size, tick, tick + len);
            if rng.below(4) == 0 {
                b = b.with_align(64);
            }
            buffers.push(b);
        }
    }
    buffers.truncate(n);
    Problem::new(buffers)
}

fn placement(c: &mut Criterion) {
    let mut group = c.benchmark_group("placement");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for &n in &[10_000usize, 1_000_000] {
        let problem = synthetic(n, 0x5eed);
        for algo in [
            Algorithm::GreedySize,
            Algorithm::GreedyBreadth,
            Algorithm::BestFitSpatial,
            Algorithm::BestFitTemporal,
        ] {
            let opts = Options::with_algorithm(algo);
            group.bench_with_input(BenchmarkId::new(algo.name(), n), &problem, |b, p| {
                b.iter(|| plan(black_box(p), &opts).expect("synthetic problems are valid"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, placement);
criterion_main!(benches);
