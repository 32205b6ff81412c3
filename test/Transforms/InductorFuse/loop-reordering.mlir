// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | FileCheck %s
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse=loop-ordering-after-fusion=false | FileCheck %s --check-prefix=OFF
// RUN: fuse-opt %s --split-input-file --target=cpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | FileCheck %s --check-prefix=OFF
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=REPORT

// Inductor's loop reordering after fusion (scheduler.py shared_data_after_reordering_loop;
// docs/strategies/inductor.md): two nodes that address a buffer through permuted loops
// share no MemoryDep; in a last round their deps are compared normalized by stride
// order, and the pointwise one iterates in the other's order. GPU targets only: the C++
// back end (is_cpu) never reorders. Real Inductor (torch 2.11, H200,
// tools/fidelity/inductor_probe.py, program reorder_permute_3d): one kernel
// `triton_red_fused_exp_permute_sum_0` that stores exp(x) strided inside the reduction
// loop; with TORCHINDUCTOR_LOOP_ORDERING_AFTER_FUSION=0, two (`triton_poi_fused_exp_0`,
// `triton_red_fused_exp_permute_sum_1`), each reading x (2 MiB): 6 MiB moved instead of 4.

// CHECK-LABEL: func.func @exp_and_permuted_sum
// CHECK: "loop.kernel"() ({
// CHECK: "loop.pointwise"()
// CHECK: loop_order = array<i64: 0, 2, 1>, name = "buf0", origins = ["exp"], ranges = array<i64: 16, 128, 256>
// CHECK: "loop.reduction"()
// CHECK: name = "fused_exp_sum_0"
// CHECK-NOT: "loop.kernel"
// CHECK: return
// OFF-LABEL: func.func @exp_and_permuted_sum
// OFF-NOT: loop_order
// OFF: name = "fused_exp_0"
// OFF: name = "fused_exp_sum_1"
// REPORT: "name": "fused_exp_sum_0"
// REPORT: "bytes_read": 2097152,
// REPORT-NEXT: "bytes_written": 2113536,
func.func @exp_and_permuted_sum(%x: tensor<16x128x256xf32>) -> (tensor<16x128x256xf32>, tensor<16x256xf32>) {
  %e = "aten.exp"(%x) : (tensor<16x128x256xf32>) -> tensor<16x128x256xf32>
  %e1 = "aten.exp"(%x) : (tensor<16x128x256xf32>) -> tensor<16x128x256xf32>
  %p = "aten.permute"(%e1) {dims = array<i64: 0, 2, 1>} : (tensor<16x128x256xf32>) -> tensor<16x256x128xf32>
  %s = "aten.sum"(%p) {dims = array<i64: 2>, keepdim = false} : (tensor<16x256x128xf32>) -> tensor<16x256xf32>
  return %e, %s : tensor<16x128x256xf32>, tensor<16x256xf32>
}

// -----

// Horizontal: x * 2 and x.t() * 3 read x in two orders; node1 (greedily, as Inductor)
// iterates like node2 and stores strided (Inductor on the H200: one kernel
// `triton_poi_fused_mul_t_0`, program reorder_horizontal).
// CHECK-LABEL: func.func @two_orders_of_one_input
// CHECK: "loop.kernel"() ({
// CHECK: loop_order = array<i64: 1, 0>, name = "buf0"
// CHECK-NOT: loop_order
// CHECK: name = "fused_mul_0"
// OFF-LABEL: func.func @two_orders_of_one_input
// OFF: name = "fused_mul_0"
// OFF: name = "fused_mul_1"
func.func @two_orders_of_one_input(%x: tensor<512x1024xf32>) -> (tensor<512x1024xf32>, tensor<1024x512xf32>) {
  %c2 = arith.constant dense<2.0> : tensor<f32>
  %a = "aten.mul"(%x, %c2) : (tensor<512x1024xf32>, tensor<f32>) -> tensor<512x1024xf32>
  %t = "aten.permute"(%x) {dims = array<i64: 1, 0>} : (tensor<512x1024xf32>) -> tensor<1024x512xf32>
  %c3 = arith.constant dense<3.0> : tensor<f32>
  %b = "aten.mul"(%t, %c3) : (tensor<1024x512xf32>, tensor<f32>) -> tensor<1024x512xf32>
  return %a, %b : tensor<512x1024xf32>, tensor<1024x512xf32>
}

// -----

// Two reductions are never reordered (Inductor: "both nodes are reductions"), nor is a
// pair whose deps touch different elements (a strided slice against the whole input).
// CHECK-LABEL: func.func @not_reordered
// CHECK-NOT: loop_order
// CHECK: return
func.func @not_reordered(%x: tensor<256x512xf32>) -> (tensor<256xf32>, tensor<512xf32>, tensor<512x128xf32>) {
  %r = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<256x512xf32>) -> tensor<256xf32>
  %c = "aten.sum"(%x) {dims = array<i64: 0>, keepdim = false} : (tensor<256x512xf32>) -> tensor<512xf32>
  %t = "aten.permute"(%x) {dims = array<i64: 1, 0>} : (tensor<256x512xf32>) -> tensor<512x256xf32>
  %s = "aten.slice"(%t) {dim = 1 : i64, start = 0 : i64, end = 256 : i64, step = 2 : i64} : (tensor<512x256xf32>) -> tensor<512x128xf32>
  %c2 = arith.constant dense<2.0> : tensor<f32>
  %m = "aten.mul"(%s, %c2) : (tensor<512x128xf32>, tensor<f32>) -> tensor<512x128xf32>
  return %r, %c, %m : tensor<256xf32>, tensor<512xf32>, tensor<512x128xf32>
}
