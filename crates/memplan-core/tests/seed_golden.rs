//! Golden tests for the seed planners: the worked examples of the seed
//! documents (000 merge-alloc, 001 Inductor, 004 TVM) and small cases whose
//! expected peak is derived by hand in the comments, plus a randomised sweep
//! that runs every seed planner on problems with holes, alignments, fixed
//! offsets and several memory spaces. Every plan goes through the checker.

use memplan_core::algo::place::{hull_trace, TraceEvent};
use memplan_core::{
    bounds, check, check_offsets, plan, Algorithm, Buffer, Interval, MemSpace, Options, Problem,
};

const SEED_PLANNERS: [Algorithm; 5] = [
    Algorithm::ReuseExact,
    Algorithm::AllocationTree,
    Algorithm::MergeAllocSizeFirst,
    Algorithm::MergeAllocCostModel,
    Algorithm::TvmLayers,
];

/// Plans with `algo`, checks the plan independently, returns (offsets, peak).
fn run(p: &Problem, algo: Algorithm) -> (Vec<u64>, u64) {
    let plan = plan(p, &Options::with_algorithm(algo)).unwrap_or_else(|e| panic!("{algo}: {e}"));
    check(p, &plan).unwrap_or_else(|e| panic!("{algo}: {e}"));
    check_offsets(p, &plan.offsets).unwrap_or_else(|e| panic!("{algo}: {e}"));
    let peak = plan.peak();
    (plan.offsets, peak)
}

/// Seed 000's tick ranges are inclusive `[begin, end]`; ours are half-open.
fn ticks(size: u64, begin: u64, end_inclusive: u64) -> Buffer {
    Buffer::new(size, begin, end_inclusive + 1)
}

// ---------------------------------------------------------------- seed 000

#[test]
fn seed000_abc_trace_linearisation() {
    // A=[1,4] 16 B, B=[2,3] 64 B, C=[5,6] 16 B. The seed linearises this as
    // alloc(A) alloc(B) free(B) free(A) alloc(C) free(C).
    let p = Problem::new(vec![ticks(16, 1, 4), ticks(64, 2, 3), ticks(16, 5, 6)]);
    use TraceEvent::{Alloc, Free};
    assert_eq!(
        hull_trace(&p),
        vec![Alloc(0), Alloc(1), Free(1), Free(0), Alloc(2), Free(2)]
    );
}

#[test]
fn seed000_abc_static_planner() {
    // Replaying the trace: A takes [0,16), B [16,80). Freeing B then A merges
    // both into one free 80-byte chunk; C (16) splits it and takes its low
    // part, offset 0 = A's. Arena: 16 + 64 = 80 bytes (the lower bound).
    let p = Problem::new(vec![ticks(16, 1, 4), ticks(64, 2, 3), ticks(16, 5, 6)]);
    for algo in [
        Algorithm::MergeAllocSizeFirst,
        Algorithm::MergeAllocCostModel,
    ] {
        assert_eq!(run(&p, algo), (vec![0, 16, 0], 80), "{algo}");
    }
}

/// The seed's 4-matmul MLP: a0, b0, c0 are 128x128xf32 temporaries (65536 B);
/// a0 is written by matmul 1 and read by matmul 2, and so on (d0 is returned
/// and not merged).
fn mlp(c0_bytes: u64) -> Problem {
    Problem::new(vec![
        ticks(65536, 1, 2),    // a0
        ticks(65536, 2, 3),    // b0
        ticks(c0_bytes, 3, 4), // c0
    ])
}

#[test]
fn seed000_mlp_single_buffer() {
    // Expected by the seed: a0 at 0, b0 at 65536, c0 at 0 (reusing a0), one
    // buffer of 128*128*4*2 = 131072 bytes.
    let p = mlp(65536);
    for algo in [
        Algorithm::MergeAllocSizeFirst,
        Algorithm::MergeAllocCostModel,
    ] {
        assert_eq!(run(&p, algo), (vec![0, 65536, 0], 131072), "{algo}");
    }
    // Same-size reuse also finds it (Inductor's exact-size pool).
    assert_eq!(run(&p, Algorithm::ReuseExact), (vec![0, 65536, 0], 131072));
}

#[test]
fn seed000_extend_lets_a_larger_buffer_reuse() {
    // The seed's variant "c0 greater than a0" (here 96 KiB): a runtime
    // allocator cannot put c0 in a0's 64 KiB hole, the static planner extends
    // that chunk by 32 KiB and shifts b0 up. Hand: a0 = c0 = 0, b0 = 98304,
    // peak = b0 + c0 = 65536 + 98304 = 163840 = the lower bound.
    let p = mlp(98304);
    assert_eq!(bounds::max_load(&p), 163840);
    for algo in [
        Algorithm::MergeAllocSizeFirst,
        Algorithm::MergeAllocCostModel,
    ] {
        assert_eq!(run(&p, algo), (vec![0, 98304, 0], 163840), "{algo}");
    }
    // Exact-size reuse cannot: three storages, 65536 * 2 + 98304.
    assert_eq!(run(&p, Algorithm::ReuseExact).1, 229376);
}

// ---------------------------------------------------------------- seed 001

#[test]
fn seed001_reuse_pool_is_keyed_by_size() {
    // Alloc/free in order, the pool keyed by size: x (256) dies, y (256)
    // takes x's storage; z (128) finds no 128-byte entry and gets a new one;
    // w (256) starts when y died and takes it. Storages: 256 + 128 = 384.
    let p = Problem::new(vec![
        Buffer::new(256, 0, 2), // x
        Buffer::new(256, 2, 4), // y
        Buffer::new(128, 3, 5), // z
        Buffer::new(256, 4, 6), // w
    ]);
    let (offs, peak) = run(&p, Algorithm::ReuseExact);
    assert_eq!(offs, vec![0, 0, 256, 0]);
    assert_eq!(peak, 384);
}

#[test]
fn seed001_temporal_split_reuses_a_slot() {
    // "No overlap in live range": a smaller block joins the root TemporalSplit
    // as SpatialSplit(block, Empty); a later block of the Empty's size fits the
    // Empty. Sorted: a 100 [0,2), b 70 [2,6), c 30 [3,5).
    // b -> under a in time at 0 with Empty 30; c overlaps only b's child, b's
    // Allocation refuses, the Empty (30) takes it: c at 70. Peak 100 = LB.
    let p = Problem::new(vec![
        Buffer::new(100, 0, 2),
        Buffer::new(70, 2, 6),
        Buffer::new(30, 3, 5),
    ]);
    assert_eq!(run(&p, Algorithm::AllocationTree), (vec![0, 0, 70], 100));
}

#[test]
fn seed001_root_grows_when_nothing_fits() {
    // "If allocating on the root fails, wrap root and the block in a
    // SpatialSplit under a new TemporalSplit root": a 100 and b 80 are co-live,
    // b goes on top (100); c 50 [0,1) overlaps both a and b's subtree: the
    // root's only child (the spatial split) is entered, its left side (a's
    // slot) holds a live allocation, its right side (b) too: grow again, c at
    // 180. Peak 230 = the lower bound (all three live at tick 0).
    let p = Problem::new(vec![
        Buffer::new(100, 0, 4),
        Buffer::new(80, 0, 4),
        Buffer::new(50, 0, 1),
    ]);
    assert_eq!(run(&p, Algorithm::AllocationTree), (vec![0, 100, 180], 230));
}

#[test]
fn seed001_two_overlapping_children_fail() {
    // "If several temporal children overlap the block, fail" (Inductor's
    // TODO): a 100 [0,2) and b 100 [3,5) share the root slot; c 40 [1,4)
    // overlaps both, so it goes on top although [0,100) is free in between
    // for part of its life. Peak 140 (LB is 140 as well: a + c at tick 1).
    let p = Problem::new(vec![
        Buffer::new(100, 0, 2),
        Buffer::new(100, 3, 5),
        Buffer::new(40, 1, 4),
    ]);
    assert_eq!(run(&p, Algorithm::AllocationTree), (vec![0, 0, 100], 140));
}

#[test]
fn seed001_size_descending_order() {
    // Input order small-first; the tree still places biggest first: big (90)
    // at 0, then mid (60) under it in time, then small (30) in mid's Empty.
    // Hand: peak 90.
    let p = Problem::new(vec![
        Buffer::new(30, 5, 7), // small, overlaps mid only
        Buffer::new(60, 4, 8), // mid, after big
        Buffer::new(90, 0, 4), // big
    ]);
    assert_eq!(run(&p, Algorithm::AllocationTree), (vec![60, 0, 0], 90));
}

// ---------------------------------------------------------------- seed 004

#[test]
fn seed004_gemm_tiles_reuse() {
    // Asub, Bsub, Csub: 32x32 floats = 4096 B each. Asub and Bsub are dead
    // once Cvalue is computed; Csub is written after. Csub takes the first
    // freed 4096 B entry (Asub's): 2048 floats instead of 3072 (saving the
    // 1024 floats of the seed). Layout: final free map (Bsub's entry, freed
    // earlier, then Asub/Csub's) -> Bsub at 0, Asub = Csub at 4096.
    let p = Problem::new(vec![
        Buffer::new(4096, 0, 2), // Asub
        Buffer::new(4096, 0, 2), // Bsub
        Buffer::new(4096, 2, 3), // Csub
    ]);
    let (offs, peak) = run(&p, Algorithm::TvmLayers);
    assert_eq!(offs, vec![4096, 0, 4096]);
    assert_eq!(peak, 8192);
}

#[test]
fn seed004_reuse_1024_for_512() {
    // A freed 1024-byte entry serves a 512-byte buffer (1024 <= 16 * 512):
    // offset 0, peak 1024.
    let p = Problem::new(vec![Buffer::new(1024, 0, 2), Buffer::new(512, 2, 4)]);
    assert_eq!(run(&p, Algorithm::TvmLayers), (vec![0, 0], 1024));
}

#[test]
fn seed004_layers_stack_smaller_entries() {
    // int8 A_shared[32], B_shared[32], then C_shared[64] after both died.
    // StorageRewrite's simple reuse wastes 32 bytes (96 in all); FindAlloc
    // finds nothing in [64, 1024], so it stacks the two 32 B entries (B's
    // first: equal sizes, freed last first) and puts C over both: 64 bytes.
    let p = Problem::new(vec![
        Buffer::new(32, 0, 2), // A_shared
        Buffer::new(32, 0, 2), // B_shared
        Buffer::new(64, 2, 4), // C_shared
    ]);
    assert_eq!(run(&p, Algorithm::TvmLayers), (vec![32, 0, 0], 64));
}

// ---------------------------------------------------- hand-derived cases

#[test]
fn chain_of_equal_buffers() {
    // Five 64-byte buffers, each live [i, i+2): two are live at any tick, so
    // LB = 128. Every seed planner reaches it:
    // reuse-exact ping-pongs two storages; the tree alternates two slots
    // (the root grows once); merge-alloc reuses the freed chunk; TVM reuses
    // the freed entry of equal size.
    let p = Problem::new((0..5).map(|i| Buffer::new(64, i, i + 2)).collect());
    assert_eq!(bounds::max_load(&p), 128);
    for algo in SEED_PLANNERS {
        assert_eq!(run(&p, algo).1, 128, "{algo}");
    }
}

#[test]
fn growing_chain_separates_the_planners() {
    // Sizes 10, 20, 30, 40 each live [i, i+2): LB = 30 + 40 = 70.
    // reuse-exact: no two sizes equal -> 10+20+30+40 = 100.
    // merge-alloc (both): 10 @0, 20 @10; 10 dies, 30 extends the 10-chunk
    //   to 30 (20 moves to 30); 20 dies, 40 extends it to 40: peak 30 + 40 = 70.
    // tvm: 20 finds nothing free (10 is still live) -> entry E1; 10 dies, 30
    //   finds only the 10-entry below it and grows it into a 30 entry; 20
    //   dies, 40 grows E1 into a 40 entry: entries 30 + 40 = 70.
    // allocation-tree (biggest first): 40 at 0; 30 [2,4) overlaps it, the root
    //   grows, 30 at 40; 20 [1,3) fits 40's slot beside 40 in time (at 0,
    //   with a 20-byte Empty); 10 [0,2) overlaps only 20's subtree and takes
    //   that Empty (at 20). Peak 40 + 30 = 70.
    let p = Problem::new(vec![
        Buffer::new(10, 0, 2),
        Buffer::new(20, 1, 3),
        Buffer::new(30, 2, 4),
        Buffer::new(40, 3, 5),
    ]);
    assert_eq!(bounds::max_load(&p), 70);
    assert_eq!(run(&p, Algorithm::ReuseExact).1, 100);
    for algo in [
        Algorithm::MergeAllocSizeFirst,
        Algorithm::MergeAllocCostModel,
        Algorithm::TvmLayers,
        Algorithm::AllocationTree,
    ] {
        assert_eq!(run(&p, algo).1, 70, "{algo}");
    }
}

#[test]
fn fixed_buffer_and_alignment_are_honoured() {
    // A fixed 64-byte buffer at [0, 64) live all along, and two 32-byte
    // buffers (align 64) live at the same time: they go above it, at 64 and
    // 128 -> peak 160 for every planner (the lower bound 128 is not reachable
    // with alignment 64).
    let p = Problem::new(vec![
        Buffer::new(64, 0, 10).fixed_at(0),
        Buffer::new(32, 1, 5).with_align(64),
        Buffer::new(32, 2, 6).with_align(64),
    ]);
    for algo in SEED_PLANNERS {
        let (offs, peak) = run(&p, algo);
        assert_eq!(offs[0], 0, "{algo}");
        assert_eq!(peak, 160, "{algo}");
    }
}

#[test]
fn holes_are_reused_by_the_tree_only() {
    // a lives [0,2) and [6,8); b (same size) lives [2,6), inside a's hole.
    // allocation-tree sees real intervals: b shares a's bytes -> peak 64.
    // The trace planners use hulls: a and b look co-live -> 128.
    let a = Buffer::new(64, 0, 8).with_live(vec![Interval::new(0, 2), Interval::new(6, 8)]);
    let p = Problem::new(vec![a, Buffer::new(64, 2, 6)]);
    assert_eq!(run(&p, Algorithm::AllocationTree).1, 64);
    for algo in [
        Algorithm::ReuseExact,
        Algorithm::MergeAllocSizeFirst,
        Algorithm::MergeAllocCostModel,
        Algorithm::TvmLayers,
    ] {
        assert_eq!(run(&p, algo).1, 128, "{algo}");
    }
}

// ---------------------------------------------------------- random sweep

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_problem(rng: &mut Rng) -> Problem {
    let n = 1 + rng.below(40) as usize;
    let mut bufs = Vec::with_capacity(n);
    let mut fixed_slot = 0u64;
    for _ in 0..n {
        // Sizes from a few classes so that exact-size reuse also happens.
        let size = match rng.below(3) {
            0 => [16, 32, 64, 100][rng.below(4) as usize],
            1 => 1 + rng.below(8),
            _ => 1 + rng.below(300),
        };
        let start = rng.below(30);
        let mut b = Buffer::new(size, start, start + 1 + rng.below(12));
        if rng.below(4) == 0 {
            // A hole in the middle.
            let end = b.end() + 2 + rng.below(8);
            let mid = start + 1;
            b = b.with_live(vec![
                Interval::new(start, mid),
                Interval::new(mid + 1 + rng.below(3), end),
            ]);
        }
        b = b.with_align(1 << rng.below(5));
        if rng.below(3) == 0 {
            b = b.in_space(MemSpace(3));
        }
        if rng.below(10) == 0 {
            // Fixed buffers get disjoint 1024-byte slots: they never collide.
            b = b.fixed_at(fixed_slot * 1024);
            fixed_slot += 1;
        }
        bufs.push(b);
    }
    Problem::new(bufs)
}

#[test]
fn random_problems_give_valid_plans() {
    let mut rng = Rng(0x5eed_0000_0000_0001);
    for _ in 0..400 {
        let p = random_problem(&mut rng);
        p.validate().expect("generator makes valid problems");
        let lb = bounds::max_load(&p);
        for algo in SEED_PLANNERS {
            let (_, peak) = run(&p, algo);
            assert!(peak >= lb, "{algo}: peak {peak} below the lower bound {lb}");
        }
    }
}
