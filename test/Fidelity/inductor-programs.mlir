// RUN: python3 %S/../../tools/fidelity/compare.py | FileCheck %s

// fuselab's Inductor strategy (--target=gpu) against real TorchInductor (torch 2.11 on
// the H200) on the 54 programs of tools/fidelity/programs.py: the exported archives are
// Inputs/inductor/*.pt2, Inductor's kernels Inputs/inductor-h200.json, both written by
// tools/fidelity/inductor_probe.py on the device. Each row compares the number of
// generated (non-library) kernels; a rule that changes a decision changes this test.
// Inductor converts a convolution's graph-input image and weight to channels-last in a
// copy kernel each (conv_*: 2 copies and the epilogue).
// CHECK: col_sum 2 2 yes
// CHECK: full_sum_split 2 2 yes
// CHECK: tiny_reduce_4 1 1 yes
// CHECK: tiny_reduce_8 2 2 yes
// CHECK: transpose_reduce 2 2 yes
// CHECK: conv_bn_relu 3 3 yes
// CHECK: conv_residual 3 3 yes
// Loop reordering after fusion (--inductor-fuse's last round; GPU only): a pointwise
// node iterates in the order of the node it shares a permuted buffer with. Inductor
// fuses reorder_pw_pw, reorder_horizontal and reorder_reduce_epilogue because eager
// lays those outputs out permuted (no access is permuted there); fuselab's row-major
// buffers reach the same kernels by reordering. reorder_pw_reduce: split reduction.
// CHECK: reorder_pw_reduce 3 3 yes
// CHECK: reorder_pw_pw 1 1 yes fused_add_mul_0
// CHECK: reorder_horizontal 1 1 yes fused_mul_0
// CHECK: reorder_reduce_epilogue 1 1 yes fused_add_sum_0
// CHECK: reorder_permute_3d 1 1 yes fused_exp_sum_0
// Inductor realizes an mm's result straight into its slice of a cat (ConcatKernel,
// NonOwningLayout: `extern_kernels.mm(..., out=reinterpret_tensor(buf2, ...))`, no
// kernel); so does fuselab (a concat extern). A bmm result and a cat read by pointwise
// ops are copied by both.
// CHECK: cat_mm 0 0 yes
// CHECK: cat_mm_dim0 0 0 yes
// CHECK: cat_mm_pointwise 1 1 yes
// CHECK: cat_mm_relu_after 1 1 yes
// CHECK: cat_bmm 1 1 yes
// CHECK: exact kernel-count matches: 54 of 54
