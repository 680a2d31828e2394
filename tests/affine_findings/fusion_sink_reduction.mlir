// G3 (affreal): a column sum as linalg lowers it (init nest, then the reduction nest with the
// reduction loop outermost). mlir-opt-22 sinks the sequential loop innermost (upstream's
// sinkSequentialLoops) and fuses the init nest at depth 1, shrinking the sums to memref<1xf32>;
// memplan found no legal depth. It now tries the destination with its sequential loops sunk
// (loops along which some store keeps writing the same element), checked like any fusion.
func.func @kernel(%a: memref<3x8xf32>, %out: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<8xf32>
  affine.for %j = 0 to 8 {
    affine.store %z, %s[%j] : memref<8xf32>
  }
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 8 {
      %0 = affine.load %a[%i, %j] : memref<3x8xf32>
      %1 = affine.load %s[%j] : memref<8xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %s[%j] : memref<8xf32>
    }
  }
  affine.for %j = 0 to 8 {
    %0 = affine.load %s[%j] : memref<8xf32>
    %1 = arith.mulf %0, %0 : f32
    affine.store %1, %out[%j] : memref<8xf32>
  }
  return
}
func.func @main() {
  %p = arith.constant 7 : index
  %sc = arith.constant 0.5 : f32
  %o = arith.constant -1.5 : f32
  %a = memref.alloc() : memref<3x8xf32>
  %out = memref.alloc() : memref<8xf32>
  %af = memref.collapse_shape %a [[0, 1]] : memref<3x8xf32> into memref<24xf32>
  %ad = memref.cast %af : memref<24xf32> to memref<?xf32>
  call @fill(%ad, %p, %sc, %o) : (memref<?xf32>, index, f32, f32) -> ()
  call @kernel(%a, %out) : (memref<3x8xf32>, memref<8xf32>) -> ()
  %u = memref.cast %out : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
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
