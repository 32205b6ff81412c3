// softmax(q @ k^T / 8) @ v over [8,16,512,64]; 4-D matmuls spelled as view + bmm + view, as torch.export does.
// Source: ../shared/workloads/workloads.py (attention); fp32 unless noted.
func.func @attention(%q: tensor<8x16x512x64xf32>, %k: tensor<8x16x512x64xf32>, %v: tensor<8x16x512x64xf32>) -> tensor<8x16x512x64xf32> {
  %q3 = "aten.view"(%q) : (tensor<8x16x512x64xf32>) -> tensor<128x512x64xf32>
  %k3 = "aten.view"(%k) : (tensor<8x16x512x64xf32>) -> tensor<128x512x64xf32>
  %kt = "aten.transpose"(%k3) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<128x512x64xf32>) -> tensor<128x64x512xf32>
  %s3 = "aten.bmm"(%q3, %kt) : (tensor<128x512x64xf32>, tensor<128x64x512xf32>) -> tensor<128x512x512xf32>
  %s = "aten.view"(%s3) : (tensor<128x512x512xf32>) -> tensor<8x16x512x512xf32>
  %c0 = arith.constant dense<8.0> : tensor<f32>
  %scaled = "aten.div"(%s, %c0) : (tensor<8x16x512x512xf32>, tensor<f32>) -> tensor<8x16x512x512xf32>
  %p = "aten.softmax"(%scaled) {dim = -1 : i64} : (tensor<8x16x512x512xf32>) -> tensor<8x16x512x512xf32>
  %p3 = "aten.view"(%p) : (tensor<8x16x512x512xf32>) -> tensor<128x512x512xf32>
  %v3 = "aten.view"(%v) : (tensor<8x16x512x64xf32>) -> tensor<128x512x64xf32>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<128x512x512xf32>, tensor<128x512x64xf32>) -> tensor<128x512x64xf32>
  %o = "aten.view"(%o3) : (tensor<128x512x64xf32>) -> tensor<8x16x512x64xf32>
  return %o : tensor<8x16x512x64xf32>
}
