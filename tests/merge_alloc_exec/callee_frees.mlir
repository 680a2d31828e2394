// MIN-MERGED: 2
// A private callee with a body frees its argument: the caller's buffer passed to it must stay a
// real allocation (merging it would free part of the arena: a double free). A callee that only
// reads its argument is an access at the call, and that buffer merges.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func private @consume(%m: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %m[%i] : memref<16xf32>
    memref.store %v, %out[%i] : memref<16xf32>
  }
  memref.dealloc %m : memref<16xf32>
  return
}
func.func private @twice(%m: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %m[%i] : memref<16xf32>
    %w = arith.addf %v, %v : f32
    %u = memref.load %out[%i] : memref<16xf32>
    %z = arith.addf %w, %u : f32
    memref.store %z, %out[%i] : memref<16xf32>
  }
  return
}
func.func @kernel(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %a[%i] : memref<16xf32>
  }
  call @consume(%a, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %b[%i] : memref<16xf32>
  }
  call @twice(%b, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  memref.dealloc %b : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %out[%i] : memref<16xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %c[%i] : memref<16xf32>
  }
  call @twice(%c, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  memref.dealloc %c : memref<16xf32>
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %x[%i] : memref<16xf32>
  }
  call @kernel(%x, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  %u = memref.cast %out : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
