// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile="max-rblock=2048 elements-per-warp=128" | FileCheck %s --check-prefix=KNOBS
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile="max-warps=16" | FileCheck %s --check-prefix=WARPS
// RUN: not fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --lower-loop-to-tile=max-rblock=3000 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --lower-loop-to-tile=max-warps=64 2>&1 | FileCheck %s --check-prefix=BADWARPS

// The launch rule's knobs: rows of 8192 in 2048-wide chunks, a warp per 128 elements.
// KNOBS: %c8192 step %c2048 iter_args
// KNOBS: block = array<i64: 1, 2048>, grid = array<i64: 64>, num_warps = 8 : i64
// KNOBS: block = array<i64: 16, 64>, grid = array<i64: 7>, num_warps = 8 : i64
// Up to 16 warps: a 4096-wide block at 256 elements per warp takes 16 (Inductor's
// autotuner picks 16 warps for rmsnorm's 4096-wide rows on the H200).
// WARPS: block = array<i64: 1, 4096>, grid = array<i64: 64>, num_warps = 16 : i64
// BADWARPS: error: --lower-loop-to-tile: max-warps=64 is not a power of two in 1..=32
// BAD: error: --lower-loop-to-tile: max-rblock=3000 is not a power of two in 1..=1048576

// A row reduction over 8192 columns with its epilogue (rmsnorm's shape): more than
// RBLOCK = 4096, so a looped reduction — an scf.for over 4096-wide chunks carrying the
// accumulator block — then tile.reduce to one value per row, kept in registers for the
// epilogue's own chunk loop (no reload, no barrier). Only this kernel reads the row sums:
// they are never stored and have no buffer (Inductor drops such kernel-local buffers).
// One program per row (XBLOCK = 1), 8 warps; the host launches the kernel once.
// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.program_id"() {axis = 0 : i64} : () -> index
// CHECK: "tile.arange"() {axis = 0 : i64} : () -> tensor<1x1xindex>
// CHECK: "tile.arange"() {axis = 1 : i64} : () -> tensor<1x4096xindex>
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %{{.*}} to %c8192 step %c4096 iter_args(%[[A:.*]] = %{{.*}}) -> (tensor<1x4096xf32>)
// CHECK: "tile.load"(%{{.*}}) : (memref<524288xf32>, tensor<1x4096xindex>, tensor<1x4096xi1>, f32) -> tensor<1x4096xf32>
// CHECK: arith.select
// CHECK: arith.addf %[[A]]
// CHECK: scf.yield
// CHECK: %[[SUM:.*]] = "tile.reduce"(%[[ACC]]) {axis = 1 : i64, kind = "sum"} : (tensor<1x4096xf32>) -> tensor<1x1xf32>
// CHECK-NOT: tile.barrier
// CHECK-NOT: "tile.store"
// CHECK: scf.for
// CHECK: arith.divf %[[SUM]]
// CHECK: math.rsqrt
// CHECK: "tile.store"(%{{.*}}) : (memref<524288xf32>, tensor<1x4096xindex>, tensor<1x4096xf32>, tensor<1x4096xi1>)
// CHECK: gpu.yield
// CHECK: block = array<i64: 1, 4096>, grid = array<i64: 64>, num_warps = 8 : i64, sym_name = "rows_fused_mean_mul_rsqrt_0"
// CHECK: func.func @rows(%{{.*}}) attributes {fuselab.arg_shapes = [array<i64: 64, 8192>, array<i64: 8192>, array<i64: 64, 8192>], fuselab.num_inputs = 2 : i64}
// CHECK-NOT: memref.alloc
// CHECK: "tile.launch"() ({
// CHECK-NEXT: gpu.yield
// CHECK-NEXT: }) {kernel = @rows_fused_mean_mul_rsqrt_0}
func.func @rows(%x: tensor<64x8192xf32>, %w: tensor<8192xf32>) -> tensor<64x8192xf32> {
  %s = "aten.mul"(%x, %x) : (tensor<64x8192xf32>, tensor<64x8192xf32>) -> tensor<64x8192xf32>
  %m = "aten.mean"(%s) {dims = array<i64: 1>, keepdim = true} : (tensor<64x8192xf32>) -> tensor<64x1xf32>
  %r = "aten.rsqrt"(%m) : (tensor<64x1xf32>) -> tensor<64x1xf32>
  %y = "aten.mul"(%x, %r) : (tensor<64x8192xf32>, tensor<64x1xf32>) -> tensor<64x8192xf32>
  %z = "aten.mul"(%y, %w) : (tensor<64x8192xf32>, tensor<8192xf32>) -> tensor<64x8192xf32>
  return %z : tensor<64x8192xf32>
}

// -----

// A small row reduction (softmax over 64 columns): persistent — the whole row in one
// [XBLOCK, RBLOCK] = [16, 64] block, no loop; 16 rows per program (1024 / RBLOCK), 4
// warps (256 elements each), masks for the 100 rows (100 = 6 * 16 + 4).
// CHECK-LABEL: "tile.kernel"
// CHECK-NOT: scf.for
// CHECK: "tile.reduce"(%{{.*}}) {axis = 1 : i64, kind = "max"} : (tensor<16x64xf32>) -> tensor<16x1xf32>
// CHECK: "tile.reduce"(%{{.*}}) {axis = 1 : i64, kind = "sum"} : (tensor<16x64xf32>) -> tensor<16x1xf32>
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: block = array<i64: 16, 64>, grid = array<i64: 7>, num_warps = 4 : i64
func.func @small_softmax(%x: tensor<100x64xf32>) -> tensor<100x64xf32> {
  %y = "aten.softmax"(%x) {dim = 1 : i64} : (tensor<100x64xf32>) -> tensor<100x64xf32>
  return %y : tensor<100x64xf32>
}

// -----

// Pointwise only: a 1-D kernel, XBLOCK = 1024 elements, RBLOCK = 1, 4 warps; 3000
// elements need 3 programs and a mask.
// CHECK-LABEL: "tile.kernel"
// CHECK: %[[N:.*]] = arith.constant 3000 : index
// CHECK: %[[LIMIT:.*]] = "tile.splat"(%[[N]]) : (index) -> tensor<1024x1xindex>
// CHECK: arith.cmpi slt, %{{.*}}, %[[LIMIT]] : tensor<1024x1xindex>
// CHECK: arith.maximumf
// CHECK: block = array<i64: 1024, 1>, grid = array<i64: 3>, num_warps = 4 : i64
func.func @relu(%x: tensor<3000xf32>) -> tensor<3000xf32> {
  %y = "aten.relu"(%x) : (tensor<3000xf32>) -> tensor<3000xf32>
  return %y : tensor<3000xf32>
}

// -----

// A library kernel: the matmul is a tile.extern on its operands' buffers and its
// result's (cuBLAS on the device), the bias-add epilogue a kernel of its own.
// CHECK-LABEL: "tile.kernel"
// CHECK: func.func @linear
// CHECK: %[[H:.*]] = memref.alloc() {fuselab.shape = array<i64: 32, 16>} : memref<512xf32>
// CHECK: "tile.extern"() ({
// CHECK-NEXT: gpu.yield %arg0, %arg1, %[[H]] : memref<256xf32>, memref<128xf32>, memref<512xf32>
// CHECK-NEXT: kind = "mm"
// CHECK: "tile.launch"
func.func @linear(%x: tensor<32x8xf32>, %w: tensor<8x16xf32>) -> tensor<32x16xf32> {
  %h = "aten.mm"(%x, %w) : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
  %y = "aten.relu"(%h) : (tensor<32x16xf32>) -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// -----

// A member that reads another member's stored buffer (y is a result, so it is
// stored; its row sum reads it back): the reader waits at a tile.barrier.
// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.store"
// CHECK-NEXT: "tile.barrier"
// CHECK: "tile.reduce"
func.func @keep_and_sum(%x: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x1xf32>) {
  %c = arith.constant dense<2.0> : tensor<f32>
  %y = "aten.mul"(%x, %c) : (tensor<8x128xf32>, tensor<f32>) -> tensor<8x128xf32>
  %s = "aten.sum"(%y) {dims = array<i64: 1>, keepdim = true} : (tensor<8x128xf32>) -> tensor<8x1xf32>
  return %y, %s : tensor<8x128xf32>, tensor<8x1xf32>
}

// -----

// A concatenation (found by fuse-fuzz on the GPU path): its body computes the position
// with affine.apply and picks a source with a compare — index arithmetic on blocks.
// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.load"(%{{.*}}) : (memref<3xf32>, tensor<8x1xindex>, tensor<8x1xi1>, f32) -> tensor<8x1xf32>
// CHECK: "tile.load"(%{{.*}}) : (memref<5xf32>, tensor<8x1xindex>, tensor<8x1xi1>, f32) -> tensor<8x1xf32>
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<8x1xindex>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x1xi1>, tensor<8x1xf32>
func.func @cat(%a: tensor<3xf32>, %b: tensor<5xf32>) -> tensor<8xf32> {
  %c = "aten.cat"(%a, %b) {dim = 0 : i64} : (tensor<3xf32>, tensor<5xf32>) -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// A full reduction and its scalar epilogue (mean then neg): both produce one value, so
// they are one row — one program computes the sum (looped over 4096-wide chunks) and
// the epilogue from its registers, as Inductor's xnumel = 1 kernel does. One kernel, of
// max-warps-single (16) warps.
// CHECK-LABEL: "tile.kernel"
// CHECK: scf.for
// CHECK: "tile.reduce"(%{{.*}}) {axis = 1 : i64, kind = "sum"}
// CHECK: arith.divf
// CHECK: arith.negf
// CHECK: "tile.store"
// CHECK: grid = array<i64: 1>, num_warps = 16 : i64, sym_name = "mean_neg_fused_mean_neg_0"
// CHECK-NOT: "tile.kernel"
// CHECK: func.func @mean_neg
func.func @mean_neg(%x: tensor<64x1000xf32>) -> tensor<f32> {
  %m = "aten.mean"(%x) {dims = array<i64: 0, 1>, keepdim = false} : (tensor<64x1000xf32>) -> tensor<f32>
  %n = "aten.neg"(%m) : (tensor<f32>) -> tensor<f32>
  return %n : tensor<f32>
}
