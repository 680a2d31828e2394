// MIN-MERGED: 3
// --ownership-based-buffer-deallocation output, not lowered: merged buffers leave the
// bufferization.dealloc memref lists (with their conditions); the returned, retained buffer stays.
module {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @kernel(%arg0: memref<16xf32>) -> memref<16xf32> {
    %false = arith.constant false
    %true = arith.constant true
    %false_0 = arith.constant false
    %true_1 = arith.constant true
    %false_2 = arith.constant false
    %true_3 = arith.constant true
    %false_4 = arith.constant false
    %true_5 = arith.constant true
    %false_6 = arith.constant false
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %alloc = memref.alloc() : memref<16xf32>
    scf.for %arg1 = %c0 to %c16 step %c1 {
      %false_26 = arith.constant false
      %false_27 = arith.constant false
      %1 = memref.load %arg0[%arg1] : memref<16xf32>
      %2 = arith.addf %1, %1 : f32
      memref.store %2, %alloc[%arg1] : memref<16xf32>
    }
    %alloc_7 = memref.alloc() : memref<16xf32>
    scf.for %arg1 = %c0 to %c16 step %c1 {
      %false_26 = arith.constant false
      %false_27 = arith.constant false
      %1 = memref.load %alloc[%arg1] : memref<16xf32>
      %2 = arith.mulf %1, %1 : f32
      memref.store %2, %alloc_7[%arg1] : memref<16xf32>
    }
    %alloc_8 = memref.alloc() : memref<16xf32>
    scf.for %arg1 = %c0 to %c16 step %c1 {
      %false_26 = arith.constant false
      %false_27 = arith.constant false
      %1 = memref.load %alloc_7[%arg1] : memref<16xf32>
      %2 = arith.addf %1, %1 : f32
      memref.store %2, %alloc_8[%arg1] : memref<16xf32>
    }
    %alloc_9 = memref.alloc() : memref<16xf32>
    scf.for %arg1 = %c0 to %c16 step %c1 {
      %false_26 = arith.constant false
      %false_27 = arith.constant false
      %false_28 = arith.constant false
      %1 = memref.load %alloc_8[%arg1] : memref<16xf32>
      %2 = memref.load %arg0[%arg1] : memref<16xf32>
      %3 = arith.subf %1, %2 : f32
      memref.store %3, %alloc_9[%arg1] : memref<16xf32>
    }
    %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %arg0 : memref<16xf32> -> memref<f32>, index, index, index
    %base_buffer_10, %offset_11, %sizes_12, %strides_13 = memref.extract_strided_metadata %alloc : memref<16xf32> -> memref<f32>, index, index, index
    %base_buffer_14, %offset_15, %sizes_16, %strides_17 = memref.extract_strided_metadata %alloc_7 : memref<16xf32> -> memref<f32>, index, index, index
    %base_buffer_18, %offset_19, %sizes_20, %strides_21 = memref.extract_strided_metadata %alloc_8 : memref<16xf32> -> memref<f32>, index, index, index
    %base_buffer_22, %offset_23, %sizes_24, %strides_25 = memref.extract_strided_metadata %alloc_9 : memref<16xf32> -> memref<f32>, index, index, index
    %0 = bufferization.dealloc (%base_buffer, %base_buffer_10, %base_buffer_14, %base_buffer_18, %base_buffer_22 : memref<f32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) if (%false_6, %true_5, %true_3, %true_1, %true) retain (%alloc_9 : memref<16xf32>)
    return %alloc_9 : memref<16xf32>
  }
  func.func @main() {
    %false = arith.constant false
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %alloc = memref.alloc() : memref<16xf32>
    scf.for %arg0 = %c0 to %c16 step %c1 {
      %false_6 = arith.constant false
      %1 = arith.index_cast %arg0 : index to i32
      %2 = arith.sitofp %1 : i32 to f32
      memref.store %2, %alloc[%arg0] : memref<16xf32>
    }
    %true_0 = arith.constant true
    %0 = call @kernel(%alloc) : (memref<16xf32>) -> memref<16xf32>
    %cast = memref.cast %0 : memref<16xf32> to memref<*xf32>
    %true_1 = arith.constant true
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %alloc : memref<16xf32> -> memref<f32>, index, index, index
    %base_buffer_2, %offset_3, %sizes_4, %strides_5 = memref.extract_strided_metadata %0 : memref<16xf32> -> memref<f32>, index, index, index
    bufferization.dealloc (%base_buffer, %base_buffer_2 : memref<f32>, memref<f32>) if (%true, %true_0)
    return
  }
}

