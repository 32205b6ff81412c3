// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu=parallel=true | FileCheck %s --check-prefix=PAR
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu=parallel=true | mlir-opt --split-input-file --pass-pipeline="builtin.module(convert-scf-to-openmp,lower-affine,expand-strided-metadata,finalize-memref-to-llvm,convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,convert-openmp-to-llvm,reconcile-unrealized-casts)" | FileCheck %s --check-prefix=OMP
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu | mlir-opt --pass-pipeline="builtin.module(lower-affine,convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,expand-strided-metadata,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)" | FileCheck %s --check-prefix=LLVM
// RUN: not fuse-opt %S/Inputs/aten.mlir --lower-loop-to-cpu 2>&1 | FileCheck %s --check-prefix=ATEN

// A row reduction and its epilogue (Inductor's one kernel): one function for the
// kernel, one loop over the rows holding the reduction (vectorizable: reassociated
// sum) and then the epilogue, which writes the result argument directly; exp is a
// polynomial, not a libm call. The host function calls the kernel.
// CHECK-LABEL: memref.global "private" @layernorm_rows_g0 : memref<256xf32>
// CHECK: func.func private @layernorm_rows_fused_exp_mean_mul_sub_0(%[[X:.*]]: memref<131072xf32>, %[[W:.*]]: memref<512xf32>, %[[OUT:.*]]: memref<131072xf32>)
// CHECK: %[[SUMS:.*]] = memref.get_global @layernorm_rows_g0
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %c256
// CHECK: %[[SUM:.*]] = scf.for %[[COL:.*]] = %{{.*}} to %c512 {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.addf %[[ACC]], %{{.*}} fastmath<reassoc> : f32
// CHECK: memref.store %[[SUM]], %[[SUMS]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512
// CHECK-NOT: math.exp
// CHECK: math.roundeven
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: func.func @layernorm_rows(%{{.*}}: memref<131072xf32>, %{{.*}}: memref<512xf32>, %{{.*}}: memref<131072xf32>) attributes {llvm.emit_c_interface}
// CHECK-NEXT: call @layernorm_rows_fused_exp_mean_mul_sub_0
// CHECK-NEXT: return

// With parallel=true the rows are a function of their own (never inlined: its buffers
// stay arguments) over a row range, and the kernel runs chunks of rows as an
// scf.parallel calling it; the llvm stage makes that an OpenMP worksharing loop.
// PAR-LABEL: func.func private @layernorm_rows_fused_exp_mean_mul_sub_0_rows(
// PAR-SAME: %[[LO:.*]]: index, %[[HI:.*]]: index, %{{.*}}: memref<131072xf32>, %{{.*}}: memref<512xf32>, %{{.*}}: memref<131072xf32>) attributes {passthrough = ["noinline"]}
// PAR: scf.for %{{.*}} = %[[LO]] to %[[HI]]
// PAR-LABEL: func.func private @layernorm_rows_fused_exp_mean_mul_sub_0(
// PAR: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// PAR-NEXT: %[[CLO:.*]] = affine.apply #{{.*}}(%[[T]])
// PAR-NEXT: %[[CHI:.*]] = affine.min #{{.*}}(%[[T]])
// PAR-NEXT: func.call @layernorm_rows_fused_exp_mean_mul_sub_0_rows(%[[CLO]], %[[CHI]], %arg0, %arg1, %arg2)
// PAR-NEXT: scf.reduce

// OMP-LABEL: llvm.func @layernorm_rows_fused_exp_mean_mul_sub_0(
// OMP: omp.parallel {
// OMP: omp.wsloop {
// OMP: omp.loop_nest
// OMP: llvm.call @layernorm_rows_fused_exp_mean_mul_sub_0_rows(
func.func @layernorm_rows(%x: tensor<256x512xf32>, %w: tensor<512xf32>) -> tensor<256x512xf32> {
  %m = "aten.mean"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<256x512xf32>) -> tensor<256x1xf32>
  %d = "aten.sub"(%x, %m) : (tensor<256x512xf32>, tensor<256x1xf32>) -> tensor<256x512xf32>
  %e = "aten.exp"(%d) : (tensor<256x512xf32>) -> tensor<256x512xf32>
  %y = "aten.mul"(%e, %w) : (tensor<256x512xf32>, tensor<512xf32>) -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

// -----

// Column sums and their epilogue are two kernels, so two functions called in order.
// CHECK-LABEL: memref.global "private" @column_sums_g0 : memref<128xf32>
// CHECK: func.func private @column_sums_fused_sum_0
// CHECK: func.func private @column_sums_fused_sub_1
// CHECK: func.func @column_sums
// CHECK-NEXT: call @column_sums_fused_sum_0
// CHECK-NEXT: call @column_sums_fused_sub_1
// CHECK-NEXT: return
func.func @column_sums(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %s = "aten.sum"(%x) {dims = array<i64: 0>, keepdim = true} : (tensor<64x128xf32>) -> tensor<1x128xf32>
  %y = "aten.sub"(%x, %s) : (tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// linear = mm with the transposed weight read through its strides: the BLAS call gets
// row stride 1 and column stride 64 for the weight, no copy. On the CPU target the bias
// is folded into the extern even though relu consumes the sum (Inductor's C++ back end
// keeps linear an addmm), so the kernel after it is the relu alone.
// CHECK-LABEL: func.func private @fuselab_sgemm(i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, i64, i64, i64)
// CHECK: func.func private @linear_buf0
// CHECK-DAG: %[[M:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: call @fuselab_sgemm(%[[M]], %[[N]], %[[K]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: func.func private @linear_fused_relu_0
// CHECK: func.func @linear
// CHECK-NEXT: call @linear_buf0
// CHECK-NEXT: call @linear_fused_relu_0
func.func @linear(%x: tensor<32x64xf32>, %w: tensor<128x64xf32>, %b: tensor<128xf32>) -> tensor<32x128xf32> {
  %y = "aten.linear"(%x, %w, %b) : (tensor<32x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<32x128xf32>
  %r = "aten.relu"(%y) : (tensor<32x128xf32>) -> tensor<32x128xf32>
  return %r : tensor<32x128xf32>
}

// The output is upstream MLIR that upstream mlir-opt lowers to the LLVM dialect.
// LLVM-LABEL: llvm.func @seed_10op_fused_add_mean_mul_relu_sub_0
// LLVM: llvm.func @seed_10op(
// LLVM: llvm.call @seed_10op_fused_add_mean_mul_relu_sub_0
// LLVM: llvm.func @_mlir_ciface_seed_10op

// An aten function must be lowered to loop IR first.
// ATEN: aten.mlir:3:8: error: cannot lower to CPU code: the CPU code generator cannot handle 'aten.add'
