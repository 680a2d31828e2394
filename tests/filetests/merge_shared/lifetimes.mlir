// RUN: memplan opt %s --merge-shared-memory --remarks 2>&1
// Lifetimes of workgroup buffers: first to last access at any depth, through views; an access
// inside a loop stretches over the whole outermost loop; scf.if does not stretch.

// Seed 004's innermost-scope case: %carry is touched only inside an scf.if inside the scf.for, so
// it lives over the whole loop together with %tmp and may not share with it; %pre (before the
// loop) and %post (after it) reuse their bytes. The loop ends with a barrier and a barrier
// follows %pre's use, so nothing is added.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @carry(%n: index, %c: i1, %f: f32)
        workgroup(%pre : memref<64xf32, #gpu.address_space<workgroup>>, %carry : memref<16xf32, #gpu.address_space<workgroup>>,
                  %tmp : memref<32xf32, #gpu.address_space<workgroup>>, %post : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t = gpu.thread_id x
      memref.store %f, %pre[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %a = memref.load %pre[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %i = %c0 to %n step %c1 {
        scf.if %c {
          memref.store %a, %carry[%t] : memref<16xf32, #gpu.address_space<workgroup>>
        }
        memref.store %a, %tmp[%t] : memref<32xf32, #gpu.address_space<workgroup>>
        gpu.barrier
      }
      memref.store %f, %post[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %b = memref.load %post[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// CHECK: gpu.func @carry(%n: index, %c: i1, %f: f32) workgroup(%smem : memref<256xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK-NEXT: %smem_off0 = arith.constant 0 : index
// CHECK-NEXT: %smem_off64 = arith.constant 64 : index
// CHECK-NEXT: %pre = memref.view %smem[%smem_off0][]
// CHECK-NEXT: %carry = memref.view %smem[%smem_off0][]
// CHECK-NEXT: %tmp = memref.view %smem[%smem_off64][]
// CHECK-NEXT: %post = memref.view %smem[%smem_off0][]
// CHECK: memref.store %f, %pre[%t]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %pre
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK: remark: merge-shared-memory: @carry: 4 buffers, 704 B before, 256 B after (arena 256 B, lower bound 256 B), 0 barriers added

// -----

// scf.if does not stretch: %a is used only in the first kernel-level scf.if and %b only after it;
// they share bytes, with a barrier between the if and %b's first access. Accesses through a
// subview and a cast count as accesses of the buffer.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @views(%c: i1, %f: f32)
        workgroup(%a : memref<8x8xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      scf.if %c {
        %s = memref.subview %a[0, 0] [4, 4] [1, 1] : memref<8x8xf32, #gpu.address_space<workgroup>> to memref<4x4xf32, strided<[8, 1]>, #gpu.address_space<workgroup>>
        memref.store %f, %s[%t, %c0] : memref<4x4xf32, strided<[8, 1]>, #gpu.address_space<workgroup>>
      }
      %bc = memref.cast %b : memref<64xf32, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
      memref.store %f, %bc[%t] : memref<?xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// CHECK: workgroup(%smem : memref<256xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: %a = memref.view %smem[%smem_off0][]
// CHECK: %b = memref.view %smem[%smem_off0][]
// CHECK: scf.if
// CHECK: memref.subview %a
// CHECK: }
// CHECK-NEXT: %bc = memref.cast %b
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %f, %bc[%t]
// CHECK: remark: merge-shared-memory: @views: 2 buffers, 512 B before, 256 B after (arena 256 B, lower bound 256 B), 1 barriers added

// -----

// A buffer used only inside a loop nested in another loop lives over the OUTERMOST loop: %x and
// %y both live over the outer loop and never share; %z after the loop reuses their bytes.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @nest(%n: index, %f: f32)
        workgroup(%x : memref<16xf32, #gpu.address_space<workgroup>>, %y : memref<16xf32, #gpu.address_space<workgroup>>,
                  %z : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t = gpu.thread_id x
      scf.for %i = %c0 to %n step %c1 {
        memref.store %f, %x[%t] : memref<16xf32, #gpu.address_space<workgroup>>
        scf.for %j = %c0 to %n step %c1 {
          memref.store %f, %y[%t] : memref<16xf32, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      memref.store %f, %z[%t] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// CHECK: %x = memref.view %smem[%smem_off64][]
// CHECK-NEXT: %y = memref.view %smem[%smem_off0][]
// CHECK-NEXT: %z = memref.view %smem[%smem_off0][]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.store %f, %z[%t]
// CHECK: remark: merge-shared-memory: @nest: 3 buffers, 256 B before, 128 B after (arena 128 B, lower bound 128 B), 0 barriers added
