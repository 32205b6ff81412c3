// RUN: fuse-gpu %s -o %t
// RUN: fuse-gpu --validate %t | FileCheck %s --check-prefix=VALID
// RUN: cat %t/kernels.ptx | FileCheck %s --check-prefix=PTX
// RUN: cat %t/manifest.json | FileCheck %s

// A function whose result is its input (found by fuse-fuzz): no kernel, a PTX module
// without entries, and a plan of one copy.
// VALID: valid bundle
// PTX: .target sm_90a
// PTX-NOT: .entry
// CHECK: "op": "copy",
// CHECK-NEXT: "src": 0,
// CHECK-NEXT: "dst": 1
func.func @identity(%x: tensor<4x1xf32>) -> tensor<4x1xf32> {
  return %x : tensor<4x1xf32>
}
