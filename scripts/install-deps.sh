#!/usr/bin/env bash
# Installs what fuselab needs on Debian 12 (bookworm) beyond a Rust toolchain:
# LLVM/MLIR 22 (headers, static libraries, mlir-opt, FileCheck, lit) from Debian's
# packages, oneDNN (the CPU JIT's GEMMs and convolutions) and single-threaded OpenBLAS
# (both loaded at run time; without oneDNN the JIT takes OpenBLAS and its own im2col
# convolution, without either matrixmultiply), and the LLVM OpenMP runtime that runs
# the JIT's parallel steps (fuse-run --parallel), and Debian's chromium, the headless
# browser the visual fusion report's tests render pages in. Idempotent and fast when everything is present: it only calls apt-get
# for packages that dpkg does not report as installed.
set -euo pipefail

PACKAGES=(
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libpolly-22-dev
  libclang-22-dev clang-22 libzstd-dev zlib1g-dev libxml2-dev libopenblas0-serial
  libomp-22-dev libdnnl2 chromium
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done" >&2
