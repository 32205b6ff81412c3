// --spyre-lower-to-ktir needs the three passes' decisions, and comes after every other
// Spyre pass: a pipeline in another order is a located error.
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --spyre-lower-to-ktir --verify-diagnostics
// RUN: not fuse-opt %s --split-input-file --target=spyre --aten-decompose --lower-aten-to-loop --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad --spyre-lower-to-ktir --spyre-lower-to-ktir 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not fuse-opt %s --split-input-file --target=spyre --aten-decompose --lower-aten-to-loop --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad --spyre-lower-to-ktir --spyre-report 2>&1 | FileCheck %s --check-prefix=AFTER

// TWICE: error: --spyre-lower-to-ktir: the function is already in KTIR form
// AFTER: error: 'spyre.memory_view' is KTIR: this function is already lowered by --spyre-lower-to-ktir, which comes after every other Spyre pass

// expected-error @+1 {{--spyre-lower-to-ktir needs the Spyre layouts: run --spyre-assign-layouts first}}
func.func @no_layouts(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %y = "aten.relu"(%x) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
