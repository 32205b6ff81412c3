// Every bundled workload (examples/, the aten versions of ../shared/workloads/workloads.py)
// parses, passes fuselab's verifiers, prints, and parses again; upstream mlir-opt
// accepts each one with the aten IRDL file.

// RUN: fuse-opt %S/../../examples/seed_10op.mlir | fuse-opt | FileCheck %s --check-prefix=SEED10OP
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/seed_10op.mlir | FileCheck %s --check-prefix=SEED10OP
// SEED10OP-LABEL: func.func @seed_10op(%arg0: tensor<1024x1024xf32>, %arg1: tensor<1024xf32>, %arg2: tensor<1024xf32>, %arg3: tensor<1024xf32>) -> tensor<1024x1024xf32>
// SEED10OP: "aten.mul"
// SEED10OP: "aten.add"
// SEED10OP: "aten.relu"
// SEED10OP: "aten.mul"
// SEED10OP: "aten.mul"
// SEED10OP: "aten.add"
// SEED10OP: "aten.mean"(%{{.*}}) {dims = array<i64: 1>, keepdim = true}
// SEED10OP: "aten.sub"
// SEED10OP: "aten.mul"
// SEED10OP: "aten.add"
// SEED10OP: return

// RUN: fuse-opt %S/../../examples/layernorm.mlir | fuse-opt | FileCheck %s --check-prefix=LAYERNORM
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/layernorm.mlir | FileCheck %s --check-prefix=LAYERNORM
// LAYERNORM-LABEL: func.func @layernorm(%arg0: tensor<4096x1024xf32>
// LAYERNORM: "aten.layer_norm"(%arg0, %arg1, %arg2) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 1024>}
// LAYERNORM: return

// RUN: fuse-opt %S/../../examples/softmax.mlir | fuse-opt | FileCheck %s --check-prefix=SOFTMAX
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/softmax.mlir | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX-LABEL: func.func @softmax(%arg0: tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
// SOFTMAX: "aten.softmax"(%arg0) {dim = -1 : i64}
// SOFTMAX: return

// RUN: fuse-opt %S/../../examples/rmsnorm.mlir | fuse-opt | FileCheck %s --check-prefix=RMSNORM
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/rmsnorm.mlir | FileCheck %s --check-prefix=RMSNORM
// RMSNORM-LABEL: func.func @rmsnorm(%arg0: tensor<4096x4096xf32>, %arg1: tensor<4096xf32>)
// RMSNORM: "aten.mul"
// RMSNORM: "aten.mean"
// RMSNORM: "aten.add"
// RMSNORM: "aten.rsqrt"
// RMSNORM: "aten.mul"
// RMSNORM: "aten.mul"
// RMSNORM: return

// RUN: fuse-opt %S/../../examples/gelu_mlp.mlir | fuse-opt | FileCheck %s --check-prefix=GELUMLP
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/gelu_mlp.mlir | FileCheck %s --check-prefix=GELUMLP
// GELUMLP-LABEL: func.func @gelu_mlp(%arg0: tensor<2048x1024xf32>, %arg1: tensor<1024x4096xf32>
// GELUMLP: "aten.mm"
// GELUMLP: "aten.add"
// GELUMLP: "aten.gelu"(%{{.*}}) {approximate = "none"}
// GELUMLP: "aten.mm"
// GELUMLP: "aten.add"
// GELUMLP: return

// RUN: fuse-opt %S/../../examples/attention.mlir | fuse-opt | FileCheck %s --check-prefix=ATTENTION
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/attention.mlir | FileCheck %s --check-prefix=ATTENTION
// ATTENTION-LABEL: func.func @attention(%arg0: tensor<8x16x512x64xf32>
// ATTENTION: "aten.bmm"
// ATTENTION: "aten.div"
// ATTENTION: "aten.softmax"
// ATTENTION: "aten.bmm"
// ATTENTION: -> tensor<8x16x512x64xf32>
// ATTENTION: return

// RUN: fuse-opt %S/../../examples/transformer_block.mlir | fuse-opt | FileCheck %s --check-prefix=TRANSFORMERBLOCK
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/transformer_block.mlir | FileCheck %s --check-prefix=TRANSFORMERBLOCK
// TRANSFORMERBLOCK-LABEL: func.func @transformer_block(%arg0: tensor<8x512x768xf32>
// TRANSFORMERBLOCK: "aten.layer_norm"
// TRANSFORMERBLOCK: "aten.linear"
// TRANSFORMERBLOCK: "aten.permute"
// TRANSFORMERBLOCK: "aten.select"
// TRANSFORMERBLOCK: "aten.bmm"
// TRANSFORMERBLOCK: "aten.softmax"
// TRANSFORMERBLOCK: "aten.bmm"
// TRANSFORMERBLOCK: "aten.linear"
// TRANSFORMERBLOCK: "aten.layer_norm"
// TRANSFORMERBLOCK: "aten.gelu"
// TRANSFORMERBLOCK: "aten.linear"
// TRANSFORMERBLOCK: "aten.add"
// TRANSFORMERBLOCK: return

// RUN: fuse-opt %S/../../examples/pointwise_chain_100.mlir | fuse-opt | FileCheck %s --check-prefix=POINTWISECHAIN100
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/pointwise_chain_100.mlir | FileCheck %s --check-prefix=POINTWISECHAIN100
// POINTWISECHAIN100-LABEL: func.func @pointwise_chain_100(%arg0: tensor<1024x1024xf32>)
// POINTWISECHAIN100-COUNT-100: "aten.{{add|mul|sin|abs|neg|exp}}"
// POINTWISECHAIN100-NOT: "aten.
// POINTWISECHAIN100: return

// RUN: fuse-opt %S/../../examples/diamond_wide.mlir | fuse-opt | FileCheck %s --check-prefix=DIAMONDWIDE
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/diamond_wide.mlir | FileCheck %s --check-prefix=DIAMONDWIDE
// DIAMONDWIDE-LABEL: func.func @diamond_wide(%arg0: tensor<1024x1024xf32>) -> tensor<1024xf32>
// DIAMONDWIDE: "aten.sum"(%{{.*}}) {dims = array<i64: -1>, keepdim = false}
// DIAMONDWIDE: return

// RUN: fuse-opt %S/../../examples/two_reductions.mlir | fuse-opt | FileCheck %s --check-prefix=TWOREDUCTIONS
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/two_reductions.mlir | FileCheck %s --check-prefix=TWOREDUCTIONS
// TWOREDUCTIONS-LABEL: func.func @two_reductions(%arg0: tensor<4096x1024xf32>)
// TWOREDUCTIONS: "aten.mean"
// TWOREDUCTIONS: "aten.sub"
// TWOREDUCTIONS: "aten.pow"
// TWOREDUCTIONS: "aten.mean"
// TWOREDUCTIONS: "aten.add"
// TWOREDUCTIONS: "aten.sqrt"
// TWOREDUCTIONS: "aten.sub"
// TWOREDUCTIONS: "aten.div"
// TWOREDUCTIONS: return

// RUN: fuse-opt %S/../../examples/resnet_block.mlir | fuse-opt | FileCheck %s --check-prefix=RESNETBLOCK
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/resnet_block.mlir | FileCheck %s --check-prefix=RESNETBLOCK
// RESNETBLOCK-LABEL: func.func @resnet_block(%arg0: tensor<8x64x56x56xf32>
// RESNETBLOCK: "aten.convolution"
// RESNETBLOCK: "aten.relu"
// RESNETBLOCK: "aten.convolution"
// RESNETBLOCK: "aten.relu"
// RESNETBLOCK: return

// RUN: fuse-opt %S/../../examples/log_softmax_nll.mlir | fuse-opt | FileCheck %s --check-prefix=LOGSOFTMAXNLL
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/../../examples/log_softmax_nll.mlir | FileCheck %s --check-prefix=LOGSOFTMAXNLL
// LOGSOFTMAXNLL-LABEL: func.func @log_softmax_nll(%arg0: tensor<4096x1000xf32>, %arg1: tensor<4096xi64>) -> tensor<f32>
// LOGSOFTMAXNLL: "aten.log_softmax"
// LOGSOFTMAXNLL: "aten.unsqueeze"
// LOGSOFTMAXNLL: "aten.gather"
// LOGSOFTMAXNLL: "aten.squeeze"
// LOGSOFTMAXNLL: "aten.mean"
// LOGSOFTMAXNLL: "aten.neg"
// LOGSOFTMAXNLL: return
