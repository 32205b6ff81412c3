"""Real TVM Relax's fusion decisions on the model corpus (issue 15): each model of
`fuselab.models.corpus` built as there (tiny config, seeded random weights), exported with
`torch.export` + `run_decompositions()`, saved stripped for `fuse-import`
(OUT/NAME.pt2), and imported by Relax's `from_exported_program` with the weights kept
as inputs (`keep_params_as_input=True`); then TVM's own fusion pipeline —
LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR — and the
`call_tir`s left in `main` counted (one per fused group: a kernel launch), with names.

    python3 tools/models/tvm_corpus.py --out DIR [--json F] [NAME ...]

Runs on the CPU (no device): needs torch, torchvision, transformers and apache-tvm
(`pip install torch torchvision transformers apache-tvm`). Both sides read the same
export, written here: `tools/fidelity/compare.py --strategy tvm --reference F
--archives DIR --allow-errors` compares fuselab's TVM strategy with these counts. A model
Relax cannot import is a row with its error (`tvm_error`).
"""

import argparse
import io
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fidelity"))
sys.path.append(os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))  # fuselab.models
from fuselab.models.corpus import MODELS  # noqa: E402
from export_fixtures import strip  # noqa: E402
from tvm_probe import AMAX, fused_call_tirs  # noqa: E402


def tvm_groups(exported):
    """The TIR functions `main` calls after TVM's fusion, in order."""
    import tvm
    from tvm.relax.frontend.torch import from_exported_program

    mod = from_exported_program(exported, keep_params_as_input=True, custom_convert_map=AMAX)
    return fused_call_tirs(mod), tvm.__version__


def probe(name, out_dir):
    build, make_inputs = MODELS[name]
    torch.manual_seed(0)
    module = build().eval()
    # A Hugging Face decoder builds an empty KV cache by default, and Relax's importer
    # cannot take the cat of an empty [0] tensor: the forward pass without a cache (the
    # same layers) is what both sides compile.
    config = getattr(getattr(module, "model", None), "config", None)
    if getattr(config, "use_cache", False):
        config.use_cache = False
    with torch.no_grad():
        exported = torch.export.export(module, make_inputs(), strict=False).run_decompositions()
    buf = io.BytesIO()
    torch.export.save(exported, buf)
    buf.seek(0)
    strip(buf, os.path.join(out_dir, f"{name}.pt2"))
    row = {"program": name, "torch": torch.__version__}
    try:
        names, version = tvm_groups(exported)
        row.update({"tvm": version, "kernels": len(names), "kernel_names": names})
    except Exception as e:  # noqa: BLE001 - one model's failure is a row
        row["tvm_error"] = f"{type(e).__name__}: {e}"[:300]
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="*")
    p.add_argument("--out", required=True)
    p.add_argument("--json")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for name in a.names or MODELS:
        try:
            row = probe(name, a.out)
        except Exception as e:  # noqa: BLE001 - an export failure is a row
            row = {"program": name, "export_error": f"{type(e).__name__}: {e}"[:300]}
        print(json.dumps({k: v for k, v in row.items() if k != "kernel_names"}), flush=True)
        rows.append(row)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
