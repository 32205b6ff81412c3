// RUN: python3 %S/../../tools/fidelity/compare.py --target cpu --reference %S/Inputs/inductor-cpu.json | FileCheck %s

// fuselab's Inductor strategy for the CPU target against real TorchInductor's C++
// back end on 57 programs of tools/fidelity/programs.py (torch 2.15 on this CPU;
// the ten reorder_* and cat_* programs: torch 2.11 on the device's CPU; attention_heads:
// torch 2.15 on a 2-core Intel Xeon VM, where Inductor makes it one
// _scaled_dot_product_flash_attention_for_cpu call and no kernel — fuselab's
// --fuse-attention, an sdpa extern):
// Inductor's kernels are Inputs/inductor-cpu.json, written by
// `tools/fidelity/inductor_probe.py --device cpu`. The CPU target never splits a
// reduction (full_sum_split, full_amax_split: one kernel, as Inductor on CPU) and
// unrolls only reductions of fewer than 8 elements (tiny_reduce_4).
// The differences, each a rule not modelled: the C++ back end fuses nodes that share
// their outer loops even where the inner loops differ (its outer-loop fusion: group
// norm's statistics and normalization, tiny_reduce_8's 8-element sums and the
// 64-wide product, gather_nll's rows and its mean — 1 kernel each), and it reorders a
// convolution's weights for oneDNN in a kernel of its own (conv_*: 2).
// CHECK: program inductor fuselab match fuselab-kernels
// CHECK: group_norm 1 2 NO
// CHECK: group_norm_silu 1 2 NO
// CHECK: full_sum_split 1 1 yes
// CHECK: full_amax_split 1 1 yes
// CHECK: tiny_reduce_4 1 1 yes
// CHECK: tiny_reduce_8 1 2 NO
// CHECK: gather_nll 1 2 NO
// The bias is folded into the addmm on the CPU (Inductor: extern addmm, then
// cpp_fused_relu_0 / cpp_fused_gelu_0 — its should_prefer_unfused_addmm holds on GPUs
// only); the GPU target keeps it in the pointwise kernel, as Triton's add_relu.
// CHECK: mm_relu 1 1 yes fused_relu_0
// CHECK: linear_gelu 1 1 yes fused_gelu_0
// CHECK: attention 1 1 yes
// CHECK: attention_heads 0 0 yes
// CHECK: conv_bn_relu 2 1 NO
// CHECK: conv_residual 2 1 NO
// Permuted accesses: Inductor never reorders loops of CPU nodes (as the CPU target
// here), but its C++ back end orders each node's loops by stride when it creates it
// (a column sum iterates rows outermost), fuses nodes sharing outer loops, and lays the
// outputs of permuted pointwise ops out as eager does — so no access is permuted there.
// fuselab's buffers are row-major: 2 kernels each (layout propagation not modelled).
// CHECK: reorder_pw_reduce 1 2 NO
// CHECK: reorder_pw_pw 1 2 NO
// CHECK: reorder_horizontal 1 2 NO
// CHECK: reorder_reduce_epilogue 1 2 NO
// CHECK: reorder_permute_3d 1 2 NO
// An mm written into its slice of a cat (ConcatKernel: on the CPU too).
// CHECK: cat_mm 0 0 yes
// CHECK: cat_mm_dim0 0 0 yes
// CHECK: cat_bmm 1 1 yes
// CHECK: exact kernel-count matches: 46 of 57
