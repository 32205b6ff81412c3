// Kernel counts on the shared workloads after Inductor's pipeline for the GPU target, pinned against
// TorchInductor 2.11 on an H200 (../shared/anchors.md; extern kernels counted apart).
// Kernel names are fuselab's (fused_<sorted origins>_<n>, origins of decomposed
// composites are the composite's name: fused_layer_norm_0 where Inductor says
// native_layer_norm).

// Inductor: 1.
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=SEED10OP
// SEED10OP: "name": "fused_add_mean_mul_relu_sub_0"
// SEED10OP: "totals": {
// SEED10OP-NEXT: "kernels": 1,
// SEED10OP-NEXT: "extern_kernels": 0,

// Inductor: 1.
// RUN: fuse-opt %S/../../../examples/layernorm.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=LAYERNORM
// LAYERNORM: "name": "fused_layer_norm_0"
// LAYERNORM: "totals": {
// LAYERNORM-NEXT: "kernels": 1,
// LAYERNORM-NEXT: "extern_kernels": 0,

// Inductor: 1.
// RUN: fuse-opt %S/../../../examples/softmax.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX: "name": "fused_softmax_0"
// SOFTMAX: "totals": {
// SOFTMAX-NEXT: "kernels": 1,
// SOFTMAX-NEXT: "extern_kernels": 0,

// Inductor: 1.
// RUN: fuse-opt %S/../../../examples/rmsnorm.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=RMSNORM
// RMSNORM: "name": "fused_add_mean_mul_rsqrt_0"
// RMSNORM: "totals": {
// RMSNORM-NEXT: "kernels": 1,
// RMSNORM-NEXT: "extern_kernels": 0,

// Inductor: 1 (+2 mm).
// RUN: fuse-opt %S/../../../examples/gelu_mlp.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=GELUMLP
// GELUMLP: "name": "buf0"
// GELUMLP: "name": "fused_add_gelu_0"
// GELUMLP: "name": "buf2"
// GELUMLP: "totals": {
// GELUMLP-NEXT: "kernels": 1,
// GELUMLP-NEXT: "extern_kernels": 2,

// Inductor: 1 (+2 bmm).
// RUN: fuse-opt %S/../../../examples/attention.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=ATTENTION
// ATTENTION: "name": "buf0"
// ATTENTION: "name": "fused_div_softmax_0"
// ATTENTION: "name": "buf4"
// ATTENTION: "totals": {
// ATTENTION-NEXT: "kernels": 1,
// ATTENTION-NEXT: "extern_kernels": 2,

// Inductor: 9 (+mm/bmm): LN, QKV bias+split/permute copies x3, softmax, head-merge copy,
// residual+LN2, bias+gelu, bias+residual. fuselab: the same 9 kinds of kernel; the QKV
// bias folds into its addmm (its sum feeds views, not a pointwise op), so the three
// q/k/v copies are pure layout copies for the bmm inputs (a merged batch*heads dim has
// no single stride).
// RUN: fuse-opt %S/../../../examples/transformer_block.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=TRANSFORMERBLOCK
// TRANSFORMERBLOCK: "name": "fused_layer_norm_0"
// TRANSFORMERBLOCK: "name": "buf3"
// TRANSFORMERBLOCK: "name": "fused_clone_1"
// TRANSFORMERBLOCK: "name": "fused_clone_2"
// TRANSFORMERBLOCK: "name": "buf6"
// TRANSFORMERBLOCK: "name": "fused_div_softmax_3"
// TRANSFORMERBLOCK: "name": "fused_clone_4"
// TRANSFORMERBLOCK: "name": "buf11"
// TRANSFORMERBLOCK: "name": "fused_clone_5"
// TRANSFORMERBLOCK: "name": "buf13"
// TRANSFORMERBLOCK: "name": "fused_add_layer_norm_linear_6"
// TRANSFORMERBLOCK: "name": "buf17"
// TRANSFORMERBLOCK: "name": "fused_gelu_linear_7"
// TRANSFORMERBLOCK: "name": "buf19"
// TRANSFORMERBLOCK: "name": "fused_add_linear_8"
// TRANSFORMERBLOCK: "totals": {
// TRANSFORMERBLOCK-NEXT: "kernels": 9,
// TRANSFORMERBLOCK-NEXT: "extern_kernels": 6,

// Inductor: 1.
// RUN: fuse-opt %S/../../../examples/pointwise_chain_100.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=POINTWISECHAIN100
// POINTWISECHAIN100: "name": "fused_abs_add_exp_mul_neg_sin_0"
// POINTWISECHAIN100: "totals": {
// POINTWISECHAIN100-NEXT: "kernels": 1,
// POINTWISECHAIN100-NEXT: "extern_kernels": 0,

// Inductor: 1.
// RUN: fuse-opt %S/../../../examples/diamond_wide.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=DIAMONDWIDE
// DIAMONDWIDE: "name": "fused_add_cos_mul_sigmoid_sin_sum_tanh_0"
// DIAMONDWIDE: "totals": {
// DIAMONDWIDE-NEXT: "kernels": 1,
// DIAMONDWIDE-NEXT: "extern_kernels": 0,

// Inductor: 1.
// RUN: fuse-opt %S/../../../examples/two_reductions.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=TWOREDUCTIONS
// TWOREDUCTIONS: "name": "fused_add_div_mean_pow_sqrt_sub_0"
// TWOREDUCTIONS: "totals": {
// TWOREDUCTIONS-NEXT: "kernels": 1,
// TWOREDUCTIONS-NEXT: "extern_kernels": 0,

// Inductor: 2.
// RUN: fuse-opt %S/../../../examples/log_softmax_nll.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=LOGSOFTMAXNLL
// LOGSOFTMAXNLL: "name": "fused_log_softmax_0"
// LOGSOFTMAXNLL: "name": "fused_gather_log_softmax_mean_neg_1"
// LOGSOFTMAXNLL: "totals": {
// LOGSOFTMAXNLL-NEXT: "kernels": 2,
// LOGSOFTMAXNLL-NEXT: "extern_kernels": 0,

// Inductor: 4 kernels, 5 calls (+2 conv): the anchors' 2 affine+relu epilogues and 2
// layout-copy kernels, the weight copy called for w1 and for w2 (its output code on the
// H200, torch 2.11: triton_poi_fused_convolution_0 on x, triton_poi_fused_convolution_1
// on w1 and w2). fuselab: the same 5 launches.
// RUN: fuse-opt %S/../../../examples/resnet_block.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=RESNETBLOCK
// RESNETBLOCK: "name": "fused_convolution_0"
// RESNETBLOCK: "name": "fused_convolution_1"
// RESNETBLOCK: "name": "buf2"
// RESNETBLOCK: "name": "fused_add_mul_relu_2"
// RESNETBLOCK: "name": "fused_convolution_3"
// RESNETBLOCK: "name": "buf5"
// RESNETBLOCK: "name": "fused_add_mul_relu_4"
// RESNETBLOCK: "totals": {
// RESNETBLOCK-NEXT: "kernels": 5,
// RESNETBLOCK-NEXT: "extern_kernels": 2,
// The fused IR verifies and re-parses (loop.kernel / loop.output / loop.view structure).
// RUN: fuse-opt %S/../../../examples/transformer_block.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | fuse-opt --aten-verify-shapes | FileCheck %s --check-prefix=REPARSE
// RUN: fuse-opt %S/../../../examples/attention.mlir --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | fuse-opt --aten-verify-shapes | FileCheck %s --check-prefix=REPARSE
// REPARSE: "loop.kernel"
// REPARSE: return
