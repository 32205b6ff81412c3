// RUN: fuse-gpu %s --emit ptx | FileCheck %s
// RUN: fuse-gpu %s --emit ptx | FileCheck %s --check-prefix=EXACT
// RUN: fuse-gpu %s --emit ptx --approx-exp=true | FileCheck %s --check-prefix=APPROX
// RUN: fuse-gpu %s --emit ptx | FileCheck %s --check-prefix=DIV
// RUN: fuse-gpu %s --emit ptx --approx-div=false | FileCheck %s --check-prefix=IEEE

// The softmax kernel through convert-gpu-to-nvvm and LLVM's NVPTX back end (inkwell,
// O3): one .entry for sm_90a taking a pointer per buffer (input and output: the row
// max and sum never leave the program), inputs read through the
// non-coherent cache with 128-bit loads (and stores), exp through one ex2.approx, warp
// butterflies as shfl.sync.bfly,
// the cross-warp step through .shared memory between bar.sync; no local-memory spills
// and no libdevice call.
// CHECK: .version 8.0
// CHECK: .target sm_90a
// CHECK: .visible .entry softmax_rows_fused_softmax_0(
// CHECK-COUNT-2: .param .u64 .ptr .align 16
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 4 .b8
// CHECK: ld.global.nc.v4.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync{{[[:space:]]+}}0;
// CHECK: ex2.approx.ftz.f32
// CHECK: st.global.v4.b32
// CHECK: ret;
// CHECK-NOT: .local
// CHECK-NOT: __nv_
// By default exp reduces its argument exactly first, libdevice's `expf` scheme (what
// Inductor's libdevice.exp computes): n = floor(x log2 e) clamped by a saturated FMA
// (log2(e)/252 = 0f3BBB989D) and a round-down FMA (252 = 0f437C0000, 1.5 2^23 + 1 =
// 0f4B400001), no conversion instruction; x log2(e) - n by an FMA with log2(e)
// (0f3FB8AA3B) and one with its low part (0f32A57060); one ex2.approx.ftz; 2^n from the
// bits. With --approx-exp=true, Triton's tl.exp: ex2.approx.f32 of x log2(e), neither FMA.
// EXACT-LABEL: .visible .entry softmax_rows_fused_softmax_0(
// EXACT-NOT: cvt.rni
// EXACT-NOT: cvt.rzi
// EXACT: fma.rn.f32 {{.*}}, 0f3BBB989D, 0f3F000000;
// EXACT-NEXT: cvt.sat.f32.f32
// EXACT: fma.rm.f32
// EXACT: fma.rn.f32 {{.*}}, 0f3FB8AA3B,
// EXACT-NEXT: fma.rn.f32 {{.*}}, 0f32A57060,
// EXACT-NEXT: ex2.approx.ftz.f32
// EXACT-NEXT: shl.b32 {{.*}}, 23;
// EXACT-NOT: cvt.rni
// EXACT-NOT: cvt.rzi
// EXACT: ret;
// APPROX-LABEL: .visible .entry softmax_rows_fused_softmax_0(
// APPROX-NOT: 0f32A57060
// APPROX: mul.f32 {{.*}}, 0f3FB8AA3B;
// APPROX-NEXT: ex2.approx.f32
// APPROX-NOT: 0f32A57060
// APPROX: ret;
// The division by the row sum is div.full.f32, as Triton compiles `/` on f32; with
// --approx-div=false IEEE div.rn.f32.
// DIV-NOT: div.rn.f32
// DIV: div.full.f32
// DIV-NOT: div.rn.f32
// IEEE-NOT: div.full.f32
// IEEE: div.rn.f32
// IEEE-NOT: div.full.f32
func.func @softmax_rows(%x: tensor<100x512xf32>) -> tensor<100x512xf32> {
  %y = "aten.softmax"(%x) {dim = 1 : i64} : (tensor<100x512xf32>) -> tensor<100x512xf32>
  return %y : tensor<100x512xf32>
}
