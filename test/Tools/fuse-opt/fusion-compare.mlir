// RUN: fuse-opt --fusion-compare %S/../../../examples/seed_10op.mlir | FileCheck %s --check-prefix=SEED
// RUN: fuse-opt --fusion-compare=json %S/../../../examples/gelu_mlp.mlir | FileCheck %s --check-prefix=JSON
// RUN: not fuse-opt --fusion-compare --inductor-fuse %S/../../../examples/seed_10op.mlir 2>&1 | FileCheck %s --check-prefix=WITHPASS
// RUN: not fuse-opt --fusion-compare=xml %S/../../../examples/seed_10op.mlir 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not fuse-opt --fusion-compare %s 2>&1 | FileCheck %s --check-prefix=BADOP
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --fuse="strategy=tvm" | FileCheck %s --check-prefix=FUSETVM
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --fuse | FileCheck %s --check-prefix=FUSEINDUCTOR
// RUN: not fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --fuse="strategy=xla" 2>&1 | FileCheck %s --check-prefix=FUSEBAD

// One row per strategy on the same input, next to the eager baseline. On the seed model
// Inductor makes 1 kernel moving 8 MiB; TVM (Relax) 2 kernels moving 16 MiB.
// SEED: // Fusion comparison of @seed_10op
// The columns are aligned (FileCheck sees runs of spaces).
// SEED-NEXT: strategy{{[ ]+}}kernels{{[ ]+}}extern{{[ ]+}}launches{{[ ]+}}HBM{{[ ]+}}read{{[ ]+}}HBM{{[ ]+}}written{{[ ]+}}HBM{{[ ]+}}total{{[ ]+}}largest{{[ ]+}}fusion{{[ ]+}}time
// SEED-NEXT: eager{{[ ]+}}10{{[ ]+}}-{{[ ]+}}10{{[ ]+}}44.02{{[ ]+}}MiB{{[ ]+}}36.00{{[ ]+}}MiB{{[ ]+}}80.02{{[ ]+}}MiB{{[ ]+}}1{{[ ]+}}-
// SEED-NEXT: inductor{{[ ]+}}1{{[ ]+}}0{{[ ]+}}1{{[ ]+}}4.01{{[ ]+}}MiB{{[ ]+}}4.00{{[ ]+}}MiB{{[ ]+}}8.01{{[ ]+}}MiB{{[ ]+}}2{{[ ]+}}{{[0-9.]+}}{{[ ]+}}ms
// SEED-NEXT: tvm{{[ ]+}}2{{[ ]+}}0{{[ ]+}}2{{[ ]+}}8.01{{[ ]+}}MiB{{[ ]+}}8.00{{[ ]+}}MiB{{[ ]+}}16.01{{[ ]+}}MiB{{[ ]+}}6{{[ ]+}}{{[0-9.]+}}{{[ ]+}}ms

// gelu_mlp: Inductor keeps both matmuls as library calls (1 kernel + 2 extern); TVM's
// matmul absorbs the bias add and gelu (its kOutEWiseFusable epilogue).
// JSON: "function": "gelu_mlp"
// JSON: "strategy": "eager",
// JSON: "strategy": "inductor",
// JSON-NEXT: "kernels": 1,
// JSON-NEXT: "extern_kernels": 2,
// JSON-NEXT: "launches": 3,
// JSON: "strategy": "tvm",
// JSON-NEXT: "kernels": 1,
// JSON-NEXT: "extern_kernels": 1,
// JSON-NEXT: "launches": 2,
// JSON: "fusion_time_s": {{[0-9.e-]+}}

// WITHPASS: fuse-opt: error: --fusion-compare runs its own pipelines; it cannot be combined with pass flags
// FORMAT: fuse-opt: error: --fusion-compare expects 'text', 'json' or 'html', got 'xml'
// BADOP: fusion-compare.mlir:[[@LINE+2]]:8: error: unregistered operation 'aten.frobnicate'
func.func @bad(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// FUSETVM: name = "fused_mul_add_relu_mul_mul_add", strategy = "tvm"
// FUSETVM: name = "fused_mean_sub_mul_add", strategy = "tvm"
// FUSEINDUCTOR: name = "fused_add_mean_mul_relu_sub_0", strategy = "inductor"
// FUSEBAD: error: unknown fusion strategy 'xla' (expected one of: inductor, tvm, tvm-folded, ascend, ascend-mindspore)
