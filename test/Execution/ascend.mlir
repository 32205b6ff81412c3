// The Ascend target end to end at small shapes: every strategy's result is lowered to
// the ascend dialect (UB tiles placed in 192 KiB, 48 cores) and run on exec's
// interpreter of it — each core's UB a byte array, tiles in their declared types —
// against the aten oracle. f16 and bf16 compute in f32 inside each kernel.
// RUN: fuse-run %s --target ascend --jit | FileCheck %s
// A 1 KiB UB loops every row over chunks of 8 and more programs: same numbers.
// RUN: fuse-run %s --target ascend --jit --function rmsnorm --strategy inductor | FileCheck %s --check-prefix=RMS

// CHECK-NOT: FAIL
// CHECK-NOT: ERROR
// CHECK-LABEL: @layernorm
// CHECK-COUNT-6: PASS
func.func @layernorm(%x: tensor<24x96xf16>, %weight: tensor<96xf16>, %bias: tensor<96xf16>) -> tensor<24x96xf16> {
  %y = "aten.layer_norm"(%x, %weight, %bias) {normalized_shape = array<i64: 96>, eps = 1.0e-05 : f64} : (tensor<24x96xf16>, tensor<96xf16>, tensor<96xf16>) -> tensor<24x96xf16>
  return %y : tensor<24x96xf16>
}

// CHECK-LABEL: @softmax
// CHECK-COUNT-6: PASS
func.func @softmax(%x: tensor<40x300xbf16>) -> tensor<40x300xbf16> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<40x300xbf16>) -> tensor<40x300xbf16>
  return %y : tensor<40x300xbf16>
}

// CHECK-LABEL: @rmsnorm
// CHECK-COUNT-6: PASS
// RMS: inductor output #0 {{.*}} PASS
func.func @rmsnorm(%x: tensor<33x10000xf32>, %w: tensor<10000xf32>) -> tensor<33x10000xf32> {
  %sq = "aten.mul"(%x, %x) : (tensor<33x10000xf32>, tensor<33x10000xf32>) -> tensor<33x10000xf32>
  %ms = "aten.mean"(%sq) {dims = array<i64: -1>, keepdim = true} : (tensor<33x10000xf32>) -> tensor<33x1xf32>
  %c0 = arith.constant dense<1.0e-06> : tensor<f32>
  %ms_eps = "aten.add"(%ms, %c0) : (tensor<33x1xf32>, tensor<f32>) -> tensor<33x1xf32>
  %r = "aten.rsqrt"(%ms_eps) : (tensor<33x1xf32>) -> tensor<33x1xf32>
  %xr = "aten.mul"(%x, %r) : (tensor<33x10000xf32>, tensor<33x1xf32>) -> tensor<33x10000xf32>
  %y = "aten.mul"(%xr, %w) : (tensor<33x10000xf32>, tensor<10000xf32>) -> tensor<33x10000xf32>
  return %y : tensor<33x10000xf32>
}

// Column sums (a reduction across rows) and a transposed epilogue: gathers.
// CHECK-LABEL: @columns
// CHECK-COUNT-6: PASS
func.func @columns(%x: tensor<50x70xf32>) -> (tensor<70xf32>, tensor<70x50xf32>) {
  %s = "aten.sum"(%x) {dims = array<i64: 0>, keepdim = false} : (tensor<50x70xf32>) -> tensor<70xf32>
  %t = "aten.transpose"(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<50x70xf32>) -> tensor<70x50xf32>
  %e = "aten.tanh"(%t) : (tensor<70x50xf32>) -> tensor<70x50xf32>
  return %s, %e : tensor<70xf32>, tensor<70x50xf32>
}

// A matmul (a host library call) with a bias and GELU epilogue, in f16.
// CHECK-LABEL: @mlp
// CHECK-COUNT-6: PASS
func.func @mlp(%a: tensor<17x64xf16>, %b: tensor<64x48xf16>, %bias: tensor<48xf16>) -> tensor<17x48xf16> {
  %m = "aten.mm"(%a, %b) : (tensor<17x64xf16>, tensor<64x48xf16>) -> tensor<17x48xf16>
  %y = "aten.add"(%m, %bias) : (tensor<17x48xf16>, tensor<48xf16>) -> tensor<17x48xf16>
  %g = "aten.gelu"(%y) {approximate = "tanh"} : (tensor<17x48xf16>) -> tensor<17x48xf16>
  return %g : tensor<17x48xf16>
}
