// (x - mean) / sqrt(mean((x - mean)^2) + 1e-5) over the last dim; x - m appears twice, as in the source.
// Source: ../shared/workloads/workloads.py (two_reductions); fp32 unless noted.
func.func @two_reductions(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %m = "aten.mean"(%x) {dims = array<i64: -1>, keepdim = true} : (tensor<4096x1024xf32>) -> tensor<4096x1xf32>
  %d = "aten.sub"(%x, %m) : (tensor<4096x1024xf32>, tensor<4096x1xf32>) -> tensor<4096x1024xf32>
  %c0 = arith.constant dense<2.0> : tensor<f32>
  %sq = "aten.pow"(%d, %c0) : (tensor<4096x1024xf32>, tensor<f32>) -> tensor<4096x1024xf32>
  %var = "aten.mean"(%sq) {dims = array<i64: -1>, keepdim = true} : (tensor<4096x1024xf32>) -> tensor<4096x1xf32>
  %c1 = arith.constant dense<1.0e-05> : tensor<f32>
  %var_eps = "aten.add"(%var, %c1) : (tensor<4096x1xf32>, tensor<f32>) -> tensor<4096x1xf32>
  %std = "aten.sqrt"(%var_eps) : (tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %d2 = "aten.sub"(%x, %m) : (tensor<4096x1024xf32>, tensor<4096x1xf32>) -> tensor<4096x1024xf32>
  %y = "aten.div"(%d2, %std) : (tensor<4096x1024xf32>, tensor<4096x1xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
