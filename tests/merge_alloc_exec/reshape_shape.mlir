// MIN-MERGED: 2
// OPTIONS: alignment=8
// memref.reshape reads its shape operand: the shape buffer is live until the reshape, so the
// buffer written after the shape's last store must not take its bytes.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @kernel(%data: memref<16xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %shape = memref.alloc() : memref<2xindex>
  memref.store %c4, %shape[%c0] : memref<2xindex>
  memref.store %c4, %shape[%c1] : memref<2xindex>
  %t = memref.alloc() : memref<2xindex>
  memref.store %c8, %t[%c0] : memref<2xindex>
  memref.store %c2, %t[%c1] : memref<2xindex>
  %t0 = memref.load %t[%c0] : memref<2xindex>
  %t1 = memref.load %t[%c1] : memref<2xindex>
  %s = arith.addi %t0, %t1 : index
  %r = memref.reshape %data(%shape) : (memref<16xf32>, memref<2xindex>) -> memref<?x?xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %r[%i, %c2] : memref<?x?xf32>
    %si = arith.index_cast %s : index to i32
    %sf = arith.sitofp %si : i32 to f32
    %w = arith.addf %v, %sf : f32
    memref.store %w, %out[%i] : memref<4xf32>
  }
  memref.dealloc %t : memref<2xindex>
  memref.dealloc %shape : memref<2xindex>
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %x[%i] : memref<16xf32>
  }
  call @kernel(%x, %out) : (memref<16xf32>, memref<4xf32>) -> ()
  %u = memref.cast %out : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
