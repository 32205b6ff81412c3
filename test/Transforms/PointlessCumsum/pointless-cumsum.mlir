// RUN: fuse-opt %s --split-input-file --pointless-cumsum | FileCheck %s
// RUN: fuse-opt %s --split-input-file --pointless-cumsum --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | FileCheck %s --check-prefix=FUSED

// Inductor's pointless_cumsum_replacement (post_grad.py, from OPT's position ids): a
// cumsum of a full tensor is arange(1, n + 1) * fill, viewed and expanded — no scan.
// fuse-import writes the cumsum as a masked reduction, its ops one op group.

// OPT's form: cumsum(ones(1, 16), dim=1), in f32.
// CHECK-LABEL: func.func @ones
// CHECK-NOT: op_group
// CHECK: %[[I:.*]] = "aten.arange"() {start = 1.000000e+00 : f64, step = 1.000000e+00 : f64} : () -> tensor<16xf32>
// CHECK-NEXT: %[[V:.*]] = "aten.view"(%[[I]]) : (tensor<16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT: %[[E:.*]] = "aten.expand"(%[[V]]) : (tensor<1x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT: return %[[E]]
// One pointwise kernel computing the index, the output a view of it: no reduction.
// FUSED-LABEL: func.func @ones
// FUSED-NOT: "loop.reduction"
// FUSED: name = "buf0", origins = ["arange"]
// FUSED: name = "fused_arange_0", strategy = "inductor"
// FUSED-NOT: "loop.reduction"
// FUSED: return
func.func @ones() -> tensor<1x16xf32> {
  %full = arith.constant dense<1.0> : tensor<1x16xf32>
  %r = "aten.view"(%full) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x16xf32>) -> tensor<1x1x16xf32>
  %x = "aten.expand"(%r) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
  %n = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : () -> tensor<16xi64>
  %i = "aten.view"(%n) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<16xi64>) -> tensor<16x1xi64>
  %j = "aten.view"(%n) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<16xi64>) -> tensor<1x16xi64>
  %t = "aten.le"(%j, %i) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x16xi64>, tensor<16x1xi64>) -> tensor<16x16xi1>
  %m = "aten.view"(%t) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<16x16xi1>) -> tensor<1x16x16xi1>
  %z = arith.constant dense<0.0> : tensor<f32>
  %k = "aten.where"(%m, %x, %z) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x16x16xi1>, tensor<1x16x16xf32>, tensor<f32>) -> tensor<1x16x16xf32>
  %c = "aten.sum"(%k) {dims = array<i64: 2>, keepdim = false, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x16x16xf32>) -> tensor<1x16xf32>
  return %c : tensor<1x16xf32>
}

// -----

// An integer fill of 2 along dim 0 of a [4, 3] tensor: 2 * arange(1, 5) in int64.
// CHECK-LABEL: func.func @twos
// CHECK: %[[I:.*]] = "aten.arange"() {start = 1.000000e+00 : f64, step = 1.000000e+00 : f64} : () -> tensor<4xi64>
// CHECK-NEXT: %[[F:.*]] = arith.constant dense<2> : tensor<i64>
// CHECK-NEXT: %[[S:.*]] = "aten.mul"(%[[I]], %[[F]]) : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT: %[[V:.*]] = "aten.view"(%[[S]]) : (tensor<4xi64>) -> tensor<4x1xi64>
// CHECK-NEXT: %[[E:.*]] = "aten.expand"(%[[V]]) : (tensor<4x1xi64>) -> tensor<4x3xi64>
// CHECK-NEXT: return %[[E]]
func.func @twos() -> tensor<4x3xi64> {
  %full = arith.constant dense<2> : tensor<4x3xi64>
  %r = "aten.view"(%full) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<4x3xi64>) -> tensor<4x1x3xi64>
  %x = "aten.expand"(%r) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<4x1x3xi64>) -> tensor<4x4x3xi64>
  %n = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : () -> tensor<4xi64>
  %i = "aten.view"(%n) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<4xi64>) -> tensor<4x1xi64>
  %j = "aten.view"(%n) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<4xi64>) -> tensor<1x4xi64>
  %t = "aten.le"(%j, %i) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x4xi64>, tensor<4x1xi64>) -> tensor<4x4xi1>
  %m = "aten.view"(%t) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<4x4xi1>) -> tensor<4x4x1xi1>
  %z = arith.constant dense<0> : tensor<i64>
  %k = "aten.where"(%m, %x, %z) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<4x4x1xi1>, tensor<4x4x3xi64>, tensor<i64>) -> tensor<4x4x3xi64>
  %c = "aten.sum"(%k) {dims = array<i64: 1>, keepdim = false, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<4x4x3xi64>) -> tensor<4x3xi64>
  return %c : tensor<4x3xi64>
}

// -----

// A cumsum of an input is a scan: kept.
// CHECK-LABEL: func.func @input
// CHECK: "aten.where"
// CHECK: "aten.sum"
func.func @input(%a: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %r = "aten.view"(%a) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x8xf32>) -> tensor<1x1x8xf32>
  %x = "aten.expand"(%r) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x1x8xf32>) -> tensor<1x8x8xf32>
  %n = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : () -> tensor<8xi64>
  %i = "aten.view"(%n) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<8xi64>) -> tensor<8x1xi64>
  %j = "aten.view"(%n) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<8xi64>) -> tensor<1x8xi64>
  %t = "aten.le"(%j, %i) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x8xi64>, tensor<8x1xi64>) -> tensor<8x8xi1>
  %m = "aten.view"(%t) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<8x8xi1>) -> tensor<1x8x8xi1>
  %z = arith.constant dense<0.0> : tensor<f32>
  %k = "aten.where"(%m, %x, %z) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x8x8xi1>, tensor<1x8x8xf32>, tensor<f32>) -> tensor<1x8x8xf32>
  %c = "aten.sum"(%k) {dims = array<i64: 2>, keepdim = false, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x8x8xf32>) -> tensor<1x8xf32>
  return %c : tensor<1x8xf32>
}

// -----

// A group labelled cumsum whose mask is j >= i sums the suffix, not the prefix (found by
// fuse-fuzz --patterns: the pass trusted the label and gave arange values): kept.
// CHECK-LABEL: func.func @reversed
// CHECK: "aten.ge"
// CHECK: "aten.where"
// CHECK: "aten.sum"
// CHECK-NOT: "aten.arange"() {start = 1.0
func.func @reversed() -> tensor<2x6xf32> {
  %full = arith.constant dense<1.0> : tensor<2x6xf32>
  %r = "aten.view"(%full) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<2x6xf32>) -> tensor<2x1x6xf32>
  %x = "aten.expand"(%r) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<2x1x6xf32>) -> tensor<2x6x6xf32>
  %n = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : () -> tensor<6xi64>
  %i = "aten.view"(%n) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<6xi64>) -> tensor<6x1xi64>
  %j = "aten.view"(%n) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<6xi64>) -> tensor<1x6xi64>
  %t = "aten.ge"(%j, %i) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x6xi64>, tensor<6x1xi64>) -> tensor<6x6xi1>
  %m = "aten.view"(%t) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<6x6xi1>) -> tensor<1x6x6xi1>
  %z = arith.constant dense<0.0> : tensor<f32>
  %k = "aten.where"(%m, %x, %z) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x6x6xi1>, tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6x6xf32>
  %c = "aten.sum"(%k) {dims = array<i64: 2>, keepdim = false, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<2x6x6xf32>) -> tensor<2x6xf32>
  return %c : tensor<2x6xf32>
}
