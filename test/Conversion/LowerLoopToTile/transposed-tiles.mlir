// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile | FileCheck %s
// RUN: fuse-gpu %s --function transposed_relu --emit ptx | FileCheck %s --check-prefix=PTX
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --tvm-fuse-ops --lower-loop-to-tile | FileCheck %s --check-prefix=TVM

// A pointwise kernel whose load is contiguous along the second-last dim and strided
// along the last (a transpose): each program takes a 32 x 32 tile of those two dims
// (Inductor tiles such kernels in 2-D), not 1024 consecutive elements. Output
// [8, 64, 512]: 2 x 16 tiles per batch entry; tile (o, tp, tq) of program p is (p / 32,
// (p mod 32) / 16, p mod 16), its element j at row j >> 5, column j & 31. 8 warps: one
// group of 4 adjacent elements per thread, stored by one 128-bit store.
// CHECK-LABEL: "tile.kernel"
// CHECK: %[[PID:.*]] = "tile.program_id"
// CHECK: %[[J:.*]] = "tile.arange"() {axis = 0 : i64} : () -> tensor<1024x1xindex>
// CHECK: arith.floordivsi %[[PID]], %c32
// CHECK: %c32768 = arith.constant 32768 : index
// CHECK: %c16384 = arith.constant 16384 : index
// CHECK: %[[ROW:.*]] = arith.shrui %[[J]]
// CHECK: %[[COL:.*]] = arith.andi %[[J]]
// CHECK: arith.muli %[[ROW]]
// CHECK: block = array<i64: 1024, 1>, grid = array<i64: 256>, num_warps = 8 : i64, sym_name = "transposed_relu_fused_relu_0"
// The TVM strategy's group {transpose, relu} keeps the transpose kernel-local: relu
// reads it at its own position, so the transpose's strided load decides the tiling.
// TVM-LABEL: "tile.kernel"
// TVM: arith.shrui
// TVM: num_warps = 8 : i64, sym_name = "transposed_relu_fused_transpose_relu"
// PTX: .entry transposed_relu_fused_relu_0(
// PTX: .maxntid 256, 1, 1
// PTX-COUNT-4: ld.global.nc.b32
// PTX: st.global.v4.b32
// PTX-NOT: st.global
// PTX: ret;
func.func @transposed_relu(%x: tensor<8x512x64xf32>) -> tensor<8x64x512xf32> {
  %t = "aten.transpose"(%x) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<8x512x64xf32>) -> tensor<8x64x512xf32>
  %r = "aten.relu"(%t) : (tensor<8x64x512xf32>) -> tensor<8x64x512xf32>
  return %r : tensor<8x64x512xf32>
}

// -----

// Read contiguously along the last dim: consecutive elements, 4 warps.
// CHECK-LABEL: "tile.kernel"
// CHECK-NOT: arith.shrui
// CHECK: num_warps = 4 : i64, sym_name = "plain_relu_fused_relu_0"
func.func @plain_relu(%x: tensor<8x64x512xf32>) -> tensor<8x64x512xf32> {
  %r = "aten.relu"(%x) : (tensor<8x64x512xf32>) -> tensor<8x64x512xf32>
  return %r : tensor<8x64x512xf32>
}

// -----

// A tile that does not divide the dims (60 rows): consecutive elements, as before.
// CHECK-LABEL: "tile.kernel"
// CHECK-NOT: arith.shrui
// CHECK: sym_name = "ragged_transpose_fused_relu_0"
func.func @ragged_transpose(%x: tensor<8x512x60xf32>) -> tensor<8x60x512xf32> {
  %t = "aten.transpose"(%x) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<8x512x60xf32>) -> tensor<8x60x512xf32>
  %r = "aten.relu"(%t) : (tensor<8x60x512xf32>) -> tensor<8x60x512xf32>
  return %r : tensor<8x60x512xf32>
}
