// MIN-MERGED: 4
// OPTIONS: alignment=4
// Buffers yielded from scf.if merge (the result aliases both arms), and under alignment=4 the
// vector<4xf32> and f64 buffers still sit at offsets their loads may assume (16 and 8 bytes),
// after an odd-sized i8 buffer.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @kernel(%x: memref<8xf32>, %c: i1, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %b = memref.alloc() : memref<3xi8>
  %i7 = arith.constant 7 : i8
  memref.store %i7, %b[%c1] : memref<3xi8>
  %r = scf.if %c -> memref<2xvector<4xf32>> {
    %a = memref.alloc() : memref<2xvector<4xf32>>
    %v0 = vector.load %x[%c0] : memref<8xf32>, vector<4xf32>
    memref.store %v0, %a[%c0] : memref<2xvector<4xf32>>
    %v1 = vector.load %x[%c0] : memref<8xf32>, vector<4xf32>
    memref.store %v1, %a[%c1] : memref<2xvector<4xf32>>
    scf.yield %a : memref<2xvector<4xf32>>
  } else {
    %a2 = memref.alloc() : memref<2xvector<4xf32>>
    %v0 = vector.load %x[%c0] : memref<8xf32>, vector<4xf32>
    %v2 = arith.addf %v0, %v0 : vector<4xf32>
    memref.store %v2, %a2[%c0] : memref<2xvector<4xf32>>
    memref.store %v2, %a2[%c1] : memref<2xvector<4xf32>>
    scf.yield %a2 : memref<2xvector<4xf32>>
  }
  %d = memref.alloc() : memref<4xf64>
  %w = memref.load %r[%c1] : memref<2xvector<4xf32>>
  vector.store %w, %out[%c0] : memref<16xf32>, vector<4xf32>
  %e = vector.extract %w[2] : f32 from vector<4xf32>
  %ed = arith.extf %e : f32 to f64
  memref.store %ed, %d[%c2] : memref<4xf64>
  %b1 = memref.load %b[%c1] : memref<3xi8>
  %bf = arith.sitofp %b1 : i8 to f32
  %dd = memref.load %d[%c2] : memref<4xf64>
  %df = arith.truncf %dd : f64 to f32
  %s = arith.addf %bf, %df : f32
  memref.store %s, %out[%c8] : memref<16xf32>
  memref.dealloc %r : memref<2xvector<4xf32>>
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %t = arith.constant true
  %f = arith.constant false
  %x = memref.alloc() : memref<8xf32>
  %out = memref.alloc() : memref<16xf32>
  %zf = arith.constant 0.0 : f32
  linalg.fill ins(%zf : f32) outs(%out : memref<16xf32>)
  scf.for %i = %c0 to %c8 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    memref.store %fi, %x[%i] : memref<8xf32>
  }
  call @kernel(%x, %t, %out) : (memref<8xf32>, i1, memref<16xf32>) -> ()
  %u = memref.cast %out : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  call @kernel(%x, %f, %out) : (memref<8xf32>, i1, memref<16xf32>) -> ()
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
