// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu | FileCheck %s
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu=parallel=true,parallel-min-work=1 | FileCheck %s --check-prefix=PAR
// RUN: fuse-run %s --jit --parallel true --parallel-min-work 1 | FileCheck %s --check-prefix=EXEC

// Each kernel function takes the host buffers it reads or writes, no others, and the
// host passes just those: the addmm (bias folded) reads a, b, c; the relu reads the
// GEMM's intermediate buffer (a global) and writes the first result; the exp reads d and
// writes the second. Passing every buffer to every kernel made the host code quadratic
// in a model's size (MobileNetV2: 107 kernels x 316 buffers, 169k LLVM extractvalues,
// 40 s of LLVM per compile). The outlined row ranges of parallel steps likewise.
// CHECK-LABEL: func.func private @params_buf0(%arg0: memref<2048xf32>, %arg1: memref<2048xf32>, %arg2: memref<64xf32>) {
// CHECK: call @fuselab_sgemm
// CHECK-LABEL: func.func private @params_fused_relu_0(%arg0: memref<4096xf32>) {
// CHECK: memref.get_global @params_g0
// CHECK-LABEL: func.func private @params_fused_exp_1(%arg0: memref<256xf32>, %arg1: memref<256xf32>) {
// CHECK-LABEL: func.func @params(%arg0: memref<2048xf32>, %arg1: memref<2048xf32>, %arg2: memref<64xf32>, %arg3: memref<256xf32>, %arg4: memref<4096xf32>, %arg5: memref<256xf32>)
// CHECK-NEXT: call @params_buf0(%arg0, %arg1, %arg2) : (memref<2048xf32>, memref<2048xf32>, memref<64xf32>) -> ()
// CHECK-NEXT: call @params_fused_relu_0(%arg4) : (memref<4096xf32>) -> ()
// CHECK-NEXT: call @params_fused_exp_1(%arg3, %arg5) : (memref<256xf32>, memref<256xf32>) -> ()

// PAR-LABEL: func.func private @params_fused_relu_0_rows(%arg0: index, %arg1: index, %arg2: memref<4096xf32>) attributes {passthrough = ["noinline"]}
// PAR-LABEL: func.func private @params_fused_relu_0(%arg0: memref<4096xf32>) {
// PAR: func.call @params_fused_relu_0_rows(%{{.*}}, %{{.*}}, %arg0) : (index, index, memref<4096xf32>) -> ()
// PAR-LABEL: func.func private @params_fused_exp_1_rows(%arg0: index, %arg1: index, %arg2: memref<256xf32>, %arg3: memref<256xf32>)
// PAR-LABEL: func.func @params(
// PAR-NEXT: call @params_buf0(%arg0, %arg1, %arg2)
// PAR-NEXT: call @params_fused_relu_0(%arg4)
// PAR-NEXT: call @params_fused_exp_1(%arg3, %arg5)

// The host function's signature is its caller's ABI: an input no kernel reads stays a
// parameter (dropping it shifted every later buffer: wrong answers and crashes under
// --jit on models with unused inputs).
// CHECK-LABEL: func.func private @unused_input_fused_exp_0(%arg0: memref<64xf32>, %arg1: memref<64xf32>) {
// CHECK-LABEL: func.func @unused_input(%arg0: memref<64xf32>, %arg1: memref<8xf32>, %arg2: memref<64xf32>, %arg3: memref<64xf32>) attributes {llvm.emit_c_interface}
// CHECK-NEXT: call @unused_input_fused_exp_0(%arg2, %arg3)

// EXEC-COUNT-18: PASS
// EXEC-NOT: FAIL
func.func @params(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64xf32>, %d: tensor<16x16xf32>) -> (tensor<64x64xf32>, tensor<16x16xf32>) {
  %m = "aten.mm"(%a, %b) : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %y = "aten.add"(%m, %c) : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %r = "aten.relu"(%y) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = "aten.exp"(%d) : (tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r, %e : tensor<64x64xf32>, tensor<16x16xf32>
}

func.func @unused_input(%a: tensor<64xf32>, %unused: tensor<8xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %e = "aten.exp"(%b) : (tensor<64xf32>) -> tensor<64xf32>
  return %e : tensor<64xf32>
}
