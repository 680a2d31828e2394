//! Type validity and verifier rules that measuring memplan on upstream MLIR test cases
//! (scripts/upstream_cases.py) showed missing or too strict. Each entry is a small module
//! of our own with the verdict MLIR 22 gives; where `mlir-opt-22` is installed the table
//! itself is checked against it (required with MEMPLAN_REQUIRE_MLIR=1), so an entry with a
//! wrong verdict fails instead of locking a mistake in.

mod common;

/// `None`: MLIR accepts the module; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    // ---- builtin type validity ----
    ("func.func private @f(vector<2x0xf32>)", Some("positive constant sizes")),
    ("func.func private @f(vector<[0]xf32>)", Some("positive constant sizes")),
    ("func.func private @f(vector<3xcomplex<f32>>)", Some("VectorElementTypeInterface")),
    ("func.func private @f(vector<3x!foo.t>)", Some("VectorElementTypeInterface")),
    ("func.func private @f(vector<3x!llvm.ptr>, vector<[2]xindex>)", None),
    ("func.func private @f(memref<3x!foo.t>)", Some("invalid memref element type")),
    ("func.func private @f(memref<*xnone>)", Some("invalid memref element type")),
    ("func.func private @f(memref<3xvector<2xi8>>, memref<2xmemref<4xf32>>, memref<2xcomplex<f64>>)", None),
    ("func.func private @f(tensor<2xnone>)", Some("invalid tensor element type")),
    ("func.func private @f(tensor<*xmemref<2xf32>>)", Some("invalid tensor element type")),
    ("func.func private @f(tensor<2x!foo.t>, tensor<2xvector<3xf32>>)", None),
    ("func.func private @f(complex<index>)", Some("invalid element type for complex")),
    ("func.func private @f(complex<i8>)", None),
    ("func.func private @f(memref<2xf32, #foo.space>)", Some("unsupported memory space")),
    ("func.func private @f(memref<2xf32, i16>)", Some("unsupported memory space")),
    ("func.func private @f(memref<*xf32, 1.5>)", Some("unsupported memory space")),
    (
        "func.func private @f(memref<2xf32, \"shared\">, memref<2xf32, {k = 1}>, memref<2xf32, #gpu.address_space<private>>, memref<2xf32, true>)",
        None,
    ),
    ("func.func private @f(memref<2x3xf32, strided<[1]>>)", Some("number of strides to match the rank")),
    (
        "func.func private @f(memref<2x3xf32, affine_map<(a) -> (a)>>)",
        Some("mismatch between rank and affine map"),
    ),
    // An identity layout map is the default layout: the two spellings are one type.
    (
        "func.func @f(%a: memref<5xf32, affine_map<(i) -> (i)>, 0>) -> memref<5xf32> {\n  return %a : memref<5xf32>\n}",
        None,
    ),
    // ---- memref.subview: the result type is the inferred one, up to dropped unit dims ----
    (
        "func.func @f(%m: memref<6x6xf32>) {\n  %0 = memref.subview %m[1, 0] [2, 6] [1, 1] : memref<6x6xf32> to memref<2x6xf32, strided<[6, 1]>>\n  return\n}",
        Some("mismatch of result layout"),
    ),
    (
        "func.func @f(%m: memref<6x6xf32>) {\n  %0 = memref.subview %m[1, 0] [2, 6] [1, 1] : memref<6x6xf32> to memref<2x6xf32, strided<[6, 1], offset: 6>>\n  %1 = memref.subview %m[0, 1] [1, 3] [1, 2] : memref<6x6xf32> to memref<3xf32, strided<[2], offset: 1>>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<6x6xf32>) {\n  %0 = memref.subview %m[0, 0] [2, 6] [1, 1] : memref<6x6xf32> to memref<3x6xf32>\n  return\n}",
        Some("mismatch of result sizes"),
    ),
    (
        "func.func @f(%m: memref<8xf32, affine_map<(i) -> (i mod 4)>>) {\n  %0 = memref.subview %m[0] [2] [1] : memref<8xf32, affine_map<(i) -> (i mod 4)>> to memref<2xf32>\n  return\n}",
        Some("is not strided"),
    ),
    (
        "func.func @f(%m: memref<8xf32, affine_map<(i)[s] -> (i * 2 + s)>>, %o: index) {\n  %0 = memref.subview %m[%o] [2] [1] : memref<8xf32, affine_map<(i)[s] -> (i * 2 + s)>> to memref<2xf32, strided<[2], offset: ?>>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<8xf32>) {\n  %0 = memref.subview %m[-2] [2] [1] : memref<8xf32> to memref<2xf32, strided<[1], offset: -2>>\n  return\n}",
        Some("offsets to be non-negative"),
    ),
    // ---- memref.reinterpret_cast: a static list entry may meet a `?` in the type ----
    (
        "func.func @f(%m: memref<?xf32>) {\n  %0 = memref.reinterpret_cast %m to offset: [3], sizes: [4, 4], strides: [4, 1] : memref<?xf32> to memref<4x4xf32, strided<[?, 1], offset: ?>>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<?xf32>, %n: index) {\n  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [%n], strides: [1] : memref<?xf32> to memref<4xf32>\n  return\n}",
        Some("size = dynamic instead of 4"),
    ),
    // ---- memref.expand_shape / collapse_shape ----
    (
        "func.func @f(%m: memref<2x3xf32>) {\n  %0 = memref.collapse_shape %m [[0, 1]] : memref<2x3xf32> into memref<5xf32>\n  return\n}",
        Some("must equal reassociation group size"),
    ),
    (
        "func.func @f(%m: memref<?x3xf32>) {\n  %0 = memref.collapse_shape %m [[0, 1]] : memref<?x3xf32> into memref<6xf32>\n  return\n}",
        Some("must be dynamic if and only if"),
    ),
    (
        "func.func @f(%m: memref<4x8xf32, strided<[16, 1]>>) {\n  %0 = memref.collapse_shape %m [[0, 1]] : memref<4x8xf32, strided<[16, 1]>> into memref<32xf32, strided<[1]>>\n  return\n}",
        Some("non-contiguous"),
    ),
    (
        "func.func @f(%m: memref<4x8xf32, strided<[8, 1]>>, %e: memref<12xf32, strided<[3]>>) {\n  %0 = memref.collapse_shape %m [[0, 1]] : memref<4x8xf32, strided<[8, 1]>> into memref<32xf32, strided<[1]>>\n  %1 = memref.expand_shape %e [[0, 1]] output_shape [4, 3] : memref<12xf32, strided<[3]>> into memref<4x3xf32, strided<[9, 3]>>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%e: memref<12xf32, strided<[3]>>) {\n  %1 = memref.expand_shape %e [[0, 1]] output_shape [4, 3] : memref<12xf32, strided<[3]>> into memref<4x3xf32>\n  return\n}",
        Some("expected expanded type"),
    ),
    // A rank-1 `strided<[1]>` source counts as contiguous: the expanded type has no layout.
    (
        "func.func @f(%m: memref<16xi32, strided<[1]>>, %n: memref<16xi32, strided<[1], offset: 4>>) {\n  %0 = memref.expand_shape %m [[0, 1]] output_shape [8, 2] : memref<16xi32, strided<[1]>> into memref<8x2xi32>\n  %1 = memref.expand_shape %n [[0, 1]] output_shape [8, 2] : memref<16xi32, strided<[1], offset: 4>> into memref<8x2xi32, strided<[2, 1], offset: 4>>\n  return\n}",
        None,
    ),
    // ---- tensor ops ----
    (
        "func.func @f(%t: tensor<2x5xf32>) {\n  %0 = tensor.collapse_shape %t [[0, 1]] : tensor<2x5xf32> into tensor<12xf32>\n  return\n}",
        Some("static value of 10"),
    ),
    (
        "func.func @f(%t: tensor<10xf32>) {\n  %0 = tensor.expand_shape %t [[0, 1]] output_shape [2] : tensor<10xf32> into tensor<2x5xf32>\n  return\n}",
        Some("equal to the output rank"),
    ),
    (
        "func.func @f(%a: tensor<2xf32>, %b: tensor<2x2xf32>) {\n  %0 = tensor.concat dim(0) %a, %b : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<4xf32>\n  return\n}",
        Some("rank of concatenated inputs"),
    ),
    (
        "func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {\n  %0 = tensor.concat dim(0) %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<7x3xf32>\n  return\n}",
        Some("does not match inferred shape"),
    ),
    (
        "func.func @f(%a: tensor<2x3xf32>, %b: tensor<?x3xf32>) {\n  %0 = tensor.concat dim(0) %a, %b : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%t: tensor<3xi8>, %v: i8) {\n  %0 = tensor.pad %t low[1] high[1] {\n  ^bb0(%i: index, %j: index):\n    tensor.yield %v : i8\n  } : tensor<3xi8> to tensor<5xi8>\n  return\n}",
        Some("block to have 1 arguments"),
    ),
    (
        "func.func @f(%t: tensor<3xi8>, %v: i8) {\n  %0 = tensor.pad %t low[1] high[1] {\n  ^bb0(%i: index):\n    tensor.yield %v : i8\n  } : tensor<3xi8> to tensor<6xi8>\n  return\n}",
        Some("does not match the inferred type"),
    ),
    (
        "func.func @f(%t: tensor<3xi8>, %v: i8) {\n  %0 = tensor.pad %t low[1] high[1] {\n  ^bb0(%i: index):\n    tensor.yield %v : i8\n  } : tensor<3xi8> to tensor<5xi8>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%s: tensor<4x4xf32>, %i: tensor<2x1xindex>) {\n  %0 = tensor.gather %s[%i] gather_dims([]) : (tensor<4x4xf32>, tensor<2x1xindex>) -> tensor<2x4x4xf32>\n  return\n}",
        Some("gather_dims must be non-empty"),
    ),
    (
        "func.func @f(%t: tensor<f32>, %i: index) {\n  %0 = tensor.dim %t, %i : tensor<f32>\n  return\n}",
        Some("non-0-ranked"),
    ),
    (
        "func.func @f(%v: f32, %n: index) {\n  %0 = tensor.splat %v[%n] : tensor<?x2x?xf32>\n  return\n}",
        Some("incorrect number of dynamic sizes"),
    ),
    // ---- memref.cast strides, memref.prefetch locality ----
    (
        "func.func @f(%m: memref<4x4xf32, strided<[4, 1]>>) {\n  %0 = memref.cast %m : memref<4x4xf32, strided<[4, 1]>> to memref<4x4xf32, strided<[8, 1]>>\n  return\n}",
        Some("cast incompatible"),
    ),
    (
        "func.func @f(%m: memref<4x4xf32, strided<[4, 1]>>) {\n  %0 = memref.cast %m : memref<4x4xf32, strided<[4, 1]>> to memref<4x4xf32, strided<[?, 1], offset: ?>>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<8xf32>, %i: index) {\n  memref.prefetch %m[%i], write, locality<4>, instr : memref<8xf32>\n  return\n}",
        Some("maximum value is 3"),
    ),
    // ---- gpu reductions (these were only rejected before because they did not parse) ----
    (
        "gpu.module @m {\n  gpu.func @k(%a: f32) kernel {\n    %0 = gpu.all_reduce or %a {\n    } : (f32) -> f32\n    gpu.return\n  }\n}",
        Some("not compatible with type"),
    ),
    (
        "gpu.module @m {\n  gpu.func @k(%a: f32) kernel {\n    %0 = gpu.all_reduce %a {\n    ^bb0(%x: f32, %y: f32):\n      gpu.yield %x, %y : f32, f32\n    } : (f32) -> f32\n    gpu.return\n  }\n}",
        Some("expected one gpu.yield operand"),
    ),
    (
        "gpu.module @m {\n  gpu.func @k(%a: i32) kernel {\n    %0 = gpu.subgroup_reduce add %a cluster(size = 6) : (i32) -> i32\n    gpu.return\n  }\n}",
        Some("is not a power of two"),
    ),
    (
        "gpu.module @m {\n  gpu.func @k(%a: i32) kernel {\n    %0 = gpu.subgroup_reduce maxsi %a cluster(size = 8, stride = 2) : (i32) -> i32\n    %1 = gpu.all_reduce and %a uniform {\n    } : (i32) -> i32\n    gpu.return\n  }\n}",
        None,
    ),
    // ---- gpu.alloc symbol operands, gpu.dynamic_shared_memory, gpu launch-size hints ----
    (
        "func.func @f(%s: index) {\n  %0 = gpu.alloc() [%s] : memref<3x5xi16, affine_map<(i, j)[t] -> (i * t + j)>>\n  %1 = gpu.alloc() [%s, %s] : memref<3x5xi16, strided<[?, 1], offset: ?>>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%s: index) {\n  %0 = gpu.alloc() [%s] : memref<3x5xi16, strided<[5, 1]>>\n  return\n}",
        Some("symbol operand count does not equal memref symbol count"),
    ),
    (
        "func.func @f() {\n  %0 = gpu.alloc() : memref<4xf64, affine_map<(i)[a, b] -> (i + a + b)>>\n  return\n}",
        Some("symbol operand count does not equal memref symbol count"),
    ),
    (
        "func.func @f() {\n  %0 = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>\n  %1 = gpu.dynamic_shared_memory : memref<?xi8, strided<[1], offset: ?>, #gpu.address_space<workgroup>>\n  return\n}",
        None,
    ),
    (
        "func.func @f() {\n  %0 = gpu.dynamic_shared_memory : memref<?xi8, 3>\n  return\n}",
        Some("address space must be address_space<workgroup>"),
    ),
    (
        "func.func @f() {\n  %0 = gpu.dynamic_shared_memory : memref<16xi8, #gpu.address_space<workgroup>>\n  return\n}",
        Some("result memref type must be memref<?xi8"),
    ),
    (
        "func.func @f() {\n  %0 = gpu.dynamic_shared_memory : memref<?x4xi8, #gpu.address_space<workgroup>>\n  return\n}",
        Some("must be 1D memref of 8-bit signless integer values"),
    ),
    (
        "func.func @f() attributes {gpu.known_grid_size = array<i32: 4, 4, 1>, gpu.known_block_size = array<i32: 64, 1, 1>} {\n  return\n}",
        None,
    ),
    (
        "func.func @f() attributes {gpu.known_grid_size = array<i64: 4, 4, 1>} {\n  return\n}",
        Some("gpu.known_grid_size must be a dense i32 array"),
    ),
    (
        "gpu.module @m {\n  gpu.func @k() kernel attributes {gpu.known_cluster_size = array<i32: 2, 2, 2, 2>} {\n    gpu.return\n  }\n}",
        Some("gpu.known_cluster_size must contain exactly 3 elements"),
    ),
    // ---- gpu.module targets, gpu.binary objects, offloading handlers ----
    (
        "gpu.module @m <#gpu.select_object<1>> [#rocdl.target, #nvvm.target] {\n}\ngpu.binary @b <#gpu.select_object<0>> [#gpu.object<#nvvm.target, \"x\">]",
        None,
    ),
    (
        "gpu.module @m [\"sm_90\"] {\n}",
        Some("attribute 'targets' failed to satisfy constraint"),
    ),
    (
        "gpu.module @m <7> [#nvvm.target] {\n}",
        Some("attribute 'offloadingHandler' failed to satisfy constraint"),
    ),
    (
        "gpu.binary @b [#nvvm.target]",
        Some("attribute 'objects' failed to satisfy constraint"),
    ),
    // ---- gpu.subgroup_mma_*: matrix types, memref strides, operand kinds and shapes ----
    (
        "func.func private @f(!gpu.mma_matrix<8x8xsi8, \"BOp\">, !gpu.mma_matrix<4x4xf64, \"COp\">)",
        None,
    ),
    ("func.func private @f(!gpu.mma_matrix<8xf32, \"COp\">)", Some("exactly two dimensions")),
    ("func.func private @f(!gpu.mma_matrix<8x8xi16, \"COp\">)", Some("MMAMatrixType elements must be")),
    ("func.func private @f(!gpu.mma_matrix<8x8xf32, \"DOp\">)", Some("one of AOp, BOp or COp")),
    (
        "func.func @f(%m: memref<8x8xf16, strided<[16, 1], offset: ?>>, %t: memref<1x8xf32, affine_map<(a, b) -> (a, b)>>, %v: memref<4x4xvector<2xi32>>, %i: index, %c: !gpu.mma_matrix<8x8xf32, \"COp\">) {\n  %0 = gpu.subgroup_mma_load_matrix %m[%i, %i] {leadDimension = 16 : index} : memref<8x8xf16, strided<[16, 1], offset: ?>> -> !gpu.mma_matrix<8x8xf16, \"BOp\">\n  %1 = gpu.subgroup_mma_load_matrix %t[%i, %i] {leadDimension = 8 : index} : memref<1x8xf32, affine_map<(a, b) -> (a, b)>> -> !gpu.mma_matrix<8x8xf32, \"COp\">\n  gpu.subgroup_mma_store_matrix %c, %t[%i, %i] {leadDimension = 8 : index} : !gpu.mma_matrix<8x8xf32, \"COp\">, memref<1x8xf32, affine_map<(a, b) -> (a, b)>>\n  %2 = gpu.subgroup_mma_load_matrix %v[%i, %i] {leadDimension = 4 : index} : memref<4x4xvector<2xi32>> -> !gpu.mma_matrix<8x8xi32, \"COp\">\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<8x8xf16, strided<[1, 8]>>, %i: index) {\n  %0 = gpu.subgroup_mma_load_matrix %m[%i, %i] {leadDimension = 8 : index} : memref<8x8xf16, strided<[1, 8]>> -> !gpu.mma_matrix<8x8xf16, \"AOp\">\n  return\n}",
        Some("source memref most minor dim must have unit stride"),
    ),
    (
        "func.func @f(%m: memref<1x8xf32, affine_map<(a, b) -> (b, a)>>, %i: index) {\n  %0 = gpu.subgroup_mma_load_matrix %m[%i, %i] {leadDimension = 8 : index} : memref<1x8xf32, affine_map<(a, b) -> (b, a)>> -> !gpu.mma_matrix<8x8xf32, \"COp\">\n  return\n}",
        Some("source memref most minor dim must have unit stride"),
    ),
    (
        "func.func @f(%m: memref<8x8xi16>, %i: index) {\n  %0 = gpu.subgroup_mma_load_matrix %m[%i, %i] {leadDimension = 8 : index} : memref<8x8xi16> -> !gpu.mma_matrix<8x8xf16, \"AOp\">\n  return\n}",
        Some("operand #0 must be memref of 8-bit signless integer"),
    ),
    (
        "func.func @f(%m: memref<4x8xf32, affine_map<(a, b) -> (b, a)>>, %c: !gpu.mma_matrix<8x8xf32, \"COp\">, %i: index) {\n  gpu.subgroup_mma_store_matrix %c, %m[%i, %i] {leadDimension = 8 : index} : !gpu.mma_matrix<8x8xf32, \"COp\">, memref<4x8xf32, affine_map<(a, b) -> (b, a)>>\n  return\n}",
        Some("destination memref most minor dim must have unit stride"),
    ),
    (
        "func.func @f(%m: memref<8x8xf32>, %c: !gpu.mma_matrix<8x8xf32, \"BOp\">, %i: index) {\n  gpu.subgroup_mma_store_matrix %c, %m[%i, %i] {leadDimension = 8 : index} : !gpu.mma_matrix<8x8xf32, \"BOp\">, memref<8x8xf32>\n  return\n}",
        Some("to have 'COp' operand type"),
    ),
    (
        "func.func @f(%a: !gpu.mma_matrix<8x4xf16, \"AOp\">, %b: !gpu.mma_matrix<4x2xf16, \"BOp\">, %c: !gpu.mma_matrix<8x2xf32, \"COp\">) {\n  %0 = gpu.subgroup_mma_compute %a, %b, %c : !gpu.mma_matrix<8x4xf16, \"AOp\">, !gpu.mma_matrix<4x2xf16, \"BOp\"> -> !gpu.mma_matrix<8x2xf32, \"COp\">\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: !gpu.mma_matrix<8x4xf16, \"AOp\">, %b: !gpu.mma_matrix<4x2xf16, \"BOp\">, %c: !gpu.mma_matrix<8x2xf32, \"COp\">) {\n  %0 = gpu.subgroup_mma_compute %a, %c, %b : !gpu.mma_matrix<8x4xf16, \"AOp\">, !gpu.mma_matrix<8x2xf32, \"COp\"> -> !gpu.mma_matrix<4x2xf16, \"BOp\">\n  return\n}",
        Some("must be in the order AOp, BOp, COp"),
    ),
    (
        "func.func @f(%a: !gpu.mma_matrix<8x4xf16, \"AOp\">, %b: !gpu.mma_matrix<8x2xf16, \"BOp\">, %c: !gpu.mma_matrix<8x2xf32, \"COp\">) {\n  %0 = gpu.subgroup_mma_compute %a, %b, %c : !gpu.mma_matrix<8x4xf16, \"AOp\">, !gpu.mma_matrix<8x2xf16, \"BOp\"> -> !gpu.mma_matrix<8x2xf32, \"COp\">\n  return\n}",
        Some("do not satisfy matmul constraints"),
    ),
    // ---- arith.constant: a scalable vector takes only a splat (equal bits in every lane) ----
    (
        "func.func @f() {\n  %0 = arith.constant dense<[5, 5, 5]> : vector<[3]xi16>\n  %1 = arith.constant dense<[-1, 255]> : vector<[2]xi8>\n  %2 = arith.constant dense<[[2.5, 2.50], [2.5, 25.0e-1]]> : vector<2x[2]xf32>\n  %3 = arith.constant dense<[4, 9]> : vector<2xi64>\n  return\n}",
        None,
    ),
    (
        "func.func @f() {\n  %0 = arith.constant dense<[[4, 4], [4, 5]]> : vector<[2]x2xi64>\n  return\n}",
        Some("unless it's a vector splat"),
    ),
    (
        "func.func @f() {\n  %0 = arith.constant dense<[0.0, -0.0]> : vector<[2]xf64>\n  return\n}",
        Some("unless it's a vector splat"),
    ),
    // ---- scf.reduce ----
    (
        "func.func @f(%n: index, %x: i32) {\n  %0 = scf.parallel (%i) = (%n) to (%n) step (%n) init (%x) -> i32 {\n    scf.reduce(%x : i32) {\n    ^bb0(%a: i32, %b: i32):\n      \"foo.done\"() : () -> ()\n    }\n  }\n  return\n}",
        Some("terminated with an 'scf.reduce.return'"),
    ),
    (
        "func.func @f(%n: index, %x: i32, %y: i64) {\n  %0 = scf.parallel (%i) = (%n) to (%n) step (%n) init (%x) -> i32 {\n    scf.reduce(%y : i64) {\n    ^bb0(%a: i64, %b: i64):\n      scf.reduce.return %a : i64\n    }\n  }\n  return\n}",
        Some("0-th reduction operand"),
    ),
    (
        "func.func @f(%n: index, %x: i32) {\n  %0 = scf.parallel (%i) = (%n) to (%n) step (%n) init (%x) -> i32 {\n    scf.reduce(%x : i32) {\n    ^bb0(%a: i32, %b: i32):\n      %s = arith.addi %a, %b : i32\n      scf.reduce.return %s : i32\n    }\n  }\n  return\n}",
        None,
    ),
    // ---- nvgpu (C++ verifiers upstream, helper h-upstream3) ----
    (
        "func.func @f(%m: memref<128x128xf16, 3>, %i: index) -> vector<4x2xf16> {\n  %a = nvgpu.ldmatrix %m[%i, %i] {transpose = false, numTiles = 4 : i32} : memref<128x128xf16, 3> -> vector<4x2xf16>\n  return %a : vector<4x2xf16>\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<128x128xf16, 3>, %i: index) -> vector<4x1xf16> {\n  %a = nvgpu.ldmatrix %m[%i, %i] {transpose = false, numTiles = 4 : i32} : memref<128x128xf16, 3> -> vector<4x1xf16>\n  return %a : vector<4x1xf16>\n}",
        Some("expected vector register shape[1] = 2"),
    ),
    (
        "func.func @f(%m: memref<128x128xf16, #gpu.address_space<global>>, %i: index) -> vector<2x2xf16> {\n  %a = nvgpu.ldmatrix %m[%i, %i] {transpose = false, numTiles = 2 : i32} : memref<128x128xf16, #gpu.address_space<global>> -> vector<2x2xf16>\n  return %a : vector<2x2xf16>\n}",
        Some("srcMemref must have a memory space attribute"),
    ),
    (
        "func.func @f(%m: memref<128x128xf32, 3>, %i: index) -> vector<4x1xf16> {\n  %a = nvgpu.ldmatrix %m[%i, %i] {transpose = false, numTiles = 4 : i32} : memref<128x128xf32, 3> -> vector<4x1xf16>\n  return %a : vector<4x1xf16>\n}",
        Some("same element type"),
    ),
    (
        "func.func @f(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>, %x: vector<2x1xf32>, %y: vector<1x1xf32>, %z: vector<2x2xf32>) {\n  %0 = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>\n  %1 = nvgpu.mma.sync (%x, %y, %z) {mmaShape = [16, 8, 4], tf32Enabled} : (vector<2x1xf32>, vector<1x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<2x4xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>) {\n  %0 = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<2x4xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>\n  return\n}",
        Some("expected matrix A to be shaped (4 x 2)"),
    ),
    (
        "func.func @f(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>) {\n  %0 = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 16, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>\n  return\n}",
        Some("expected 256 warp-wide matrix B elements"),
    ),
    (
        "func.func @f(%a: vector<2x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>, %m: vector<2xi16>) {\n  %0 = nvgpu.mma.sp.sync (%a, %b, %c) metadata(%m) {mmaShape = [16, 8, 16]} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>\n  %1 = nvgpu.mma.sp.sync (%a, %b, %c) metadata(%m) {mmaShape = [16, 8, 16], sparsitySelector = 1 : i32} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<2x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>, %m: vector<2xi16>) {\n  %0 = nvgpu.mma.sp.sync (%a, %b, %c) metadata(%m) {mmaShape = [16, 8, 16], sparsitySelector = 2 : i32} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>\n  return\n}",
        Some("sparsity selector should be 0 or 1"),
    ),
    (
        "func.func @f(%s: memref<128x128xf32>, %d: memref<3x16x128xf32, 3>, %i: index) {\n  %0 = nvgpu.device_async_copy %s[%i, %i], %d[%i, %i, %i], 4 {bypassL1} : memref<128x128xf32> to memref<3x16x128xf32, 3>\n  %1 = nvgpu.device_async_copy %s[%i, %i], %d[%i, %i, %i], 1 : memref<128x128xf32> to memref<3x16x128xf32, 3>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%s: memref<128x128xf32>, %d: memref<3x16x128xf32, 3>, %i: index) {\n  %0 = nvgpu.device_async_copy %s[%i, %i], %d[%i, %i, %i], 2 {bypassL1} : memref<128x128xf32> to memref<3x16x128xf32, 3>\n  return\n}",
        Some("bypassL1 does not satify alignment"),
    ),
    (
        "func.func @f(%s: memref<200x100xf32, affine_map<(d0, d1) -> (200 * d0 + 2 * d1)>>, %d: memref<200x100xf32, 3>, %i: index) {\n  %0 = nvgpu.device_async_copy %s[%i, %i], %d[%i, %i], 4 : memref<200x100xf32, affine_map<(d0, d1) -> (200 * d0 + 2 * d1)>> to memref<200x100xf32, 3>\n  return\n}",
        Some("source memref most minor dim must have unit stride"),
    ),
    (
        "func.func @f(%s: memref<16xf32>, %d: memref<16xf32, 3>, %i: index) {\n  %0 = nvgpu.device_async_copy %s[%i], %d[%i, %i], 4 : memref<16xf32> to memref<16xf32, 3>\n  return\n}",
        Some("expected 1 destination indices, got 2"),
    ),
    // ---- linalg: matmul user maps, map and reduce verifiers ----
    (
        "func.func @f(%a: memref<5x5xf32>, %b: memref<5x5xf32>, %c: memref<5x5xf32>, %v: memref<5xf32>) {\n  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : memref<5x5xf32>, memref<5x5xf32>) outs(%c : memref<5x5xf32>)\n  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%v, %b : memref<5xf32>, memref<5x5xf32>) outs(%c : memref<5x5xf32>)\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: memref<5x5xf32>, %b: memref<5x5xf32>, %c: memref<5x5xf32>) {\n  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : memref<5x5xf32>, memref<5x5xf32>) outs(%c : memref<5x5xf32>)\n  return\n}",
        Some("Unexpected dim expression in map result"),
    ),
    (
        "func.func @f(%a: memref<5x5xf32>, %v: memref<5xf32>, %c: memref<5x5xf32>) {\n  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %v : memref<5x5xf32>, memref<5xf32>) outs(%c : memref<5x5xf32>)\n  return\n}",
        Some("Invalid broadcast requested"),
    ),
    (
        "func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>, %i: tensor<8xf32>) -> tensor<8xf32> {\n  %0 = linalg.map ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%i : tensor<8xf32>) (%x: f32, %y: f32, %o: f32, %z: f32) {\n    %s = arith.addf %x, %y : f32\n    linalg.yield %s : f32\n  }\n  return %0 : tensor<8xf32>\n}",
        Some("arity of mapper"),
    ),
    (
        "func.func @f(%a: tensor<8x2xf32>, %i: tensor<16xf32>) -> tensor<16xf32> {\n  %0 = linalg.map ins(%a : tensor<8x2xf32>) outs(%i : tensor<16xf32>) (%x: f32, %o: f32) {\n    linalg.yield %x : f32\n  }\n  return %0 : tensor<16xf32>\n}",
        Some("to match shape of output"),
    ),
    (
        "func.func @f(%a: tensor<4x8x?xf32>, %i: tensor<4x?xf32>, %j: tensor<8x4xf32>) -> (tensor<4x?xf32>, tensor<8x4xf32>) {\n  %0 = linalg.reduce ins(%a : tensor<4x8x?xf32>) outs(%i : tensor<4x?xf32>) dimensions = [1] (%x: f32, %o: f32) {\n    %s = arith.addf %x, %o : f32\n    linalg.yield %s : f32\n  }\n  %1 = linalg.reduce ins(%a : tensor<4x8x?xf32>) outs(%j : tensor<8x4xf32>) dimensions = [2] (%x: f32, %o: f32) {\n    linalg.yield %x : f32\n  }\n  return %0, %1 : tensor<4x?xf32>, tensor<8x4xf32>\n}",
        Some("init dimensions [8, 4] doesn't match input dimensions after reduction [4, 8]"),
    ),
    // ---- gpu.warp_execute_on_lane_0 (C++ format upstream) ----
    (
        "func.func @f(%l: index, %v: vector<4xi32>) -> vector<4xi32> {\n  %0 = gpu.warp_execute_on_lane_0(%l)[32] args(%v : vector<4xi32>) -> (vector<4xi32>) {\n  ^bb0(%a: vector<128xi32>):\n    gpu.yield %a : vector<128xi32>\n  }\n  return %0 : vector<4xi32>\n}",
        None,
    ),
    (
        "func.func @f(%l: index, %v: vector<4xi32>) -> vector<4xi32> {\n  %0 = gpu.warp_execute_on_lane_0(%l)[32] args(%v : vector<4xi32>) -> (vector<4xi32>) {\n  ^bb0(%a: vector<64xi32>):\n    gpu.yield %a : vector<64xi32>\n  }\n  return %0 : vector<4xi32>\n}",
        Some("incompatible distribution dimensions"),
    ),
    (
        "func.func @f(%l: index) {\n  %0 = gpu.warp_execute_on_lane_0(%l)[32] -> (vector<4xi32>) {\n    %c = arith.constant dense<1> : vector<96xi32>\n    gpu.yield %c : vector<96xi32>\n  }\n  return\n}",
        Some("incompatible distribution dimensions"),
    ),
    // ---- memref verifiers of hand-registered ops ----
    (
        "func.func @f(%m: memref<*xf32>) {\n  %0 = memref.cast %m : memref<*xf32> to memref<*xf32>\n  return\n}",
        Some("are cast incompatible"),
    ),
    (
        "func.func @f(%m: memref<4xf32>) {\n  %0 = memref.assume_alignment %m, 12 : memref<4xf32>\n  return\n}",
        Some("alignment must be power of 2"),
    ),
    (
        "func.func @f(%x: i32, %p: memref<i32>) {\n  %0 = \"memref.store\"(%x, %p) : (i32, memref<i32>) -> i32\n  return\n}",
        Some("requires zero results"),
    ),
    (
        "func.func @f(%m: memref<4xi32>, %v: i32, %i: index) {\n  %0 = memref.atomic_rmw addf %v, %m[%i] : (i32, memref<4xi32>) -> i32\n  return\n}",
        Some("expects a floating-point type"),
    ),
    (
        "func.func @f(%m: memref<4xf32>, %v: f32, %i: index) {\n  %0 = memref.atomic_rmw ori %v, %m[%i] : (f32, memref<4xf32>) -> f32\n  return\n}",
        Some("expects an integer type"),
    ),
    (
        "func.func @f(%m: memref<4xi32>, %n: memref<4xf32>, %v: i32, %w: f32, %i: index) {\n  %0 = memref.atomic_rmw maxnumf %v, %m[%i] : (i32, memref<4xi32>) -> i32\n  %1 = memref.atomic_rmw assign %w, %n[%i] : (f32, memref<4xf32>) -> f32\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<2xf32>, %d: index) {\n  %0 = memref.realloc %m : memref<2xf32> to memref<?xf32>\n  return\n}",
        Some("missing dimension operand"),
    ),
    (
        "func.func @f(%m: memref<2xf32>, %d: index) {\n  %0 = memref.realloc %m(%d) : memref<2xf32> to memref<4xf32>\n  return\n}",
        Some("unnecessary dimension operand"),
    ),
    (
        "func.func @f(%m: memref<2xf32>) {\n  %0 = memref.realloc %m : memref<2xf32> to memref<4xi32>\n  return\n}",
        Some("different element types"),
    ),
    (
        "func.func @f(%m: memref<2xf32, 1>) {\n  %0 = memref.realloc %m : memref<2xf32, 1> to memref<4xf32>\n  return\n}",
        Some("different memory spaces"),
    ),
    (
        "func.func @f(%m: memref<2x2xf32>) {\n  %0 = memref.realloc %m : memref<2x2xf32> to memref<4x2xf32>\n  return\n}",
        Some("must be 1D memref"),
    ),
    (
        "func.func @f(%m: memref<2xf32, strided<[1]>>, %d: index) {\n  %0 = memref.realloc %m(%d) : memref<2xf32, strided<[1]>> to memref<?xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<f32>, %i: index) {\n  %0 = memref.dim %m, %i : memref<f32>\n  return\n}",
        Some("non-0-ranked"),
    ),
    (
        "func.func @f() {\n  \"memref.distinct_objects\"() : () -> ()\n  return\n}",
        Some("expected at least one operand"),
    ),
    // ---- result counts of hand-written ops in generic form (from the op table) ----
    (
        "func.func @f(%m: memref<4xf32>) {\n  %0 = \"memref.dealloc\"(%m) : (memref<4xf32>) -> i32\n  return\n}",
        Some("requires zero results"),
    ),
    (
        "func.func @f(%v: vector<4xf32>, %m: memref<4xf32>, %i: index) {\n  %0 = \"vector.store\"(%v, %m, %i) : (vector<4xf32>, memref<4xf32>, index) -> f32\n  return\n}",
        Some("requires zero results"),
    ),
    (
        "func.func @f(%m: memref<4xf32>, %i: index) {\n  \"memref.dim\"(%m, %i) : (memref<4xf32>, index) -> ()\n  return\n}",
        Some("requires one result"),
    ),
    (
        "func.func @f(%m: memref<4xf32>, %i: index) {\n  %0 = \"memref.dim\"(%m, %i) : (memref<4xf32>, index) -> i32\n  return\n}",
        Some("result #0 must be index"),
    ),
    (
        "func.func @f(%b: i1) {\n  %0 = \"cf.assert\"(%b) {msg = \"x\"} : (i1) -> i32\n  return\n}",
        Some("requires zero results"),
    ),
    // func.call written in generic form is checked against its callee too
    (
        "func.func private @g()\nfunc.func @f() {\n  %0 = \"func.call\"() {callee = @g} : () -> i32\n  return\n}",
        Some("incorrect number of results for callee"),
    ),
    ("func.func private @g() -> i32\nfunc.func @f() {\n  %0 = \"func.call\"() {callee = @g} : () -> i32\n  return\n}", None),
    // ---- nvvm.kernel marks llvm.func only ----
    (
        "func.func private @f() attributes {nvvm.kernel}",
        Some("attached to unexpected op"),
    ),
    ("llvm.func @f() attributes {nvvm.kernel} {\n  llvm.return\n}", None),
    // ---- gpu.subgroup_mma_constant_matrix: the operand type is the matrix's element type ----
    (
        "func.func @f(%x: f16) {\n  %0 = gpu.subgroup_mma_constant_matrix %x : !gpu.mma_matrix<16x16xf16, \"COp\">\n  return\n}",
        None,
    ),
];

/// Valid modules whose print (custom and generic) must read back to the same module; with
/// `mlir-opt-22` installed, both prints must also normalise to what it prints for the input.
const ROUND_TRIPS: &[&str] = &[
    // llvm.call: indirect callee, vararg callee type, tail-call kind and calling convention.
    "llvm.func @h(i64) -> i64\nllvm.func @v(i8, ...)\nfunc.func @f(%x: i64, %y: i8) {\n  %p = llvm.mlir.addressof @h : !llvm.ptr\n  %0 = llvm.call %p(%x) : !llvm.ptr, (i64) -> i64\n  llvm.call @v(%y, %x) vararg(!llvm.func<void (i8, ...)>) : (i8, i64) -> ()\n  %q = llvm.mlir.addressof @v : !llvm.ptr\n  llvm.call %q(%y) vararg(!llvm.func<void (i8, ...)>) : !llvm.ptr, (i8) -> ()\n  %1 = llvm.call tail @h(%x) : (i64) -> i64\n  %2 = llvm.call coldcc @h(%x) : (i64) -> i64\n  return\n}",
    // llvm.icmp on vectors gives a vector of i1.
    "func.func @f(%a: vector<4xi16>, %b: vector<2x!llvm.ptr>) -> (vector<4xi1>, vector<2xi1>) {\n  %0 = llvm.icmp \"ult\" %a, %a : vector<4xi16>\n  %1 = llvm.icmp \"eq\" %b, %b : vector<2x!llvm.ptr>\n  return %0, %1 : vector<4xi1>, vector<2xi1>\n}",
    // gpu reductions: the reduction kind is a bare keyword, optional for all_reduce.
    "gpu.module @m {\n  gpu.func @k(%a: f32, %v: vector<2xi32>) kernel {\n    %0 = gpu.all_reduce maxnumf %a uniform {\n    } : (f32) -> f32\n    %1 = gpu.all_reduce %a {\n    ^bb0(%x: f32, %y: f32):\n      %s = arith.mulf %x, %y : f32\n      gpu.yield %s : f32\n    } : (f32) -> f32\n    %2 = gpu.subgroup_reduce xor %v cluster(size = 2) : (vector<2xi32>) -> vector<2xi32>\n    gpu.return\n  }\n}",
    // gpu.launch names its kernel `module`/`function`; gpu.binary's default handler.
    "module attributes {gpu.container_module} {\n  func.func @f(%n: index) {\n    gpu.launch blocks(%a, %b, %c) in (%x = %n, %y = %n, %z = %n) threads(%d, %e, %g) in (%u = %n, %v = %n, %w = %n) module(@mm) function(@ff) {\n      gpu.terminator\n    }\n    return\n  }\n  gpu.binary @bin [#gpu.object<#rocdl.target, \"\">]\n}",
    // async.execute (written in C++ upstream): dependencies, unwrapped value operands,
    // results, implicit terminator; a parameterless dialect type is printed in full.
    "func.func @f(%t: !async.token, %v: !async.value<i32>, %n: index) -> !async.value<i32> {\n  %a, %r = async.execute [%t] (%v as %x: !async.value<i32>) -> !async.value<i32> {\n    async.yield %x : i32\n  }\n  %b = async.execute {\n  }\n  %g = async.create_group %n : !async.group\n  return %r : !async.value<i32>\n}",
    // nvvm.mma.sync (C++ upstream): PTX types inferred from the operand types when left out.
    "func.func @f(%a: vector<2xf16>, %b: vector<2xf16>, %c: f32, %i: i32) {\n  %0 = nvvm.mma.sync A[%a, %a, %a, %a] B[%b, %b] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>\n  %1 = nvvm.mma.sync A[%i, %i] B[%i] C[%i, %i, %i, %i] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<u8>, multiplicandBPtxType = #nvvm.mma_type<s8>, intOverflowBehavior = #nvvm.mma_int_overflow<satfinite>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>\n  return\n}",
    // getelementptr flags may have blanks around `|`.
    "llvm.func @f(%p: !llvm.ptr, %i: i32) -> !llvm.ptr {\n  %0 = llvm.getelementptr inbounds | nuw %p[%i] : (!llvm.ptr, i32) -> !llvm.ptr, f32\n  llvm.return %0 : !llvm.ptr\n}",
    // gpu.warp_execute_on_lane_0 (C++ upstream): entry block arguments shown, the empty
    // terminator left out when there are no results.
    "func.func @f(%l: index, %v: vector<4xi32>) -> vector<4xi32> {\n  gpu.warp_execute_on_lane_0(%l)[32] {\n  }\n  %0 = gpu.warp_execute_on_lane_0(%l)[32] args(%v : vector<4xi32>) -> (vector<4xi32>) {\n  ^bb0(%a: vector<128xi32>):\n    gpu.yield %a : vector<128xi32>\n  } {foo = 1 : i64}\n  return %0 : vector<4xi32>\n}",
    // a gpu.func built in generic form without `workgroup_attributions` (the custom form
    // cannot say that) and the mma matrix constant whose operand type is inferred.
    "gpu.module @m {\n  \"gpu.func\"() ({\n    gpu.return\n  }) {function_type = () -> (), sym_name = \"k\"} : () -> ()\n  gpu.func @g(%x: f16) {\n    %0 = gpu.subgroup_mma_constant_matrix %x : !gpu.mma_matrix<16x16xf16, \"COp\">\n    gpu.return\n  }\n}",
];

#[test]
fn round_trips_read_back_the_same() {
    common::assert_round_trips(ROUND_TRIPS);
}

#[test]
fn memplan_agrees_with_mlir_22_on_each_case() {
    common::assert_verdicts(CASES);
}
