// Convolutions through oneDNN's primitive (`fuselab_conv`, targets/src/cpu/dnnl/mod.rs)
// against the aten interpreter: 1 and 3 spatial dims, stride with a floored output
// size, dilation, zero padding, depthwise groups with a bias, f16 operands (computed
// in f32 scratch buffers), and a batch of images on parallel steps. The same with
// FUSELAB_BLAS=openblas runs the generated im2col code: both must PASS.
// oneDNN says on stderr when it refuses a convolution (the im2col code then runs it):
// none may be refused here.
// RUN: fuse-run %s --jit --strategy inductor --parallel false 2>&1 | FileCheck %s
// RUN: fuse-run %s --jit --strategy inductor --parallel 2>&1 | FileCheck %s
// RUN: env FUSELAB_BLAS=openblas fuse-run %s --jit --strategy inductor --parallel false | FileCheck %s
// The bench's first line names the library that ran.
// RUN: fuse-run %s --function conv1d --bench --runs 1 --no-check --parallel false | FileCheck %s --check-prefix=LIB
// RUN: env FUSELAB_BLAS=openblas fuse-run %s --function conv1d --bench --runs 1 --no-check --parallel false | FileCheck %s --check-prefix=IM2COL

// CHECK-NOT: {{FAIL|ERROR|refused}}
// CHECK-COUNT-6: PASS
// LIB: compiled code: one thread; GEMM and convolution by oneDNN
// IM2COL: compiled code: one thread; {{.*}}convolution by im2col + GEMM

// Input 19, kernel 5, stride 3, padding 2: (19 + 4 - 5) / 3 + 1 = 7 (no remainder); a bias.
func.func @conv1d(%x: tensor<2x12x19xf32>, %w: tensor<10x12x5xf32>, %b: tensor<10xf32>) -> tensor<2x10x7xf32> {
  %y = "aten.convolution"(%x, %w, %b) {stride = array<i64: 3>, padding = array<i64: 2>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<2x12x19xf32>, tensor<10x12x5xf32>, tensor<10xf32>) -> tensor<2x10x7xf32>
  return %y : tensor<2x10x7xf32>
}

// Input 10, kernel 3, stride 2, padding 1: floor((10 + 2 - 3) / 2) + 1 = 5, the last
// input row read by no window.
func.func @floored(%x: tensor<1x8x10x10xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x5x5xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x5x5xf32>
  return %y : tensor<1x16x5x5xf32>
}

// Dilation 3 and no padding: 20 - 3 * 2 = 14 outputs.
func.func @dilated(%x: tensor<1x6x20x20xf32>, %w: tensor<4x6x3x3xf32>) -> tensor<1x4x14x14xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 3, 3>, groups = 1 : i64} : (tensor<1x6x20x20xf32>, tensor<4x6x3x3xf32>) -> tensor<1x4x14x14xf32>
  return %y : tensor<1x4x14x14xf32>
}

// Depthwise (groups = channels) with a bias, as MobileNet's.
func.func @depthwise(%x: tensor<2x16x12x12xf32>, %w: tensor<16x1x3x3xf32>, %b: tensor<16xf32>) -> tensor<2x16x12x12xf32> {
  %y = "aten.convolution"(%x, %w, %b) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 16 : i64} : (tensor<2x16x12x12xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<2x16x12x12xf32>
  return %y : tensor<2x16x12x12xf32>
}

// Three spatial dims.
func.func @conv3d(%x: tensor<1x4x6x7x8xf32>, %w: tensor<5x4x3x3x3xf32>) -> tensor<1x5x6x7x8xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1, 1>, padding = array<i64: 1, 1, 1>, dilation = array<i64: 1, 1, 1>, groups = 1 : i64} : (tensor<1x4x6x7x8xf32>, tensor<5x4x3x3x3xf32>) -> tensor<1x5x6x7x8xf32>
  return %y : tensor<1x5x6x7x8xf32>
}

// f16 operands and a bias: widened into f32 scratch buffers, the result narrowed once.
func.func @half(%x: tensor<4x8x9x9xf16>, %w: tensor<8x8x3x3xf16>, %b: tensor<8xf16>) -> tensor<4x8x9x9xf16> {
  %y = "aten.convolution"(%x, %w, %b) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<4x8x9x9xf16>, tensor<8x8x3x3xf16>, tensor<8xf16>) -> tensor<4x8x9x9xf16>
  return %y : tensor<4x8x9x9xf16>
}
