// --fusion-explain puts each remark at the second node's source line, or, for an op
// located by a name alone (`loc("sum")`, as exports without stack traces give), at the
// nearest node that has one, never at `<unknown>` (issue 14, item 10).
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-explain -o /dev/null 2>&1 | FileCheck %s
// CHECK: explain-locations.mlir:[[@LINE+4]]:8: remark: not fusing buf0 with buf2: no shared data
// CHECK: explain-locations.mlir:[[@LINE+3]]:8: remark: not fusing buf0,buf1 with buf2: no shared data
// CHECK-NOT: <unknown>
func.func @named(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<1x8xf32>, tensor<4x8xf32>) {
  %n = "aten.neg"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = "aten.amax"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32> loc("amax")
  %s = "aten.sum"(%x) {dims = array<i64: 0>, keepdim = true} : (tensor<4x8xf32>) -> tensor<1x8xf32> loc("sum")
  return %m, %s, %n : tensor<4x1xf32>, tensor<1x8xf32>, tensor<4x8xf32>
}
