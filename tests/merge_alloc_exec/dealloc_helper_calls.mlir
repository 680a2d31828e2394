// MIN-MERGED: 13
// A transformer block (tests/pipelines) through one-shot-bufferize with function boundaries,
// --buffer-deallocation-pipeline and linalg-to-loops: calls returning buffers make the pipeline
// emit the generic dealloc helper, which compares buffer addresses stored in pointer tables.
// Merged buffers whose addresses it compares get distinct offsets, so every comparison keeps
// its outcome.
module {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @init_1d(%arg0: index, %arg1: index, %arg2: f32) -> memref<?xf32> {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c8_i64 = arith.constant 8 : i64
    %c17 = arith.constant 17 : index
    %alloc = memref.alloc(%arg0) {alignment = 64 : i64} : memref<?xf32>
    scf.for %arg3 = %c0 to %arg0 step %c1 {
      %0 = arith.muli %arg3, %arg1 : index
      %1 = arith.remui %0, %c17 : index
      %2 = arith.index_cast %1 : index to i64
      %3 = arith.subi %2, %c8_i64 : i64
      %4 = arith.sitofp %3 : i64 to f32
      %5 = arith.mulf %4, %arg2 : f32
      memref.store %5, %alloc[%arg3] : memref<?xf32>
    }
    return %alloc : memref<?xf32>
  }
  func.func @matmul_8x16x16(%arg0: memref<8x16xf32, strided<[?, ?], offset: ?>>, %arg1: memref<16x16xf32, strided<[?, ?], offset: ?>>) -> memref<8x16xf32> {
    %c16 = arith.constant 16 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
    scf.for %arg2 = %c0 to %c8 step %c1 {
      scf.for %arg3 = %c0 to %c16 step %c1 {
        memref.store %cst, %alloc[%arg2, %arg3] : memref<8x16xf32>
      }
    }
    scf.for %arg2 = %c0 to %c8 step %c1 {
      scf.for %arg3 = %c0 to %c16 step %c1 {
        scf.for %arg4 = %c0 to %c16 step %c1 {
          %0 = memref.load %arg0[%arg2, %arg4] : memref<8x16xf32, strided<[?, ?], offset: ?>>
          %1 = memref.load %arg1[%arg4, %arg3] : memref<16x16xf32, strided<[?, ?], offset: ?>>
          %2 = memref.load %alloc[%arg2, %arg3] : memref<8x16xf32>
          %3 = arith.mulf %0, %1 : f32
          %4 = arith.addf %2, %3 : f32
          memref.store %4, %alloc[%arg2, %arg3] : memref<8x16xf32>
        }
      }
    }
    return %alloc : memref<8x16xf32>
  }
  func.func @softmax(%arg0: memref<8x8xf32, strided<[?, ?], offset: ?>>) -> memref<8x8xf32> {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant -1.000000e+30 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    scf.for %arg1 = %c0 to %c8 step %c1 {
      memref.store %cst, %alloc[%arg1] : memref<8xf32>
    }
    scf.for %arg1 = %c0 to %c8 step %c1 {
      scf.for %arg2 = %c0 to %c8 step %c1 {
        %0 = memref.load %arg0[%arg1, %arg2] : memref<8x8xf32, strided<[?, ?], offset: ?>>
        %1 = memref.load %alloc[%arg1] : memref<8xf32>
        %2 = arith.maximumf %0, %1 : f32
        memref.store %2, %alloc[%arg1] : memref<8xf32>
      }
    }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
    scf.for %arg1 = %c0 to %c8 step %c1 {
      scf.for %arg2 = %c0 to %c8 step %c1 {
        %0 = memref.load %arg0[%arg1, %arg2] : memref<8x8xf32, strided<[?, ?], offset: ?>>
        %1 = memref.load %alloc[%arg1] : memref<8xf32>
        %2 = arith.subf %0, %1 : f32
        %3 = math.exp %2 : f32
        memref.store %3, %alloc_1[%arg1, %arg2] : memref<8x8xf32>
      }
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    scf.for %arg1 = %c0 to %c8 step %c1 {
      memref.store %cst_0, %alloc_2[%arg1] : memref<8xf32>
    }
    scf.for %arg1 = %c0 to %c8 step %c1 {
      scf.for %arg2 = %c0 to %c8 step %c1 {
        %0 = memref.load %alloc_1[%arg1, %arg2] : memref<8x8xf32>
        %1 = memref.load %alloc_2[%arg1] : memref<8xf32>
        %2 = arith.addf %0, %1 : f32
        memref.store %2, %alloc_2[%arg1] : memref<8xf32>
      }
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
    scf.for %arg1 = %c0 to %c8 step %c1 {
      scf.for %arg2 = %c0 to %c8 step %c1 {
        %0 = memref.load %alloc_1[%arg1, %arg2] : memref<8x8xf32>
        %1 = memref.load %alloc_2[%arg1] : memref<8xf32>
        %2 = arith.divf %0, %1 : f32
        memref.store %2, %alloc_3[%arg1, %arg2] : memref<8x8xf32>
      }
    }
    memref.dealloc %alloc : memref<8xf32>
    memref.dealloc %alloc_1 : memref<8x8xf32>
    memref.dealloc %alloc_2 : memref<8xf32>
    return %alloc_3 : memref<8x8xf32>
  }
  func.func @layernorm(%arg0: memref<8x16xf32, strided<[?, ?], offset: ?>>, %arg1: memref<16xf32, strided<[?], offset: ?>>, %arg2: memref<16xf32, strided<[?], offset: ?>>) -> memref<8x16xf32> {
    %c16 = arith.constant 16 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.600000e+01 : f32
    %cst_1 = arith.constant 9.99999974E-6 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    scf.for %arg3 = %c0 to %c8 step %c1 {
      memref.store %cst, %alloc[%arg3] : memref<8xf32>
    }
    scf.for %arg3 = %c0 to %c8 step %c1 {
      scf.for %arg4 = %c0 to %c16 step %c1 {
        %0 = memref.load %arg0[%arg3, %arg4] : memref<8x16xf32, strided<[?, ?], offset: ?>>
        %1 = memref.load %alloc[%arg3] : memref<8xf32>
        %2 = arith.addf %0, %1 : f32
        memref.store %2, %alloc[%arg3] : memref<8xf32>
      }
    }
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    scf.for %arg3 = %c0 to %c8 step %c1 {
      memref.store %cst, %alloc_2[%arg3] : memref<8xf32>
    }
    scf.for %arg3 = %c0 to %c8 step %c1 {
      scf.for %arg4 = %c0 to %c16 step %c1 {
        %0 = memref.load %arg0[%arg3, %arg4] : memref<8x16xf32, strided<[?, ?], offset: ?>>
        %1 = memref.load %alloc[%arg3] : memref<8xf32>
        %2 = memref.load %alloc_2[%arg3] : memref<8xf32>
        %3 = arith.divf %1, %cst_0 : f32
        %4 = arith.subf %0, %3 : f32
        %5 = arith.mulf %4, %4 : f32
        %6 = arith.addf %5, %2 : f32
        memref.store %6, %alloc_2[%arg3] : memref<8xf32>
      }
    }
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
    scf.for %arg3 = %c0 to %c8 step %c1 {
      scf.for %arg4 = %c0 to %c16 step %c1 {
        %0 = memref.load %arg0[%arg3, %arg4] : memref<8x16xf32, strided<[?, ?], offset: ?>>
        %1 = memref.load %alloc[%arg3] : memref<8xf32>
        %2 = memref.load %alloc_2[%arg3] : memref<8xf32>
        %3 = memref.load %arg1[%arg4] : memref<16xf32, strided<[?], offset: ?>>
        %4 = memref.load %arg2[%arg4] : memref<16xf32, strided<[?], offset: ?>>
        %5 = arith.divf %1, %cst_0 : f32
        %6 = arith.divf %2, %cst_0 : f32
        %7 = arith.addf %6, %cst_1 : f32
        %8 = math.rsqrt %7 : f32
        %9 = arith.subf %0, %5 : f32
        %10 = arith.mulf %9, %8 : f32
        %11 = arith.mulf %10, %3 : f32
        %12 = arith.addf %11, %4 : f32
        memref.store %12, %alloc_3[%arg3, %arg4] : memref<8x16xf32>
      }
    }
    memref.dealloc %alloc : memref<8xf32>
    memref.dealloc %alloc_2 : memref<8xf32>
    return %alloc_3 : memref<8x16xf32>
  }
  func.func @block(%arg0: memref<8x16xf32, strided<[?, ?], offset: ?>>, %arg1: memref<16x16xf32, strided<[?, ?], offset: ?>>, %arg2: memref<16x16xf32, strided<[?, ?], offset: ?>>, %arg3: memref<16x16xf32, strided<[?, ?], offset: ?>>, %arg4: memref<16x16xf32, strided<[?, ?], offset: ?>>, %arg5: memref<16x32xf32, strided<[?, ?], offset: ?>>, %arg6: memref<32x16xf32, strided<[?, ?], offset: ?>>, %arg7: memref<16xf32, strided<[?], offset: ?>>, %arg8: memref<16xf32, strided<[?], offset: ?>>) -> memref<8x16xf32> {
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %c10 = arith.constant 10 : index
    %c9 = arith.constant 9 : index
    %c8 = arith.constant 8 : index
    %c7 = arith.constant 7 : index
    %c6 = arith.constant 6 : index
    %c5 = arith.constant 5 : index
    %c4 = arith.constant 4 : index
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %true = arith.constant true
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 2.500000e-01 : f32
    %0 = call @matmul_8x16x16(%arg0, %arg1) : (memref<8x16xf32, strided<[?, ?], offset: ?>>, memref<16x16xf32, strided<[?, ?], offset: ?>>) -> memref<8x16xf32>
    %1 = call @matmul_8x16x16(%arg0, %arg2) : (memref<8x16xf32, strided<[?, ?], offset: ?>>, memref<16x16xf32, strided<[?, ?], offset: ?>>) -> memref<8x16xf32>
    %2 = call @matmul_8x16x16(%arg0, %arg3) : (memref<8x16xf32, strided<[?, ?], offset: ?>>, memref<16x16xf32, strided<[?, ?], offset: ?>>) -> memref<8x16xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c8 step %c1 {
        memref.store %cst, %alloc[%arg9, %arg10] : memref<8x8xf32>
      }
    }
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c8 step %c1 {
        scf.for %arg11 = %c0 to %c16 step %c1 {
          %17 = memref.load %0[%arg9, %arg11] : memref<8x16xf32>
          %18 = memref.load %1[%arg10, %arg11] : memref<8x16xf32>
          %19 = memref.load %alloc[%arg9, %arg10] : memref<8x8xf32>
          %20 = arith.mulf %17, %18 : f32
          %21 = arith.mulf %20, %cst_0 : f32
          %22 = arith.addf %21, %19 : f32
          memref.store %22, %alloc[%arg9, %arg10] : memref<8x8xf32>
        }
      }
    }
    %cast = memref.cast %alloc : memref<8x8xf32> to memref<8x8xf32, strided<[?, ?], offset: ?>>
    %3 = call @softmax(%cast) : (memref<8x8xf32, strided<[?, ?], offset: ?>>) -> memref<8x8xf32>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c16 step %c1 {
        memref.store %cst, %alloc_1[%arg9, %arg10] : memref<8x16xf32>
      }
    }
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c16 step %c1 {
        scf.for %arg11 = %c0 to %c8 step %c1 {
          %17 = memref.load %3[%arg9, %arg11] : memref<8x8xf32>
          %18 = memref.load %2[%arg11, %arg10] : memref<8x16xf32>
          %19 = memref.load %alloc_1[%arg9, %arg10] : memref<8x16xf32>
          %20 = arith.mulf %17, %18 : f32
          %21 = arith.addf %19, %20 : f32
          memref.store %21, %alloc_1[%arg9, %arg10] : memref<8x16xf32>
        }
      }
    }
    %cast_2 = memref.cast %alloc_1 : memref<8x16xf32> to memref<8x16xf32, strided<[?, ?], offset: ?>>
    %4 = call @matmul_8x16x16(%cast_2, %arg4) : (memref<8x16xf32, strided<[?, ?], offset: ?>>, memref<16x16xf32, strided<[?, ?], offset: ?>>) -> memref<8x16xf32>
    %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c16 step %c1 {
        %17 = memref.load %arg0[%arg9, %arg10] : memref<8x16xf32, strided<[?, ?], offset: ?>>
        %18 = memref.load %4[%arg9, %arg10] : memref<8x16xf32>
        %19 = arith.addf %17, %18 : f32
        memref.store %19, %alloc_3[%arg9, %arg10] : memref<8x16xf32>
      }
    }
    %cast_4 = memref.cast %alloc_3 : memref<8x16xf32> to memref<8x16xf32, strided<[?, ?], offset: ?>>
    %5 = call @layernorm(%cast_4, %arg7, %arg8) : (memref<8x16xf32, strided<[?, ?], offset: ?>>, memref<16xf32, strided<[?], offset: ?>>, memref<16xf32, strided<[?], offset: ?>>) -> memref<8x16xf32>
    %alloc_5 = memref.alloc() {alignment = 64 : i64} : memref<8x32xf32>
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c32 step %c1 {
        memref.store %cst, %alloc_5[%arg9, %arg10] : memref<8x32xf32>
      }
    }
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c32 step %c1 {
        scf.for %arg11 = %c0 to %c16 step %c1 {
          %17 = memref.load %5[%arg9, %arg11] : memref<8x16xf32>
          %18 = memref.load %arg5[%arg11, %arg10] : memref<16x32xf32, strided<[?, ?], offset: ?>>
          %19 = memref.load %alloc_5[%arg9, %arg10] : memref<8x32xf32>
          %20 = arith.mulf %17, %18 : f32
          %21 = arith.addf %19, %20 : f32
          memref.store %21, %alloc_5[%arg9, %arg10] : memref<8x32xf32>
        }
      }
    }
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c32 step %c1 {
        %17 = memref.load %alloc_5[%arg9, %arg10] : memref<8x32xf32>
        %18 = arith.maximumf %17, %cst : f32
        memref.store %18, %alloc_5[%arg9, %arg10] : memref<8x32xf32>
      }
    }
    %alloc_6 = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c16 step %c1 {
        memref.store %cst, %alloc_6[%arg9, %arg10] : memref<8x16xf32>
      }
    }
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c16 step %c1 {
        scf.for %arg11 = %c0 to %c32 step %c1 {
          %17 = memref.load %alloc_5[%arg9, %arg11] : memref<8x32xf32>
          %18 = memref.load %arg6[%arg11, %arg10] : memref<32x16xf32, strided<[?, ?], offset: ?>>
          %19 = memref.load %alloc_6[%arg9, %arg10] : memref<8x16xf32>
          %20 = arith.mulf %17, %18 : f32
          %21 = arith.addf %19, %20 : f32
          memref.store %21, %alloc_6[%arg9, %arg10] : memref<8x16xf32>
        }
      }
    }
    %alloc_7 = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
    scf.for %arg9 = %c0 to %c8 step %c1 {
      scf.for %arg10 = %c0 to %c16 step %c1 {
        %17 = memref.load %alloc_6[%arg9, %arg10] : memref<8x16xf32>
        %18 = memref.load %5[%arg9, %arg10] : memref<8x16xf32>
        %19 = arith.addf %17, %18 : f32
        memref.store %19, %alloc_7[%arg9, %arg10] : memref<8x16xf32>
      }
    }
    %base_buffer, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %0 : memref<8x16xf32> -> memref<f32>, index, index, index, index, index
    %base_buffer_8, %offset_9, %sizes_10:2, %strides_11:2 = memref.extract_strided_metadata %1 : memref<8x16xf32> -> memref<f32>, index, index, index, index, index
    %base_buffer_12, %offset_13, %sizes_14:2, %strides_15:2 = memref.extract_strided_metadata %2 : memref<8x16xf32> -> memref<f32>, index, index, index, index, index
    %base_buffer_16, %offset_17, %sizes_18:2, %strides_19:2 = memref.extract_strided_metadata %3 : memref<8x8xf32> -> memref<f32>, index, index, index, index, index
    %base_buffer_20, %offset_21, %sizes_22:2, %strides_23:2 = memref.extract_strided_metadata %4 : memref<8x16xf32> -> memref<f32>, index, index, index, index, index
    %base_buffer_24, %offset_25, %sizes_26:2, %strides_27:2 = memref.extract_strided_metadata %5 : memref<8x16xf32> -> memref<f32>, index, index, index, index, index
    %alloc_28 = memref.alloc() : memref<11xindex>
    %alloc_29 = memref.alloc() : memref<11xi1>
    %alloc_30 = memref.alloc() : memref<1xindex>
    %intptr = memref.extract_aligned_pointer_as_index %base_buffer : memref<f32> -> index
    memref.store %intptr, %alloc_28[%c0] : memref<11xindex>
    %intptr_31 = memref.extract_aligned_pointer_as_index %base_buffer_8 : memref<f32> -> index
    memref.store %intptr_31, %alloc_28[%c1] : memref<11xindex>
    %intptr_32 = memref.extract_aligned_pointer_as_index %base_buffer_12 : memref<f32> -> index
    memref.store %intptr_32, %alloc_28[%c2] : memref<11xindex>
    %intptr_33 = memref.extract_aligned_pointer_as_index %alloc : memref<8x8xf32> -> index
    memref.store %intptr_33, %alloc_28[%c3] : memref<11xindex>
    %intptr_34 = memref.extract_aligned_pointer_as_index %base_buffer_16 : memref<f32> -> index
    memref.store %intptr_34, %alloc_28[%c4] : memref<11xindex>
    %intptr_35 = memref.extract_aligned_pointer_as_index %alloc_1 : memref<8x16xf32> -> index
    memref.store %intptr_35, %alloc_28[%c5] : memref<11xindex>
    %intptr_36 = memref.extract_aligned_pointer_as_index %base_buffer_20 : memref<f32> -> index
    memref.store %intptr_36, %alloc_28[%c6] : memref<11xindex>
    %intptr_37 = memref.extract_aligned_pointer_as_index %alloc_3 : memref<8x16xf32> -> index
    memref.store %intptr_37, %alloc_28[%c7] : memref<11xindex>
    %intptr_38 = memref.extract_aligned_pointer_as_index %base_buffer_24 : memref<f32> -> index
    memref.store %intptr_38, %alloc_28[%c8] : memref<11xindex>
    %intptr_39 = memref.extract_aligned_pointer_as_index %alloc_5 : memref<8x32xf32> -> index
    memref.store %intptr_39, %alloc_28[%c9] : memref<11xindex>
    %intptr_40 = memref.extract_aligned_pointer_as_index %alloc_6 : memref<8x16xf32> -> index
    memref.store %intptr_40, %alloc_28[%c10] : memref<11xindex>
    memref.store %true, %alloc_29[%c0] : memref<11xi1>
    memref.store %true, %alloc_29[%c1] : memref<11xi1>
    memref.store %true, %alloc_29[%c2] : memref<11xi1>
    memref.store %true, %alloc_29[%c3] : memref<11xi1>
    memref.store %true, %alloc_29[%c4] : memref<11xi1>
    memref.store %true, %alloc_29[%c5] : memref<11xi1>
    memref.store %true, %alloc_29[%c6] : memref<11xi1>
    memref.store %true, %alloc_29[%c7] : memref<11xi1>
    memref.store %true, %alloc_29[%c8] : memref<11xi1>
    memref.store %true, %alloc_29[%c9] : memref<11xi1>
    memref.store %true, %alloc_29[%c10] : memref<11xi1>
    %intptr_41 = memref.extract_aligned_pointer_as_index %alloc_7 : memref<8x16xf32> -> index
    memref.store %intptr_41, %alloc_30[%c0] : memref<1xindex>
    %cast_42 = memref.cast %alloc_28 : memref<11xindex> to memref<?xindex>
    %cast_43 = memref.cast %alloc_29 : memref<11xi1> to memref<?xi1>
    %cast_44 = memref.cast %alloc_30 : memref<1xindex> to memref<?xindex>
    %alloc_45 = memref.alloc() : memref<11xi1>
    %alloc_46 = memref.alloc() : memref<1xi1>
    %cast_47 = memref.cast %alloc_45 : memref<11xi1> to memref<?xi1>
    %cast_48 = memref.cast %alloc_46 : memref<1xi1> to memref<?xi1>
    call @dealloc_helper(%cast_42, %cast_44, %cast_43, %cast_47, %cast_48) : (memref<?xindex>, memref<?xindex>, memref<?xi1>, memref<?xi1>, memref<?xi1>) -> ()
    %6 = memref.load %alloc_45[%c0] : memref<11xi1>
    scf.if %6 {
      memref.dealloc %base_buffer : memref<f32>
    }
    %7 = memref.load %alloc_45[%c1] : memref<11xi1>
    scf.if %7 {
      memref.dealloc %base_buffer_8 : memref<f32>
    }
    %8 = memref.load %alloc_45[%c2] : memref<11xi1>
    scf.if %8 {
      memref.dealloc %base_buffer_12 : memref<f32>
    }
    %9 = memref.load %alloc_45[%c3] : memref<11xi1>
    scf.if %9 {
      memref.dealloc %alloc : memref<8x8xf32>
    }
    %10 = memref.load %alloc_45[%c4] : memref<11xi1>
    scf.if %10 {
      memref.dealloc %base_buffer_16 : memref<f32>
    }
    %11 = memref.load %alloc_45[%c5] : memref<11xi1>
    scf.if %11 {
      memref.dealloc %alloc_1 : memref<8x16xf32>
    }
    %12 = memref.load %alloc_45[%c6] : memref<11xi1>
    scf.if %12 {
      memref.dealloc %base_buffer_20 : memref<f32>
    }
    %13 = memref.load %alloc_45[%c7] : memref<11xi1>
    scf.if %13 {
      memref.dealloc %alloc_3 : memref<8x16xf32>
    }
    %14 = memref.load %alloc_45[%c8] : memref<11xi1>
    scf.if %14 {
      memref.dealloc %base_buffer_24 : memref<f32>
    }
    %15 = memref.load %alloc_45[%c9] : memref<11xi1>
    scf.if %15 {
      memref.dealloc %alloc_5 : memref<8x32xf32>
    }
    %16 = memref.load %alloc_45[%c10] : memref<11xi1>
    scf.if %16 {
      memref.dealloc %alloc_6 : memref<8x16xf32>
    }
    memref.dealloc %alloc_28 : memref<11xindex>
    memref.dealloc %alloc_30 : memref<1xindex>
    memref.dealloc %alloc_29 : memref<11xi1>
    memref.dealloc %alloc_45 : memref<11xi1>
    memref.dealloc %alloc_46 : memref<1xi1>
    return %alloc_7 : memref<8x16xf32>
  }
  func.func @main() {
    %c8 = arith.constant 8 : index
    %c6 = arith.constant 6 : index
    %c4 = arith.constant 4 : index
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 6.250000e-02 : f32
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c9 = arith.constant 9 : index
    %c11 = arith.constant 11 : index
    %c13 = arith.constant 13 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %true = arith.constant true
    %0 = call @init_1d(%c128, %c3, %cst) : (index, index, f32) -> memref<?xf32>
    %cast = memref.cast %0 : memref<?xf32> to memref<128xf32>
    %expand_shape = memref.expand_shape %cast [[0, 1]] output_shape [8, 16] : memref<128xf32> into memref<8x16xf32>
    %1 = call @init_1d(%c256, %c5, %cst) : (index, index, f32) -> memref<?xf32>
    %cast_0 = memref.cast %1 : memref<?xf32> to memref<256xf32>
    %expand_shape_1 = memref.expand_shape %cast_0 [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
    %2 = call @init_1d(%c256, %c7, %cst) : (index, index, f32) -> memref<?xf32>
    %cast_2 = memref.cast %2 : memref<?xf32> to memref<256xf32>
    %expand_shape_3 = memref.expand_shape %cast_2 [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
    %3 = call @init_1d(%c256, %c9, %cst) : (index, index, f32) -> memref<?xf32>
    %cast_4 = memref.cast %3 : memref<?xf32> to memref<256xf32>
    %expand_shape_5 = memref.expand_shape %cast_4 [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
    %4 = call @init_1d(%c256, %c11, %cst) : (index, index, f32) -> memref<?xf32>
    %cast_6 = memref.cast %4 : memref<?xf32> to memref<256xf32>
    %expand_shape_7 = memref.expand_shape %cast_6 [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
    %5 = call @init_1d(%c512, %c13, %cst) : (index, index, f32) -> memref<?xf32>
    %cast_8 = memref.cast %5 : memref<?xf32> to memref<512xf32>
    %expand_shape_9 = memref.expand_shape %cast_8 [[0, 1]] output_shape [16, 32] : memref<512xf32> into memref<16x32xf32>
    %6 = call @init_1d(%c512, %c3, %cst) : (index, index, f32) -> memref<?xf32>
    %cast_10 = memref.cast %6 : memref<?xf32> to memref<512xf32>
    %expand_shape_11 = memref.expand_shape %cast_10 [[0, 1]] output_shape [32, 16] : memref<512xf32> into memref<32x16xf32>
    %7 = call @init_1d(%c16, %c7, %cst) : (index, index, f32) -> memref<?xf32>
    %8 = call @init_1d(%c16, %c1, %cst) : (index, index, f32) -> memref<?xf32>
    %cast_12 = memref.cast %expand_shape : memref<8x16xf32> to memref<8x16xf32, strided<[?, ?], offset: ?>>
    %cast_13 = memref.cast %expand_shape_1 : memref<16x16xf32> to memref<16x16xf32, strided<[?, ?], offset: ?>>
    %cast_14 = memref.cast %expand_shape_3 : memref<16x16xf32> to memref<16x16xf32, strided<[?, ?], offset: ?>>
    %cast_15 = memref.cast %expand_shape_5 : memref<16x16xf32> to memref<16x16xf32, strided<[?, ?], offset: ?>>
    %cast_16 = memref.cast %expand_shape_7 : memref<16x16xf32> to memref<16x16xf32, strided<[?, ?], offset: ?>>
    %cast_17 = memref.cast %expand_shape_9 : memref<16x32xf32> to memref<16x32xf32, strided<[?, ?], offset: ?>>
    %cast_18 = memref.cast %expand_shape_11 : memref<32x16xf32> to memref<32x16xf32, strided<[?, ?], offset: ?>>
    %cast_19 = memref.cast %7 : memref<?xf32> to memref<16xf32, strided<[?], offset: ?>>
    %cast_20 = memref.cast %8 : memref<?xf32> to memref<16xf32, strided<[?], offset: ?>>
    %9 = call @block(%cast_12, %cast_13, %cast_14, %cast_15, %cast_16, %cast_17, %cast_18, %cast_19, %cast_20) : (memref<8x16xf32, strided<[?, ?], offset: ?>>, memref<16x16xf32, strided<[?, ?], offset: ?>>, memref<16x16xf32, strided<[?, ?], offset: ?>>, memref<16x16xf32, strided<[?, ?], offset: ?>>, memref<16x16xf32, strided<[?, ?], offset: ?>>, memref<16x32xf32, strided<[?, ?], offset: ?>>, memref<32x16xf32, strided<[?, ?], offset: ?>>, memref<16xf32, strided<[?], offset: ?>>, memref<16xf32, strided<[?], offset: ?>>) -> memref<8x16xf32>
    %cast_21 = memref.cast %9 : memref<8x16xf32> to memref<*xf32>
    call @printMemrefF32(%cast_21) : (memref<*xf32>) -> ()
    %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %0 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_22, %offset_23, %sizes_24, %strides_25 = memref.extract_strided_metadata %1 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_26, %offset_27, %sizes_28, %strides_29 = memref.extract_strided_metadata %2 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_30, %offset_31, %sizes_32, %strides_33 = memref.extract_strided_metadata %3 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_34, %offset_35, %sizes_36, %strides_37 = memref.extract_strided_metadata %4 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_38, %offset_39, %sizes_40, %strides_41 = memref.extract_strided_metadata %5 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_42, %offset_43, %sizes_44, %strides_45 = memref.extract_strided_metadata %6 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_46, %offset_47, %sizes_48, %strides_49 = memref.extract_strided_metadata %7 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_50, %offset_51, %sizes_52, %strides_53 = memref.extract_strided_metadata %8 : memref<?xf32> -> memref<f32>, index, index, index
    %base_buffer_54, %offset_55, %sizes_56:2, %strides_57:2 = memref.extract_strided_metadata %9 : memref<8x16xf32> -> memref<f32>, index, index, index, index, index
    %alloc = memref.alloc() : memref<10xindex>
    %alloc_58 = memref.alloc() : memref<10xi1>
    %alloc_59 = memref.alloc() : memref<0xindex>
    %intptr = memref.extract_aligned_pointer_as_index %base_buffer : memref<f32> -> index
    memref.store %intptr, %alloc[%c0] : memref<10xindex>
    %intptr_60 = memref.extract_aligned_pointer_as_index %base_buffer_22 : memref<f32> -> index
    memref.store %intptr_60, %alloc[%c1] : memref<10xindex>
    %intptr_61 = memref.extract_aligned_pointer_as_index %base_buffer_26 : memref<f32> -> index
    memref.store %intptr_61, %alloc[%c2] : memref<10xindex>
    %intptr_62 = memref.extract_aligned_pointer_as_index %base_buffer_30 : memref<f32> -> index
    memref.store %intptr_62, %alloc[%c3] : memref<10xindex>
    %intptr_63 = memref.extract_aligned_pointer_as_index %base_buffer_34 : memref<f32> -> index
    memref.store %intptr_63, %alloc[%c4] : memref<10xindex>
    %intptr_64 = memref.extract_aligned_pointer_as_index %base_buffer_38 : memref<f32> -> index
    memref.store %intptr_64, %alloc[%c5] : memref<10xindex>
    %intptr_65 = memref.extract_aligned_pointer_as_index %base_buffer_42 : memref<f32> -> index
    memref.store %intptr_65, %alloc[%c6] : memref<10xindex>
    %intptr_66 = memref.extract_aligned_pointer_as_index %base_buffer_46 : memref<f32> -> index
    memref.store %intptr_66, %alloc[%c7] : memref<10xindex>
    %intptr_67 = memref.extract_aligned_pointer_as_index %base_buffer_50 : memref<f32> -> index
    memref.store %intptr_67, %alloc[%c8] : memref<10xindex>
    %intptr_68 = memref.extract_aligned_pointer_as_index %base_buffer_54 : memref<f32> -> index
    memref.store %intptr_68, %alloc[%c9] : memref<10xindex>
    memref.store %true, %alloc_58[%c0] : memref<10xi1>
    memref.store %true, %alloc_58[%c1] : memref<10xi1>
    memref.store %true, %alloc_58[%c2] : memref<10xi1>
    memref.store %true, %alloc_58[%c3] : memref<10xi1>
    memref.store %true, %alloc_58[%c4] : memref<10xi1>
    memref.store %true, %alloc_58[%c5] : memref<10xi1>
    memref.store %true, %alloc_58[%c6] : memref<10xi1>
    memref.store %true, %alloc_58[%c7] : memref<10xi1>
    memref.store %true, %alloc_58[%c8] : memref<10xi1>
    memref.store %true, %alloc_58[%c9] : memref<10xi1>
    %cast_69 = memref.cast %alloc : memref<10xindex> to memref<?xindex>
    %cast_70 = memref.cast %alloc_58 : memref<10xi1> to memref<?xi1>
    %cast_71 = memref.cast %alloc_59 : memref<0xindex> to memref<?xindex>
    %alloc_72 = memref.alloc() : memref<10xi1>
    %alloc_73 = memref.alloc() : memref<0xi1>
    %cast_74 = memref.cast %alloc_72 : memref<10xi1> to memref<?xi1>
    %cast_75 = memref.cast %alloc_73 : memref<0xi1> to memref<?xi1>
    call @dealloc_helper(%cast_69, %cast_71, %cast_70, %cast_74, %cast_75) : (memref<?xindex>, memref<?xindex>, memref<?xi1>, memref<?xi1>, memref<?xi1>) -> ()
    %10 = memref.load %alloc_72[%c0] : memref<10xi1>
    scf.if %10 {
      memref.dealloc %base_buffer : memref<f32>
    }
    %11 = memref.load %alloc_72[%c1] : memref<10xi1>
    scf.if %11 {
      memref.dealloc %base_buffer_22 : memref<f32>
    }
    %12 = memref.load %alloc_72[%c2] : memref<10xi1>
    scf.if %12 {
      memref.dealloc %base_buffer_26 : memref<f32>
    }
    %13 = memref.load %alloc_72[%c3] : memref<10xi1>
    scf.if %13 {
      memref.dealloc %base_buffer_30 : memref<f32>
    }
    %14 = memref.load %alloc_72[%c4] : memref<10xi1>
    scf.if %14 {
      memref.dealloc %base_buffer_34 : memref<f32>
    }
    %15 = memref.load %alloc_72[%c5] : memref<10xi1>
    scf.if %15 {
      memref.dealloc %base_buffer_38 : memref<f32>
    }
    %16 = memref.load %alloc_72[%c6] : memref<10xi1>
    scf.if %16 {
      memref.dealloc %base_buffer_42 : memref<f32>
    }
    %17 = memref.load %alloc_72[%c7] : memref<10xi1>
    scf.if %17 {
      memref.dealloc %base_buffer_46 : memref<f32>
    }
    %18 = memref.load %alloc_72[%c8] : memref<10xi1>
    scf.if %18 {
      memref.dealloc %base_buffer_50 : memref<f32>
    }
    %19 = memref.load %alloc_72[%c9] : memref<10xi1>
    scf.if %19 {
      memref.dealloc %base_buffer_54 : memref<f32>
    }
    memref.dealloc %alloc : memref<10xindex>
    memref.dealloc %alloc_59 : memref<0xindex>
    memref.dealloc %alloc_58 : memref<10xi1>
    memref.dealloc %alloc_72 : memref<10xi1>
    memref.dealloc %alloc_73 : memref<0xi1>
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

