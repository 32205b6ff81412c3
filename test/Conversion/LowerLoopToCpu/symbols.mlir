// Function names that need quoting stay quoted in every generated symbol (issue 13,
// item 3: `@"my model"` gave `@my model_buf0`, which does not parse), and the compiled
// code runs under that name.
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu | FileCheck %s
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC

// CHECK: func.func private @"my model_fused_amax_exp_sub_0"(
// CHECK: func.func @"my model"({{.*}}) attributes {llvm.emit_c_interface}
// CHECK-NEXT: call @"my model_fused_amax_exp_sub_0"(
// CHECK: func.func private @"my \22quoted\22{{\\\\}}name_fused_neg_0"(
// CHECK: func.func @"my \22quoted\22{{\\\\}}name"(

// Unfused, the intermediate buffers are globals named after the function.
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --lower-loop-to-cpu | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: memref.global "private" @"my model_g0"
// GLOBAL: memref.get_global @"my model_g0"

// EXEC-COUNT-12: PASS
// EXEC-NOT: FAIL
func.func @"my model"(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %m = "aten.amax"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = "aten.sub"(%x, %m) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = "aten.exp"(%d) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %e, %m : tensor<4x8xf32>, tensor<4x1xf32>
}

func.func @"my \"quoted\"\\name"(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
