// F4 (h-f4g5): a symbol in a subscript of a written intermediate (`%t[%i + symbol(%n) - 10]`, seed 7089) made the
// nest opaque, so nothing around %t was fused: the chain %t -> %u -> out was left alone (kernel buffers 204 B,
// mlir-opt-22 148 B). The consumer's read runs at every iteration, so it is in bounds only for n in 10..31 and the
// original is undefined elsewhere: memplan checks those 22 values and fuses %u's producer into the consumer (%u
// becomes memref<1xf32>); the values printed must stay those of the original.
func.func @kernel0(%in: memref<40xf32>, %out: memref<15xf32>, %n: index) {
  %c1 = arith.constant 1.0 : f32
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<36xf32>
  affine.for %i = 0 to 36 {
    %a = affine.load %in[%i] : memref<40xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<36xf32>
  }
  %u = memref.alloc() : memref<15xf32>
  affine.for %i = 0 to 15 {
    %a = affine.load %t[2 * %i] : memref<36xf32>
    %b = arith.addf %a, %c1 : f32
    affine.store %b, %u[%i] : memref<15xf32>
  }
  affine.for %i = 0 to 15 {
    %a = affine.load %u[%i] : memref<15xf32>
    %b = affine.load %t[%i + symbol(%n) - 10] : memref<36xf32>
    %c = arith.addf %a, %b : f32
    affine.store %c, %out[%i] : memref<15xf32>
  }
  return
}
func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c17 = arith.constant 17 : index
  %s = arith.constant 0.5 : f32
  %b = arith.constant -1.0 : f32
  %in = memref.alloc() : memref<40xf32>
  %out = memref.alloc() : memref<15xf32>
  %ind = memref.cast %in : memref<40xf32> to memref<?xf32>
  call @fill1d(%ind, %c3, %c1, %s, %b) : (memref<?xf32>, index, index, f32, f32) -> ()
  %outd = memref.cast %out : memref<15xf32> to memref<?xf32>
  call @fill1d(%outd, %c1, %c1, %s, %s) : (memref<?xf32>, index, index, f32, f32) -> ()
  call @kernel0(%in, %out, %c17) : (memref<40xf32>, memref<15xf32>, index) -> ()
  %u1 = memref.cast %out : memref<15xf32> to memref<*xf32>
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  memref.dealloc %in : memref<40xf32>
  memref.dealloc %out : memref<15xf32>
  return
}
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }

// fill1d: m[...] = ((i0*p + i1*q + i2*5 + 1) mod 11) * s + b (scf loops: no affine ops)
func.func @fill1d(%m: memref<?xf32>, %p: index, %q: index, %s: f32, %b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c11 = arith.constant 11 : index
  %c2 = arith.constant 2 : index
  %n0 = memref.dim %m, %c0 : memref<?xf32>
  scf.for %j0 = %c0 to %n0 step %c1 {
    %a0 = arith.addi %c1, %c0 : index
    %m0 = arith.muli %j0, %p : index
    %a1 = arith.addi %a0, %m0 : index
    %r = arith.remui %a1, %c11 : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %x = arith.mulf %rf, %s : f32
    %v = arith.addf %x, %b : f32
    memref.store %v, %m[%j0] : memref<?xf32>
  }
  return
}
