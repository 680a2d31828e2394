// G9 (h-g6): affine.vector_load/vector_store. A row of 8 elements is copied through %tmp with
// vector<8xf32> accesses, then a scalar nest reads %tmp. mlir-opt-22 (default and maximal)
// fuses the vector nests and gives %tmp a private memref<1x1xf32> that the vector<8xf32>
// store overflows (its region is computed for one element, not the vector's), so the fused
// program reads and writes out of bounds (issue #115849 upstream, fixed after release 22).
// memplan's exact check does not model vector accesses: a nest holding one is executed as one
// opaque step (reads and may overwrite every buffer it touches), never fused or shrunk, and
// the values are kept in every mode.
func.func @kernel(%src: memref<6x8xf32>, %dst: memref<6x8xf32>, %out: memref<6x8xf32>) {
  %tmp = memref.alloc() : memref<6x8xf32>
  affine.for %i = 0 to 6 {
    %v = affine.vector_load %src[%i, 0] : memref<6x8xf32>, vector<8xf32>
    %w = arith.addf %v, %v : vector<8xf32>
    affine.vector_store %w, %tmp[%i, 0] : memref<6x8xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 6 {
    %v = affine.vector_load %tmp[%i, 0] : memref<6x8xf32>, vector<8xf32>
    %w = arith.mulf %v, %v : vector<8xf32>
    affine.vector_store %w, %dst[%i, 0] : memref<6x8xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 8 {
      %a = affine.load %tmp[%i, %j] : memref<6x8xf32>
      %b = affine.load %src[%i, %j] : memref<6x8xf32>
      %c = arith.subf %a, %b : f32
      affine.store %c, %out[%i, %j] : memref<6x8xf32>
    }
  }
  return
}
func.func @main() {
  %p = arith.constant 7 : index
  %sc = arith.constant 0.5 : f32
  %o = arith.constant -1.5 : f32
  %src = memref.alloc() : memref<6x8xf32>
  %dst = memref.alloc() : memref<6x8xf32>
  %out = memref.alloc() : memref<6x8xf32>
  %sf = memref.collapse_shape %src [[0, 1]] : memref<6x8xf32> into memref<48xf32>
  %sd = memref.cast %sf : memref<48xf32> to memref<?xf32>
  call @fill(%sd, %p, %sc, %o) : (memref<?xf32>, index, f32, f32) -> ()
  call @kernel(%src, %dst, %out) : (memref<6x8xf32>, memref<6x8xf32>, memref<6x8xf32>) -> ()
  %u = memref.cast %dst : memref<6x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %u2 = memref.cast %out : memref<6x8xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
// fill: m[i] = ((i * p) mod 17) * s + b (scf loops: no affine ops, no remarks)
func.func @fill(%m: memref<?xf32>, %p: index, %s: f32, %b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c17 = arith.constant 17 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %ip = arith.muli %i, %p : index
    %r = arith.remui %ip, %c17 : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %m1 = arith.mulf %rf, %s : f32
    %v = arith.addf %m1, %b : f32
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}
