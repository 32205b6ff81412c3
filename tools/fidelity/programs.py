"""Small programs for comparing fuselab's Inductor strategy with real TorchInductor: each
exercises one fusion rule (pointwise chains and broadcasts, inner / outer / full / tiny
reductions, normalizations, views, concatenation, gathers, matmul and convolution
epilogues, half precision). Weights are inputs, so the programs are plain functions.

`PROGRAMS[name] = (function, [input spec, ...])`, an input spec being a shape (f32), a
`(shape, dtype)` pair, or `("index", shape, bound)` for int64 indices below `bound`.
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

B16 = torch.bfloat16


def p(fn, *inputs):
    return (fn, list(inputs))


PROGRAMS = {
    # Pointwise.
    "pw_chain": p(lambda x: torch.relu(x * 2 + 1), (1024, 512)),
    "pw_row_broadcast": p(lambda x, b: x + b, (1024, 512), (512,)),
    "pw_col_broadcast": p(lambda x, s: x * s[:, None], (1024, 512), (1024,)),
    "pw_diamond": p(lambda x: (torch.exp(x) + 1) * (torch.exp(x) - 1), (1024, 512)),
    "pw_two_outputs": p(lambda x: (x + 1, x * 2), (1024, 512)),
    "pw_where": p(lambda x, y: torch.where(x > 0, x, y * 0.1), (1024, 512), (1024, 512)),
    "pw_silu": p(lambda x: x * torch.sigmoid(x), (1024, 512)),
    "pw_gelu_tanh": p(lambda x: F.gelu(x, approximate="tanh"), (1024, 512)),
    "pw_pow_int": p(lambda x: x**3 + x**2, (1024, 512)),
    "pw_softplus": p(lambda x: torch.log(torch.exp(x) + 1), (1024, 512)),
    "pw_bf16": p(lambda x: torch.relu(x * 2), ((1024, 512), B16)),
    # Reductions.
    "row_sum": p(lambda x: x.sum(1), (1024, 512)),
    "row_center": p(lambda x: x - x.mean(1, keepdim=True), (1024, 512)),
    "row_max_exp": p(lambda x: torch.exp(x - x.amax(1, keepdim=True)), (1024, 512)),
    "softmax": p(lambda x: torch.softmax(x, -1), (1024, 512)),
    "log_softmax": p(lambda x: torch.log_softmax(x, -1), (1024, 512)),
    "softmax_bf16": p(lambda x: torch.softmax(x, -1), ((1024, 512), B16)),
    "layer_norm": p(lambda x, w, b: F.layer_norm(x, (512,), w, b), (1024, 512), (512,), (512,)),
    "rms_norm": p(
        lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w, (1024, 512), (512,)
    ),
    "residual_layer_norm": p(
        lambda x, y, w, b: F.layer_norm(x + y, (512,), w, b), (1024, 512), (1024, 512), (512,), (512,)
    ),
    "var_rows": p(lambda x: x.var(1), (1024, 512)),
    "group_norm": p(lambda x, w, b: F.group_norm(x, 8, w, b), (4, 64, 16, 16), (64,), (64,)),
    "group_norm_silu": p(lambda x, w, b: F.silu(F.group_norm(x, 8, w, b)), (4, 64, 16, 16), (64,), (64,)),
    "col_sum": p(lambda x: x.sum(0), (1024, 512)),
    "outer_sum_3d": p(lambda x: x.sum(1), (32, 64, 128)),
    "mean_two_dims": p(lambda x: x.mean((1, 2)), (32, 64, 128)),
    "full_sum_small": p(lambda x: x.sum(), (64, 64)),
    "full_sum_split": p(lambda x: -torch.exp(x).sum(), (1024, 1024)),
    "full_amax_split": p(lambda x: torch.abs(x).amax(), (2048, 2048)),
    "tiny_reduce_4": p(lambda x, z: z * torch.exp(x).sum(1, keepdim=True), (4096, 4), (4096, 64)),
    "tiny_reduce_8": p(lambda x, z: z * torch.exp(x).sum(1, keepdim=True), (4096, 8), (4096, 64)),
    "two_reductions": p(lambda x: x.sum(1) + x.amax(1), (1024, 512)),
    "sum_broadcast_back": p(lambda x, y: x.sum(1, keepdim=True) * y, (1024, 512), (1024, 512)),
    "broadcast_reduce": p(lambda x, y: (x[:, None, :] * y[None, :, :]).sum(-1), (64, 32), (64, 32)),
    # Views, concatenation, gathers.
    "transpose_add": p(lambda x, y: x.t() + y, (512, 1024), (1024, 512)),
    "transpose_reduce": p(lambda x: x.t().sum(1), (512, 1024)),
    "reshape_relu": p(lambda x: torch.relu(x.view(64, 256) * 2), (128, 128)),
    "cat_exp": p(lambda x, y: torch.cat([torch.exp(x), torch.exp(y)], 0), (512, 256), (512, 256)),
    "slice_scale": p(lambda x: x[:, :100] * 2, (1024, 512)),
    "gather_nll": p(
        lambda x, t: -torch.log_softmax(x, -1).gather(1, t[:, None]).mean(),
        (1024, 1000),
        ("index", (1024,), 1000),
    ),
    # Loop reordering (scheduler.py `shared_data_after_reordering_loop`): a realized
    # buffer read in a permuted order by its consumer or beside a permuted reader.
    "reorder_pw_reduce": p(lambda x: (torch.relu(x), torch.relu(x).t().sum(1)), (256, 4096)),
    "reorder_pw_pw": p(lambda x, y: (x * 2, (x * 2).t() + y), (512, 1024), (1024, 512)),
    "reorder_horizontal": p(lambda x: (x * 2, x.t() * 3), (512, 1024)),
    "reorder_reduce_epilogue": p(lambda x, z: x.sum(2).t() + z, (64, 128, 256), (128, 64)),
    "reorder_permute_3d": p(lambda x: (torch.exp(x), torch.exp(x).permute(0, 2, 1).sum(2)), (16, 128, 256)),
    # Concatenation of library-kernel results (ConcatKernel.realize_into).
    "cat_mm": p(lambda a, w1, w2: torch.cat([a @ w1, a @ w2], 1), (256, 512), (512, 384), (512, 128)),
    "cat_mm_dim0": p(lambda a, b, w: torch.cat([a @ w, b @ w], 0), (256, 512), (128, 512), (512, 384)),
    "cat_mm_pointwise": p(lambda a, w, y: torch.cat([a @ w, torch.relu(y)], 1), (256, 512), (512, 384), (256, 128)),
    "cat_mm_relu_after": p(lambda a, w1, w2: torch.relu(torch.cat([a @ w1, a @ w2], 1)), (256, 512), (512, 384), (512, 128)),
    "cat_bmm": p(lambda a, b, c: torch.cat([a @ b, a @ c], 2), (8, 64, 32), (8, 32, 48), (8, 32, 16)),
    # Library kernels and their epilogues.
    "mm_relu": p(lambda a, w, b: torch.relu(a @ w + b), (256, 512), (512, 384), (384,)),
    "mm_two_epilogues": p(lambda a, w: (torch.sigmoid(a @ w), (a @ w) * 2), (256, 512), (512, 384)),
    "linear_gelu": p(lambda x, w, b: F.gelu(F.linear(x, w, b)), (256, 512), (1024, 512), (1024,)),
    "attention": p(
        lambda q, k, v: torch.softmax(q @ k.transpose(1, 2) / 8.0, -1) @ v,
        (8, 128, 64),
        (8, 128, 64),
        (8, 128, 64),
    ),
    # With heads (4-D): Inductor's joint-graph pattern `_sfdp_pattern_1` makes it one
    # fused attention call on the CPU (`_scaled_dot_product_flash_attention_for_cpu`); on
    # CUDA f32 it stays bmm + softmax + bmm (TF32 off).
    "attention_heads": p(
        lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1) / 8.0, -1) @ v,
        (2, 4, 128, 64),
        (2, 4, 128, 64),
        (2, 4, 128, 64),
    ),
    "conv_bn_relu": p(
        lambda x, w, s, t: torch.relu(F.conv2d(x, w, padding=1) * s + t),
        (2, 16, 32, 32),
        (16, 16, 3, 3),
        (1, 16, 1, 1),
        (1, 16, 1, 1),
    ),
    "conv_residual": p(lambda x, w: torch.relu(F.conv2d(x, w, padding=1) + x), (2, 16, 32, 32), (16, 16, 3, 3)),
    # A convolution's elementwise epilogue (TVM: kOutEWiseFusable absorbs it).
    "conv_bias_relu": p(
        lambda x, w, b: torch.relu(F.conv2d(x, w, b, padding=1)), (2, 16, 32, 32), (32, 16, 3, 3), (32,)
    ),
    # A residual block: conv-bias-relu, conv-bias, + input, relu.
    "conv_residual_block": p(
        lambda x, w1, b1, w2, b2: torch.relu(
            F.conv2d(torch.relu(F.conv2d(x, w1, b1, padding=1)), w2, b2, padding=1) + x
        ),
        (2, 16, 16, 16),
        (16, 16, 3, 3),
        (16,),
        (16, 16, 3, 3),
        (16,),
    ),
    # Two branches: one input into a 1x1 and a 3x3 convolution, each with its
    # epilogue, summed; and several paths from one convolution's result.
    "conv_two_branch": p(
        lambda x, w1, w3, b: torch.relu(F.conv2d(x, w1) + b) + torch.sigmoid(F.conv2d(x, w3, padding=1)),
        (2, 16, 16, 16),
        (16, 16, 1, 1),
        (16, 16, 3, 3),
        (1, 16, 1, 1),
    ),
    "conv_fan_out": p(
        lambda x, w: (lambda c: torch.relu(c) * torch.sigmoid(c) + c)(F.conv2d(x, w, padding=1)),
        (2, 16, 16, 16),
        (16, 16, 3, 3),
    ),
}


def inputs(specs, device):
    """Seeded example inputs for `specs`."""
    g = torch.Generator().manual_seed(0)
    out = []
    for s in specs:
        if isinstance(s, tuple) and s and s[0] == "index":
            out.append(torch.randint(0, s[2], s[1], generator=g).to(device))
        elif isinstance(s, tuple) and len(s) == 2 and isinstance(s[1], torch.dtype):
            out.append(torch.randn(s[0], generator=g).to(s[1]).to(device))
        else:
            out.append(torch.randn(s, generator=g).to(device))
    return out


class Program(torch.nn.Module):
    """A program as a module, for torch.export."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def probe_all(names, probe, json_path=None):
    """`probe(name)` (a JSON row) for each of `names` (all programs when empty), each
    printed as it comes; a program whose probe raises gets a row with its error.
    The rows are written to `json_path` if given."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from progress import progress

    rows = []
    for name in progress(list(names or PROGRAMS), "probe", "programs"):
        try:
            row = probe(name)
        except Exception as e:  # noqa: BLE001 - one program's failure is a row
            row = {"program": name, "error": f"{type(e).__name__}: {e}"[:300]}
        print(json.dumps(row), flush=True)
        rows.append(row)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=1)
    return rows
