// -mean(log_softmax(logits).gather(1, targets[:, None]).squeeze(1)); targets are i64.
// Source: ../shared/workloads/workloads.py (log_softmax_nll); fp32 unless noted.
func.func @log_softmax_nll(%logits: tensor<4096x1000xf32>, %targets: tensor<4096xi64>) -> tensor<f32> {
  %lp = "aten.log_softmax"(%logits) {dim = -1 : i64} : (tensor<4096x1000xf32>) -> tensor<4096x1000xf32>
  %idx = "aten.unsqueeze"(%targets) {dim = 1 : i64} : (tensor<4096xi64>) -> tensor<4096x1xi64>
  %picked = "aten.gather"(%lp, %idx) {dim = 1 : i64} : (tensor<4096x1000xf32>, tensor<4096x1xi64>) -> tensor<4096x1xf32>
  %picked1 = "aten.squeeze"(%picked) {dims = array<i64: 1>} : (tensor<4096x1xf32>) -> tensor<4096xf32>
  %m = "aten.mean"(%picked1) {dims = array<i64: 0>, keepdim = false} : (tensor<4096xf32>) -> tensor<f32>
  %loss = "aten.neg"(%m) : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}
