// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile | FileCheck %s
// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse=loop-ordering-after-fusion=false --lower-loop-to-tile | FileCheck %s --check-prefix=OFF

// A pointwise member that the fusion reordered (loop_order = [0, 2, 1]: it iterates
// (b, k, i) as the reduction does) shares the reduction's programs: rows (b, k), its
// inner positions i (in chunks of 16: the reduction reads across rows, so the kernel
// takes the outer block 32 x 16), stored strided at its own row-major index
// b*32768 + i*256 + k —
// the kernel Inductor generates (`triton_red_fused_exp_permute_sum_0` stores
// `x0 + 256*r0_2 + 32768*x1`). Without the reordering: two kernels.
// The store offset ends by adding b * 32768 (rows are (b, k): b = row / 256) to
// k + i * 256; an in-order store (row * 128 + i) would be wrong.
// CHECK: "tile.kernel"()
// CHECK: "tile.arange"() {axis = 1 : i64} : () -> tensor<1x16xindex>
// CHECK: scf.for
// CHECK: %[[C:.*]] = arith.constant 32768 : index
// CHECK-NEXT: %[[CS:.*]] = "tile.splat"(%[[C]])
// CHECK-NEXT: %[[B:.*]] = arith.muli %{{.*}}, %[[CS]] : tensor<32x1xindex>
// CHECK-NEXT: %[[BB:.*]] = "tile.broadcast"(%[[B]])
// CHECK-NEXT: %[[STORE:.*]] = arith.addi %{{.*}}, %[[BB]] : tensor<32x16xindex>
// CHECK: "tile.store"(%arg0, %[[STORE]],
// CHECK: "tile.reduce"
// CHECK: "tile.store"(%arg1,
// CHECK: block = array<i64: 32, 16>, grid = array<i64: 128>
// CHECK-NOT: "tile.kernel"
// CHECK: func.func @exp_and_permuted_sum
// CHECK-COUNT-1: "tile.launch"
// CHECK-NOT: "tile.launch"
// OFF-COUNT-2: "tile.kernel"
func.func @exp_and_permuted_sum(%x: tensor<16x128x256xf32>) -> (tensor<16x128x256xf32>, tensor<16x256xf32>) {
  %e = "aten.exp"(%x) : (tensor<16x128x256xf32>) -> tensor<16x128x256xf32>
  %e1 = "aten.exp"(%x) : (tensor<16x128x256xf32>) -> tensor<16x128x256xf32>
  %p = "aten.permute"(%e1) {dims = array<i64: 0, 2, 1>} : (tensor<16x128x256xf32>) -> tensor<16x256x128xf32>
  %s = "aten.sum"(%p) {dims = array<i64: 2>, keepdim = false} : (tensor<16x256x128xf32>) -> tensor<16x256xf32>
  return %e, %s : tensor<16x128x256xf32>, tensor<16x256xf32>
}
