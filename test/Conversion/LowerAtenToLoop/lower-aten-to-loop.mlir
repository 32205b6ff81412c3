// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --mlir-print-local-scope | FileCheck %s
// RUN: fuse-opt %S/Inputs/errors.mlir --split-input-file --verify-diagnostics --lower-aten-to-loop
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop="materialize-views=true" --mlir-print-local-scope | FileCheck %s --check-prefix=VIEWS
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --mlir-print-local-scope | FileCheck %s --check-prefix=GPU
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop="pattern-matcher=false" --mlir-print-local-scope | FileCheck %s --check-prefix=NOPM

// Elementwise ops become loop.pointwise nodes; a broadcast bias has no row index
// (stride 0, seed §1.1); rank-0 constants fold into the body. Every node carries the
// eager id of its aten op (one per op, in order).
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: attributes {fuselab.unfused = array<i64: 2, 8392704, 8388608>}
// CHECK: %[[T:.*]] = "loop.pointwise"() ({
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: %[[X:.*]] = "loop.load"(%arg0) {index = affine_map<(d0, d1) -> (d0 * 1024 + d1)>} : (tensor<1024x1024xf32>) -> f32
// CHECK-NEXT: %[[C:.*]] = arith.constant 1.100000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[C]] : f32
// CHECK-NEXT: gpu.yield %[[M]] : f32
// CHECK-NEXT: }) {fuselab.eager_id = 0 : i64, name = "buf0", origins = ["mul"], ranges = array<i64: 1024, 1024>}
// CHECK: "loop.pointwise"() ({
// CHECK: "loop.load"(%[[T]]) {index = affine_map<(d0, d1) -> (d0 * 1024 + d1)>}
// CHECK: "loop.load"(%arg1) {index = affine_map<(d0, d1) -> (d1)>} : (tensor<1024xf32>) -> f32
// CHECK: arith.addf
// CHECK: }) {fuselab.eager_id = 1 : i64, name = "buf1", origins = ["add"]
// CHECK-NOT: aten.
func.func @bias_add(%x: tensor<1024x1024xf32>, %bias: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %c = arith.constant dense<1.1> : tensor<f32>
  %0 = "aten.mul"(%x, %c) : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %1 = "aten.add"(%0, %bias) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}

// -----

// A reduction over the middle dim: kept dims are the ranges, the reduced dim the
// reduction range, and the reduced dim's variable comes last in the body.
// CHECK-LABEL: func.func @sum_middle
// CHECK: "loop.reduction"() ({
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT: "loop.load"(%arg0) {index = affine_map<(d0, d1, d2) -> (d0 * 20 + d1 + d2 * 5)>}
// CHECK: }) {fuselab.eager_id = {{[0-9]+}} : i64, kind = "sum", name = "buf0", origins = ["sum"], ranges = array<i64: 2, 5>, reduction_ranges = array<i64: 4>} : () -> tensor<2x1x5xf32>
// CHECK: "loop.reduction"
// CHECK: kind = "max"
// CHECK: "loop.reduction"
// CHECK: kind = "min", name = "buf2", origins = ["amin"], ranges = array<i64>, reduction_ranges = array<i64: 2, 4, 5>
func.func @sum_middle(%x: tensor<2x4x5xf32>) -> (tensor<2x1x5xf32>, tensor<2x5xf32>, tensor<f32>) {
  %0 = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<2x4x5xf32>) -> tensor<2x1x5xf32>
  %1 = "aten.amax"(%x) {dims = array<i64: -2>, keepdim = false} : (tensor<2x4x5xf32>) -> tensor<2x5xf32>
  %2 = "aten.amin"(%x) {dims = array<i64>, keepdim = false} : (tensor<2x4x5xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<2x1x5xf32>, tensor<2x5xf32>, tensor<f32>
}

// -----

// Views are index remappings, never nodes: transpose, expand, unsqueeze and slice
// fold into the consumer's load index.
// CHECK-LABEL: func.func @views
// CHECK: "loop.pointwise"
// CHECK: "loop.load"(%arg0) {index = affine_map<(d0, d1) -> (d0 + d1 * 4)>} : (tensor<3x4xf32>) -> f32
// CHECK: "loop.load"(%arg1) {index = affine_map<(d0, d1) -> (d0 * 2 + 1)>} : (tensor<4x2xf32>) -> f32
// CHECK: origins = ["add"]
// CHECK-NOT: "loop.pointwise"
// CHECK: return
func.func @views(%x: tensor<3x4xf32>, %y: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %t = "aten.transpose"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %s = "aten.slice"(%y) {dim = 1 : i64, start = 1 : i64, end = 2 : i64, step = 1 : i64} : (tensor<4x2xf32>) -> tensor<4x1xf32>
  %e = "aten.expand"(%s) : (tensor<4x1xf32>) -> tensor<4x3xf32>
  %0 = "aten.add"(%t, %e) : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Reshapes of contiguous data simplify to the identity index (floordiv/mod cancel).
// CHECK-LABEL: func.func @reshape_roundtrip
// CHECK: "loop.load"(%arg0) {index = affine_map<(d0, d1, d2) -> (d0 * 64 + d1 * 8 + d2)>}
func.func @reshape_roundtrip(%x: tensor<4x8x8xf32>) -> tensor<4x8x8xf32> {
  %0 = "aten.view"(%x) : (tensor<4x8x8xf32>) -> tensor<32x8xf32>
  %1 = "aten.view"(%0) : (tensor<32x8xf32>) -> tensor<4x8x8xf32>
  %2 = "aten.neg"(%1) : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  return %2 : tensor<4x8x8xf32>
}

// -----

// gather reads its source through an indirect index (a symbol bound to the loaded,
// index-cast value); cat selects between two in-bounds reads.
// CHECK-LABEL: func.func @gather_cat
// CHECK: %[[I:.*]] = "loop.load"(%arg1) {index = affine_map<(d0, d1) -> (d0)>} : (tensor<4x1xi64>) -> i64
// CHECK: %[[IX:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK: "loop.load"(%arg0, %[[IX]]) {index = affine_map<(d0, d1)[s0] -> (d0 * 10 + s0)>} : (tensor<4x10xf32>, index) -> f32
// CHECK: origins = ["gather"]
// CHECK: "loop.load"(%arg2) {index = affine_map<(d0, d1) -> (d0 * 2 + d1 mod 2)>}
// CHECK: "loop.load"(%arg3) {index = affine_map<(d0, d1) -> (d0 * 3 + (d1 + 1) mod 3)>}
// CHECK: affine.apply affine_map<(d0, d1) -> (d1)>
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: origins = ["cat"]
func.func @gather_cat(%x: tensor<4x10xf32>, %i: tensor<4x1xi64>, %a: tensor<4x2xf32>, %b: tensor<4x3xf32>) -> (tensor<4x1xf32>, tensor<4x5xf32>) {
  %0 = "aten.gather"(%x, %i) {dim = 1 : i64} : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
  %1 = "aten.cat"(%a, %b) {dim = 1 : i64} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<4x5xf32>
  return %0, %1 : tensor<4x1xf32>, tensor<4x5xf32>
}

// -----

// Matmuls are externs; a transposed operand is passed as a strided view of its
// buffer (offset, sizes, strides) instead of a copy. A bias add whose result is not
// consumed by a pointwise op folds into the extern (Inductor's addmm).
// CHECK-LABEL: func.func @matmul
// CHECK: %[[MM:.*]] = "loop.extern"(%arg0, %arg1, %arg2) {fuselab.eager_id = 1 : i64, kind = "mm", name = "buf0", operand_views = [array<i64>, array<i64: 0, 8, 4, 1, 8>, array<i64>], origins = ["addmm"]} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK: return %[[MM]]
func.func @matmul(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %wt = "aten.permute"(%w) {dims = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %0 = "aten.mm"(%x, %wt) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %1 = "aten.add"(%0, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// A bias computed after the mm cannot fold into the extern, which runs where the mm
// was (issue 13, item 2: the fold made the extern use a value before its definition).
// CHECK-LABEL: func.func @matmul_late_bias
// CHECK: %[[MM:.*]] = "loop.extern"(%arg0, %arg1) {{.*}}kind = "mm"{{.*}}origins = ["mm"]
// CHECK: %[[E:.*]] = "loop.pointwise"
// CHECK: math.exp
// CHECK: %[[S:.*]] = "loop.pointwise"
// CHECK: "loop.load"(%[[MM]])
// CHECK: "loop.load"(%[[E]])
// CHECK: return %[[S]]
func.func @matmul_late_bias(%a: tensor<1x3xf32>, %w: tensor<3x3xf32>) -> tensor<1x3xf32> {
  %0 = "aten.mm"(%a, %w) : (tensor<1x3xf32>, tensor<3x3xf32>) -> tensor<1x3xf32>
  %1 = "aten.exp"(%a) : (tensor<1x3xf32>) -> tensor<1x3xf32>
  %2 = "aten.add"(%0, %1) : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  return %2 : tensor<1x3xf32>
}

// -----

// Inductor's post-grad rule (torch/_inductor/fx_passes/post_grad.py): mm + bias is one
// addmm unless should_prefer_unfused_addmm — on a GPU, with every user of the sum
// pointwise, the bias stays in the pointwise node. On the CPU target (the default) it is
// folded; with pattern-matcher=false (Inductor's config.pattern_matcher off) a user's
// mm + add is never folded, and linear's add (its own addmm) always is.
// CHECK-LABEL: func.func @matmul_relu
// CHECK: "loop.extern"(%arg0, %arg1, %arg2) {fuselab.eager_id = 0 : i64, kind = "mm"
// CHECK-SAME: origins = ["addmm"]
// CHECK-NOT: origins = ["add"]
// CHECK: origins = ["relu"]
// GPU-LABEL: func.func @matmul_relu
// GPU: "loop.extern"(%arg0, %arg1) {fuselab.eager_id = 0 : i64, kind = "mm"
// GPU: origins = ["add"]
// GPU: origins = ["relu"]
// NOPM-LABEL: func.func @matmul_relu
// NOPM: "loop.extern"(%arg0, %arg1) {fuselab.eager_id = 0 : i64, kind = "mm"
// NOPM: origins = ["add"]
// NOPM-LABEL: func.func @linear_relu
// NOPM: "loop.extern"(%arg0, %arg1, %arg2) {{.*}}kind = "mm"
// NOPM-SAME: origins = ["addmm"]
// NOPM: origins = ["relu"]
// GPU-LABEL: func.func @linear_relu
// GPU: "loop.extern"(%arg0, %arg1) {{.*}}kind = "mm"
// GPU: name = "buf1", origins = ["linear"]
func.func @matmul_relu(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = "aten.mm"(%x, %w) : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %1 = "aten.add"(%0, %b) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = "aten.relu"(%1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

func.func @linear_relu(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = "aten.linear"(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = "aten.relu"(%0) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// A graph output that is a strided view of a buffer is returned as a loop.view (no
// copy); one that no stride can express is materialized by a copy node.
// CHECK-LABEL: func.func @view_outputs
// CHECK: %[[V:.*]] = "loop.view"(%arg0) {layout = array<i64: 0, 4, 3, 1, 4>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK: %[[C:.*]] = "loop.pointwise"
// CHECK: origins = ["clone"]
// CHECK: return %[[V]], %[[C]]
func.func @view_outputs(%x: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<12xf32>) {
  %0 = "aten.transpose"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %1 = "aten.reshape"(%0) : (tensor<4x3xf32>) -> tensor<12xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<12xf32>
}

// -----

// Integer exponents become multiplications (Inductor's pow lowering); dtype casts use
// arith conversions; where selects.
// CHECK-LABEL: func.func @scalar_bodies
// CHECK: %[[X:.*]] = "loop.load"(%arg0)
// CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[CUBE:.*]] = arith.mulf %[[X]], %[[SQ]] : f32
// CHECK-NOT: math.powf
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @scalar_bodies(%x: tensor<8xf32>, %n: tensor<8xi64>, %c: tensor<8xi1>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %three = arith.constant dense<3.0> : tensor<f32>
  %0 = "aten.pow"(%x, %three) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = "aten.to_dtype"(%n) : (tensor<8xi64>) -> tensor<8xf32>
  %2 = "aten.where"(%c, %x, %1) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// With materialize-views=true a view is a copy node of its own (TVM's op-per-binding
// form) and its consumer reads the copy contiguously. The primitives of a decomposed
// composite (mean = sum + div) share the composite's eager id.
// VIEWS-LABEL: func.func @materialized_views
// VIEWS: %[[T:.*]] = "loop.pointwise"() ({
// VIEWS: "loop.load"(%arg0) {index = affine_map<(d0, d1) -> (d0 + d1 * 4)>}
// VIEWS: }) {fuselab.eager_id = 1 : i64, name = "buf0", origins = ["transpose"]
// VIEWS: "loop.load"(%[[T]]) {index = affine_map<(d0, d1) -> (d0 * 3 + d1)>}
// VIEWS: }) {fuselab.eager_id = 2 : i64, name = "buf1", origins = ["exp"]
// VIEWS: }) {fuselab.eager_id = 0 : i64, kind = "sum", name = "buf2", origins = ["mean"]
// VIEWS: }) {fuselab.eager_id = 0 : i64, name = "buf3", origins = ["mean"]
func.func @materialized_views(%x: tensor<3x4xf32>) -> tensor<4x1xf32> {
  %t = "aten.transpose"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %e = "aten.exp"(%t) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = "aten.mean"(%e) {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  return %m : tensor<4x1xf32>
}

// -----

// A view to its own shape is no op even then (Relax's graph of a torch.export program
// has none): exp reads the argument itself. An expand to its own shape stays a node, as
// Relax keeps its broadcast_to.
// VIEWS-LABEL: func.func @identity_views
// VIEWS: "loop.load"(%arg0) {index = affine_map<(d0, d1) -> (d0 * 4 + d1)>}
// VIEWS: origins = ["exp"]
// VIEWS: origins = ["expand"]
// VIEWS-NOT: origins = ["view"]
// VIEWS: return
func.func @identity_views(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %v = "aten.view"(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %e = "aten.exp"(%v) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %b = "aten.expand"(%e) {size = array<i64: 3, 4>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %b : tensor<3x4xf32>
}

// -----

// Comparisons are arith.cmpf (ordered; ne is unordered-or-not-equal, as NaN != x) or
// arith.cmpi; logical_not is xor with true; any is a max reduction over i1.
// CHECK-LABEL: func.func @predicates
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf une
// CHECK: arith.cmpi eq
// CHECK: arith.xori %{{.*}}, %true
// CHECK: }) {fuselab.eager_id = {{[0-9]+}} : i64, kind = "max", name = "buf4", origins = ["any"], ranges = array<i64: 4>, reduction_ranges = array<i64: 2>} : () -> tensor<4xi1>
func.func @predicates(%x: tensor<4x2xf32>, %n: tensor<4x2xi64>) -> (tensor<4x2xi1>, tensor<4x2xi1>, tensor<4xi1>) {
  %c0 = arith.constant dense<0.0> : tensor<f32>
  %lt = "aten.lt"(%x, %c0) : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xi1>
  %ne = "aten.ne"(%x, %x) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xi1>
  %eq = "aten.eq"(%n, %n) : (tensor<4x2xi64>, tensor<4x2xi64>) -> tensor<4x2xi1>
  %not = "aten.logical_not"(%eq) : (tensor<4x2xi1>) -> tensor<4x2xi1>
  %any = "aten.any"(%not) {dims = array<i64: 1>, keepdim = false} : (tensor<4x2xi1>) -> tensor<4xi1>
  return %lt, %ne, %any : tensor<4x2xi1>, tensor<4x2xi1>, tensor<4xi1>
}
