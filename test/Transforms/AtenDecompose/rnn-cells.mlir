// aten.fused_lstm_cell / aten.fused_gru_cell (PyTorch's _thnn_fused_*_cell, made by
// --fuse-rnn-cells) stay one op where the target runs the fused kernel (the GPU target,
// for the lowering's lstm_cell / gru_cell externs) and become the gates PyTorch's CPU
// lstm_cell / gru_cell compute elsewhere: the stacked products split back, biases
// added, four (three) chunks along dim 1, sigmoid / tanh, and an LSTM's hy and cy
// stacked again. Checked by execution against the reference interpreter's fused cell
// (f32 and f16: half cells are computed in f32 and rounded once, as the kernel does).
// RUN: fuse-opt %s --split-input-file --target=cpu --aten-decompose | FileCheck %s
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose | FileCheck %s --check-prefix=GPU
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --target ascend --jit | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --target gpu | FileCheck %s --check-prefix=EXEC

// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-COUNT-18: PASS

// CHECK-LABEL: func.func @lstm
// CHECK-DAG: "aten.slice"(%arg0) {dim = 0 : i64, end = 3 : i64{{.*}}start = 0
// CHECK-DAG: "aten.slice"(%arg0) {dim = 0 : i64, end = 6 : i64{{.*}}start = 3
// CHECK-COUNT-3: aten.sigmoid
// CHECK: "aten.cat"({{.*}}) {dim = 0 : i64{{.*}}} : (tensor<1x3x16xf32>, tensor<1x3x16xf32>) -> tensor<2x3x16xf32>
// CHECK-NOT: "aten.fused_lstm_cell"
// GPU-LABEL: func.func @lstm
// GPU-NEXT: "aten.fused_lstm_cell"
func.func @lstm(%g: tensor<6x64xf32>, %c: tensor<3x16xf32>, %bi: tensor<64xf32>, %bh: tensor<64xf32>) -> tensor<2x3x16xf32> {
  %0 = "aten.fused_lstm_cell"(%g, %c, %bi, %bh) : (tensor<6x64xf32>, tensor<3x16xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x3x16xf32>
  return %0 : tensor<2x3x16xf32>
}

// -----

// CHECK-LABEL: func.func @gru
// CHECK-COUNT-2: aten.sigmoid
// CHECK: aten.tanh
// CHECK-NOT: "aten.fused_gru_cell"
// GPU-LABEL: func.func @gru
// GPU-NEXT: "aten.fused_gru_cell"
func.func @gru(%g: tensor<10x24xf32>, %h: tensor<5x8xf32>) -> tensor<5x8xf32> {
  %0 = "aten.fused_gru_cell"(%g, %h) : (tensor<10x24xf32>, tensor<5x8xf32>) -> tensor<5x8xf32>
  return %0 : tensor<5x8xf32>
}

// -----

// Half precision: the gates in f32, each result rounded once.
// CHECK-LABEL: func.func @gru_half
// CHECK: "aten.to_dtype"
// CHECK: aten.tanh{{.*}}tensor<5x8xf32>
// CHECK-NOT: "aten.fused_gru_cell"
func.func @gru_half(%g: tensor<10x24xf16>, %h: tensor<5x8xf16>, %bi: tensor<24xf16>, %bh: tensor<24xf16>) -> tensor<5x8xf16> {
  %0 = "aten.fused_gru_cell"(%g, %h, %bi, %bh) : (tensor<10x24xf16>, tensor<5x8xf16>, tensor<24xf16>, tensor<24xf16>) -> tensor<5x8xf16>
  return %0 : tensor<5x8xf16>
}
