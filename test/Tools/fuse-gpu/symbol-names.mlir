// Function names that are no symbol characters (`@"my model"`, as a user or an importer
// may write them) give kernel symbols in symbol characters, unique in the module also
// where two functions clean to the same name: fuse-gpu aborted with "LLVM ERROR: Symbol
// name with unsupported characters" (LLVM's NVPTX back end).
// RUN: fuse-gpu %S/Inputs/my-model.mlir --strategy inductor -o %t
// RUN: fuse-gpu --validate %t | FileCheck %s --check-prefix=VALID
// RUN: cat %t/kernels.ptx | FileCheck %s --check-prefix=ONE
// RUN: fuse-gpu %s --strategy tvm --emit ptx | FileCheck %s
// RUN: fuse-gpu %s --strategy inductor --emit ptx | FileCheck %s
// VALID: valid bundle
// ONE: .entry my_model_fused_exp_relu{{(_0)?}}(
// CHECK-DAG: .entry my_model_{{[a-z_0-9]+}}(
// CHECK-DAG: .entry my_model_{{[a-z_0-9]+}}_1(

func.func @"my model"(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = "aten.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = "aten.relu"(%e) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @my_model(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = "aten.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = "aten.relu"(%e) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
