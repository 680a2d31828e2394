// MIN-MERGED: 3
// --buffer-deallocation-pipeline then --convert-scf-to-cf: frees in other blocks, pointer checks.
module {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @kernel(%arg0: memref<16xf32>) -> memref<16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %alloc = memref.alloc() : memref<16xf32>
    cf.br ^bb1(%c0 : index)
  ^bb1(%0: index):  // 2 preds: ^bb0, ^bb2
    %1 = arith.cmpi slt, %0, %c16 : index
    cf.cond_br %1, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %2 = memref.load %arg0[%0] : memref<16xf32>
    %3 = arith.addf %2, %2 : f32
    memref.store %3, %alloc[%0] : memref<16xf32>
    %4 = arith.addi %0, %c1 : index
    cf.br ^bb1(%4 : index)
  ^bb3:  // pred: ^bb1
    %alloc_0 = memref.alloc() : memref<16xf32>
    cf.br ^bb4(%c0 : index)
  ^bb4(%5: index):  // 2 preds: ^bb3, ^bb5
    %6 = arith.cmpi slt, %5, %c16 : index
    cf.cond_br %6, ^bb5, ^bb6
  ^bb5:  // pred: ^bb4
    %7 = memref.load %alloc[%5] : memref<16xf32>
    %8 = arith.mulf %7, %7 : f32
    memref.store %8, %alloc_0[%5] : memref<16xf32>
    %9 = arith.addi %5, %c1 : index
    cf.br ^bb4(%9 : index)
  ^bb6:  // pred: ^bb4
    %alloc_1 = memref.alloc() : memref<16xf32>
    cf.br ^bb7(%c0 : index)
  ^bb7(%10: index):  // 2 preds: ^bb6, ^bb8
    %11 = arith.cmpi slt, %10, %c16 : index
    cf.cond_br %11, ^bb8, ^bb9
  ^bb8:  // pred: ^bb7
    %12 = memref.load %alloc_0[%10] : memref<16xf32>
    %13 = arith.addf %12, %12 : f32
    memref.store %13, %alloc_1[%10] : memref<16xf32>
    %14 = arith.addi %10, %c1 : index
    cf.br ^bb7(%14 : index)
  ^bb9:  // pred: ^bb7
    %alloc_2 = memref.alloc() : memref<16xf32>
    cf.br ^bb10(%c0 : index)
  ^bb10(%15: index):  // 2 preds: ^bb9, ^bb11
    %16 = arith.cmpi slt, %15, %c16 : index
    cf.cond_br %16, ^bb11, ^bb12
  ^bb11:  // pred: ^bb10
    %17 = memref.load %alloc_1[%15] : memref<16xf32>
    %18 = memref.load %arg0[%15] : memref<16xf32>
    %19 = arith.subf %17, %18 : f32
    memref.store %19, %alloc_2[%15] : memref<16xf32>
    %20 = arith.addi %15, %c1 : index
    cf.br ^bb10(%20 : index)
  ^bb12:  // pred: ^bb10
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
    cf.br ^bb1(%c0 : index)
  ^bb1(%0: index):  // 2 preds: ^bb0, ^bb2
    %1 = arith.cmpi slt, %0, %c16 : index
    cf.cond_br %1, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %2 = arith.index_cast %0 : index to i32
    %3 = arith.sitofp %2 : i32 to f32
    memref.store %3, %alloc[%0] : memref<16xf32>
    %4 = arith.addi %0, %c1 : index
    cf.br ^bb1(%4 : index)
  ^bb3:  // pred: ^bb1
    %5 = call @kernel(%alloc) : (memref<16xf32>) -> memref<16xf32>
    %cast = memref.cast %5 : memref<16xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %5 : memref<16xf32> -> memref<f32>, index, index, index
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
    %6 = memref.load %alloc_7[%c0] : memref<2xi1>
    cf.cond_br %6, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    memref.dealloc %alloc : memref<16xf32>
    cf.br ^bb5
  ^bb5:  // 2 preds: ^bb3, ^bb4
    %7 = memref.load %alloc_7[%c1] : memref<2xi1>
    cf.cond_br %7, ^bb6, ^bb7
  ^bb6:  // pred: ^bb5
    memref.dealloc %base_buffer : memref<f32>
    cf.br ^bb7
  ^bb7:  // 2 preds: ^bb5, ^bb6
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
    cf.br ^bb1(%c0 : index)
  ^bb1(%0: index):  // 2 preds: ^bb0, ^bb2
    %1 = arith.cmpi slt, %0, %dim_0 : index
    cf.cond_br %1, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    memref.store %false, %arg4[%0] : memref<?xi1>
    %2 = arith.addi %0, %c1 : index
    cf.br ^bb1(%2 : index)
  ^bb3:  // pred: ^bb1
    cf.br ^bb4(%c0 : index)
  ^bb4(%3: index):  // 2 preds: ^bb3, ^bb13
    %4 = arith.cmpi slt, %3, %dim : index
    cf.cond_br %4, ^bb5, ^bb14
  ^bb5:  // pred: ^bb4
    %5 = memref.load %arg0[%3] : memref<?xindex>
    %6 = memref.load %arg2[%3] : memref<?xi1>
    cf.br ^bb6(%c0, %true : index, i1)
  ^bb6(%7: index, %8: i1):  // 2 preds: ^bb5, ^bb9
    %9 = arith.cmpi slt, %7, %dim_0 : index
    cf.cond_br %9, ^bb7, ^bb10
  ^bb7:  // pred: ^bb6
    %10 = memref.load %arg1[%7] : memref<?xindex>
    %11 = arith.cmpi eq, %10, %5 : index
    cf.cond_br %11, ^bb8, ^bb9
  ^bb8:  // pred: ^bb7
    %12 = memref.load %arg4[%7] : memref<?xi1>
    %13 = arith.ori %12, %6 : i1
    memref.store %13, %arg4[%7] : memref<?xi1>
    cf.br ^bb9
  ^bb9:  // 2 preds: ^bb7, ^bb8
    %14 = arith.cmpi ne, %10, %5 : index
    %15 = arith.andi %8, %14 : i1
    %16 = arith.addi %7, %c1 : index
    cf.br ^bb6(%16, %15 : index, i1)
  ^bb10:  // pred: ^bb6
    cf.br ^bb11(%c0, %8 : index, i1)
  ^bb11(%17: index, %18: i1):  // 2 preds: ^bb10, ^bb12
    %19 = arith.cmpi slt, %17, %3 : index
    cf.cond_br %19, ^bb12, ^bb13
  ^bb12:  // pred: ^bb11
    %20 = memref.load %arg0[%17] : memref<?xindex>
    %21 = arith.cmpi ne, %20, %5 : index
    %22 = arith.andi %18, %21 : i1
    %23 = arith.addi %17, %c1 : index
    cf.br ^bb11(%23, %22 : index, i1)
  ^bb13:  // pred: ^bb11
    %24 = arith.andi %18, %6 : i1
    memref.store %24, %arg3[%3] : memref<?xi1>
    %25 = arith.addi %3, %c1 : index
    cf.br ^bb4(%25 : index)
  ^bb14:  // pred: ^bb4
    return
  }
}

