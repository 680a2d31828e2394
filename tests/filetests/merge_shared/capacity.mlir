// RUN: memplan opt %s --merge-shared-memory --remarks 2>&1
// Capacity, options, gpu.launch scopes, dynamic shared memory and buffers left alone.

// Three buffers live together need 81920 B, above the default 48 KiB: an error naming the kernel,
// its need and the capacity (exit 1).
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @too_big(%f: f32)
        workgroup(%a : memref<8192xf32, #gpu.address_space<workgroup>>, %b : memref<8192xf32, #gpu.address_space<workgroup>>,
                  %c : memref<4096xf32, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      memref.store %f, %a[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      memref.store %f, %b[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      memref.store %f, %c[%t] : memref<4096xf32, #gpu.address_space<workgroup>>
      %x = memref.load %a[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      %y = memref.load %b[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// ERROR: 8:5: kernel @too_big needs 81920 bytes of workgroup memory, above the capacity of 49152 bytes

// -----

// RUN: memplan opt %s --merge-shared-memory=arch=gfx942
// The gfx942 preset (64 KiB of LDS) is still too small.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @too_big(%f: f32)
        workgroup(%a : memref<8192xf32, #gpu.address_space<workgroup>>, %b : memref<8192xf32, #gpu.address_space<workgroup>>,
                  %c : memref<4096xf32, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      memref.store %f, %a[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      memref.store %f, %b[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      memref.store %f, %c[%t] : memref<4096xf32, #gpu.address_space<workgroup>>
      %x = memref.load %a[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      %y = memref.load %b[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// ERROR: 6:5: kernel @too_big needs 81920 bytes of workgroup memory, above the capacity of 65536 bytes

// -----

// RUN: memplan opt %s --merge-shared-memory=arch=sm_90,alignment=64
// The sm_90 preset (227 KiB) fits; alignment=64 rounds every buffer up to 64 bytes.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @fits(%f: f32)
        workgroup(%a : memref<8192xf32, #gpu.address_space<workgroup>>, %b : memref<3xf32, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      memref.store %f, %a[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      memref.store %f, %b[%t] : memref<3xf32, #gpu.address_space<workgroup>>
      %x = memref.load %a[%t] : memref<8192xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// CHECK: workgroup(%smem : memref<32832xi8, #gpu.address_space<workgroup>> {llvm.align = 64 : i64})

// -----

// RUN: memplan opt %s --merge-shared-memory=capacity=100
// capacity=BYTES.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @small(%f: f32) workgroup(%a : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %t = gpu.thread_id x
      memref.store %f, %a[%t] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// ERROR: 6:5: kernel @small needs 128 bytes of workgroup memory, above the capacity of 100 bytes

// -----

// RUN: memplan opt %s --merge-shared-memory=capacity=lots
module {
}
// ERROR: bad value `lots` for merge-shared-memory option `capacity`: expected a number

// -----

// A gpu.launch: a workgroup memref.alloc (memory space 3 written as an integer) and an
// attribution become views of one launch attribution; the dynamic shared memory size is left
// alone with a remark; a dynamically sized workgroup alloc stays with a remark; deallocs of
// merged allocs go.
func.func @host(%n: index, %f: f32, %out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %dyn = arith.constant 64 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %dyn
             workgroup(%w : memref<64xf32, 3>) {
    %c0 = arith.constant 0 : index
    %a = memref.alloc() : memref<64xf32, 3>
    %d = memref.alloc(%n) : memref<?xf32, 3>
    memref.store %f, %a[%tx] : memref<64xf32, 3>
    memref.store %f, %d[%tx] : memref<?xf32, 3>
    gpu.barrier
    %x = memref.load %a[%c0] : memref<64xf32, 3>
    memref.store %x, %w[%tx] : memref<64xf32, 3>
    gpu.barrier
    %y = memref.load %w[%c0] : memref<64xf32, 3>
    memref.store %y, %out[%tx] : memref<256xf32>
    memref.dealloc %a : memref<64xf32, 3>
    gpu.terminator
  }
  return
}
// CHECK: workgroup(%smem : memref<256xi8, 3>) {
// CHECK-NEXT: %smem_off0 = arith.constant 0 : index
// CHECK-NEXT: %w = memref.view %smem[%smem_off0][] : memref<256xi8, 3> to memref<64xf32, 3>
// CHECK: %a = memref.view %smem[%smem_off0][] : memref<256xi8, 3> to memref<64xf32, 3>
// CHECK-NEXT: %d = memref.alloc(%n) : memref<?xf32, 3>
// CHECK: %x = memref.load %a[%c0]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %x, %w[%tx]
// CHECK-NOT: memref.dealloc
// CHECK: remark: merge-shared-memory: @host/launch#0: dynamic shared memory is left alone
// CHECK: remark: merge-shared-memory: @host/launch#0: 2 buffers, 512 B before, 256 B after (arena 256 B, lower bound 256 B), 1 barriers added
// CHECK: remark: merge-shared-memory: @host/launch#0: %d left alone: its shape is dynamic

// -----

// A buffer whose address is taken stays an attribution of its own (with a remark); the others
// are merged into the arena, which becomes the first workgroup attribution.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @escape(%f: f32, %out: memref<256xindex>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, #gpu.address_space<workgroup>>,
                  %c : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      %p = memref.extract_aligned_pointer_as_index %a : memref<64xf32, #gpu.address_space<workgroup>> -> index
      memref.store %p, %out[%t] : memref<256xindex>
      memref.store %f, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %b[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %x, %c[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
// CHECK: workgroup(%smem : memref<256xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %a : memref<64xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: memref.extract_aligned_pointer_as_index %a
// CHECK: remark: merge-shared-memory: @escape: 2 buffers, 768 B before, 512 B after (arena 256 B, lower bound 256 B), 0 barriers added
// CHECK-NEXT: remark: merge-shared-memory: @escape: %a left alone: its address is taken by `memref.extract_aligned_pointer_as_index`

// -----

// Workgroup memory spelled two ways in one kernel (`#gpu.address_space<workgroup>` and `3`, as
// NVVM lowering writes it): one arena in the first buffer's spelling; the other buffer's view
// is cast back to its own type with memref.memory_space_cast.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @spellings(%f: f32, %out: memref<256xf32>)
        workgroup(%a : memref<64xf32, #gpu.address_space<workgroup>>, %b : memref<64xf32, 3>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      memref.store %f, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %x, %b[%t] : memref<64xf32, 3>
      gpu.barrier
      %y = memref.load %b[%c0] : memref<64xf32, 3>
      memref.store %y, %out[%t] : memref<256xf32>
      gpu.return
    }
  }
}
// CHECK: workgroup(%smem : memref<256xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK-NEXT: %smem_off0 = arith.constant 0 : index
// CHECK-NEXT: %a = memref.view %smem[%smem_off0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: [[V:%[0-9a-z_]+]] = memref.view %smem[%smem_off0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %b = memref.memory_space_cast [[V]] : memref<64xf32, #gpu.address_space<workgroup>> to memref<64xf32, 3>
// CHECK: remark: merge-shared-memory: @spellings: 2 buffers, 512 B before, 256 B after (arena 256 B, lower bound 256 B), 0 barriers added
