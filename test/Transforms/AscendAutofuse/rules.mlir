// GE AutoFuse's rules (--ascend-autofuse, passes/src/fusion/ascend/autofuse.rs): for each,
// a case that fuses and one the rule refuses, with the reason --fusion-explain gives.
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse --fusion-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse="max-proximity=2 max-fusion-size=3 max-inputs=3" --fusion-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMITS
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse="flags='--autofuse_enable_pass=reduce,transpose'" | FileCheck %s --check-prefix=ENABLED
// RUN: env FUSELAB_ASCEND_FLAGS='--enable_autofuse=false' fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse | FileCheck %s --check-prefix=OFF

// Vertical: the relu reads what the mul writes -> one kernel.
// CHECK-LABEL: func.func @vertical
// CHECK: name = "fused_mul_relu_0", strategy = "ascend"
// OFF-LABEL: func.func @vertical
// OFF: name = "fused_mul_0"
// OFF: name = "fused_relu_1"
func.func @vertical(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %m = "aten.mul"(%x, %c) : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  %r = "aten.relu"(%m) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

// -----

// Horizontal: two ops reading only x (both results returned) -> one kernel; with
// max-proximity=2 the first and the last reader of x are 3 apart.
// CHECK-LABEL: func.func @horizontal
// CHECK: name = "fused_add_mul_1"
// LIMITS: remark: not fusing buf0 with buf3: horizontal fusion with proximity 3 > 2
func.func @horizontal(%x: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %c = arith.constant dense<2.0> : tensor<f32>
  %a = "aten.add"(%x, %c) : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  %e = "aten.exp"(%c) : (tensor<f32>) -> tensor<f32>
  %n = "aten.neg"(%e) : (tensor<f32>) -> tensor<f32>
  %b = "aten.mul"(%x, %n) : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  return %a, %b, %x : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// Reduce fusion is off by default: the sum stays alone; --autofuse_enable_pass=reduce
// fuses it with its epilogue.
// CHECK-LABEL: func.func @reduce
// CHECK: name = "fused_sum_0"
// EXPLAIN: remark: not fusing buf0 with buf1: reduce fusion is off (--autofuse_enable_pass=reduce turns it on)
// ENABLED-LABEL: func.func @reduce
// ENABLED: name = "fused_div_sum_0"
func.func @reduce(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<64x32xf32>) -> tensor<64x1xf32>
  %d = "aten.div"(%x, %s) : (tensor<64x32xf32>, tensor<64x1xf32>) -> tensor<64x32xf32>
  return %d : tensor<64x32xf32>
}

// -----

// Transpose fusion is off by default (the permute is a node: materialize-views).
// CHECK-LABEL: func.func @transpose
// CHECK: name = "fused_permute_0"
// EXPLAIN: remark: not fusing buf0 with buf1: transpose fusion is off
// ENABLED-LABEL: func.func @transpose
// ENABLED: name = "fused_permute_relu_0"
func.func @transpose(%x: tensor<64x32xf32>) -> tensor<32x64xf32> {
  %t = "aten.permute"(%x) {dims = array<i64: 1, 0>} : (tensor<64x32xf32>) -> tensor<32x64xf32>
  %r = "aten.relu"(%t) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// The target's legality (the CPU's SIMD rules): a per-row value (64) and the 64x32
// product are different iteration spaces.
// CHECK-LABEL: func.func @target
// CHECK: name = "fused_exp_0"
// EXPLAIN: remark: not fusing buf0 with buf1: vertical fusion not allowed by the target: numel/rnumel mismatch (non-reduce) (64, 2048), (1, 1)
func.func @target(%v: tensor<64x1xf32>, %x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %e = "aten.exp"(%v) : (tensor<64x1xf32>) -> tensor<64x1xf32>
  %m = "aten.mul"(%x, %e) : (tensor<64x32xf32>, tensor<64x1xf32>) -> tensor<64x32xf32>
  return %m : tensor<64x32xf32>
}

// -----

// Extern (cube) ops are no candidates, and fusing the relu with the add that reads both
// it and the matmul of it would put the matmul inside and outside the kernel: a cycle.
// CHECK-LABEL: func.func @cycle
// CHECK: name = "fused_relu_0"
// CHECK: name = "fused_add_1"
// EXPLAIN-DAG: remark: not fusing buf0 with buf1: extern (cube) op: not an AutoFuse candidate
// EXPLAIN-DAG: remark: not fusing buf0 with buf2: fusion would create a cycle
func.func @cycle(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = "aten.relu"(%x) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = "aten.mm"(%r, %w) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %a = "aten.add"(%r, %m) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  return %a : tensor<32x32xf32>
}

// -----

// A chain of four: one kernel by default; max-fusion-size=3 keeps two kernels; a chain
// adding four inputs: max-inputs=3 refuses the kernel that would read all four.
// CHECK-LABEL: func.func @limits
// CHECK: name = "fused_add_0"
// CHECK-NOT: "loop.kernel"
// LIMITS: remark: not fusing buf0,buf1 with buf2: fused kernel of 4 inputs > 3
func.func @limits(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>, %d: tensor<64xf32>) -> tensor<64xf32> {
  %x = "aten.add"(%a, %b) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %y = "aten.add"(%x, %c) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %z = "aten.add"(%y, %d) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %z : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @size
// CHECK: name = "fused_exp_neg_relu_sigmoid_0"
// LIMITS: remark: not fusing buf0,buf1,buf2 with buf3: fused kernel of 4 nodes > max_fusion_size 3
func.func @size(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = "aten.exp"(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %b = "aten.neg"(%a) : (tensor<64xf32>) -> tensor<64xf32>
  %c = "aten.relu"(%b) : (tensor<64xf32>) -> tensor<64xf32>
  %d = "aten.sigmoid"(%c) : (tensor<64xf32>) -> tensor<64xf32>
  return %d : tensor<64xf32>
}
