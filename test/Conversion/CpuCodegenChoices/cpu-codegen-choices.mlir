// RUN: fuse-opt %s --split-input-file --cpu-codegen-choices=vector-width=512 | FileCheck %s
// RUN: fuse-opt %s --split-input-file --cpu-codegen-choices='fp-fusion=false vector-width=llvm' | FileCheck %s --check-prefix=OFF
// RUN: fuse-opt %S/../../../examples/softmax.mlir --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu --pass-pipeline='builtin.module(lower-affine,convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,expand-strided-metadata,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' --cpu-codegen-choices=vector-width=256 | FileCheck %s --check-prefix=PIPE
// RUN: not fuse-opt %s --split-input-file --cpu-codegen-choices=vector-width=384 2>&1 | FileCheck %s --check-prefix=BAD

// Every float add, sub, mul and neg becomes contractible (flags already there are
// kept: the reduction's reassoc), and every function prefers 512-bit vectors.
// CHECK-LABEL: llvm.func @axpy
// CHECK-SAME: passthrough = {{\[\[}}"prefer-vector-width", "512"]]
// CHECK: llvm.fmul %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract, reassoc>} : f32
// CHECK: llvm.fsub %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK: llvm.fneg %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
// OFF-LABEL: llvm.func @axpy
// OFF-NOT: passthrough
// OFF-NOT: contract
// OFF: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc>} : f32
// OFF-NOT: contract
llvm.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
  %p = llvm.fmul %a, %x : f32
  %s = llvm.fadd %p, %y {fastmathFlags = #llvm.fastmath<reassoc>} : f32
  %d = llvm.fsub %s, %a : f32
  %n = llvm.fneg %d : f32
  %q = llvm.fdiv %n, %x : f32
  llvm.return %q : f32
}

// -----

// A function that already passes attributes through (a parallel step's rows function:
// noinline) keeps them and gets the width too (it did not, and the parallel code ran
// at 256 bits: pointwise_chain_100 2x slower per thread); one that states a width keeps
// its own. A fast op stays fast.
// CHECK-LABEL: llvm.func @own
// CHECK-SAME: passthrough = ["noinline", ["prefer-vector-width", "512"]]
// CHECK: llvm.fmul %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-LABEL: llvm.func @own_width
// CHECK-SAME: passthrough = {{\[\[}}"prefer-vector-width", "128"]]
// OFF-LABEL: llvm.func @own
// OFF-SAME: passthrough = ["noinline"]
llvm.func @own(%a: f32) -> f32 attributes {passthrough = ["noinline"]} {
  %p = llvm.fmul %a, %a {fastmathFlags = #llvm.fastmath<fast>} : f32
  llvm.return %p : f32
}
llvm.func @own_width(%a: f32) -> f32 attributes {passthrough = [["prefer-vector-width", "128"]]} {
  llvm.return %a : f32
}

// The generated code of a workload through the CPU target's llvm stage: its kernel
// functions (softmax's row loops and exp polynomial) and host function all get them.
// PIPE-LABEL: llvm.func @softmax_fused_softmax_0
// PIPE-SAME: passthrough = {{\[\[}}"prefer-vector-width", "256"]]
// PIPE: llvm.fmul {{.*}}fastmathFlags = #llvm.fastmath<contract>
// PIPE: llvm.fadd {{.*}}fastmathFlags = #llvm.fastmath<contract, reassoc>
// PIPE-LABEL: llvm.func @softmax(
// PIPE-SAME: "prefer-vector-width", "256"

// BAD: error: vector-width must be host, llvm, 128, 256 or 512, not '384'
