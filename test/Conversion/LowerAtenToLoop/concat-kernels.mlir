// Inductor's ConcatKernel (torch/_inductor/lowering.py `cat`, ir.py
// `ConcatKernel.realize_into`): a cat whose inputs are all mm results is no kernel — each
// mm writes straight into its slice (`extern_kernels.mm(..., out=reinterpret_tensor(buf2,
// (256, 384), (512, 1), 0))`, torch 2.11 on the H200 and on the CPU, programs cat_mm and
// cat_mm_dim0 of tools/fidelity/programs.py). fuselab: a `concat` extern over the mm
// results, which the code generators write into.
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop=concat-kernels=false | FileCheck %s --check-prefix=OFF
// RUN: fuse-run %s | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --target spyre --jit --strategy inductor | FileCheck %s --check-prefix=EXEC
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --inductor-fuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --inductor-fuse --lower-loop-to-tile | FileCheck %s --check-prefix=TILE
// EXEC-NOT: FAIL
// EXEC-NOT: ERROR

// CHECK-LABEL: func.func @three_mms
// CHECK: %[[A:.*]] = "loop.extern"(%arg0, %arg1) {{.*}}kind = "mm"
// CHECK: %[[B:.*]] = "loop.extern"(%arg0, %arg2) {{.*}}kind = "mm"
// CHECK: %[[C:.*]] = "loop.extern"(%arg0, %arg3) {{.*}}kind = "mm"
// The importer's left fold of a 3-way cat is one concat.
// CHECK-NEXT: %[[K:.*]] = "loop.extern"(%[[A]], %[[B]], %[[C]]) {dim = 1 : i64, {{.*}}kind = "concat"{{.*}} -> tensor<64x48xf32>
// CHECK-NEXT: return %[[K]]
// OFF-LABEL: func.func @three_mms
// OFF-NOT: "concat"
// OFF: "loop.pointwise"
// EXEC: @three_mms
// EXEC: inductor output #0 tensor<64x48xf32>: {{.*}} PASS
// Two mms write 24 and 24 columns of the 48 of one buffer: no kernel, 2 library calls
// with no copy (the concat's own bytes are 0).
// REPORT: "function": "three_mms"
// REPORT: "name": "buf4"
// REPORT-NEXT: "extern": "cat"
// REPORT: "bytes_read": 0,
// REPORT-NEXT: "bytes_written": 0,
// REPORT: "kernels": 0,
// REPORT-NEXT: "extern_kernels": 4,
// REPORT-NEXT: "launches": 3,
// Each mm's output is a strided view of the result: offset, sizes, strides (48, 1).
// TILE-LABEL: func.func @three_mms
// TILE: "tile.extern"
// TILE: gpu.yield %arg0, %arg1, %arg4
// TILE: fuselab.out_view = array<i64: 0, 64, 16, 48, 1>
// TILE: fuselab.out_view = array<i64: 16, 64, 8, 48, 1>
// TILE: fuselab.out_view = array<i64: 24, 64, 24, 48, 1>
// TILE-NOT: "tile.launch"
// TILE: return
func.func @three_mms(%a: tensor<64x32xf32>, %w1: tensor<32x16xf32>, %w2: tensor<32x8xf32>, %w3: tensor<32x24xf32>) -> tensor<64x48xf32> {
  %m1 = "aten.mm"(%a, %w1) : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %m2 = "aten.mm"(%a, %w2) : (tensor<64x32xf32>, tensor<32x8xf32>) -> tensor<64x8xf32>
  %m3 = "aten.mm"(%a, %w3) : (tensor<64x32xf32>, tensor<32x24xf32>) -> tensor<64x24xf32>
  %c1 = "aten.cat"(%m1, %m2) {dim = 1 : i64} : (tensor<64x16xf32>, tensor<64x8xf32>) -> tensor<64x24xf32>
  %c2 = "aten.cat"(%c1, %m3) {dim = -1 : i64} : (tensor<64x24xf32>, tensor<64x24xf32>) -> tensor<64x48xf32>
  return %c2 : tensor<64x48xf32>
}

// -----

// Along rows, read by a pointwise op (Inductor: `cat_mm_relu_after` is one pointwise
// kernel too).
// CHECK-LABEL: func.func @rows_then_relu
// CHECK: kind = "concat"
// CHECK: "loop.pointwise"
// EXEC: @rows_then_relu
// EXEC: inductor output #0 tensor<48x16xf32>: {{.*}} PASS
// TILE-LABEL: func.func @rows_then_relu
// TILE: fuselab.out_view = array<i64: 0, 32, 16, 16, 1>
// TILE: fuselab.out_view = array<i64: 512, 16, 16, 16, 1>
// TILE: "tile.launch"
func.func @rows_then_relu(%a: tensor<32x8xf32>, %b: tensor<16x8xf32>, %w: tensor<8x16xf32>) -> tensor<48x16xf32> {
  %m1 = "aten.mm"(%a, %w) : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
  %m2 = "aten.mm"(%b, %w) : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  %c = "aten.cat"(%m1, %m2) {dim = 0 : i64} : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<48x16xf32>
  %r = "aten.relu"(%c) : (tensor<48x16xf32>) -> tensor<48x16xf32>
  return %r : tensor<48x16xf32>
}

// -----

// Half precision: the CPU code generator computes a half mm in f32 and copies it into
// its slice; the GPU's library call writes it there.
// CHECK-LABEL: func.func @half_columns
// CHECK: kind = "concat"
// EXEC: @half_columns
// EXEC: inductor output #0 tensor<32x24xf16>: {{.*}} PASS
func.func @half_columns(%a: tensor<32x8xf16>, %w1: tensor<8x16xf16>, %w2: tensor<8x8xf16>) -> tensor<32x24xf16> {
  %m1 = "aten.mm"(%a, %w1) : (tensor<32x8xf16>, tensor<8x16xf16>) -> tensor<32x16xf16>
  %m2 = "aten.mm"(%a, %w2) : (tensor<32x8xf16>, tensor<8x8xf16>) -> tensor<32x8xf16>
  %c = "aten.cat"(%m1, %m2) {dim = 1 : i64} : (tensor<32x16xf16>, tensor<32x8xf16>) -> tensor<32x24xf16>
  return %c : tensor<32x24xf16>
}

// -----

// Copied by a pointwise cat instead: a bmm (its output layout is fixed: `cat_bmm` copies
// in Inductor too), an mm that something else reads as well, and an mm with a bias.
// CHECK-LABEL: func.func @copied
// CHECK-NOT: "concat"
// CHECK: return
// EXEC: @copied
// EXEC: inductor output #0 {{.*}} PASS
func.func @copied(%a: tensor<4x16x8xf32>, %b: tensor<4x8x8xf32>, %x: tensor<16x8xf32>, %w: tensor<8x8xf32>, %bias: tensor<8xf32>) -> (tensor<4x16x16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x16xf32>) {
  %p = "aten.bmm"(%a, %b) : (tensor<4x16x8xf32>, tensor<4x8x8xf32>) -> tensor<4x16x8xf32>
  %q = "aten.bmm"(%a, %b) : (tensor<4x16x8xf32>, tensor<4x8x8xf32>) -> tensor<4x16x8xf32>
  %bc = "aten.cat"(%p, %q) {dim = 2 : i64} : (tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x16xf32>
  %m = "aten.mm"(%x, %w) : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %n = "aten.mm"(%x, %w) : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %twice = "aten.cat"(%m, %n) {dim = 1 : i64} : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32>
  %l = "aten.mm"(%x, %w) : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %lb = "aten.add"(%l, %bias) : (tensor<16x8xf32>, tensor<8xf32>) -> tensor<16x8xf32>
  %o = "aten.mm"(%x, %w) : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %biased = "aten.cat"(%lb, %o) {dim = 1 : i64} : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x16xf32>
  return %bc, %twice, %m, %biased : tensor<4x16x16xf32>, tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x16xf32>
}

// -----

// Four mm results of four widths: IRDL binds one type to all of an op's variadic
// operands (the third on), so the concat extern takes the first three (tail 4 wide only)
// and the fourth is joined by a pointwise cat (was an IRDL error on valid input).
// CHECK-LABEL: func.func @four_widths
// CHECK: "loop.extern"({{.*}}) {{.*}}kind = "concat"{{.*}} : (tensor<32x16xf32>, tensor<32x8xf32>, tensor<32x4xf32>) -> tensor<32x28xf32>
// CHECK: "loop.pointwise"
// CHECK: origins = ["cat"]
// EXEC: @four_widths
// EXEC: inductor output #0 tensor<32x30xf32>: {{.*}} PASS
func.func @four_widths(%a: tensor<32x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<8x8xf32>, %w3: tensor<8x4xf32>, %w4: tensor<8x2xf32>) -> tensor<32x30xf32> {
  %m1 = "aten.mm"(%a, %w1) : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
  %m2 = "aten.mm"(%a, %w2) : (tensor<32x8xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
  %m3 = "aten.mm"(%a, %w3) : (tensor<32x8xf32>, tensor<8x4xf32>) -> tensor<32x4xf32>
  %m4 = "aten.mm"(%a, %w4) : (tensor<32x8xf32>, tensor<8x2xf32>) -> tensor<32x2xf32>
  %c = "aten.cat"(%m1, %m2) {dim = 1 : i64} : (tensor<32x16xf32>, tensor<32x8xf32>) -> tensor<32x24xf32>
  %d = "aten.cat"(%c, %m3) {dim = 1 : i64} : (tensor<32x24xf32>, tensor<32x4xf32>) -> tensor<32x28xf32>
  %e = "aten.cat"(%d, %m4) {dim = 1 : i64} : (tensor<32x28xf32>, tensor<32x2xf32>) -> tensor<32x30xf32>
  return %e : tensor<32x30xf32>
}
