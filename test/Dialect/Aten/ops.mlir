// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// Every aten op parses, verifies, prints in generic form, and re-parses.

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: "aten.neg"
  %0 = "aten.neg"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.exp"
  %1 = "aten.exp"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.log"
  %2 = "aten.log"(%1) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.sqrt"
  %3 = "aten.sqrt"(%2) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.rsqrt"
  %4 = "aten.rsqrt"(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.relu"
  %5 = "aten.relu"(%4) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.sigmoid"
  %6 = "aten.sigmoid"(%5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.tanh"
  %7 = "aten.tanh"(%6) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.sin"
  %8 = "aten.sin"(%7) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.cos"
  %9 = "aten.cos"(%8) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.abs"
  %10 = "aten.abs"(%9) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.erf"
  %11 = "aten.erf"(%10) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.silu"
  %12 = "aten.silu"(%11) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.reciprocal"
  %13 = "aten.reciprocal"(%12) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.gelu"(%{{.*}}) {approximate = "tanh"}
  %14 = "aten.gelu"(%13) {approximate = "tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.to_dtype"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %15 = "aten.to_dtype"(%14) : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  // CHECK-NEXT: "aten.to_dtype"(%{{.*}}) : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  %16 = "aten.to_dtype"(%15) : (tensor<2x3xbf16>) -> tensor<2x3xf32>
  // CHECK-NEXT: "aten.clone"
  %17 = "aten.clone"(%16) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %17 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @broadcasting
func.func @broadcasting(%x: tensor<2x3xf32>, %row: tensor<3xf32>, %col: tensor<2x1xf32>, %c: tensor<2x3xi1>) -> tensor<2x3xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  // CHECK: "aten.add"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = "aten.add"(%x, %row) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: "aten.sub"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %1 = "aten.sub"(%0, %col) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  // CHECK: "aten.mul"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = "aten.mul"(%1, %two) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: "aten.div"(%{{.*}}, %{{.*}}) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = "aten.div"(%col, %row) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: "aten.maximum"
  %4 = "aten.maximum"(%2, %3) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: "aten.minimum"
  %5 = "aten.minimum"(%4, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: "aten.pow"
  %6 = "aten.pow"(%5, %two) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: "aten.where"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = "aten.where"(%c, %6, %row) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %7 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2xf32>, tensor<f32>, tensor<3x4xf32>, tensor<2x3x1xf32>) {
  // CHECK: "aten.sum"(%{{.*}}) {dims = array<i64: 1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: "aten.mean"(%{{.*}}) {dims = array<i64: -1, 1>, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %1 = "aten.mean"(%x) {dims = array<i64: -1, 1>, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  // Empty dims reduce everything.
  // CHECK: "aten.amax"(%{{.*}}) {dims = array<i64>, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %2 = "aten.amax"(%x) {dims = array<i64>, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: "aten.amin"
  %3 = "aten.amin"(%x) {dims = array<i64: 0>, keepdim = false} : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  // CHECK: "aten.var"(%{{.*}}) {correction = 1 : i64, dims = array<i64: 2>, keepdim = true}
  %4 = "aten.var"(%x) {dims = array<i64: 2>, keepdim = true, correction = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return %0, %1, %2, %3, %4 : tensor<2x1x4xf32>, tensor<2xf32>, tensor<f32>, tensor<3x4xf32>, tensor<2x3x1xf32>
}

// CHECK-LABEL: func.func @composites
func.func @composites(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: "aten.softmax"(%{{.*}}) {dim = -1 : i64}
  %0 = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "aten.log_softmax"(%{{.*}}) {dim = 0 : i64}
  %1 = "aten.log_softmax"(%0) {dim = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: "aten.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) {eps = 1.000000e-05 : f64, normalized_shape = array<i64: 8>}
  %2 = "aten.layer_norm"(%1, %w, %b) {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: "aten.rms_norm"(%{{.*}}, %{{.*}}) {eps = 9.9999999999999995E-7 : f64, normalized_shape = array<i64: 8>}
  %3 = "aten.rms_norm"(%2, %w) {normalized_shape = array<i64: 8>, eps = 1.0e-06 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: "aten.group_norm"(%{{.*}}, %{{.*}}, %{{.*}}) {eps = 1.000000e-05 : f64, num_groups = 2 : i64}
  %4 = "aten.group_norm"(%3, %w, %b) {num_groups = 2 : i64, eps = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>, %bias: tensor<5xf32>, %ba: tensor<2x4x3xf32>, %bb: tensor<2x3x5xf32>, %w: tensor<5x3xf32>, %img: tensor<2x3x8x8xf32>, %k: tensor<6x1x3x3xf32>, %kb: tensor<6xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<2x4x5xf32>, tensor<2x4x5xf32>, tensor<4x5xf32>, tensor<2x6x4x4xf32>) {
  // CHECK: "aten.mm"(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %0 = "aten.mm"(%a, %b) : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  // CHECK: "aten.addmm"
  %1 = "aten.addmm"(%bias, %a, %b) : (tensor<5xf32>, tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  // CHECK: "aten.bmm"
  %2 = "aten.bmm"(%ba, %bb) : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  // linear over a leading batch dim, with and without bias.
  // CHECK: "aten.linear"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x4x3xf32>, tensor<5x3xf32>, tensor<5xf32>) -> tensor<2x4x5xf32>
  %3 = "aten.linear"(%ba, %w, %bias) : (tensor<2x4x3xf32>, tensor<5x3xf32>, tensor<5xf32>) -> tensor<2x4x5xf32>
  // CHECK: "aten.linear"(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  %4 = "aten.linear"(%a, %w) : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  // Grouped, strided, padded, dilated convolution with bias: (8 + 2*2 - 2*(3-1) - 1) / 2 + 1 = 4.
  // CHECK: "aten.convolution"(%{{.*}}, %{{.*}}, %{{.*}}) {dilation = array<i64: 2, 2>, groups = 3 : i64, padding = array<i64: 2, 2>, stride = array<i64: 2, 2>}
  %5 = "aten.convolution"(%img, %k, %kb) {stride = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, groups = 3 : i64} : (tensor<2x3x8x8xf32>, tensor<6x1x3x3xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x5xf32>, tensor<4x5xf32>, tensor<2x4x5xf32>, tensor<2x4x5xf32>, tensor<4x5xf32>, tensor<2x6x4x4xf32>
}

// CHECK-LABEL: func.func @movement
func.func @movement(%x: tensor<2x3x4xf32>, %i: tensor<2x3x2xi64>, %s: tensor<3xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x4x3xf32>, tensor<5x2x3x4xf32>, tensor<2x1x3x4xf32>, tensor<2x3x4xf32>, tensor<2x2x4xf32>, tensor<2x4xf32>, tensor<2x6x4xf32>, tensor<2x3x2xf32>, tensor<24xf32>) {
  // CHECK: "aten.view"(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %0 = "aten.view"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK: "aten.permute"(%{{.*}}) {dims = array<i64: 2, 0, 1>}
  %1 = "aten.permute"(%x) {dims = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK: "aten.transpose"(%{{.*}}) {dim0 = -1 : i64, dim1 = 1 : i64}
  %2 = "aten.transpose"(%x) {dim0 = -1 : i64, dim1 = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  // CHECK: "aten.expand"(%{{.*}}) : (tensor<2x3x4xf32>) -> tensor<5x2x3x4xf32>
  %3 = "aten.expand"(%x) : (tensor<2x3x4xf32>) -> tensor<5x2x3x4xf32>
  // CHECK: "aten.unsqueeze"(%{{.*}}) {dim = 1 : i64}
  %4 = "aten.unsqueeze"(%x) {dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x3x4xf32>
  // CHECK: "aten.squeeze"(%{{.*}}) {dims = array<i64: 1>}
  %5 = "aten.squeeze"(%4) {dims = array<i64: 1>} : (tensor<2x1x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: "aten.slice"(%{{.*}}) {dim = 1 : i64, end = 9223372036854775807 : i64, start = 1 : i64, step = 1 : i64}
  %6 = "aten.slice"(%x) {dim = 1 : i64, start = 1 : i64, end = 9223372036854775807 : i64, step = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x2x4xf32>
  // CHECK: "aten.select"(%{{.*}}) {dim = 1 : i64, index = -1 : i64}
  %7 = "aten.select"(%x) {dim = 1 : i64, index = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // CHECK: "aten.cat"(%{{.*}}, %{{.*}}) {dim = 1 : i64}
  %8 = "aten.cat"(%x, %x) {dim = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  // CHECK: "aten.gather"(%{{.*}}, %{{.*}}) {dim = 2 : i64}
  %9 = "aten.gather"(%x, %i) {dim = 2 : i64} : (tensor<2x3x4xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2xf32>
  // CHECK: "aten.reshape"(%{{.*}}) : (tensor<2x4x3xf32>) -> tensor<24xf32>
  %10 = "aten.reshape"(%2) : (tensor<2x4x3xf32>) -> tensor<24xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<2x4x3xf32>, tensor<5x2x3x4xf32>, tensor<2x1x3x4xf32>, tensor<2x3x4xf32>, tensor<2x2x4xf32>, tensor<2x4xf32>, tensor<2x6x4xf32>, tensor<2x3x2xf32>, tensor<24xf32>
}

// Comparisons, logical_not and any produce i1 tensors.
// CHECK-LABEL: func.func @predicates
func.func @predicates(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xi1>, tensor<2x1xi1>) {
  // CHECK: "aten.eq"
  %0 = "aten.eq"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: "aten.ne"
  %1 = "aten.ne"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: "aten.lt"
  %2 = "aten.lt"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: "aten.le"
  %3 = "aten.le"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: "aten.gt"
  %4 = "aten.gt"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: "aten.ge"
  %5 = "aten.ge"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: "aten.logical_not"
  %6 = "aten.logical_not"(%5) : (tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK-NEXT: "aten.any"
  %7 = "aten.any"(%6) {dims = array<i64: 1>, keepdim = true} : (tensor<2x3xi1>) -> tensor<2x1xi1>
  return %0, %7 : tensor<2x3xi1>, tensor<2x1xi1>
}
