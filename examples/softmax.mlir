// torch.softmax over the last dim.
// Source: ../shared/workloads/workloads.py (softmax); fp32 unless noted.
func.func @softmax(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<4096x1024xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}
