// The fusion report of the seed model (seed 000 Table 2): one kernel, 4 MiB + 12 KiB
// read (x once, bias/gamma/beta), 4 MiB written (y), buf0 kernel-local; one kernel per
// aten op would move 80 MiB (44 MiB + 16 KiB read, 36 MiB + 4 KiB written).
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=%t.json -o /dev/null
// RUN: FileCheck %s --input-file=%t.json
// CHECK:      "functions": [
// CHECK:        "function": "seed_10op",
// CHECK-NEXT:   "strategy": "inductor",
// CHECK:        "name": "fused_add_mean_mul_relu_sub_0",
// CHECK-NEXT:   "extern": null,
// CHECK-NEXT:   "members": [
// CHECK-NEXT:     "buf0",
// CHECK-NEXT:     "buf1"
// CHECK-NEXT:   ],
// CHECK:        "iteration": [
// CHECK-NEXT:     1024,
// CHECK-NEXT:     1024
// CHECK-NEXT:   ],
// 4 MiB + 3 x 4 KiB
// CHECK-NEXT:   "bytes_read": 4206592,
// CHECK-NEXT:   "bytes_written": 4194304,
// CHECK-NEXT:   "kernel_local": [
// CHECK-NEXT:     "buf0"
// CHECK-NEXT:   ],
// CHECK-NEXT:   "launches": 1
// CHECK:      "totals": {
// CHECK-NEXT:   "kernels": 1,
// CHECK-NEXT:   "extern_kernels": 0,
// CHECK-NEXT:   "launches": 1,
// CHECK-NEXT:   "bytes_read": 4206592,
// CHECK-NEXT:   "bytes_written": 4194304,
// CHECK-NEXT:   "bytes_total": 8400896
// CHECK:      "rejected": [],
// CHECK-NEXT: "unfused": {
// CHECK-NEXT:   "kernels": 10,
// CHECK-NEXT:   "bytes_read": 46153728,
// CHECK-NEXT:   "bytes_written": 37752832,
// CHECK-NEXT:   "bytes_total": 83906560
// The graph decided over (what the visual report draws): after inlining, the row mean
// (buf0, at the aten.mean, line 12 of the example) and the output (buf1, at the last
// aten.add, line 15), each with the aten ops it computes and the buffers it reads.
// CHECK:      "graph": {
// CHECK-NEXT:   "nodes": [
// CHECK:          "name": "buf0",
// CHECK-NEXT:     "kind": "reduction",
// CHECK:          "loc": "{{.*}}seed_10op.mlir:12:8",
// CHECK-NEXT:     "reads": [
// CHECK-NEXT:       "arg0_1",
// CHECK-NEXT:       "arg1_1"
// CHECK-NEXT:     ],
// CHECK-NEXT:     "bytes": 4096,
// CHECK-NEXT:     "output": false
// CHECK:          "name": "buf1",
// CHECK-NEXT:     "kind": "pointwise",
// CHECK:          "loc": "{{.*}}seed_10op.mlir:15:8",
// CHECK:            "buf0"
// CHECK-NEXT:     ],
// CHECK-NEXT:     "bytes": 4194304,
// CHECK-NEXT:     "output": true

// Rejections carry Inductor's reasons, in the report and (with --fusion-explain) as
// remarks at the second node's location.
// RUN: fuse-opt %S/Inputs/mismatched-index.mlir --inductor-fuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=REJECT
// REJECT:      "rejected": [
// REJECT-NEXT:   {
// REJECT-NEXT:     "node1": "buf0",
// REJECT-NEXT:     "node2": "buf1",
// REJECT-NEXT:     "reason": "memory deps did not match"
// RUN: fuse-opt %S/Inputs/mismatched-index.mlir --inductor-fuse --fusion-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: mismatched-index.mlir:12:8: remark: not fusing buf0 with buf1: memory deps did not match
// A report file that cannot be written is a located error.
// RUN: not fuse-opt %S/Inputs/mismatched-index.mlir --inductor-fuse --fusion-report=%S/no/such/dir/r.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOWRITE
// NOWRITE: error: cannot write fusion report '{{.*}}no/such/dir/r.json'
