// F.layer_norm over the last dim, eps 1e-5.
// Source: ../shared/workloads/workloads.py (layernorm); fp32 unless noted.
func.func @layernorm(%x: tensor<4096x1024xf32>, %weight: tensor<1024xf32>, %bias: tensor<1024xf32>) -> tensor<4096x1024xf32> {
  %y = "aten.layer_norm"(%x, %weight, %bias) {normalized_shape = array<i64: 1024>, eps = 1.0e-05 : f64} : (tensor<4096x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
