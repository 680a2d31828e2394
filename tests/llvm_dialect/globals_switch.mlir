// LLVM-dialect forms the lowering emits beyond functions and memory ops (as mlir-opt-22
// prints them): globals with a value or an initializer region, a string global without a
// type, addressof, switch with case operands, unrealized casts.
module {
  llvm.mlir.global private constant @cst(dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<2 x array<3 x f32>>
  llvm.mlir.global private @buf() {addr_space = 0 : i32} : !llvm.array<4 x i32> {
    %0 = llvm.mlir.undef : !llvm.array<4 x i32>
    llvm.return %0 : !llvm.array<4 x i32>
  }
  llvm.mlir.global internal constant @str("hi\0A\00") {addr_space = 0 : i32}
  llvm.mlir.global external hidden unnamed_addr @ext(7 : i64) {addr_space = 0 : i32} : i64
  llvm.func @f(%arg0: i64, %arg1: i32) -> f32 {
    %0 = llvm.mlir.addressof @cst : !llvm.ptr
    %1 = llvm.getelementptr %0[0, 0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x array<3 x f32>>
    %2 = llvm.getelementptr inbounds|nuw %1[%arg0] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %3 = llvm.load %2 : !llvm.ptr -> f32
    %4 = llvm.mlir.addressof @str : !llvm.ptr
    %5 = llvm.mlir.addressof @ext : !llvm.ptr
    llvm.switch %arg1 : i32, ^bb1(%3 : f32) [
      0: ^bb2,
      -5: ^bb1(%3 : f32),
      12: ^bb3
    ]
  ^bb1(%6: f32):
    llvm.return %6 : f32
  ^bb2:
    llvm.switch %arg1 : i32, ^bb1(%3 : f32) [
    ]
  ^bb3:
    llvm.return %3 : f32
  }
  func.func @g(%a: i64) -> index {
    %0 = builtin.unrealized_conversion_cast %a : i64 to index
    %1:2 = builtin.unrealized_conversion_cast %a, %0 : i64, index to index, i64
    return %1#0 : index
  }
}
