// The corpus models that import, run by every strategy on torch's own inputs (weights
// included) and checked against torch's outputs recorded at export
// (tools/models/corpus.py; Inputs/NAME.expect.json): the aten reference interpreter
// and each strategy's fused loop IR.
// RUN: fuse-import %S/Inputs/convnext.pt2 | fuse-run - --expect %S/Inputs/convnext.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/regnet.pt2 | fuse-run - --expect %S/Inputs/regnet.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/unet_resblock.pt2 | fuse-run - --expect %S/Inputs/unet_resblock.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/dense_layer.pt2 | fuse-run - --expect %S/Inputs/dense_layer.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/gru_cell.pt2 | fuse-run - --expect %S/Inputs/gru_cell.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/cross_entropy_ignore.pt2 | fuse-run - --expect %S/Inputs/cross_entropy_ignore.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/cross_entropy_smooth.pt2 | fuse-run - --expect %S/Inputs/cross_entropy_smooth.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/bert.pt2 | fuse-run - --expect %S/Inputs/bert.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/albert.pt2 | fuse-run - --expect %S/Inputs/albert.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/distilbert.pt2 | fuse-run - --expect %S/Inputs/distilbert.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/electra.pt2 | fuse-run - --expect %S/Inputs/electra.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/t5_encoder.pt2 | fuse-run - --expect %S/Inputs/t5_encoder.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/vit.pt2 | fuse-run - --expect %S/Inputs/vit.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/dense_layer.pt2 | fuse-run - --expect %S/Inputs/dense_layer.expect.json --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/bert.pt2 | fuse-run - --expect %S/Inputs/bert.expect.json --jit | FileCheck %s
// CHECK: reference output #0 {{.*}} PASS
// CHECK: inductor output #0 {{.*}} PASS
// CHECK: tvm output #0 {{.*}} PASS
// CHECK: ascend output #0 {{.*}} PASS
// CHECK-NOT: FAIL
// CHECK-NOT: ERROR
