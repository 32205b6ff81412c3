// Pre-LN transformer block: B=8, T=512, D=768, 12 heads of 64; linear weights are [out, in] as in F.linear.
// Source: ../shared/workloads/workloads.py (transformer_block); fp32 unless noted.
func.func @transformer_block(%x: tensor<8x512x768xf32>, %ln1_w: tensor<768xf32>, %ln1_b: tensor<768xf32>, %Wqkv: tensor<2304x768xf32>, %bqkv: tensor<2304xf32>, %Wo: tensor<768x768xf32>, %bo: tensor<768xf32>, %ln2_w: tensor<768xf32>, %ln2_b: tensor<768xf32>, %W1: tensor<3072x768xf32>, %b1: tensor<3072xf32>, %W2: tensor<768x3072xf32>, %b2: tensor<768xf32>) -> tensor<8x512x768xf32> {
  %h = "aten.layer_norm"(%x, %ln1_w, %ln1_b) {normalized_shape = array<i64: 768>, eps = 1.0e-05 : f64} : (tensor<8x512x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<8x512x768xf32>
  %qkv = "aten.linear"(%h, %Wqkv, %bqkv) : (tensor<8x512x768xf32>, tensor<2304x768xf32>, tensor<2304xf32>) -> tensor<8x512x2304xf32>
  %qkv5 = "aten.view"(%qkv) : (tensor<8x512x2304xf32>) -> tensor<8x512x3x12x64xf32>
  %qkvp = "aten.permute"(%qkv5) {dims = array<i64: 2, 0, 3, 1, 4>} : (tensor<8x512x3x12x64xf32>) -> tensor<3x8x12x512x64xf32>
  %q = "aten.select"(%qkvp) {dim = 0 : i64, index = 0 : i64} : (tensor<3x8x12x512x64xf32>) -> tensor<8x12x512x64xf32>
  %k = "aten.select"(%qkvp) {dim = 0 : i64, index = 1 : i64} : (tensor<3x8x12x512x64xf32>) -> tensor<8x12x512x64xf32>
  %v = "aten.select"(%qkvp) {dim = 0 : i64, index = 2 : i64} : (tensor<3x8x12x512x64xf32>) -> tensor<8x12x512x64xf32>
  %kt = "aten.transpose"(%k) {dim0 = -1 : i64, dim1 = -2 : i64} : (tensor<8x12x512x64xf32>) -> tensor<8x12x64x512xf32>
  %q3 = "aten.reshape"(%q) : (tensor<8x12x512x64xf32>) -> tensor<96x512x64xf32>
  %kt3 = "aten.reshape"(%kt) : (tensor<8x12x64x512xf32>) -> tensor<96x64x512xf32>
  %s3 = "aten.bmm"(%q3, %kt3) : (tensor<96x512x64xf32>, tensor<96x64x512xf32>) -> tensor<96x512x512xf32>
  %s = "aten.view"(%s3) : (tensor<96x512x512xf32>) -> tensor<8x12x512x512xf32>
  %c0 = arith.constant dense<8.0> : tensor<f32>
  %scaled = "aten.div"(%s, %c0) : (tensor<8x12x512x512xf32>, tensor<f32>) -> tensor<8x12x512x512xf32>
  %p = "aten.softmax"(%scaled) {dim = -1 : i64} : (tensor<8x12x512x512xf32>) -> tensor<8x12x512x512xf32>
  %p3 = "aten.reshape"(%p) : (tensor<8x12x512x512xf32>) -> tensor<96x512x512xf32>
  %v3 = "aten.reshape"(%v) : (tensor<8x12x512x64xf32>) -> tensor<96x512x64xf32>
  %a3 = "aten.bmm"(%p3, %v3) : (tensor<96x512x512xf32>, tensor<96x512x64xf32>) -> tensor<96x512x64xf32>
  %a4 = "aten.view"(%a3) : (tensor<96x512x64xf32>) -> tensor<8x12x512x64xf32>
  %at = "aten.transpose"(%a4) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<8x12x512x64xf32>) -> tensor<8x512x12x64xf32>
  %a = "aten.reshape"(%at) : (tensor<8x512x12x64xf32>) -> tensor<8x512x768xf32>
  %o = "aten.linear"(%a, %Wo, %bo) : (tensor<8x512x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<8x512x768xf32>
  %x2 = "aten.add"(%x, %o) : (tensor<8x512x768xf32>, tensor<8x512x768xf32>) -> tensor<8x512x768xf32>
  %h2 = "aten.layer_norm"(%x2, %ln2_w, %ln2_b) {normalized_shape = array<i64: 768>, eps = 1.0e-05 : f64} : (tensor<8x512x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<8x512x768xf32>
  %f1 = "aten.linear"(%h2, %W1, %b1) : (tensor<8x512x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<8x512x3072xf32>
  %g = "aten.gelu"(%f1) {approximate = "none"} : (tensor<8x512x3072xf32>) -> tensor<8x512x3072xf32>
  %f2 = "aten.linear"(%g, %W2, %b2) : (tensor<8x512x3072xf32>, tensor<768x3072xf32>, tensor<768xf32>) -> tensor<8x512x768xf32>
  %y = "aten.add"(%x2, %f2) : (tensor<8x512x768xf32>, tensor<8x512x768xf32>) -> tensor<8x512x768xf32>
  return %y : tensor<8x512x768xf32>
}
