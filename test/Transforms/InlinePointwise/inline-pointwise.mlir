// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --mlir-print-local-scope | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise="realize-reads-threshold=1" | FileCheck %s --check-prefix=READS
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise="realize-opcount-threshold=0" | FileCheck %s --check-prefix=OPS

// The seed model: a and s have two users each but small bodies reading two buffers, so
// they are recomputed in every user (a in s once, for both a*a and a*0.1: a body's
// repeated computations are one, as Inductor's kernel CSE makes them); exactly two
// buffers remain: the row sum buf0 (a reduction is always realized; mean's division
// goes to its user) and the output buf1.
// CHECK-LABEL: func.func @seed
// CHECK: %[[BUF0:.*]] = "loop.reduction"() ({
// CHECK: "loop.load"(%arg0) {index = affine_map<(d0, d1) -> (d0 * 1024 + d1)>}
// CHECK-NOT: "loop.load"(%arg0)
// CHECK: %[[A:.*]] = arith.maximumf
// CHECK: arith.mulf %[[A]], %[[A]]
// CHECK: arith.mulf %[[A]], %cst
// CHECK-NOT: "loop.load"(%arg0)
// CHECK: gpu.yield
// CHECK-NEXT: }) {fuselab.eager_id = {{[0-9]+}} : i64, kind = "sum", name = "buf0", origins = ["add", "mean", "mul", "relu"], ranges = array<i64: 1024>, reduction_ranges = array<i64: 1024>}
// CHECK: %[[BUF1:.*]] = "loop.pointwise"() ({
// CHECK: "loop.load"(%[[BUF0]]) {index = affine_map<(d0, d1) -> (d0)>} : (tensor<1024x1xf32>) -> f32
// CHECK: arith.constant 1.024000e+03 : f32
// CHECK: }) {fuselab.eager_id = {{[0-9]+}} : i64, name = "buf1", origins = ["add", "mean", "mul", "relu", "sub"], ranges = array<i64: 1024, 1024>}
// CHECK-NOT: "loop.pointwise"
// CHECK: return %[[BUF1]]
// With a reads threshold of 1, a (two users, two buffers read) is realized.
// READS-LABEL: func.func @seed
// READS: name = "buf0", origins = ["add", "mul", "relu"]
// READS: name = "buf1"
// READS: name = "buf2"
// Every node is realized when any op exceeds the op-count threshold.
// OPS-LABEL: func.func @seed
// OPS: name = "buf9"
func.func @seed(%x: tensor<1024x1024xf32>, %bias: tensor<1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %c0 = arith.constant dense<1.1> : tensor<f32>
  %x11 = "aten.mul"(%x, %c0) : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %t = "aten.add"(%x11, %bias) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %a = "aten.relu"(%t) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %p = "aten.mul"(%a, %a) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c1 = arith.constant dense<0.1> : tensor<f32>
  %q = "aten.mul"(%a, %c1) : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %s = "aten.add"(%p, %q) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = "aten.mean"(%s) {dims = array<i64: 1>, keepdim = true} : (tensor<1024x1024xf32>) -> tensor<1024x1xf32>
  %d = "aten.sub"(%s, %m) : (tensor<1024x1024xf32>, tensor<1024x1xf32>) -> tensor<1024x1024xf32>
  %g = "aten.mul"(%d, %gamma) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %y = "aten.add"(%g, %beta) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}

// -----

// A value read by an extern kernel is realized (ExternKernel inputs are buffers);
// a view of it is passed to the extern without a copy.
// CHECK-LABEL: func.func @extern_input
// CHECK: %[[R:.*]] = "loop.pointwise"
// CHECK: name = "buf0", origins = ["relu"]
// CHECK: "loop.extern"(%[[R]], %arg1) {fuselab.eager_id = {{[0-9]+}} : i64, kind = "mm", name = "buf1"
// CHECK: name = "buf2", origins = ["add"]
func.func @extern_input(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = "aten.relu"(%x) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = "aten.mm"(%r, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = "aten.add"(%m, %r) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// A multi-user value reading more than four buffers is realized (realize_reads_threshold),
// here the five-input sum read by two users.
// CHECK-LABEL: func.func @many_reads
// CHECK: name = "buf0", origins = ["add"]
// CHECK: name = "buf1", origins = ["exp"]
// CHECK: name = "buf2", origins = ["sin"]
func.func @many_reads(%a: tensor<16xf32>, %b: tensor<16xf32>, %c: tensor<16xf32>, %d: tensor<16xf32>, %e: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = "aten.add"(%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %1 = "aten.add"(%0, %c) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %2 = "aten.add"(%1, %d) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %3 = "aten.add"(%2, %e) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %4 = "aten.exp"(%3) : (tensor<16xf32>) -> tensor<16xf32>
  %5 = "aten.sin"(%3) : (tensor<16xf32>) -> tensor<16xf32>
  return %4, %5 : tensor<16xf32>, tensor<16xf32>
}

// -----

// A view of an unrealized node is inlined through the remapped index: the transposed
// read of exp(x) becomes exp of a transposed read of x.
// CHECK-LABEL: func.func @inline_through_view
// CHECK: "loop.pointwise"() ({
// CHECK-NEXT: ^bb0
// CHECK-NEXT: "loop.load"(%arg0) {index = affine_map<(d0, d1) -> (d0 + d1 * 4)>}
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.negf
// CHECK: }) {fuselab.eager_id = {{[0-9]+}} : i64, name = "buf0", origins = ["exp", "neg"]
// CHECK-NOT: "loop.pointwise"
func.func @inline_through_view(%x: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %0 = "aten.exp"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = "aten.transpose"(%0) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %2 = "aten.neg"(%1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
}
