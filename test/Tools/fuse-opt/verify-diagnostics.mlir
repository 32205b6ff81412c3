// --verify-diagnostics fails (exit 1) on a missing or an unexpected diagnostic and
// says which, at the right lines.
// RUN: not fuse-opt --verify-diagnostics --split-input-file %S/Inputs/wrong-expectations.mlir 2>&1 | FileCheck %s
// CHECK-DAG: wrong-expectations.mlir:5: error: expected error "this text is not in the message" was not produced (on line 6)
// CHECK-DAG: wrong-expectations.mlir:6:8: error: unexpected error: 'aten.view' op cannot view [4] (4 elements) as [5] (5 elements)
// CHECK-DAG: wrong-expectations.mlir:13:8: error: unexpected error: 'aten.mm' op inner dimensions do not match
// CHECK-DAG: wrong-expectations.mlir:20: error: expected error "never emitted" was not produced (on line 21)
// A malformed expectation (an unclosed `{{`) is an error, not a comment (issue 13,
// item 14: it was silently ignored, so the file passed while expecting nothing).
// RUN: not fuse-opt --verify-diagnostics %S/Inputs/unclosed-expectation.mlir 2>&1 | FileCheck %s --check-prefix=UNCLOSED
// UNCLOSED: line 2: malformed expectation (write `expected-error {{[{][{]}}text{{[}][}]}}`
// Expectations that do match pass (exit 0), including @above/@below and -re forms.
// RUN: fuse-opt --verify-diagnostics --split-input-file %S/Inputs/right-expectations.mlir
