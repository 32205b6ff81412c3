// Integer expectations are read as JSON integers and compared exactly. fuse-run holds
// elements as float64, exact up to 2^53: at 2^53 the check still distinguishes
// neighbours; an expected 2^53 + 1 (which float64 would read as 2^53 and let a wrong
// result PASS) is refused with the reason; a non-integer element of an int64 tensor too.
// RUN: fuse-run %S/Inputs/i64-exact.mlir --expect %S/Inputs/i64-at-2p53.json | FileCheck %s
// RUN: not fuse-run %S/Inputs/i64-exact.mlir --expect %S/Inputs/i64-beyond-2p53.json 2>&1 | FileCheck %s --check-prefix=BEYOND
// RUN: not fuse-run %S/Inputs/i64-exact.mlir --expect %S/Inputs/i64-not-integer.json 2>&1 | FileCheck %s --check-prefix=FRACTION
// CHECK: reference output #0 tensor<2xi64>: max abs 0.000e0, max rel 0.000e0, 0 mismatches  PASS
// CHECK-NOT: FAIL
// BEYOND: i64-beyond-2p53.json: element 9007199254740993 of an integer tensor is beyond 2^53
// BEYOND-NOT: PASS
// FRACTION: element 1.5 of an integer tensor is not an integer
