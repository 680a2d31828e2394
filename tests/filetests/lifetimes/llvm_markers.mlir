// RUN: memplan opt %s --mlir-print-op-generic --llvm-lifetime-markers
// Two slots used one after the other: each is started right before its first access and
// ended right after its last one, on the alloca's own pointer.
module {
  llvm.func @seq(%out: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %f = llvm.mlir.constant(1.000000e+00 : f32) : f32
    %a = llvm.alloca %c1 x f32 : (i64) -> !llvm.ptr
    %b = llvm.alloca %c1 x f32 : (i64) -> !llvm.ptr
    llvm.store %f, %a : f32, !llvm.ptr
    %x = llvm.load %a : !llvm.ptr -> f32
    %g = llvm.getelementptr inbounds|nuw %b[%c1] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %x, %g : f32, !llvm.ptr
    %y = llvm.load %g : !llvm.ptr -> f32
    llvm.store %y, %out : f32, !llvm.ptr
    llvm.return
  }
}
// CHECK-LABEL: "llvm.func"
// CHECK: [[A:%\w+]] = "llvm.alloca"
// CHECK: [[B:%\w+]] = "llvm.alloca"
// CHECK-NEXT: "llvm.intr.lifetime.start"([[A]])
// CHECK-NEXT: "llvm.store"
// CHECK-NEXT: "llvm.load"([[A]])
// CHECK-NEXT: "llvm.intr.lifetime.end"([[A]])
// CHECK-NEXT: "llvm.getelementptr"([[B]]
// CHECK-NEXT: "llvm.intr.lifetime.start"([[B]])
// CHECK-NEXT: "llvm.store"
// CHECK-NEXT: "llvm.load"
// CHECK-NEXT: "llvm.intr.lifetime.end"([[B]])

// -----

// A slot read and written in every iteration of a loop (loop-carried) is started before
// the loop and ended after it, never inside.
module {
  llvm.func @carried(%out: !llvm.ptr) {
    %c0 = llvm.mlir.constant(0 : index) : i64
    %c1 = llvm.mlir.constant(1 : index) : i64
    %c4 = llvm.mlir.constant(4 : index) : i64
    %acc = llvm.alloca %c1 x i64 : (i64) -> !llvm.ptr
    llvm.store %c0, %acc : i64, !llvm.ptr
    llvm.br ^bb1(%c0 : i64)
  ^bb1(%i: i64):
    %p = llvm.icmp "slt" %i, %c4 : i64
    llvm.cond_br %p, ^bb2, ^bb3
  ^bb2:
    %v = llvm.load %acc : !llvm.ptr -> i64
    %w = llvm.add %v, %i : i64
    llvm.store %w, %acc : i64, !llvm.ptr
    %n = llvm.add %i, %c1 overflow<nsw> : i64
    llvm.br ^bb1(%n : i64)
  ^bb3:
    %r = llvm.load %acc : !llvm.ptr -> i64
    llvm.store %r, %out : i64, !llvm.ptr
    llvm.return
  }
}
// CHECK: [[ACC:%\w+]] = "llvm.alloca"
// CHECK-NEXT: "llvm.intr.lifetime.start"([[ACC]])
// CHECK-NEXT: "llvm.store"
// CHECK-NOT: lifetime
// CHECK: ^bb3:
// CHECK-NEXT: "llvm.load"([[ACC]])
// CHECK-NEXT: "llvm.intr.lifetime.end"([[ACC]])

// -----

// A slot used only inside one branch is marked inside that branch.
module {
  llvm.func @branch(%c: i1, %out: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %t = llvm.alloca %c1 x i64 : (i64) -> !llvm.ptr
    llvm.cond_br %c, ^bb1, ^bb2
  ^bb1:
    llvm.store %c1, %t : i64, !llvm.ptr
    %v = llvm.load %t : !llvm.ptr -> i64
    llvm.store %v, %out : i64, !llvm.ptr
    llvm.br ^bb2
  ^bb2:
    llvm.return
  }
}
// CHECK: ^bb1:
// CHECK-NEXT: "llvm.intr.lifetime.start"
// CHECK-NEXT: "llvm.store"
// CHECK-NEXT: "llvm.load"
// CHECK-NEXT: "llvm.intr.lifetime.end"
// CHECK: ^bb2:
// CHECK-NOT: lifetime

// -----

// A static alloca outside the entry block is moved to the entry block (StackColoring only
// colors entry-block allocas); the markers carry its lifetime.
module {
  llvm.func @late(%c: i1, %out: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    llvm.cond_br %c, ^bb1, ^bb2
  ^bb1:
    %t = llvm.alloca %c1 x i64 : (i64) -> !llvm.ptr
    llvm.store %c1, %t : i64, !llvm.ptr
    %v = llvm.load %t : !llvm.ptr -> i64
    llvm.store %v, %out : i64, !llvm.ptr
    llvm.br ^bb2
  ^bb2:
    llvm.return
  }
}
// CHECK: "llvm.func"
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: [[N:%\w+]] = "llvm.mlir.constant"() <{value = 1 : index}>
// CHECK-NEXT: [[T:%\w+]] = "llvm.alloca"([[N]])
// CHECK: ^bb1:
// CHECK-NEXT: "llvm.intr.lifetime.start"([[T]])

// -----

// Ops that arith/math lowering emits parse in their custom forms (fcmp, fneg, select,
// call-like intrinsics); a generic-form memcpy through the slot is an access.
module {
  llvm.func @ops(%out: !llvm.ptr, %x: f32) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %c4 = llvm.mlir.constant(4 : i64) : i64
    %t = llvm.alloca %c1 x f32 : (i64) -> !llvm.ptr
    %c = llvm.fcmp "olt" %x, %x : f32
    %n = llvm.fneg %x : f32
    %m = llvm.intr.maximum(%x, %n) : (f32, f32) -> f32
    %s = llvm.select %c, %m, %n : i1, f32
    llvm.store %s, %t : f32, !llvm.ptr
    "llvm.intr.memcpy"(%out, %t, %c4) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
    llvm.return
  }
}
// CHECK: "llvm.fcmp"(%x, %x) <{predicate = 4 : i64}> : (f32, f32) -> i1
// CHECK: "llvm.intr.maximum"(%x, %n) : (f32, f32) -> f32
// CHECK: "llvm.intr.lifetime.start"(%t)
// CHECK-NEXT: "llvm.store"(%s, %t)
// CHECK-NEXT: "llvm.intr.memcpy"(%out, %t, %c4)
// CHECK-NEXT: "llvm.intr.lifetime.end"(%t)
