// The visual report: --fusion-compare=html and --fusion-report=FILE.html write one
// self-contained page (style, script and data inline). The page's DOM is checked in a
// real browser by python/tests/test_report_html.py; here its text.
// RUN: fuse-opt --fusion-compare=html %S/../../../examples/gelu_mlp.mlir -o %t.html
// RUN: FileCheck %s --input-file=%t.html --check-prefix=PAGE
// RUN: fuse-opt %S/../../../examples/gelu_mlp.mlir --inductor-fuse --fusion-report=%t.one.html -o %t.mlir
// RUN: FileCheck %s --input-file=%t.one.html --check-prefix=ONE
// RUN: fuse-opt --fusion-compare=html --fusion-timing=%S/Inputs/gpu-timing.json %S/../../../examples/gelu_mlp.mlir -o %t.timed.html
// RUN: FileCheck %s --input-file=%t.timed.html --check-prefix=TIMED
// RUN: not fuse-opt --fusion-timing=%S/Inputs/gpu-timing.json %S/../../../examples/gelu_mlp.mlir --inductor-fuse 2>&1 | FileCheck %s --check-prefix=NOPAGE
// RUN: not fuse-opt --fusion-compare=html --fusion-timing=%S/Inputs/not-timing.json %S/../../../examples/gelu_mlp.mlir 2>&1 | FileCheck %s --check-prefix=BADTIMING
// RUN: not fuse-opt %S/../../../examples/gelu_mlp.mlir --fusion-report=%t.none.html 2>&1 | FileCheck %s --check-prefix=NOPASS

// The summary rows: eager, then each strategy with the fusion report's totals (bytes
// exact in data-value). gelu_mlp: Inductor keeps both matmuls as library calls (1 kernel
// + 2 extern), TVM fuses the bias add and gelu into the first matmul (1 + 1).
// PAGE: <!DOCTYPE html>
// PAGE: <title>fuselab fusion report: {{.*}}gelu_mlp.mlir</title>
// PAGE: <tr data-strategy="eager"><td class="strategy">eager</td><td class="kernels" data-value="5">
// PAGE: <td class="bytes-read" data-value="151015424"
// PAGE: <tr data-strategy="inductor"><td class="strategy">inductor</td><td class="kernels" data-value="1">1</td><td class="extern" data-value="2">2</td><td class="launches" data-value="3">3</td><td class="bytes-read" data-value="109072384"
// PAGE: <td class="bytes-written" data-value="75497472"
// PAGE: <tr data-strategy="tvm"><td class="strategy">tvm</td><td class="kernels" data-value="1">1</td><td class="extern" data-value="1">1</td><td class="launches" data-value="2">2</td><td class="bytes-read" data-value="75517952"
// One tab and one drawing per strategy; the Inductor drawing's three kernels, the
// library calls hatched, and the data edges between them.
// PAGE: <button type="button" data-view="0" class="active">inductor</button><button type="button" data-view="1">tvm</button>
// PAGE: <div class="view active" data-view="0" data-strategy="inductor"><h3>inductor · 1 kernels, 2 library calls
// PAGE: <path class="edge outer" data-from="0" data-to="1"
// PAGE: <path class="edge outer" data-from="1" data-to="2"
// PAGE: <g class="kernel extern" data-kernel="0" data-name="buf0"
// PAGE: buf0 · extern addmm
// PAGE: <g class="node extern" data-node="buf0">
// PAGE: <g class="kernel" data-kernel="1" data-name="fused_gelu_0"
// PAGE: <g class="node pointwise" data-node="buf1">
// PAGE: <title>buf1 (pointwise) gelu at {{[^<]*}}gelu_mlp.mlir:6:8</title>
// PAGE: <g class="kernel extern" data-kernel="2" data-name="buf2"
// PAGE: <div class="view" data-view="1" data-strategy="tvm">
// The data the script reads, and no external resource.
// PAGE: <script type="application/json" id="fuselab-data">{"functions":[{"function":"gelu_mlp","strategies":[{"strategy":"inductor","kernels":[{"name":"buf0","extern":"addmm"
// PAGE-NOT: src=

// One strategy's page: the eager row and the strategy that ran.
// ONE: <tr data-strategy="eager">
// ONE: <tr data-strategy="inductor">
// ONE-NOT: data-strategy="tvm"

// Measured times: the profiled kernel matched by its PTX name (its time in its title
// and details), the call's total in the summary, the library kernels summed apart.
// Beside Inductor's kernels of the same module (the runner's inductor_kernels): the
// summary's ratio (612.56 / 600.5), and per strategy the parity table — the library
// kernel paired by name, fused_gelu_0 (gelu) with the Inductor kernel naming gelu
// (67108864 bytes in 132.31 us: 507 GB/s, 1.10x), Inductor's extra kernel alone.
// TIMED: <th>measured</th><th>× Inductor</th>
// TIMED: <tr data-strategy="inductor">
// TIMED-SAME: <td class="measured">612.6 µs</td><td class="vs-inductor">1.02</td>
// TIMED: <p class="inductor-time">torch.compile (Inductor) of the same module: 600.5 µs per call
// TIMED: <text class="kernel-name" {{[^>]*}}>fused_gelu_0 · 132.3 µs</text>
// TIMED: <table class="parity">
// TIMED-SAME: <tr><td>cutlass_80_simt_sgemm_256x128_8x4_nn_align1</td><td>480.25</td><td>-</td><td>-</td><td>cutlass_80_simt_sgemm_256x128_8x4_nn_align1</td><td>470.50</td><td>1.02</td></tr>
// TIMED-SAME: <tr><td>fused_gelu_0</td><td>132.31</td><td>67108864</td><td>507</td><td>triton_poi_fused_addmm_gelu_0</td><td>120.25</td><td>1.10</td></tr>
// TIMED-SAME: <tr><td>-</td><td>-</td><td>-</td><td>-</td><td>triton_poi_fused_clone_1</td><td>9.75</td><td>-</td></tr></tbody></table>
// TIMED: "name":"fused_gelu_0"
// TIMED: "time_us":132.31
// TIMED: "unmatched_us":480.25

// NOPAGE: fuse-opt: error: --fusion-timing shows times in the visual report: give --fusion-compare=html or --fusion-report=FILE.html
// BADTIMING: fuse-opt: error: {{.*}}not-timing.json: not JSON: EOF while parsing a list at line 2 column 0
// NOPASS: gelu_mlp.mlir: no fusion pass ran; '{{.*}}none.html' not written
