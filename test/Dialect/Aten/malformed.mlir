// Malformed text is a located parse error and exit status 1, never a crash.
// RUN: not fuse-opt %S/Inputs/malformed-syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: malformed-syntax.mlir:3:25: error: expected '{' to begin a region
// RUN: not fuse-opt %S/Inputs/undefined-value.mlir 2>&1 | FileCheck %s --check-prefix=UNDEF
// UNDEF: undefined-value.mlir:3:23: error: use of undeclared SSA value name
// RUN: not fuse-opt %S/Inputs/type-mismatch.mlir 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: type-mismatch.mlir:4:19: error: use of value '%0' expects different type than prior uses: 'tensor<4xf16>' vs 'tensor<4xf32>'
// TYPE-NEXT: type-mismatch.mlir:3:3: note: prior use here
// RUN: not fuse-opt %S/Inputs/garbage.txt 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: garbage.txt:1:3: error: unexpected character
// RUN: not fuse-opt %S/Inputs/not-utf8.bin 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: fuse-opt: error: {{.*}}not-utf8.bin: input is neither valid UTF-8 text nor MLIR bytecode
// The located error also carries the real file name when the input is a bare function.
// RUN: not fuse-opt %S/Inputs/shape-mismatch.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: shape-mismatch.mlir:3:8: error: 'aten.mm' op inner dimensions do not match: [4, 3] x [4, 5] (3 vs 4)
// SHAPE-NOT: see current operation
