// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile | FileCheck %s
// RUN: fuse-gpu %s --function transposed_relu --emit ptx | FileCheck %s --check-prefix=PTX
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=materialize-views=true --tvm-fuse-ops --lower-loop-to-tile | FileCheck %s --check-prefix=TVM

// A pointwise kernel whose load is contiguous along the second-last dim and strided
// along the last (a transpose): each program takes a 32 x 32 tile of (y, x) = (dims
// 0-1, dim 2) (Inductor tiles such kernels in 2-D), not 1024 consecutive elements.
// Output [8, 64, 512] as a 512 x 512 matrix: 16 x 16 tiles, tile (ty, tx) of program p
// is (p / 16, p mod 16) starting at ty * 16384 + tx * 32; its element j at row j >> 5,
// column j & 31. The load reads the tile in the transposed order (element j at row
// j & 31, column j >> 5: 4 adjacent elements of a thread are adjacent in the source)
// and `tile.transpose` converts it to the store's order through shared memory. 8 warps:
// one group of 4 adjacent elements per thread.
// CHECK-LABEL: "tile.kernel"
// CHECK: %[[PID:.*]] = "tile.program_id"
// CHECK: %[[J:.*]] = "tile.arange"() {axis = 0 : i64} : () -> tensor<1024x1xindex>
// CHECK: arith.divui %[[PID]], %c16
// CHECK: arith.remui %[[PID]], %c16
// CHECK: %c16384 = arith.constant 16384 : index
// CHECK: %[[ROW:.*]] = arith.shrui %[[J]]
// CHECK: %[[COL:.*]] = arith.andi %[[J]]
// CHECK: arith.muli %[[ROW]]
// CHECK: %[[TCOL:.*]] = arith.shrui %[[J]]
// CHECK: %[[TROW:.*]] = arith.andi %[[J]]
// CHECK: arith.muli %[[TROW]]
// The rows are divided into dims on 32-bit integers (the buffers are small).
// CHECK: %[[N:.*]] = arith.index_castui %{{.*}} : tensor<1024x1xindex> to tensor<1024x1xi32>
// CHECK: arith.divui %[[N]], %{{.*}} : tensor<1024x1xi32>
// CHECK: %[[L:.*]] = "tile.load"
// CHECK: %[[T:.*]] = "tile.transpose"(%[[L]]) {shape = array<i64: 32, 32>}
// CHECK: arith.maximumf %[[T]]
// CHECK: "tile.store"
// CHECK: block = array<i64: 1024, 1>, grid = array<i64: 256>, num_warps = 8 : i64, sym_name = "transposed_relu_fused_relu_0"
// The TVM strategy's group {transpose, relu} keeps the transpose kernel-local: relu
// reads it at its own position, so the transpose's strided load decides the tiling.
// TVM-LABEL: "tile.kernel"
// TVM: arith.shrui
// TVM: "tile.transpose"
// TVM: num_warps = 8 : i64, sym_name = "transposed_relu_fused_transpose_relu"
// Four loads down a tile column (one 16-byte piece of a line), 4 shared stores, a
// barrier, 4 shared loads one padded tile row (33 elements) apart, one 128-bit store;
// the divisions by 64 and 512 of 32-bit values (mul.hi.u32 where needed, shifts here).
// PTX: .entry transposed_relu_fused_relu_0(
// PTX: .maxntid 256, 1, 1
// PTX-NOT: mul.hi.u64
// PTX-COUNT-4: ld.global.nc.b32
// PTX-COUNT-4: st.shared.b32
// PTX: bar.sync
// PTX: ld.shared.b32 {{.*}}]
// PTX: ld.shared.b32 {{.*}}+132]
// PTX: ld.shared.b32 {{.*}}+264]
// PTX: ld.shared.b32 {{.*}}+396]
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

// y need not be one dim: a [8, 60, 512] transpose is a 480 x 512 matrix, which 32 x 32
// tiles divide although 60 rows do not (a tile then spans two batch entries).
// CHECK-LABEL: "tile.kernel"
// CHECK: arith.shrui
// CHECK: "tile.transpose"
// CHECK: grid = array<i64: 240>, num_warps = 8 : i64, sym_name = "ragged_transpose_fused_relu_0"
func.func @ragged_transpose(%x: tensor<8x512x60xf32>) -> tensor<8x60x512xf32> {
  %t = "aten.transpose"(%x) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<8x512x60xf32>) -> tensor<8x60x512xf32>
  %r = "aten.relu"(%t) : (tensor<8x60x512xf32>) -> tensor<8x60x512xf32>
  return %r : tensor<8x60x512xf32>
}

// -----

// A tile that does not divide x (500 columns): consecutive elements, as before.
// CHECK-LABEL: "tile.kernel"
// CHECK-NOT: arith.shrui
// CHECK-NOT: tile.transpose
// CHECK: sym_name = "ragged_columns_fused_relu_0"
func.func @ragged_columns(%x: tensor<8x500x64xf32>) -> tensor<8x64x500xf32> {
  %t = "aten.transpose"(%x) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<8x500x64xf32>) -> tensor<8x64x500xf32>
  %r = "aten.relu"(%t) : (tensor<8x64x500xf32>) -> tensor<8x64x500xf32>
  return %r : tensor<8x64x500xf32>
}

// -----

// An NHWC tensor read as NCHW (a permute, as a channels-last activation feeding NCHW
// code) with a per-channel scale: y = (n, c), x = (h, w); the permuted load is
// converted, the scale is not (it does not vary along x).
// CHECK-LABEL: "tile.kernel"
// CHECK-COUNT-1: "tile.transpose"
// CHECK-NOT: "tile.transpose"
// CHECK: num_warps = 8 : i64, sym_name = "permute_scale_fused_mul_0"
func.func @permute_scale(%x: tensor<8x56x56x64xf32>, %s: tensor<64x1x1xf32>) -> tensor<8x64x56x56xf32> {
  %p = "aten.permute"(%x) {dims = array<i64: 0, 3, 1, 2>} : (tensor<8x56x56x64xf32>) -> tensor<8x64x56x56xf32>
  %m = "aten.mul"(%p, %s) : (tensor<8x64x56x56xf32>, tensor<64x1x1xf32>) -> tensor<8x64x56x56xf32>
  return %m : tensor<8x64x56x56xf32>
}

// -----

// Five transposed operands: the first four are converted through shared memory (4.2 KB
// each), the fifth is read as it is (the kernel's conversions are capped).
// CHECK-LABEL: "tile.kernel"
// CHECK-COUNT-4: "tile.transpose"
// CHECK-NOT: "tile.transpose"
// CHECK: sym_name = "five_transposes_fused_add_mul_sub_0"
func.func @five_transposes(%a: tensor<4x256x128xf32>, %b: tensor<4x256x128xf32>, %c: tensor<4x256x128xf32>, %d: tensor<4x256x128xf32>, %e: tensor<4x256x128xf32>, %f: tensor<4x128x256xf32>) -> tensor<4x128x256xf32> {
  %at = "aten.transpose"(%a) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<4x256x128xf32>) -> tensor<4x128x256xf32>
  %bt = "aten.transpose"(%b) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<4x256x128xf32>) -> tensor<4x128x256xf32>
  %ct = "aten.transpose"(%c) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<4x256x128xf32>) -> tensor<4x128x256xf32>
  %dt = "aten.transpose"(%d) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<4x256x128xf32>) -> tensor<4x128x256xf32>
  %et = "aten.transpose"(%e) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<4x256x128xf32>) -> tensor<4x128x256xf32>
  %s1 = "aten.add"(%at, %bt) : (tensor<4x128x256xf32>, tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  %s2 = "aten.mul"(%s1, %ct) : (tensor<4x128x256xf32>, tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  %s3 = "aten.sub"(%s2, %dt) : (tensor<4x128x256xf32>, tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  %s4 = "aten.mul"(%s3, %et) : (tensor<4x128x256xf32>, tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  %s5 = "aten.add"(%s4, %f) : (tensor<4x128x256xf32>, tensor<4x128x256xf32>) -> tensor<4x128x256xf32>
  return %s5 : tensor<4x128x256xf32>
}

// -----

// Half and integer elements go through shared memory as the kernel holds them (f16
// widened to f32, i64 as is).
// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.transpose"({{.*}}) {shape = array<i64: 32, 32>} : (tensor<1024x1xf32>) -> tensor<1024x1xf32>
// CHECK: sym_name = "half_transpose_fused_relu_0"
func.func @half_transpose(%x: tensor<8x512x64xf16>) -> tensor<8x64x512xf16> {
  %t = "aten.transpose"(%x) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<8x512x64xf16>) -> tensor<8x64x512xf16>
  %r = "aten.relu"(%t) : (tensor<8x64x512xf16>) -> tensor<8x64x512xf16>
  return %r : tensor<8x64x512xf16>
}

// -----

// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.transpose"({{.*}}) {shape = array<i64: 32, 32>} : (tensor<1024x1xi64>) -> tensor<1024x1xi64>
// CHECK: sym_name = "int_transpose_fused_add_0"
func.func @int_transpose(%x: tensor<2x128x64xi64>, %y: tensor<2x64x128xi64>) -> tensor<2x64x128xi64> {
  %t = "aten.transpose"(%x) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x128x64xi64>) -> tensor<2x64x128xi64>
  %r = "aten.add"(%t, %y) : (tensor<2x64x128xi64>, tensor<2x64x128xi64>) -> tensor<2x64x128xi64>
  return %r : tensor<2x64x128xi64>
}

// -----

// resnet_block's last kernel: the convolution's result is channels-last ([N, H, W, C]
// in memory), the residual and the output are NCHW. The load of the convolution is
// contiguous along c, a middle dim: y = (n, c), x = (h, w) (Inductor's
// `triton_poi_fused_add_mul_relu_view_3` tiles (n c, h w) the same way). Only that load
// is converted; the residual is read in the store's order, the per-channel scale and
// shift are broadcasts along x. The copies of the input and the weight to channels-last
// before the convolution are tiled the same way (y = (n, h, w), x = c: their loads are
// contiguous along w).
// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.transpose"
// CHECK: sym_name = "conv_residual_fused_convolution_0"
// CHECK: "tile.transpose"
// CHECK: sym_name = "conv_residual_fused_convolution_1"
// CHECK: "tile.transpose"
// CHECK-NOT: "tile.transpose"
// CHECK: grid = array<i64: 1568>, num_warps = 8 : i64, sym_name = "conv_residual_fused_add_mul_relu_2"
func.func @conv_residual(%x: tensor<8x64x56x56xf32>, %w: tensor<64x64x3x3xf32>, %s: tensor<64xf32>) -> tensor<8x64x56x56xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x56x56xf32>
  %v = "aten.view"(%s) : (tensor<64xf32>) -> tensor<1x64x1x1xf32>
  %m = "aten.mul"(%y, %v) : (tensor<8x64x56x56xf32>, tensor<1x64x1x1xf32>) -> tensor<8x64x56x56xf32>
  %a = "aten.add"(%m, %x) : (tensor<8x64x56x56xf32>, tensor<8x64x56x56xf32>) -> tensor<8x64x56x56xf32>
  %r = "aten.relu"(%a) : (tensor<8x64x56x56xf32>) -> tensor<8x64x56x56xf32>
  return %r : tensor<8x64x56x56xf32>
}
