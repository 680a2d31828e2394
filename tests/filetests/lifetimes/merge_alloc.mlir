// RUN: memplan opt %s --merge-alloc
// merge-alloc sees through lifelines (a lifeline is a view of its buffer; the end marker is
// a use): two buffers whose lifelines are disjoint share one slot of the arena.
func.func @f(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<1024xf32>
  %b = memref.alloc() : memref<1024xf32>
  %la = "memplan.lifetime_start"(%a) : (memref<1024xf32>) -> memref<1024xf32>
  memref.store %v, %la[%c0] : memref<1024xf32>
  %x = memref.load %la[%c0] : memref<1024xf32>
  "memplan.lifetime_end"(%la) : (memref<1024xf32>) -> ()
  %lb = "memplan.lifetime_start"(%b) : (memref<1024xf32>) -> memref<1024xf32>
  memref.store %x, %lb[%c0] : memref<1024xf32>
  %y = memref.load %lb[%c0] : memref<1024xf32>
  "memplan.lifetime_end"(%lb) : (memref<1024xf32>) -> ()
  memref.store %y, %out[%c0] : memref<4xf32>
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  return
}
// CHECK: %arena = memref.alloc() {alignment = 64 : i64} : memref<4096xi8>
// CHECK: %a = memref.view %arena[
// CHECK-NEXT: %b = memref.view %arena[
// CHECK: "memplan.lifetime_start"(%a)
// CHECK: "memplan.lifetime_end"
// CHECK: "memplan.lifetime_start"(%b)

// -----

// Insert leaves a dealloc after the last use outside the lifetime, on the buffer itself.
// RUN: memplan opt %s --insert-lifetime-markers
func.func @g(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<8xf32>
  %x = memref.load %a[%c0] : memref<8xf32>
  memref.store %x, %out[%c0] : memref<4xf32>
  memref.dealloc %a : memref<8xf32>
  return
}
// CHECK: [[L:%\w+]] = "memplan.lifetime_start"(%a)
// CHECK-NEXT: memref.load [[L]]
// CHECK-NEXT: "memplan.lifetime_end"([[L]])
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.dealloc %a
