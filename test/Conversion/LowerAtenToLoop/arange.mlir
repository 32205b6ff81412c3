// aten.arange {start, step} (torch.arange with static bounds: transformers' position ids)
// becomes a pointwise node of its index: in i64 for integers, in f32 rounded once for
// floats; interpreted and compiled against the reference interpreter.
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop | FileCheck %s
// RUN: fuse-run %s | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC
// EXEC-NOT: FAIL

// CHECK-LABEL: func.func @position_ids
// CHECK: "loop.pointwise"
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: origins = ["arange"], ranges = array<i64: 16>
// EXEC: @position_ids
// EXEC: inductor output #0 tensor<1x16xf32>: {{.*}} PASS
func.func @position_ids(%table: tensor<32x8xf32>, %w: tensor<16xf32>) -> tensor<1x16xf32> {
  %ids = "aten.arange"() {start = 2.0 : f64, step = 3.0 : f64} : () -> tensor<16xi64>
  %r = "aten.view"(%ids) : (tensor<16xi64>) -> tensor<1x16xi64>
  %f = "aten.to_dtype"(%r) : (tensor<1x16xi64>) -> tensor<1x16xf32>
  %y = "aten.mul"(%f, %w) : (tensor<1x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// CHECK-LABEL: func.func @float_steps
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: arith.addf
// EXEC: @float_steps
// EXEC: inductor output #0 tensor<8xf32>: {{.*}} PASS
// EXEC: inductor output #1 tensor<8xbf16>: {{.*}} PASS
func.func @float_steps(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xbf16>) {
  %a = "aten.arange"() {start = -1.5 : f64, step = 0.25 : f64} : () -> tensor<8xf32>
  %b = "aten.arange"() {start = 100.0 : f64, step = -7.0 : f64} : () -> tensor<8xbf16>
  %y = "aten.add"(%a, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y, %b : tensor<8xf32>, tensor<8xbf16>
}
