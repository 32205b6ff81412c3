//! `--spyre-divide-work{cores=32}`: how many parts each dim of every op is split into
//! over Spyre's cores (torch-spyre's three passes: span limit, matmul cost model,
//! generic; the rules in [`crate::spyre::divide_work`]), recorded as
//! `spyre.core_split = array<i64: parts per op dim>`. Needs the layouts (stick dims are
//! split in whole sticks). An op whose tensors cannot be split under the per-core span
//! is an error at the op.

use crate::spyre::{
    attrs::{names, DeviceLayout},
    divide_work::{divide, MatmulCost, TensorSpan},
    plan::{read_layouts, work_dims, Decisions},
    program::{Program, ProgramIr, Read},
};
use fuselab_dialects::ir;
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::MlirOperation;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "spyre-divide-work",
    summary: "Split every op's dims over Spyre's cores (span limit, matmul cost model, generic pass)",
    anchor: "func.func",
    options: &[PassOption {
        name: "cores",
        kind: OptionKind::UInt,
        default: "32",
        help: "cores to divide over (a Spyre card has 32)",
    }],
    run,
    id: &ID,
};

/// The op dim along a buffer's outermost device dim (splitting it shortens the span).
fn outer_dim(layout: &DeviceLayout, walked: Option<&Vec<Option<usize>>>) -> Option<usize> {
    let DeviceLayout::Dense(l) = layout else {
        return None;
    };
    // device_size = [middle dims.., stick blocks, d0, E]: the first middle dim, else the
    // stick dim's blocks.
    let host = if l.dim_order.len() >= 3 {
        l.dim_order[1]
    } else {
        l.stick_dim
    };
    walked?.iter().position(|&d| d == Some(host))
}

/// The tensors of op `o` for the span pass.
pub fn spans(p: &Program, d: &Decisions, o: usize) -> Vec<TensorSpan> {
    let op = &p.ops[o];
    let span = |b: usize, walked: Option<&Vec<Option<usize>>>| TensorSpan {
        bytes: d.layouts[b].device_bytes(),
        outer_dim: outer_dim(&d.layouts[b], walked),
    };
    let out_walk: Vec<Option<usize>> = (0..op.dims.len())
        .map(|j| op.out_dims.get(j).copied().flatten())
        .collect();
    op.reads
        .iter()
        .map(|r: &Read| span(r.buffer, r.dims.as_ref()))
        .chain(std::iter::once(span(op.out, Some(&out_walk))))
        .collect()
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let f = func.to_raw();
    cx.require_loop_ir(f)?;
    apply(f, cx.options.uint("cores") as i64).map_err(|(at, message)| {
        cx.sink.error(unsafe { ir::op_ref(at) }.location(), message);
        PassFailed
    })
}

/// Divides every op of `func` over `cores` and records the splits. `Err`: the op that
/// cannot be divided, and why.
pub fn apply(f: MlirOperation, cores: i64) -> Result<(), (MlirOperation, String)> {
    if cores < 1 {
        return Err((f, "cores must be at least 1".into()));
    }
    let pir = ProgramIr::read(f)?;
    let d = read_layouts(&pir, f, INFO.argument)?;
    let p = &pir.program;
    let cost = MatmulCost::default();
    let ctx = ir::context(f);
    for o in 0..p.ops.len() {
        let (dims, mm) = work_dims(p, o, d.stick[o]);
        let split = divide(&dims, &spans(p, &d, o), mm, cores, &cost).map_err(|m| {
            (
                pir.ops[o],
                format!("'{}' cannot be divided over {cores} cores: {m}", p.ops[o].name),
            )
        })?;
        ir::set_attr(pir.ops[o], names::CORE_SPLIT, ir::i64_array_attr(ctx, &split));
    }
    Ok(())
}
