// The vision models, blocks and losses of the corpus that import, run by every strategy
// on torch's own inputs (weights included) and checked against torch's outputs recorded
// at export (tools/models/corpus.py; Inputs/NAME.expect.json). ResNet's stem max pool
// (3x3, stride 2, padding 1) and pool_ceil's ceil-mode windows that hang over the input
// check the max_pool2d import against torch; Swin's and LeViT's relative position biases
// check index.Tensor.
// RUN: fuse-import %S/Inputs/vit.pt2 | fuse-run - --expect %S/Inputs/vit.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/deit.pt2 | fuse-run - --expect %S/Inputs/deit.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/clip_vision.pt2 | fuse-run - --expect %S/Inputs/clip_vision.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/convnext.pt2 | fuse-run - --expect %S/Inputs/convnext.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/regnet.pt2 | fuse-run - --expect %S/Inputs/regnet.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/resnet_hf.pt2 | fuse-run - --expect %S/Inputs/resnet_hf.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/swin.pt2 | fuse-run - --expect %S/Inputs/swin.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/segformer.pt2 | fuse-run - --expect %S/Inputs/segformer.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/efficientnet.pt2 | fuse-run - --expect %S/Inputs/efficientnet.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/levit.pt2 | fuse-run - --expect %S/Inputs/levit.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/unet_resblock.pt2 | fuse-run - --expect %S/Inputs/unet_resblock.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/unet_attention.pt2 | fuse-run - --expect %S/Inputs/unet_attention.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/dense_layer.pt2 | fuse-run - --expect %S/Inputs/dense_layer.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/pool_ceil.pt2 | fuse-run - --expect %S/Inputs/pool_ceil.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/gru_cell.pt2 | fuse-run - --expect %S/Inputs/gru_cell.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/lstm_cell.pt2 | fuse-run - --expect %S/Inputs/lstm_cell.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/cross_entropy_ignore.pt2 | fuse-run - --expect %S/Inputs/cross_entropy_ignore.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/cross_entropy_smooth.pt2 | fuse-run - --expect %S/Inputs/cross_entropy_smooth.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/resnet_hf.pt2 | fuse-run - --expect %S/Inputs/resnet_hf.expect.json --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/pool_ceil.pt2 | fuse-run - --expect %S/Inputs/pool_ceil.expect.json --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/swin.pt2 | fuse-run - --expect %S/Inputs/swin.expect.json --jit | FileCheck %s
// CHECK: reference output #0 {{.*}} PASS
// CHECK: inductor output #0 {{.*}} PASS
// CHECK: tvm output #0 {{.*}} PASS
// CHECK: ascend output #0 {{.*}} PASS
// CHECK-NOT: FAIL
// CHECK-NOT: ERROR
