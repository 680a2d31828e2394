// G7 (affreal): what bufferization emits for a tensor with a dynamic size: `memref.dim` of an
// argument and a nest up to it. memplan's exact check treated `memref.dim` as an op that reads
// and overwrites the whole (dynamically shaped) buffer and left the function alone ("an
// unmodelled op on a dynamically shaped buffer"); mlir-opt-22 fuses the static chain and shrinks
// its intermediates. `memref.dim` reads only the descriptor, and a buffer nothing writes needs
// no contents check when an unmodelled nest reads it.
func.func @kernel(%a: memref<?x6xf32>, %b: memref<4xf32>, %c: memref<4xf32>) -> (memref<6xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %k = arith.constant 1.5 : f32
  %t = memref.alloc() : memref<4xf32>
  affine.for %i = 0 to 4 {
    %0 = affine.load %b[%i] : memref<4xf32>
    %1 = affine.load %c[%i] : memref<4xf32>
    %2 = arith.maximumf %0, %1 : f32
    affine.store %2, %t[%i] : memref<4xf32>
  }
  %u = memref.alloc() : memref<4xf32>
  affine.for %i = 0 to 4 {
    %0 = affine.load %t[%i] : memref<4xf32>
    %1 = arith.mulf %0, %k : f32
    affine.store %1, %u[%i] : memref<4xf32>
  }
  %s = memref.alloc() : memref<6xf32>
  affine.for %j = 0 to 6 {
    affine.store %z, %s[%j] : memref<6xf32>
  }
  %n = memref.dim %a, %c0 : memref<?x6xf32>
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 6 {
      %0 = affine.load %a[%i, %j] : memref<?x6xf32>
      %1 = affine.load %s[%j] : memref<6xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %s[%j] : memref<6xf32>
    }
  }
  return %s, %u : memref<6xf32>, memref<4xf32>
}
func.func @main() {
  %p = arith.constant 5 : index
  %q = arith.constant 3 : index
  %sc = arith.constant 0.5 : f32
  %o = arith.constant -1.5 : f32
  %a = memref.alloc() : memref<3x6xf32>
  %b = memref.alloc() : memref<4xf32>
  %c = memref.alloc() : memref<4xf32>
  %af = memref.collapse_shape %a [[0, 1]] : memref<3x6xf32> into memref<18xf32>
  %ad = memref.cast %af : memref<18xf32> to memref<?xf32>
  %bd = memref.cast %b : memref<4xf32> to memref<?xf32>
  %cd = memref.cast %c : memref<4xf32> to memref<?xf32>
  call @fill(%ad, %p, %sc, %o) : (memref<?xf32>, index, f32, f32) -> ()
  call @fill(%bd, %q, %sc, %o) : (memref<?xf32>, index, f32, f32) -> ()
  call @fill(%cd, %p, %o, %sc) : (memref<?xf32>, index, f32, f32) -> ()
  %ar = memref.cast %a : memref<3x6xf32> to memref<?x6xf32>
  %r:2 = call @kernel(%ar, %b, %c) : (memref<?x6xf32>, memref<4xf32>, memref<4xf32>) -> (memref<6xf32>, memref<4xf32>)
  %u0 = memref.cast %r#0 : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %u1 = memref.cast %r#1 : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
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
