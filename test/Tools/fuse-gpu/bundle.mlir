// RUN: fuse-gpu %s --strategy tvm -o %t --samples 8 --seed 3
// RUN: fuse-gpu --validate %t | FileCheck %s --check-prefix=VALID
// RUN: cat %t/manifest.json | FileCheck %s
// RUN: cat %t/kernels.ptx | FileCheck %s --check-prefix=PTX
// RUN: not fuse-gpu %s --emit llvm 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: not fuse-gpu %s 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not fuse-gpu %s --emit ptx --strategy xla 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not fuse-gpu --validate %S 2>&1 | FileCheck %s --check-prefix=NOBUNDLE

// A bundle: TVM fuses the matmul with its bias + gelu epilogue (out-elemwise-fusable);
// on the GPU that group is a library kernel (cuBLAS) then one kernel for the epilogue,
// with its buffers, the seed of the portable inputs and the oracle's samples; it
// validates against its own PTX.
// VALID: valid bundle
// CHECK: "format": "fuselab-gpu-bundle/1"
// CHECK: "function": "mlp"
// CHECK: "strategy": "tvm"
// CHECK: "chip": "sm_90a"
// CHECK: "generator": "splitmix64",
// CHECK-NEXT: "seed": 3
// CHECK: "role": "input"
// CHECK: "role": "output"
// CHECK: "role": "temp"
// CHECK: "op": "extern",
// CHECK-NEXT: "kind": "mm",
// CHECK: "op": "launch",
// CHECK-NEXT: "kernel": "mlp_fused_mm_add_gelu",
// CHECK: "oracle": {
// CHECK: "count": 8,
// CHECK: "atol": 0.0001,
// CHECK-NEXT: "rtol": 0.001
// PTX: .visible .entry mlp_fused_mm_add_gelu(
// STAGE: fuse-gpu: --emit: unknown stage 'llvm' (expected tile, gpu or ptx)
// NOTHING: fuse-gpu: nothing to do: give --emit <stage> or -o <dir>
// STRATEGY: fuse-gpu: unknown strategy 'xla'
// NOBUNDLE: cannot read manifest.json
func.func @mlp(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %h = "aten.mm"(%x, %w) : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
  %a = "aten.add"(%h, %b) : (tensor<16x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  %g = "aten.gelu"(%a) {approximate = "none"} : (tensor<16x64xf32>) -> tensor<16x64xf32>
  return %g : tensor<16x64xf32>
}
