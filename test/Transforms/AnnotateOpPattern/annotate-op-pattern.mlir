// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop="materialize-views=true" --annotate-op-pattern | FileCheck %s --check-prefix=RELAX
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop="materialize-views=true" --annotate-op-pattern="mode=relay" | FileCheck %s --check-prefix=RELAY
// RUN: not fuse-opt %s --aten-decompose --lower-aten-to-loop --annotate-op-pattern="mode=xla" 2>&1 | FileCheck %s --check-prefix=BADMODE

// TVM's OpPatternKind per op. Relax derives it from the loop body (load indices vs
// store indices, reductions, the reduce-then-output-block rule); Relay reads its
// per-op registry. Every loop node of one op (mean = sum + divide, softmax = 5 nodes)
// carries the op's kind.
// RELAX-LABEL: func.func @kinds
// exp(x): every load at the store index.
// RELAX: name = "buf0", op_pattern = "kElemWise", origins = ["exp"]
// x + b[j]: a broadcast load next to an elementwise one is elementwise.
// RELAX: name = "buf1", op_pattern = "kElemWise", origins = ["add"]
// c[i, 0] + r[0, j]: only broadcast loads.
// RELAX: name = "buf2", op_pattern = "kBroadcast", origins = ["add"]
// RELAX: name = "buf3", op_pattern = "kInjective", origins = ["transpose"]
// RELAX: kind = "sum", name = "buf4", op_pattern = "kCommReduce", origins = ["sum"]
// mean: a reduction followed by the output block (the divide).
// RELAX: kind = "sum", name = "buf5", op_pattern = "kOutEWiseFusable", origins = ["mean"]
// RELAX: name = "buf6", op_pattern = "kOutEWiseFusable", origins = ["mean"]
// RELAX: kind = "max", name = "buf7", op_pattern = "kOutEWiseFusable", origins = ["softmax"]
// RELAX: name = "buf11", op_pattern = "kOutEWiseFusable", origins = ["softmax"]
// RELAX: name = "buf12", op_pattern = "kOpaque", origins = ["gather"]
// RELAX: kind = "mm", name = "buf13", op_pattern = "kOutEWiseFusable"
// RELAX: name = "buf14", op_pattern = "kInjective", origins = ["cat"]
// RELAX: name = "buf15", op_pattern = "kInjective", origins = ["reshape"]
// RELAY-LABEL: func.func @kinds
// RELAY: name = "buf0", op_pattern = "kElemWise", origins = ["exp"]
// RELAY: name = "buf1", op_pattern = "kBroadcast", origins = ["add"]
// RELAY: name = "buf3", op_pattern = "kInjective", origins = ["transpose"]
// RELAY: kind = "sum", name = "buf5", op_pattern = "kCommReduce", origins = ["mean"]
// RELAY: kind = "max", name = "buf7", op_pattern = "kOutEWiseFusable", origins = ["softmax"]
// RELAY: kind = "mm", name = "buf13", op_pattern = "kOutEWiseFusable"
// BADMODE: annotate-op-pattern.mlir:{{[0-9]+}}:{{[0-9]+}}: error: unknown pattern mode 'xla' (expected relax or relay)
func.func @kinds(%x: tensor<8x16xf32>, %b: tensor<16xf32>, %c: tensor<8x1xf32>, %r: tensor<1x16xf32>, %idx: tensor<8x4xi64>, %w: tensor<16x4xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<16x16xf32>, tensor<128xf32>) {
  %e = "aten.exp"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = "aten.add"(%x, %b) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %bb = "aten.add"(%c, %r) : (tensor<8x1xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
  %t = "aten.transpose"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<8x16xf32>) -> tensor<8xf32>
  %m = "aten.mean"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %sm = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %g = "aten.gather"(%x, %idx) {dim = 1 : i64} : (tensor<8x16xf32>, tensor<8x4xi64>) -> tensor<8x4xf32>
  %mm = "aten.mm"(%x, %w) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %cat = "aten.cat"(%x, %x) {dim = 0 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %rs = "aten.reshape"(%x) : (tensor<8x16xf32>) -> tensor<128xf32>
  return %e, %a, %bb, %t, %s, %m, %sm, %g, %mm, %cat, %rs : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<16x16xf32>, tensor<128xf32>
}

// A reduction over extent-1 dims (ResNet-18's global mean of a 1x1 feature map) is
// still a reduction for TVM: its block has reduce iterators. mean: kOutEWiseFusable.
// RELAX-LABEL: func.func @unit_reduction
// RELAX: kind = "sum", name = "buf0", op_pattern = "kOutEWiseFusable", origins = ["mean"]
// RELAX: name = "buf1", op_pattern = "kOutEWiseFusable", origins = ["mean"]
func.func @unit_reduction(%x: tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32> {
  %m = "aten.mean"(%x) {dims = array<i64: 2, 3>, keepdim = true} : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  return %m : tensor<1x8x1x1xf32>
}
