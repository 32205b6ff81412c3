// The Ascend target's Unified Buffer (192 KiB, 32-byte buffers; targets/src/ascend):
// a fused reduction keeps a whole row per buffer on chip — inputs double-buffered, one
// fp32 value per member. exp(x) * w summed over rows of 8192: the kernel of all three
// needs 7 buffers x 32 KiB = 224 KiB and is refused; rows of 4096 (112 KiB) fuse. The
// same rule holds under the Inductor strategy (its inlining makes one node of each
// chain: two row sums over x*w and x*v would read 3 inputs, 8 buffers = 256 KiB); the
// CPU target has no such limit.
// RUN: fuse-opt %s --split-input-file --target=ascend --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse="flags='--autofuse_enable_pass=reduce'" --fusion-explain 2>&1 | FileCheck %s
// RUN: fuse-opt %s --split-input-file --target=ascend --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-explain 2>&1 | FileCheck %s --check-prefix=INDUCTOR
// RUN: fuse-opt %s --split-input-file --target=cpu --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | FileCheck %s --check-prefix=CPU

// CHECK: remark: not fusing buf0,buf1 with buf2: the fused kernel's smallest tile (8192 elements per buffer) needs 229376 bytes on chip, the target has 196608
// INDUCTOR: remark: not fusing buf0 with buf1: the fused kernel's smallest tile (8192 elements per buffer) needs 262144 bytes on chip, the target has 196608
// CHECK-LABEL: func.func @wide
// CHECK: name = "fused_exp_mul_0"
// CHECK: name = "fused_sum_1"
// CPU-LABEL: func.func @wide
// CPU: name = "fused_exp_mul_sum_0"
func.func @wide(%x: tensor<16x8192xf32>, %w: tensor<8192xf32>) -> tensor<16xf32> {
  %e = "aten.exp"(%x) : (tensor<16x8192xf32>) -> tensor<16x8192xf32>
  %m = "aten.mul"(%e, %w) : (tensor<16x8192xf32>, tensor<8192xf32>) -> tensor<16x8192xf32>
  %s = "aten.sum"(%m) {dims = array<i64: 1>, keepdim = false} : (tensor<16x8192xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @narrow
// CHECK: name = "fused_exp_mul_sum_0"
func.func @narrow(%x: tensor<16x4096xf32>, %w: tensor<4096xf32>) -> tensor<16xf32> {
  %e = "aten.exp"(%x) : (tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %m = "aten.mul"(%e, %w) : (tensor<16x4096xf32>, tensor<4096xf32>) -> tensor<16x4096xf32>
  %s = "aten.sum"(%m) {dims = array<i64: 1>, keepdim = false} : (tensor<16x4096xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// INDUCTOR-LABEL: func.func @two_sums
// INDUCTOR: name = "fused_mul_sum_0"
// INDUCTOR: name = "fused_mul_sum_1"
// CPU-LABEL: func.func @two_sums
// CPU: name = "fused_mul_sum_0"
// CPU-NOT: "loop.kernel"
func.func @two_sums(%x: tensor<16x8192xf32>, %w: tensor<8192xf32>, %v: tensor<8192xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = "aten.mul"(%x, %w) : (tensor<16x8192xf32>, tensor<8192xf32>) -> tensor<16x8192xf32>
  %s = "aten.sum"(%a) {dims = array<i64: 1>, keepdim = false} : (tensor<16x8192xf32>) -> tensor<16xf32>
  %b = "aten.mul"(%x, %v) : (tensor<16x8192xf32>, tensor<8192xf32>) -> tensor<16x8192xf32>
  %t = "aten.sum"(%b) {dims = array<i64: 1>, keepdim = false} : (tensor<16x8192xf32>) -> tensor<16xf32>
  return %s, %t : tensor<16xf32>, tensor<16xf32>
}
