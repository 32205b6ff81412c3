// --help tells the truth: general options and every registered fuselab pass.
// RUN: fuse-opt --help | FileCheck %s
// CHECK: USAGE: fuse-opt [options] [input-file]
// CHECK: {{^}}  -o <file>
// CHECK: {{^}}  --split-input-file
// CHECK: --verify-diagnostics
// CHECK: --pass-pipeline=<pipeline>
// CHECK: --mlir-print-ir-after-all
// CHECK: FUSELAB PASSES
// CHECK: --aten-verify-shapes {{ *}}Check aten shapes/dtypes and loop IR structure
// RUN: fuse-opt --version | FileCheck %s --check-prefix=VERSION
// VERSION: fuse-opt (fuselab) {{[0-9]+\.[0-9]+\.[0-9]+}}
// Every pass of Inductor's pipeline is listed, with its options and defaults.
// RUN: fuse-opt --help | FileCheck %s --check-prefix=PASSES
// PASSES: --aten-decompose
// PASSES: --lower-aten-to-loop
// PASSES: --unroll-small-reductions
// PASSES-NEXT: threshold=<uint> {{.*}}(default: 8)
// PASSES: --split-reductions
// PASSES: --inline-pointwise
// PASSES-NEXT: realize-reads-threshold=<uint> {{.*}}(default: 4)
// PASSES-NEXT: realize-opcount-threshold=<uint> {{.*}}(default: 30)
// PASSES-NEXT: realize-acc-reads-threshold=<uint> {{.*}}(default: 8)
// PASSES: --print-memory-deps
// PASSES: --inductor-fuse
// PASSES-NEXT: on aten input: the inductor strategy's whole pipeline (FUSION STRATEGIES below)
// PASSES-NEXT: max-fusion-size=<uint> {{.*}}(default: 64)
// PASSES-NEXT: score-threshold=<uint> {{.*}}(default: 10)
// PASSES-NEXT: pairwise-attempts=<uint> {{.*}}(default: 64)
// PASSES-NEXT: max-rounds=<uint> {{.*}}(default: 10)
// PASSES-NEXT: aggressive=<bool> {{.*}}(default: false)
// The TVM strategy, the common entry and the comparison.
// RUN: fuse-opt --help | FileCheck %s --check-prefix=TVM
// TVM: --fusion-compare[=text|json|html]
// TVM: --lower-aten-to-loop
// TVM-NEXT: materialize-views=<bool> {{.*}}(default: false)
// TVM: --annotate-op-pattern
// TVM-NEXT: mode=<string> {{.*}}(default: relax)
// TVM: --tvm-fuse-ops
// TVM-NEXT: on aten input: the tvm strategy's whole pipeline
// TVM-NEXT: max-depth=<uint> {{.*}}(default: 256)
// TVM-NEXT: mode=<string> {{.*}}(default: relax)
// TVM: --fuse {{.*}}on aten input its whole pipeline
// TVM-NEXT: strategy=<string> {{.*}}(default: inductor)
// Every row of the strategy table, with what it expands to on aten input.
// RUN: fuse-opt --help | FileCheck %s --check-prefix=ROWS
// ROWS: FUSION STRATEGIES
// ROWS: {{^}}  inductor {{.*}}
// ROWS-NEXT: pipeline from aten: fuse-attention,fuse-rnn-cells,pointless-cumsum,aten-decompose,lower-aten-to-loop,unroll-small-reductions,inline-pointwise,split-reductions,inductor-fuse
// ROWS: {{^}}  tvm {{.*}}
// ROWS: {{^}}  tvm-folded {{ *}}variant of tvm
// ROWS: {{^}}  ascend {{.*}}
// ROWS: {{^}}  ascend-mindspore {{ *}}variant of ascend
// ROWS-NEXT: pipeline from aten: {{.*}}ascend-autofuse{mode=mindspore}
// ROWS: TARGETS
// The CPU code generator.
// RUN: fuse-opt --help | FileCheck %s --check-prefix=CPU
// CPU: --fuse
// CPU: --lower-loop-to-cpu {{.*}}one function per kernel plus a host function
// CPU-NEXT: parallel=<bool> {{.*}}(default: false)
// CPU-NEXT: parallel-min-work=<uint> {{.*}}(default: 65536)
