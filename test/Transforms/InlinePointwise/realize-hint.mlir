// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise | FileCheck %s

// Inductor's StorageBox.realize_hint (ir.py), which the pooling lowerings call on their
// input: the producer is stored when its body, producers inlined, loads more than once
// at a non-constant index (`inner_fn_opcount().nontrivial_read_count > 1`). fuse-import
// writes `fuselab.realize_hint` on the ops of a max pool that read its input;
// --lower-aten-to-loop marks the node they read with `realize_hint`.

// relu(x + bias[c]) loads x and the bias: stored (buf0), the window reads it.
// CHECK-LABEL: func.func @two_reads
// CHECK: name = "buf0", origins = ["add", "relu"], ranges = array<i64: 1, 4, 8, 8>, realize_hint}
// CHECK: "loop.load"(%0)
// CHECK: name = "buf1", origins = ["maximum"]
func.func @two_reads(%x: tensor<1x4x8x8xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x4xf32> {
  %bv = "aten.view"(%b) : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
  %s = "aten.add"(%x, %bv) : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = "aten.relu"(%s) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %t0 = "aten.slice"(%r) {dim = 3 : i64, start = 0 : i64, end = 7 : i64, step = 2 : i64, fuselab.realize_hint} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x4xf32>
  %t1 = "aten.slice"(%r) {dim = 3 : i64, start = 1 : i64, end = 8 : i64, step = 2 : i64, fuselab.realize_hint} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x4xf32>
  %m = "aten.maximum"(%t0, %t1) : (tensor<1x4x8x4xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  return %m : tensor<1x4x8x4xf32>
}

// -----

// relu(x) loads once: recomputed in the window, one node.
// CHECK-LABEL: func.func @one_read
// CHECK-NOT: realize_hint}
// CHECK: name = "buf0", origins = ["maximum", "relu"]
// CHECK-NOT: "loop.pointwise"
func.func @one_read(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x4xf32> {
  %r = "aten.relu"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %t0 = "aten.slice"(%r) {dim = 3 : i64, start = 0 : i64, end = 7 : i64, step = 2 : i64, fuselab.realize_hint} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x4xf32>
  %t1 = "aten.slice"(%r) {dim = 3 : i64, start = 1 : i64, end = 8 : i64, step = 2 : i64, fuselab.realize_hint} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x4xf32>
  %m = "aten.maximum"(%t0, %t1) : (tensor<1x4x8x4xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  return %m : tensor<1x4x8x4xf32>
}

// -----

// Without the hint relu(x + bias[c]) is recomputed: one node.
// CHECK-LABEL: func.func @no_hint
// CHECK: name = "buf0", origins = ["add", "maximum", "relu"]
// CHECK-NOT: "loop.pointwise"
func.func @no_hint(%x: tensor<1x4x8x8xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x4xf32> {
  %bv = "aten.view"(%b) : (tensor<4xf32>) -> tensor<1x4x1x1xf32>
  %s = "aten.add"(%x, %bv) : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = "aten.relu"(%s) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %t0 = "aten.slice"(%r) {dim = 3 : i64, start = 0 : i64, end = 7 : i64, step = 2 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x4xf32>
  %t1 = "aten.slice"(%r) {dim = 3 : i64, start = 1 : i64, end = 8 : i64, step = 2 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x4xf32>
  %m = "aten.maximum"(%t0, %t1) : (tensor<1x4x8x4xf32>, tensor<1x4x8x4xf32>) -> tensor<1x4x8x4xf32>
  return %m : tensor<1x4x8x4xf32>
}

// -----

// `fuselab.inline` (a part of one computation, as a max pool's partial maximums): d reads
// five buffers and has two users, which stores it (should_realize_on_reuse) — unless it
// is a part; then only g is stored.
// CHECK-LABEL: func.func @reused
// CHECK: name = "buf0", origins = ["add"]
// CHECK: name = "buf1", origins = ["add", "exp", "neg"]
// CHECK-LABEL: func.func @reused_part
// CHECK: name = "buf0", origins = ["add", "exp", "neg"]
// CHECK-NOT: "loop.pointwise"
func.func @reused(%x1: tensor<16xf32>, %x2: tensor<16xf32>, %x3: tensor<16xf32>, %x4: tensor<16xf32>, %x5: tensor<16xf32>) -> tensor<16xf32> {
  %a = "aten.add"(%x1, %x2) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %b = "aten.add"(%a, %x3) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %c = "aten.add"(%b, %x4) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %d = "aten.add"(%c, %x5) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %e = "aten.exp"(%d) : (tensor<16xf32>) -> tensor<16xf32>
  %f = "aten.neg"(%d) : (tensor<16xf32>) -> tensor<16xf32>
  %g = "aten.add"(%e, %f) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %g : tensor<16xf32>
}
func.func @reused_part(%x1: tensor<16xf32>, %x2: tensor<16xf32>, %x3: tensor<16xf32>, %x4: tensor<16xf32>, %x5: tensor<16xf32>) -> tensor<16xf32> {
  %a = "aten.add"(%x1, %x2) {fuselab.inline} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %b = "aten.add"(%a, %x3) {fuselab.inline} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %c = "aten.add"(%b, %x4) {fuselab.inline} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %d = "aten.add"(%c, %x5) {fuselab.inline} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %e = "aten.exp"(%d) : (tensor<16xf32>) -> tensor<16xf32>
  %f = "aten.neg"(%d) : (tensor<16xf32>) -> tensor<16xf32>
  %g = "aten.add"(%e, %f) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %g : tensor<16xf32>
}
