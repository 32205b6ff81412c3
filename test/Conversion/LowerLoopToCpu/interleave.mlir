// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu=interleave=false | FileCheck %s --check-prefix=OFF
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu --pass-pipeline='builtin.module(convert-scf-to-cf)' | FileCheck %s --check-prefix=CF
// RUN: fuse-run %s --jit --strategy inductor | FileCheck %s --check-prefix=EXEC

// Interleaving of long loop bodies (targets/src/cpu/lower_loop_to_cpu/interleave.rs):
// the innermost loop of a kernel whose body holds at least 40 float operations (two
// sin and an exp, expanded) asks LLVM to run 8 vector iterations side by side — LLVM
// interleaves only small bodies on its own. The row loop around it and the loops of
// short bodies get nothing; convert-scf-to-cf moves the annotation onto the latch.
// CHECK: #loop_interleave = #llvm.loop_interleave<count = 8 : i32>
// CHECK: #loop_annotation = #llvm.loop_annotation<interleave = #loop_interleave>
// CHECK-LABEL: func.func private @long_body_fused_exp_sin_0(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8 step
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1024 step
// CHECK: math.roundeven
// CHECK: } {loop_annotation = #loop_annotation}
// CHECK-NEXT: }
// CHECK-NOT: loop_annotation
// CHECK: func.func @long_body(
// OFF-NOT: loop_annotation
// CF-LABEL: func.func private @long_body_fused_exp_sin_0(
// CF: cf.br ^{{.*}} {loop_annotation = #loop_annotation}
// CF-NOT: loop_annotation
// CF: func.func @long_body(
// EXEC: @long_body
// EXEC: inductor output #0 tensor<8x1024xf32>: {{.*}} PASS
func.func @long_body(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %a = "aten.sin"(%x) : (tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %b = "aten.exp"(%a) : (tensor<8x1024xf32>) -> tensor<8x1024xf32>
  %c = "aten.sin"(%b) : (tensor<8x1024xf32>) -> tensor<8x1024xf32>
  return %c : tensor<8x1024xf32>
}

// -----

// A short body (one exp: fewer than 40 float operations) is LLVM's to interleave.
// CHECK-NOT: loop_annotation
// CHECK-LABEL: func.func @short_body(
// EXEC: @short_body
// EXEC: inductor output #0 tensor<8x1024xf32>: {{.*}} PASS
func.func @short_body(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %a = "aten.exp"(%x) : (tensor<8x1024xf32>) -> tensor<8x1024xf32>
  return %a : tensor<8x1024xf32>
}

// -----

// A long body over 16 elements: not even two vector iterations of 8 lanes, so no
// interleaving (a forced count is not capped by LLVM; the loop would run in its scalar
// remainder).
// CHECK-NOT: loop_annotation
// CHECK-LABEL: func.func @short_rows(
// EXEC: @short_rows
// EXEC: inductor output #0 tensor<64x16xf32>: {{.*}} PASS
func.func @short_rows(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %a = "aten.sin"(%x) : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %b = "aten.exp"(%a) : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %c = "aten.sin"(%b) : (tensor<64x16xf32>) -> tensor<64x16xf32>
  return %c : tensor<64x16xf32>
}
