//! The LLVM dialect's C++ verifier rules that memplan re-implements
//! (`crates/memplan-ir/src/cpp_rules/llvm/`): `llvm.mlir.constant` values against their
//! types, calls against their callees, `llvm.return` against its function, globals and
//! their initialisers, global constructors, atomics, casts, GEP indices, shuffles,
//! switches and function attributes. Every rule has an accepted and a rejected case; with
//! `mlir-opt-22` installed every case goes through it too and must get the same verdict
//! and, when rejected, the same message fragment (skipped without the tool unless
//! `MEMPLAN_REQUIRE_MLIR=1`).

mod common;

/// (module text, `None` = accepted / `Some(fragment)` = rejected with this message)
type Case = (&'static str, Option<&'static str>);

const CASES: &[Case] = &[
    // llvm.mlir.constant: strings, structs, scalars, elements, arrays of structs
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(\"foo\") : !llvm.array<3 x i8>\n  %1 = llvm.mlir.constant([1.0 : f64, 2 : i32]) : !llvm.struct<(f64, i32)>\n  %2 = llvm.mlir.constant(1.0 : f16) : i16\n  %3 = llvm.mlir.constant(dense<[1.0, 1.0, 1.0, 1.0]> : tensor<4xf64>) : vector<[4]xf64>\n  %4 = llvm.mlir.constant(dense<1> : tensor<2x3xi32>) : !llvm.array<2 x array<3 x i32>>\n  %5 = llvm.mlir.constant(true) : i1\n  %6 = llvm.mlir.constant(dense<[1.0, 2.0]> : vector<2xf16>) : vector<2xi16>\n  llvm.return\n}", None),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(\"foo\") : !llvm.array<4 x i8>\n  llvm.return\n}", Some("expected array type of 3 i8 elements for the string constant")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(@f) : !llvm.ptr\n  llvm.return\n}", Some("only supports integer, float, string or elements attributes")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(1.0 : f64) : !llvm.struct<(f64, f64)>\n  llvm.return\n}", Some("expected array attribute for struct type")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([1.0 : f64]) : !llvm.struct<(f64, f64)>\n  llvm.return\n}", Some("expected array attribute of size 2")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([1.0 : f64, 1.0 : f32]) : !llvm.struct<(f64, f64)>\n  llvm.return\n}", Some("struct element at index 1 is of wrong type")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([1 : i32, 2 : i32]) : !llvm.struct<(i32, ptr)>\n  llvm.return\n}", Some("expected struct element types to be floating point type or integer type")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([\"a\", 2.0 : f64]) : !llvm.struct<(f64, f64)>\n  llvm.return\n}", Some("expected element of array attribute to be floating point or integer")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(dense<[1.0, 1.0]> : tensor<2xf64>) : vector<5xf64>\n  llvm.return\n}", Some("type and attribute have a different number of elements: 5 vs. 2")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf64>) : vector<[4]xf64>\n  llvm.return\n}", Some("scalable vector type requires a splat attribute")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(1 : index) : f32\n  llvm.return\n}", Some("expected integer type")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(dense<[1, 2]> : vector<2xi32>) : vector<2xf32>\n  llvm.return\n}", Some("expected integer element type for integer elements attribute")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(1.0 : bf16) : f16\n  llvm.return\n}", Some("attribute and type have different float semantics")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(dense<[1.0, 2.0]> : vector<2xf16>) : vector<2xi8>\n  llvm.return\n}", Some("expected integer type of width 16")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(dense<1.0> : vector<1xf64>) : f32\n  llvm.return\n}", Some("expected vector or array type")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([1 : i32]) : i32\n  llvm.return\n}", Some("expected array or struct type for array attribute")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant(dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>) : !llvm.array<2 x array<2 x struct<(i32)>>>\n  llvm.return\n}", Some("expected integer element type for integer elements attribute")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([[42 : i32, 1.0 : f32], #llvm.zero]) : !llvm.array<2 x struct<(i32, f32)>>\n  llvm.return\n}", None),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([[42 : i32, 1.0 : f32]]) : !llvm.array<2 x struct<(i32, f32)>>\n  llvm.return\n}", Some("array attribute size does not match array type size in dimension 0: 1 vs. 2")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([[1 : i32]]) : !llvm.array<1 x array<1 x array<1 x struct<(i32)>>>>\n  llvm.return\n}", Some("nested attribute for sub-array in dimension 1 at index 0 must be a zero, or undef, or array attribute")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([[1 : i32]]) : !llvm.array<1 x struct<(i32, f32)>>\n  llvm.return\n}", Some("nested array attribute size for struct element at index 0 must match struct size: 1 vs. 2")),
    ("llvm.func @f() {\n  %0 = llvm.mlir.constant([2.5, 7.4]) : !llvm.array<2 x f64>\n  llvm.return\n}", Some("for array with an array attribute must have a struct element type")),
    // llvm.call against its callee
    ("llvm.func @g(i8) -> i32\nllvm.func @v(i32, ...)\nllvm.func @f(%a: i8, %b: i32, %p: !llvm.ptr) {\n  %0 = llvm.call @g(%a) : (i8) -> i32\n  llvm.call @v(%b, %a) vararg(!llvm.func<void (i32, ...)>) : (i32, i8) -> ()\n  %1 = llvm.call %p(%a) : !llvm.ptr, (i8) -> i32\n  llvm.return\n}", None),
    ("llvm.func @f() {\n  llvm.call @missing() : () -> ()\n  llvm.return\n}", Some("'missing' does not reference a symbol in the current scope")),
    ("func.func private @g()\nllvm.func @f() {\n  llvm.call @g() : () -> ()\n  llvm.return\n}", Some("'g' does not reference a valid LLVM function")),
    ("llvm.func @g(i8)\nllvm.func @f(%a: i32) {\n  llvm.call @g(%a) : (i32) -> ()\n  llvm.return\n}", Some("operand type mismatch for operand 0: 'i32' != 'i8'")),
    ("llvm.func @g() -> i8\nllvm.func @f() {\n  %0 = llvm.call @g() : () -> i32\n  llvm.return\n}", Some("result type mismatch: 'i32' != 'i8'")),
    ("llvm.func @g() -> i32\nllvm.func @f() {\n  llvm.call @g() : () -> ()\n  llvm.return\n}", Some("expected function call to produce a value")),
    ("llvm.func @g()\nllvm.func @f() {\n  %0 = llvm.call @g() : () -> i32\n  llvm.return\n}", Some("calling function with void result must not produce values")),
    ("llvm.func @g(i32)\nllvm.func @f() {\n  llvm.call @g() : () -> ()\n  llvm.return\n}", Some("incorrect number of operands (0) for callee (expecting: 1)")),
    ("llvm.func @g(...)\nllvm.func @f(%a: i32) {\n  \"llvm.call\"(%a) <{callee = @g}> {operandSegmentSizes = array<i32: 1, 0>, op_bundle_sizes = array<i32>} : (i32) -> ()\n  llvm.return\n}", Some("missing var_callee_type attribute for vararg call")),
    ("llvm.func @f(%c: i64, %a: i8) {\n  llvm.call %c(%a) : i64, (i8) -> ()\n  llvm.return\n}", Some("indirect call expects a pointer as callee: 'i64'")),
    ("llvm.func @f() {\n  \"llvm.call\"() {operandSegmentSizes = array<i32: 0, 0>, op_bundle_sizes = array<i32>} : () -> ()\n  llvm.return\n}", Some("must have either a `callee` attribute or at least an operand")),
    ("llvm.func @f(%p: !llvm.ptr) {\n  %0:2 = llvm.call %p() : !llvm.ptr, () -> (i32, i32)\n  llvm.return\n}", Some("expected function with 0 or 1 result")),
    ("llvm.func @f(%p: !llvm.ptr) {\n  llvm.call %p() : !llvm.ptr, () -> !llvm.void\n  llvm.return\n}", Some("expected a non-void result type")),
    ("llvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.call %p() : !llvm.ptr, () -> index\n  llvm.return\n}", Some("result #0 must be LLVM")),
    ("llvm.func @g(i32)\nllvm.func @f(%a: i32) {\n  llvm.call @g(%a) vararg(!llvm.func<void (i32)>) : (i32) -> ()\n  llvm.return\n}", Some("expected var_callee_type to be a variadic function type")),
    ("llvm.func @g(i32, ...)\nllvm.func @f(%a: i32) {\n  llvm.call @g(%a) vararg(!llvm.func<void (i32, i64, ...)>) : (i32) -> ()\n  llvm.return\n}", Some("expected var_callee_type to have at most 1 parameters")),
    ("llvm.func @f(%p: !llvm.ptr, %a: i32) {\n  llvm.call %p(%a) vararg(!llvm.func<void (i64, ...)>) : !llvm.ptr, (i32) -> ()\n  llvm.return\n}", Some("var_callee_type parameter type mismatch: 'i64' != 'i32'")),
    ("llvm.func @g(i32, ...)\nllvm.func @f(%a: i32) {\n  llvm.call @g(%a) vararg(!llvm.func<i8 (i32, ...)>) : (i32) -> ()\n  llvm.return\n}", Some("expected var_callee_type to return void")),
    ("llvm.func @g(i32, ...) -> i32\nllvm.func @f(%a: i32) {\n  %0 = llvm.call @g(%a) vararg(!llvm.func<i8 (i32, ...)>) : (i32) -> i32\n  llvm.return\n}", Some("var_callee_type return type mismatch: 'i8' != 'i32'")),
    ("llvm.func @g()\nllvm.func @f() {\n  %0 = llvm.mlir.constant(0 : i32) : i32\n  \"llvm.call\"(%0) <{op_bundle_tags = [\"a\", \"b\"]}> {callee = @g, operandSegmentSizes = array<i32: 0, 1>, op_bundle_sizes = array<i32: 1>} : (i32) -> ()\n  llvm.return\n}", Some("expected 1 operand bundle tags, but actually got 2")),
    // llvm.return against the function
    ("llvm.func @f(%a: i32) -> i32 {\n  llvm.return %a : i32\n}\nllvm.func @g() {\n  llvm.return\n}", None),
    ("llvm.func @f(%a: i32) {\n  llvm.return %a : i32\n}", Some("expected no operands")),
    ("llvm.func @f() -> i32 {\n  llvm.return\n}", Some("expected 1 operand")),
    ("llvm.func @f(%a: f32) -> i32 {\n  llvm.return %a : f32\n}", Some("mismatching result types")),
    // llvm.mlir.global
    ("llvm.mlir.global @a() : i64\nllvm.mlir.global private @b(42 : i64) {alignment = 64 : i64} : i64\nllvm.mlir.global common @c(0 : i32) : i32\nllvm.mlir.global appending @d() : !llvm.array<2 x i64>\nllvm.mlir.global internal @e() : i64 {\n  %0 = llvm.mlir.constant(1 : i64) : i64\n  llvm.return %0 : i64\n}\nllvm.comdat @__llvm_comdat {\n  llvm.comdat_selector @any any\n}\nllvm.mlir.global @g() comdat(@__llvm_comdat::@any) : i64", None),
    ("llvm.mlir.global private @g(42 : i64) {alignment = 63} : i64", Some("alignment attribute is not a power of 2")),
    ("llvm.mlir.global common @g(42 : i32) : i32", Some("expected zero value for 'common' linkage")),
    ("llvm.mlir.global common @g(dense<[0, 0, 1]> : vector<3xi32>) : !llvm.array<3 x i32>", Some("expected zero value for 'common' linkage")),
    ("llvm.mlir.global appending @g() : i32", Some("expected array type for 'appending' linkage")),
    ("llvm.mlir.global internal constant @g(\"foobar\") : !llvm.array<42 x i8>", Some("requires an i8 array type of the length equal to that of the string attribute")),
    ("llvm.mlir.global internal constant @g(37.0) : !llvm.label", Some("expects type to be a valid element type for an LLVM global")),
    ("llvm.mlir.global internal @g() : i32 {\n  %0 = llvm.mlir.constant(42 : i64) : i64\n  llvm.return %0 : i64\n}", Some("initializer region type 'i64' does not match global type 'i32'")),
    ("llvm.mlir.global internal @g(43 : i64) : i64 {\n  %0 = llvm.mlir.constant(42 : i64) : i64\n  llvm.return %0 : i64\n}", Some("cannot have both initializer value and region")),
    ("llvm.mlir.global internal @g() : i64 {\n  %0 = llvm.mlir.constant(1 : i64) : i64\n  %1 = llvm.alloca %0 x i64 : (i64) -> !llvm.ptr\n  %2 = llvm.load %1 : !llvm.ptr -> i64\n  llvm.return %2 : i64\n}", Some("ops with side effects not allowed in global initializers")),
    ("llvm.mlir.global @n(0 : i32) : i32\nllvm.mlir.global @g(0 : i32) comdat(@n) : i32", Some("expected comdat symbol")),
    ("func.func @f() {\n  llvm.mlir.global internal @g(42) : i32\n  return\n}", Some("symbol's parent must have the SymbolTable trait")),
    ("llvm.comdat @__llvm_comdat {\n  llvm.return\n}", Some("only comdat selector symbols can appear in a comdat region")),
    // global constructors / destructors
    ("llvm.func @c() {\n  llvm.return\n}\nllvm.mlir.global_ctors ctors = [@c], priorities = [0 : i32], data = [#llvm.zero]\nllvm.mlir.global_dtors dtors = [@c], priorities = [0 : i32], data = [@c]", None),
    ("llvm.func @c() {\n  llvm.return\n}\nllvm.mlir.global_ctors ctors = [@c], priorities = [], data = [#llvm.zero]", Some("ctors, priorities, and data must have the same number of elements")),
    ("llvm.mlir.global_ctors ctors = [@c], priorities = [0 : i32], data = [#llvm.zero]", Some("'c' does not reference a valid LLVM function")),
    ("llvm.func @d()\nllvm.mlir.global_dtors dtors = [@d], priorities = [0 : i32], data = [#llvm.zero]", Some("'d' does not have a definition")),
    ("llvm.func @d() {\n  llvm.return\n}\nllvm.mlir.global_dtors dtors = [@d], priorities = [0 : i32], data = [0 : i32]", Some("data element must be symbol or #llvm.zero")),
    // atomics
    ("llvm.func @f(%p: !llvm.ptr, %x: f32, %i: i32, %v: vector<2xf32>) {\n  %0 = llvm.atomicrmw fadd %p, %x monotonic : !llvm.ptr, f32\n  %1 = llvm.atomicrmw add %p, %i acq_rel : !llvm.ptr, i32\n  %2 = llvm.atomicrmw fadd %p, %v monotonic : !llvm.ptr, vector<2xf32>\n  %3 = llvm.atomicrmw xchg %p, %p monotonic : !llvm.ptr, !llvm.ptr\n  %4 = llvm.cmpxchg %p, %i, %i acq_rel monotonic : !llvm.ptr, i32\n  llvm.return\n}", None),
    ("llvm.func @f(%p: !llvm.ptr, %i: i32) {\n  %0 = llvm.atomicrmw fadd %p, %i monotonic : !llvm.ptr, i32\n  llvm.return\n}", Some("expected LLVM IR floating point type")),
    ("llvm.func @f(%p: !llvm.ptr, %i: vector<3xi32>) {\n  %0 = llvm.atomicrmw fadd %p, %i monotonic : !llvm.ptr, vector<3xi32>\n  llvm.return\n}", Some("expected LLVM IR floating point type for vector element")),
    ("llvm.func @f(%p: !llvm.ptr, %i: i1) {\n  %0 = llvm.atomicrmw xchg %p, %i monotonic : !llvm.ptr, i1\n  llvm.return\n}", Some("unexpected LLVM IR type for 'xchg' bin_op")),
    ("llvm.func @f(%p: !llvm.ptr, %x: f32) {\n  %0 = llvm.atomicrmw max %p, %x monotonic : !llvm.ptr, f32\n  llvm.return\n}", Some("expected LLVM IR integer type")),
    ("llvm.func @f(%p: !llvm.ptr, %i: i32) {\n  %0 = llvm.atomicrmw add %p, %i unordered : !llvm.ptr, i32\n  llvm.return\n}", Some("expected at least 'monotonic' ordering")),
    ("llvm.func @f(%p: !llvm.ptr, %i: i1) {\n  %0 = llvm.cmpxchg %p, %i, %i monotonic monotonic : !llvm.ptr, i1\n  llvm.return\n}", Some("unexpected LLVM IR type")),
    ("llvm.func @f(%p: !llvm.ptr, %i: i32) {\n  %0 = llvm.cmpxchg %p, %i, %i unordered monotonic : !llvm.ptr, i32\n  llvm.return\n}", Some("ordering must be at least 'monotonic'")),
    ("llvm.func @f(%p: !llvm.ptr, %i: i32) {\n  %0 = llvm.cmpxchg %p, %i, %i acq_rel release : !llvm.ptr, i32\n  llvm.return\n}", Some("failure ordering cannot be 'release' or 'acq_rel'")),
    ("llvm.func @f(%p: !llvm.ptr, %i: i64) {\n  %0 = \"llvm.cmpxchg\"(%p, %i, %i) {success_ordering = 2, failure_ordering = 2} : (!llvm.ptr, i64, i64) -> !llvm.struct<(i64, i64)>\n  llvm.return\n}", Some("failed to verify that result #0 has an LLVM struct type consisting of the type of operand #2 and a bool")),
    // casts
    ("llvm.func @f(%p: !llvm.ptr, %v: vector<4x!llvm.ptr>, %i: i64) {\n  %0 = llvm.bitcast %p : !llvm.ptr to !llvm.ptr\n  %1 = llvm.bitcast %v : vector<4x!llvm.ptr> to vector<4x!llvm.ptr>\n  %2 = llvm.bitcast %i : i64 to vector<2xi32>\n  llvm.return\n}", None),
    ("llvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.bitcast %p : !llvm.ptr to i64\n  llvm.return\n}", Some("can only cast pointers from and to pointers")),
    ("llvm.func @f(%p: vector<4x!llvm.ptr>) {\n  %0 = llvm.bitcast %p : vector<4x!llvm.ptr> to !llvm.ptr\n  llvm.return\n}", Some("cannot cast vector of pointers to pointer")),
    ("llvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.bitcast %p : !llvm.ptr to vector<4x!llvm.ptr>\n  llvm.return\n}", Some("cannot cast pointer to vector of pointers")),
    ("llvm.func @f(%p: !llvm.ptr<1>) {\n  %0 = llvm.bitcast %p : !llvm.ptr<1> to !llvm.ptr\n  llvm.return\n}", Some("cannot cast pointers of different address spaces, use 'llvm.addrspacecast' instead")),
    // getelementptr
    ("llvm.func @f(%p: !llvm.ptr, %i: i64) {\n  %0 = llvm.getelementptr %p[%i, 1, 0] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(i32, struct<(i32, f32)>)>\n  %1 = llvm.getelementptr %p[%i, %i, 2] : (!llvm.ptr, i64, i64) -> !llvm.ptr, !llvm.array<4 x vector<4xf32>>\n  llvm.return\n}", None),
    ("llvm.func @f(%p: !llvm.ptr, %i: i32) {\n  %0 = llvm.getelementptr %p[%i, %i] : (!llvm.ptr, i32, i32) -> !llvm.ptr, !llvm.struct<(i32)>\n  llvm.return\n}", Some("expected index 1 indexing a struct to be constant")),
    ("llvm.func @f(%p: !llvm.ptr, %i: i64) {\n  %0 = llvm.getelementptr %p[%i, 1, 3] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.struct<(i32, struct<(i32, f32)>)>\n  llvm.return\n}", Some("index 2 indexing a struct is out of bounds")),
    ("llvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.getelementptr %p[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr\n  llvm.return\n}", Some("type '!llvm.ptr' cannot be indexed (index #1)")),
    // shufflevector, switch, extractvalue / insertvalue
    ("llvm.func @f(%v: vector<[4]xf32>, %w: vector<4xf32>) {\n  %0 = llvm.shufflevector %v, %v [0, 0, 0, 0] : vector<[4]xf32>\n  %1 = llvm.shufflevector %w, %w [3, 1] : vector<4xf32>\n  llvm.return\n}", None),
    ("llvm.func @f(%v: vector<[4]xf32>) {\n  %0 = llvm.shufflevector %v, %v [0, 0, 0, 1] : vector<[4]xf32>\n  llvm.return\n}", Some("expected a splat operation for scalable vectors")),
    ("llvm.func @f(%a: i32) {\n  llvm.switch %a : i32, ^bb1 [\n    42: ^bb1\n  ] {branch_weights = array<i32: 13, 17>}\n^bb1:\n  llvm.return\n}", None),
    ("llvm.func @f(%a: i32) {\n  llvm.switch %a : i32, ^bb1 [\n    42: ^bb1\n  ] {branch_weights = array<i32: 13, 17, 19>}\n^bb1:\n  llvm.return\n}", Some("expects number of branch weights to match number of successors: 3 vs 2")),
    ("llvm.func @f(%a: i64) {\n  \"llvm.switch\"(%a)[^bb1, ^bb1] <{case_operand_segments = array<i32: 0>, case_values = dense<42> : vector<1xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i64) -> ()\n^bb1:\n  llvm.return\n}", Some("expects case value type to match condition value type")),
    ("llvm.func @f(%a: !llvm.array<4 x vector<8xf32>>, %s: !llvm.struct<(i32, f32)>, %x: f32) {\n  %0 = llvm.extractvalue %a[1] : !llvm.array<4 x vector<8xf32>>\n  %1 = llvm.insertvalue %x, %s[1] : !llvm.struct<(i32, f32)>\n  llvm.return\n}", None),
    ("llvm.func @f(%a: !llvm.array<4 x vector<8xf32>>) {\n  %0 = \"llvm.extractvalue\"(%a) <{position = array<i64: 1>}> : (!llvm.array<4 x vector<8xf32>>) -> !llvm.array<4 x vector<8xf32>>\n  llvm.return\n}", Some("Type mismatch: extracting from '!llvm.array<4 x vector<8xf32>>' should produce 'vector<8xf32>' but this op returns '!llvm.array<4 x vector<8xf32>>'")),
    ("llvm.func @f(%a: !llvm.array<1 x i32>) {\n  %0 = \"llvm.insertvalue\"(%a, %a) <{position = array<i64: 0>}> : (!llvm.array<1 x i32>, !llvm.array<1 x i32>) -> !llvm.array<1 x i32>\n  llvm.return\n}", Some("Type mismatch: cannot insert '!llvm.array<1 x i32>' into '!llvm.array<1 x i32>'")),
    // vector.interleave2, target extension types, n-D vectors in casts
    ("llvm.func @f(%a: vector<[2]xf16>, %b: vector<4xi8>) {\n  %0 = \"llvm.intr.vector.interleave2\"(%a, %a) : (vector<[2]xf16>, vector<[2]xf16>) -> vector<[4]xf16>\n  %1 = \"llvm.intr.vector.interleave2\"(%b, %b) : (vector<4xi8>, vector<4xi8>) -> vector<8xi8>\n  llvm.return\n}", None),
    ("llvm.func @f(%a: vector<[2]xf16>) {\n  %0 = \"llvm.intr.vector.interleave2\"(%a, %a) : (vector<[2]xf16>, vector<[2]xf16>) -> vector<4xf16>\n  llvm.return\n}", Some("failed to verify that result has twice as many elements as 'vec1'")),
    ("llvm.func @f(%a: vector<[2]xf16>) {\n  %0 = \"llvm.intr.vector.interleave2\"(%a, %a) : (vector<[2]xf16>, vector<[2]xf16>) -> vector<[4]xf32>\n  llvm.return\n}", Some("failed to verify that result has twice as many elements as 'vec1'")),
    ("llvm.mlir.global @t() : !llvm.target<\"spirv.Image\", i32, 0> {\n  %0 = llvm.mlir.zero : !llvm.target<\"spirv.Image\", i32, 0>\n  llvm.return %0 : !llvm.target<\"spirv.Image\", i32, 0>\n}", None),
    ("llvm.func @f() {\n  %0 = llvm.mlir.zero : !llvm.target<\"invalid_constant\">\n  llvm.return\n}", Some("target extension type does not support zero-initializer")),
    ("llvm.mlir.global @t(0 : i64) : !llvm.target<\"spirv.Image\", i32, 0>", Some("global with target extension type can only be initialized with zero-initializer")),
    ("llvm.mlir.global @t() : !llvm.target<\"other\">", Some("this target extension type cannot be used in a global")),
    ("func.func @f(%a: vector<2x3xf32>) {\n  %0 = llvm.bitcast %a : vector<2x3xf32> to vector<2x3xi32>\n  return\n}", Some("operand #0 must be LLVM-compatible non-aggregate type")),
    ("llvm.func @f(i32, f16, vector<4x!llvm.ptr>, !llvm.struct<(i8)>) -> vector<[4]xbf16>", None),
    ("llvm.func @f(index)", Some("failed to construct function type: expected LLVM type for function arguments")),
    ("llvm.func @f(f8E4M3FN)", Some("failed to construct function type: expected LLVM type for function arguments")),
    ("llvm.func @f() -> vector<2x3xf32>", Some("failed to construct function type: expected LLVM type for function results")),
    // llvm.mlir.alias and llvm.mlir.ifunc
    ("llvm.mlir.global external @x(42 : i32) : i32\nllvm.mlir.alias external hidden thread_local unnamed_addr @y {dso_local} : i32 {\n  %0 = llvm.mlir.addressof @x : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}\nllvm.func @r() -> !llvm.ptr {\n  %0 = llvm.mlir.zero : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}\nllvm.mlir.alias weak @ra : !llvm.ptr {\n  %0 = llvm.mlir.addressof @r : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}\nllvm.mlir.ifunc external @i : !llvm.func<void (ptr, i32)>, !llvm.ptr @r\nllvm.mlir.ifunc internal @j : !llvm.func<void ()>, !llvm.ptr @ra", None),
    ("llvm.mlir.global external @x(42 : i32) : i32\nllvm.mlir.alias external @y : !llvm.label {\n  %0 = llvm.mlir.addressof @x : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}", Some("expects type to be a valid element type for an LLVM global alias")),
    ("llvm.mlir.global external @x(42 : i32) : i32\nllvm.mlir.alias appending @y : i32 {\n  %0 = llvm.mlir.addressof @x : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}", Some("linkage not supported in aliases, available options")),
    ("llvm.mlir.alias external @y : i32 {\n  %0 = llvm.mlir.constant(42 : i64) : i64\n  llvm.return %0 : i64\n}", Some("initializer region must always return a pointer")),
    ("llvm.mlir.global external @x(42 : i32) : i32\nllvm.mlir.alias external @y : i32 {\n  %0 = llvm.mlir.addressof @x : !llvm.ptr\n  %1 = llvm.load %0 : !llvm.ptr -> i32\n  llvm.return %0 : !llvm.ptr\n}", Some("ops with side effects are not allowed in alias initializers")),
    ("llvm.func external @r() -> !llvm.ptr\nllvm.mlir.ifunc external @i : !llvm.func<void (ptr, i32)>, !llvm.ptr @r", Some("resolver must be a definition")),
    ("llvm.mlir.global external @r() : !llvm.ptr\nllvm.mlir.ifunc external @i : !llvm.func<void (ptr, i32)>, !llvm.ptr @r", Some("must have a function resolver")),
    ("llvm.func @r() -> !llvm.ptr {\n  %0 = llvm.mlir.zero : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}\nllvm.mlir.ifunc common @i : !llvm.func<void (ptr, i32)>, !llvm.ptr @r", Some("'common' linkage not supported in ifuncs")),
    ("llvm.func @r() -> i32 {\n  %0 = llvm.mlir.constant(0 : i32) : i32\n  llvm.return %0 : i32\n}\nllvm.mlir.ifunc external @i : !llvm.func<void ()>, !llvm.ptr @r", Some("resolver must return a pointer")),
    // block addresses and tags
    ("llvm.func @t() -> !llvm.ptr {\n  %0 = llvm.blockaddress <function = @t, tag = <id = 1>> : !llvm.ptr\n  llvm.br ^bb1\n^bb1:\n  llvm.blocktag <id = 1>\n  llvm.blocktag <id = 2>\n  llvm.return %0 : !llvm.ptr\n}", None),
    ("llvm.func @t() -> !llvm.ptr {\n  %0 = llvm.blockaddress <function = @t, tag = <id = 1>> : !llvm.ptr\n  llvm.br ^bb1\n^bb1:\n  llvm.return %0 : !llvm.ptr\n}", Some("expects an existing block label target in the referenced function")),
    ("module {\n  %0 = llvm.blockaddress <function = @missing, tag = <id = 1>> : !llvm.ptr\n}", Some("expects an existing block label target in the referenced function")),
    ("llvm.func @t() {\n  llvm.blocktag <id = 1>\n  llvm.br ^bb1\n^bb1:\n  llvm.blocktag <id = 1>\n  llvm.return\n}", Some("duplicate block tag '1' in the same function")),
    // exceptions: invoke, landingpad, resume
    ("llvm.func @foo(i32) -> i32\nllvm.func @p(...) -> i32\nllvm.func @f(%a: i32) -> i32 attributes {personality = @p} {\n  %0 = llvm.invoke @foo(%a) to ^bb1 unwind ^bb2 : (i32) -> i32\n^bb1:\n  llvm.return %0 : i32\n^bb2:\n  %1 = llvm.landingpad cleanup : !llvm.struct<(ptr, i32)>\n  llvm.resume %1 : !llvm.struct<(ptr, i32)>\n}", None),
    ("llvm.func @foo(i32) -> i32\nllvm.func @f(%a: i32) -> i32 {\n  %0 = llvm.invoke @foo(%a) to ^bb1 unwind ^bb2 : (i32) -> i32\n^bb1:\n  llvm.return %0 : i32\n^bb2:\n  llvm.return %a : i32\n}", Some("first operation in unwind destination should be a llvm.landingpad operation")),
    ("llvm.func @foo(i32) -> i32\nllvm.func @p(...) -> i32\nllvm.func @f(%a: i32) -> i32 attributes {personality = @p} {\n  %0 = llvm.invoke @foo(%a) to ^bb1 unwind ^bb2 : (i32) -> i32\n^bb1:\n  %1 = llvm.invoke @foo(%0) to ^bb3 unwind ^bb4 : (i32) -> i32\n^bb2:\n  %2 = llvm.landingpad cleanup : !llvm.struct<(ptr, i32)>\n  llvm.resume %2 : !llvm.struct<(ptr, i32)>\n^bb3:\n  llvm.return %1 : i32\n^bb4:\n  %3 = llvm.landingpad cleanup : i32\n  llvm.resume %3 : i32\n}", Some("'llvm.landingpad' should have a consistent result type inside a function")),
    ("llvm.func @foo(i32) -> i32\nllvm.func @p(...) -> i32\nllvm.func @f(%a: i32) -> i32 attributes {personality = @p} {\n  %0 = llvm.invoke @foo(%a) to ^bb1 unwind ^bb2 : (i32) -> i32\n^bb1:\n  %1 = llvm.invoke @foo(%0) to ^bb3 unwind ^bb4 : (i32) -> i32\n^bb2:\n  %2 = llvm.landingpad cleanup : !llvm.struct<(ptr, i32)>\n  llvm.resume %0 : i32\n^bb3:\n  llvm.return %1 : i32\n^bb4:\n  %3 = llvm.landingpad cleanup : !llvm.struct<(ptr, i32)>\n  llvm.resume %3 : !llvm.struct<(ptr, i32)>\n}", Some("'llvm.resume' should have a consistent input type inside a function")),
    // inline asm, call_intrinsic
    ("llvm.func @f(%a: i32) {\n  %0 = \"llvm.inline_asm\"(%a) <{asm_string = \"foo\", constraints = \"=r,r\", tail_call_kind = #llvm.tailcallkind<tail>}> : (i32) -> i8\n  %1 = \"llvm.call_intrinsic\"(%a) <{fastmathFlags = #llvm.fastmath<none>, intrin = \"llvm.ctpop.i32\", op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 1, 0>}> : (i32) -> i32\n  llvm.return\n}", None),
    ("llvm.func @f(%a: i32) {\n  %0 = \"llvm.inline_asm\"(%a) <{asm_string = \"foo\", constraints = \"=r,r\", tail_call_kind = #llvm.tailcallkind<musttail>}> : (i32) -> i8\n  llvm.return\n}", Some("tail call kind 'musttail' is not supported")),
    ("llvm.func @f(%a: i32) {\n  %0 = \"llvm.call_intrinsic\"(%a) <{fastmathFlags = #llvm.fastmath<none>, intrin = \"ctpop.i32\", op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 1, 0>}> : (i32) -> i32\n  llvm.return\n}", Some("intrinsic name must start with 'llvm.'")),
    // nvvm.cp.async.shared.global, nvvm.mapa
    ("func.func @f(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>, %a: !llvm.ptr<3>, %g: !llvm.ptr, %b: i32) {\n  nvvm.cp.async.shared.global %d, %s, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>\n  nvvm.cp.async.shared.global %d, %s, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>\n  %0 = nvvm.mapa %a, %b : !llvm.ptr<3> -> !llvm.ptr<7>\n  %1 = nvvm.mapa %g, %b : !llvm.ptr -> !llvm.ptr\n  return\n}", None),
    ("func.func @f(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>) {\n  nvvm.cp.async.shared.global %d, %s, 16, cache = cs : !llvm.ptr<3>, !llvm.ptr<1>\n  return\n}", Some("Only CG and CA cache modifiers are supported.")),
    ("func.func @f(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>) {\n  nvvm.cp.async.shared.global %d, %s, 32, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>\n  return\n}", Some("expected byte size to be either 4, 8 or 16.")),
    ("func.func @f(%d: !llvm.ptr<3>, %s: !llvm.ptr<1>) {\n  nvvm.cp.async.shared.global %d, %s, 8, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>\n  return\n}", Some("CG cache modifier is only support for 16 bytes copy.")),
    ("func.func @f(%a: !llvm.ptr<3>, %b: i32) {\n  %0 = nvvm.mapa %a, %b : !llvm.ptr<3> -> !llvm.ptr\n  return\n}", Some("failed to verify that Valid address-space check(or mapping) for mapa Op")),
    // found by lowering the shared corpus with mlir-opt-22 --convert-to-llvm: nested
    // aggregates in insertvalue, globals in a gpu.module
    ("llvm.func @f(%s: !llvm.struct<(ptr, i64)>) {\n  %0 = llvm.mlir.poison : !llvm.struct<(struct<(ptr, i64)>, i1)>\n  %1 = llvm.insertvalue %s, %0[0] : !llvm.struct<(struct<(ptr, i64)>, i1)>\n  llvm.return\n}", None),
    ("module attributes {gpu.container_module} {\n  gpu.module @k {\n    llvm.mlir.global internal @g() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x i8>\n  }\n}", None),
    // function attributes
    ("llvm.func @f() attributes {no_inline, optimize_none} {\n  llvm.return\n}", None),
    ("llvm.func @f() attributes {always_inline, no_inline} {\n  llvm.return\n}", Some("no_inline and always_inline attributes are incompatible")),
    ("llvm.func @f() attributes {optimize_none} {\n  llvm.return\n}", Some("with optimize_none must also be no_inline")),
    ("llvm.func @f() comdat(@foo) {\n  llvm.return\n}", Some("expected comdat symbol")),
    // llvm.* argument and result attributes (LLVMDialect::verifyRegionArg/ResultAttribute)
    ("llvm.func @f(%a: !llvm.ptr {llvm.noalias, llvm.align = 4 : i64, llvm.byval = i32, llvm.dereferenceable = 8 : i64}, %b: i32 {llvm.signext, llvm.noundef, llvm.inreg}, %c: f32 {llvm.allocalign, llvm.foo})", None),
    ("llvm.func @f() -> (!llvm.ptr {llvm.noalias, llvm.nonnull, llvm.align = 8 : i64, llvm.elementtype = i8})", None),
    ("func.func private @f(%a: !llvm.ptr {llvm.nocapture}, %b: i8 {llvm.zeroext})", None),
    ("llvm.func @f(%a: i32 {llvm.noalias})", Some("\"llvm.noalias\" attribute attached to non-pointer LLVM type")),
    ("llvm.func @f(%a: vector<2x!llvm.ptr> {llvm.nonnull})", Some("\"llvm.nonnull\" attribute attached to non-pointer LLVM type")),
    ("llvm.func @f(%a: !llvm.ptr {llvm.readonly = 1 : i32})", Some("\"llvm.readonly\" should be a unit attribute")),
    ("llvm.func @f(%a: !llvm.ptr {llvm.align = \"x\"})", Some("\"llvm.align\" should be an integer attribute")),
    ("llvm.func @f(%a: !llvm.ptr {llvm.sret})", Some("\"llvm.sret\" should be a type attribute")),
    ("llvm.func @f(%a: f32 {llvm.zeroext})", Some("\"llvm.zeroext\" attribute attached to non-integer LLVM type")),
    ("llvm.func @f(%a: i32 {llvm.noalias, llvm.byval = 1})", Some("\"llvm.byval\" should be a type attribute")),
    ("llvm.func @f() -> (!llvm.ptr {llvm.readonly})", Some("\"llvm.readonly\" is not a valid result attribute")),
    ("llvm.func @f() -> (i32 {llvm.returned})", Some("\"llvm.returned\" is not a valid result attribute")),
    ("func.func @f(%a: i32 {llvm.noalias}) {\n  return\n}", Some("\"llvm.noalias\" attribute attached to non-pointer LLVM type")),
    ("llvm.func @f(%a: i32) attributes {arg_attrs = [{llvm.noalias}, {}]}", Some("expects argument attribute array to have the same number of elements as the number of function arguments, got 2, but expected 1")),
    ("llvm.func internal hidden unnamed_addr cc_10 @i() vscale_range(1, 2) {\n  llvm.return\n}\nllvm.func protected local_unnamed_addr fastcc @p()\nllvm.func @s(%a: !llvm.struct<(i32)>) -> !llvm.struct<(i32)> {\n  llvm.return %a : !llvm.struct<(i32)>\n}\nllvm.func @c() {\n  llvm.call cc_10 @i() : () -> ()\n  llvm.return\n}", None),
    ("\"llvm.func\"() ({}) {sym_name = \"f\", function_type = i64} : () -> ()", Some("attribute 'function_type' failed to satisfy constraint: type attribute of LLVM function type")),
    ("\"llvm.func\"() ({\n^bb0(%a: i64):\n  llvm.return\n}) {function_type = !llvm.func<void ()>, sym_name = \"f\"} : () -> ()", Some("entry block must have 0 arguments to match function signature")),
    ("\"llvm.func\"() ({\n^bb0(%a: i32):\n  llvm.return\n}) {function_type = !llvm.func<void (i64)>, sym_name = \"f\"} : () -> ()", Some("type of entry block argument #0('i32') must match the type of the corresponding argument in function signature('i64')")),
    ("llvm.func @f(%a: i32, ..., %b: i32)", Some("variadic arguments must be in the end of the argument list")),
    // access groups, alias scopes and TBAA tags on memory ops (ODS array constraints)
    ("#g = #llvm.access_group<id = distinct[0]<>>\n#d = #llvm.alias_scope_domain<id = distinct[1]<>>\n#s = #llvm.alias_scope<id = distinct[2]<>, domain = #d>\nllvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p {access_groups = [#g], alias_scopes = [#s], noalias_scopes = [#s]} : !llvm.ptr -> i32\n  llvm.store %0, %p {access_groups = [#g], alias_scopes = [#s], noalias_scopes = [#s]} : i32, !llvm.ptr\n  llvm.return\n}", None),
    ("#g = #llvm.access_group<id = distinct[0]<>>\n#d = #llvm.alias_scope_domain<id = distinct[1]<>>\n#s = #llvm.alias_scope<id = distinct[2]<>, domain = #d>\nllvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p {access_groups = [1 : i32]} : !llvm.ptr -> i32\n  llvm.store %0, %p {access_groups = [1 : i32]} : i32, !llvm.ptr\n  llvm.return\n}", Some("attribute 'access_groups' failed to satisfy constraint: LLVM dialect access group metadata array")),
    ("#g = #llvm.access_group<id = distinct[0]<>>\n#d = #llvm.alias_scope_domain<id = distinct[1]<>>\n#s = #llvm.alias_scope<id = distinct[2]<>, domain = #d>\nllvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p {alias_scopes = [\"a\"]} : !llvm.ptr -> i32\n  llvm.store %0, %p {alias_scopes = [\"a\"]} : i32, !llvm.ptr\n  llvm.return\n}", Some("attribute 'alias_scopes' failed to satisfy constraint: LLVM dialect alias scope array")),
    ("#g = #llvm.access_group<id = distinct[0]<>>\n#d = #llvm.alias_scope_domain<id = distinct[1]<>>\n#s = #llvm.alias_scope<id = distinct[2]<>, domain = #d>\nllvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p {noalias_scopes = 1} : !llvm.ptr -> i32\n  llvm.store %0, %p {noalias_scopes = 1} : i32, !llvm.ptr\n  llvm.return\n}", Some("attribute 'noalias_scopes' failed to satisfy constraint: LLVM dialect alias scope array")),
    ("#g = #llvm.access_group<id = distinct[0]<>>\n#d = #llvm.alias_scope_domain<id = distinct[1]<>>\n#s = #llvm.alias_scope<id = distinct[2]<>, domain = #d>\nllvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.load %p {tbaa = [#g]} : !llvm.ptr -> i32\n  llvm.store %0, %p {tbaa = [#g]} : i32, !llvm.ptr\n  llvm.return\n}", Some("attribute 'tbaa' failed to satisfy constraint: LLVM dialect TBAA tag metadata array")),
];

#[test]
fn memplan_accepts_and_rejects_like_mlir() {
    common::assert_memplan_verdicts(CASES);
}

/// The same cases through mlir-opt-22: the expected verdicts are MLIR's.
#[test]
fn mlir_opt_agrees_with_the_cases() {
    common::assert_mlir_agrees(CASES, "llvm-rules");
}

/// Aliases, globals and functions in their custom forms print so that mlir-opt-22 reads
/// memplan's print as the same module as the input (the properties MLIR's custom parsers
/// fill in when a keyword is absent, e.g. `unnamed_addr`, included).
#[test]
fn symbols_round_trip_like_mlir() {
    common::assert_round_trips(&[
        "llvm.func @foo() -> ()\nllvm.mlir.alias external @foo_alias : !llvm.ptr {\n  %0 = llvm.mlir.addressof @foo : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}",
        "llvm.mlir.global external @zed(42 : i32) {addr_space = 0 : i32} : i32\nllvm.mlir.alias linkonce_odr hidden @glob {addr_space = 0 : i32, dso_local} : !llvm.array<32 x i32> {\n  %0 = llvm.mlir.addressof @zed : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}",
        "llvm.mlir.global external @x(42 : i32) : i32\nllvm.mlir.alias private unnamed_addr @y {dso_local} : i32 {\n  %0 = llvm.mlir.addressof @x : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}",
    ]);
}
