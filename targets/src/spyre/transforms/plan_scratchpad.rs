//! `--spyre-plan-scratchpad{solver=greedy|first-fit|best-fit|exact}`: which op results
//! live in each core's LX and where (torch-spyre's LX planner: the candidates and their
//! lifetimes, sizes and in-place pairs in [`crate::spyre::residency`], the solvers in
//! [`crate::spyre::scratchpad`]; capacity 1,625,344 B, 128-byte alignment). Records
//! `spyre.lx = array<i64: address, bytes, start, end>` on each placed op and
//! `spyre.hbm = "reason"` on every other op. Needs the layouts and the core splits.

use crate::spyre::{
    attrs::names,
    plan::read_splits,
    program::ProgramIr,
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
        .and_then(|solver| apply(f, solver, cx.options.uint("capacity") as i64))
        .map_err(|(at, message)| {
            cx.sink.error(unsafe { ir::op_ref(at) }.location(), message);
            PassFailed
        })
}

/// Plans `func`'s LX with `solver` in `capacity` bytes per core and records the plan.
pub fn apply(f: MlirOperation, solver: Solver, capacity: i64) -> Result<(), (MlirOperation, String)> {
    if capacity > LX_CAPACITY {
        return Err((
            f,
            format!("capacity {capacity} exceeds the usable LX of {LX_CAPACITY} bytes"),
        ));
    }
    let pir = ProgramIr::read(f)?;
    let d = read_splits(&pir, f, INFO.argument)?;
    let p = &pir.program;
    let r = residency(p, &d, capacity);
    let plan = solve(&r.problem, solver);
    check(&r.problem, &plan.addresses).map_err(|m| {
        (
            f,
            format!("the {} plan breaks an LX invariant: {m}", solver.name()),
        )
    })?;
    let ctx = ir::context(f);
    let producer = |b: usize| p.ops.iter().position(|o| o.out == b);
    for (i, &b) in r.buffers.iter().enumerate() {
        let Some(o) = producer(b) else { continue };
        let e = &r.problem.buffers[i];
        match plan.addresses[i] {
            Some(a) => ir::set_attr(
                pir.ops[o],
                names::LX,
                ir::i64_array_attr(ctx, &[a, e.size, e.start as i64, e.end as i64]),
            ),
            None => ir::set_attr(
                pir.ops[o],
                names::HBM,
                ir::string_attr(ctx, &format!("no room in LX ({} bytes per core)", e.size)),
            ),
        }
    }
    for (b, reason) in &r.reasons {
        if let Some(o) = producer(*b) {
            ir::set_attr(pir.ops[o], names::HBM, ir::string_attr(ctx, reason));
        }
    }
    Ok(())
}
