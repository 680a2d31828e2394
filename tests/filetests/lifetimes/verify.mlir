// RUN: memplan opt %s --verify-lifetime-markers
// A lifetime ended inside one branch of an scf.if is fine while the lifeline is not used
// after the scf.if.
func.func @ok(%flag: i1, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<8xf32>
  %l = "memplan.lifetime_start"(%a) : (memref<8xf32>) -> memref<8xf32>
  scf.if %flag {
    %x = memref.load %l[%c0] : memref<8xf32>
    memref.store %x, %out[%c0] : memref<4xf32>
    "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  } else {
    "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  }
  return
}
// CHECK: "memplan.lifetime_start"

// -----

// A view derived from the lifeline counts as a use of it.
func.func @view(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<8xf32>
  %l = "memplan.lifetime_start"(%a) : (memref<8xf32>) -> memref<8xf32>
  %s = memref.subview %l[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  %x = memref.load %s[%c0] : memref<4xf32, strided<[1]>>
  return
}
// ERROR: 9:3: error: use of a lifeline after its memplan.lifetime_end on some path

// -----

// A second start of the same buffer while the first lifeline may still be live.
func.func @twice() {
  %a = memref.alloca() : memref<8xf32>
  %l = "memplan.lifetime_start"(%a) : (memref<8xf32>) -> memref<8xf32>
  %m = "memplan.lifetime_start"(%a) : (memref<8xf32>) -> memref<8xf32>
  "memplan.lifetime_end"(%m) : (memref<8xf32>) -> ()
  "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  return
}
// ERROR: 6:3: error: lifetime_start while a lifetime of the same buffer may still be live

// -----

// Ended at the bottom of a loop body, used at its top: used after the end on the back edge.
func.func @loop(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloca() : memref<8xf32>
  %l = "memplan.lifetime_start"(%a) : (memref<8xf32>) -> memref<8xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %l[%c0] : memref<8xf32>
    memref.store %x, %out[%i] : memref<4xf32>
    "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  }
  return
}
// ERROR: 10:5: error: use of a lifeline after its memplan.lifetime_end on some path

// -----

// affine.if branches are exclusive: an end in the then-branch does not reach the else-branch.
func.func @aff(%n: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<8xf32>
  %l = "memplan.lifetime_start"(%a) : (memref<8xf32>) -> memref<8xf32>
  affine.if affine_set<(d0) : (d0 - 1 >= 0)>(%n) {
    "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  } else {
    %x = memref.load %l[%c0] : memref<8xf32>
    memref.store %x, %out[%c0] : memref<4xf32>
    "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  }
  return
}
// CHECK: affine.if

// -----

// Unstructured control flow: the end in ^bb1 reaches the use in ^bb2 on one path.
func.func @cfg(%c: i1, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<8xf32>
  %l = "memplan.lifetime_start"(%a) : (memref<8xf32>) -> memref<8xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  cf.br ^bb2
^bb2:
  %x = memref.load %l[%c0] : memref<8xf32>
  memref.store %x, %out[%c0] : memref<4xf32>
  return
}
// ERROR: 12:3: error: use of a lifeline after its memplan.lifetime_end on some path
