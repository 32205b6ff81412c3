// RUN: fuse-gpu %s --emit ptx | FileCheck %s
// RUN: fuse-gpu %s --emit ptx --approx-exp=false | FileCheck %s --check-prefix=EXACT
// RUN: fuse-gpu %s --emit ptx | FileCheck %s --check-prefix=DIV
// RUN: fuse-gpu %s --emit ptx --approx-div=false | FileCheck %s --check-prefix=IEEE

// The softmax kernel through convert-gpu-to-nvvm and LLVM's NVPTX back end (inkwell,
// O3): one .entry for sm_90a taking a pointer per buffer (input and output: the row
// max and sum never leave the program), inputs read through the
// non-coherent cache with 128-bit loads (and stores), exp as ex2.approx (as Triton), warp
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
// CHECK-NOT: 0f32A57060
// CHECK: ex2.approx.f32
// CHECK: st.global.v4.b32
// CHECK: ret;
// CHECK-NOT: .local
// CHECK-NOT: __nv_
// With --approx-exp=false, exp reduces its argument exactly first (libdevice's scheme):
// x log2(e) - n by an FMA with log2(e) (0f3FB8AA3B), then one with its low part
// (0f32A57060), then one ex2.approx; by default neither FMA.
// EXACT-LABEL: .visible .entry softmax_rows_fused_softmax_0(
// EXACT: fma.rn.f32 {{.*}}, 0f3FB8AA3B,
// EXACT-NEXT: fma.rn.f32 {{.*}}, 0f32A57060,
// EXACT-NEXT: ex2.approx.f32
// EXACT: ret;
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
