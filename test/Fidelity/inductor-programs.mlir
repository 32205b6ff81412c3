// RUN: python3 %S/../../tools/fidelity/compare.py | FileCheck %s

// fuselab's Inductor strategy (--target=gpu) against real TorchInductor (torch 2.11 on
// the H200) on the 44 programs of tools/fidelity/programs.py: the exported archives are
// Inputs/inductor/*.pt2, Inductor's kernels Inputs/inductor-h200.json, both written by
// tools/fidelity/inductor_probe.py on the device. Each row compares the number of
// generated (non-library) kernels; a rule that changes a decision changes this test.
// The differences, each a rule not modelled: Inductor converts convolution inputs and
// weights to channels-last in two extra kernels (conv_*).
// CHECK: col_sum 2 2 yes
// CHECK: full_sum_split 2 2 yes
// CHECK: tiny_reduce_4 1 1 yes
// CHECK: tiny_reduce_8 2 2 yes
// CHECK: transpose_reduce 2 2 yes
// CHECK: conv_bn_relu 3 1 NO
// CHECK: conv_residual 3 1 NO
// CHECK: exact kernel-count matches: 42 of 44
