// Beam search keeps choices greedy throws away. y = 2x over [64, 256], s = row sums of y,
// z = s + b with b [64]: z walks s along its stick (its only dim), so s must be dense on
// dim 0, so the reduction (which takes its input's layout) needs y sticked on dim 0, so
// y's op must take stick dim 0 and restickify x (64 x 256 = 16384 device elements).
// Greedy takes y's free stick (dim 1) and finds no layout for z; the beam finds the one
// above.
// RUN: not fuse-opt %s --spyre-assign-layouts 2>&1 | FileCheck %s --check-prefix=GREEDY
// RUN: fuse-opt %s --spyre-assign-layouts=solver=beam | FileCheck %s --check-prefix=BEAM
// RUN: fuse-opt %s --spyre-assign-layouts="solver=beam beam-width=2" --spyre-divide-work --spyre-plan-scratchpad --spyre-report -o /dev/null | FileCheck %s --check-prefix=COST

// GREEDY: error: 'z' cannot be laid out on Spyre: s is a reduction along its stick dim
// BEAM: %[[R:.*]] = "spyre.restickify"(%arg0) {layout = {device_size = array<i64: 1, 256, 64>, stick_dim = 0 : i64
// BEAM: "loop.load"(%[[R]])
// BEAM: name = "y"{{.*}}spyre.stick = 0 : i64
// BEAM: name = "s"{{.*}}spyre.stick = 0 : i64
// COST: "device_elements": 16384,
func.func @beam(%x: tensor<64x256xf16>, %b: tensor<64xf16>) -> tensor<64xf16> {
  %y = "loop.pointwise"() ({
  ^bb0(%i: index, %j: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 256 + d1)>} : (tensor<64x256xf16>) -> f16
    %w = arith.addf %v, %v : f16
    gpu.yield %w : f16
  }) {name = "y", ranges = array<i64: 64, 256>, origins = ["mul"]} : () -> tensor<64x256xf16>
  %s = "loop.reduction"() ({
  ^bb0(%i: index, %j: index):
    %v = "loop.load"(%y) {index = affine_map<(d0, d1) -> (d0 * 256 + d1)>} : (tensor<64x256xf16>) -> f16
    gpu.yield %v : f16
  }) {name = "s", kind = "sum", ranges = array<i64: 64>, reduction_ranges = array<i64: 256>, origins = ["sum"]} : () -> tensor<64xf16>
  %z = "loop.pointwise"() ({
  ^bb0(%i: index):
    %v = "loop.load"(%s) {index = affine_map<(d0) -> (d0)>} : (tensor<64xf16>) -> f16
    %c = "loop.load"(%b) {index = affine_map<(d0) -> (d0)>} : (tensor<64xf16>) -> f16
    %w = arith.addf %v, %c : f16
    gpu.yield %w : f16
  }) {name = "z", ranges = array<i64: 64>, origins = ["add"]} : () -> tensor<64xf16>
  return %z : tensor<64xf16>
}
