// --spyre-assign-layouts on torch-spyre's restickify cases (../shared/research/spyre_ascend.md):
// a restickify is inserted iff a consumer needs another stick than its input has, and the
// report's cost is the sum of the restickified buffers' device elements (fp16, 64 per stick).
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts="solver=beam beam-width=8" | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad --spyre-report | FileCheck %s --check-prefix=COST

// a.t() + x: one of the two inputs is restickified, numel(A) = 32768.
// CHECK-LABEL: func.func @transpose_add
// CHECK-SAME: spyre.input_layouts = [{device_size = array<i64: 4, 128, 64>, stick_dim = 1 : i64, stride_map = array<i64: 64, 256, 1>}, {device_size = array<i64: 2, 256, 64>, stick_dim = 1 : i64, stride_map = array<i64: 64, 128, 1>}]
// CHECK: "spyre.restickify"(%arg0) {layout = {device_size = array<i64: 2, 256, 64>, stick_dim = 0 : i64, stride_map = array<i64: 16384, 1, 256>}}
// CHECK-NOT: spyre.restickify
// CHECK: "loop.pointwise"
// CHECK: spyre.stick = 1 : i64
// COST-LABEL: "function": "transpose_add"
// COST: "restickify": {
// COST-NEXT: "count": 1,
// COST-NEXT: "device_elements": 32768,
func.func @transpose_add(%a: tensor<128x256xf16>, %x: tensor<256x128xf16>) -> tensor<256x128xf16> {
  %t = "aten.transpose"(%a) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<128x256xf16>) -> tensor<256x128xf16>
  %y = "aten.add"(%t, %x) : (tensor<256x128xf16>, tensor<256x128xf16>) -> tensor<256x128xf16>
  return %y : tensor<256x128xf16>
}

// -----

// x @ y: A is sticked on K and B on N already: no restickify.
// CHECK-LABEL: func.func @mm
// CHECK-NOT: spyre.restickify
// CHECK: "loop.extern"
// CHECK-SAME: spyre.stick = 1 : i64
// COST-LABEL: "function": "mm"
// COST: "count": 0,
// COST-NEXT: "device_elements": 0,
func.func @mm(%x: tensor<128x256xf16>, %y: tensor<256x64xf16>) -> tensor<128x64xf16> {
  %z = "aten.mm"(%x, %y) : (tensor<128x256xf16>, tensor<256x64xf16>) -> tensor<128x64xf16>
  return %z : tensor<128x64xf16>
}

// -----

// x.t() @ y: x's stick (its dim 1, A's M) is not K: x is restickified, numel(x) = 32768.
// CHECK-LABEL: func.func @mm_tx
// CHECK: %[[R:.*]] = "spyre.restickify"(%arg0) {layout = {device_size = array<i64: 4, 128, 64>, stick_dim = 0 : i64
// CHECK-NOT: spyre.restickify
// CHECK: "loop.extern"(%[[R]], %arg1)
// COST-LABEL: "function": "mm_tx"
// COST: "count": 1,
// COST-NEXT: "device_elements": 32768,
func.func @mm_tx(%x: tensor<256x128xf16>, %y: tensor<256x64xf16>) -> tensor<128x64xf16> {
  %t = "aten.transpose"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<256x128xf16>) -> tensor<128x256xf16>
  %z = "aten.mm"(%t, %y) : (tensor<128x256xf16>, tensor<256x64xf16>) -> tensor<128x64xf16>
  return %z : tensor<128x64xf16>
}

// -----

// x.t() @ y.t(): both operands, numel(x) + numel(y) = 32768 + 16384.
// CHECK-LABEL: func.func @mm_txty
// CHECK: %[[A:.*]] = "spyre.restickify"(%arg0)
// CHECK: %[[B:.*]] = "spyre.restickify"(%arg1)
// CHECK: "loop.extern"(%[[A]], %[[B]])
// COST-LABEL: "function": "mm_txty"
// COST: "count": 2,
// COST-NEXT: "device_elements": 49152,
func.func @mm_txty(%x: tensor<256x128xf16>, %y: tensor<64x256xf16>) -> tensor<128x64xf16> {
  %t = "aten.transpose"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<256x128xf16>) -> tensor<128x256xf16>
  %u = "aten.transpose"(%y) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<64x256xf16>) -> tensor<256x64xf16>
  %z = "aten.mm"(%t, %u) : (tensor<128x256xf16>, tensor<256x64xf16>) -> tensor<128x64xf16>
  return %z : tensor<128x64xf16>
}

// -----

// a.t() + x + b.t() + y: two of the four restickified, 2 numel(A) = 65536.
// CHECK-LABEL: func.func @two_transposes
// CHECK-COUNT-2: "spyre.restickify"
// CHECK-NOT: spyre.restickify
// COST-LABEL: "function": "two_transposes"
// COST: "count": 2,
// COST-NEXT: "device_elements": 65536,
func.func @two_transposes(%a: tensor<128x256xf16>, %x: tensor<256x128xf16>, %b: tensor<128x256xf16>, %y: tensor<256x128xf16>) -> tensor<256x128xf16> {
  %t = "aten.transpose"(%a) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<128x256xf16>) -> tensor<256x128xf16>
  %s = "aten.add"(%t, %x) : (tensor<256x128xf16>, tensor<256x128xf16>) -> tensor<256x128xf16>
  %u = "aten.transpose"(%b) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<128x256xf16>) -> tensor<256x128xf16>
  %v = "aten.add"(%s, %u) : (tensor<256x128xf16>, tensor<256x128xf16>) -> tensor<256x128xf16>
  %w = "aten.add"(%v, %y) : (tensor<256x128xf16>, tensor<256x128xf16>) -> tensor<256x128xf16>
  return %w : tensor<256x128xf16>
}

// -----

// A reshape read through floordiv/mod that keeps each stick whole: heads [2, 4, 64, 64]
// fp16 transposed and merged to [2, 64, 256] (attention's output projection input). Each
// block of 64 merged elements is one head's row, one stick of x: no restickify.
// CHECK-LABEL: func.func @merge_heads
// CHECK-NOT: spyre.restickify
// CHECK: return
// COST-LABEL: "function": "merge_heads"
// COST: "count": 0,
func.func @merge_heads(%x: tensor<2x4x64x64xf16>, %y: tensor<2x64x256xf16>) -> tensor<2x64x256xf16> {
  %t = "aten.transpose"(%x) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x4x64x64xf16>) -> tensor<2x64x4x64xf16>
  %m = "aten.reshape"(%t) : (tensor<2x64x4x64xf16>) -> tensor<2x64x256xf16>
  %z = "aten.add"(%m, %y) : (tensor<2x64x256xf16>, tensor<2x64x256xf16>) -> tensor<2x64x256xf16>
  return %z : tensor<2x64x256xf16>
}

// -----

// A flattening read across sub-stick rows: x [4, 16] fp32 (rows of 16 in 32-lane sticks)
// read as [64]. No stick of x serves it; a restickify into the flattened view's layout
// does (merged = true: x viewed as [64], 2 sticks of 32).
// CHECK-LABEL: func.func @flatten
// CHECK: "spyre.restickify"(%arg0) {layout = {device_size = array<i64: 2, 32>, merged = true, stick_dim = 0 : i64, stride_map = array<i64: 32, 1>}}
// COST-LABEL: "function": "flatten"
// COST: "count": 1,
// COST-NEXT: "device_elements": 64,
func.func @flatten(%x: tensor<4x16xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %f = "aten.reshape"(%x) : (tensor<4x16xf32>) -> tensor<64xf32>
  %z = "aten.mul"(%f, %y) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %z : tensor<64xf32>
}

// -----

// Group norm's view: [2, 16, 8, 8] fp32 summed in groups of 4 channels ([2, 4, 256]). Rows
// of 8 fp32 fill a quarter of a 32-lane stick, so no stick of x serves the sum; a copy
// into the view's layout (channels' 64 elements merged, 2 sticks each) does, and may
// feed a reduction (a view is materialized anyway), unlike a plain change of stick.
// CHECK-LABEL: func.func @group_view
// CHECK: "spyre.restickify"(%arg0) {layout = {device_size = array<i64: 16, 2, 2, 32>, merged = true, stick_dim = 2 : i64
// COST-LABEL: "function": "group_view"
// COST: "count": 1,
// COST-NEXT: "device_elements": 2048,
func.func @group_view(%x: tensor<2x16x8x8xf32>) -> tensor<2x4xf32> {
  %v = "aten.view"(%x) : (tensor<2x16x8x8xf32>) -> tensor<2x4x256xf32>
  %s = "aten.sum"(%v) {dims = array<i64: 2>, keepdim = false} : (tensor<2x4x256xf32>) -> tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}
