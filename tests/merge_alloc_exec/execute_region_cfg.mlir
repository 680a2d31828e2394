// MIN-MERGED: 6
// A multi-block scf.execute_region (not an allocation scope): liveness over its CFG, buffers
// yielded out of it live from their exits to their last use after it; everything merges.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @kernel(%c: i1, %x: f32, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = memref.alloc() : memref<64xf32>
  memref.store %x, %p[%c0] : memref<64xf32>
  %r = scf.execute_region -> memref<64xf32> {
    %a = memref.alloc() : memref<64xf32>
    %v = memref.load %p[%c0] : memref<64xf32>
    memref.store %v, %a[%c0] : memref<64xf32>
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    %b = memref.alloc() : memref<64xf32>
    %w = memref.load %a[%c0] : memref<64xf32>
    %w2 = arith.addf %w, %w : f32
    memref.store %w2, %b[%c0] : memref<64xf32>
    scf.yield %b : memref<64xf32>
  ^bb2:
    %d = memref.alloc() : memref<64xf32>
    %w3 = memref.load %a[%c0] : memref<64xf32>
    %w4 = arith.mulf %w3, %w3 : f32
    memref.store %w4, %d[%c0] : memref<64xf32>
    %e = memref.alloc() : memref<64xf32>
    %w5 = memref.load %d[%c0] : memref<64xf32>
    memref.store %w5, %e[%c0] : memref<64xf32>
    scf.yield %e : memref<64xf32>
  }
  %q = memref.alloc() : memref<64xf32>
  %z = memref.load %r[%c0] : memref<64xf32>
  memref.store %z, %q[%c0] : memref<64xf32>
  %z2 = memref.load %q[%c0] : memref<64xf32>
  memref.store %z2, %out[%c0] : memref<4xf32>
  %z3 = memref.load %p[%c0] : memref<64xf32>
  memref.store %z3, %out[%c1] : memref<4xf32>
  return
}
func.func @main() {
  %t = arith.constant true
  %f = arith.constant false
  %x = arith.constant 3.0 : f32
  %z = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<4xf32>
  linalg.fill ins(%z : f32) outs(%out : memref<4xf32>)
  call @kernel(%t, %x, %out) : (i1, f32, memref<4xf32>) -> ()
  %u = memref.cast %out : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  call @kernel(%f, %x, %out) : (i1, f32, memref<4xf32>) -> ()
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
