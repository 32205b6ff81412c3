// The seed article's 10-op model: (s - mean(s)) * gamma + beta with s = a*a + a*0.1, a = relu(x*1.1 + bias).
// Source: ../shared/workloads/workloads.py (seed_10op); fp32 unless noted.
func.func @seed_10op(%x: tensor<1024x1024xf32>, %bias: tensor<1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %c0 = arith.constant dense<1.1> : tensor<f32>
  %x11 = "aten.mul"(%x, %c0) : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %t = "aten.add"(%x11, %bias) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %a = "aten.relu"(%t) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %p = "aten.mul"(%a, %a) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c1 = arith.constant dense<0.1> : tensor<f32>
  %q = "aten.mul"(%a, %c1) : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %s = "aten.add"(%p, %q) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = "aten.mean"(%s) {dims = array<i64: 1>, keepdim = true} : (tensor<1024x1024xf32>) -> tensor<1024x1xf32>
  %d = "aten.sub"(%s, %m) : (tensor<1024x1024xf32>, tensor<1024x1xf32>) -> tensor<1024x1024xf32>
  %g = "aten.mul"(%d, %gamma) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %y = "aten.add"(%g, %beta) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}
