// Layouts that cannot exist are located errors. a.sum(1) + b: the sum reduces along a's
// stick dim, so its result holds one value per stick; adding it to b walks that result
// along b's stick, which needs elements gathered from many sticks (torch-spyre: "no
// mechanism to gather elements from multiple sticks"). A reduction takes its input's
// layout (no restickify before it), so no assignment exists.
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts --verify-diagnostics
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts="solver=beam" --verify-diagnostics

func.func @sum_then_add(%a: tensor<128x256xf16>, %b: tensor<128xf16>) -> tensor<128xf16> {
  %s = "aten.sum"(%a) {dims = array<i64: 1>, keepdim = false} : (tensor<128x256xf16>) -> tensor<128xf16>
  // expected-error @+1 {{'buf1' cannot be laid out on Spyre: buf0 is a reduction along its stick dim (one value per stick); reading it along this op's stick dim needs elements gathered from multiple sticks, and Spyre has no mechanism for that}}
  %y = "aten.add"(%s, %b) : (tensor<128xf16>, tensor<128xf16>) -> tensor<128xf16>
  return %y : tensor<128xf16>
}

// -----

// The reduced values broadcast along the stick instead (keepdim, then a row-wise
// subtract, as softmax does): each stick repeats one value, no gather: this one is fine.
func.func @sum_then_broadcast(%a: tensor<128x256xf16>) -> tensor<128x256xf16> {
  %s = "aten.sum"(%a) {dims = array<i64: 1>, keepdim = true} : (tensor<128x256xf16>) -> tensor<128x1xf16>
  %y = "aten.sub"(%a, %s) : (tensor<128x256xf16>, tensor<128x1xf16>) -> tensor<128x256xf16>
  return %y : tensor<128x256xf16>
}

// -----

// Group norm's view: [2, 16, 8, 8] fp32 summed in groups of 4 channels ([2, 4, 256]). A
// row of 8 fp32 fills a quarter of a 32-lane stick, so 32 consecutive group elements come
// from 4 sticks; the sum takes its input's layout and no stick dim works.
func.func @group_view(%x: tensor<2x16x8x8xf32>) -> tensor<2x4xf32> {
  %v = "aten.view"(%x) : (tensor<2x16x8x8xf32>) -> tensor<2x4x256xf32>
  // expected-error @+1 {{'buf0' cannot be laid out on Spyre: its stick dim walks arg0 across several dims (elements from several sticks)}}
  %s = "aten.sum"(%v) {dims = array<i64: 2>, keepdim = false} : (tensor<2x4x256xf32>) -> tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}
