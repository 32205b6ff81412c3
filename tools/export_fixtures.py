#!/usr/bin/env python3
"""Exports the fixtures of `fuse-import` (test/Import/Inputs/*.pt2) with torch.export.

Run once where torch is installed (tests do not need torch):

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch numpy
    /tmp/torchenv/bin/python tools/export_fixtures.py [--out test/Import/Inputs]

Each workload of fuselab.models.workloads (the repository's copy of
../shared/workloads/workloads.py) and a few small real modules are
exported with `torch.export.export(...).run_decompositions()` (core ATen, as a deployment
flow hands them over) and saved with `torch.export.save`. The archive is then rewritten
without its weight, constant and sample-input blobs, so every fixture stays small; the
importer reads only `models/model.json` (graph, tensor metadata, signature).
"""
import argparse
import io
import json
import os
import sys
import zipfile

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.append(os.path.join(REPO, "python"))  # fuselab.models, installed or not
from fuselab.models import workloads  # noqa: E402
from fuselab.models.workloads import WORKLOADS, Wrap  # noqa: E402


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock (eval mode: batch norm uses running stats)."""

    def __init__(self, c=16):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + x)


class LSTMCell(nn.Module):
    """An LSTM cell written out: gates from two linears, sigmoid/tanh, split."""

    def __init__(self, d=32, h=64):
        super().__init__()
        self.ih = nn.Linear(d, 4 * h)
        self.hh = nn.Linear(h, 4 * h)

    def forward(self, x, h, c):
        i, f, g, o = (self.ih(x) + self.hh(h)).chunk(4, dim=-1)
        c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c2), c2


def small_modules():
    torch.manual_seed(0)
    enc = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True)
    stack = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True),
        num_layers=50,
        enable_nested_tensor=False,
    )
    return {
        "transformer_encoder_layer": (enc.eval(), (torch.randn(2, 16, 64),)),
        "basic_block": (BasicBlock().eval(), (torch.randn(2, 16, 8, 8),)),
        "lstm_cell": (LSTMCell().eval(), (torch.randn(4, 32), torch.randn(4, 64), torch.randn(4, 64))),
        "transformer_encoder_50": (stack.eval(), (torch.randn(2, 16, 64),)),
    }


def slim(model_json):
    """Keeps only `stack_trace` of each node's metadata (the importer's locations); the
    provenance (`from_node`), module stacks and torch_fn are most of model.json's size."""
    model = json.loads(model_json)
    for node in model["graph_module"]["graph"]["nodes"]:
        meta = node.get("metadata", {})
        node["metadata"] = {"stack_trace": meta["stack_trace"]} if "stack_trace" in meta else {}
    return json.dumps(model)


def strip(src, dst, edit=None):
    """Copies the archive without weight/constant/sample-input blobs (and, with `edit`,
    rewrites model.json)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            parts = item.filename.split("/")
            blob = "data" in parts and not item.filename.endswith(".json")
            if blob:
                continue
            data = zin.read(item.filename)
            if item.filename.endswith("models/model.json"):
                data = slim(data.decode())
                if edit:
                    data = edit(data)
            zout.writestr(item.filename, data, compress_type=zipfile.ZIP_DEFLATED)


def export(name, module, inputs, out_dir, edit=None, **kwargs):
    ep = torch.export.export(module, inputs, **kwargs).run_decompositions()
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    buf.seek(0)
    dst = os.path.join(out_dir, f"{name}.pt2")
    strip(buf, dst, edit)
    print(f"{dst}: {os.path.getsize(dst)} bytes")
    return dst


class Cumprod(nn.Module):
    def forward(self, x):
        return torch.cumprod(x, dim=0) * 2.0


class Double(nn.Module):
    def forward(self, x):
        return x * 2.0


def error_fixtures(out_dir):
    """Archives fuse-import must refuse, each with a clear message (test/Import/errors.mlir)."""
    export("bad_unsupported_op", Cumprod(), (torch.randn(4, 3),), out_dir)
    export("bad_float64", Double(), (torch.randn(4, 3, dtype=torch.float64),), out_dir)
    batch = torch.export.Dim("batch")
    export("bad_dynamic", Double(), (torch.randn(4, 3),), out_dir, dynamic_shapes=({0: batch},))

    def schema_99(text):
        model = json.loads(text)
        model["schema_version"] = {"major": 99, "minor": 0}
        return json.dumps(model)

    export("bad_schema", Double(), (torch.randn(4, 3),), out_dir, edit=schema_99)
    good = os.path.join(out_dir, "seed_10op.pt2")
    with open(good, "rb") as f:
        data = f.read()
    with open(os.path.join(out_dir, "bad_truncated.pt2"), "wb") as f:
        f.write(data[: len(data) // 2])
    with zipfile.ZipFile(os.path.join(out_dir, "bad_no_model.pt2"), "w") as z:
        z.writestr("archive/archive_format", "pt2")
        z.writestr("archive/data/weights/model_weights_config.json", "{}")


def small_inputs():
    """The workloads at small shapes (the interpreters run these), seeded."""
    g = torch.Generator().manual_seed(7)

    def r(*shape):
        return torch.randn(*shape, generator=g)

    # transformer_block reads the module globals H and HD: 12 heads of 2 for D = 24.
    workloads.H, workloads.HD = 12, 2
    D = 24
    return {
        "seed_10op": (r(8, 16), r(16), r(16), r(16)),
        "layernorm": (r(8, 16), r(16), r(16)),
        "softmax": (r(8, 16),),
        "rmsnorm": (r(8, 16), r(16)),
        "gelu_mlp": (r(8, 16), r(16, 32) * 0.25, r(32), r(32, 16) * 0.25, r(16)),
        "attention": (r(2, 2, 8, 4), r(2, 2, 8, 4), r(2, 2, 8, 4)),
        "transformer_block": (
            r(2, 4, D), 1 + 0.1 * r(D), 0.1 * r(D), 0.2 * r(3 * D, D), 0.1 * r(3 * D), 0.2 * r(D, D), 0.1 * r(D),
            1 + 0.1 * r(D), 0.1 * r(D), 0.2 * r(4 * D, D), 0.1 * r(4 * D), 0.1 * r(D, 4 * D), 0.1 * r(D),
        ),
        "pointwise_chain_100": (r(8, 16),),
        "diamond_wide": (r(8, 16),),
        "two_reductions": (r(8, 16),),
        "resnet_block": (r(2, 4, 6, 6), 0.3 * r(4, 4, 3, 3), 1 + 0.1 * r(4), 0.1 * r(4), 0.3 * r(4, 4, 3, 3), 1 + 0.1 * r(4), 0.1 * r(4)),
        "log_softmax_nll": (r(8, 10), torch.randint(0, 10, (8,), generator=g)),
    }


def tensor_json(t):
    names = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.int64: "int64", torch.bool: "bool"}
    return {"shape": list(t.shape), "dtype": names[t.dtype], "data": t.flatten().tolist()}


def small_fixtures(out_dir):
    """`<workload>_small.pt2` plus `<workload>_small.json`: torch's own outputs for the
    seeded inputs, the external oracle of `fuse-run --expect` (test/Execution/)."""
    for name, inputs in small_inputs().items():
        fn = WORKLOADS[name][0]
        export(f"{name}_small", Wrap(fn), inputs, out_dir)
        outputs = fn(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        with open(os.path.join(out_dir, f"{name}_small.json"), "w") as f:
            json.dump({"inputs": [tensor_json(t) for t in inputs], "outputs": [tensor_json(t) for t in outputs]}, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(REPO, "test", "Import", "Inputs"))
    ap.add_argument("--small-out", default=os.path.join(REPO, "test", "Execution", "Inputs"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.small_out, exist_ok=True)
    with torch.no_grad():
        for name, (fn, make_inputs) in WORKLOADS.items():
            export(name, Wrap(fn), make_inputs(), args.out)
        for name, (module, inputs) in small_modules().items():
            export(name, module, inputs, args.out)
        error_fixtures(args.out)
        small_fixtures(args.small_out)


if __name__ == "__main__":
    main()
