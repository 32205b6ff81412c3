// --lower-loop-to-cpu, a convolution extern: first a call of fuselab_conv (oneDNN's
// primitive, targets/src/cpu/dnnl/mod.rs), and where that returns 0 (no library, a refused
// shape) im2col + fuselab_sgemm per (image, group, tile of output rows). Serially one global im2col tile is filled and multiplied for
// every image in turn. With parallel steps every (image, group, tile) is a chunk of an
// scf.parallel: the outlined rows function fills its tile on its own stack (no parallel
// step nested in it: the fill is plain loops) and runs its GEMM on its own thread
// (fuselab_sgemm_serial).
// The structure on operands as they are (channels-last=false):
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop=channels-last=false --lower-loop-to-cpu | FileCheck %s
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop=channels-last=false --lower-loop-to-cpu="parallel=true parallel-min-work=1" | FileCheck %s --check-prefix=PAR
// With the CPU target's layout optimization the graph-input image and weight are
// channels-last copies: fuselab_conv reads them through their strides (image [2, 4, 6,
// 6] as (144, 1, 24, 4), weight [8, 4, 3, 3] as (36, 1, 12, 4)); the im2col code copies
// them out of their views only when it runs (inside the scf.if). Executed both ways below.
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --lower-loop-to-cpu | FileCheck %s --check-prefix=LAYOUT
// RUN: fuse-run %s --jit --parallel-min-work 1 | FileCheck %s --check-prefix=EXEC
// RUN: env FUSELAB_BLAS=openblas fuse-run %s --jit --parallel-min-work 1 | FileCheck %s --check-prefix=EXEC

// CHECK: func.func private @fuselab_conv(i64, {{(i64, )+}}i64) -> i32
// CHECK-LABEL: func.func private @conv_buf0(
// CHECK: memref.get_global @conv_g{{[0-9]+}} : memref<1296xf32>
// CHECK: %[[DONE:.*]] = call @fuselab_conv(
// CHECK: %[[REFUSED:.*]] = arith.cmpi eq, %[[DONE]], %{{.*}} : i32
// CHECK: scf.if %[[REFUSED]] {
// CHECK-NOT: scf.parallel
// CHECK: func.call @fuselab_sgemm(
// CHECK-LABEL: func.func @conv(

// PAR-NOT: func.func private @fuselab_sgemm(
// PAR-LABEL: func.func private @conv_buf0_rows(
// PAR-NEXT: memref.alloca() {{.*}} : memref<1296xf32>
// PAR-NOT: scf.parallel
// PAR: func.call @fuselab_sgemm_serial(
// PAR-LABEL: func.func private @conv_buf0(
// PAR: scf.parallel
// PAR: func.call @conv_buf0_rows(
// PAR-NOT: scf.parallel
// PAR-LABEL: func.func @conv(

// LAYOUT: %[[DONE:.*]] = call @fuselab_conv({{.*}}, %c144_i64, %c1_i64_{{[0-9]+}}, %c24_i64, %c4_i64_{{[0-9]+}}, %c0_i64_{{[0-9]+}}, %c36_i64, %c1_i64_{{[0-9]+}}, %c12_i64, %c4_i64_{{[0-9]+}}, %c0_i64_{{[0-9]+}},
// LAYOUT: %[[REFUSED:.*]] = arith.cmpi eq, %[[DONE]], %{{.*}} : i32
// LAYOUT-NEXT: scf.if %[[REFUSED]] {
// LAYOUT: func.call @fuselab_sgemm(

// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-COUNT-6: PASS

// 2 images of 4 channels, 3x3 to 8 channels: 36 im2col rows of 36 columns a tile.
func.func @conv(%x: tensor<2x4x6x6xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x8x6x6xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x6x6xf32>
  return %y : tensor<2x8x6x6xf32>
}
