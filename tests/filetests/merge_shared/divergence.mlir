// RUN: memplan opt %s --merge-shared-memory --remarks 2>&1
// Divergence: a barrier under a thread-dependent scf.if deadlocks, so the pass only inserts barriers
// at kernel level. Buffers that only a barrier inside divergent code could separate never share.

// %a is used in the then-arm and %b in the else-arm of one thread-dependent scf.if: other threads
// may run the other arm at the same time, so they do not share (arena = sum, no barrier).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @arms(%f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %t = gpu.thread_id x
      %lo = arith.cmpi ult, %t, %c32 : index
      scf.if %lo {
        memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %x, %out[%t] : memref<256xf32>
      } else {
        memref.store %f, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        %y = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %y, %out[%t] : memref<256xf32>
      }
      gpu.return
    }
  }
}
// CHECK: %a = memref.view %smem[%smem_off0][]
// CHECK-NEXT: %b = memref.view %smem[%smem_off256][]
// CHECK-NOT: gpu.barrier
// CHECK: remark: merge-shared-memory: @arms: 2 buffers, 512 B before, 512 B after (arena 512 B, lower bound 256 B), 0 barriers added

// -----

// %a then %b inside ONE thread-dependent scf.if, with no barrier between them: the only place a
// barrier could go is inside the divergent arm, so they keep separate bytes.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @inside_if(%f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %t = gpu.thread_id x
      %lo = arith.cmpi ult, %t, %c32 : index
      scf.if %lo {
        memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %x, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        %y = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %y, %out[%t] : memref<256xf32>
      }
      gpu.return
    }
  }
}
// CHECK-NOT: gpu.barrier
// CHECK: remark: merge-shared-memory: @inside_if: 2 buffers, 512 B before, 512 B after (arena 512 B, lower bound 256 B), 0 barriers added

// -----

// The same pair in two kernel-level scf.ifs: the barrier goes between the ifs, at kernel level.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @two_ifs(%f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %t = gpu.thread_id x
      %lo = arith.cmpi ult, %t, %c32 : index
      scf.if %lo {
        memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %x, %out[%t] : memref<256xf32>
      }
      scf.if %lo {
        memref.store %f, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        %y = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %y, %out[%t] : memref<256xf32>
      }
      gpu.return
    }
  }
}
// CHECK: memref.store %x, %out[%t]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %lo
// CHECK: remark: merge-shared-memory: @two_ifs: 2 buffers, 512 B before, 256 B after (arena 256 B, lower bound 256 B), 1 barriers added

// -----

// RUN: memplan opt %s --merge-shared-memory=barriers=min --remarks 2>&1
// barriers=min never adds a barrier: the same kernel keeps separate bytes.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @two_ifs_min(%f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %t = gpu.thread_id x
      %lo = arith.cmpi ult, %t, %c32 : index
      scf.if %lo {
        memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %x, %out[%t] : memref<256xf32>
      }
      scf.if %lo {
        memref.store %f, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
        %y = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %y, %out[%t] : memref<256xf32>
      }
      gpu.return
    }
  }
}
// CHECK-NOT: gpu.barrier
// CHECK: remark: merge-shared-memory: @two_ifs_min: 2 buffers, 512 B before, 512 B after (arena 512 B, lower bound 256 B), 0 barriers added
