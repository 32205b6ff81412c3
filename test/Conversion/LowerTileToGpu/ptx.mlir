// RUN: fuse-gpu %s --emit ptx | FileCheck %s

// The softmax kernel through convert-gpu-to-nvvm and LLVM's NVPTX back end (inkwell,
// O3): one .entry for sm_90a taking a pointer per buffer, inputs read through the
// non-coherent cache with 128-bit loads (and stores), exp as ex2.approx (as Triton), warp
// butterflies as shfl.sync.bfly,
// the cross-warp step through .shared memory between bar.sync; no local-memory spills
// and no libdevice call.
// CHECK: .version 8.0
// CHECK: .target sm_90a
// CHECK: .visible .entry softmax_rows_fused_softmax_0(
// CHECK-COUNT-4: .param .u64 .ptr .align 16
// CHECK: .maxntid 128, 1, 1
// CHECK: .shared .align 4 .b8
// CHECK: ld.global.nc.v4.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync{{[[:space:]]+}}0;
// CHECK: ex2.approx.f32
// CHECK: st.global.v4.b32
// CHECK: ret;
// CHECK-NOT: .local
// CHECK-NOT: __nv_
func.func @softmax_rows(%x: tensor<100x512xf32>) -> tensor<100x512xf32> {
  %y = "aten.softmax"(%x) {dim = 1 : i64} : (tensor<100x512xf32>) -> tensor<100x512xf32>
  return %y : tensor<100x512xf32>
}
