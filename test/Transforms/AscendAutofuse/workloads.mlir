// Kernel counts of --ascend-autofuse on the shared workloads (docs/strategies/ascend.md's
// table): GE's default switches (reductions, transposes, slices, gathers and concats
// unfused), then every fusion pass on. Kernels + extern kernels = launches.
// Worked by hand for seed_10op (4: the pointwise chain, the sum, its division, the
// epilogue) and softmax (4: amax, sub+exp, sum, div -- div reads exp and sum, and
// joining it to exp would route exp -> sum -> div outside the kernel: a cycle); the
// rest pin the decision.

// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SEED10OP
// SEED10OP: "totals": {
// SEED10OP-NEXT: "kernels": 4,
// SEED10OP-NEXT: "extern_kernels": 0,
// SEED10OP-NEXT: "launches": 4,

// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SEED10OPALL
// SEED10OPALL: "totals": {
// SEED10OPALL-NEXT: "kernels": 1,
// SEED10OPALL-NEXT: "extern_kernels": 0,
// SEED10OPALL-NEXT: "launches": 1,

// RUN: fuse-opt %S/../../../examples/layernorm.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=LAYERNORM
// LAYERNORM: "totals": {
// LAYERNORM-NEXT: "kernels": 6,
// LAYERNORM-NEXT: "extern_kernels": 0,
// LAYERNORM-NEXT: "launches": 6,

// RUN: fuse-opt %S/../../../examples/layernorm.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=LAYERNORMALL
// LAYERNORMALL: "totals": {
// LAYERNORMALL-NEXT: "kernels": 1,
// LAYERNORMALL-NEXT: "extern_kernels": 0,
// LAYERNORMALL-NEXT: "launches": 1,

// RUN: fuse-opt %S/../../../examples/softmax.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX: "totals": {
// SOFTMAX-NEXT: "kernels": 4,
// SOFTMAX-NEXT: "extern_kernels": 0,
// SOFTMAX-NEXT: "launches": 4,

// RUN: fuse-opt %S/../../../examples/softmax.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SOFTMAXALL
// SOFTMAXALL: "totals": {
// SOFTMAXALL-NEXT: "kernels": 1,
// SOFTMAXALL-NEXT: "extern_kernels": 0,
// SOFTMAXALL-NEXT: "launches": 1,

// RUN: fuse-opt %S/../../../examples/rmsnorm.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RMSNORM
// RMSNORM: "totals": {
// RMSNORM-NEXT: "kernels": 4,
// RMSNORM-NEXT: "extern_kernels": 0,
// RMSNORM-NEXT: "launches": 4,

// RUN: fuse-opt %S/../../../examples/rmsnorm.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RMSNORMALL
// RMSNORMALL: "totals": {
// RMSNORMALL-NEXT: "kernels": 1,
// RMSNORMALL-NEXT: "extern_kernels": 0,
// RMSNORMALL-NEXT: "launches": 1,

// RUN: fuse-opt %S/../../../examples/two_reductions.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TWOREDUCTIONS
// TWOREDUCTIONS: "totals": {
// TWOREDUCTIONS-NEXT: "kernels": 6,
// TWOREDUCTIONS-NEXT: "extern_kernels": 0,
// TWOREDUCTIONS-NEXT: "launches": 6,

// RUN: fuse-opt %S/../../../examples/two_reductions.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TWOREDUCTIONSALL
// TWOREDUCTIONSALL: "totals": {
// TWOREDUCTIONSALL-NEXT: "kernels": 1,
// TWOREDUCTIONSALL-NEXT: "extern_kernels": 0,
// TWOREDUCTIONSALL-NEXT: "launches": 1,

// RUN: fuse-opt %S/../../../examples/log_softmax_nll.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=LOGSOFTMAXNLL
// LOGSOFTMAXNLL: "totals": {
// LOGSOFTMAXNLL-NEXT: "kernels": 10,
// LOGSOFTMAXNLL-NEXT: "extern_kernels": 0,
// LOGSOFTMAXNLL-NEXT: "launches": 10,

// RUN: fuse-opt %S/../../../examples/log_softmax_nll.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=LOGSOFTMAXNLLALL
// LOGSOFTMAXNLLALL: "totals": {
// LOGSOFTMAXNLLALL-NEXT: "kernels": 2,
// LOGSOFTMAXNLLALL-NEXT: "extern_kernels": 0,
// LOGSOFTMAXNLLALL-NEXT: "launches": 2,

// RUN: fuse-opt %S/../../../examples/pointwise_chain_100.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=POINTWISECHAIN100
// POINTWISECHAIN100: "totals": {
// POINTWISECHAIN100-NEXT: "kernels": 2,
// POINTWISECHAIN100-NEXT: "extern_kernels": 0,
// POINTWISECHAIN100-NEXT: "launches": 2,

// RUN: fuse-opt %S/../../../examples/pointwise_chain_100.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=POINTWISECHAIN100ALL
// POINTWISECHAIN100ALL: "totals": {
// POINTWISECHAIN100ALL-NEXT: "kernels": 2,
// POINTWISECHAIN100ALL-NEXT: "extern_kernels": 0,
// POINTWISECHAIN100ALL-NEXT: "launches": 2,

// RUN: fuse-opt %S/../../../examples/diamond_wide.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=DIAMONDWIDE
// DIAMONDWIDE: "totals": {
// DIAMONDWIDE-NEXT: "kernels": 2,
// DIAMONDWIDE-NEXT: "extern_kernels": 0,
// DIAMONDWIDE-NEXT: "launches": 2,

// RUN: fuse-opt %S/../../../examples/diamond_wide.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=DIAMONDWIDEALL
// DIAMONDWIDEALL: "totals": {
// DIAMONDWIDEALL-NEXT: "kernels": 1,
// DIAMONDWIDEALL-NEXT: "extern_kernels": 0,
// DIAMONDWIDEALL-NEXT: "launches": 1,

// RUN: fuse-opt %S/../../../examples/gelu_mlp.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=GELUMLP
// GELUMLP: "totals": {
// GELUMLP-NEXT: "kernels": 1,
// GELUMLP-NEXT: "extern_kernels": 2,
// GELUMLP-NEXT: "launches": 3,

// RUN: fuse-opt %S/../../../examples/gelu_mlp.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=GELUMLPALL
// GELUMLPALL: "totals": {
// GELUMLPALL-NEXT: "kernels": 1,
// GELUMLPALL-NEXT: "extern_kernels": 2,
// GELUMLPALL-NEXT: "launches": 3,

// RUN: fuse-opt %S/../../../examples/attention.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=ATTENTION
// ATTENTION: "totals": {
// ATTENTION-NEXT: "kernels": 10,
// ATTENTION-NEXT: "extern_kernels": 2,
// ATTENTION-NEXT: "launches": 12,

// RUN: fuse-opt %S/../../../examples/attention.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=ATTENTIONALL
// ATTENTIONALL: "totals": {
// ATTENTIONALL-NEXT: "kernels": 5,
// ATTENTIONALL-NEXT: "extern_kernels": 2,
// ATTENTIONALL-NEXT: "launches": 7,

// RUN: fuse-opt %S/../../../examples/resnet_block.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true channels-last=false" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RESNETBLOCK
// RESNETBLOCK: "totals": {
// RESNETBLOCK-NEXT: "kernels": 6,
// RESNETBLOCK-NEXT: "extern_kernels": 2,
// RESNETBLOCK-NEXT: "launches": 8,

// RUN: fuse-opt %S/../../../examples/resnet_block.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true channels-last=false" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RESNETBLOCKALL
// RESNETBLOCKALL: "totals": {
// RESNETBLOCKALL-NEXT: "kernels": 6,
// RESNETBLOCKALL-NEXT: "extern_kernels": 2,
// RESNETBLOCKALL-NEXT: "launches": 8,

// RUN: fuse-opt %S/../../../examples/transformer_block.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TRANSFORMERBLOCK
// TRANSFORMERBLOCK: "totals": {
// TRANSFORMERBLOCK-NEXT: "kernels": 36,
// TRANSFORMERBLOCK-NEXT: "extern_kernels": 6,
// TRANSFORMERBLOCK-NEXT: "launches": 42,

// RUN: fuse-opt %S/../../../examples/transformer_block.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse="flags='--autofuse_enable_pass=reduce,concat,slice,gather,transpose'" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TRANSFORMERBLOCKALL
// TRANSFORMERBLOCKALL: "totals": {
// TRANSFORMERBLOCKALL-NEXT: "kernels": 12,
// TRANSFORMERBLOCKALL-NEXT: "extern_kernels": 6,
// TRANSFORMERBLOCKALL-NEXT: "launches": 18,

// MindSpore's split patterns (mode=mindspore).

// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SEED10OPMS
// SEED10OPMS: "totals": {
// SEED10OPMS-NEXT: "kernels": 2,
// SEED10OPMS-NEXT: "extern_kernels": 0,
// SEED10OPMS-NEXT: "launches": 2,

// RUN: fuse-opt %S/../../../examples/layernorm.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=LAYERNORMMS
// LAYERNORMMS: "totals": {
// LAYERNORMMS-NEXT: "kernels": 3,
// LAYERNORMMS-NEXT: "extern_kernels": 0,
// LAYERNORMMS-NEXT: "launches": 3,

// RUN: fuse-opt %S/../../../examples/softmax.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SOFTMAXMS
// SOFTMAXMS: "totals": {
// SOFTMAXMS-NEXT: "kernels": 3,
// SOFTMAXMS-NEXT: "extern_kernels": 0,
// SOFTMAXMS-NEXT: "launches": 3,

// RUN: fuse-opt %S/../../../examples/rmsnorm.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RMSNORMMS
// RMSNORMMS: "totals": {
// RMSNORMMS-NEXT: "kernels": 2,
// RMSNORMMS-NEXT: "extern_kernels": 0,
// RMSNORMMS-NEXT: "launches": 2,

// RUN: fuse-opt %S/../../../examples/two_reductions.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TWOREDUCTIONSMS
// TWOREDUCTIONSMS: "totals": {
// TWOREDUCTIONSMS-NEXT: "kernels": 3,
// TWOREDUCTIONSMS-NEXT: "extern_kernels": 0,
// TWOREDUCTIONSMS-NEXT: "launches": 3,

// RUN: fuse-opt %S/../../../examples/log_softmax_nll.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=LOGSOFTMAXNLLMS
// LOGSOFTMAXNLLMS: "totals": {
// LOGSOFTMAXNLLMS-NEXT: "kernels": 7,
// LOGSOFTMAXNLLMS-NEXT: "extern_kernels": 0,
// LOGSOFTMAXNLLMS-NEXT: "launches": 7,

// RUN: fuse-opt %S/../../../examples/pointwise_chain_100.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=POINTWISECHAIN100MS
// POINTWISECHAIN100MS: "totals": {
// POINTWISECHAIN100MS-NEXT: "kernels": 1,
// POINTWISECHAIN100MS-NEXT: "extern_kernels": 0,
// POINTWISECHAIN100MS-NEXT: "launches": 1,

// RUN: fuse-opt %S/../../../examples/diamond_wide.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=DIAMONDWIDEMS
// DIAMONDWIDEMS: "totals": {
// DIAMONDWIDEMS-NEXT: "kernels": 2,
// DIAMONDWIDEMS-NEXT: "extern_kernels": 0,
// DIAMONDWIDEMS-NEXT: "launches": 2,

// RUN: fuse-opt %S/../../../examples/gelu_mlp.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=GELUMLPMS
// GELUMLPMS: "totals": {
// GELUMLPMS-NEXT: "kernels": 1,
// GELUMLPMS-NEXT: "extern_kernels": 2,
// GELUMLPMS-NEXT: "launches": 3,

// RUN: fuse-opt %S/../../../examples/attention.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=ATTENTIONMS
// ATTENTIONMS: "totals": {
// ATTENTIONMS-NEXT: "kernels": 8,
// ATTENTIONMS-NEXT: "extern_kernels": 2,
// ATTENTIONMS-NEXT: "launches": 10,

// RUN: fuse-opt %S/../../../examples/resnet_block.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true channels-last=false" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RESNETBLOCKMS
// RESNETBLOCKMS: "totals": {
// RESNETBLOCKMS-NEXT: "kernels": 2,
// RESNETBLOCKMS-NEXT: "extern_kernels": 2,
// RESNETBLOCKMS-NEXT: "launches": 4,

// RUN: fuse-opt %S/../../../examples/transformer_block.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --ascend-autofuse=mode=mindspore --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TRANSFORMERBLOCKMS
// TRANSFORMERBLOCKMS: "totals": {
// TRANSFORMERBLOCKMS-NEXT: "kernels": 28,
// TRANSFORMERBLOCKMS-NEXT: "extern_kernels": 6,
// TRANSFORMERBLOCKMS-NEXT: "launches": 34,
