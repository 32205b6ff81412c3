"""The one table of dtype names: fuselab's (MLIR's element types, as the extension and
the GPU bundle manifests name them) to torch's. Plain torch, no extension: the device
runner (`tools/gpu/run.py`) loads this file by path where the package is not built."""

import torch

DTYPES = {
    "f32": torch.float32,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "i64": torch.int64,
    "i32": torch.int32,
    "i1": torch.bool,
}
