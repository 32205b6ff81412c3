"""Writes PyTorch's core ATen opset (every aten overload tagged `core`) one per line as
`aten.<op>.<overload>` to import/data/core-aten-ops.txt, the list `fuse-import --list-ops`
reports the importer's coverage against (docs/import.md). Run where torch is installed:
    /opt/tvmvenv/bin/python tools/import/core_aten_ops.py
"""
import pathlib

import torch

names = set()
for packet_name in dir(torch.ops.aten):
    packet = getattr(torch.ops.aten, packet_name)
    if not isinstance(packet, torch._ops.OpOverloadPacket):
        continue
    for overload in packet.overloads():
        op = getattr(packet, overload)
        if torch.Tag.core in op.tags:
            names.add(f"aten.{packet_name}.{overload}")
out = pathlib.Path(__file__).resolve().parents[2] / "import" / "data" / "core-aten-ops.txt"
out.write_text(f"# core ATen overloads of torch {torch.__version__} (tools/import/core_aten_ops.py)\n" + "\n".join(sorted(names)) + "\n")
print(len(names), "overloads ->", out)
