// gelu(x @ W1 + b1) @ W2 + b2 (exact gelu).
// Source: ../shared/workloads/workloads.py (gelu_mlp); fp32 unless noted.
func.func @gelu_mlp(%x: tensor<2048x1024xf32>, %W1: tensor<1024x4096xf32>, %b1: tensor<4096xf32>, %W2: tensor<4096x1024xf32>, %b2: tensor<1024xf32>) -> tensor<2048x1024xf32> {
  %h = "aten.mm"(%x, %W1) : (tensor<2048x1024xf32>, tensor<1024x4096xf32>) -> tensor<2048x4096xf32>
  %hb = "aten.add"(%h, %b1) : (tensor<2048x4096xf32>, tensor<4096xf32>) -> tensor<2048x4096xf32>
  %g = "aten.gelu"(%hb) {approximate = "none"} : (tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %o = "aten.mm"(%g, %W2) : (tensor<2048x4096xf32>, tensor<4096x1024xf32>) -> tensor<2048x1024xf32>
  %y = "aten.add"(%o, %b2) : (tensor<2048x1024xf32>, tensor<1024xf32>) -> tensor<2048x1024xf32>
  return %y : tensor<2048x1024xf32>
}
