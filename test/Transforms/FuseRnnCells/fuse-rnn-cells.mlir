// --fuse-rnn-cells: PyTorch's LSTM / GRU cell on CUDA is two unbiased mms and one fused
// cell kernel (RNN.cpp's LSTMCell / GRUCell take _thnn_fused_*_cell for CUDA inputs;
// Inductor keeps it as a library call). The export, traced on the CPU, writes the gates
// out (biased addmms, chunks, sigmoid / tanh); on the GPU target the pass puts the fused
// cell back: the products stacked by a cat of the two mms (the lowering's ConcatKernel)
// and aten.fused_lstm_cell / aten.fused_gru_cell. The CPU target keeps the gates.
// RUN: fuse-opt %s --split-input-file --target=gpu --fuse-rnn-cells | FileCheck %s
// RUN: fuse-opt %s --split-input-file --target=cpu --fuse-rnn-cells | FileCheck %s --check-prefix=CPU
// Every strategy computes what the cells compute: on the GPU target's pipelines (the
// Inductor strategy's through the lstm_cell / gru_cell externs, loop interpreter) and
// compiled for the CPU.
// RUN: fuse-run %s --target=gpu | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC
// The Inductor strategy on the GPU: no generated kernel for a cell (Inductor: 0).
// RUN: fuse-opt %s --split-input-file --target=gpu --fusion-compare | FileCheck %s --check-prefix=COUNT

// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-COUNT-66: PASS
// CPU-NOT: fused_
// COUNT-LABEL: Fusion comparison of @lstm
// COUNT: inductor {{ *}}0 {{ *}}4 {{ *}}3 
// COUNT-LABEL: Fusion comparison of @lstm_unbiased
// COUNT: inductor {{ *}}0 {{ *}}4 {{ *}}3 
// COUNT-LABEL: Fusion comparison of @gru
// COUNT: inductor {{ *}}0 {{ *}}4 {{ *}}3 
// COUNT-LABEL: Fusion comparison of @gru_update_swapped
// COUNT: inductor {{ *}}1 {{ *}}2 {{ *}}3 

// nn.LSTMCell(32, 32) on 4 rows, as torch.export + run_decompositions() writes it.
// CHECK-LABEL: func.func @lstm
// CHECK-DAG: %[[WHT:.*]] = "aten.permute"(%arg1)
// CHECK-DAG: %[[WIT:.*]] = "aten.permute"(%arg0)
// CHECK: %[[I:.*]] = "aten.mm"(%arg4, %[[WIT]]) : (tensor<4x32xf32>, tensor<32x128xf32>) -> tensor<4x128xf32>
// CHECK-NEXT: %[[H:.*]] = "aten.mm"(%arg5, %[[WHT]])
// CHECK-NEXT: %[[G:.*]] = "aten.cat"(%[[I]], %[[H]]) {dim = 0 : i64} : (tensor<4x128xf32>, tensor<4x128xf32>) -> tensor<8x128xf32>
// CHECK-NEXT: %[[C:.*]] = "aten.fused_lstm_cell"(%[[G]], %arg6, %arg2, %arg3) : (tensor<8x128xf32>, tensor<4x32xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<2x4x32xf32>
// CHECK-NEXT: %[[HY:.*]] = "aten.select"(%[[C]]) {dim = 0 : i64, index = 0 : i64}
// CHECK-NEXT: %[[CY:.*]] = "aten.select"(%[[C]]) {dim = 0 : i64, index = 1 : i64}
// CHECK-NOT: aten.sigmoid
// CHECK: return %[[HY]], %[[CY]]
func.func @lstm(%w_ih: tensor<128x32xf32>, %w_hh: tensor<128x32xf32>, %b_ih: tensor<128xf32>, %b_hh: tensor<128xf32>, %x: tensor<4x32xf32>, %h: tensor<4x32xf32>, %c: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %wht = "aten.permute"(%w_hh) {dims = array<i64: 1, 0>} : (tensor<128x32xf32>) -> tensor<32x128xf32>
  %hh = "aten.addmm"(%b_hh, %h, %wht) : (tensor<128xf32>, tensor<4x32xf32>, tensor<32x128xf32>) -> tensor<4x128xf32>
  %wit = "aten.permute"(%w_ih) {dims = array<i64: 1, 0>} : (tensor<128x32xf32>) -> tensor<32x128xf32>
  %ih = "aten.addmm"(%b_ih, %x, %wit) : (tensor<128xf32>, tensor<4x32xf32>, tensor<32x128xf32>) -> tensor<4x128xf32>
  %g = "aten.add"(%hh, %ih) : (tensor<4x128xf32>, tensor<4x128xf32>) -> tensor<4x128xf32>
  %g0 = "aten.slice"(%g) {dim = 1 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : (tensor<4x128xf32>) -> tensor<4x32xf32>
  %g1 = "aten.slice"(%g) {dim = 1 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : (tensor<4x128xf32>) -> tensor<4x32xf32>
  %g2 = "aten.slice"(%g) {dim = 1 : i64, start = 64 : i64, end = 96 : i64, step = 1 : i64} : (tensor<4x128xf32>) -> tensor<4x32xf32>
  %g3 = "aten.slice"(%g) {dim = 1 : i64, start = 96 : i64, end = 128 : i64, step = 1 : i64} : (tensor<4x128xf32>) -> tensor<4x32xf32>
  %i = "aten.sigmoid"(%g0) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %f = "aten.sigmoid"(%g1) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %cc = "aten.tanh"(%g2) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %o = "aten.sigmoid"(%g3) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %fc = "aten.mul"(%f, %c) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %ic = "aten.mul"(%i, %cc) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %cy = "aten.add"(%fc, %ic) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %t = "aten.tanh"(%cy) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %hy = "aten.mul"(%o, %t) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %hy, %cy : tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// LSTMCell(bias=False): mm instead of addmm, no biases; operands commuted.
// CHECK-LABEL: func.func @lstm_unbiased
// CHECK: %[[C:.*]] = "aten.fused_lstm_cell"(%{{.*}}, %arg4) : (tensor<6x64xf32>, tensor<3x16xf32>) -> tensor<2x3x16xf32>
// CHECK: return
func.func @lstm_unbiased(%wit: tensor<8x64xf32>, %wht: tensor<16x64xf32>, %x: tensor<3x8xf32>, %h: tensor<3x16xf32>, %c: tensor<3x16xf32>) -> (tensor<3x16xf32>, tensor<3x16xf32>) {
  %ih = "aten.mm"(%x, %wit) : (tensor<3x8xf32>, tensor<8x64xf32>) -> tensor<3x64xf32>
  %hh = "aten.mm"(%h, %wht) : (tensor<3x16xf32>, tensor<16x64xf32>) -> tensor<3x64xf32>
  %g = "aten.add"(%ih, %hh) : (tensor<3x64xf32>, tensor<3x64xf32>) -> tensor<3x64xf32>
  %g0 = "aten.slice"(%g) {dim = -1 : i64, start = 0 : i64, end = 16 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g1 = "aten.slice"(%g) {dim = -1 : i64, start = 16 : i64, end = 32 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g2 = "aten.slice"(%g) {dim = -1 : i64, start = 32 : i64, end = 48 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g3 = "aten.slice"(%g) {dim = -1 : i64, start = 48 : i64, end = 64 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %i = "aten.sigmoid"(%g0) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %f = "aten.sigmoid"(%g1) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %cc = "aten.tanh"(%g2) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %o = "aten.sigmoid"(%g3) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %fc = "aten.mul"(%c, %f) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %ic = "aten.mul"(%cc, %i) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %cy = "aten.add"(%ic, %fc) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %t = "aten.tanh"(%cy) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %hy = "aten.mul"(%t, %o) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  return %hy, %cy : tensor<3x16xf32>, tensor<3x16xf32>
}

// -----

// nn.GRUCell(32, 32) on 4 rows, as the export writes it; hy = (hx - n) * z + n.
// CHECK-LABEL: func.func @gru
// CHECK: %[[I:.*]] = "aten.mm"(%arg4, %{{.*}}) : (tensor<4x32xf32>, tensor<32x96xf32>) -> tensor<4x96xf32>
// CHECK-NEXT: %[[H:.*]] = "aten.mm"(%arg5, %{{.*}})
// CHECK-NEXT: %[[G:.*]] = "aten.cat"(%[[I]], %[[H]]) {dim = 0 : i64}
// CHECK-NEXT: %[[C:.*]] = "aten.fused_gru_cell"(%[[G]], %arg5, %arg2, %arg3) : (tensor<8x96xf32>, tensor<4x32xf32>, tensor<96xf32>, tensor<96xf32>) -> tensor<4x32xf32>
// CHECK-NOT: aten.tanh
// CHECK: return %[[C]]
func.func @gru(%w_ih: tensor<96x32xf32>, %w_hh: tensor<96x32xf32>, %b_ih: tensor<96xf32>, %b_hh: tensor<96xf32>, %x: tensor<4x32xf32>, %h: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %wit = "aten.permute"(%w_ih) {dims = array<i64: 1, 0>} : (tensor<96x32xf32>) -> tensor<32x96xf32>
  %ih = "aten.addmm"(%b_ih, %x, %wit) : (tensor<96xf32>, tensor<4x32xf32>, tensor<32x96xf32>) -> tensor<4x96xf32>
  %i0 = "aten.slice"(%ih) {dim = 1 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %i1 = "aten.slice"(%ih) {dim = 1 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %i2 = "aten.slice"(%ih) {dim = 1 : i64, start = 64 : i64, end = 96 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %wht = "aten.permute"(%w_hh) {dims = array<i64: 1, 0>} : (tensor<96x32xf32>) -> tensor<32x96xf32>
  %hh = "aten.addmm"(%b_hh, %h, %wht) : (tensor<96xf32>, tensor<4x32xf32>, tensor<32x96xf32>) -> tensor<4x96xf32>
  %h0 = "aten.slice"(%hh) {dim = 1 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %h1 = "aten.slice"(%hh) {dim = 1 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %h2 = "aten.slice"(%hh) {dim = 1 : i64, start = 64 : i64, end = 96 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %ar = "aten.add"(%h0, %i0) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = "aten.sigmoid"(%ar) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %az = "aten.add"(%h1, %i1) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %z = "aten.sigmoid"(%az) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %rh = "aten.mul"(%h2, %r) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %an = "aten.add"(%i2, %rh) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %n = "aten.tanh"(%an) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %d = "aten.sub"(%h, %n) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %dz = "aten.mul"(%d, %z) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %hy = "aten.add"(%dz, %n) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %hy : tensor<4x32xf32>
}

// -----

// The reset gate scales the chunk of the product of %x: that product plays the hidden
// gates (the roles follow the form, not the operands' names), the state is %h.
// CHECK-LABEL: func.func @gru_roles_exchanged
// CHECK: %[[I:.*]] = "aten.mm"(%arg3, %arg1)
// CHECK-NEXT: %[[H:.*]] = "aten.mm"(%arg2, %arg0)
// CHECK-NEXT: %[[G:.*]] = "aten.cat"(%[[I]], %[[H]])
// CHECK-NEXT: "aten.fused_gru_cell"(%[[G]], %arg3) : (tensor<8x96xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
func.func @gru_roles_exchanged(%wit: tensor<32x96xf32>, %wht: tensor<32x96xf32>, %x: tensor<4x32xf32>, %h: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %ih = "aten.mm"(%x, %wit) : (tensor<4x32xf32>, tensor<32x96xf32>) -> tensor<4x96xf32>
  %i0 = "aten.slice"(%ih) {dim = 1 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %i1 = "aten.slice"(%ih) {dim = 1 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %i2 = "aten.slice"(%ih) {dim = 1 : i64, start = 64 : i64, end = 96 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %hh = "aten.mm"(%h, %wht) : (tensor<4x32xf32>, tensor<32x96xf32>) -> tensor<4x96xf32>
  %h0 = "aten.slice"(%hh) {dim = 1 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %h1 = "aten.slice"(%hh) {dim = 1 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %h2 = "aten.slice"(%hh) {dim = 1 : i64, start = 64 : i64, end = 96 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %ar = "aten.add"(%h0, %i0) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = "aten.sigmoid"(%ar) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %az = "aten.add"(%h1, %i1) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %z = "aten.sigmoid"(%az) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %ri = "aten.mul"(%i2, %r) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %an = "aten.add"(%h2, %ri) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %n = "aten.tanh"(%an) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %d = "aten.sub"(%h, %n) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %dz = "aten.mul"(%d, %z) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %hy = "aten.add"(%dz, %n) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %hy : tensor<4x32xf32>
}

// -----

// Not PyTorch's GRU: hy = (n - hx) * z + hx mixes n and hx the other way round.
// CHECK-LABEL: func.func @gru_update_swapped
// CHECK-NOT: fused_gru_cell
// CHECK: return
func.func @gru_update_swapped(%wit: tensor<32x96xf32>, %wht: tensor<32x96xf32>, %x: tensor<4x32xf32>, %h: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %ih = "aten.mm"(%x, %wit) : (tensor<4x32xf32>, tensor<32x96xf32>) -> tensor<4x96xf32>
  %i0 = "aten.slice"(%ih) {dim = 1 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %i1 = "aten.slice"(%ih) {dim = 1 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %i2 = "aten.slice"(%ih) {dim = 1 : i64, start = 64 : i64, end = 96 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %hh = "aten.mm"(%h, %wht) : (tensor<4x32xf32>, tensor<32x96xf32>) -> tensor<4x96xf32>
  %h0 = "aten.slice"(%hh) {dim = 1 : i64, start = 0 : i64, end = 32 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %h1 = "aten.slice"(%hh) {dim = 1 : i64, start = 32 : i64, end = 64 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %h2 = "aten.slice"(%hh) {dim = 1 : i64, start = 64 : i64, end = 96 : i64, step = 1 : i64} : (tensor<4x96xf32>) -> tensor<4x32xf32>
  %ar = "aten.add"(%h0, %i0) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = "aten.sigmoid"(%ar) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %az = "aten.add"(%h1, %i1) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %z = "aten.sigmoid"(%az) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %rh = "aten.mul"(%h2, %r) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %an = "aten.add"(%i2, %rh) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %n = "aten.tanh"(%an) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %d = "aten.sub"(%n, %h) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %dz = "aten.mul"(%d, %z) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  %hy = "aten.add"(%dz, %h) : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %hy : tensor<4x32xf32>
}

// -----

// A gate read outside the cell (the forget gate is also returned): the fused kernel
// does not expose it, so the cell stays.
// CHECK-LABEL: func.func @gate_escapes
// CHECK-NOT: fused_lstm_cell
// CHECK: return
func.func @gate_escapes(%wit: tensor<8x64xf32>, %wht: tensor<16x64xf32>, %x: tensor<3x8xf32>, %h: tensor<3x16xf32>, %c: tensor<3x16xf32>) -> (tensor<3x16xf32>, tensor<3x16xf32>) {
  %ih = "aten.mm"(%x, %wit) : (tensor<3x8xf32>, tensor<8x64xf32>) -> tensor<3x64xf32>
  %hh = "aten.mm"(%h, %wht) : (tensor<3x16xf32>, tensor<16x64xf32>) -> tensor<3x64xf32>
  %g = "aten.add"(%ih, %hh) : (tensor<3x64xf32>, tensor<3x64xf32>) -> tensor<3x64xf32>
  %g0 = "aten.slice"(%g) {dim = 1 : i64, start = 0 : i64, end = 16 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g1 = "aten.slice"(%g) {dim = 1 : i64, start = 16 : i64, end = 32 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g2 = "aten.slice"(%g) {dim = 1 : i64, start = 32 : i64, end = 48 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g3 = "aten.slice"(%g) {dim = 1 : i64, start = 48 : i64, end = 64 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %i = "aten.sigmoid"(%g0) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %f = "aten.sigmoid"(%g1) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %cc = "aten.tanh"(%g2) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %o = "aten.sigmoid"(%g3) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %fc = "aten.mul"(%f, %c) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %ic = "aten.mul"(%i, %cc) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %cy = "aten.add"(%fc, %ic) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %t = "aten.tanh"(%cy) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %hy = "aten.mul"(%o, %t) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  return %hy, %f : tensor<3x16xf32>, tensor<3x16xf32>
}

// -----

// One product biased and the other not: the fused kernel takes both biases or none.
// CHECK-LABEL: func.func @one_bias
// CHECK-NOT: fused_lstm_cell
// CHECK: return
func.func @one_bias(%wit: tensor<8x64xf32>, %wht: tensor<16x64xf32>, %b: tensor<64xf32>, %x: tensor<3x8xf32>, %h: tensor<3x16xf32>, %c: tensor<3x16xf32>) -> (tensor<3x16xf32>, tensor<3x16xf32>) {
  %ih = "aten.addmm"(%b, %x, %wit) : (tensor<64xf32>, tensor<3x8xf32>, tensor<8x64xf32>) -> tensor<3x64xf32>
  %hh = "aten.mm"(%h, %wht) : (tensor<3x16xf32>, tensor<16x64xf32>) -> tensor<3x64xf32>
  %g = "aten.add"(%ih, %hh) : (tensor<3x64xf32>, tensor<3x64xf32>) -> tensor<3x64xf32>
  %g0 = "aten.slice"(%g) {dim = 1 : i64, start = 0 : i64, end = 16 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g1 = "aten.slice"(%g) {dim = 1 : i64, start = 16 : i64, end = 32 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g2 = "aten.slice"(%g) {dim = 1 : i64, start = 32 : i64, end = 48 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %g3 = "aten.slice"(%g) {dim = 1 : i64, start = 48 : i64, end = 64 : i64, step = 1 : i64} : (tensor<3x64xf32>) -> tensor<3x16xf32>
  %i = "aten.sigmoid"(%g0) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %f = "aten.sigmoid"(%g1) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %cc = "aten.tanh"(%g2) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %o = "aten.sigmoid"(%g3) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %fc = "aten.mul"(%f, %c) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %ic = "aten.mul"(%i, %cc) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %cy = "aten.add"(%fc, %ic) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  %t = "aten.tanh"(%cy) : (tensor<3x16xf32>) -> tensor<3x16xf32>
  %hy = "aten.mul"(%o, %t) : (tensor<3x16xf32>, tensor<3x16xf32>) -> tensor<3x16xf32>
  return %hy, %cy : tensor<3x16xf32>, tensor<3x16xf32>
}
