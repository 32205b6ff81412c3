// RUN: fuse-opt %s --split-input-file --lower-tile-to-gpu | FileCheck %s

// tile.transpose of a [1024, 1] block as a 32 x 32 matrix on 256 threads (one group of
// 4 adjacent elements each): each thread writes its elements e = 4 tid + k at
// (e / 32) * 33 + e mod 32 of a padded 32 x 33 workgroup buffer, waits at a barrier,
// and reads result element e from (e mod 32) * 33 + e / 32, where element
// (e mod 32) * 32 + e / 32 was written.
// CHECK-DAG: #[[W0:.*]] = affine_map<(d0) -> (((d0 * 4) floordiv 32) * 33 + (d0 * 4) mod 32)>
// CHECK-DAG: #[[W3:.*]] = affine_map<(d0) -> (((d0 * 4 + 3) floordiv 32) * 33 + (d0 * 4 + 3) mod 32)>
// CHECK-DAG: #[[R0:.*]] = affine_map<(d0) -> (((d0 * 4) mod 32) * 33 + (d0 * 4) floordiv 32)>
// CHECK-DAG: #[[R3:.*]] = affine_map<(d0) -> (((d0 * 4 + 3) mod 32) * 33 + (d0 * 4 + 3) floordiv 32)>
// CHECK-LABEL: gpu.func @t32(
// CHECK-SAME: workgroup(%[[SMEM:.*]] : memref<1056xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[TID:.*]] = gpu.thread_id
// CHECK: %[[V0:.*]] = memref.load %arg1
// CHECK: %[[V1:.*]] = memref.load %arg1
// CHECK: %[[V2:.*]] = memref.load %arg1
// CHECK: %[[V3:.*]] = memref.load %arg1
// CHECK: %[[A0:.*]] = affine.apply #[[W0]](%[[TID]])
// CHECK: memref.store %[[V0]], %[[SMEM]][%[[A0]]]
// CHECK: %[[A3:.*]] = affine.apply #[[W3]](%[[TID]])
// CHECK: memref.store %[[V3]], %[[SMEM]][%[[A3]]]
// CHECK-NEXT: gpu.barrier
// CHECK: %[[B0:.*]] = affine.apply #[[R0]](%[[TID]])
// CHECK: %[[T0:.*]] = memref.load %[[SMEM]][%[[B0]]]
// CHECK: %[[B3:.*]] = affine.apply #[[R3]](%[[TID]])
// CHECK: %[[T3:.*]] = memref.load %[[SMEM]][%[[B3]]]
// CHECK: memref.store %[[T0]], %arg0
// CHECK: memref.store %[[T3]], %arg0
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
"tile.kernel"() ({
^bb0(%out: memref<1024xf32>, %in: memref<1024xf32>):
  %j = "tile.arange"() {axis = 0 : i64} : () -> tensor<1024x1xindex>
  %true = arith.constant true
  %m = "tile.splat"(%true) : (i1) -> tensor<1024x1xi1>
  %cst = arith.constant 0.0 : f32
  %v = "tile.load"(%in, %j, %m, %cst) : (memref<1024xf32>, tensor<1024x1xindex>, tensor<1024x1xi1>, f32) -> tensor<1024x1xf32>
  %t = "tile.transpose"(%v) {shape = array<i64: 32, 32>} : (tensor<1024x1xf32>) -> tensor<1024x1xf32>
  "tile.store"(%out, %j, %t, %m) : (memref<1024xf32>, tensor<1024x1xindex>, tensor<1024x1xf32>, tensor<1024x1xi1>) -> ()
  gpu.yield
}) {block = array<i64: 1024, 1>, grid = array<i64: 1>, num_warps = 8 : i64, sym_name = "t32"} : () -> ()

// -----

// A block smaller than the program's threads (16 elements on 32) and booleans (kept
// as i32 in shared memory): only threads holding an element write; the others read
// position 0 and store nothing. [2, 8] -> [8, 2]: write (e / 8) * 9 + e mod 8, read
// (e mod 2) * 9 + e / 2.
// CHECK-DAG: #[[SW:.*]] = affine_map<(d0) -> ((d0 floordiv 8) * 9 + d0 mod 8)>
// CHECK-DAG: #[[SR:.*]] = affine_map<(d0) -> ((d0 mod 2) * 9 + d0 floordiv 2)>
// CHECK-LABEL: gpu.func @small(
// CHECK-SAME: workgroup(%[[SMEM:.*]] : memref<18xi32, #gpu.address_space<workgroup>>)
// CHECK: %[[HAS:.*]] = arith.cmpi slt
// CHECK: %[[W:.*]] = affine.apply #[[SW]]
// CHECK: %[[WIDE:.*]] = arith.extui {{.*}} : i1 to i32
// CHECK: scf.if %[[HAS]] {
// CHECK-NEXT: memref.store %[[WIDE]], %[[SMEM]][%[[W]]]
// CHECK: gpu.barrier
// CHECK: %[[R:.*]] = affine.apply #[[SR]]
// CHECK: %[[SAFE:.*]] = arith.select %[[HAS]], %[[R]], %{{.*}} : index
// CHECK: %[[X:.*]] = memref.load %[[SMEM]][%[[SAFE]]]
// CHECK: arith.trunci %[[X]] : i32 to i1
"tile.kernel"() ({
^bb0(%out: memref<16xi1>, %in: memref<16xi1>):
  %j = "tile.arange"() {axis = 0 : i64} : () -> tensor<16x1xindex>
  %true = arith.constant true
  %m = "tile.splat"(%true) : (i1) -> tensor<16x1xi1>
  %f = arith.constant false
  %v = "tile.load"(%in, %j, %m, %f) : (memref<16xi1>, tensor<16x1xindex>, tensor<16x1xi1>, i1) -> tensor<16x1xi1>
  %t = "tile.transpose"(%v) {shape = array<i64: 2, 8>} : (tensor<16x1xi1>) -> tensor<16x1xi1>
  "tile.store"(%out, %j, %t, %m) : (memref<16xi1>, tensor<16x1xindex>, tensor<16x1xi1>, tensor<16x1xi1>) -> ()
  gpu.yield
}) {block = array<i64: 16, 1>, grid = array<i64: 1>, num_warps = 1 : i64, sym_name = "small"} : () -> ()

// -----

// A transpose inside a loop waits before writing too: the previous iteration's reads
// of the buffer must be done.
// CHECK-LABEL: gpu.func @looped(
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.store {{.*}}#gpu.address_space<workgroup>>
// CHECK: gpu.barrier
"tile.kernel"() ({
^bb0(%out: memref<2048xf32>, %in: memref<2048xf32>):
  %j = "tile.arange"() {axis = 0 : i64} : () -> tensor<1024x1xindex>
  %true = arith.constant true
  %m = "tile.splat"(%true) : (i1) -> tensor<1024x1xi1>
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c2048 step %c1024 {
    %s = "tile.splat"(%i) : (index) -> tensor<1024x1xindex>
    %o = arith.addi %s, %j : tensor<1024x1xindex>
    %v = "tile.load"(%in, %o, %m, %cst) : (memref<2048xf32>, tensor<1024x1xindex>, tensor<1024x1xi1>, f32) -> tensor<1024x1xf32>
    %t = "tile.transpose"(%v) {shape = array<i64: 32, 32>} : (tensor<1024x1xf32>) -> tensor<1024x1xf32>
    "tile.store"(%out, %o, %t, %m) : (memref<2048xf32>, tensor<1024x1xindex>, tensor<1024x1xf32>, tensor<1024x1xi1>) -> ()
  }
  gpu.yield
}) {block = array<i64: 1024, 1>, grid = array<i64: 1>, num_warps = 8 : i64, sym_name = "looped"} : () -> ()
