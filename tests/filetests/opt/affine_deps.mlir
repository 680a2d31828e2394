// RUN: memplan opt %s --test-memref-dependence-check -o /dev/null 2>&1
// The printed view of the affine dependence analysis: one remark per ordered pair of
// affine.load/affine.store and loop depth, as mlir-opt-22 --test-memref-dependence-check prints them
// (the expected lines were checked against mlir-opt-22).

// Loop-carried RAW in place: a[i] = a[i - 1] (distance [1, 1] at depth 1).
func.func @scan(%a: memref<64xf32>) {
  affine.for %i = 1 to 64 {
    %x = affine.load %a[%i - 1] : memref<64xf32>
    affine.store %x, %a[%i] : memref<64xf32>
  }
  return
}
// CHECK: {{.*}}:9:10: remark: dependence from 0 to 0 at depth 1 = false
// CHECK: {{.*}}:9:10: remark: dependence from 0 to 1 at depth 2 = false
// CHECK: {{.*}}:10:5: remark: dependence from 1 to 0 at depth 1 = {{\[}}1, 1{{\]}}
// CHECK: {{.*}}:10:5: remark: dependence from 1 to 1 at depth 1 = false

// -----

// WAR across nests and WAW between two writers; reads of another buffer never depend.
func.func @war_waw(%x: memref<32xf32>, %y: memref<32xf32>) {
  affine.for %i = 0 to 31 {
    %v = affine.load %x[%i] : memref<32xf32>
    affine.store %v, %y[%i] : memref<32xf32>
  }
  affine.for %i = 0 to 31 {
    %w = affine.load %y[%i] : memref<32xf32>
    affine.store %w, %x[%i + 1] : memref<32xf32>
    affine.store %w, %x[%i] : memref<32xf32>
  }
  return
}
// CHECK: {{.*}}:5:10: remark: dependence from 0 to 0 at depth 1 = false
// CHECK: {{.*}}:5:10: remark: dependence from 0 to 1 at depth 2 = false
// CHECK: {{.*}}:5:10: remark: dependence from 0 to 3 at depth 1 = true
// CHECK: {{.*}}:5:10: remark: dependence from 0 to 4 at depth 1 = true
// CHECK: {{.*}}:6:5: remark: dependence from 1 to 1 at depth 1 = false
// CHECK: {{.*}}:6:5: remark: dependence from 1 to 2 at depth 1 = true
// CHECK: {{.*}}:6:5: remark: dependence from 1 to 3 at depth 1 = false
// CHECK: {{.*}}:9:10: remark: dependence from 2 to 1 at depth 1 = false
// CHECK: {{.*}}:9:10: remark: dependence from 2 to 3 at depth 1 = false
// CHECK: {{.*}}:9:10: remark: dependence from 2 to 4 at depth 2 = false
// CHECK: {{.*}}:10:5: remark: dependence from 3 to 2 at depth 1 = false
// CHECK: {{.*}}:10:5: remark: dependence from 3 to 3 at depth 2 = false
// CHECK: {{.*}}:10:5: remark: dependence from 3 to 4 at depth 1 = {{\[}}1, 1{{\]}}
// CHECK: {{.*}}:11:5: remark: dependence from 4 to 0 at depth 1 = false
// CHECK: {{.*}}:11:5: remark: dependence from 4 to 2 at depth 2 = false
// CHECK: {{.*}}:11:5: remark: dependence from 4 to 4 at depth 1 = false

// -----

// A symbolic offset leaves the distance unbounded on both sides.
func.func @sym(%a: memref<?xf32>, %n: index, %k: index) {
  affine.for %i = 0 to %n {
    %v = affine.load %a[%i + symbol(%k)] : memref<?xf32>
    affine.store %v, %a[%i] : memref<?xf32>
  }
  return
}
// CHECK: {{.*}}:5:10: remark: dependence from 0 to 0 at depth 1 = false
// CHECK: {{.*}}:5:10: remark: dependence from 0 to 1 at depth 1 = {{\[}}1, +inf{{\]}}
// CHECK: {{.*}}:5:10: remark: dependence from 0 to 1 at depth 2 = true
// CHECK: {{.*}}:6:5: remark: dependence from 1 to 0 at depth 1 = {{\[}}1, +inf{{\]}}
// CHECK: {{.*}}:6:5: remark: dependence from 1 to 1 at depth 1 = false

// -----

// Gauss-Seidel sweep: distance vectors [1, 1][0, 0] and [0, 0][1, 1]; an inner-loop
// stride of 2 and a floordiv.
func.func @sweep(%a: memref<16x16xf32>, %b: memref<32xf32>) {
  affine.for %i = 1 to 16 {
    affine.for %j = 1 to 16 {
      %n = affine.load %a[%i - 1, %j] : memref<16x16xf32>
      %w = affine.load %a[%i, %j - 1] : memref<16x16xf32>
      %s = arith.addf %n, %w : f32
      affine.store %s, %a[%i, %j] : memref<16x16xf32>
    }
  }
  affine.for %i = 0 to 32 step 2 {
    %v = affine.load %b[%i floordiv 2] : memref<32xf32>
    affine.store %v, %b[%i + 1] : memref<32xf32>
  }
  return
}
// CHECK: {{.*}}:7:12: remark: dependence from 0 to 0 at depth 1 = false
// CHECK: {{.*}}:7:12: remark: dependence from 0 to 1 at depth 1 = false
// CHECK: {{.*}}:7:12: remark: dependence from 0 to 2 at depth 1 = false
// CHECK: {{.*}}:7:12: remark: dependence from 0 to 3 at depth 1 = false
// CHECK: {{.*}}:8:12: remark: dependence from 1 to 0 at depth 2 = false
// CHECK: {{.*}}:8:12: remark: dependence from 1 to 1 at depth 2 = false
// CHECK: {{.*}}:8:12: remark: dependence from 1 to 2 at depth 2 = false
// CHECK: {{.*}}:8:12: remark: dependence from 1 to 4 at depth 1 = false
// CHECK: {{.*}}:10:7: remark: dependence from 2 to 0 at depth 1 = {{\[}}1, 1{{\]}}{{\[}}0, 0{{\]}}
// CHECK: {{.*}}:10:7: remark: dependence from 2 to 0 at depth 3 = false
// CHECK: {{.*}}:10:7: remark: dependence from 2 to 1 at depth 2 = {{\[}}0, 0{{\]}}{{\[}}1, 1{{\]}}
// CHECK: {{.*}}:10:7: remark: dependence from 2 to 1 at depth 3 = false
// CHECK: {{.*}}:10:7: remark: dependence from 2 to 2 at depth 3 = false
// CHECK: {{.*}}:14:10: remark: dependence from 3 to 0 at depth 1 = false
// CHECK: {{.*}}:14:10: remark: dependence from 3 to 3 at depth 1 = false
// CHECK: {{.*}}:14:10: remark: dependence from 3 to 4 at depth 2 = false
// CHECK: {{.*}}:15:5: remark: dependence from 4 to 2 at depth 1 = false
// CHECK: {{.*}}:15:5: remark: dependence from 4 to 3 at depth 1 = {{\[}}2, 16{{\]}}
// CHECK: {{.*}}:15:5: remark: dependence from 4 to 4 at depth 1 = false
