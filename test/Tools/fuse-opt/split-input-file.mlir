// Chunks are processed independently; output chunks are separated by '// -----';
// a failing chunk does not stop the others but makes the exit status 1.
// RUN: fuse-opt --split-input-file %s | FileCheck %s
// RUN: not fuse-opt --split-input-file %S/Inputs/one-bad-chunk.mlir 2>%t.err | FileCheck %s --check-prefix=GOOD
// RUN: FileCheck %s --check-prefix=BAD --input-file=%t.err

// CHECK-LABEL: func.func @first
// CHECK: // -----
// CHECK-LABEL: func.func @second
// CHECK: // -----
// CHECK-LABEL: func.func @third
func.func @first() {
  return
}

// -----

func.func @second(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Line numbers stay absolute within the original file (this chunk starts on line 25).
func.func @third() {
  return
}

// GOOD: func.func @ok_before
// GOOD: func.func @ok_after
// BAD: one-bad-chunk.mlir:10:8: error: 'aten.view' op cannot view [4] (4 elements) as [5] (5 elements)
