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

