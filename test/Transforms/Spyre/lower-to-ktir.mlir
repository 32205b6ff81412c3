// --spyre-lower-to-ktir: the three Spyre passes' decisions as KTIR kernels (IBM's RFC
// 0682): every buffer gets an HBM byte address (128-aligned, its stick layout's device
// bytes), inputs are copied in and results read out through memory views, and each op
// becomes a kernel whose compute tiles find their box from the core split (arith on the
// tile id), read through access tiles of HBM or LX views and store their results. The
// functional simulator runs exactly this form (the third RUN line: every strategy against
// the oracle).
// RUN: fuse-opt %s --target=spyre --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad --spyre-lower-to-ktir | FileCheck %s
// RUN: fuse-opt %s --target=spyre --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad --spyre-lower-to-ktir | fuse-opt | FileCheck %s
// RUN: fuse-run %s --target spyre --jit | FileCheck %s --check-prefix=EXEC

// EXEC-NOT: FAIL
// EXEC-NOT: ERROR
// EXEC-COUNT-24: PASS

// Softmax times a weight: the input is read by three ops, so it is cloned into LX (a copy
// kernel per core piece); the row max and sum live in LX (sparse: one value per stick).
// CHECK-LABEL: func.func @softmax_mul
// CHECK-SAME: spyre.hbm_bytes = 66048
// CHECK: %[[X:[a-z0-9_]+]] = "spyre.memory_view"() {address = 0 : i64, layout = {device_size = array<i64: 4, 64, 64>, stick_dim = 1 : i64, stride_map = array<i64: 64, 256, 1>}, memory_space = "hbm"} : () -> memref<64x256xf16, "hbm">
// CHECK-NEXT: "spyre.copy_in"(%arg0, %[[X]])
// CHECK: "spyre.memory_view"() {address = 32768 : i64, {{.*}}memory_space = "hbm"} : () -> memref<256xf16, "hbm">
// CHECK: "spyre.kernel"()
// CHECK: "spyre.memory_view"() {address = 0 : i64, {{.*}}memory_space = "lx", pieces = array<i64: 0, 2, 0, 256, 2, 4, 0, 256,
// CHECK: tensor.extract
// CHECK: "spyre.store"({{.*}}) : (f16, memref<f16, "lx">)
// CHECK: {cores = 32 : i64, sym_name = "softmax_mul_clone_arg0"}
// The row max: 32 tiles of 2 rows each, the whole row reduced in a carried loop.
// CHECK: "spyre.kernel"()
// CHECK-NEXT: %[[ID:[a-z0-9_]+]] = "spyre.compute_tile_id"() : () -> index
// CHECK: %[[IN:[a-z0-9_]+]] = "spyre.memory_view"() {address = 0 : i64, {{.*}}memory_space = "lx"
// CHECK: %[[MAX:[a-z0-9_]+]] = "spyre.memory_view"() {address = 1024 : i64, layout = {device_size = array<i64: 64, 32>, sparse = true}, memory_space = "lx"
// CHECK: %[[PART:[a-z0-9_]+]] = arith.remsi %[[ID]], %c32 : index
// CHECK: %[[LO:[a-z0-9_]+]] = arith.muli %[[PART]], %c2 : index
// CHECK: %[[HI:[a-z0-9_]+]] = arith.addi %[[LO]], %c2 : index
// CHECK: scf.for %[[I:[a-z0-9_]+]] = %[[LO]] to %[[HI]] step
// CHECK: scf.for %[[J:[a-z0-9_]+]] = %c0 to %c256 step {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %cst) -> (f32)
// CHECK: %[[T:[a-z0-9_]+]] = "spyre.access_tile"(%[[IN]], %[[I]], %[[J]]) {base_map = #map} : (memref<64x256xf16, "lx">, index, index) -> memref<f16, "lx">
// CHECK: %[[V:[a-z0-9_]+]] = "spyre.load"(%[[T]]) : (memref<f16, "lx">) -> f16
// CHECK: arith.maximumf %[[ACC]]
// CHECK: "spyre.access_tile"(%[[MAX]], %[[I]]) {base_map = #map1}
// CHECK: {cores = 32 : i64, sym_name = "softmax_mul_buf0"}
// CHECK: sym_name = "softmax_mul_buf1"
// The output goes to HBM (a result); the weight is read along the stick.
// CHECK: "spyre.access_tile"({{.*}}) {base_map = #map3} : (memref<256xf16, "hbm">, index, index)
// CHECK: sym_name = "softmax_mul_buf2"
// CHECK: %[[OUT:[a-z0-9_]+]] = "spyre.memory_view"() {address = 33280 : i64, {{.*}}memory_space = "hbm"}
// CHECK-NEXT: %[[R:[a-z0-9_]+]] = "spyre.copy_out"(%[[OUT]]) : (memref<64x256xf16, "hbm">) -> tensor<64x256xf16>
// CHECK-NEXT: return %[[R]]
func.func @softmax_mul(%x: tensor<64x256xf16>, %w: tensor<256xf16>) -> tensor<64x256xf16> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x256xf16>) -> tensor<64x256xf16>
  %z = "aten.mul"(%y, %w) : (tensor<64x256xf16>, tensor<256xf16>) -> tensor<64x256xf16>
  return %z : tensor<64x256xf16>
}

// a.t() + x: the restickify is a one-core copy kernel between two HBM layouts; the add
// reads the copy at the transposed coordinates.
// CHECK-LABEL: func.func @transpose_add
// CHECK: "spyre.kernel"()
// CHECK: %[[SRC:[a-z0-9_]+]] = "spyre.memory_view"() {address = 0 : i64, layout = {device_size = array<i64: 1, 128, 64>, stick_dim = 1 : i64, stride_map = array<i64: 64, 64, 1>}, memory_space = "hbm"}
// CHECK: %[[DST:[a-z0-9_]+]] = "spyre.memory_view"() {address = 32768 : i64, layout = {device_size = array<i64: 2, 64, 64>, stick_dim = 0 : i64, stride_map = array<i64: 4096, 1, 64>}, memory_space = "hbm"}
// CHECK: arith.constant dense<{{\[\[}}0, 128, 0, 64]]> : tensor<1x4xindex>
// CHECK: "spyre.access_tile"(%[[SRC]],
// CHECK: "spyre.access_tile"(%[[DST]],
// CHECK: {cores = 1 : i64, sym_name = "transpose_add_restickify_arg0_restickified"}
// CHECK: "spyre.kernel"()
// CHECK: %[[TT:[a-z0-9_]+]] = "spyre.memory_view"() {address = 32768 : i64
// CHECK: "spyre.access_tile"(%[[TT]], %{{.*}}, %{{.*}}) {base_map = #map4}
// CHECK: sym_name = "transpose_add_buf0"
func.func @transpose_add(%a: tensor<128x64xf16>, %x: tensor<64x128xf16>) -> tensor<64x128xf16> {
  %t = "aten.permute"(%a) {dims = array<i64: 1, 0>} : (tensor<128x64xf16>) -> tensor<64x128xf16>
  %y = "aten.add"(%t, %x) : (tensor<64x128xf16>, tensor<64x128xf16>) -> tensor<64x128xf16>
  return %y : tensor<64x128xf16>
}

// Library kernels are host calls on HBM views (operands, then the result).
// CHECK-LABEL: func.func @mm_cat
// CHECK: "spyre.extern"()
// CHECK: gpu.yield {{.*}} : memref<8x64xf16, "hbm">, memref<64x64xf16, "hbm">, memref<8x64xf16, "hbm">
// CHECK: kind = "mm"
// CHECK: "spyre.extern"()
// CHECK: kind = "mm"
// CHECK: "spyre.extern"()
// CHECK: gpu.yield {{.*}} : memref<8x64xf16, "hbm">, memref<8x64xf16, "hbm">, memref<8x128xf16, "hbm">
// CHECK: dim = 1 : i64{{.*}}kind = "concat"
func.func @mm_cat(%a: tensor<8x64xf16>, %b: tensor<64x64xf16>, %c: tensor<64x64xf16>) -> tensor<8x128xf16> {
  %m0 = "aten.mm"(%a, %b) : (tensor<8x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16>
  %m1 = "aten.mm"(%a, %c) : (tensor<8x64xf16>, tensor<64x64xf16>) -> tensor<8x64xf16>
  %y = "aten.cat"(%m0, %m1) {dim = 1 : i64} : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x128xf16>
  return %y : tensor<8x128xf16>
}

// A column sum over 4096 rows: the reduction dim is split over the 32 cores, so each
// tile reduces 128 rows and stores its partial sum with `combine`.
// CHECK-LABEL: func.func @colsum
// CHECK: %[[CID:[a-z0-9_]+]] = "spyre.compute_tile_id"
// CHECK: %[[CP:[a-z0-9_]+]] = arith.remsi %[[CID]], %c32 : index
// CHECK: %[[FROM:[a-z0-9_]+]] = arith.muli %[[CP]], %c128 : index
// CHECK: %[[UPTO:[a-z0-9_]+]] = arith.addi %[[FROM]], %c128 : index
// CHECK: scf.for %{{.*}} = %c0 to %c64
// CHECK: = scf.for %arg{{[0-9]+}} = %[[FROM]] to %[[UPTO]] step %c1 iter_args
// CHECK-SAME: -> (f16)
// CHECK: "spyre.store"({{.*}}) {combine = "sum"} : (f16, memref<f16, "hbm">)
func.func @colsum(%x: tensor<4096x64xf16>) -> tensor<64xf16> {
  %s = "aten.sum"(%x) {dims = array<i64: 0>, keepdim = false} : (tensor<4096x64xf16>) -> tensor<64xf16>
  return %s : tensor<64xf16>
}
