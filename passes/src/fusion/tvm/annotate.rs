//! `--annotate-op-pattern`: writes TVM's `OpPatternKind` of every op onto its `loop`
//! nodes as `op_pattern = "kElemWise"` (and `tvm_op = "<name of the op's result>"`, the
//! node that the loop nodes of one op share), so kinds can be inspected and tested.
//! `mode=relax` derives kinds from the loop bodies as TVM 0.27 does, `mode=relay` uses
//! Relay's per-op registry (see `analysis/op_pattern.rs`). Run it after
//! `--lower-aten-to-loop`, before `--inline-pointwise`.

use crate::{
    analysis::memory_deps::scheduler_nodes,
    fusion::tvm::op_pattern::tvm_graph_in_pass,
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption},
};
use fuselab_dialects::ir;
use melior::ir::OperationRef;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "annotate-op-pattern",
    summary: "Attach TVM's OpPatternKind (kElemWise .. kOpaque) of each op to its loop nodes as 'op_pattern'",
    anchor: "func.func",
    options: &[PassOption {
        name: "mode",
        kind: OptionKind::String,
        default: "relax",
        help: "'relax' (derived from loop bodies, TVM 0.27) or 'relay' (per-op registry)",
    }],
    run,
    id: &ID,
};

/// Attribute holding the kind.
pub const OP_PATTERN_ATTR: &str = "op_pattern";
/// Attribute naming the op (its result buffer) a loop node belongs to.
pub const TVM_OP_ATTR: &str = "tvm_op";
/// Attribute on the function: the mode the kinds were annotated in (`--tvm-fuse-ops`
/// refuses to decide in another one).
pub const MODE_ATTR: &str = "fuselab.op_pattern_mode";

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let (_, tvm, _) = tvm_graph_in_pass(func, cx)?;
    let raw = func.to_raw();
    let Some(block) = ir::body(raw) else { return Ok(()) };
    let loop_ops = scheduler_nodes(block);
    let ctx = ir::context(raw);
    ir::set_attr(raw, MODE_ATTR, ir::string_attr(ctx, cx.options.string("mode")));
    for node in &tvm.nodes {
        for &m in &node.members {
            ir::set_attr(
                loop_ops[m],
                OP_PATTERN_ATTR,
                ir::string_attr(ctx, node.kind.name()),
            );
            ir::set_attr(loop_ops[m], TVM_OP_ATTR, ir::string_attr(ctx, &node.name));
        }
    }
    Ok(())
}
