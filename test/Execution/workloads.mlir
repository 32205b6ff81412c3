// The 12 shared workloads at small shapes, exported by torch.export with torch's own
// outputs for seeded inputs (tools/export_fixtures.py): imported, then run by fuse-run on
// those inputs. 'reference' checks the aten interpreter against PyTorch; every strategy
// (unfused, inductor, tvm, tvm-folded) is checked against the reference. fuse-run exits 1
// on any FAIL, which fails the RUN line.

// RUN: fuse-import %S/Inputs/seed_10op_small.pt2 | fuse-run - --expect %S/Inputs/seed_10op_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/layernorm_small.pt2 | fuse-run - --expect %S/Inputs/layernorm_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/softmax_small.pt2 | fuse-run - --expect %S/Inputs/softmax_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/rmsnorm_small.pt2 | fuse-run - --expect %S/Inputs/rmsnorm_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/gelu_mlp_small.pt2 | fuse-run - --expect %S/Inputs/gelu_mlp_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/attention_small.pt2 | fuse-run - --expect %S/Inputs/attention_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/transformer_block_small.pt2 | fuse-run - --expect %S/Inputs/transformer_block_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/pointwise_chain_100_small.pt2 | fuse-run - --expect %S/Inputs/pointwise_chain_100_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/diamond_wide_small.pt2 | fuse-run - --expect %S/Inputs/diamond_wide_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/two_reductions_small.pt2 | fuse-run - --expect %S/Inputs/two_reductions_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/resnet_block_small.pt2 | fuse-run - --expect %S/Inputs/resnet_block_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/log_softmax_nll_small.pt2 | fuse-run - --expect %S/Inputs/log_softmax_nll_small.json | FileCheck %s

// The same, with every strategy's result compiled (CPU code generation, LLVM JIT).
// RUN: fuse-import %S/Inputs/seed_10op_small.pt2 | fuse-run - --jit --expect %S/Inputs/seed_10op_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/layernorm_small.pt2 | fuse-run - --jit --expect %S/Inputs/layernorm_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/softmax_small.pt2 | fuse-run - --jit --expect %S/Inputs/softmax_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/rmsnorm_small.pt2 | fuse-run - --jit --expect %S/Inputs/rmsnorm_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/gelu_mlp_small.pt2 | fuse-run - --jit --expect %S/Inputs/gelu_mlp_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/attention_small.pt2 | fuse-run - --jit --expect %S/Inputs/attention_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/transformer_block_small.pt2 | fuse-run - --jit --expect %S/Inputs/transformer_block_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/pointwise_chain_100_small.pt2 | fuse-run - --jit --expect %S/Inputs/pointwise_chain_100_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/diamond_wide_small.pt2 | fuse-run - --jit --expect %S/Inputs/diamond_wide_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/two_reductions_small.pt2 | fuse-run - --jit --expect %S/Inputs/two_reductions_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/resnet_block_small.pt2 | fuse-run - --jit --expect %S/Inputs/resnet_block_small.json | FileCheck %s
// RUN: fuse-import %S/Inputs/log_softmax_nll_small.pt2 | fuse-run - --jit --expect %S/Inputs/log_softmax_nll_small.json | FileCheck %s

// CHECK: @forward (seed 0; reference: aten interpreter)
// CHECK: reference {{.*}} 0 mismatches  PASS
// CHECK: unfused {{.*}} 0 mismatches  PASS
// CHECK: inductor {{.*}} 0 mismatches  PASS
// CHECK: tvm {{.*}} 0 mismatches  PASS
// CHECK: tvm-folded {{.*}} 0 mismatches  PASS
// CHECK-NOT: FAIL
