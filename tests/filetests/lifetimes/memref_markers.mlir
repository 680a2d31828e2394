// RUN: memplan opt %s --insert-lifetime-markers
// Lifelines: the start goes before the first op of the buffer's block that uses it, the
// end after the last; a loop that uses the buffer stays whole inside the lifetime, and
// the uses (views included) go through the lifeline.
func.func @f(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 1.0 : f32
  %a = memref.alloca() : memref<8xf32>
  %b = memref.alloca() : memref<8xf32>
  memref.store %v, %a[%c0] : memref<8xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%c0] : memref<8xf32>
    %s = memref.subview %b[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
    memref.store %x, %s[%i] : memref<4xf32, strided<[1]>>
    memref.store %x, %a[%c0] : memref<8xf32>
  }
  %y = memref.load %b[%c1] : memref<8xf32>
  memref.store %y, %out[%c0] : memref<4xf32>
  return
}
// CHECK: [[A:%\w+]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT: [[B:%\w+]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT: [[LA:%\w+]] = "memplan.lifetime_start"([[A]])
// CHECK-NEXT: memref.store {{.*}}, [[LA]]
// CHECK-NEXT: [[LB:%\w+]] = "memplan.lifetime_start"([[B]])
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load [[LA]]
// CHECK-NEXT: memref.subview [[LB]]
// CHECK: "memplan.lifetime_end"([[LA]])
// CHECK-NEXT: memref.load [[LB]]
// CHECK-NEXT: "memplan.lifetime_end"([[LB]])

// -----

// A buffer passed to a call or stored as a value is left alone.
func.func private @g(memref<8xf32>)
func.func @h(%box: memref<1xmemref<8xf32>>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<8xf32>
  %b = memref.alloca() : memref<8xf32>
  func.call @g(%a) : (memref<8xf32>) -> ()
  memref.store %b, %box[%c0] : memref<1xmemref<8xf32>>
  return
}
// CHECK-NOT: memplan.lifetime

// -----

// Strip removes the ops and rewires the uses to the buffer.
// RUN: memplan opt %s --strip-lifetime-markers
func.func @s(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<8xf32>
  %l = "memplan.lifetime_start"(%a) : (memref<8xf32>) -> memref<8xf32>
  %x = memref.load %l[%c0] : memref<8xf32>
  "memplan.lifetime_end"(%l) : (memref<8xf32>) -> ()
  memref.store %x, %out[%c0] : memref<4xf32>
  return
}
// CHECK-NOT: memplan.lifetime
// CHECK: memref.load %{{\w+}}[
