"""Exports the corpus of real architectures (`fuselab.models.corpus`, the one copy of the
definitions) for `fuse-import` (issue 15): each model exported with `torch.export` +
`run_decompositions()` (weights lifted to inputs) and stripped to its graph, and each
compiled by TorchInductor to count the kernels it generates.

    python3 tools/models/corpus.py --out DIR [--json F] [--device cuda|cpu] [--code DIR] [NAME ...]

Writes DIR/NAME.pt2 (no weight blobs: the importer reads model.json), DIR/NAME.json (the
seeded inputs, weights included, and torch's outputs: `fuse-run --expect`, for models
small enough) and, with --json, one row per model: export errors, Inductor's kernels
(the names defined in its output code) and extern calls. Needs torch, transformers,
torchvision (the device image has them; nothing is fetched).
"""

import argparse
import io
import json
import os
import re
import sys
import traceback

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
# The package's sources (fuselab.models), whether or not the package is installed.
sys.path.append(os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
from export_fixtures import strip, tensor_json  # noqa: E402
from fuselab.models.corpus import MODELS  # noqa: E402,F401

# Inputs (weights included) recorded with torch's outputs up to this many elements.
MAX_RECORDED = 400_000


def export_one(name, out_dir):
    build, make_inputs = MODELS[name]
    torch.manual_seed(0)
    module = build().eval()
    inputs = make_inputs()
    row = {"program": name}
    with torch.no_grad():
        ep = torch.export.export(module, inputs, strict=False).run_decompositions()
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    buf.seek(0)
    strip(buf, os.path.join(out_dir, f"{name}.pt2"))
    ops = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
    row["ops"] = ops
    # The program's inputs in its own order: lifted parameters and buffers, then the user's.
    sig = ep.graph_signature
    state = {**ep.state_dict, **getattr(ep, "constants", {})}
    flat = []
    user = iter(inputs)
    for spec in sig.input_specs:
        flat.append(state[spec.target] if spec.target in state else next(user))
    with torch.no_grad():
        outs = ep.module()(*inputs)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    total = sum(t.numel() for t in flat) + sum(t.numel() for t in outs)
    row["elements"] = total
    if total <= MAX_RECORDED and all(t.dtype in (torch.float32, torch.int64, torch.bool) for t in flat):
        with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
            # Empty constants (an empty cache) are left out, as fuse-import leaves them out.
            inputs_json = [tensor_json(t.detach().contiguous()) for t in flat if t.numel() > 0]
            json.dump({"inputs": inputs_json, "outputs": [tensor_json(t.detach().contiguous()) for t in outs]}, f)
    return module, inputs, row


def inductor_kernels(module, inputs, device, code_path=None):
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    module = module.to(device)
    args = tuple(t.to(device) for t in inputs)
    with torch.no_grad():
        _, code = run_and_get_code(torch.compile(module, dynamic=False), *args)
    text = "\n".join(code)
    if code_path:
        with open(code_path, "w") as f:
            f.write(text)
    triton = re.findall(r"def (triton_\w+)\(", text)
    cpp = re.findall(r"^(cpp_\w+) = async_compile\.cpp", text, re.MULTILINE)
    # Kernel *calls* (a kernel defined once may run several times).
    calls = len(re.findall(r"\b(triton_\w+)\.run\(", text)) + len(re.findall(r"^\s*(cpp_fused_\w+)\(", text, re.MULTILINE))
    return {
        "kernels": len(set(triton + cpp)),
        "kernel_calls": calls,
        "extern_kernels": sorted(set(re.findall(r"extern_kernels\.(\w+)\(", text))),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="*")
    p.add_argument("--out", required=True)
    p.add_argument("--json")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--no-compile", action="store_true")
    p.add_argument("--code", help="also write Inductor's output code to CODE/NAME.py")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    from progress import progress

    for name in progress(list(a.names or MODELS), "corpus", "models"):
        try:
            module, inputs, row = export_one(name, a.out)
        except Exception as e:  # noqa: BLE001 - one model's failure is a row
            rows.append({"program": name, "export_error": f"{type(e).__name__}: {e}"[:400]})
            print(json.dumps(rows[-1]), flush=True)
            continue
        if not a.no_compile:
            try:
                code = os.path.join(a.code, f"{name}.py") if a.code else None
                if a.code:
                    os.makedirs(a.code, exist_ok=True)
                row.update(inductor_kernels(module, inputs, a.device, code))
            except Exception as e:  # noqa: BLE001
                row["compile_error"] = f"{type(e).__name__}: {e}"[:400]
                traceback.print_exc()
        row["device"], row["torch"] = a.device, torch.__version__
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "ops"}), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
