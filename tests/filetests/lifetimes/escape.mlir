// RUN: memplan opt %s --mlir-print-op-generic --llvm-lifetime-markers --remarks 2>&1
// A slot whose address escapes gets no markers, and --remarks says why: passed to a
// function without a body (may capture), stored as a value.
module {
  llvm.func @sink(!llvm.ptr)
  llvm.func @esc(%out: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %a = llvm.alloca %c1 x f32 : (i64) -> !llvm.ptr
    %b = llvm.alloca %c1 x !llvm.ptr : (i64) -> !llvm.ptr
    %c = llvm.alloca %c1 x i64 : (i64) -> !llvm.ptr
    llvm.call @sink(%a) : (!llvm.ptr) -> ()
    llvm.store %c, %b : !llvm.ptr, !llvm.ptr
    %p = llvm.load %b : !llvm.ptr -> !llvm.ptr
    llvm.store %p, %out : !llvm.ptr, !llvm.ptr
    llvm.return
  }
}
// CHECK: %b = "llvm.alloca"
// CHECK-NOT: lifetime.start"(%a)
// CHECK-NOT: lifetime.start"(%c)
// CHECK: "llvm.intr.lifetime.start"(%b)
// CHECK-NEXT: "llvm.store"(%c, %b)
// CHECK-NEXT: "llvm.load"(%b)
// CHECK-NEXT: "llvm.intr.lifetime.end"(%b)
// CHECK-NOT: lifetime
// CHECK: 8:5: remark: llvm-lifetime-markers: @esc: stack slot left alone: its address is passed to @sink (argument 0 not llvm.nocapture)
// CHECK: 10:5: remark: llvm-lifetime-markers: @esc: stack slot left alone: its address is stored to memory (llvm.store value)

// -----

// An argument marked llvm.nocapture does not capture: the slot is marked around the call.
module {
  llvm.func @use(!llvm.ptr {llvm.nocapture})
  llvm.func @nc() {
    %c1 = llvm.mlir.constant(1 : index) : i64
    %a = llvm.alloca %c1 x f32 : (i64) -> !llvm.ptr
    llvm.call @use(%a) : (!llvm.ptr) -> ()
    llvm.return
  }
}
// CHECK: "llvm.intr.lifetime.start"(%a)
// CHECK-NEXT: "llvm.call"(%a)
// CHECK-NEXT: "llvm.intr.lifetime.end"(%a)

// -----

// An alloca of a memref.alloca_scope (between stacksave and stackrestore) is static: it moves
// to the entry block; an alloca of dynamic size outside the entry block is left alone.
module {
  llvm.func @scope(%out: !llvm.ptr, %n: i64, %c: i1) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    llvm.cond_br %c, ^bb1, ^bb2
  ^bb1:
    %s = llvm.intr.stacksave : !llvm.ptr
    %a = llvm.alloca %c1 x f32 : (i64) -> !llvm.ptr
    %v = llvm.load %a : !llvm.ptr -> f32
    llvm.store %v, %out : f32, !llvm.ptr
    llvm.intr.stackrestore %s : !llvm.ptr
    llvm.br ^bb2
  ^bb2:
    %d = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
    %w = llvm.load %d : !llvm.ptr -> f32
    llvm.store %w, %out : f32, !llvm.ptr
    llvm.return
  }
}
// CHECK: ^bb0(
// CHECK-NEXT: "llvm.mlir.constant"
// CHECK-NEXT: %a = "llvm.alloca"
// CHECK: "llvm.intr.stacksave"
// CHECK-NEXT: "llvm.intr.lifetime.start"(%a)
// CHECK-NEXT: "llvm.load"(%a)
// CHECK-NEXT: "llvm.intr.lifetime.end"(%a)
// CHECK: ^bb2:
// CHECK-NEXT: %d = "llvm.alloca"
// CHECK-NOT: lifetime
// CHECK: 10:5: remark: llvm-lifetime-markers: @scope: static stack slot moved to the entry block
// CHECK: 16:5: remark: llvm-lifetime-markers: @scope: stack slot left alone: dynamic size outside the entry block
