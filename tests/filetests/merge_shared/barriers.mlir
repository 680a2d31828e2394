// RUN: memplan opt %s --merge-shared-memory --remarks 2>&1
// Barriers: two buffers on shared bytes need a gpu.barrier on every path between their accesses.
// The pass adds the fewest, at kernel level, and none where one already separates them.

// Insertion: %a's last read and %b's first write have no barrier between them.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @insert(%f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %y = arith.addf %x, %f : f32
      memref.store %y, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %z = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %z, %out[%t] : memref<256xf32>
      gpu.return
    }
  }
}
// CHECK: %a = memref.view %smem[%smem_off0][]
// CHECK-NEXT: %b = memref.view %smem[%smem_off0][]
// CHECK: %x = memref.load %a[%c0]
// CHECK-NEXT: %y = arith.addf %x, %f : f32
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %y, %b[%t]
// CHECK: remark: merge-shared-memory: @insert: 2 buffers, 512 B before, 256 B after (arena 256 B, lower bound 256 B), 1 barriers added

// -----

// No insertion: an existing barrier already separates %a from %b.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @existing(%f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %x, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %z = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %z, %out[%t] : memref<256xf32>
      gpu.return
    }
  }
}

// CHECK: remark: merge-shared-memory: @existing: 2 buffers, 512 B before, 256 B after (arena 256 B, lower bound 256 B), 0 barriers added
// -----

// No insertion across a loop's back edge: %a is used in a loop of constant trip count whose body
// ends with a barrier, so every path from an %a access to %b passes it.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @back_edge(%f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %t = gpu.thread_id x
      scf.for %i = %c0 to %c4 step %c1 {
        memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %x, %out[%i] : memref<256xf32>
        gpu.barrier
      }
      memref.store %f, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %z = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %z, %out[%t] : memref<256xf32>
      gpu.return
    }
  }
}

// CHECK: remark: merge-shared-memory: @back_edge: 2 buffers, 512 B before, 256 B after (arena 256 B, lower bound 256 B), 0 barriers added
// -----

// A loop whose trip count may be zero has a skip edge, but the barrier before the loop still
// separates; a loop body that does NOT end with a barrier needs one after the loop (the read of
// %a in iteration i is followed by %b's write without a barrier).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @loop_tail(%n: index, %f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t = gpu.thread_id x
      scf.for %i = %c0 to %n step %c1 {
        gpu.barrier
        memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %x, %out[%i] : memref<256xf32>
      }
      memref.store %f, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %z = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %z, %out[%t] : memref<256xf32>
      gpu.return
    }
  }
}
// CHECK: memref.store %x, %out[%i]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %f, %b[%t]
// CHECK: remark: merge-shared-memory: @loop_tail: 2 buffers, 512 B before, 256 B after (arena 256 B, lower bound 256 B), 1 barriers added

// -----

// Fewest barriers: %a, %b and %c (used one after another, 256 B each) all end before %d, %e and
// %f (768 B) start, so every one of the later three shares bytes with one of the earlier ones; a
// single barrier between the two phases separates all those pairs.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @fewest(%v: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>,
                  %c : memref<64xf32, #gpu.address_space<workgroup>>, %d : memref<64xf32, #gpu.address_space<workgroup>>,
                  %e : memref<64xf32, #gpu.address_space<workgroup>>, %f : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      memref.store %v, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %c[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %y = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %z = memref.load %c[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %d[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %e[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %z, %f[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %p = memref.load %d[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %q = memref.load %e[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %r = memref.load %f[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      %s1 = arith.addf %p, %q : f32
      %s2 = arith.addf %s1, %r : f32
      memref.store %s2, %out[%t] : memref<256xf32>
      gpu.return
    }
  }
}
// CHECK: %z = memref.load %c[%c0]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %x, %d[%t]
// CHECK: remark: merge-shared-memory: @fewest: 6 buffers, 1536 B before, 768 B after (arena 768 B, lower bound 768 B), 1 barriers added
