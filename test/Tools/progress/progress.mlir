// Long runs show progress on stderr — a bar on a terminal, a line per tenth of the work
// elsewhere (here) — and never in their output streams (text, JSON); --quiet shows none.
// RUN: fuse-fuzz --count 3 --seed 1 --out %t.failures 2> %t.err | FileCheck %s --check-prefix=OUT
// RUN: cat %t.err | FileCheck %s --check-prefix=LINES
// RUN: fuse-fuzz --count 3 --seed 1 --out %t.failures --quiet 2> %t.quiet
// RUN: cat %t.quiet | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: fuse-bench --sizes 100 --runs 1 --graphs chain --json 2> %t.bench | FileCheck %s --check-prefix=JSON
// RUN: cat %t.bench | FileCheck %s --check-prefix=BENCH
// RUN: fuse-bench --sizes 100 --runs 1 --graphs chain --json --quiet 2> %t.bench.quiet
// RUN: cat %t.bench.quiet | FileCheck %s --check-prefix=QUIET --allow-empty

// OUT-NOT: elapsed
// OUT: fuse-fuzz: 3 graphs (seeds 1..3), 0 failed
// OUT-NOT: elapsed
// LINES: fuse-fuzz: 1/3 graphs, {{[0-9.]+}} s elapsed, {{[0-9.]+}} s left
// LINES: fuse-fuzz: 2/3 graphs
// LINES: fuse-fuzz: 3/3 graphs, {{[0-9.]+}} s elapsed, 0.0 s left
// QUIET-NOT: {{.}}
// JSON-NOT: elapsed
// JSON: "strategy": "inductor"
// JSON-NOT: elapsed
// BENCH: fuse-bench: 1/{{[0-9]+}} rows
// BENCH-NOT: "strategy"
