// RUN: memplan opt %s
// `memplan opt` with no pass parses, verifies and prints. Generic-form input comes back in the
// custom form that mlir-opt-22 prints (SSA names are free, hence the captures).

func.func @alloc_dealloc() {
  %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> {alignment = 64 : i64} : () -> memref<16xf32>
  %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4x8xi32>
  "memref.dealloc"(%0) : (memref<16xf32>) -> ()
  "memref.dealloc"(%1) : (memref<4x8xi32>) -> ()
  "func.return"() : () -> ()
}
// CHECK-LABEL: func.func @alloc_dealloc() {
// CHECK-NEXT: [[A:%[\w]+]] = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NEXT: [[B:%[\w]+]] = memref.alloc() : memref<4x8xi32>
// CHECK-NEXT: memref.dealloc [[A]] : memref<16xf32>
// CHECK-NEXT: memref.dealloc [[B]] : memref<4x8xi32>
// CHECK-NEXT: return
// CHECK-NEXT: }

// -----

// Custom-form input with a loop and a view prints back in the same form.
func.func @loop_and_view(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.000000e+00 : f32
  %a = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %cst, %a[%i] : memref<16xf32>
  }
  %v = memref.subview %a[4] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 4>>
  memref.dealloc %a : memref<16xf32>
  return
}
// CHECK-LABEL: func.func @loop_and_view([[N:%[\w]+]]: index) {
// CHECK: [[C0:%[\w]+]] = arith.constant 0 : index
// CHECK: [[C1:%[\w]+]] = arith.constant 1 : index
// CHECK: [[F:%[\w]+]] = arith.constant 1.000000e+00 : f32
// CHECK: [[A:%[\w]+]] = memref.alloc() : memref<16xf32>
// CHECK-NEXT: scf.for [[I:%[\w]+]] = [[C0]] to [[N]] step [[C1]] {
// CHECK-NEXT: memref.store [[F]], [[A]]{{\[}}[[I]]] : memref<16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: memref.subview [[A]][4] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 4>>
// CHECK-NEXT: memref.dealloc [[A]] : memref<16xf32>
// CHECK-NOT: memref.alloc
// CHECK: return
