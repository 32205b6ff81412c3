#!/usr/bin/env bash
# fuselab's compiled CPU code vs torch.compile, side by side (tools/bench/vs_torch.py):
#   scripts/bench-vs-torch.sh [--install] [vs_torch.py options...]
# Python: $TORCH_PYTHON, else target/torch-venv/bin/python (made by --install: a venv
# with torch: PyTorch's CPU wheels, else PyPI's), else python3. Builds the release fuse-run first.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/torch-venv
if [[ "${1:-}" == "--install" ]]; then
  shift
  python3 -m venv "$venv"
  # PyTorch's CPU-only wheels, else PyPI's (a CUDA build, larger; it runs on the CPU too)
  # where download.pytorch.org is not reachable.
  "$venv/bin/pip" install --quiet --index-url https://download.pytorch.org/whl/cpu torch ||
    "$venv/bin/pip" install --quiet torch
  "$venv/bin/pip" install --quiet numpy
fi
py="${TORCH_PYTHON:-}"
if [[ -z "$py" ]]; then
  if [[ -x "$venv/bin/python" ]]; then py="$venv/bin/python"; else py=python3; fi
fi
cargo build --release --bin fuse-run
exec "$py" tools/bench/vs_torch.py "$@"
