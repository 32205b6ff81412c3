//! Generated-code size of Inductor-strategy kernels holding many reductions (issue 44,
//! item 4): a chain of pointwise ops with a row sum every 7 ops, its values read again
//! some ops later, fused by the Inductor strategy and lowered to CPU code. Bodies copied
//! into one reader are deduplicated (`--inline-pointwise`'s CSE) and a member that
//! several loops would recompute with more than 30 ops is stored
//! (`fuselab_passes::analysis::rows::kernel_members_bounded`): the code grows linearly
//! with the chain. Before, 100 ops lowered to 725k lines and 500 ops to 15M.

use super::{pipeline, process_chunk, Options};
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

/// Lines of `fuse-opt --inductor-fuse --lower-loop-to-cpu` on the chain of `n` ops.
fn cpu_lines(n: usize) -> usize {
    let step = |flag: &str| {
        let info = crate::passes::lookup(flag).expect("a registered pass");
        pipeline::fuselab_step(info, "").expect("options")
    };
    let options = Options {
        steps: vec![step("inductor-fuse"), step("lower-loop-to-cpu")],
        ..Options::default()
    };
    let result = process_chunk(Source::Text(&chain(n)), "chain.mlir", &options).expect("runs");
    let output = result
        .output
        .unwrap_or_else(|| panic!("{:?}", result.diagnostics));
    output.iter().filter(|&&b| b == b'\n').count()
}

#[test]
fn cpu_code_of_a_chain_with_many_reductions_grows_linearly() {
    let (small, large) = (cpu_lines(140), cpu_lines(280));
    // Measured: 17,874 and 34,771 lines (124 a chain op; TVM's decisions 10,404 at 280
    // ops); recomputing every member in every loop gave 76,515 and 309,390.
    assert!(
        large * 10 <= small * 22,
        "280 ops: {large} lines, 140 ops: {small}: not linear"
    );
    assert!(
        large <= 280 * 130,
        "280 ops: {large} lines (bound: 130 a chain op)"
    );
}
