// torch-spyre's softmax example (../shared/research/spyre_ascend.md, "Scratchpad"):
// max -> sub -> exp -> sum -> div over (M, N) = (512, 1024) fp16 reduced along dim 0, one
// op each, one core. Device-memory traffic in elements as LX takes more of it:
//   no LX                         8MN + 4N = 4,198,400
//   LX for the reductions' [N]    8MN      = 4,194,304
//   + the rest of LX, exp in place of sub  3MN = 1,572,864   (clone-inputs=false)
//   + the input cloned into LX once        2MN = 1,048,576   (sub in place of the clone)
// RUN: fuse-opt %s --spyre-assign-layouts --spyre-divide-work=cores=1 --spyre-plan-scratchpad=capacity=0 --spyre-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: fuse-opt %s --spyre-assign-layouts --spyre-divide-work=cores=1 --spyre-plan-scratchpad=capacity=4096 --spyre-report -o /dev/null | FileCheck %s --check-prefix=SMALL
// RUN: fuse-opt %s --spyre-assign-layouts --spyre-divide-work=cores=1 --spyre-plan-scratchpad=clone-inputs=false --spyre-report -o /dev/null | FileCheck %s --check-prefix=ALL
// RUN: fuse-opt %s --spyre-assign-layouts --spyre-divide-work=cores=1 --spyre-plan-scratchpad="solver=exact clone-inputs=false" --spyre-report -o /dev/null | FileCheck %s --check-prefix=ALL
// RUN: fuse-opt %s --spyre-assign-layouts --spyre-divide-work=cores=1 --spyre-plan-scratchpad --spyre-report -o /dev/null | FileCheck %s --check-prefix=CLONE
// RUN: fuse-opt %s --spyre-assign-layouts --spyre-divide-work=cores=1 --spyre-plan-scratchpad=solver=exact --spyre-report -o /dev/null | FileCheck %s --check-prefix=CLONE
// RUN: fuse-opt %s --spyre-assign-layouts --spyre-divide-work=cores=1 --spyre-plan-scratchpad | FileCheck %s --check-prefix=IR

// NONE: "traffic": {
// NONE-NEXT: "elements": 4198400,
// NONE-NEXT: "bytes": 8396800
// SMALL: "traffic": {
// SMALL-NEXT: "elements": 4194304,
// ALL: "traffic": {
// ALL-NEXT: "elements": 1572864,
// ALL: "peak_bytes_per_core": 1050624,
// CLONE: "traffic": {
// CLONE-NEXT: "elements": 1048576,

// The input's clone, then sub and exp in place of it; the [N] results beside.
// IR: spyre.input_lx = [array<i64: [[BASE:[0-9]+]], 1048576, 0, 2>]
// IR: name = "max"
// IR-SAME: spyre.lx = array<i64: {{[0-9]+}}, 2048, 0, 2>
// IR: name = "sub"
// IR-SAME: spyre.lx = array<i64: [[BASE]], 1048576, 1, 3>
// IR: name = "exp"
// IR-SAME: spyre.lx = array<i64: [[BASE]], 1048576, 2, 5>
// IR: name = "sum"
// IR-SAME: spyre.lx
// IR: name = "div"
// IR-SAME: spyre.hbm = "a result of the function"
#x = affine_map<(d0, d1) -> (d0 * 1024 + d1)>
#col = affine_map<(d0, d1) -> (d1 * 1024 + d0)>
#n = affine_map<(d0, d1) -> (d1)>
func.func @softmax_dim0(%x: tensor<512x1024xf16>) -> tensor<512x1024xf16> {
  %max = "loop.reduction"() ({
  ^bb0(%n: index, %m: index):
    %v = "loop.load"(%x) {index = #col} : (tensor<512x1024xf16>) -> f16
    gpu.yield %v : f16
  }) {name = "max", kind = "max", ranges = array<i64: 1024>, reduction_ranges = array<i64: 512>, origins = ["amax"]} : () -> tensor<1x1024xf16>
  %sub = "loop.pointwise"() ({
  ^bb0(%m: index, %n: index):
    %v = "loop.load"(%x) {index = #x} : (tensor<512x1024xf16>) -> f16
    %w = "loop.load"(%max) {index = #n} : (tensor<1x1024xf16>) -> f16
    %s = arith.subf %v, %w : f16
    gpu.yield %s : f16
  }) {name = "sub", ranges = array<i64: 512, 1024>, origins = ["sub"]} : () -> tensor<512x1024xf16>
  %exp = "loop.pointwise"() ({
  ^bb0(%m: index, %n: index):
    %v = "loop.load"(%sub) {index = #x} : (tensor<512x1024xf16>) -> f16
    %e = math.exp %v : f16
    gpu.yield %e : f16
  }) {name = "exp", ranges = array<i64: 512, 1024>, origins = ["exp"]} : () -> tensor<512x1024xf16>
  %sum = "loop.reduction"() ({
  ^bb0(%n: index, %m: index):
    %v = "loop.load"(%exp) {index = #col} : (tensor<512x1024xf16>) -> f16
    gpu.yield %v : f16
  }) {name = "sum", kind = "sum", ranges = array<i64: 1024>, reduction_ranges = array<i64: 512>, origins = ["sum"]} : () -> tensor<1x1024xf16>
  %div = "loop.pointwise"() ({
  ^bb0(%m: index, %n: index):
    %v = "loop.load"(%exp) {index = #x} : (tensor<512x1024xf16>) -> f16
    %w = "loop.load"(%sum) {index = #n} : (tensor<1x1024xf16>) -> f16
    %d = arith.divf %v, %w : f16
    gpu.yield %d : f16
  }) {name = "div", ranges = array<i64: 512, 1024>, origins = ["div"]} : () -> tensor<512x1024xf16>
  return %div : tensor<512x1024xf16>
}
