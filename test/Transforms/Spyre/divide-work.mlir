// --spyre-divide-work over 32 cores (torch-spyre's three passes): the report's "split"
// per op, stick dims counted in sticks of 64 fp16.
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad --spyre-report -o /dev/null | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts --spyre-divide-work=cores=8 --spyre-plan-scratchpad --spyre-report -o /dev/null | FileCheck %s --check-prefix=EIGHT

// Pointwise [512, 1024]: c0 = 512 rows, c1 = 16 sticks; the larger takes all 32 cores.
// CHECK-LABEL: "function": "pointwise"
// CHECK: "stick": "c1",
// CHECK-NEXT: "split": "{c0:32}",
// CHECK-NEXT: "cores": 32
// EIGHT-LABEL: "function": "pointwise"
// EIGHT: "split": "{c0:8}",
func.func @pointwise(%x: tensor<512x1024xf16>) -> tensor<512x1024xf16> {
  %y = "aten.relu"(%x) : (tensor<512x1024xf16>) -> tensor<512x1024xf16>
  return %y : tensor<512x1024xf16>
}

// -----

// [6, 640]: c1 = 10 sticks first (10 cores), then 32 / 10 = 3 cores for the 6 rows.
// CHECK-LABEL: "function": "narrow"
// CHECK: "split": "{c0:3, c1:10}",
// CHECK-NEXT: "cores": 30
// EIGHT-LABEL: "function": "narrow"
// EIGHT: "split": "{c1:5}",
func.func @narrow(%x: tensor<6x640xf16>) -> tensor<6x640xf16> {
  %y = "aten.relu"(%x) : (tensor<6x640xf16>) -> tensor<6x640xf16>
  return %y : tensor<6x640xf16>
}

// -----

// The article's matmul: A = [8192, 32768] fp16 is 512 MiB, laid [512 K-sticks, 8192, 64]:
// the span pass splits K in 2; the cost model puts the other 16 cores on M and N.
// CHECK-LABEL: "function": "big_matmul"
// CHECK: "split": "{m:{{[0-9]+}}, n:{{[0-9]+}}, k:2}",
// CHECK-NEXT: "cores": 32
func.func @big_matmul(%a: tensor<8192x32768xf16>, %b: tensor<32768x4096xf16>) -> tensor<8192x4096xf16> {
  %c = "aten.mm"(%a, %b) : (tensor<8192x32768xf16>, tensor<32768x4096xf16>) -> tensor<8192x4096xf16>
  return %c : tensor<8192x4096xf16>
}
