//! Generated-code size of Inductor-strategy kernels holding many reductions (issue 44,
//! item 4): a chain of pointwise ops with a row sum every 7 ops, its values read again
//! some ops later, fused by the Inductor strategy and lowered to CPU code or to GPU
//! kernels (each reduction a pass of its own over the row in both). Bodies copied
//! into one reader are deduplicated (`--inline-pointwise`'s CSE); the CPU lowering
//! stores a member that several loops would recompute with more than 30 ops
//! (`fuselab_passes::analysis::rows::kernel_members_bounded`), the tile lowering builds
//! a recomputed member once per program where one chunk covers the row: the code grows
//! linearly with the chain. Before, 100 ops lowered to 725k lines of CPU code and 500
//! ops to 15M; the GPU code, rebuilt in each reduction's pass, was 100k lines at 280.

use super::{process_chunk, Options};
use crate::driver::{parse_pipeline, stages};
use fuselab_dialects::source::Source;

/// The chain of `n` ops on `[64, 256]`: add / mul / sub with a value of a few ops
/// before, a tanh every third op, and every seventh `v - sum(v, 1)`.
fn chain(n: usize) -> String {
    let t = "tensor<64x256xf32>";
    let mut text = format!("func.func @g(%x: {t}, %y: {t}) -> {t} {{\n");
    let (mut cur, mut other) = ("%x".to_string(), "%y".to_string());
    let ops = ["aten.add", "aten.mul", "aten.sub"];
    for i in 0..n {
        if i % 7 == 6 {
            text += &format!(
                "  %r{i} = \"aten.sum\"({cur}) {{dims = array<i64: 1>, keepdim = true}} : ({t}) -> tensor<64x1xf32>\n"
            );
            text += &format!("  %v{i} = \"aten.sub\"({cur}, %r{i}) : ({t}, tensor<64x1xf32>) -> {t}\n");
        } else if i % 3 == 2 {
            text += &format!("  %v{i} = \"aten.tanh\"({cur}) : ({t}) -> {t}\n");
        } else {
            text += &format!(
                "  %v{i} = \"{}\"({cur}, {other}) : ({t}, {t}) -> {t}\n",
                ops[i % 3]
            );
        }
        if i % 5 == 0 {
            other = cur.clone();
        }
        cur = format!("%v{i}");
    }
    text + &format!("  return {cur} : {t}\n}}\n")
}

/// A lowering: the target and the stages of it that run (`fuse-opt --target=T
/// --emit=STOP`, optional stages in `skip` left out).
type Lowering = (&'static str, &'static str, &'static [&'static str]);

/// Lines of `fuse-opt --inductor-fuse --target=T --emit=STOP` on the chain of `n` ops.
fn lines(n: usize, (target, stop, skip): Lowering) -> usize {
    let target = fuselab_targets::target(target).expect("a target").target;
    let request = stages::StageRequest {
        stop: Some(stop),
        options: Vec::new(),
        skip: skip.to_vec(),
        ..Default::default()
    };
    let plan = stages::plan(target, &request).expect("a stage plan");
    let info = crate::passes::lookup("inductor-fuse").expect("a registered pass");
    let mut steps = vec![crate::driver::fuselab_step(info, "").expect("options")];
    steps.extend(
        parse_pipeline(&format!("builtin.module({})", plan.pipeline())).expect("the stages' pipeline"),
    );
    let options = Options {
        steps,
        ..Options::default()
    };
    let result = process_chunk(Source::Text(&chain(n)), "chain.mlir", &options).expect("runs");
    let output = result
        .output
        .unwrap_or_else(|| panic!("{:?}", result.diagnostics));
    output.iter().filter(|&&b| b == b'\n').count()
}

/// Asserts that `lowering`'s code of the chain grows linearly from 140 to 280 ops (at
/// most 2.2x) and stays within `per_op` lines a chain op.
fn assert_linear(lowering: Lowering, per_op: usize) {
    let (small, large) = (lines(140, lowering), lines(280, lowering));
    assert!(
        large * 10 <= small * 22,
        "{lowering:?}: 280 ops: {large} lines, 140 ops: {small}: not linear"
    );
    assert!(
        large <= 280 * per_op,
        "{lowering:?}: 280 ops: {large} lines (bound: {per_op} a chain op)"
    );
}

#[test]
fn cpu_code_of_a_chain_with_many_reductions_grows_linearly() {
    // Measured: 17,874 and 34,771 lines (124 a chain op; TVM's decisions 10,404 at 280
    // ops); recomputing every member in every loop gave 76,515 and 309,390.
    assert_linear(("cpu", "codegen", &[]), 130);
}

#[test]
fn gpu_code_of_a_chain_with_many_reductions_grows_linearly() {
    // Each reduction of a tile kernel is a pass of its own over the row; the members
    // they recompute are built once per program (one chunk covers the row here).
    // Measured: 6,587 and 13,205 lines; rebuilding them in every pass gave 26,787 and
    // 99,949.
    assert_linear(("gpu", "gpu", &["variants"]), 60);
}
