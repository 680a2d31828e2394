//! C++ verifier and parser rules of the core dialects found missing by the verifier inventory
//! (`scripts/verifier_inventory.py`, BENCHMARKS.md section 4.2) and by the fourth upstream
//! sample: `func.func`'s FunctionOpInterface / SymbolOpInterface rules, `vector.scan`,
//! `vector.load`/`store` strides, `tensor.gather`/`scatter` result types, `affine.prefetch`,
//! the C++ syntax of `vector.contract` / `outerproduct` / `mask` with their verifiers, and
//! redefined `distinct[N]` ids. Each entry is a module of our own with MLIR 22's verdict;
//! with `mlir-opt-22` installed the table itself is checked against it (required with
//! MEMPLAN_REQUIRE_MLIR=1), so an entry with a wrong verdict fails instead of locking a
//! mistake in.

mod common;

/// `None`: MLIR accepts the module; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    // ---- func.func: what the signature says may not be repeated in the attribute dict ----
    (
        "func.func @f() attributes {sym_visibility = \"private\"}",
        Some("'sym_visibility' is an inferred attribute"),
    ),
    (
        "func.func private @f() attributes {sym_name = \"g\"}",
        Some("'sym_name' is an inferred attribute"),
    ),
    (
        "func.func private @f() attributes {function_type = () -> ()}",
        Some("'function_type' is an inferred attribute"),
    ),
    ("func.func private @f() attributes {foo = 1, a.b}", None),
    // ---- func.func: one dictionary of dialect attributes per argument and result ----
    (
        "func.func private @f(i32, i32) attributes {arg_attrs = [{}]}",
        Some("argument attribute array to have the same number of elements"),
    ),
    (
        "func.func private @f() -> i32 attributes {res_attrs = [{}, {}]}",
        Some("result attribute array to have the same number of elements"),
    ),
    ("func.func private @f(i32 {foo})", Some("arguments may only have dialect attributes")),
    ("func.func private @f() -> (i32 {foo})", Some("results may only have dialect attributes")),
    ("func.func private @f(i32 {a.b}, i8) -> (i32 {c.d})", None),
    // ---- func.func: an external function must not be public ----
    ("func.func @f(i32)", Some("symbol declaration cannot have public visibility")),
    ("func.func public @f()", Some("symbol declaration cannot have public visibility")),
    ("func.func nested @f(i32)\nfunc.func private @g()", None),
    ("func.func @f() {\n  return\n}", None),
    // ---- vector.scan ----
    (
        "func.func @f(%a: vector<2x3xf32>, %b: vector<3xf32>) {\n  %0:2 = vector.scan <add>, %a, %b {inclusive = true, reduction_dim = 0} : vector<2x3xf32>, vector<3xf32>\n  %1:2 = vector.scan <maximumf>, %a, %b {inclusive = false, reduction_dim = 0} : vector<2x3xf32>, vector<3xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<2x3xindex>, %b: vector<2xindex>) {\n  %0:2 = vector.scan <xor>, %a, %b {inclusive = true, reduction_dim = 1} : vector<2x3xindex>, vector<2xindex>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<3xi32>) {\n  %0:2 = vector.scan <add>, %a, %b {inclusive = true, reduction_dim = 2} : vector<2x3xi32>, vector<3xi32>\n  return\n}",
        Some("reduction dimension 2 has to be less than 2"),
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<1x3xi32>) {\n  %0:2 = vector.scan <add>, %a, %b {inclusive = true, reduction_dim = 0} : vector<2x3xi32>, vector<1x3xi32>\n  return\n}",
        Some("initial value rank 2 has to be equal to 1"),
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<3xi32>) {\n  %0:2 = vector.scan <add>, %a, %b {inclusive = true, reduction_dim = 1} : vector<2x3xi32>, vector<3xi32>\n  return\n}",
        Some("incompatible input/initial value shapes"),
    ),
    (
        "func.func @f(%a: vector<2x3xf32>, %b: vector<3xf32>) {\n  %0:2 = vector.scan <maxsi>, %a, %b {inclusive = true, reduction_dim = 0} : vector<2x3xf32>, vector<3xf32>\n  return\n}",
        Some("unsupported reduction type 'f32' for kind 'maxsi'"),
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<3xi32>) {\n  %0:2 = vector.scan <minnumf>, %a, %b {inclusive = true, reduction_dim = 0} : vector<2x3xi32>, vector<3xi32>\n  return\n}",
        Some("unsupported reduction type 'i32' for kind 'minnumf'"),
    ),
    // ---- vector.load / vector.store: unit innermost stride beyond one element ----
    (
        "func.func @f(%m: memref<200x100xf32, strided<[200, 2]>>, %i: index, %v: vector<8xf32>) {\n  vector.store %v, %m[%i, %i] : memref<200x100xf32, strided<[200, 2]>>, vector<8xf32>\n  return\n}",
        Some("most minor memref dim must have unit stride"),
    ),
    (
        "func.func @f(%m: memref<4x4xf32, affine_map<(d0, d1) -> (d0 + d1 * 4)>>, %i: index) {\n  %0 = vector.load %m[%i, %i] : memref<4x4xf32, affine_map<(d0, d1) -> (d0 + d1 * 4)>>, vector<2xf32>\n  return\n}",
        Some("most minor memref dim must have unit stride"),
    ),
    (
        "func.func @f(%m: memref<200x100xf32, strided<[200, 2]>>, %n: memref<4x4xf32, affine_map<(d0, d1) -> (d0 * 8 + d1)>>, %i: index, %v: vector<1xf32>, %w: vector<f32>) {\n  vector.store %v, %m[%i, %i] : memref<200x100xf32, strided<[200, 2]>>, vector<1xf32>\n  vector.store %w, %m[%i, %i] : memref<200x100xf32, strided<[200, 2]>>, vector<f32>\n  %0 = vector.load %n[%i, %i] : memref<4x4xf32, affine_map<(d0, d1) -> (d0 * 8 + d1)>>, vector<4xf32>\n  return\n}",
        None,
    ),
    // ---- tensor.gather / tensor.scatter: the gathered type, full or rank-reduced ----
    (
        "func.func @f(%s: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.gather %s[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1x5x1xf32>\n  %1 = tensor.gather %s[%i] gather_dims([0, 2]) unique : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x5xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%s: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.gather %s[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1xf32>\n  return\n}",
        Some("result type mismatch"),
    ),
    (
        "func.func @f(%s: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.gather %s[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x5xf64>\n  return\n}",
        Some("result type mismatch"),
    ),
    (
        "func.func @f(%s: tensor<1x2x5xf32>, %d: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.scatter %s into %d[%i] scatter_dims([0, 2]) unique : (tensor<1x2x5xf32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<4x5x6xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%s: tensor<1x2x5xf32>, %d: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.scatter %s into %d[%i] scatter_dims([0, 2]) : (tensor<1x2x5xf32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<4x5x6xf32>\n  return\n}",
        Some("requires 'unique' attribute to be set"),
    ),
    (
        "func.func @f(%s: tensor<f32>, %d: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.scatter %s into %d[%i] scatter_dims([0, 2]) unique : (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<4x5x6xf32>\n  return\n}",
        Some("source type mismatch"),
    ),
    // ---- affine.prefetch (custom form written in C++ upstream) ----
    (
        "func.func @f(%m: memref<400x400xi32>, %j: index) {\n  affine.for %a = 0 to 10 {\n    affine.prefetch %m[%a, %j + 5], read, locality<3>, data : memref<400x400xi32>\n    affine.prefetch %m[%a, symbol(%j)], write, locality<0>, instr {foo = 1} : memref<400x400xi32>\n  }\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<400xi32>, %i: index) {\n  affine.prefetch %m[%i], rw, locality<1>, data : memref<400xi32>\n  return\n}",
        Some("rw specifier has to be 'read' or 'write'"),
    ),
    (
        "func.func @f(%m: memref<400xi32>, %i: index) {\n  affine.prefetch %m[%i], read, locality<1>, false : memref<400xi32>\n  return\n}",
        Some("cache type has to be 'data' or 'instr'"),
    ),
    (
        "func.func @f(%m: memref<400xi32>, %i: index) {\n  affine.prefetch %m[%i], read, locality<4>, data : memref<400xi32>\n  return\n}",
        Some("'localityHint' failed to satisfy constraint"),
    ),
    (
        "func.func @f(%m: memref<4x4xi32>, %i: index) {\n  affine.prefetch %m[%i], read, locality<1>, data : memref<4x4xi32>\n  return\n}",
        Some("affine map num results must equal memref rank"),
    ),
    (
        "func.func @f(%m: memref<400xi32>, %i: index) {\n  affine.for %a = 0 to 10 {\n    %x = arith.muli %a, %i : index\n    affine.prefetch %m[%x], read, locality<1>, data : memref<400xi32>\n  }\n  return\n}",
        Some("index must be a dimension or symbol identifier"),
    ),
    // ---- vector.contract (custom form written in C++ upstream) ----
    (
        "#m = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]\nfunc.func @f(%a: vector<4x3xf32>, %b: vector<3x7xf32>, %c: vector<4x7xf32>) {\n  %0 = vector.contract {indexing_maps = #m, iterator_types = [\"parallel\", \"parallel\", \"parallel\"]} %a, %b, %c : vector<4x3xf32>, vector<3x7xf32> into vector<4x7xf32>\n  return\n}",
        Some("expected at least one contracting dimension pair"),
    ),
    (
        "#m = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]\nfunc.func @f(%a: vector<4x3xf32>, %b: vector<5x7xf32>, %c: vector<4x7xf32>) {\n  %0 = vector.contract {indexing_maps = #m, iterator_types = [\"parallel\", \"parallel\", \"reduction\"]} %a, %b, %c : vector<4x3xf32>, vector<5x7xf32> into vector<4x7xf32>\n  return\n}",
        Some("invalid contracting dimension map"),
    ),
    (
        "#m = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]\nfunc.func @f(%a: vector<4x3xf32>, %b: vector<3x7xf32>, %c: vector<4x7xf32>) {\n  %0 = vector.contract {indexing_maps = #m, iterator_types = [\"parallel\", \"parallel\", \"reduction\"], kind = #vector.kind<xor>} %a, %b, %c : vector<4x3xf32>, vector<3x7xf32> into vector<4x7xf32>\n  return\n}",
        Some("unsupported contraction type"),
    ),
    (
        "#m = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (j, i)>]\nfunc.func @f(%a: vector<2x1xf32>, %b: vector<1x3xf32>, %c: vector<2x3xf32>) {\n  %0 = vector.contract {indexing_maps = #m, iterator_types = [\"parallel\", \"parallel\", \"reduction\"]} %a, %b, %c : vector<2x1xf32>, vector<1x3xf32> into vector<2x3xf32>\n  return\n}",
        Some("invalid accumulator/result vector shape"),
    ),
    (
        "#m = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]\nfunc.func @f(%a: vector<4x3xf16>, %b: vector<3x7xf16>, %c: vector<4x7xf32>, %v: vector<10xf32>, %s: f32) {\n  %0 = vector.contract {indexing_maps = #m, iterator_types = [\"parallel\", \"parallel\", \"reduction\"], kind = #vector.kind<maxnumf>} %a, %b, %c {foo} : vector<4x3xf16>, vector<3x7xf16> into vector<4x7xf32>\n  %1 = vector.contract {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = [\"reduction\"]} %v, %v, %s : vector<10xf32>, vector<10xf32> into f32\n  return\n}",
        None,
    ),
    // ---- vector.outerproduct (custom form written in C++ upstream) ----
    (
        "func.func @f(%a: vector<4xf32>, %b: vector<8xf32>, %c: vector<4x8xf32>, %s: f32) {\n  %0 = vector.outerproduct %a, %b : vector<4xf32>, vector<8xf32>\n  %1 = vector.outerproduct %a, %b, %c {kind = #vector.kind<maxnumf>} : vector<4xf32>, vector<8xf32>\n  %2 = vector.outerproduct %a, %s : vector<4xf32>, f32\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<4xf32>, %b: vector<8xf32>, %c: vector<4x8xf32>) {\n  %1 = vector.outerproduct %a, %b, %c {kind = #vector.kind<xor>} : vector<4xf32>, vector<8xf32>\n  return\n}",
        Some("unsupported outerproduct type"),
    ),
    (
        "func.func @f(%a: vector<[4]xf32>, %b: vector<8xf32>) {\n  %0 = vector.outerproduct %a, %b : vector<[4]xf32>, vector<8xf32>\n  return\n}",
        Some("expected either both or only #2 operand dim to be scalable"),
    ),
    // ---- vector.mask (custom form written in C++ upstream) ----
    (
        "func.func @f(%m: vector<16xi1>, %t: tensor<?xf32>, %i: index, %v: vector<16xf32>, %pt: vector<16xf32>) {\n  %p = arith.constant 0.0 : f32\n  %0 = vector.mask %m { vector.transfer_read %t[%i], %p : tensor<?xf32>, vector<16xf32> } : vector<16xi1> -> vector<16xf32>\n  %1 = vector.mask %m, %pt { vector.transfer_read %t[%i], %p : tensor<?xf32>, vector<16xf32> } : vector<16xi1> -> vector<16xf32>\n  %2 = vector.mask %m { vector.yield %v : vector<16xf32> } : vector<16xi1> -> vector<16xf32>\n  vector.mask %m { } : vector<16xi1>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: vector<8xi1>, %t: tensor<?xf32>, %i: index) {\n  %p = arith.constant 0.0 : f32\n  %0 = vector.mask %m { vector.transfer_read %t[%i], %p : tensor<?xf32>, vector<16xf32> } : vector<8xi1> -> vector<16xf32>\n  return\n}",
        Some("mask for the maskable operation"),
    ),
    (
        "func.func @f(%m: vector<16xi1>, %v: vector<16xf32>) {\n  %0 = vector.mask %m { vector.reduction <add>, %v : vector<16xf32> into f32 } : vector<16xi1> -> f64\n  return\n}",
        Some("to match all the vector.mask results"),
    ),
    // ---- vector strided slices, multi_reduction, type_cast; async.return ----
    (
        "func.func @f(%a: vector<4x8x16xf32>) {\n  %1 = vector.extract_strided_slice %a {offsets = [3, 2], sizes = [2, 2], strides = [1, 1]} : vector<4x8x16xf32> to vector<2x2x16xf32>\n  return\n}",
        Some("expected sum(offsets, sizes) dimension 0 to be confined to [1, 5)"),
    ),
    (
        "func.func @f(%a: vector<4x8x16xf32>) {\n  %1 = vector.extract_strided_slice %a {offsets = [2, 2], sizes = [2, 2], strides = [1, 1]} : vector<4x8x16xf32> to vector<2x2x8xf32>\n  return\n}",
        Some("expected result type to be"),
    ),
    (
        "func.func @f(%a: vector<4x[8]x16xf32>) {\n  %1 = vector.extract_strided_slice %a {offsets = [2, 0], sizes = [2, 4], strides = [1, 1]} : vector<4x[8]x16xf32> to vector<2x[4]x16xf32>\n  return\n}",
        Some("to match the corresponding base size"),
    ),
    (
        "func.func @f(%a: vector<4x4xf32>, %b: vector<4x8x16xf32>) {\n  %1 = vector.insert_strided_slice %a, %b {offsets = [2, 2, 14], strides = [1, 1]} : vector<4x4xf32> into vector<4x8x16xf32>\n  return\n}",
        Some("expected sum(offsets, source vector shape) dimension 2 to be confined to [1, 17)"),
    ),
    (
        "func.func @f(%a: vector<4x[16]xf32>, %b: vector<4x8x16xf32>) {\n  %1 = vector.insert_strided_slice %a, %b {offsets = [2, 2, 0], strides = [1, 1]} : vector<4x[16]xf32> into vector<4x8x16xf32>\n  return\n}",
        Some("mismatching scalable flags"),
    ),
    (
        "func.func @f(%a: vector<4x4xf32>, %b: vector<4x8x16xf32>, %c: vector<4x8x16xf32>, %d: vector<4x[16]xf32>, %e: vector<4x8x[16]xf32>) {\n  %0 = vector.insert_strided_slice %a, %b {offsets = [2, 2, 2], strides = [1, 1]} : vector<4x4xf32> into vector<4x8x16xf32>\n  %1 = vector.extract_strided_slice %c {offsets = [2, 2], sizes = [2, 2], strides = [1, 1]} : vector<4x8x16xf32> to vector<2x2x16xf32>\n  %2 = vector.insert_strided_slice %d, %e {offsets = [2, 2, 0], strides = [1, 1]} : vector<4x[16]xf32> into vector<4x8x[16]xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<4x16xf32>, %b: vector<16xf32>) {\n  %0 = vector.multi_reduction <add>, %a, %b [1] : vector<4x16xf32> to vector<16xf32>\n  return\n}",
        Some("is incompatible with source type"),
    ),
    (
        "func.func @f(%a: vector<4x16xf32>, %b: f32, %c: vector<4x[16]xf32>, %d: vector<[16]xf32>) {\n  %0 = vector.multi_reduction <add>, %a, %b [0, 1] : vector<4x16xf32> to f32\n  %1 = vector.multi_reduction <add>, %c, %d [0] : vector<4x[16]xf32> to vector<[16]xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: memref<4x3xf32, strided<[6, 1]>>) {\n  %0 = vector.type_cast %a : memref<4x3xf32, strided<[6, 1]>> to memref<vector<4x3xf32>>\n  return\n}",
        Some("expects operand to be a memref with identity layout"),
    ),
    (
        "func.func @f(%a: memref<4x3xf32>) {\n  %0 = vector.type_cast %a : memref<4x3xf32> to memref<vector<4x4xf32>>\n  return\n}",
        Some("expects concatenated result and operand shapes to be equal"),
    ),
    (
        "func.func @f(%a: memref<4x3xf32, 1>) {\n  %0 = vector.type_cast %a : memref<4x3xf32, 1> to memref<vector<4x3xf32>>\n  return\n}",
        Some("expects result in same memory space"),
    ),
    (
        "func.func @f(%a: memref<4x3xf32, strided<[3, 1]>>, %b: memref<4x3xvector<2xf32>>) {\n  %0 = vector.type_cast %a : memref<4x3xf32, strided<[3, 1]>> to memref<vector<4x3xf32>>\n  %1 = vector.type_cast %b : memref<4x3xvector<2xf32>> to memref<vector<4x3x2xf32>>\n  return\n}",
        None,
    ),
    (
        "async.func @f() -> !async.value<i32> {\n  %c = arith.constant 1 : i64\n  async.return %c : i64\n}",
        Some("operand types do not match the types returned from the parent FuncOp"),
    ),
    (
        "async.func @f() -> (!async.token, !async.value<i32>) {\n  %c = arith.constant 1 : i32\n  async.return %c : i32\n}",
        None,
    ),
    // ---- distinct[N]<attr>: an id used again names the same attribute ----
    (
        "\"test.op\"() {a = distinct[0]<42 : i32>} : () -> ()\n\"test.op\"() {a = distinct[0]<43 : i32>} : () -> ()",
        Some("referenced attribute does not match previous definition"),
    ),
    (
        "#a = distinct[7]<42 : i32>\n\"test.op\"() {a = #a, b = distinct[7]<42 : i64>} : () -> ()",
        Some("referenced attribute does not match previous definition"),
    ),
    (
        "\"test.op\"() {a = distinct[0]<42 : i32>, b = distinct[0]< 42:i32 >} : () -> ()\n\"test.op\"() {a = distinct[1]<array<i32: 10, 42>>, b = distinct[1]<array<i32: 10, 42>>} : () -> ()\n\"test.op\"() {a = distinct[2]<0x7FC00000 : f32>, b = distinct[2]<0x7FC00000 : f32>} : () -> ()",
        None,
    ),
];

/// Modules memplan must print (custom and generic form) so that both read back the same; with
/// `mlir-opt-22` installed, both prints must also normalise to what it prints for the input.
const ROUND_TRIPS: &[&str] = &[
    "func.func @f(%m: memref<400x400xi32>, %i: index, %j: index) {\n  affine.for %a = 0 to 10 {\n    affine.prefetch %m[%a, %j + 5], read, locality<3>, data : memref<400x400xi32>\n    affine.prefetch %m[%i, symbol(%j)], write, locality<0>, instr {foo = 1} : memref<400x400xi32>\n  }\n  \"affine.prefetch\"(%m, %i, %j) <{isDataCache = true, isWrite = false, localityHint = 2 : i32, map = affine_map<(d0, d1) -> (d0 + 1, d1)>}> : (memref<400x400xi32>, index, index) -> ()\n  return\n}",
    "func.func @f(%s: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>, %d: tensor<4x5x6xf32>) -> tensor<4x5x6xf32> {\n  %0 = tensor.gather %s[%i] gather_dims([0, 2]) unique : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x5xf32>\n  %1 = tensor.scatter %0 into %d[%i] scatter_dims([0, 2]) unique : (tensor<1x2x5xf32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<4x5x6xf32>\n  return %1 : tensor<4x5x6xf32>\n}",
    "func.func private @f(i32 {a.b}, i8) -> (i32 {c.d})\nfunc.func nested @g()",
    "#t = {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}\nfunc.func @f(%a: vector<4x3xf32>, %b: vector<3x7xf32>, %c: vector<4x7xf32>) -> vector<4x7xf32> {\n  %0 = vector.contract #t %a, %b, %c {foo = 1} : vector<4x3xf32>, vector<3x7xf32> into vector<4x7xf32>\n  %1 = vector.contract {kind = #vector.kind<maxnumf>, indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]} %a, %b, %0 : vector<4x3xf32>, vector<3x7xf32> into vector<4x7xf32>\n  return %1 : vector<4x7xf32>\n}",
    "func.func @f(%a: vector<4xf32>, %b: vector<8xf32>, %c: vector<4x8xf32>, %s: f32, %d: vector<[4]xi32>) {\n  %0 = vector.outerproduct %a, %b : vector<4xf32>, vector<8xf32>\n  %1 = vector.outerproduct %a, %b, %c : vector<4xf32>, vector<8xf32>\n  %2 = vector.outerproduct %a, %b, %c {kind = #vector.kind<maxnumf>} : vector<4xf32>, vector<8xf32>\n  %3 = vector.outerproduct %a, %s : vector<4xf32>, f32\n  %4 = \"vector.outerproduct\"(%d, %d) <{kind = #vector.kind<xor>}> {foo} : (vector<[4]xi32>, vector<[4]xi32>) -> vector<[4]x[4]xi32>\n  return\n}",
    "func.func @f(%m: vector<16xi1>, %t: tensor<?xf32>, %i: index, %v: vector<16xf32>, %mm: vector<3x8xi1>, %a: vector<3x8xf32>, %acc: vector<3xf32>, %pt: vector<16xf32>) {\n  %p = arith.constant 0.0 : f32\n  %0 = vector.mask %m { vector.transfer_read %t[%i], %p : tensor<?xf32>, vector<16xf32> } : vector<16xi1> -> vector<16xf32>\n  %1 = vector.mask %m, %pt { vector.transfer_read %t[%i], %p : tensor<?xf32>, vector<16xf32> } : vector<16xi1> -> vector<16xf32>\n  %2 = vector.mask %mm { vector.multi_reduction <add>, %a, %acc [1] : vector<3x8xf32> to vector<3xf32> } : vector<3x8xi1> -> vector<3xf32>\n  %3 = vector.mask %m { vector.yield %v : vector<16xf32> } : vector<16xi1> -> vector<16xf32>\n  vector.mask %m { } : vector<16xi1>\n  %4 = vector.mask %m { vector.reduction <add>, %v : vector<16xf32> into f32 } {foo} : vector<16xi1> -> f32\n  return\n}",
];

#[test]
fn round_trips_read_back_the_same() {
    common::assert_round_trips(ROUND_TRIPS);
}

#[test]
fn memplan_agrees_with_mlir_22_on_each_case() {
    common::assert_verdicts(CASES);
}
