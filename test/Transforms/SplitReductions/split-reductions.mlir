// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --split-reductions | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --split-reductions | FileCheck %s --check-prefix=CPU
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --fuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=FUSED
// RUN: fuse-run %s --target gpu --strategy inductor --function mid_sum | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --target gpu --strategy inductor --function kept | FileCheck %s --check-prefix=EXEC-KEPT

// The split computes what the input computes (the loop interpreter against the aten
// oracle, the GPU target's decisions).
// EXEC: inductor output #0 tensor<f32>: {{.*}} 0 mismatches  PASS
// EXEC-KEPT: inductor output #2 tensor<f32>: {{.*}} 0 mismatches  PASS
// EXEC-KEPT: inductor output #3 tensor<512xf32>: {{.*}} 0 mismatches  PASS

// Inductor's split reduction on the H200 (Reduction.num_splits, inner_reduction_splits
// with 132 SMs): a full sum over 2^20 elements is 128 partial sums of 8192 contiguous
// elements, then a sum of the 128. The first level reads the input in its own order.
// CHECK-LABEL: func.func @mid_sum
// CHECK: %[[P:.*]] = "loop.reduction"() ({
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: "loop.load"(%{{.*}}) {index = #[[FLAT:map[0-9]*]]}
// CHECK: kind = "sum", name = "buf1_split", origins = ["sum"], ranges = array<i64: 128>, reduction_ranges = array<i64: 8192>} : () -> tensor<128xf32>
// CHECK: "loop.reduction"() ({
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK-NEXT: "loop.load"(%[[P]])
// CHECK: kind = "sum", name = "buf1", origins = ["sum"], ranges = array<i64>, reduction_ranges = array<i64: 128>} : () -> tensor<f32>
// The CPU target never splits (Inductor's C++ back end reduces to one element well).
// CPU-LABEL: func.func @mid_sum
// CPU: reduction_ranges = array<i64: 1024, 1024>
// CPU-NOT: _split
// With the Inductor strategy the first level fuses with the exp that feeds it, the second
// with the negation: 2 kernels. Split after the realize decisions (as Inductor splits
// while lowering the sum, its input inlined), both levels carry the inlined exp's
// origin, as Inductor's names do (EfficientNet's `triton_red_fused_mean_silu_4` then
// `triton_per_fused_mean_silu_5`, H100, torch 2.11).
// FUSED: "function": "mid_sum"
// FUSED: "name": "fused_exp_sum_0"
// FUSED: "iteration": [
// FUSED-NEXT: 128,
// FUSED-NEXT: 8192
// FUSED: "name": "fused_exp_neg_sum_1"
// FUSED: "kernels": 2,
func.func @mid_sum(%x: tensor<1024x1024xf32>) -> tensor<f32> {
  %e = "aten.exp"(%x) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = "aten.sum"(%e) {dims = array<i64: 0, 1>, keepdim = false} : (tensor<1024x1024xf32>) -> tensor<f32>
  %n = "aten.neg"(%m) : (tensor<f32>) -> tensor<f32>
  return %n : tensor<f32>
}

// -----

// Several outputs: a row max over 64 rows of 65,536 is an inner reduction (its loads
// read the reduction index with stride 1) with fewer than 2 x 132 outputs: 8 partial
// maxima per row (Inductor's inner factor). A column sum of 1024 x 512 reads the
// reduction index with stride 512: an outer reduction, 8 partial sums per column
// (Inductor's outer factor; real Inductor makes 2 kernels for it,
// test/Fidelity/inductor-programs.mlir). 8192 elements or fewer: not split. A split
// that does not divide the elements (1000 x 1001 in 123 blocks of 8139) masks the last
// block as Inductor does: reads at the flat index clamped to the last element, the
// identity past the end.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: _split
// CHECK: reduction_ranges = array<i64: 8192>} : () -> tensor<f32>
// CHECK: kind = "max", name = "buf1_split", origins = ["amax"], ranges = array<i64: 64, 8>, reduction_ranges = array<i64: 8192>} : () -> tensor<64x8xf32>
// CHECK: kind = "max", name = "buf1", origins = ["amax"], ranges = array<i64: 64>, reduction_ranges = array<i64: 8>}
// CHECK: %[[FLAT:.*]] = affine.apply
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 1000999 : index
// CHECK-NEXT: %[[CLAMPED:.*]] = arith.minsi %[[FLAT]], %[[LAST]] : index
// CHECK: "loop.load"(%{{.*}}, %[[CLAMPED]])
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[FLAT]], %{{.*}} : index
// CHECK: %[[ID:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[V:.*]] = arith.select %[[IN]], %{{.*}}, %[[ID]] : f32
// CHECK-NEXT: gpu.yield %[[V]] : f32
// CHECK: name = "buf2_split", origins = ["sum"], ranges = array<i64: 123>, reduction_ranges = array<i64: 8139>} : () -> tensor<123xf32>
// CHECK: kind = "sum", name = "buf3_split", origins = ["sum"], ranges = array<i64: 512, 8>, reduction_ranges = array<i64: 128>} : () -> tensor<512x8xf32>
// CHECK: return
func.func @kept(%a: tensor<8192xf32>, %b: tensor<64x65536xf32>, %c: tensor<1000x1001xf32>, %d: tensor<1024x512xf32>) -> (tensor<f32>, tensor<64xf32>, tensor<f32>, tensor<512xf32>) {
  %s = "aten.sum"(%a) {dims = array<i64: 0>, keepdim = false} : (tensor<8192xf32>) -> tensor<f32>
  %t = "aten.amax"(%b) {dims = array<i64: 1>, keepdim = false} : (tensor<64x65536xf32>) -> tensor<64xf32>
  %u = "aten.sum"(%c) {dims = array<i64: 0, 1>, keepdim = false} : (tensor<1000x1001xf32>) -> tensor<f32>
  %v = "aten.sum"(%d) {dims = array<i64: 0>, keepdim = false} : (tensor<1024x512xf32>) -> tensor<512xf32>
  return %s, %t, %u, %v : tensor<f32>, tensor<64xf32>, tensor<f32>, tensor<512xf32>
}
