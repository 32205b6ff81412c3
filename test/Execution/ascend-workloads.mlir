// The 12 shared workloads at small shapes on the Ascend target: every strategy's result
// lowered to the ascend dialect and run by exec's interpreter of it (each core's UB a
// byte array, fp32 inside kernels), against the aten oracle. f32 on torch's recorded
// inputs and outputs (the reference is checked against torch too); f16 and bf16 by
// rewriting the imported graphs' element types, on seeded inputs, for the Inductor and
// GE AutoFuse decisions, whose RMS error against exact arithmetic (--accuracy) is never
// larger than eager PyTorch's (fp32 inside fused kernels, issue 17 item 4). fuse-run
// exits 1 on any FAIL, which fails the RUN line.

// RUN: fuse-import %S/Inputs/seed_10op_small.pt2 | fuse-run - --expect %S/Inputs/seed_10op_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/layernorm_small.pt2 | fuse-run - --expect %S/Inputs/layernorm_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/softmax_small.pt2 | fuse-run - --expect %S/Inputs/softmax_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/rmsnorm_small.pt2 | fuse-run - --expect %S/Inputs/rmsnorm_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/gelu_mlp_small.pt2 | fuse-run - --expect %S/Inputs/gelu_mlp_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/attention_small.pt2 | fuse-run - --expect %S/Inputs/attention_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/transformer_block_small.pt2 | fuse-run - --expect %S/Inputs/transformer_block_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/pointwise_chain_100_small.pt2 | fuse-run - --expect %S/Inputs/pointwise_chain_100_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/diamond_wide_small.pt2 | fuse-run - --expect %S/Inputs/diamond_wide_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/two_reductions_small.pt2 | fuse-run - --expect %S/Inputs/two_reductions_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/resnet_block_small.pt2 | fuse-run - --expect %S/Inputs/resnet_block_small.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/log_softmax_nll_small.pt2 | fuse-run - --expect %S/Inputs/log_softmax_nll_small.json --target ascend --jit | FileCheck %s

// RUN: fuse-import %S/Inputs/seed_10op_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/layernorm_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/softmax_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/rmsnorm_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/gelu_mlp_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/attention_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/transformer_block_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/pointwise_chain_100_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/diamond_wide_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/two_reductions_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/resnet_block_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/log_softmax_nll_small.pt2 | sed -e 's/xf32>/xf16>/g' -e 's/<f32>/<f16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF

// RUN: fuse-import %S/Inputs/seed_10op_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/layernorm_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/softmax_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/rmsnorm_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/gelu_mlp_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/attention_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/transformer_block_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/pointwise_chain_100_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/diamond_wide_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/two_reductions_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/resnet_block_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF
// RUN: fuse-import %S/Inputs/log_softmax_nll_small.pt2 | sed -e 's/xf32>/xbf16>/g' -e 's/<f32>/<bf16>/g' | fuse-run - --target ascend --jit --strategy inductor --strategy ascend --accuracy | FileCheck %s --check-prefix=HALF

// CHECK: reference {{.*}} PASS
// CHECK: unfused {{.*}} 0 mismatches  PASS
// CHECK: inductor {{.*}} 0 mismatches  PASS
// CHECK: tvm {{.*}} 0 mismatches  PASS
// CHECK: tvm-folded {{.*}} 0 mismatches  PASS
// CHECK: ascend {{.*}} 0 mismatches  PASS
// CHECK: ascend-mindspore {{.*}} 0 mismatches  PASS
// HALF: inductor {{.*}} PASS
// HALF: ascend {{.*}} PASS
// HALF: accuracy output #0 vs exact
// HALF-NOT: FAIL
// HALF-NOT: WORSE
