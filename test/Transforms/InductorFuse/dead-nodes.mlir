// Values nothing reads are never kernels (issue 14, item 8). Both reference systems
// drop them before deciding: Inductor's Scheduler.dead_node_elimination
// (torch/_inductor/scheduler.py) removes the exp -> sin / sum chain below, leaving one
// kernel (relu + amax); TVM drops fused groups whose outputs are unused (as measured
// with Relax 0.27 for the issue), leaving fused_relu_amax. Before, fuselab launched 2 (Inductor:
// fused_exp_sum, fused_amax_relu) and 4 (for TVM exp, sin, sum, fused_relu_amax) kernels.
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=INDUCTOR
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop=materialize-views=true --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=TVM
// RUN: fuse-run %s | FileCheck %s --check-prefix=EXEC

// INDUCTOR: "name": "fused_amax_relu_0"
// INDUCTOR-NOT: "name": "fused_exp
// INDUCTOR: "totals": {
// INDUCTOR-NEXT: "kernels": 1,
// INDUCTOR-NEXT: "extern_kernels": 0,
// INDUCTOR-NEXT: "launches": 1,
// TVM: "name": "fused_relu_amax"
// TVM-NOT: "name": "exp"
// TVM: "totals": {
// TVM-NEXT: "kernels": 1,
// EXEC-COUNT-4: output #0 tensor<8x1xf32>: {{.*}} PASS
func.func @dead(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %e = "aten.exp"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = "aten.sin"(%e) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %t = "aten.sum"(%e) {dims = array<i64: 0>, keepdim = true} : (tensor<8x16xf32>) -> tensor<1x16xf32>
  %r = "aten.relu"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = "aten.amax"(%r) {dims = array<i64: 1>, keepdim = true} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  return %m : tensor<8x1xf32>
}
