#!/usr/bin/env python3
"""Experiment: a copy of a one-kernel row bundle with PTX cache qualifiers on its loads.

    python3 tools/gpu/ptx_cache_hints.py SRC DST [--no-nc] [--hint ROLE=POLICY]...

Measures what Inductor's eviction hints (torch/_inductor/codegen/triton.py, `load`:
`evict_last` for broadcast loads and for a looped reduction's loads that are read again,
`evict_first` for their last read; Triton 3.6 lowers them to `ld.global.L1::<policy>
.L2::cache_hint` after `createpolicy.fractional.L2::<policy>`) would do to fuselab's own
kernels, without changing the compiler: docs/gpu.md, rmsnorm. Roles, by position in the
PTX of a row kernel: `x1` every vector load before the first branch (the reduction's
reads), then by base register in order of appearance after it: `x2` the first, `w` the
second (for a looped reduction: the re-read row and the weight; for a persistent one the
weight is the first). POLICY is evict_first or evict_last. --no-nc: plain `ld.global`
instead of the read-only `ld.global.nc` (Triton's loads are plain).
"""
import argparse
import os
import re
import shutil

LOAD = re.compile(r"(\s*)ld\.global\.nc\.v4\.b32(\s+\{[^}]*\}, \[(%rd\d+)(\+-?\d+)?\])")


def rewrite(ptx, no_nc, hints):
    after, bases, out = False, [], []
    for line in ptx.split("\n"):
        after = after or "bra" in line
        m = LOAD.match(line)
        if m:
            role = "x1"
            if after:
                if m.group(3) not in bases:
                    bases.append(m.group(3))
                role = "x2" if bases.index(m.group(3)) == 0 else "w"
            op, suffix = "ld.global" + ("" if no_nc else ".nc"), ""
            if role in hints:
                op += ".L1::%s.L2::cache_hint" % hints[role]
                suffix = ", %%pol_%s" % hints[role]
            line = m.group(1) + op + ".v4.b32" + m.group(2) + suffix + line[m.end():]
        out.append(line)
    ptx = "\n".join(out)
    policies = sorted(set(hints.values()))
    decl = "".join("\t.reg .b64 \t%%pol_%s;\n" % p for p in policies)
    init = "".join(
        "\tcreatepolicy.fractional.L2::%s.b64 %%pol_%s, 0f3F800000;\n" % (p, p) for p in policies
    )
    ptx = re.sub(r"(\t\.reg \.b64 \t%rd<\d+>;\n)", lambda m: m.group(1) + decl, ptx, count=1)
    return re.sub(r"(\tld\.param\.b64[^\n]*\n)", lambda m: m.group(1) + init, ptx, count=1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--no-nc", action="store_true")
    p.add_argument("--hint", action="append", default=[], metavar="ROLE=POLICY")
    a = p.parse_args()
    hints = {}
    for h in a.hint:
        role, _, policy = h.partition("=")
        if role not in ("x1", "x2", "w") or policy not in ("evict_first", "evict_last"):
            p.error("bad --hint %r: ROLE is x1, x2 or w; POLICY evict_first or evict_last" % h)
        hints[role] = policy
    shutil.copytree(a.src, a.dst, dirs_exist_ok=True)
    path = os.path.join(a.dst, "kernels.ptx")
    with open(os.path.join(a.src, "kernels.ptx")) as f:
        ptx = rewrite(f.read(), a.no_nc, hints)
    with open(path, "w") as f:
        f.write(ptx)


if __name__ == "__main__":
    main()
