// `--emit=STAGE` runs the target's stages (Target::stages, listed under TARGETS in
// --help) after the given passes, up to STAGE: every target's lowering from one flag,
// the same stages `fuse-gpu` runs.
// RUN: fuse-opt %s --target=gpu --inductor-fuse --emit=tile | FileCheck %s --check-prefix=TILE
// RUN: fuse-opt %s --target=gpu --inductor-fuse --emit=gpu | FileCheck %s --check-prefix=GPU
// RUN: fuse-opt %s --target=gpu --inductor-fuse --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: fuse-opt %s --target=gpu --inductor-fuse --emit='ptx{approx-div=false}' | FileCheck %s --check-prefix=IEEE
// RUN: fuse-opt %s --target=ascend --tvm-fuse-ops --emit=ascendc | FileCheck %s --check-prefix=ASCENDC
// RUN: fuse-opt %s --target=spyre --inductor-fuse --emit=ktir | FileCheck %s --check-prefix=KTIR
// RUN: fuse-opt %s --inductor-fuse --emit=codegen | FileCheck %s --check-prefix=CPU
// RUN: not fuse-opt %s --target=gpu --inductor-fuse --emit=llvm 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not fuse-opt %s --target=gpu --emit='ptx{fp-fusion=maybe}' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not fuse-opt %s --emit='llvm{x=1}' 2>&1 | FileCheck %s --check-prefix=SEVERAL
// RUN: not fuse-opt %s --target=gpu --emit=ptx --emit-bytecode 2>&1 | FileCheck %s --check-prefix=BYTECODE
// RUN: not fuse-opt %s --target=ascend --emit=ascendc --fusion-compare 2>&1 | FileCheck %s --check-prefix=COMPARE

// A row-wise softmax: one persistent reduction kernel under Inductor's decisions.
func.func @softmax(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// TILE: sym_name = "softmax_fused_softmax_0"
// TILE-LABEL: func.func @softmax
// TILE: "tile.launch"
// TILE-NOT: gpu.module
// GPU: gpu.module @fuselab_kernels
// GPU: gpu.func @softmax_fused_softmax_0__w1(
// GPU: gpu.func @softmax_fused_softmax_0__w2(
// PTX: .target sm_90a
// PTX: .visible .entry softmax_fused_softmax_0__w1(
// PTX: div.full.f32
// IEEE: .visible .entry softmax_fused_softmax_0__w1(
// IEEE-NOT: div.full.f32
// IEEE: div.rn.f32
// ASCENDC: extern "C" __global__ __aicore__ void softmax_softmax(GM_ADDR arg0, GM_ADDR arg1, GM_ADDR arg2)
// KTIR: "spyre.memory_view"
// CPU: func.func private @softmax_fused_softmax_0(
// CPU: scf.for
// CPU-LABEL: func.func @softmax(
// CPU: call @softmax_fused_softmax_0(%arg0, %arg1)
// UNKNOWN: fuse-opt: error: --emit: target 'gpu' has no stage 'llvm' (stages: tile, variants, gpu, ptx)
// VALUE: fuse-opt: error: --emit: option 'fp-fusion' of pass 'ptx' expects true or false, got 'maybe'
// SEVERAL: fuse-opt: error: --emit: stage 'llvm' runs several passes ({{.*}}); it takes no options
// BYTECODE: fuse-opt: error: --emit=ptx writes code, not IR; it cannot be combined with --emit-bytecode
// COMPARE: fuse-opt: error: --fusion-compare runs its own pipelines; it cannot be combined with --emit
