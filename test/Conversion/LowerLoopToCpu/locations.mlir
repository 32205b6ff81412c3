// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

// The CPU code is built op by op with the locations of what it comes from, so
// --mlir-print-debuginfo points every generated op at the aten line it computes:
// the row max at the amax (line 26), the subtraction at the sub (27), the exp
// polynomial at the exp (28), the weight multiply and the store of the result at the
// mul (29); the kernel function and its call at the kernel (its first node), the host
// function's return at the source's return (30).

// CHECK-LABEL: func.func private @locs_fused_amax_exp_mul_sub_0
// CHECK: arith.maximumf %{{.*}} fastmath<reassoc> : f32 loc("{{.*}}locations.mlir":26:8)
// CHECK: arith.subf {{.*}} loc("{{.*}}locations.mlir":27:8)
// CHECK: math.roundeven {{.*}} loc("{{.*}}locations.mlir":28:8)
// CHECK: %[[W:.*]] = memref.load %arg1[%{{.*}}] : memref<32xf32> loc("{{.*}}locations.mlir":29:8)
// CHECK-NEXT: arith.mulf %{{.*}}, %[[W]] : f32 loc("{{.*}}locations.mlir":29:8)
// CHECK: memref.store {{.*}} loc("{{.*}}locations.mlir":29:8)
// CHECK: return loc("{{.*}}locations.mlir":26:8)
// CHECK-NEXT: } loc("{{.*}}locations.mlir":26:8)
// CHECK: func.func @locs(
// CHECK-NEXT: call @locs_fused_amax_exp_mul_sub_0({{.*}}) : {{.*}} loc("{{.*}}locations.mlir":26:8)
// CHECK-NEXT: return loc("{{.*}}locations.mlir":30:3)
// CHECK-NOT: loc(unknown)


func.func @locs(%x: tensor<64x32xf32>, %w: tensor<32xf32>) -> tensor<64x32xf32> {
  %m = "aten.amax"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<64x32xf32>) -> tensor<64x1xf32>
  %d = "aten.sub"(%x, %m) : (tensor<64x32xf32>, tensor<64x1xf32>) -> tensor<64x32xf32>
  %e = "aten.exp"(%d) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %y = "aten.mul"(%e, %w) : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}
