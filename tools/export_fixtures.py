#!/usr/bin/env python3
"""Exports the fixtures of `fuse-import` (test/Import/Inputs/*.pt2) with torch.export.

Run once where torch is installed (tests do not need torch):

    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch numpy
    /tmp/torchenv/bin/python tools/export_fixtures.py [--out test/Import/Inputs]

Each workload of ../shared/workloads/workloads.py and a few small real modules are
exported with `torch.export.export(...).run_decompositions()` (core ATen, as a deployment
flow hands them over) and saved with `torch.export.save`. The archive is then rewritten
without its weight, constant and sample-input blobs, so every fixture stays small; the
importer reads only `models/model.json` (graph, tensor metadata, signature).
"""
import argparse
import io
import os
import sys
import zipfile

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(os.path.dirname(REPO), "shared", "workloads"))
from workloads import WORKLOADS, Wrap  # noqa: E402


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


def strip(src, dst):
    """Copies the archive without weight/constant/sample-input blobs."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            parts = item.filename.split("/")
            blob = "data" in parts and not item.filename.endswith(".json")
            if blob:
                continue
            zout.writestr(item, zin.read(item.filename))


def export(name, module, inputs, out_dir):
    ep = torch.export.export(module, inputs).run_decompositions()
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    buf.seek(0)
    dst = os.path.join(out_dir, f"{name}.pt2")
    strip(buf, dst)
    print(f"{dst}: {os.path.getsize(dst)} bytes")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(REPO, "test", "Import", "Inputs"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with torch.no_grad():
        for name, (fn, make_inputs) in WORKLOADS.items():
            export(name, Wrap(fn), make_inputs(), args.out)
        for name, (module, inputs) in small_modules().items():
            export(name, module, inputs, args.out)


if __name__ == "__main__":
    main()
