// conv3x3 -> folded batch-norm affine -> relu -> conv3x3 -> affine -> + identity -> relu, on [8,64,56,56].
// Source: ../shared/workloads/workloads.py (resnet_block); fp32 unless noted.
func.func @resnet_block(%x: tensor<8x64x56x56xf32>, %w1: tensor<64x64x3x3xf32>, %s1: tensor<64xf32>, %t1: tensor<64xf32>, %w2: tensor<64x64x3x3xf32>, %s2: tensor<64xf32>, %t2: tensor<64xf32>) -> tensor<8x64x56x56xf32> {
  %c1 = "aten.convolution"(%x, %w1) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x56x56xf32>
  %s1v = "aten.view"(%s1) : (tensor<64xf32>) -> tensor<1x64x1x1xf32>
  %t1v = "aten.view"(%t1) : (tensor<64xf32>) -> tensor<1x64x1x1xf32>
  %bn1s = "aten.mul"(%c1, %s1v) : (tensor<8x64x56x56xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x56x56xf32>
  %bn1 = "aten.add"(%bn1s, %t1v) : (tensor<8x64x56x56xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x56x56xf32>
  %r1 = "aten.relu"(%bn1) : (tensor<8x64x56x56xf32>) -> tensor<8x64x56x56xf32>
  %c2 = "aten.convolution"(%r1, %w2) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x56x56xf32>
  %s2v = "aten.view"(%s2) : (tensor<64xf32>) -> tensor<1x64x1x1xf32>
  %t2v = "aten.view"(%t2) : (tensor<64xf32>) -> tensor<1x64x1x1xf32>
  %bn2s = "aten.mul"(%c2, %s2v) : (tensor<8x64x56x56xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x56x56xf32>
  %bn2 = "aten.add"(%bn2s, %t2v) : (tensor<8x64x56x56xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x56x56xf32>
  %res = "aten.add"(%bn2, %x) : (tensor<8x64x56x56xf32>, tensor<8x64x56x56xf32>) -> tensor<8x64x56x56xf32>
  %y = "aten.relu"(%res) : (tensor<8x64x56x56xf32>) -> tensor<8x64x56x56xf32>
  return %y : tensor<8x64x56x56xf32>
}
