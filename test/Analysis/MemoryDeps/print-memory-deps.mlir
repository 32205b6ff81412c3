// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --inline-pointwise --print-memory-deps | FileCheck %s --check-prefix=SEED
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --print-memory-deps | FileCheck %s

// The seed model, in Inductor's notation (seed 000 §7.5).
// SEED-LABEL: // MemoryDeps of @seed_10op
// SEED-NEXT: buf0: reduction group.iteration = (1024, 1024) origins = [add, mean, mul, relu]
// SEED-NEXT:   reads = [
// SEED-NEXT:     MemoryDep('arg0_1', 1024*d0 + d1, {d0: 1024, d1: 1024}),
// SEED-NEXT:     MemoryDep('arg1_1', d1, {d0: 1024, d1: 1024}),
// SEED-NEXT:   ]
// SEED-NEXT:   writes = [
// SEED-NEXT:     MemoryDep('buf0', d0, {d0: 1024}),
// SEED-NEXT:   ]
// SEED:      buf1: pointwise group.iteration = (1048576, 1) origins = [add, mean, mul, relu, sub]
// SEED:        unmet_dependencies = [
// SEED-NEXT:     MemoryDep('buf0', d0, {d0: 1024}),
// SEED-NEXT:   ]

// A reduction over dim 0 reads with the reduced variable last; a strided (transposed)
// extern operand is a StarDep of the whole buffer; an indirect read (gather) shows the
// loaded index as tmp0.
// CHECK-LABEL: // MemoryDeps of @mixed
// CHECK-NEXT: buf0: reduction group.iteration = (6, 4) origins = [sum]
// CHECK-NEXT:   reads = [
// CHECK-NEXT:     MemoryDep('arg0_1', d0 + 6*d1, {d0: 6, d1: 4}),
// CHECK-NEXT:   ]
// CHECK-NEXT:   writes = [
// CHECK-NEXT:     MemoryDep('buf0', d0, {d0: 6}),
// CHECK-NEXT:   ]
// CHECK:      buf1: extern group.iteration = (12, 1) origins = [mm]
// CHECK-NEXT:   reads = [
// CHECK-NEXT:     StarDep(name='arg0_1'),
// CHECK-NEXT:     StarDep(name='arg1_1'),
// CHECK-NEXT:   ]
// CHECK:      buf2: pointwise group.iteration = (4, 1) origins = [gather]
// CHECK-NEXT:   reads = [
// CHECK-NEXT:     MemoryDep('arg0_1', 6*d0 + tmp0, {d0: 4}),
// CHECK-NEXT:     MemoryDep('arg2_1', d0, {d0: 4}),
// CHECK-NEXT:   ]
func.func @mixed(%x: tensor<4x6xf32>, %w: tensor<6x3xf32>, %i: tensor<4x1xi64>) -> (tensor<6xf32>, tensor<4x3xf32>, tensor<4x1xf32>) {
  %0 = "aten.sum"(%x) {dims = array<i64: 0>, keepdim = false} : (tensor<4x6xf32>) -> tensor<6xf32>
  %1 = "aten.mm"(%x, %w) : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
  %2 = "aten.gather"(%x, %i) {dim = 1 : i64} : (tensor<4x6xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<4x3xf32>, tensor<4x1xf32>
}
