// Inductor's C++ back end (the CPU target) writes the kernels scheduled between two
// library calls into one function and calls it once (CppScheduling's KernelGroup,
// flushed by Scheduler.codegen before an extern: fusion/inductor/kernel_group.rs). The
// strategy marks a kernel that joins the one before it `fuselab.evaluation = "grouped"`
// and counts no launch for it; a GPU target launches every kernel.
// RUN: fuse-opt %s --target=cpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | FileCheck %s
// RUN: fuse-opt %s --target=cpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | FileCheck %s --check-prefix=GPU

// Group norm (statistics, then normalization: 2 kernels), an mm, then a relu: the two
// group-norm kernels share a call; the mm flushes; the relu starts a new call.
// CHECK-LABEL: func.func @groups(
// CHECK: }) {iteration = {{.*}}, name = "fused_group_norm_0", strategy = "inductor"}
// CHECK: }) {fuselab.evaluation = "grouped", iteration = {{.*}}, name = "fused_group_norm_1", strategy = "inductor"}
// CHECK: "loop.extern"
// CHECK: }) {iteration = {{.*}}, name = "fused_relu_2", strategy = "inductor"}
// REPORT: "name": "fused_group_norm_1",
// REPORT: "launches": 0,
// REPORT-NEXT: "evaluation": "grouped"
// REPORT: "totals": {
// REPORT-NEXT: "kernels": 3,
// REPORT: "launches": 3,
// REPORT: "grouped_kernels": 1
// GPU-LABEL: func.func @groups(
// GPU-NOT: fuselab.evaluation
// GPU: return
func.func @groups(%x: tensor<8x16x4xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>, %w: tensor<4x4xf32>) -> tensor<128x4xf32> {
  %n = "aten.group_norm"(%x, %g, %b) {num_groups = 4 : i64, eps = 1.0e-05 : f64} : (tensor<8x16x4xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x4xf32>
  %v = "aten.view"(%n) : (tensor<8x16x4xf32>) -> tensor<128x4xf32>
  %m = "aten.mm"(%v, %w) : (tensor<128x4xf32>, tensor<4x4xf32>) -> tensor<128x4xf32>
  %r = "aten.relu"(%m) : (tensor<128x4xf32>) -> tensor<128x4xf32>
  return %r : tensor<128x4xf32>
}
