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
// Inductor's C++ back end writes the kernels scheduled between two library calls into
// one function, called once (CppScheduling's KernelGroup, flushed by Scheduler.codegen
// only before an extern: passes/src/fusion/inductor/kernel_group.rs); fuselab's
// Inductor strategy marks such a kernel "grouped" on the CPU target and counts the
// calls, printed here joined by '+': group norm's statistics and normalization,
// tiny_reduce_8's sums and product, gather_nll's rows and mean, each reorder_* pair,
// and a convolution's channels-last copies of its graph-input image and weight
// (Inductor's layout optimization, on the CPU too: conv_*: the copies, then the
// epilogue) — one call each, as Inductor.
// CHECK: program inductor fuselab match fuselab-kernels
// CHECK: group_norm 1 1 yes fused_group_norm_0+fused_group_norm_1
// CHECK: group_norm_silu 1 1 yes fused_group_norm_0+fused_group_norm_mul_sigmoid_1
// CHECK: full_sum_split 1 1 yes
// CHECK: full_amax_split 1 1 yes
// CHECK: tiny_reduce_4 1 1 yes
// CHECK: tiny_reduce_8 1 1 yes fused_exp_sum_0+fused_mul_1
// CHECK: gather_nll 1 1 yes fused_log_softmax_0+fused_gather_log_softmax_mean_neg_1
// The bias is folded into the addmm on the CPU (Inductor: extern addmm, then
// cpp_fused_relu_0 / cpp_fused_gelu_0 — its should_prefer_unfused_addmm holds on GPUs
// only); the GPU target keeps it in the pointwise kernel, as Triton's add_relu.
// CHECK: mm_relu 1 1 yes fused_relu_0
// CHECK: linear_gelu 1 1 yes fused_gelu_0
// CHECK: attention 1 1 yes
// CHECK: attention_heads 0 0 yes
// CHECK: conv_bn_relu 2 2 yes fused_convolution_0+fused_convolution_1 fused_add_mul_relu_2
// CHECK: conv_residual 2 2 yes fused_convolution_0+fused_convolution_1 fused_add_relu_2
// Permuted accesses: Inductor never reorders loops of CPU nodes (as the CPU target
// here), but its C++ back end orders each node's loops by stride when it creates it
// (a column sum iterates rows outermost), fuses nodes sharing outer loops, and lays the
// outputs of permuted pointwise ops out as eager does — so no access is permuted there.
// fuselab's buffers are row-major: 2 kernels each (layout propagation not modelled),
// but in one function, as Inductor's one kernel.
// CHECK: reorder_pw_reduce 1 1 yes fused_relu_0+fused_relu_sum_1
// CHECK: reorder_pw_pw 1 1 yes fused_mul_0+fused_add_mul_1
// CHECK: reorder_horizontal 1 1 yes fused_mul_0+fused_mul_1
// CHECK: reorder_reduce_epilogue 1 1 yes fused_sum_0+fused_add_1
// CHECK: reorder_permute_3d 1 1 yes fused_exp_0+fused_exp_sum_1
// An mm written into its slice of a cat (ConcatKernel: on the CPU too).
// CHECK: cat_mm 0 0 yes
// CHECK: cat_mm_dim0 0 0 yes
// CHECK: cat_bmm 1 1 yes
// CHECK: exact kernel-count matches: 57 of 57
