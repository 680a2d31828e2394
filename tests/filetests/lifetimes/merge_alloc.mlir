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

// -----

// Markers are merge-alloc's lifetime source when they verify: %a's lifeline sits in the loop
// body, so it is live per iteration and shares bytes with %b (the analysis alone would keep
// it live over the whole loop). --print-lifetimes shows the ticks merge-alloc used.
// RUN: memplan opt %s --merge-alloc --remarks --print-lifetimes 2>&1
func.func @loop(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %la = "memplan.lifetime_start"(%a) : (memref<256xf32>) -> memref<256xf32>
    memref.store %v, %la[%i] : memref<256xf32>
    %x = memref.load %la[%i] : memref<256xf32>
    "memplan.lifetime_end"(%la) : (memref<256xf32>) -> ()
    %lb = "memplan.lifetime_start"(%b) : (memref<256xf32>) -> memref<256xf32>
    memref.store %x, %lb[%i] : memref<256xf32>
    %y = memref.load %lb[%i] : memref<256xf32>
    "memplan.lifetime_end"(%lb) : (memref<256xf32>) -> ()
    memref.store %y, %out[%i] : memref<4xf32>
  }
  return
}
// CHECK: // lifetime: @loop func %a ticks [10, 11] 1024 B offset 0
// CHECK: // lifetime: @loop func %b ticks [14, 15] 1024 B offset 0
// CHECK: // arena: @loop func 1024 B (sum 2048 B, lower bound 1024 B)
// CHECK: %arena = memref.alloc() {alignment = 64 : i64} : memref<1024xi8>
// CHECK: 11:3: remark: merge-alloc: %a is live over its 1 lifeline(s): ticks [10, 11] (the analysis alone: {{.*}})

// -----

// A buffer also accessed outside its lifeline keeps the analysis' lifetime, with a remark
// (here %a is read directly after the loop, so it must not share with %b).
// RUN: memplan opt %s --merge-alloc --remarks 2>&1
func.func @mixed(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %la = "memplan.lifetime_start"(%a) : (memref<256xf32>) -> memref<256xf32>
    memref.store %v, %la[%i] : memref<256xf32>
    "memplan.lifetime_end"(%la) : (memref<256xf32>) -> ()
    %lb = "memplan.lifetime_start"(%b) : (memref<256xf32>) -> memref<256xf32>
    memref.store %v, %lb[%i] : memref<256xf32>
    %y = memref.load %lb[%i] : memref<256xf32>
    "memplan.lifetime_end"(%lb) : (memref<256xf32>) -> ()
    memref.store %y, %out[%i] : memref<4xf32>
  }
  %z = memref.load %a[%c0] : memref<256xf32>
  memref.store %z, %out[%c0] : memref<4xf32>
  return
}
// CHECK: 10:3: remark: merge-alloc: the lifetime markers of %a are not used: `memref.load` accesses it without going through a lifeline
// CHECK: remark: merge-alloc: @mixed func: 2 buffers in a 2048 B arena

// -----

// Markers that fail --verify-lifetime-markers are an error of merge-alloc, at the offending use.
// RUN: memplan opt %s --merge-alloc
func.func @bad(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<256xf32>
  %la = "memplan.lifetime_start"(%a) : (memref<256xf32>) -> memref<256xf32>
  "memplan.lifetime_end"(%la) : (memref<256xf32>) -> ()
  %x = memref.load %la[%c0] : memref<256xf32>
  memref.store %x, %out[%c0] : memref<4xf32>
  return
}
// ERROR: 9:3: merge-alloc: invalid lifetime markers: use of a lifeline after its memplan.lifetime_end on some path

// -----

// Insert leaves a dealloc nested in an op after the lifetime on the buffer itself (not on
// the lifeline), so the markers it writes pass --verify-lifetime-markers and merge-alloc.
// RUN: memplan opt %s --insert-lifetime-markers
func.func @nested_free(%out: memref<4xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<8xf32>
  %x = memref.load %a[%c0] : memref<8xf32>
  memref.store %x, %out[%c0] : memref<4xf32>
  scf.if %c {
    memref.dealloc %a : memref<8xf32>
  }
  return
}
// CHECK: "memplan.lifetime_end"
// CHECK: scf.if
// CHECK-NEXT: memref.dealloc %a
