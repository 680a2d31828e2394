// MIN-MERGED: 3
// --buffer-deallocation-pipeline on a kernel that returns a buffer: the temporaries merge.
module {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @kernel(%arg0: memref<16xf32>) -> memref<16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %alloc = memref.alloc() : memref<16xf32>
    scf.for %arg1 = %c0 to %c16 step %c1 {
      %0 = memref.load %arg0[%arg1] : memref<16xf32>
      %1 = arith.addf %0, %0 : f32
      memref.store %1, %alloc[%arg1] : memref<16xf32>
    }
    %alloc_0 = memref.alloc() : memref<16xf32>
    scf.for %arg1 = %c0 to %c16 step %c1 {
      %0 = memref.load %alloc[%arg1] : memref<16xf32>
      %1 = arith.mulf %0, %0 : f32
      memref.store %1, %alloc_0[%arg1] : memref<16xf32>
    }
    %alloc_1 = memref.alloc() : memref<16xf32>
    scf.for %arg1 = %c0 to %c16 step %c1 {
      %0 = memref.load %alloc_0[%arg1] : memref<16xf32>
      %1 = arith.addf %0, %0 : f32
      memref.store %1, %alloc_1[%arg1] : memref<16xf32>
    }
    %alloc_2 = memref.alloc() : memref<16xf32>
    scf.for %arg1 = %c0 to %c16 step %c1 {
      %0 = memref.load %alloc_1[%arg1] : memref<16xf32>
      %1 = memref.load %arg0[%arg1] : memref<16xf32>
      %2 = arith.subf %0, %1 : f32
      memref.store %2, %alloc_2[%arg1] : memref<16xf32>
    }
    memref.dealloc %alloc : memref<16xf32>
    memref.dealloc %alloc_0 : memref<16xf32>
    memref.dealloc %alloc_1 : memref<16xf32>
    return %alloc_2 : memref<16xf32>
  }
  func.func @main() {
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %alloc = memref.alloc() : memref<16xf32>
    scf.for %arg0 = %c0 to %c16 step %c1 {
      %3 = arith.index_cast %arg0 : index to i32
      %4 = arith.sitofp %3 : i32 to f32
      memref.store %4, %alloc[%arg0] : memref<16xf32>
    }
    %0 = call @kernel(%alloc) : (memref<16xf32>) -> memref<16xf32>
    %cast = memref.cast %0 : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %0 : memref<16xf32> -> memref<f32>, index, index, index
    %alloc_0 = memref.alloc() : memref<2xindex>
    %alloc_1 = memref.alloc() : memref<2xi1>
    %alloc_2 = memref.alloc() : memref<0xindex>
    %intptr = memref.extract_aligned_pointer_as_index %alloc : memref<16xf32> -> index
    memref.store %intptr, %alloc_0[%c0] : memref<2xindex>
    %intptr_3 = memref.extract_aligned_pointer_as_index %base_buffer : memref<f32> -> index
    memref.store %intptr_3, %alloc_0[%c1] : memref<2xindex>
    memref.store %true, %alloc_1[%c0] : memref<2xi1>
    memref.store %true, %alloc_1[%c1] : memref<2xi1>
    %cast_4 = memref.cast %alloc_0 : memref<2xindex> to memref<?xindex>
    %cast_5 = memref.cast %alloc_1 : memref<2xi1> to memref<?xi1>
    %cast_6 = memref.cast %alloc_2 : memref<0xindex> to memref<?xindex>
    %alloc_7 = memref.alloc() : memref<2xi1>
    %alloc_8 = memref.alloc() : memref<0xi1>
    %cast_9 = memref.cast %alloc_7 : memref<2xi1> to memref<?xi1>
    %cast_10 = memref.cast %alloc_8 : memref<0xi1> to memref<?xi1>
    call @dealloc_helper(%cast_4, %cast_6, %cast_5, %cast_9, %cast_10) : (memref<?xindex>, memref<?xindex>, memref<?xi1>, memref<?xi1>, memref<?xi1>) -> ()
    %1 = memref.load %alloc_7[%c0] : memref<2xi1>
    scf.if %1 {
      memref.dealloc %alloc : memref<16xf32>
    }
    %2 = memref.load %alloc_7[%c1] : memref<2xi1>
    scf.if %2 {
      memref.dealloc %base_buffer : memref<f32>
    }
    memref.dealloc %alloc_0 : memref<2xindex>
    memref.dealloc %alloc_2 : memref<0xindex>
    memref.dealloc %alloc_1 : memref<2xi1>
    memref.dealloc %alloc_7 : memref<2xi1>
    memref.dealloc %alloc_8 : memref<0xi1>
    return
  }
  func.func private @dealloc_helper(%arg0: memref<?xindex>, %arg1: memref<?xindex>, %arg2: memref<?xi1>, %arg3: memref<?xi1>, %arg4: memref<?xi1>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %false = arith.constant false
    %dim = memref.dim %arg0, %c0 : memref<?xindex>
    %dim_0 = memref.dim %arg1, %c0 : memref<?xindex>
    scf.for %arg5 = %c0 to %dim_0 step %c1 {
      memref.store %false, %arg4[%arg5] : memref<?xi1>
    }
    scf.for %arg5 = %c0 to %dim step %c1 {
      %0 = memref.load %arg0[%arg5] : memref<?xindex>
      %1 = memref.load %arg2[%arg5] : memref<?xi1>
      %2 = scf.for %arg6 = %c0 to %dim_0 step %c1 iter_args(%arg7 = %true) -> (i1) {
        %5 = memref.load %arg1[%arg6] : memref<?xindex>
        %6 = arith.cmpi eq, %5, %0 : index
        scf.if %6 {
          %9 = memref.load %arg4[%arg6] : memref<?xi1>
          %10 = arith.ori %9, %1 : i1
          memref.store %10, %arg4[%arg6] : memref<?xi1>
        }
        %7 = arith.cmpi ne, %5, %0 : index
        %8 = arith.andi %arg7, %7 : i1
        scf.yield %8 : i1
      }
      %3 = scf.for %arg6 = %c0 to %arg5 step %c1 iter_args(%arg7 = %2) -> (i1) {
        %5 = memref.load %arg0[%arg6] : memref<?xindex>
        %6 = arith.cmpi ne, %5, %0 : index
        %7 = arith.andi %arg7, %6 : i1
        scf.yield %7 : i1
      }
      %4 = arith.andi %3, %1 : i1
      memref.store %4, %arg3[%arg5] : memref<?xi1>
    }
    return
  }
}

