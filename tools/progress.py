"""Progress of the long scripts (the corpus export, the fidelity probes, the GPU
runner's bundles) on stderr, never on stdout (their JSON rows and tables stay as they
were): tqdm's bar where tqdm is installed (transformers brings it), otherwise one line
per tenth of the items, `corpus: 12/41 models, 30.1 s elapsed, 72.8 s left`.
FUSELAB_QUIET=1 shows none."""

import os
import sys
import time
from typing import Iterable, Iterator, Optional, Sized, TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], label: str, unit: str, total: Optional[int] = None) -> Iterator[T]:
    """`items`, reporting progress as they are consumed."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    if os.environ.get("FUSELAB_QUIET") == "1" or not total:
        yield from items
        return
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]

        if sys.stderr.isatty():
            yield from tqdm(items, total=total, desc=label, unit=f" {unit}", file=sys.stderr)
            return
    except ImportError:
        pass
    every = max(1, total // 10)
    start = time.monotonic()
    for done, item in enumerate(items, 1):
        yield item
        if done % every == 0 or done == total:
            elapsed = time.monotonic() - start
            left = elapsed / done * max(0, total - done)
            print(f"{label}: {done}/{total} {unit}, {elapsed:.1f} s elapsed, {left:.1f} s left", file=sys.stderr, flush=True)
