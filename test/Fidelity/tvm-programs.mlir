// RUN: python3 %S/../../tools/fidelity/compare.py --strategy tvm --reference %S/Inputs/tvm-relax.json | FileCheck %s

// fuselab's TVM strategy (relax mode, views as nodes) against real TVM Relax 0.27
// (apache-tvm from PyPI, torch 2.15 for the export) on the 50 programs of
// tools/fidelity/programs.py: Relax's groups are Inputs/tvm-relax.json, written by
// tools/fidelity/tvm_probe.py (from_exported_program, LegalizeOps,
// AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR; the call_tirs of main); the
// archives are Inputs/inductor/*.pt2. Each row compares the number of fused groups.
// Rules this measurement found and fuselab now follows: gather is kOpaque in Relax
// (its index is loaded at run time), so it stays apart from its index's unsqueeze
// (gather_nll, was 3); a reshape to its own shape is no op (attention's 3-D bmm views
// vanish in Relax's graph, so the bmm absorbs the division: was 9).
// And group_norm is one op, as Relax's nn.group_norm (one TIR function): fuse-import
// writes one aten.group_norm, whose decomposition keeps its eager op (was 4 groups).
// CHECK: program tvm fuselab match fuselab-kernels
// CHECK: row_max_exp 2 2 yes
// CHECK: rms_norm 2 2 yes
// CHECK: group_norm 1 1 yes group_norm
// CHECK: group_norm_silu 1 1 yes fused_group_norm_sigmoid_mul
// CHECK: full_amax_split 1 1 yes
// CHECK: two_reductions 3 3 yes
// CHECK: transpose_reduce 2 2 yes
// CHECK: gather_nll 4 4 yes log_softmax unsqueeze gather fused_mean_neg
// CHECK: mm_relu 1 1 yes fused_mm_add_relu
// CHECK: linear_gelu 2 2 yes
// CHECK: attention 6 6 yes
// CHECK: conv_bn_relu 1 1 yes
// Convolution epilogues (TVM's kOutEWiseFusable; Transforms/TvmFuseOps/conv-epilogues.mlir).
// CHECK: conv_bias_relu 2 2 yes view fused_convolution_relu
// CHECK: conv_residual_block 4 4 yes view fused_convolution_relu view1 fused_convolution_add_relu
// CHECK: conv_two_branch 2 2 yes fused_convolution_sigmoid fused_convolution_add_relu_add
// CHECK: conv_fan_out 1 1 yes fused_convolution_relu_sigmoid_mul_add
// CHECK: exact kernel-count matches: 50 of 50
