// A GPU kernel for `memplan opt --merge-shared-memory`: three staging buffers are filled and read
// (phase 1), then three more (phase 2) with no barrier between the phases. The pass puts each
// phase-2 buffer on the bytes of a phase-1 buffer (768 B instead of 1536 B) and adds the single
// kernel-level gpu.barrier that separates all three pairs.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @two_phases(%v: f32, %out: memref<256xf32>)
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
