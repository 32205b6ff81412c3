// MindSpore's graph-kernel split patterns for Ascend (--ascend-autofuse=mode=mindspore,
// passes/src/fusion/ascend/mindspore.rs): for each pattern a case that fuses, and the
// refusals with the reason --fusion-explain gives.
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse=mode=mindspore | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse=mode=mindspore --fusion-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: not fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse="mode=mindspore max-inputs=14" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEONLY
// RUN: not env FUSELAB_ASCEND_FLAGS=--autofuse_enable_pass=reduce fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse=mode=mindspore -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEFLAGS
// RUN: not fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse=mode=xla -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODE
// GEONLY: error: cannot decide the fusion: option max-inputs=14 applies to mode=ge only
// GEFLAGS: error: cannot decide the fusion: FUSELAB_ASCEND_FLAGS applies to mode=ge only
// MODE: error: cannot decide the fusion: mode must be ge or mindspore, not 'xla'

// Elementwise forward (depth): relu absorbs its one producer of the same shape.
// CHECK-LABEL: func.func @elemwise
// CHECK: name = "fused_mul_relu_0", strategy = "ascend"
// CHECK-NOT: "loop.kernel"
func.func @elemwise(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %m = "aten.mul"(%x, %c) : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  %r = "aten.relu"(%m) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// A reshape joins its elementwise user.
// CHECK-LABEL: func.func @reshape
// CHECK: name = "fused_relu_view_0"
// CHECK-NOT: "loop.kernel"
func.func @reshape(%x: tensor<64x32xf32>) -> tensor<2048xf32> {
  %v = "aten.view"(%x) {size = array<i64: 2048>} : (tensor<64x32xf32>) -> tensor<2048xf32>
  %r = "aten.relu"(%v) : (tensor<2048xf32>) -> tensor<2048xf32>
  return %r : tensor<2048xf32>
}

// -----

// Reduce forward: the sum absorbs its elementwise producer; a producer area of 11 nodes
// is over the limit of 10.
// CHECK-LABEL: func.func @reduce
// CHECK: name = "fused_mul_sum_0"
// CHECK-LABEL: func.func @reduce_limit
// CHECK-COUNT-2: "loop.kernel"
// EXPLAIN: remark: not fusing buf0,buf1,buf2,buf3,buf4,buf5,buf6,buf7,buf8,buf9,buf10 with buf11: reduce forward fusion: the producer has 11 > 10 nodes
func.func @reduce(%x: tensor<64x32xf32>) -> tensor<64x1xf32> {
  %m = "aten.mul"(%x, %x) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %s = "aten.sum"(%m) {dims = array<i64: 1>, keepdim = true} : (tensor<64x32xf32>) -> tensor<64x1xf32>
  return %s : tensor<64x1xf32>
}
func.func @reduce_limit(%x: tensor<64x32xf32>) -> tensor<64x1xf32> {
  %a0 = "aten.exp"(%x) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a1 = "aten.neg"(%a0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a2 = "aten.exp"(%a1) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a3 = "aten.neg"(%a2) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a4 = "aten.exp"(%a3) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a5 = "aten.neg"(%a4) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a6 = "aten.exp"(%a5) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a7 = "aten.neg"(%a6) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a8 = "aten.exp"(%a7) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a9 = "aten.neg"(%a8) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %a10 = "aten.relu"(%a9) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %s = "aten.sum"(%a10) {dims = array<i64: 1>, keepdim = true} : (tensor<64x32xf32>) -> tensor<64x1xf32>
  return %s : tensor<64x1xf32>
}

// -----

// Broadcast backward (depth): a per-column vector joins the one op that broadcasts it.
// (width) must take all users: with a cat (opaque) as a second user it joins neither.
// CHECK-LABEL: func.func @broadcast
// CHECK: name = "fused_add_exp_0"
// CHECK-NOT: "loop.kernel"
// CHECK-LABEL: func.func @broadcast_all_users
// CHECK-COUNT-3: "loop.kernel"
// EXPLAIN: remark: not fusing buf0 with buf2: broadcast backward fusion must take all users: broadcast backward fusion: the user is opaque
func.func @broadcast(%v: tensor<32xf32>, %x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %e = "aten.exp"(%v) : (tensor<32xf32>) -> tensor<32xf32>
  %a = "aten.add"(%x, %e) : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  return %a : tensor<64x32xf32>
}
func.func @broadcast_all_users(%v: tensor<32xf32>, %x: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64xf32>) {
  %e = "aten.exp"(%v) : (tensor<32xf32>) -> tensor<32xf32>
  %a = "aten.add"(%x, %e) : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %c = "aten.cat"(%e, %e) {dim = 0 : i64} : (tensor<32xf32>, tensor<32xf32>) -> tensor<64xf32>
  return %a, %c : tensor<64x32xf32>, tensor<64xf32>
}

// -----

// The relu read by both the matmul and the add cannot join the add (the path through the
// matmul would leave the kernel and come back); the matmul takes its add user.
// CHECK-LABEL: func.func @matmul_cycle
// CHECK: name = "fused_relu_0"
// CHECK: "loop.extern"
// CHECK: name = "fused_add_mm_1"
// EXPLAIN: remark: not fusing buf0 with buf2: fusion would create a cycle
func.func @matmul_cycle(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = "aten.relu"(%x) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = "aten.mm"(%r, %w) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %a = "aten.add"(%r, %m) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return %a : tensor<32x32xf32>
}
