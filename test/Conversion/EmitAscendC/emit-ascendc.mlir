// RUN: fuse-opt %s --target=ascend --aten-decompose --lower-aten-to-loop --inline-pointwise --fuse=strategy=ascend --lower-loop-to-ascend --emit-ascendc -o /dev/null | FileCheck %s
// RUN: not fuse-opt %s --aten-decompose --lower-aten-to-loop --emit-ascendc 2>&1 | FileCheck %s --check-prefix=ORDER

// Ascend C source of the kernels (it compiles nowhere here: golden text). GE's default
// keeps the softmax's reductions apart: three kernels, the row statistics through GM.
// CHECK: #include "kernel_operator.h"
// CHECK: __aicore__ inline void CopyInRows(
// CHECK-LABEL: // @softmax_fused_softmax_0: 2 programs of a [32, 256] tile over block_dim 2 cores; {{[0-9]+}} of 196608 UB bytes.
// CHECK-NEXT: extern "C" __global__ __aicore__ void softmax_fused_softmax_0(GM_ADDR arg0, GM_ADDR arg1) {
// CHECK-NEXT: GlobalTensor<float> [[OUT:gm[0-9]+]];
// CHECK-NEXT: [[OUT]].SetGlobalBuffer((__gm__ float*)arg0, 64);
// CHECK-NEXT: GlobalTensor<float> [[IN:gm[0-9]+]];
// CHECK-NEXT: [[IN]].SetGlobalBuffer((__gm__ float*)arg1, 16384);
// CHECK: pipe.InitBuffer(ub, {{[0-9]+}});
// CHECK: for (int64_t k = 0, program = GetBlockIdx(); program < 2; program += GetBlockNum(), ++k) {
// CHECK: LocalTensor<float> [[X:t[0-9]+]] = base[{{[0-9]+}} + (k % 2) * 32768].ReinterpretCast<float>();  // [32, 256] vecin
// CHECK: LocalTensor<float> [[W:t[0-9]+]] = base[{{[0-9]+}}].ReinterpretCast<float>();  // [1, 256] veccalc
// CHECK: ArithProgression<int32_t>(
// CHECK: = static_cast<float>(-INFINITY);
// CHECK: CopyInRows<float>([[X]], [[IN]], {{.*}}, 32, 256);  // rows 256 apart
// CHECK-NEXT: PipeBarrier<PIPE_ALL>();
// The intrinsic's scratch is its own tile (one row), not the source.
// CHECK: for (int32_t r = 0; r < 32; ++r) ReduceMax({{t[0-9]+}}[r], {{t[0-9]+}}[r * 256], [[W]], 256);
// CHECK: CopyOutRows<float>([[OUT]], {{.*}}, 1, 32);
// CHECK-LABEL: // @softmax_fused_softmax_2:
// CHECK: Exp(
// CHECK: Div(
// CHECK-LABEL: // Host @softmax, in order:
// CHECK-NEXT: //   launch @softmax_fused_softmax_0
// CHECK-NEXT: //   launch @softmax_fused_softmax_1
// CHECK-NEXT: //   launch @softmax_fused_softmax_2
// ORDER: error: --emit-ascendc needs ascend IR: run --lower-loop-to-ascend first
func.func @softmax(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
