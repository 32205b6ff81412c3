// RUN: fuse-opt %s --split-input-file --aten-decompose | FileCheck %s

// layer_norm: mean (sum / N), centered, variance (mean of squares), rsqrt(var + eps),
// scale and shift; every primitive remembers its origin.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[SUM:.*]] = "aten.sum"(%arg0) {dims = array<i64: 1>, fuselab.eager_id = 0 : i64, fuselab.origin = "layer_norm", keepdim = true}
// CHECK: %[[N:.*]] = arith.constant dense<8.000000e+00> : tensor<f32>
// CHECK: %[[MEAN:.*]] = "aten.div"(%[[SUM]], %[[N]])
// CHECK: %[[D:.*]] = "aten.sub"(%arg0, %[[MEAN]])
// CHECK: %[[SQ:.*]] = "aten.mul"(%[[D]], %[[D]])
// CHECK: %[[SSQ:.*]] = "aten.sum"(%[[SQ]])
// CHECK: %[[VAR:.*]] = "aten.div"(%[[SSQ]], %{{.*}})
// CHECK: %[[EPS:.*]] = arith.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[VE:.*]] = "aten.add"(%[[VAR]], %[[EPS]])
// CHECK: %[[R:.*]] = "aten.rsqrt"(%[[VE]])
// CHECK: %[[NORM:.*]] = "aten.mul"(%[[D]], %[[R]])
// CHECK: %[[W:.*]] = "aten.mul"(%[[NORM]], %arg1)
// CHECK: %[[Y:.*]] = "aten.add"(%[[W]], %arg2)
// CHECK: return %[[Y]]
// CHECK-NOT: aten.layer_norm
func.func @layer_norm(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "aten.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rms_norm: x * rsqrt(mean(x * x) + eps) * w.
// CHECK-LABEL: func.func @rms_norm
// CHECK: "aten.mul"(%arg0, %arg0)
// CHECK: "aten.sum"
// CHECK: "aten.div"
// CHECK: "aten.add"
// CHECK: "aten.rsqrt"
// CHECK: "aten.mul"(%arg0,
// CHECK: "aten.mul"(%{{.*}}, %arg1)
func.func @rms_norm(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "aten.rms_norm"(%x, %w) {normalized_shape = array<i64: 8>, eps = 1.0e-06 : f64} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// softmax over a middle dim: amax, subtract, exp, sum, divide (dim -2 wraps to 1).
// CHECK-LABEL: func.func @softmax
// CHECK: %[[M:.*]] = "aten.amax"(%arg0) {dims = array<i64: 1>, {{.*}}keepdim = true} : (tensor<2x5x3xf32>) -> tensor<2x1x3xf32>
// CHECK: %[[S:.*]] = "aten.sub"(%arg0, %[[M]])
// CHECK: %[[E:.*]] = "aten.exp"(%[[S]])
// CHECK: %[[Z:.*]] = "aten.sum"(%[[E]]) {dims = array<i64: 1>
// CHECK: "aten.div"(%[[E]], %[[Z]])
func.func @softmax(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = "aten.softmax"(%x) {dim = -2 : i64} : (tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// log_softmax: (x - amax) - log(sum(exp(x - amax))).
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[M:.*]] = "aten.amax"
// CHECK: %[[S:.*]] = "aten.sub"(%arg0, %[[M]])
// CHECK: %[[E:.*]] = "aten.exp"(%[[S]])
// CHECK: %[[Z:.*]] = "aten.sum"(%[[E]])
// CHECK: %[[L:.*]] = "aten.log"(%[[Z]])
// CHECK: "aten.sub"(%[[S]], %[[L]]) {fuselab.eager_id = 0 : i64, fuselab.origin = "log_softmax"}
func.func @log_softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = "aten.log_softmax"(%x) {dim = 1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// gelu, erf form: 0.5 x (1 + erf(x / sqrt(2))); tanh form uses 0.044715 x^3.
// CHECK-LABEL: func.func @gelu
// CHECK: arith.constant dense<5.000000e-01>
// CHECK: "aten.erf"
// CHECK: "aten.add"
// CHECK: "aten.mul"
// CHECK: arith.constant dense<4.471500e-02>
// CHECK: "aten.tanh"
// CHECK-NOT: aten.gelu
func.func @gelu(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = "aten.gelu"(%x) {approximate = "none"} : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "aten.gelu"(%x) {approximate = "tanh"} : (tensor<16xf32>) -> tensor<16xf32>
  return %0, %1 : tensor<16xf32>, tensor<16xf32>
}

// -----

// Each composite instance gets its own eager id.
// CHECK-LABEL: func.func @silu_twice
// CHECK: "aten.sigmoid"(%arg0) {fuselab.eager_id = 0 : i64, fuselab.origin = "silu"}
// CHECK: "aten.mul"(%arg0, %{{.*}}) {fuselab.eager_id = 0 : i64
// CHECK: "aten.sigmoid"(%{{.*}}) {fuselab.eager_id = 1 : i64, fuselab.origin = "silu"}
func.func @silu_twice(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = "aten.silu"(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "aten.silu"(%0) : (tensor<16xf32>) -> tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// linear on a 3-D input: view to 2-D, mm with the transposed weight, view back, + bias.
// CHECK-LABEL: func.func @linear
// CHECK: %[[WT:.*]] = "aten.permute"(%arg1) {dims = array<i64: 1, 0>{{.*}}} : (tensor<6x4xf32>) -> tensor<4x6xf32>
// CHECK: %[[X2:.*]] = "aten.view"(%arg0) {{.*}} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: %[[MM:.*]] = "aten.mm"(%[[X2]], %[[WT]]) {{.*}} -> tensor<6x6xf32>
// CHECK: %[[V:.*]] = "aten.view"(%[[MM]]) {{.*}} -> tensor<2x3x6xf32>
// CHECK: "aten.add"(%[[V]], %arg2)
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<6x4xf32>, %b: tensor<6xf32>) -> tensor<2x3x6xf32> {
  %0 = "aten.linear"(%x, %w, %b) : (tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

// -----

// addmm = mm + bias; var with correction 1 divides by N - 1 = 7.
// CHECK-LABEL: func.func @addmm_var
// CHECK: %[[MM:.*]] = "aten.mm"(%arg1, %arg2)
// CHECK: "aten.add"(%[[MM]], %arg0)
// CHECK: arith.constant dense<7.000000e+00>
// CHECK-NOT: aten.var
func.func @addmm_var(%bias: tensor<5xf32>, %a: tensor<4x3xf32>, %b: tensor<3x5xf32>, %x: tensor<2x8xf32>) -> (tensor<4x5xf32>, tensor<2xf32>) {
  %0 = "aten.addmm"(%bias, %a, %b) : (tensor<5xf32>, tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %1 = "aten.var"(%x) {dims = array<i64: 1>, keepdim = false, correction = 1 : i64} : (tensor<2x8xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<4x5xf32>, tensor<2xf32>
}

// -----

// Primitive ops are left alone.
// CHECK-LABEL: func.func @primitives
// CHECK-NEXT: "aten.exp"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return
func.func @primitives(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "aten.exp"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
