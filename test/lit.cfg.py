# LLVM lit configuration for fuselab's tests: `lit test/` runs every .mlir file with
# LLVM's own FileCheck and `not` (from llvm-22-tools), as a fidelity cross-check of the
# in-process harness that `cargo test` uses (tools/tests/lit.rs).
#
# The tools are found on PATH: fuselab's build folder first (FUSELAB_BIN_DIR, default
# target/debug), then LLVM 22's bin folder (mlir-opt, FileCheck, not).
import os

import lit.formats

config.name = "fuselab"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
repo_root = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(repo_root, "target", "lit")

bin_dir = os.environ.get("FUSELAB_BIN_DIR", os.path.join(repo_root, "target", "debug"))
llvm_bin = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.substitutions.append(("%dialects", os.path.join(repo_root, "dialects")))
