// The Spyre passes' options and order are checked: a pipeline that cannot mean what it
// says is an error.
// RUN: not fuse-opt %s --spyre-assign-layouts="solver=greedy beam-width=8" 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not fuse-opt %s --spyre-assign-layouts="solver=best" 2>&1 | FileCheck %s --check-prefix=SOLVER
// RUN: not fuse-opt %s --spyre-assign-layouts --spyre-assign-layouts 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not fuse-opt %s --spyre-divide-work 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not fuse-opt %s --spyre-assign-layouts --spyre-plan-scratchpad 2>&1 | FileCheck %s --check-prefix=SPLITS
// RUN: not fuse-opt %s --spyre-assign-layouts --spyre-divide-work --spyre-report 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: not fuse-opt %s --spyre-assign-layouts --spyre-divide-work=cores=0 2>&1 | FileCheck %s --check-prefix=CORES
// RUN: not fuse-opt %s --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad="solver=ilp" 2>&1 | FileCheck %s --check-prefix=LXSOLVER
// RUN: not fuse-opt %s --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad=capacity=2000000 2>&1 | FileCheck %s --check-prefix=CAPACITY

// WIDTH: error: beam-width is an option of solver=beam; solver=greedy keeps one state
// SOLVER: error: solver must be greedy or beam, not 'best'
// TWICE: error: the Spyre layouts are already assigned (--spyre-assign-layouts runs once)
// ORDER: error: --spyre-divide-work needs the Spyre layouts: run --spyre-assign-layouts first
// SPLITS: error: --spyre-plan-scratchpad needs the core splits: run --spyre-divide-work first
// PLAN: error: --spyre-report needs the LX plan: run --spyre-plan-scratchpad first
// CORES: error: cores must be at least 1
// LXSOLVER: error: solver must be one of greedy, first-fit, best-fit, exact, not 'ilp'
// CAPACITY: error: capacity 2000000 exceeds the usable LX of 1625344 bytes
func.func @f(%x: tensor<64x128xf16>) -> tensor<64x128xf16> {
  %0 = "loop.pointwise"() ({
  ^bb0(%i: index, %j: index):
    %a = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 128 + d1)>} : (tensor<64x128xf16>) -> f16
    %s = arith.addf %a, %a : f16
    gpu.yield %s : f16
  }) {name = "buf0", ranges = array<i64: 64, 128>, origins = ["add"]} : () -> tensor<64x128xf16>
  return %0 : tensor<64x128xf16>
}
