// RUN: memplan opt %s
// Bad input is an error at the right line (exit 2, never a panic). Lines are counted from the
// first line of each case. Only the position is pinned: the wording is memplan's own.

func.func @undeclared() {
  %0 = memref.alloc() : memref<4xf32>
  memref.dealloc %1 : memref<4xf32>
  return
}
// ERROR: 7:

// -----
func.func @truncated_type() {
  %0 = memref.alloc() : memref<4xf32
  return
}
// ERROR: 2:
