// Corpus models through the GPU target's whole path on a machine without a GPU: import,
// the strategy, tile kernels, gpu/nvvm, LLVM's NVPTX back end, a bundle that validates
// against its own PTX (fuse-gpu -o, --validate). Phi and Swin under the TVM strategy
// have the largest fused kernels of the corpus: the structural keys of their loads'
// offsets once held whole expression DAGs as text, which grew exponentially and ran
// out of memory (now hash-consed: lower_tile_to_gpu/loads.rs). The LSTM cell under the
// Inductor strategy: two mms written into one buffer and the lstm_cell library call.
// RUN: fuse-import %S/Inputs/phi.pt2 > %t.phi.mlir
// RUN: fuse-gpu %t.phi.mlir --strategy tvm -o %t.phi
// RUN: fuse-gpu --validate %t.phi | FileCheck %s
// RUN: fuse-import %S/Inputs/swin.pt2 > %t.swin.mlir
// RUN: fuse-gpu %t.swin.mlir --strategy tvm -o %t.swin
// RUN: fuse-gpu --validate %t.swin | FileCheck %s
// RUN: fuse-import %S/Inputs/lstm_cell.pt2 > %t.lstm.mlir
// RUN: fuse-gpu %t.lstm.mlir --strategy inductor -o %t.lstm
// RUN: fuse-gpu --validate %t.lstm | FileCheck %s
// RUN: cat %t.lstm/manifest.json | FileCheck %s --check-prefix=LSTM
// An LSTM cell stepped 4 times (tools/models/corpus.py's lstm_unrolled): each step reads
// the previous step's h and c, which the previous rewrite replaced; --fuse-rnn-cells
// built the next step's mm from the erased value and fuse-gpu died with SIGSEGV. Now:
// 4 fused cells, each after its two mms, and the bundle validates.
// RUN: fuse-import %S/Inputs/lstm_unrolled.pt2 > %t.lstm4.mlir
// RUN: fuse-gpu %t.lstm4.mlir --strategy inductor -o %t.lstm4
// RUN: fuse-gpu --validate %t.lstm4 | FileCheck %s
// RUN: cat %t.lstm4/manifest.json | FileCheck %s --check-prefix=LSTM4
// RUN: fuse-run %t.lstm4.mlir --target gpu --expect %S/Inputs/lstm_unrolled.expect.json | FileCheck %s --check-prefix=EXEC

// CHECK: valid bundle
// LSTM: "kind": "mm"
// LSTM: "kind": "mm"
// LSTM: "kind": "lstm_cell"
// LSTM4-COUNT-4: "kind": "lstm_cell"
// LSTM4-NOT: "kind": "lstm_cell"
// EXEC: reference output #1 {{.*}} PASS
// EXEC: inductor output #1 {{.*}} PASS
// EXEC-NOT: FAIL
