// MIN-MERGED: 3
// --convert-scf-to-cf: liveness over the CFG (loops as back edges) still merges the chain.
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
    return %alloc_2 : memref<16xf32>
  }
  func.func @main() {
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
    return
  }
}

