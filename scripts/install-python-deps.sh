#!/usr/bin/env bash
# What the Python package's tests need (python/tests): torch (PyPI's default wheel,
# which runs on the CPU; the CPU-only index is not needed), pytest, and transformers
# (the corpus models' classes, built at tiny sizes with random weights: nothing is
# downloaded), each installed only when missing. `make test` and `.ci/run` call it.
set -euo pipefail
py=${PYTHON:-python3}
missing=()
"$py" -c "import torch" 2>/dev/null || missing+=(torch)
"$py" -c "import pytest" 2>/dev/null || missing+=(pytest)
"$py" -c "import transformers" 2>/dev/null || missing+=(transformers)
# numpy: the bundle reader (fuselab.runtime, tools/gpu/run.py) and its fixture test.
"$py" -c "import numpy" 2>/dev/null || missing+=(numpy)
# playwright: drives Debian's chromium (scripts/install-deps.sh) in the visual report's
# browser tests; its own browser download is not used.
"$py" -c "import playwright" 2>/dev/null || missing+=(playwright)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-python-deps: pip install ${missing[*]}" >&2
  "$py" -m pip install --quiet "${missing[@]}"
fi
