// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile | FileCheck %s
// RUN: fuse-gpu %s --function returned_reshape_of_bmm -o %t --samples 4
// RUN: cat %t/manifest.json | FileCheck %s --check-prefix=PLAN

// A contiguous reshape (offset 0, row-major strides, as many elements) renames its
// source's elements: it gets its source's buffer, no copy kernel. Returned, its source
// is written into the output buffer itself — attention's last bmm writes the
// function's result, as Inductor's extern bmm writes into the output's
// ReinterpretView.

// CHECK-LABEL: func.func @returned_reshape_of_bmm
// CHECK-SAME: (%[[Q:.*]]: memref<4096xf32>, %[[K:.*]]: memref<4096xf32>, %[[OUT:.*]]: memref<4096xf32>)
// CHECK-NOT: memref.alloc
// CHECK: "tile.extern"
// CHECK: gpu.yield %[[Q]], %[[K]], %[[OUT]]
// CHECK-NEXT: fuselab.shape = array<i64: 16, 16, 16>, kind = "bmm"
// CHECK-NOT: tile.launch
// CHECK-NOT: memref.copy
// CHECK: return
// PLAN-NOT: "role": "temp"
// PLAN: "steps"
// PLAN-NOT: "op": "launch"
// PLAN: "kind": "bmm"
// PLAN: "out_shape": [
// PLAN-NEXT: 16,
// PLAN-NEXT: 16,
// PLAN-NEXT: 16
// PLAN-NOT: "op": "launch"
func.func @returned_reshape_of_bmm(%q: tensor<4x4x16x16xf32>, %k: tensor<4x4x16x16xf32>) -> tensor<4x4x16x16xf32> {
  %q3 = "aten.view"(%q) : (tensor<4x4x16x16xf32>) -> tensor<16x16x16xf32>
  %k3 = "aten.view"(%k) : (tensor<4x4x16x16xf32>) -> tensor<16x16x16xf32>
  %s3 = "aten.bmm"(%q3, %k3) : (tensor<16x16x16xf32>, tensor<16x16x16xf32>) -> tensor<16x16x16xf32>
  %s = "aten.view"(%s3) : (tensor<16x16x16xf32>) -> tensor<4x4x16x16xf32>
  return %s : tensor<4x4x16x16xf32>
}

// -----

// A reshape read by a kernel: the kernel reads the source's buffer (the extern's
// temporary) at the reshape's row-major positions; no copy kernel before it.
// CHECK-LABEL: func.func @reshape_read_by_a_kernel
// CHECK: %[[T:.*]] = memref.alloc() {{.*}}fuselab.shape = array<i64: 64, 64>
// CHECK: "tile.extern"
// CHECK: "tile.launch"
// CHECK-NEXT: gpu.yield %{{.*}}, %[[T]]
// CHECK-NOT: tile.launch
// CHECK: return
func.func @reshape_read_by_a_kernel(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<16x256xf32> {
  %m = "aten.mm"(%a, %b) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %v = "aten.view"(%m) : (tensor<64x64xf32>) -> tensor<16x256xf32>
  %r = "aten.relu"(%v) : (tensor<16x256xf32>) -> tensor<16x256xf32>
  return %r : tensor<16x256xf32>
}

// -----

// Returned together with its source, a reshape still needs its own output: the source
// is written into the first output, the reshape copied into the second.
// CHECK-LABEL: func.func @reshape_and_source_returned
// CHECK-SAME: (%{{.*}}: memref<4096xf32>, %{{.*}}: memref<4096xf32>, %[[O0:.*]]: memref<4096xf32>, %[[O1:.*]]: memref<4096xf32>)
// CHECK: "tile.extern"
// CHECK: gpu.yield %{{.*}}, %{{.*}}, %[[O0]]
// CHECK: "tile.launch"
// CHECK-NEXT: gpu.yield %[[O1]], %[[O0]]
func.func @reshape_and_source_returned(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<16x256xf32>) {
  %m = "aten.mm"(%a, %b) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %v = "aten.view"(%m) : (tensor<64x64xf32>) -> tensor<16x256xf32>
  return %m, %v : tensor<64x64xf32>, tensor<16x256xf32>
}

// -----

// A returned reshape of an input is a copy (an output is its own buffer).
// CHECK-LABEL: func.func @returned_reshape_of_an_input
// CHECK-SAME: (%[[IN:.*]]: memref<4096xf32>, %[[OUT:.*]]: memref<4096xf32>)
// CHECK: "tile.launch"
// CHECK-NEXT: gpu.yield %[[OUT]], %[[IN]]
func.func @returned_reshape_of_an_input(%a: tensor<64x64xf32>) -> tensor<16x256xf32> {
  %v = "aten.view"(%a) : (tensor<64x64xf32>) -> tensor<16x256xf32>
  return %v : tensor<16x256xf32>
}

// -----

// A strided view (a transpose) is no reshape: still a copy kernel.
// CHECK-LABEL: func.func @transpose_is_copied
// CHECK: "tile.extern"
// CHECK: "tile.launch"
func.func @transpose_is_copied(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = "aten.mm"(%a, %b) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = "aten.transpose"(%m) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}
