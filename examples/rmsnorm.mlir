// x * rsqrt(mean(x*x, -1, keepdim) + 1e-6) * w.
// Source: ../shared/workloads/workloads.py (rmsnorm); fp32 unless noted.
func.func @rmsnorm(%x: tensor<4096x4096xf32>, %w: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %sq = "aten.mul"(%x, %x) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %ms = "aten.mean"(%sq) {dims = array<i64: -1>, keepdim = true} : (tensor<4096x4096xf32>) -> tensor<4096x1xf32>
  %c0 = arith.constant dense<1.0e-06> : tensor<f32>
  %ms_eps = "aten.add"(%ms, %c0) : (tensor<4096x1xf32>, tensor<f32>) -> tensor<4096x1xf32>
  %r = "aten.rsqrt"(%ms_eps) : (tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %xr = "aten.mul"(%x, %r) : (tensor<4096x4096xf32>, tensor<4096x1xf32>) -> tensor<4096x4096xf32>
  %y = "aten.mul"(%xr, %w) : (tensor<4096x4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
