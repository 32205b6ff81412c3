// fuse-run --bench: the compiled check first, then every strategy timed next to the
// unfused pipeline and both rooflines; --bench-json writes the same figures as JSON.
// (Times vary; the test checks the report's shape, not its numbers.)
// RUN: fuse-run %s --bench --runs 3 --strategy unfused --strategy inductor --bench-json %t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// RUN: not fuse-run %s --bench-json 2>&1 | FileCheck %s --check-prefix=NOFILE

// CHECK: @rows (seed 0; reference: aten interpreter)
// CHECK: inductor output #0 tensor<64x128xf32>: {{.*}} PASS
// CHECK: @rows (median of 3 runs; 0.06 MiB of inputs + outputs; roofline: a copy of as many bytes {{.*}} GB/s = {{.*}} ms, DRAM (64 MiB copy) {{.*}} GB/s = {{.*}} ms)
// CHECK-NEXT: unfused {{[0-9.]+}} ms  speedup vs unfused 1.00x  vs roofline {{[0-9.]+}}x  vs DRAM roofline {{[0-9.]+}}x
// CHECK-NEXT: inductor {{[0-9.]+}} ms  speedup vs unfused {{[0-9.]+}}x  vs roofline {{[0-9.]+}}x  vs DRAM roofline {{[0-9.]+}}x

// JSON: "runs": 3
// JSON: "function": "rows"
// JSON: "io_bytes": 65536
// JSON: "strategies": [
// JSON: "strategy": "unfused"
// JSON: "speedup_vs_unfused": 1.0
// JSON: "strategy": "inductor"
// JSON: "x_dram_roofline":

// NOFILE: fuse-run: error: --bench-json needs a file
func.func @rows(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %s = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}
