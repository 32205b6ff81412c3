// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile --lower-tile-to-gpu | FileCheck %s

// Softmax over 512 columns: a [2, 512] block on 128 threads = 8 slots per thread, in
// groups of 4 adjacent elements (sizePerThread 4); each row spans all 4 warps, 4 slots
// of every thread. Row max and row sum: the thread's 4 values, a shuffle-xor butterfly
// inside each warp (offsets 16..1), then the 4 warps through workgroup memory (2 rows
// x 4 warps) between barriers; the kernel arguments are distinct 16-byte aligned buffers. 100 rows divide
// XBLOCK = 2 and 512 columns RBLOCK: no masks, plain loads and stores. The host's
// launch names the gpu.func and carries grid and threads.
// CHECK-LABEL: gpu.module @fuselab_kernels
// CHECK: gpu.func @softmax_rows_fused_softmax_0(%{{.*}}: memref<51200xf32> {llvm.align = 16 : i64, llvm.noalias}
// CHECK-SAME: workgroup(%[[WG:.*]] : memref<8xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: gpu.thread_id{{.*}}x
// CHECK: gpu.block_id{{.*}}x
// CHECK-NOT: arith.select
// CHECK: memref.load
// CHECK: gpu.shuffle{{.*}}xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle{{.*}}xor %{{.*}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK: arith.maximumf
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[WG]][%{{.*}}] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %[[WG]]
// CHECK: gpu.barrier
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: arith.divf
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK: gpu.return
// CHECK: func.func @softmax_rows
// CHECK: "tile.launch"
// CHECK: grid = array<i64: 50>, kernel = @fuselab_kernels::@softmax_rows_fused_softmax_0, threads = 128 : i64
func.func @softmax_rows(%x: tensor<100x512xf32>) -> tensor<100x512xf32> {
  %y = "aten.softmax"(%x) {dim = 1 : i64} : (tensor<100x512xf32>) -> tensor<100x512xf32>
  return %y : tensor<100x512xf32>
}

// -----

// Rows of 8: [128, 8] blocks on 128 threads, 4 adjacent elements per thread, so a row
// is 2 lanes: the butterfly is one step (offset 1) and needs no workgroup memory. The
// per-row result is stored by the lane at inner position 0 only (1000 rows do not
// divide XBLOCK: masked).
// CHECK-LABEL: gpu.module @fuselab_kernels
// CHECK-NOT: workgroup(
// CHECK: kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK-NOT: %c2_i32
// CHECK: gpu.shuffle{{.*}}xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NOT: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0{{.*}} : index
// CHECK: %[[COND:.*]] = arith.andi %{{.*}}, %[[FIRST]] : i1
// CHECK: scf.if %[[COND]]
// CHECK-NEXT: memref.store
func.func @row_sums(%x: tensor<1000x8xf32>) -> tensor<1000x1xf32> {
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<1000x8xf32>) -> tensor<1000x1xf32>
  return %s : tensor<1000x1xf32>
}

// -----

// A block smaller than the program's 32 threads: threads past it neither load nor
// store — their offsets belong to no row of the program, and a gathered index read
// there was garbage and crashed the device (found by the GPU fuzz run on gathers).
// CHECK-LABEL: gpu.func @small_fused_neg_0
// CHECK: %[[ACTIVE:.*]] = arith.cmpi slt, %{{.*}}, %c4 : index
// CHECK: %[[AT:.*]] = arith.select %[[ACTIVE]], %{{.*}}, %c0{{.*}} : index
// CHECK-NEXT: memref.load %{{.*}}[%[[AT]]] : memref<4xf32>
// CHECK: scf.if
// CHECK-NEXT: memref.store
func.func @small(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "aten.neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Rows of 1000 in a 1024-wide block: each thread's groups of 4 adjacent elements are
// either all in the row or all past it. A group that may be partly masked is loaded by
// 4 plain loads (LLVM makes them one 128-bit load) when all 4 are there, else one
// masked load each; stores alike. The row is loaded once: the sum's load reads what the
// max's load read (same buffer, offsets and mask, no store to it in between) and reuses
// its registers.
// CHECK-LABEL: gpu.func @softmax_1000_fused_softmax_0
// CHECK: arith.andi
// CHECK-NEXT: arith.andi
// CHECK-NEXT: %[[ALL:.*]] = arith.andi
// CHECK-NEXT: scf.if %[[ALL]] -> (f32, f32, f32, f32) {
// CHECK-NEXT: memref.load %arg1
// CHECK-NEXT: memref.load %arg1
// CHECK-NEXT: memref.load %arg1
// CHECK-NEXT: memref.load %arg1
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK: arith.select
// CHECK: memref.load %arg1
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK: gpu.shuffle
// CHECK-NOT: memref.load %arg1
// CHECK: memref.store %{{.*}}, %arg0
// CHECK-NEXT: memref.store %{{.*}}, %arg0
// CHECK-NEXT: memref.store %{{.*}}, %arg0
// CHECK-NEXT: memref.store %{{.*}}, %arg0
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %arg0
// CHECK-NOT: memref.load %arg1
// CHECK: gpu.return
func.func @softmax_1000(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %y = "aten.softmax"(%x) {dim = 1 : i64} : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %y : tensor<64x1000xf32>
}
