// --fuse-attention: the math form torch.export writes for F.scaled_dot_product_attention
// (q and k^T scaled by sqrt(scale), bmm, additive mask, _safe_softmax, bmm, and the
// permute / clone / permute memory-order round trip) becomes one
// aten.scaled_dot_product_attention where PyTorch's CUDA dispatcher runs the
// memory-efficient kernel: f32 head dims a multiple of 4 (f16: 8), a mask whose last dim
// is not a broadcast; on the CPU target where PyTorch runs its CPU flash attention and
// fuselab generates it (f32, head dims equal). Elsewhere (a row mask expanded along the
// keys, half types on the CPU, unaligned half heads) the math form stays.
// RUN: fuse-opt %s --target=gpu --fuse-attention | FileCheck %s
// RUN: fuse-opt %s --target=cpu --fuse-attention | FileCheck %s --check-prefix=CPU
// RUN: fuse-opt %s --target=gpu --fuse-attention --aten-decompose --lower-aten-to-loop | FileCheck %s --check-prefix=LOOP
// The fused kernel computes what the math form computes (loop interpreter), every strategy.
// RUN: fuse-run %s --target gpu | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC

// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-COUNT-30: PASS

// CHECK-LABEL: func.func @causal
// CHECK: %[[BIAS:.*]] = "aten.where"(%arg3,
// CHECK-NEXT: %[[A:.*]] = "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2, %[[BIAS]]) {scale = 0.353553{{[0-9]+}} : f64}
// CHECK-NOT: aten.bmm
// CHECK-NOT: aten.softmax
// CHECK-NOT: aten.clone
// CHECK: return %[[A]]
// The kernel writes [B, L, H, Ev]: the [B, H, L, Ev] result is a view of it. Two
// operands of one type go last (IRDL binds one type to the variadic tail), their roles
// in sdpa_operands (query, key, value, mask).
// LOOP-LABEL: func.func @causal
// LOOP: "loop.extern"(%arg2, %{{.*}}, %arg0, %arg1) {{.*}}kind = "sdpa"{{.*}}scale = 0.353553{{[0-9]+}} : f64, sdpa_operands = array<i64: 2, 3, 0, 1>} : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x8x2x8xf32>

// CPU-LABEL: func.func @causal
// CPU: "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2,
// CPU-NOT: aten.bmm
func.func @causal(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>, %m: tensor<1x1x8x8xi1>) -> tensor<1x2x8x8xf32> {
  %c = arith.constant dense<5.94603557501360513e-01> : tensor<f32>
  %qs = "aten.mul"(%q, %c) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %kt = "aten.permute"(%k) {dims = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ks = "aten.mul"(%kt, %c) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %qe = "aten.expand"(%qs) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %qv = "aten.view"(%qe) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %ke = "aten.expand"(%ks) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %kv = "aten.view"(%ke) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = "aten.bmm"(%qv, %kv) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv = "aten.view"(%p) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %bias = "aten.where"(%m, %zero, %ninf) : (tensor<1x1x8x8xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x8x8xf32>
  %a = "aten.add"(%pv, %bias) : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %sm = "aten.softmax"(%a) {dim = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ni = arith.constant dense<0xFF800000> : tensor<f32>
  %eq = "aten.eq"(%a, %ni) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xi1>
  %ne = "aten.logical_not"(%eq) : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x8xi1>
  %any = "aten.any"(%ne) {dims = array<i64: -1>, keepdim = true} : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x1xi1>
  %none = "aten.logical_not"(%any) : (tensor<1x2x8x1xi1>) -> tensor<1x2x8x1xi1>
  %zeros = arith.constant dense<0.0> : tensor<1x2x8x8xf32>
  %w = "aten.where"(%none, %zeros, %sm) : (tensor<1x2x8x1xi1>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %we = "aten.expand"(%w) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %wv = "aten.view"(%we) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %ve = "aten.expand"(%v) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %vv = "aten.view"(%ve) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %o = "aten.bmm"(%wv, %vv) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %ov = "aten.view"(%o) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %t1 = "aten.permute"(%ov) {dims = array<i64: 2, 0, 1, 3>} : (tensor<1x2x8x8xf32>) -> tensor<8x1x2x8xf32>
  %cl = "aten.clone"(%t1) : (tensor<8x1x2x8xf32>) -> tensor<8x1x2x8xf32>
  %t2 = "aten.permute"(%cl) {dims = array<i64: 1, 2, 0, 3>} : (tensor<8x1x2x8xf32>) -> tensor<1x2x8x8xf32>
  return %t2 : tensor<1x2x8x8xf32>
}

// CHECK-LABEL: func.func @no_mask
// CHECK: "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2) {scale = 2.5{{0*}}e-01 : f64}
// CHECK-NOT: aten.bmm
// CPU-LABEL: func.func @no_mask
// CPU: "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2)
func.func @no_mask(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %c = arith.constant dense<5.00000000000000000e-01> : tensor<f32>
  %qs = "aten.mul"(%q, %c) : (tensor<1x2x8x16xf32>, tensor<f32>) -> tensor<1x2x8x16xf32>
  %kt = "aten.permute"(%k) {dims = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %ks = "aten.mul"(%kt, %c) : (tensor<1x2x16x8xf32>, tensor<f32>) -> tensor<1x2x16x8xf32>
  %qe = "aten.expand"(%qs) : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %qv = "aten.view"(%qe) : (tensor<1x2x8x16xf32>) -> tensor<2x8x16xf32>
  %ke = "aten.expand"(%ks) : (tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %kv = "aten.view"(%ke) : (tensor<1x2x16x8xf32>) -> tensor<2x16x8xf32>
  %p = "aten.bmm"(%qv, %kv) : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
  %pv = "aten.view"(%p) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %sm = "aten.softmax"(%pv) {dim = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ni = arith.constant dense<0xFF800000> : tensor<f32>
  %eq = "aten.eq"(%pv, %ni) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xi1>
  %ne = "aten.logical_not"(%eq) : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x8xi1>
  %any = "aten.any"(%ne) {dims = array<i64: -1>, keepdim = true} : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x1xi1>
  %none = "aten.logical_not"(%any) : (tensor<1x2x8x1xi1>) -> tensor<1x2x8x1xi1>
  %zeros = arith.constant dense<0.0> : tensor<1x2x8x8xf32>
  %w = "aten.where"(%none, %zeros, %sm) : (tensor<1x2x8x1xi1>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %we = "aten.expand"(%w) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %wv = "aten.view"(%we) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %ve = "aten.expand"(%v) : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %vv = "aten.view"(%ve) : (tensor<1x2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = "aten.bmm"(%wv, %vv) : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %ov = "aten.view"(%o) : (tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %t1 = "aten.permute"(%ov) {dims = array<i64: 2, 0, 1, 3>} : (tensor<1x2x8x16xf32>) -> tensor<8x1x2x16xf32>
  %cl = "aten.clone"(%t1) : (tensor<8x1x2x16xf32>) -> tensor<8x1x2x16xf32>
  %t2 = "aten.permute"(%cl) {dims = array<i64: 1, 2, 0, 3>} : (tensor<8x1x2x16xf32>) -> tensor<1x2x8x16xf32>
  return %t2 : tensor<1x2x8x16xf32>
}

// A padding mask per query row expanded along the keys (stride 0 on the last dim, as
// BERT's and ViT's): the memory-efficient kernel refuses it, math stays.
// CHECK-LABEL: func.func @row_mask
// CHECK-NOT: scaled_dot_product_attention
// CHECK: aten.bmm
// CPU-LABEL: func.func @row_mask
// CPU-NOT: scaled_dot_product_attention
// CPU: aten.bmm
func.func @row_mask(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>, %m: tensor<1x1x8x1xi1>) -> tensor<1x2x8x8xf32> {
  %c = arith.constant dense<5.94603557501360513e-01> : tensor<f32>
  %qs = "aten.mul"(%q, %c) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %kt = "aten.permute"(%k) {dims = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ks = "aten.mul"(%kt, %c) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %qe = "aten.expand"(%qs) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %qv = "aten.view"(%qe) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %ke = "aten.expand"(%ks) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %kv = "aten.view"(%ke) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = "aten.bmm"(%qv, %kv) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %pv = "aten.view"(%p) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %me = "aten.expand"(%m) : (tensor<1x1x8x1xi1>) -> tensor<1x1x8x8xi1>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %bias = "aten.where"(%me, %zero, %ninf) : (tensor<1x1x8x8xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x8x8xf32>
  %a = "aten.add"(%pv, %bias) : (tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
  %sm = "aten.softmax"(%a) {dim = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ni = arith.constant dense<0xFF800000> : tensor<f32>
  %eq = "aten.eq"(%a, %ni) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xi1>
  %ne = "aten.logical_not"(%eq) : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x8xi1>
  %any = "aten.any"(%ne) {dims = array<i64: -1>, keepdim = true} : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x1xi1>
  %none = "aten.logical_not"(%any) : (tensor<1x2x8x1xi1>) -> tensor<1x2x8x1xi1>
  %zeros = arith.constant dense<0.0> : tensor<1x2x8x8xf32>
  %w = "aten.where"(%none, %zeros, %sm) : (tensor<1x2x8x1xi1>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %we = "aten.expand"(%w) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %wv = "aten.view"(%we) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %ve = "aten.expand"(%v) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %vv = "aten.view"(%ve) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %o = "aten.bmm"(%wv, %vv) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %ov = "aten.view"(%o) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %t1 = "aten.permute"(%ov) {dims = array<i64: 2, 0, 1, 3>} : (tensor<1x2x8x8xf32>) -> tensor<8x1x2x8xf32>
  %cl = "aten.clone"(%t1) : (tensor<8x1x2x8xf32>) -> tensor<8x1x2x8xf32>
  %t2 = "aten.permute"(%cl) {dims = array<i64: 1, 2, 0, 3>} : (tensor<8x1x2x8xf32>) -> tensor<1x2x8x8xf32>
  return %t2 : tensor<1x2x8x8xf32>
}

// f16 head dims must be a multiple of 8.
// CHECK-LABEL: func.func @half_unaligned_heads
// CHECK-NOT: scaled_dot_product_attention
// CHECK: aten.bmm
// CPU-LABEL: func.func @half_unaligned_heads
// CPU-NOT: scaled_dot_product_attention
// CPU: aten.bmm
func.func @half_unaligned_heads(%q: tensor<1x2x8x4xf16>, %k: tensor<1x2x8x4xf16>, %v: tensor<1x2x8x4xf16>, %m: tensor<1x1x8x8xi1>) -> tensor<1x2x8x4xf16> {
  %c = arith.constant dense<7.07106781186547462e-01> : tensor<f16>
  %qs = "aten.mul"(%q, %c) : (tensor<1x2x8x4xf16>, tensor<f16>) -> tensor<1x2x8x4xf16>
  %kt = "aten.permute"(%k) {dims = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x4xf16>) -> tensor<1x2x4x8xf16>
  %ks = "aten.mul"(%kt, %c) : (tensor<1x2x4x8xf16>, tensor<f16>) -> tensor<1x2x4x8xf16>
  %qe = "aten.expand"(%qs) : (tensor<1x2x8x4xf16>) -> tensor<1x2x8x4xf16>
  %qv = "aten.view"(%qe) : (tensor<1x2x8x4xf16>) -> tensor<2x8x4xf16>
  %ke = "aten.expand"(%ks) : (tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  %kv = "aten.view"(%ke) : (tensor<1x2x4x8xf16>) -> tensor<2x4x8xf16>
  %p = "aten.bmm"(%qv, %kv) : (tensor<2x8x4xf16>, tensor<2x4x8xf16>) -> tensor<2x8x8xf16>
  %pv = "aten.view"(%p) : (tensor<2x8x8xf16>) -> tensor<1x2x8x8xf16>
  %zero = arith.constant dense<0.0> : tensor<f16>
  %ninf = arith.constant dense<0xFC00> : tensor<f16>
  %bias = "aten.where"(%m, %zero, %ninf) : (tensor<1x1x8x8xi1>, tensor<f16>, tensor<f16>) -> tensor<1x1x8x8xf16>
  %a = "aten.add"(%pv, %bias) : (tensor<1x2x8x8xf16>, tensor<1x1x8x8xf16>) -> tensor<1x2x8x8xf16>
  %sm = "aten.softmax"(%a) {dim = -1 : i64} : (tensor<1x2x8x8xf16>) -> tensor<1x2x8x8xf16>
  %ni = arith.constant dense<0xFC00> : tensor<f16>
  %eq = "aten.eq"(%a, %ni) : (tensor<1x2x8x8xf16>, tensor<f16>) -> tensor<1x2x8x8xi1>
  %ne = "aten.logical_not"(%eq) : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x8xi1>
  %any = "aten.any"(%ne) {dims = array<i64: -1>, keepdim = true} : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x1xi1>
  %none = "aten.logical_not"(%any) : (tensor<1x2x8x1xi1>) -> tensor<1x2x8x1xi1>
  %zeros = arith.constant dense<0.0> : tensor<1x2x8x8xf16>
  %w = "aten.where"(%none, %zeros, %sm) : (tensor<1x2x8x1xi1>, tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>) -> tensor<1x2x8x8xf16>
  %we = "aten.expand"(%w) : (tensor<1x2x8x8xf16>) -> tensor<1x2x8x8xf16>
  %wv = "aten.view"(%we) : (tensor<1x2x8x8xf16>) -> tensor<2x8x8xf16>
  %ve = "aten.expand"(%v) : (tensor<1x2x8x4xf16>) -> tensor<1x2x8x4xf16>
  %vv = "aten.view"(%ve) : (tensor<1x2x8x4xf16>) -> tensor<2x8x4xf16>
  %o = "aten.bmm"(%wv, %vv) : (tensor<2x8x8xf16>, tensor<2x8x4xf16>) -> tensor<2x8x4xf16>
  %ov = "aten.view"(%o) : (tensor<2x8x4xf16>) -> tensor<1x2x8x4xf16>
  %t1 = "aten.permute"(%ov) {dims = array<i64: 2, 0, 1, 3>} : (tensor<1x2x8x4xf16>) -> tensor<8x1x2x4xf16>
  %cl = "aten.clone"(%t1) : (tensor<8x1x2x4xf16>) -> tensor<8x1x2x4xf16>
  %t2 = "aten.permute"(%cl) {dims = array<i64: 1, 2, 0, 3>} : (tensor<8x1x2x4xf16>) -> tensor<1x2x8x4xf16>
  return %t2 : tensor<1x2x8x4xf16>
}

// A clone between the expand and the view of a bmm operand (the export's reshape of a
// non-contiguous value, as Swin's windows): the same form.
// CHECK-LABEL: func.func @cloned_operands
// CHECK: "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2) {scale = 2.5{{0*}}e-01 : f64}
// CHECK-NOT: aten.bmm
// CPU-LABEL: func.func @cloned_operands
// CPU: "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2)
func.func @cloned_operands(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %c = arith.constant dense<5.00000000000000000e-01> : tensor<f32>
  %qs = "aten.mul"(%q, %c) : (tensor<1x2x8x16xf32>, tensor<f32>) -> tensor<1x2x8x16xf32>
  %kt = "aten.permute"(%k) {dims = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf32>) -> tensor<1x2x16x8xf32>
  %ks = "aten.mul"(%kt, %c) : (tensor<1x2x16x8xf32>, tensor<f32>) -> tensor<1x2x16x8xf32>
  %qe = "aten.expand"(%qs) : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %qc = "aten.clone"(%qe) : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %qv = "aten.view"(%qc) : (tensor<1x2x8x16xf32>) -> tensor<2x8x16xf32>
  %ke = "aten.expand"(%ks) : (tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %kc = "aten.clone"(%ke) : (tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  %kv = "aten.view"(%kc) : (tensor<1x2x16x8xf32>) -> tensor<2x16x8xf32>
  %p = "aten.bmm"(%qv, %kv) : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
  %pv = "aten.view"(%p) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %sm = "aten.softmax"(%pv) {dim = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %ni = arith.constant dense<0xFF800000> : tensor<f32>
  %eq = "aten.eq"(%pv, %ni) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xi1>
  %ne = "aten.logical_not"(%eq) : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x8xi1>
  %any = "aten.any"(%ne) {dims = array<i64: -1>, keepdim = true} : (tensor<1x2x8x8xi1>) -> tensor<1x2x8x1xi1>
  %none = "aten.logical_not"(%any) : (tensor<1x2x8x1xi1>) -> tensor<1x2x8x1xi1>
  %zeros = arith.constant dense<0.0> : tensor<1x2x8x8xf32>
  %w = "aten.where"(%none, %zeros, %sm) : (tensor<1x2x8x1xi1>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %we = "aten.expand"(%w) : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %wv = "aten.view"(%we) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %ve = "aten.expand"(%v) : (tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %vv = "aten.view"(%ve) : (tensor<1x2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = "aten.bmm"(%wv, %vv) : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %ov = "aten.view"(%o) : (tensor<2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %t1 = "aten.permute"(%ov) {dims = array<i64: 2, 0, 1, 3>} : (tensor<1x2x8x16xf32>) -> tensor<8x1x2x16xf32>
  %cl = "aten.clone"(%t1) : (tensor<8x1x2x16xf32>) -> tensor<8x1x2x16xf32>
  %t2 = "aten.permute"(%cl) {dims = array<i64: 1, 2, 0, 3>} : (tensor<8x1x2x16xf32>) -> tensor<1x2x8x16xf32>
  return %t2 : tensor<1x2x8x16xf32>
}
