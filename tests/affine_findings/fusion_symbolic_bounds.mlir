// F3 (h-f3): fusion into nests whose bounds and guards hold symbols. Two chains over one intermediate, one
// consumer bounded by %n, one by min(8, %m + 1) with a guard on %n: memplan checks every point (n, m) it needs and
// fuses t into both (t becomes memref<1xf32>); the values printed must stay those of the original.
func.func @kernel0(%in: memref<8xf32>, %out: memref<8xf32>, %out2: memref<8xf32>, %n: index, %m: index) {
  %c2 = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %a = affine.load %in[%i] : memref<8xf32>
    %b = arith.mulf %a, %c2 : f32
    affine.store %b, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to %n {
    %a = affine.load %t[%i] : memref<8xf32>
    affine.store %a, %out[%i] : memref<8xf32>
  }
  affine.for %i = 0 to min affine_map<()[s0] -> (8, s0 + 1)>()[%m] {
    affine.if affine_set<(d0)[s0] : (s0 - d0 - 2 >= 0)>(%i)[%n] {
      %a = affine.load %t[%i] : memref<8xf32>
      %b = arith.addf %a, %c2 : f32
      affine.store %b, %out2[%i] : memref<8xf32>
    }
  }
  memref.dealloc %t : memref<8xf32>
  return
}
func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %s = arith.constant 0.5 : f32
  %b = arith.constant -1.0 : f32
  %in = memref.alloc() : memref<8xf32>
  %out = memref.alloc() : memref<8xf32>
  %out2 = memref.alloc() : memref<8xf32>
  %ind = memref.cast %in : memref<8xf32> to memref<?xf32>
  call @fill1d(%ind, %c3, %c1, %s, %b) : (memref<?xf32>, index, index, f32, f32) -> ()
  %outd = memref.cast %out : memref<8xf32> to memref<?xf32>
  call @fill1d(%outd, %c1, %c1, %s, %b) : (memref<?xf32>, index, index, f32, f32) -> ()
  %out2d = memref.cast %out2 : memref<8xf32> to memref<?xf32>
  call @fill1d(%out2d, %c1, %c1, %s, %s) : (memref<?xf32>, index, index, f32, f32) -> ()
  call @kernel0(%in, %out, %out2, %c5, %c6) : (memref<8xf32>, memref<8xf32>, memref<8xf32>, index, index) -> ()
  %u1 = memref.cast %out : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  %u2 = memref.cast %out2 : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  memref.dealloc %in : memref<8xf32>
  memref.dealloc %out : memref<8xf32>
  memref.dealloc %out2 : memref<8xf32>
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
