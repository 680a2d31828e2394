// G6 (h-g6): nests inside a loop body. mlir-opt-22 runs its fusion driver on every block with at
// least two affine.for ops (loop bodies first), so the row nests of @rows fuse inside the
// outer loop. memplan fused the function body's nests only; it now fuses loop bodies too, each
// candidate checked by the abstract execution of the whole function (every iteration of the
// enclosing loop). In @rows_war the second nest writes x[j + 1], which the first nest reads in
// the next outer iteration: fusing the two (siblings over %a) would read this iteration's value.
func.func @rows(%a: memref<6x8xf32>, %out: memref<6x8xf32>) {
  %c = arith.constant 1.5 : f32
  %t = memref.alloc() : memref<6x8xf32>
  %u = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 8 {
      %x = affine.load %a[%i, %j] : memref<6x8xf32>
      %y = arith.mulf %x, %c : f32
      affine.store %y, %t[%i, %j] : memref<6x8xf32>
    }
    affine.for %j = 0 to 8 {
      %x = affine.load %t[%i, %j] : memref<6x8xf32>
      %y = arith.addf %x, %c : f32
      affine.store %y, %u[%j] : memref<8xf32>
    }
    affine.for %j = 0 to 8 {
      %x = affine.load %u[%j] : memref<8xf32>
      %z = affine.load %a[%i, %j] : memref<6x8xf32>
      %y = arith.subf %x, %z : f32
      affine.store %y, %out[%i, %j] : memref<6x8xf32>
    }
  }
  return
}
func.func @rows_war(%a: memref<6x8xf32>, %x: memref<9xf32>, %out: memref<6x8xf32>) {
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 8 {
      %p = affine.load %x[%j] : memref<9xf32>
      %q = affine.load %a[%i, %j] : memref<6x8xf32>
      %r = arith.addf %p, %q : f32
      affine.store %r, %out[%i, %j] : memref<6x8xf32>
    }
    affine.for %j = 0 to 8 {
      %q = affine.load %a[%i, %j] : memref<6x8xf32>
      %r = arith.mulf %q, %q : f32
      affine.store %r, %x[%j + 1] : memref<9xf32>
    }
  }
  return
}
func.func @main() {
  %p = arith.constant 7 : index
  %p2 = arith.constant 5 : index
  %sc = arith.constant 0.5 : f32
  %o = arith.constant -1.5 : f32
  %a = memref.alloc() : memref<6x8xf32>
  %x = memref.alloc() : memref<9xf32>
  %out = memref.alloc() : memref<6x8xf32>
  %out2 = memref.alloc() : memref<6x8xf32>
  %af = memref.collapse_shape %a [[0, 1]] : memref<6x8xf32> into memref<48xf32>
  %ad = memref.cast %af : memref<48xf32> to memref<?xf32>
  call @fill(%ad, %p, %sc, %o) : (memref<?xf32>, index, f32, f32) -> ()
  %xd = memref.cast %x : memref<9xf32> to memref<?xf32>
  call @fill(%xd, %p2, %sc, %o) : (memref<?xf32>, index, f32, f32) -> ()
  call @rows(%a, %out) : (memref<6x8xf32>, memref<6x8xf32>) -> ()
  call @rows_war(%a, %x, %out2) : (memref<6x8xf32>, memref<9xf32>, memref<6x8xf32>) -> ()
  %u = memref.cast %out : memref<6x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %u2 = memref.cast %out2 : memref<6x8xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  %ux = memref.cast %x : memref<9xf32> to memref<*xf32>
  call @printMemrefF32(%ux) : (memref<*xf32>) -> ()
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
