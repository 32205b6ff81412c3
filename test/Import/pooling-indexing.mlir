// Three rules of fuse-import checked on archives of the model corpus (test/Models/Inputs;
// their numerics against torch are in test/Models/numerics*.mlir).
// RUN: fuse-import %S/../Models/Inputs/resnet_hf.pt2 | FileCheck %s --check-prefix=POOL
// RUN: fuse-import %S/../Models/Inputs/pool_ceil.pt2 | FileCheck %s --check-prefix=CEIL
// RUN: fuse-import %S/../Models/Inputs/swin.pt2 | FileCheck %s --check-prefix=INDEX
// RUN: fuse-import %S/../Models/Inputs/opt.pt2 | FileCheck %s --check-prefix=INDEX2
// RUN: fuse-import %S/../Models/Inputs/opt.pt2 | FileCheck %s --check-prefix=CUMSUM
// RUN: fuse-import %S/../Models/Inputs/resnet_hf.pt2 | fuse-opt - --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --target=gpu --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=POOLFUSED

// max_pool2d_with_indices (ResNet's stem: 3x3, stride 2, padding 1 on 16x16): the input
// padded with -inf on the left of both spatial dims, nine strided slices of the 8x8
// output's shape, and eight maximums, the last named after the node; the ops reading
// the input carry Inductor's realize_hint, the parts of the pool `fuselab.inline`, and
// all of them the origin `max_pool2d` and one `fuselab.op_group` (one op for TVM).
// POOL: %[[NEG:.*]] = arith.constant dense<0xFF800000> : tensor<1x16x1x16xf32>
// POOL-NEXT: %[[PH:.*]] = "aten.cat"(%[[NEG]], %relu) {dim = 2 : i64, fuselab.realize_hint, fuselab.inline, fuselab.origin = "max_pool2d", fuselab.op_group = {{.*}}} : (tensor<1x16x1x16xf32>, tensor<1x16x16x16xf32>) -> tensor<1x16x17x16xf32>
// POOL: %[[P:.*]] = "aten.cat"(%{{.*}}, %[[PH]]) {dim = 3 : i64, fuselab.inline, fuselab.origin = "max_pool2d", fuselab.op_group = {{.*}}} : (tensor<1x16x17x1xf32>, tensor<1x16x17x16xf32>) -> tensor<1x16x17x17xf32>
// POOL-NEXT: %[[R0:.*]] = "aten.slice"(%[[P]]) {dim = 2 : i64, start = 0 : i64, end = 15 : i64, step = 2 : i64, fuselab.inline, fuselab.origin = "max_pool2d", fuselab.op_group = {{.*}}}
// POOL-NEXT: "aten.slice"(%[[R0]]) {dim = 3 : i64, start = 0 : i64, end = 15 : i64, step = 2 : i64, fuselab.inline, fuselab.origin = "max_pool2d", fuselab.op_group = {{.*}}} : (tensor<1x16x8x17xf32>) -> tensor<1x16x8x8xf32>
// POOL-COUNT-7: "aten.maximum"{{.*}}fuselab.inline
// POOL: %getitem_3 = "aten.maximum"
// POOL-NOT: "aten.maximum"
// POOL: "aten.convolution"(%getitem_3,

// Ceil mode (3x3, stride 2 on 14x14 -> 7x7): the last window starts at 12 and reads one
// -inf past the end, on the right; no left padding.
// CEIL: %[[NEG:.*]] = arith.constant dense<0xFF800000> : tensor<1x8x1x14xf32>
// CEIL-NEXT: "aten.cat"(%relu, %[[NEG]]) {dim = 2 : i64, fuselab.realize_hint, fuselab.inline, fuselab.origin = "max_pool2d", fuselab.op_group = {{.*}}} : (tensor<1x8x14x14xf32>, tensor<1x8x1x14xf32>) -> tensor<1x8x15x14xf32>
// CEIL: "aten.slice"(%{{.*}}) {dim = 2 : i64, start = 2 : i64, end = 15 : i64, step = 2 : i64, fuselab.inline, fuselab.origin = "max_pool2d", fuselab.op_group = {{.*}}} : (tensor<1x8x15x15xf32>) -> tensor<1x8x7x15xf32>
// The second pool (2x2, stride 2, padding 1, ceil on 7x7 -> 4x4) needs no right padding.
// CEIL: "aten.cat"(%{{.*}}, %getitem) {dim = 2 : i64, fuselab.realize_hint, fuselab.inline, fuselab.origin = "max_pool2d", fuselab.op_group = {{.*}}} : (tensor<1x8x1x7xf32>, tensor<1x8x7x7xf32>) -> tensor<1x8x8x7xf32>
// CEIL: %getitem_2 = "aten.maximum"{{.*}} -> tensor<1x8x4x4xf32>

// index.Tensor with one index (Swin's relative position bias, table[index.view(-1)]):
// negative indices wrapped, one gather of rows.
// INDEX: %[[NEG:.*]] = "aten.lt"(%[[IDX:b_model_encoder_layers_0.*_index]], %{{.*}}) {fuselab.origin = "index", fuselab.op_group = "index"} : (tensor<256xi64>, tensor<i64>) -> tensor<256xi1>
// INDEX: %[[W:.*]] = "aten.where"(%[[NEG]], %{{.*}}, %[[IDX]]) {{.*}}: (tensor<256xi1>, tensor<256xi64>, tensor<256xi64>) -> tensor<256xi64>
// INDEX: "aten.view"(%[[W]]) {{.*}}: (tensor<256xi64>) -> tensor<256x1xi64>
// INDEX: %index = "aten.gather"(%p_model_encoder_layers_0_{{.*}}_table, %{{.*}}) {dim = 0 : i64{{.*}}} : (tensor<49x2xf32>, tensor<256x2xi64>) -> tensor<256x2xf32>

// index.Tensor with two broadcast indices (OPT's padding mask, mask[batch[:, None, None,
// None], kv[None, None, None, :]]): the linear index batch * 16 + kv into the flattened mask.
// INDEX2: %[[B:.*]] = "aten.expand"(%{{.*}}) {{.*}}: (tensor<1x1x1x1xi64>) -> tensor<1x1x1x16xi64>
// INDEX2: %[[S:.*]] = "aten.mul"(%[[B]], %{{.*}}) {{.*}}: (tensor<1x1x1x16xi64>, tensor<i64>) -> tensor<1x1x1x16xi64>
// INDEX2-NEXT: %[[L:.*]] = "aten.add"(%[[S]], %{{.*}}) {{.*}}: (tensor<1x1x1x16xi64>, tensor<1x1x1x16xi64>) -> tensor<1x1x1x16xi64>
// INDEX2-NEXT: %[[F:.*]] = "aten.view"(%{{.*}}) {{.*}}: (tensor<1x16xi1>) -> tensor<16xi1>
// INDEX2-NEXT: %[[LV:.*]] = "aten.view"(%[[L]]) {{.*}}: (tensor<1x1x1x16xi64>) -> tensor<16xi64>
// INDEX2: %[[G:.*]] = "aten.gather"(%[[F]], %{{.*}}) {dim = 0 : i64{{.*}}} : (tensor<16xi1>, tensor<16xi64>) -> tensor<16xi1>
// INDEX2-NEXT: %index = "aten.view"(%[[G]]) {{.*}}: (tensor<16xi1>) -> tensor<1x1x1x16xi1>

// cumsum(mask, dim=1) as a masked reduction: the row spread over a new axis j, kept
// where j <= i, summed over j.
// CUMSUM: %[[ROW:.*]] = "aten.view"(%full) {fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<1x16xf32>) -> tensor<1x1x16xf32>
// CUMSUM-NEXT: %[[X:.*]] = "aten.expand"(%[[ROW]]) {{.*}}: (tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
// CUMSUM-NEXT: %[[N:.*]] = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64{{.*}}} : () -> tensor<16xi64>
// CUMSUM-NEXT: %[[I:.*]] = "aten.view"(%[[N]]) {{.*}}: (tensor<16xi64>) -> tensor<16x1xi64>
// CUMSUM-NEXT: %[[J:.*]] = "aten.view"(%[[N]]) {{.*}}: (tensor<16xi64>) -> tensor<1x16xi64>
// CUMSUM-NEXT: %[[T:.*]] = "aten.le"(%[[J]], %[[I]]) {{.*}}: (tensor<1x16xi64>, tensor<16x1xi64>) -> tensor<16x16xi1>
// CUMSUM-NEXT: %[[M:.*]] = "aten.view"(%[[T]]) {{.*}}: (tensor<16x16xi1>) -> tensor<1x16x16xi1>
// CUMSUM-NEXT: %[[Z:.*]] = arith.constant dense<0.0e0> : tensor<f32>
// CUMSUM-NEXT: %[[K:.*]] = "aten.where"(%[[M]], %[[X]], %[[Z]])
// CUMSUM-NEXT: %cumsum = "aten.sum"(%[[K]]) {dims = array<i64: 2>, keepdim = false{{.*}}} : (tensor<1x16x16xf32>) -> tensor<1x16xf32>

// Fused for the GPU, as Inductor's kernels (same names and numbering): the image and
// the stem weight copied to channels-last, the stem convolution, its batch norm and
// relu stored (the pool's realize_hint: they load more than once), the pool one
// pointwise kernel of the 16x8x8 output that reads the 16x16x16 relu buffer once
// (16384 bytes), its padding and partial maximums inlined (`fuselab.inline`).
// POOLFUSED: "name": "fused_convolution_0"
// POOLFUSED: "name": "fused_convolution_1"
// POOLFUSED: "name": "buf2"
// POOLFUSED: "name": "fused_batch_norm_relu_2"
// POOLFUSED: "name": "fused_max_pool2d_3"
// POOLFUSED: "iteration": [
// POOLFUSED-NEXT: 1024,
// POOLFUSED-NEXT: 1
// POOLFUSED-NEXT: ],
// POOLFUSED-NEXT: "bytes_read": 16384,
// POOLFUSED: "name": "fused_convolution_4"
