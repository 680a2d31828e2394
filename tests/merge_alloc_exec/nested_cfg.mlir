// MIN-MERGED: 5
// A multi-block scf.execute_region inside a function body that is itself a CFG with a
// loop: the inner region's buffers are re-created on every trip and never used outside
// it, so liveness over the inner CFG is enough and they merge with the outer buffers
// (%acc lives across the whole loop). %y is yielded out of the inner CFG into the outer
// one, whose op order is not the execution order: it is left alone.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @kernel(%n: index, %x: f32, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<64xf32>
  memref.store %zero, %acc[%c0] : memref<64xf32>
  cf.br ^head(%c0 : index)
^head(%i: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^exit
^body:
  %odd = arith.remui %i, %c2 : index
  %isodd = arith.cmpi eq, %odd, %c1 : index
  %fi = arith.index_cast %i : index to i64
  %f = arith.sitofp %fi : i64 to f32
  %v = scf.execute_region -> f32 {
    %a = memref.alloc() : memref<64xf32>
    %s = arith.addf %f, %x : f32
    memref.store %s, %a[%c0] : memref<64xf32>
    cf.cond_br %isodd, ^odd, ^even
  ^odd:
    %b = memref.alloc() : memref<64xf32>
    %w = memref.load %a[%c0] : memref<64xf32>
    %w2 = arith.mulf %w, %w : f32
    memref.store %w2, %b[%c0] : memref<64xf32>
    %r1 = memref.load %b[%c0] : memref<64xf32>
    scf.yield %r1 : f32
  ^even:
    %d = memref.alloc() : memref<64xf32>
    %w3 = memref.load %a[%c0] : memref<64xf32>
    %w4 = arith.addf %w3, %w3 : f32
    memref.store %w4, %d[%c0] : memref<64xf32>
    %r2 = memref.load %d[%c0] : memref<64xf32>
    scf.yield %r2 : f32
  }
  %y = scf.execute_region -> memref<64xf32> {
    %e = memref.alloc() : memref<64xf32>
    memref.store %v, %e[%c0] : memref<64xf32>
    cf.cond_br %isodd, ^left, ^right
  ^left:
    scf.yield %e : memref<64xf32>
  ^right:
    scf.yield %e : memref<64xf32>
  }
  %old = memref.load %acc[%c0] : memref<64xf32>
  %yv = memref.load %y[%c0] : memref<64xf32>
  %new = arith.addf %old, %yv : f32
  memref.store %new, %acc[%c0] : memref<64xf32>
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next : index)
^exit:
  %q = memref.alloc() : memref<64xf32>
  %t = memref.load %acc[%c0] : memref<64xf32>
  memref.store %t, %q[%c0] : memref<64xf32>
  %t2 = memref.load %q[%c0] : memref<64xf32>
  memref.store %t2, %out[%c0] : memref<4xf32>
  return
}
func.func @main() {
  %c5 = arith.constant 5 : index
  %x = arith.constant 3.0 : f32
  %z = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<4xf32>
  linalg.fill ins(%z : f32) outs(%out : memref<4xf32>)
  call @kernel(%c5, %x, %out) : (index, f32, memref<4xf32>) -> ()
  %u = memref.cast %out : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
