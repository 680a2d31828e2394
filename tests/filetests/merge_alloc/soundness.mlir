// RUN: memplan opt %s --merge-alloc=alignment=16 --print-lifetimes
// Issue 9's soundness rules, one case each: async kernels, sizes out of range, memory space 0,
// bufferization.dealloc entries, frees through callees, reshape shape operands.

// An async gpu.launch uses %a until its token is awaited by the blocking gpu.wait: %c, used
// before the wait, must not share %a's bytes; %b, after the wait, may. A token never awaited
// leaves its buffer alone.
func.func @asyncf(%x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  %t0 = gpu.wait async
  %t = gpu.launch async [%t0] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %x, %a[%c0] : memref<16xf32>
    gpu.terminator
  }
  memref.store %x, %c[%c0] : memref<16xf32>
  %v = memref.load %c[%c0] : memref<16xf32>
  gpu.wait [%t]
  %b = memref.alloc() : memref<16xf32>
  memref.store %v, %b[%c0] : memref<16xf32>
  %n = memref.alloc() : memref<16xf32>
  %t2 = gpu.launch async blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %x, %n[%c0] : memref<16xf32>
    gpu.terminator
  }
  return
}
// CHECK: // lifetime: @asyncf func %a ticks [7, 12] 64 B offset 0
// CHECK: // lifetime: @asyncf func %c ticks [10, 11] 64 B offset 64
// CHECK: // lifetime: @asyncf func %b ticks [14, 14] 64 B offset 0
// CHECK: // lifetime: @asyncf func %n ticks [16, 18] 64 B not merged: it is used by the asynchronous `gpu.launch`, whose token is never awaited by a blocking `gpu.wait`

// -----

// Sizes: 2^62 f32 elements overflow 64 bits; 2^48 + 1 bytes is above the pass's limit. Both stay,
// with a remark; the rest merges. (MLIR's own types allow both.)
func.func @sizes(%x: f32, %i: index) {
  %a = memref.alloc() : memref<4611686018427387904xf32>
  memref.store %x, %a[%i] : memref<4611686018427387904xf32>
  %b = memref.alloc() : memref<281474976710657xi8>
  %y = arith.fptosi %x : f32 to i8
  memref.store %y, %b[%i] : memref<281474976710657xi8>
  %c = memref.alloc() : memref<16xf32>
  memref.store %x, %c[%i] : memref<16xf32>
  return
}
// CHECK: // lifetime: @sizes func %a ticks [3, 3] not merged: its size in bytes does not fit in 64 bits
// CHECK: // lifetime: @sizes func %b ticks [6, 6] 281474976710657 B not merged: its size of 281474976710657 bytes is above the 281474976710656-byte limit of the pass
// CHECK: // lifetime: @sizes func %c ticks [8, 8] 64 B offset 0
// CHECK: // arena: @sizes func 64 B

// -----

// Memory space 0 is the default space: one arena for both.
func.func @space0(%x: f32, %i: index) {
  %a = memref.alloc() : memref<16xf32, 0>
  memref.store %x, %a[%i] : memref<16xf32, 0>
  %b = memref.alloc() : memref<16xf32>
  memref.store %x, %b[%i] : memref<16xf32>
  return
}
// CHECK: // lifetime: @space0 func %a ticks [3, 3] 64 B offset 0
// CHECK: // lifetime: @space0 func %b ticks [5, 5] 64 B offset 0
// CHECK: // arena: @space0 func 64 B
// CHECK-NEXT: module {

// -----

// bufferization.dealloc: merged buffers leave the memref list with their conditions; an entry
// whose condition is the constant false frees nothing; a retained buffer stays.
func.func @ownership(%arg0: memref<16xf32>, %x: f32, %i: index) -> memref<16xf32> {
  %false = arith.constant false
  %true = arith.constant true
  %a = memref.alloc() : memref<16xf32>
  memref.store %x, %a[%i] : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  %v = memref.load %a[%i] : memref<16xf32>
  memref.store %v, %b[%i] : memref<16xf32>
  %o = memref.alloc() : memref<16xf32>
  %w = memref.load %b[%i] : memref<16xf32>
  memref.store %w, %o[%i] : memref<16xf32>
  %base, %off, %sz, %st = memref.extract_strided_metadata %arg0 : memref<16xf32> -> memref<f32>, index, index, index
  %base_a, %off_a, %sz_a, %st_a = memref.extract_strided_metadata %a : memref<16xf32> -> memref<f32>, index, index, index
  %base_b, %off_b, %sz_b, %st_b = memref.extract_strided_metadata %b : memref<16xf32> -> memref<f32>, index, index, index
  %base_o, %off_o, %sz_o, %st_o = memref.extract_strided_metadata %o : memref<16xf32> -> memref<f32>, index, index, index
  %r = bufferization.dealloc (%base, %base_a, %base_b, %base_o : memref<f32>, memref<f32>, memref<f32>, memref<f32>) if (%false, %true, %true, %true) retain (%o : memref<16xf32>)
  return %o : memref<16xf32>
}
// CHECK: // lifetime: @ownership func %a ticks [5, 7] 64 B offset 0
// CHECK: // lifetime: @ownership func %b ticks [8, 10] 64 B offset 0
// CHECK: // lifetime: @ownership func %o ticks [11, 11] 64 B not merged: it is returned from the function; it is retained by a `bufferization.dealloc` (ownership decided by address)
// CHECK: %arena = memref.alloc() {alignment = 16 : i64} : memref<64xi8>
// CHECK: %r = bufferization.dealloc (%base#0, %base_o#0 : memref<f32>, memref<f32>) if (%false, %true) retain (%o : memref<16xf32>)
// CHECK-NEXT: memref.dealloc %arena : memref<64xi8>
// CHECK-NEXT: return

// -----

// A private callee that frees its argument: the caller's buffer stays. A callee that reads its
// argument and passes it on to one that only reads is an access; that buffer merges.
func.func private @frees(%m: memref<16xf32>) {
  memref.dealloc %m : memref<16xf32>
  return
}
func.func private @reads(%m: memref<16xf32>, %i: index) -> f32 {
  %v = memref.load %m[%i] : memref<16xf32>
  return %v : f32
}
func.func private @reads_via(%m: memref<16xf32>, %i: index) -> f32 {
  %v = call @reads(%m, %i) : (memref<16xf32>, index) -> f32
  return %v : f32
}
func.func @calls(%x: f32, %i: index) -> f32 {
  %a = memref.alloc() : memref<16xf32>
  memref.store %x, %a[%i] : memref<16xf32>
  call @frees(%a) : (memref<16xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  memref.store %x, %b[%i] : memref<16xf32>
  %v = call @reads_via(%b, %i) : (memref<16xf32>, index) -> f32
  memref.dealloc %b : memref<16xf32>
  return %v : f32
}
// CHECK: // lifetime: @calls func %a ticks [12, 12] 64 B not merged: it is freed by the callee @frees
// CHECK: // lifetime: @calls func %b ticks [15, 16] 64 B offset 0

// -----

// memref.reshape reads its shape operand: %shape is live until the reshape, so %t (written after
// the shape's last store, read before the reshape) cannot take its bytes.
func.func @reshape(%data: memref<16xf32>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %shape = memref.alloc() : memref<2xindex>
  memref.store %c4, %shape[%c0] : memref<2xindex>
  %t = memref.alloc() : memref<2xindex>
  memref.store %c4, %t[%c0] : memref<2xindex>
  %u = memref.load %t[%c0] : memref<2xindex>
  %r = memref.reshape %data(%shape) : (memref<16xf32>, memref<2xindex>) -> memref<?x?xf32>
  %v = memref.load %r[%u, %i] : memref<?x?xf32>
  return %v : f32
}
// CHECK: // lifetime: @reshape func %shape ticks [5, 9] 16 B offset 0
// CHECK: // lifetime: @reshape func %t ticks [7, 8] 16 B offset 16

// -----

// Addresses compared for equality: %a and %b never live together, but their addresses are
// compared, so they must not share an offset (distinct allocations never compare equal; their
// bytes may still overlap); %c's address is only compared with the argument's, so it may reuse
// %b's offset.
func.func @compare(%x: f32, %i: index, %arg: memref<16xf32>) -> i1 {
  %a = memref.alloc() : memref<16xf32>
  memref.store %x, %a[%i] : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.store %x, %b[%i] : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  memref.store %x, %c[%i] : memref<16xf32>
  %pa = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
  %pb = memref.extract_aligned_pointer_as_index %b : memref<16xf32> -> index
  %pc = memref.extract_aligned_pointer_as_index %c : memref<16xf32> -> index
  %px = memref.extract_aligned_pointer_as_index %arg : memref<16xf32> -> index
  %e1 = arith.cmpi eq, %pa, %pb : index
  %e2 = arith.cmpi ne, %pc, %px : index
  %r = arith.andi %e1, %e2 : i1
  return %r : i1
}
// CHECK: // lifetime: @compare func %a ticks [3, 3] 64 B offset 16
// CHECK: // lifetime: @compare func %b ticks [5, 5] 64 B offset 0
// CHECK: // lifetime: @compare func %c ticks [7, 7] 64 B offset 0

// -----

// Workgroup memory in a gpu.launch is shared by all threads of a block: merge-alloc leaves it to
// --merge-shared-memory (sharing bytes there needs barriers); private buffers still merge.
func.func @workgroup(%x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %w = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %w[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %w3 = memref.alloc() : memref<64xf32, 3>
    memref.store %x, %w3[%c0] : memref<64xf32, 3>
    %p = memref.alloc() : memref<64xf32>
    memref.store %x, %p[%c0] : memref<64xf32>
    %q = memref.alloc() : memref<64xf32>
    memref.store %x, %q[%c0] : memref<64xf32>
    gpu.terminator
  }
  return
}
// CHECK: // lifetime: @workgroup gpu.launch#0 %w ticks [6, 6] 256 B not merged: it is GPU workgroup memory, shared by the threads of a block (reuse needs barriers: use --merge-shared-memory)
// CHECK: // lifetime: @workgroup gpu.launch#0 %w3 ticks [8, 8] 256 B not merged: it is GPU workgroup memory
// CHECK: // lifetime: @workgroup gpu.launch#0 %p ticks [10, 10] 256 B offset 0
// CHECK: // lifetime: @workgroup gpu.launch#0 %q ticks [12, 12] 256 B offset 0
