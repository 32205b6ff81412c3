// Pipelines that cannot mean what they say are refused with the right spelling
// (issue 14, item 9): TVM's FuseOps on a graph that --inline-pointwise already changed
// (it silently fused nothing on the seed), and deciding in another mode than the ops
// were annotated in (it silently ran relax after mode=relay annotations).
// RUN: not fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --tvm-fuse-ops -o /dev/null 2>&1 | FileCheck %s --check-prefix=INLINED
// RUN: not fuse-opt %s --aten-decompose --lower-aten-to-loop --annotate-op-pattern=mode=relay --tvm-fuse-ops -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --annotate-op-pattern=mode=relay --tvm-fuse-ops=mode=relay --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SAME
// INLINED: pipeline-errors.mlir:[[@LINE+4]]:1: error: cannot decide the fusion: buf{{[0-9]+}} computes {{.*}} inlined by --inline-pointwise, but TVM's FuseOps fuses ops as written: run --tvm-fuse-ops on the output of --lower-aten-to-loop (drop --inline-pointwise), or use --fuse=strategy=tvm
// MODE: error: cannot decide the fusion: the ops were annotated with --annotate-op-pattern=mode=relay; decide in the same mode with --tvm-fuse-ops=mode=relay (or annotate with mode=relax)
// SAME: "strategy": "tvm"
// SAME: "kernels":
func.func @seed(%x: tensor<8x16xf32>, %w: tensor<16xf32>) -> tensor<8x16xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %0 = "aten.mul"(%x, %c) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %1 = "aten.relu"(%0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %2 = "aten.mean"(%1) {dims = array<i64: 1>, keepdim = true} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %3 = "aten.sub"(%1, %2) : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  %4 = "aten.mul"(%3, %w) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %4 : tensor<8x16xf32>
}
