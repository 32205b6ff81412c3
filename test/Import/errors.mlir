// RUN: not fuse-import %S/Inputs/bad_truncated.pt2 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: not fuse-import %S/Inputs/bad_no_model.pt2 2>&1 | FileCheck %s --check-prefix=NOMODEL
// RUN: not fuse-import %S/Inputs/bad_schema.pt2 2>&1 | FileCheck %s --check-prefix=SCHEMA
// RUN: not fuse-import %S/Inputs/bad_unsupported_op.pt2 2>&1 | FileCheck %s --check-prefix=BADOP
// RUN: not fuse-import %S/Inputs/bad_dynamic.pt2 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not fuse-import %S/Inputs/bad_float64.pt2 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not fuse-import %S/Inputs/does_not_exist.pt2 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not fuse-import %S/Inputs/bad_pool_indices.pt2 2>&1 | FileCheck %s --check-prefix=POOLIDX
// RUN: not fuse-import %S/Inputs/bad_index_mask.pt2 2>&1 | FileCheck %s --check-prefix=MASK
// RUN: not fuse-import %s 2>&1 | FileCheck %s --check-prefix=NOTZIP
// RUN: not fuse-import 2>&1 | FileCheck %s --check-prefix=NOINPUT
// RUN: not fuse-import --frobnicate 2>&1 | FileCheck %s --check-prefix=OPTION

// Every refusal is one clear line and exit 1 (fixtures from tools/export_fixtures.py).
// TRUNCATED: fuse-import: error: {{.*}}bad_truncated.pt2: not a torch.export archive (.pt2 zip):
// NOMODEL: fuse-import: error: {{.*}}bad_no_model.pt2: the archive has no 'models/model.json'
// SCHEMA: fuse-import: error: {{.*}}bad_schema.pt2: unsupported torch.export schema version 99.0 (fuse-import reads 8.x
// An unknown op is located at the model's source line and names op and overload.
// BADOP: export_fixtures.py:{{[0-9]+}}:0: error: fuse-import does not support this op (node 'cumprod', op 'aten.cumprod', overload 'default')
// DYNAMIC: bad_dynamic.pt2: error: tensor 'x' has a symbolic (dynamic) size {{.*}}; fuselab needs static shapes
// DTYPE: bad_float64.pt2: error: tensor 'x' has dtype float64 (torch ScalarType 8); fuselab supports float32, float16, bfloat16, int64, int32 and bool
// Max pooling computes the values only (bad_pool_indices.pt2: pool_ceil.pt2 of the model
// corpus with the second pool's indices added to the graph outputs in model.json).
// POOLIDX: pooling.py:{{[0-9]+}}:0: error: output #1 ('max_pool2d_with_indices_1_unused_1') is used, but fuselab computes only the primary result (node 'max_pool2d_with_indices_1', op 'aten.max_pool2d_with_indices'
// Boolean-mask indexing has a data-dependent shape (bad_index_mask.pt2: swin.pt2 with the
// first relative_position_index buffer's dtype rewritten to bool).
// MASK: modeling_swin.py:{{[0-9]+}}:0: error: index tensors must be int64, got i1 (boolean masks give data-dependent shapes) (node 'index', op 'aten.index', overload 'Tensor')
// MISSING: fuse-import: error: {{.*}}does_not_exist.pt2: cannot read:
// NOTZIP: fuse-import: error: {{.*}}errors.mlir: not a torch.export archive (.pt2 zip):
// NOINPUT: fuse-import: error: no input file (see --help)
// OPTION: fuse-import: error: unknown option '--frobnicate' (see --help)
