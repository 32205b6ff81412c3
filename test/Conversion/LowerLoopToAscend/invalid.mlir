// RUN: fuse-opt %s --split-input-file --verify-diagnostics --target=ascend --aten-decompose --lower-aten-to-loop --lower-loop-to-ascend=ub-bytes=64
// RUN: not fuse-opt %s --split-input-file --lower-loop-to-ascend 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not fuse-opt %s --lower-aten-to-loop --lower-loop-to-ascend=cores=0 2>&1 | FileCheck %s --check-prefix=CORES

// A UB of 64 bytes cannot hold even one element per tile of this kernel (its offsets,
// mask and value tiles take 32 bytes each): a located error with the bytes it needs.
func.func @too_small(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{cannot lower to Ascend kernels: kernel @too_small_buf0 needs 224 bytes of Unified Buffer even at one element per row chunk; the target has 64}}
  %0 = "aten.exp"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// ORDER: error: 'aten.exp' is not lowered: --lower-loop-to-ascend works on loop IR (run --aten-decompose --lower-aten-to-loop first)
// CORES: error: --lower-loop-to-ascend: cores must be at least 1 and ub-bytes at least 32
