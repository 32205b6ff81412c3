// Group counts of --tvm-fuse-ops on the shared workloads, in TVM's op-per-binding form
// (--lower-aten-to-loop="materialize-views=true": every view is an op), against TVM Relax
// 0.27's figures in ../shared/research/tvm_rules.md. Kernels + extern kernels = launches =
// TVM's groups. The examples are written as torch.export spells them (4-D matmuls as view +
// bmm + view), so the export-form figures apply where they differ. The last RUN lines use
// fuselab's default lowering (views folded into index maps).

// TVM Relax 0.27: 2 ({..s}, {mean, s-m, *gamma, +beta}).
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SEED10OP
// SEED10OP: "name": "fused_mean_sub_mul_add
// SEED10OP: "totals": {
// SEED10OP-NEXT: "kernels": 2,
// SEED10OP-NEXT: "extern_kernels": 0,
// SEED10OP-NEXT: "launches": 2,

// TVM: 1 (layer_norm stays one op).
// RUN: fuse-opt %S/../../../examples/layernorm.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=LAYERNORM
// LAYERNORM: "name": "layer_norm
// LAYERNORM: "totals": {
// LAYERNORM-NEXT: "kernels": 1,
// LAYERNORM-NEXT: "extern_kernels": 0,
// LAYERNORM-NEXT: "launches": 1,

// TVM: 1 (softmax stays one op).
// RUN: fuse-opt %S/../../../examples/softmax.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX: "name": "softmax
// SOFTMAX: "totals": {
// SOFTMAX-NEXT: "kernels": 1,
// SOFTMAX-NEXT: "extern_kernels": 0,
// SOFTMAX-NEXT: "launches": 1,

// TVM: 2 ({x*x}, {mean, +eps, rsqrt, *, *w}).
// RUN: fuse-opt %S/../../../examples/rmsnorm.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RMSNORM
// RMSNORM: "name": "fused_mean_add_rsqrt_mul_mul
// RMSNORM: "totals": {
// RMSNORM-NEXT: "kernels": 2,
// RMSNORM-NEXT: "extern_kernels": 0,
// RMSNORM-NEXT: "launches": 2,

// TVM: 2 (matmul absorbs +b1 and gelu; the second matmul absorbs +b2). Both biases are
// folded into their addmm extern by the lowering on the CPU target (Inductor's C++ rule).
// RUN: fuse-opt %S/../../../examples/gelu_mlp.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=GELUMLP
// GELUMLP: "name": "fused_mm_gelu
// GELUMLP: "totals": {
// GELUMLP-NEXT: "kernels": 1,
// GELUMLP-NEXT: "extern_kernels": 1,
// GELUMLP-NEXT: "launches": 2,

// TVM on the export form: 9 (each reshape/permute is an op; matmuls do not absorb them).
// RUN: fuse-opt %S/../../../examples/attention.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=ATTENTION
// ATTENTION: "name": "fused_view_div
// ATTENTION: "totals": {
// ATTENTION-NEXT: "kernels": 7,
// ATTENTION-NEXT: "extern_kernels": 2,
// ATTENTION-NEXT: "launches": 9,

// TVM on the export form: 28, as TVM 0.27 on torch's own export (14 for the hand-built
// Relax graph). Relax imports select.int as take (a gather: kOpaque), so q, k and v are
// three kernels of their own.
// RUN: fuse-opt %S/../../../examples/transformer_block.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TRANSFORMERBLOCK
// TRANSFORMERBLOCK: "name": "select"
// TRANSFORMERBLOCK: "name": "select1"
// TRANSFORMERBLOCK: "name": "select2"
// TRANSFORMERBLOCK: "name": "fused_transpose_reshape"
// TRANSFORMERBLOCK: "totals": {
// TRANSFORMERBLOCK-NEXT: "kernels": 22,
// TRANSFORMERBLOCK-NEXT: "extern_kernels": 6,
// TRANSFORMERBLOCK-NEXT: "launches": 28,

// TVM: 1.
// RUN: fuse-opt %S/../../../examples/pointwise_chain_100.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=POINTWISECHAIN100
// POINTWISECHAIN100: "name": "fused_add_mul_sin_abs_neg_exp
// POINTWISECHAIN100: "totals": {
// POINTWISECHAIN100-NEXT: "kernels": 1,
// POINTWISECHAIN100-NEXT: "extern_kernels": 0,
// POINTWISECHAIN100-NEXT: "launches": 1,

// TVM: 1 (elementwise prologue fused into the pure reduction).
// RUN: fuse-opt %S/../../../examples/diamond_wide.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=DIAMONDWIDE
// DIAMONDWIDE: "name": "fused_mul_add_sin
// DIAMONDWIDE: "totals": {
// DIAMONDWIDE-NEXT: "kernels": 1,
// DIAMONDWIDE-NEXT: "extern_kernels": 0,
// DIAMONDWIDE-NEXT: "launches": 1,

// TVM: 3 ({mean}, {x-m, pow}, {mean, +eps, sqrt, x-m, /}).
// RUN: fuse-opt %S/../../../examples/two_reductions.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TWOREDUCTIONS
// TWOREDUCTIONS: "name": "fused_mean_add_sqrt_sub_div
// TWOREDUCTIONS: "totals": {
// TWOREDUCTIONS-NEXT: "kernels": 3,
// TWOREDUCTIONS-NEXT: "extern_kernels": 0,
// TWOREDUCTIONS-NEXT: "launches": 3,

// TVM on the export form: 6 (4 reshape ops of the BN parameters stay alone).
// RUN: fuse-opt %S/../../../examples/resnet_block.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true channels-last=false" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RESNETBLOCK
// RESNETBLOCK: "name": "fused_convolution_mul_add_add_relu
// RESNETBLOCK: "totals": {
// RESNETBLOCK-NEXT: "kernels": 6,
// RESNETBLOCK-NEXT: "extern_kernels": 0,
// RESNETBLOCK-NEXT: "launches": 6,

// TVM on the export form: 5, and fuselab 5: gather reads an index loaded at run time,
// which TVM 0.27's AnnotateTIROpPattern makes kOpaque, so unsqueeze, gather and squeeze
// stay apart.
// RUN: fuse-opt %S/../../../examples/log_softmax_nll.mlir --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=LOGSOFTMAXNLL
// LOGSOFTMAXNLL: "name": "gather"
// LOGSOFTMAXNLL: "name": "fused_mean_neg
// LOGSOFTMAXNLL: "totals": {
// LOGSOFTMAXNLL-NEXT: "kernels": 5,
// LOGSOFTMAXNLL-NEXT: "extern_kernels": 0,
// LOGSOFTMAXNLL-NEXT: "launches": 5,

// Default lowering: views are index maps, so attention has no reshape ops: {bmm},
// {div} (it reads the bmm result through a reshape, so it is kInjective and the bmm cannot
// absorb it), {softmax}, {bmm}.
// RUN: fuse-opt %S/../../../examples/attention.mlir --aten-decompose --lower-aten-to-loop --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=FOLDED-ATTENTION
// FOLDED-ATTENTION: "totals": {
// FOLDED-ATTENTION-NEXT: "kernels": 2,
// FOLDED-ATTENTION-NEXT: "extern_kernels": 2,
// FOLDED-ATTENTION-NEXT: "launches": 4,

// RUN: fuse-opt %S/../../../examples/resnet_block.mlir --aten-decompose --lower-aten-to-loop=channels-last=false --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=FOLDED-RESNET
// FOLDED-RESNET: "totals": {
// FOLDED-RESNET-NEXT: "kernels": 2,
// FOLDED-RESNET-NEXT: "extern_kernels": 0,
// FOLDED-RESNET-NEXT: "launches": 2,

// transformer_block with views folded: 14 groups, the count TVM gives for the hand-built
// Relax graph (no reshape ops between the matmuls).
// RUN: fuse-opt %S/../../../examples/transformer_block.mlir --aten-decompose --lower-aten-to-loop --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=FOLDED-TRANSFORMER
// FOLDED-TRANSFORMER: "totals": {
// FOLDED-TRANSFORMER-NEXT: "kernels": 10,
// FOLDED-TRANSFORMER-NEXT: "extern_kernels": 4,
// FOLDED-TRANSFORMER-NEXT: "launches": 14,

// --fusion-explain: why s = p + q does not join s - m.
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --tvm-fuse-ops --fusion-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// EXPLAIN: seed_10op.mlir:13:8: remark: not fusing buf5 with buf8: an elementwise op fuses only into an injective or reduction post-dominator; the dominance pattern is kOutEWiseFusable

// Relay's registry (mean is kCommReduce): the seed article's 3 groups.
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --tvm-fuse-ops="mode=relay" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=RELAY
// RELAY: "name": "fused_mul_add_relu_mul_mul_add"
// RELAY: "name": "mean"
// RELAY: "name": "fused_sub_mul_add"
// RELAY: "totals": {
// RELAY-NEXT: "kernels": 3,

// The depth limit counted as TVM counts it: a 1,000-op elementwise chain splits into
// 4 groups at max-depth 256 (256 + 256 + 256 + 232) and 16 at 64.
// RUN: fuse-opt %S/Inputs/chain-1000.mlir --lower-aten-to-loop --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=DEPTH256
// DEPTH256: "totals": {
// DEPTH256-NEXT: "kernels": 4,
// RUN: fuse-opt %S/Inputs/chain-1000.mlir --lower-aten-to-loop --tvm-fuse-ops="max-depth=64" --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=DEPTH64
// DEPTH64: "totals": {
// DEPTH64-NEXT: "kernels": 16,
