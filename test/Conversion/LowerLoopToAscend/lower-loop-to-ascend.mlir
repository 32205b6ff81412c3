// RUN: fuse-opt %s --split-input-file --target=ascend --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-ascend | FileCheck %s
// RUN: fuse-opt %s --split-input-file --target=ascend --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-ascend=ub-bytes=2048 | FileCheck %s --check-prefix=SMALL
// RUN: fuse-opt %s --split-input-file --target=ascend --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-ascend=fp32-in-kernels=false | FileCheck %s --check-prefix=EAGER
// RUN: fuse-opt %s --split-input-file --target=ascend --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-ascend=double-buffer=false | FileCheck %s --check-prefix=SINGLE

// A row softmax over 64 rows of 256, fused into one kernel: the input copied in once
// by strided rows (the three loads of the loop IR are one copy), max and sum reduced
// per row in UB, the quotient copied out by rows. 16 rows per tile: the widest tile
// whose UB tiles fit 192 KiB (32 rows need more); 4 programs on 4 of the 48 cores.
// CHECK-LABEL: "ascend.kernel"
// CHECK: ^bb0(%[[OUT:.*]]: memref<16384xf32>, %[[X:.*]]: memref<16384xf32>):
// CHECK: %[[IN:.*]] = "ascend.alloc"() {address = {{[0-9]+}} : i64, depth = 2 : i64, queue = "vecin"} : () -> memref<16x256xf32, "ub">
// CHECK: %[[RES:.*]] = "ascend.alloc"() {address = {{[0-9]+}} : i64, depth = 2 : i64, queue = "vecout"} : () -> memref<16x256xf32, "ub">
// CHECK: "ascend.block_loop"() ({
// CHECK-NEXT: ^bb0(%[[P:.*]]: index):
// CHECK: arith.muli %[[P]], %c16 : index
// CHECK: "ascend.copy_in"(%[[X]], %[[OFF:.*]], %[[MASK:.*]], %{{.*}}, %[[IN]]) {stride = array<i64: 256, 1>}
// CHECK-NOT: "ascend.copy_in"
// CHECK: "ascend.reduce"({{.*}}) {axis = 1 : i64, kind = "max"} : (memref<16x1xf32, "ub">, memref<16x256xf32, "ub">, memref<1x256xf32, "ub">) -> ()
// CHECK: "ascend.unary"({{.*}}) {op = "math.exp"}
// CHECK: "ascend.reduce"({{.*}}) {axis = 1 : i64, kind = "sum"}
// CHECK: "ascend.binary"(%[[RES]], {{.*}}) {op = "arith.divf"}
// CHECK: "ascend.copy_out"(%[[OUT]], %[[OFF]], %[[RES]], %[[MASK]]) {stride = array<i64: 256, 1>}
// CHECK: }) {block_dim = 4 : i64, programs = 4 : i64, sym_name = "softmax_fused_softmax_0", tile = array<i64: 16, 256>, ub_bytes = {{[0-9]+}} : i64, ub_capacity = 196608 : i64}
// CHECK-LABEL: func.func @softmax
// CHECK: "ascend.launch"() ({
// CHECK: }) {kernel = @softmax_fused_softmax_0}
// With a 2 KiB UB a row is looped over in chunks of 32, the running max and sum kept in
// accumulator tiles updated in place.
// SMALL-LABEL: "ascend.kernel"
// SMALL: "ascend.unary"(%[[ACC:.*]], %{{.*}}) {op = "copy"}
// SMALL-NEXT: scf.for %{{.*}} = %c0 to %c256 step %c32 {
// SMALL: "ascend.unary"(%[[ACC]], %{{.*}}) {op = "copy"}
// SMALL: tile = array<i64: 1, 32>, ub_bytes = {{[0-9]+}} : i64, ub_capacity = 2048 : i64
// SINGLE-LABEL: "ascend.kernel"
// SINGLE-NOT: depth = 2
// SINGLE: queue = "vecin"
// SINGLE-NOT: depth = 2
// SINGLE: "ascend.block_loop"
func.func @softmax(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// -----

// A transposed read is a gather (no stride); the contiguous store is one strided copy.
// f16 stays f32 between the kernel's ops (rounded once, where stored); with
// fp32-in-kernels=false the op-math rounding after exp stays.
// CHECK-LABEL: "ascend.kernel"
// CHECK: "ascend.copy_in"(%{{[^)]*}}) : (memref<512xf16>,
// CHECK: "ascend.unary"({{.*}}) {op = "arith.extf"}
// CHECK-NEXT: "ascend.unary"({{.*}}) {op = "math.exp"}
// CHECK-NEXT: "ascend.unary"({{.*}}) {op = "math.sin"}
// CHECK-NEXT: "ascend.unary"({{.*}}) {op = "arith.truncf"}
// CHECK-NEXT: "ascend.copy_out"({{.*}}) {stride = array<i64: 1, 0>}
// EAGER: ^bb0(%arg0: memref<512xf16>, %arg1: memref<512xf16>):
// EAGER: {op = "math.exp"}
// EAGER-NEXT: {op = "arith.truncf"}
func.func @transposed(%x: tensor<16x32xf16>) -> tensor<32x16xf16> {
  %t = "aten.transpose"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<16x32xf16>) -> tensor<32x16xf16>
  %e = "aten.exp"(%t) : (tensor<32x16xf16>) -> tensor<32x16xf16>
  %s = "aten.sin"(%e) : (tensor<32x16xf16>) -> tensor<32x16xf16>
  return %s : tensor<32x16xf16>
}

// -----

// A library matmul stays a host call (the cube unit); its epilogue is a kernel.
// CHECK-LABEL: func.func @mm_relu
// CHECK: "ascend.extern"() ({
// CHECK: kind = "mm"
// CHECK: "ascend.launch"
func.func @mm_relu(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %m = "aten.mm"(%a, %b) : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %r = "aten.relu"(%m) : (tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}
