//! The CPU code generator's row nests (`lower_loop_to_cpu`): kernel members share one
//! loop over their leading ranges only when every read of another member's buffer stays
//! in the reader's row. Each case runs the kernel compiled and on the loop interpreter
//! (which runs members one after another over whole buffers) and compares them; the
//! generated code is checked for the nest it should have.

use fuselab_dialects::ir;
use fuselab_dialects::{source::parse_module, DiagnosticSink, FuseContext};
use fuselab_exec::{inputs::compare, inputs::generate_inputs, loops::run_loop};
use fuselab_targets::cpu::{
    jit::Jit,
    lower_loop_to_cpu::{cpu_module, CpuOptions},
};

/// A kernel of a row reduction over `x: [8, 16]` and a pointwise member reading the
/// reduction at `read` (an affine map of the pointwise loop variables `(d0, d1)`).
fn kernel(read: &str) -> String {
    format!(
        r#"func.func @k(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {{
  %0 = "loop.kernel"() ({{
    %1 = "loop.reduction"() ({{
    ^bb0(%i: index, %r: index):
      %v = "loop.load"(%x) {{index = affine_map<(d0, d1) -> (d0 * 16 + d1)>}} : (tensor<8x16xf32>) -> f32
      gpu.yield %v : f32
    }}) {{name = "buf0", ranges = array<i64: 8>, reduction_ranges = array<i64: 16>, kind = "sum", origins = ["sum"]}} : () -> tensor<8x1xf32>
    %2 = "loop.pointwise"() ({{
    ^bb0(%i: index, %j: index):
      %a = "loop.load"(%x) {{index = affine_map<(d0, d1) -> (d0 * 16 + d1)>}} : (tensor<8x16xf32>) -> f32
      %s = "loop.load"(%1) {{index = {read}}} : (tensor<8x1xf32>) -> f32
      %d = arith.subf %a, %s : f32
      gpu.yield %d : f32
    }}) {{name = "buf1", ranges = array<i64: 8, 16>, origins = ["sub"]}} : () -> tensor<8x16xf32>
    gpu.yield %2 : tensor<8x16xf32>
  }}) {{iteration = array<i64: 8, 16>, name = "fused_sum_sub_0", strategy = "test"}} : () -> tuple<tensor<8x16xf32>>
  %3 = "loop.output"(%0) {{index = 0 : i64}} : (tuple<tensor<8x16xf32>>) -> tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}}"#
    )
}

/// Runs `text` compiled and interpreted; returns the kernel function's text and whether
/// both agree.
fn run(text: &str) -> (String, bool) {
    let fuse = FuseContext::new().expect("context");
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let module = parse_module(fuse.context(), text, "test.mlir", &sink).expect("parses");
    let func = ir::collect_ops(module.as_operation().to_raw(), |n| n == "func.func")[0];
    let inputs = generate_inputs(func, 7).expect("inputs");
    let want = run_loop(func, &inputs).expect("interprets");
    let got = Jit::compile(func)
        .and_then(|j| j.run(&inputs))
        .expect("runs compiled");
    let code = cpu_module(&[func], CpuOptions::default())
        .expect("generates")
        .module
        .text();
    (code, compare(&got[0], &want[0]).pass)
}

/// Loops opened directly in the kernel function's body (4 spaces in).
fn top_level_loops(code: &str) -> usize {
    let kernel = code
        .split("func.func private @k_fused_sum_sub_0")
        .nth(1)
        .and_then(|rest| rest.split("\n  }").next())
        .expect("kernel function");
    kernel.lines().filter(|l| l.starts_with("    scf.for")).count()
}

#[test]
fn a_same_row_read_shares_the_row_nest() {
    let (code, agree) = run(&kernel("affine_map<(d0, d1) -> (d0)>"));
    assert!(agree, "compiled and interpreted differ");
    assert_eq!(top_level_loops(&code), 1, "{code}");
}

#[test]
fn a_read_of_the_next_row_gets_a_nest_of_its_own() {
    // Row i reads row i+1's sum, which a shared row nest would not have computed yet.
    let (code, agree) = run(&kernel("affine_map<(d0, d1) -> ((d0 + 1) mod 8)>"));
    assert!(agree, "compiled and interpreted differ");
    assert_eq!(top_level_loops(&code), 2, "{code}");
}

#[test]
fn a_read_across_rows_by_the_column_gets_a_nest_of_its_own() {
    let (code, agree) = run(&kernel("affine_map<(d0, d1) -> (d1 floordiv 2)>"));
    assert!(agree, "compiled and interpreted differ");
    assert_eq!(top_level_loops(&code), 2, "{code}");
}
