// RUN: mlir-opt-22 %s -split-input-file
// Transform-dialect schedules in MLIR 22 syntax: the hand-written ops (named_sequence), the
// engine's custom directives (SequenceOpOperands, DynamicIndexList with scalable sizes,
// PackedOrDynamicIndexList, SemiFunctionType, TransformMatchDims, ForeachMatchSymbols,
// MultitileSizesTypes, ContinuousTileSizeTypes), oilist
// clauses, implicit terminators and default dialects. Each case (split as mlir-opt's
// --split-input-file does) must read, and print (custom and generic) to what mlir-opt-22
// normalises to the same module.
func.func @payload(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loops:3 = transform.structured.tile_using_for %mm tile_sizes [4, 8, [16]] interchange = [1, 0, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true
      transform.apply_patterns.memref.alloc_to_alloca size_limit(32)
    } : !transform.any_op
    transform.apply_cse to %f : !transform.any_op
    transform.yield
  }
}

// -----

func.func @payload(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @tile(%op: !transform.any_op {transform.consumed}, %n: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    %t, %l = transform.structured.tile_using_forall %op num_threads [%n, 4, 0] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield %t : !transform.any_op
  }
  transform.named_sequence @packed(%op: !transform.any_op {transform.consumed}, %sizes: !transform.any_param {transform.readonly}) {
    %t, %l = transform.structured.tile_using_forall %op tile_sizes *(%sizes) : (!transform.any_op, !transform.any_param) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence private @external(!transform.any_op {transform.readonly})
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match interface{LinalgOp} attributes {foo} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant 8 : i64 -> !transform.param<i64>
    %r = transform.include @tile failures(propagate) (%mm, %p) : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.structured.vectorize %r vector_sizes [8, [16], 4] : !transform.any_op
    %v = transform.get_result %r[0] : (!transform.any_op) -> !transform.any_value
    %w = transform.get_operand %r[except(0, 1)] : (!transform.any_op) -> !transform.any_value
    %x = transform.get_operand %r[all] : (!transform.any_op) -> !transform.any_value
    %h:2 = transform.split_handle %r : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %m = transform.merge_handles deduplicate %h#0, %h#1 : !transform.any_op
    %g = transform.structured.generalize %m : (!transform.any_op) -> !transform.any_op
    %i = transform.structured.interchange %g iterator_interchange = [1, 0, 2] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

transform.sequence failures(propagate) {
^bb0(%arg0: !transform.any_op):
  %0 = transform.structured.match ops{["scf.for"]} in %arg0 : (!transform.any_op) -> !transform.any_op
  %1 = cast %0 : !transform.any_op to !transform.op<"scf.for">
  foreach %1 : !transform.op<"scf.for"> {
  ^bb1(%l: !transform.op<"scf.for">):
    transform.loop.unroll %l {factor = 2} : !transform.op<"scf.for">
  }
  %2 = sequence %arg0 : !transform.any_op -> !transform.any_op failures(suppress) {
  ^bb1(%a: !transform.any_op):
    yield %a : !transform.any_op
  }
  sequence %arg0, %2, %1 : (!transform.any_op, !transform.any_op, !transform.op<"scf.for">) failures(propagate) {
  ^bb1(%a: !transform.any_op, %b: !transform.any_op, %c: !transform.op<"scf.for">):
  }
  %lo, %hi, %sp = transform.structured.multitile_sizes %arg0 {dimension = 0, target_size = 4} : (!transform.any_op) -> !transform.param<i64>
  %ts, %cs = transform.structured.continuous_tile_sizes %arg0 {dimension = 1, target_size = 9} : (!transform.any_op) -> !transform.any_op
  transform.print %arg0 {name = "after"} : !transform.any_op
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_mm(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul", "linalg.batch_matmul"] : !transform.any_op
    %r = transform.match.structured %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %rank = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      %d = transform.match.structured.dim %s[0, -1] : (!transform.any_op) -> !transform.param<i64>
      transform.match.structured.input %s[all] : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %r : !transform.any_op
  }
  transform.named_sequence @act(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %u, %v = transform.foreach_match restrict_root in %root @match_mm -> @act, @act -> @act : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
