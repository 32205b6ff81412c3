//! `--spyre-plan-scratchpad{solver=greedy|first-fit|best-fit|exact}`: which op results
//! live in each core's LX and where (torch-spyre's LX planner: the candidates and their
//! lifetimes, sizes and in-place pairs in [`crate::spyre::residency`], the solvers in
//! [`crate::spyre::scratchpad`]; capacity 1,625,344 B, 128-byte alignment). Records
//! `spyre.lx = array<i64: address, bytes, start, end>` on each placed op and
//! `spyre.hbm = "reason"` on every other op, and `spyre.input_lx` on the function (per
//! argument: its clone's placement, or an empty array). Needs the layouts and the core
//! splits.

use crate::spyre::{
    attrs::names,
    plan::read_splits,
    program::{BufferDef, ProgramIr},
    residency::residency,
    scratchpad::{check, solve, Solver, LX_CAPACITY},
};
use fuselab_dialects::ir;
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::MlirOperation;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "spyre-plan-scratchpad",
    summary:
        "Place op results in Spyre's per-core LX scratchpad (lifetimes, sizes, alignment, in-place pairs)",
    anchor: "func.func",
    options: &[
        PassOption {
            name: "solver",
            kind: OptionKind::String,
            default: "greedy",
            help: "greedy, first-fit, best-fit or exact (branch and bound, never worse than the others)",
        },
        PassOption {
            name: "clone-inputs",
            kind: OptionKind::Bool,
            default: "true",
            help: "graph inputs read by several ops may be cloned into LX at their first read",
        },
        PassOption {
            name: "capacity",
            kind: OptionKind::UInt,
            default: "1625344",
            help: "usable LX bytes per core",
        },
    ],
    run,
    id: &ID,
};

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let f = func.to_raw();
    cx.require_loop_ir(f)?;
    Solver::parse(cx.options.string("solver"))
        .map_err(|m| (f, m))
        .and_then(|solver| {
            apply(
                f,
                solver,
                cx.options.uint("capacity") as i64,
                cx.options.flag("clone-inputs"),
            )
        })
        .map_err(|(at, message)| {
            cx.sink.error(unsafe { ir::op_ref(at) }.location(), message);
            PassFailed
        })
}

/// Plans `func`'s LX with `solver` in `capacity` bytes per core (`clone_inputs`: inputs
/// read several times may be cloned into LX) and records the plan.
pub fn apply(
    f: MlirOperation,
    solver: Solver,
    capacity: i64,
    clone_inputs: bool,
) -> Result<(), (MlirOperation, String)> {
    if capacity > LX_CAPACITY {
        return Err((
            f,
            format!("capacity {capacity} exceeds the usable LX of {LX_CAPACITY} bytes"),
        ));
    }
    let pir = ProgramIr::read(f)?;
    let d = read_splits(&pir, f, INFO.argument)?;
    let p = &pir.program;
    let r = residency(p, &d, capacity, clone_inputs);
    let plan = solve(&r.problem, solver);
    check(&r.problem, &plan.addresses).map_err(|m| {
        (
            f,
            format!("the {} plan breaks an LX invariant: {m}", solver.name()),
        )
    })?;
    let ctx = ir::context(f);
    let producer = |b: usize| p.ops.iter().position(|o| o.out == b);
    let inputs = p
        .buffers
        .iter()
        .filter(|b| matches!(b.def, BufferDef::Input(_)))
        .count();
    let mut input_lx = vec![Vec::new(); inputs];
    for (i, &b) in r.buffers.iter().enumerate() {
        let e = &r.problem.buffers[i];
        let placed = plan.addresses[i].map(|a| vec![a, e.size, e.start as i64, e.end as i64]);
        match (p.buffers[b].def, producer(b), placed) {
            (BufferDef::Input(k), _, Some(v)) => input_lx[k] = v,
            (_, Some(o), Some(v)) => ir::set_attr(pir.ops[o], names::LX, ir::i64_array_attr(ctx, &v)),
            (_, Some(o), None) => ir::set_attr(
                pir.ops[o],
                names::HBM,
                ir::string_attr(ctx, &format!("no room in LX ({} bytes per core)", e.size)),
            ),
            _ => {}
        }
    }
    for (b, reason) in &r.reasons {
        if let Some(o) = producer(*b) {
            ir::set_attr(pir.ops[o], names::HBM, ir::string_attr(ctx, reason));
        }
    }
    let arrays: Vec<_> = input_lx.iter().map(|v| ir::i64_array_attr(ctx, v)).collect();
    ir::set_attr(f, names::INPUT_LX, ir::array_attr(ctx, &arrays));
    Ok(())
}
