// --help tells the truth: general options and every registered fuselab pass.
// RUN: fuse-opt --help | FileCheck %s
// CHECK: USAGE: fuse-opt [options] [input-file]
// CHECK: {{^}}  -o <file>
// CHECK: {{^}}  --split-input-file
// CHECK: --verify-diagnostics
// CHECK: --pass-pipeline=<pipeline>
// CHECK: --mlir-print-ir-after-all
// CHECK: FUSELAB PASSES
// CHECK: --aten-verify-shapes {{ *}}Check aten shapes/dtypes and loop IR structure
// RUN: fuse-opt --version | FileCheck %s --check-prefix=VERSION
// VERSION: fuse-opt (fuselab) {{[0-9]+\.[0-9]+\.[0-9]+}}
