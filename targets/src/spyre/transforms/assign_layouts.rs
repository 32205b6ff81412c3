//! `--spyre-assign-layouts`: stick layouts for every buffer of a fused loop function
//! (torch-spyre's layout propagation: the rules and costs in [`crate::spyre::assign`]),
//! recorded as `spyre.stick` / `spyre.layout` attributes, with a `spyre.restickify` op
//! inserted before the consumers of a buffer iff its layout is not stick-compatible with
//! what they need. A function with no feasible assignment is an error at the op that
//! cannot be laid out.

use crate::spyre::{
    assign::{assign, Solver, Stick},
    attrs::{layout_attr, names},
    program::{BufferDef, ProgramIr},
};
use fuselab_dialects::{ir, loops::names as loop_names};
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirValue};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "spyre-assign-layouts",
    summary: "Assign Spyre stick layouts to every buffer and insert spyre.restickify where a consumer needs another stick",
    anchor: "func.func",
    options: &[
        PassOption {
            name: "solver",
            kind: OptionKind::String,
            default: "greedy",
            help: "greedy (op by op) or beam (the beam-width cheapest partial assignments)",
        },
        PassOption {
            name: "beam-width",
            kind: OptionKind::UInt,
            default: "0",
            help: "states kept by solver=beam (0: 64); an error with solver=greedy",
        },
    ],
    run,
    id: &ID,
};

/// The solver the options name.
fn solver(cx: &PassContext) -> Result<Solver, String> {
    let width = cx.options.uint("beam-width") as usize;
    match cx.options.string("solver") {
        "greedy" if width == 0 => Ok(Solver::Greedy),
        "greedy" => Err("beam-width is an option of solver=beam; solver=greedy keeps one state".into()),
        "beam" => Ok(Solver::Beam(if width == 0 { 64 } else { width })),
        other => Err(format!("solver must be greedy or beam, not '{other}'")),
    }
}

fn fail(cx: &PassContext, at: MlirOperation, message: impl Into<String>) -> PassFailed {
    cx.sink.error(unsafe { ir::op_ref(at) }.location(), message);
    PassFailed
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let f = func.to_raw();
    cx.require_loop_ir(f)?;
    solver(cx)
        .map_err(|m| (f, m))
        .and_then(|s| apply(f, s))
        .map_err(|(at, m)| fail(cx, at, m))
}

/// Assigns layouts to `func` with `solver` and records them (see the module
/// documentation). `Err`: the op that cannot be laid out, and why.
pub fn apply(f: MlirOperation, solver: Solver) -> Result<(), (MlirOperation, String)> {
    if ir::attr(f, names::INPUT_LAYOUTS).is_some() {
        return Err((
            f,
            "the Spyre layouts are already assigned (--spyre-assign-layouts runs once)".into(),
        ));
    }
    let pir = ProgramIr::read(f)?;
    let p = &pir.program;
    let a = assign(p, solver).map_err(|e| {
        (
            pir.ops[e.op],
            format!(
                "'{}' cannot be laid out on Spyre: {}",
                p.ops[e.op].name, e.message
            ),
        )
    })?;
    let ctx = ir::context(f);
    let layout_of = |b: usize, stick: Stick| crate::spyre::assign::layout_of(&p.buffers[b], stick);
    for (o, op) in pir.ops.iter().enumerate() {
        if let Some(j) = a.op_stick[o] {
            ir::set_attr(*op, names::STICK, ir::i64_attr(ctx, j as i64));
        }
        if let Some(l) = layout_of(p.ops[o].out, a.layouts[p.ops[o].out]) {
            ir::set_attr(*op, names::LAYOUT, layout_attr(ctx, &l));
        }
    }
    let mut inputs = Vec::new();
    for (b, buffer) in p.buffers.iter().enumerate() {
        let Some(l) = layout_of(b, a.layouts[b]) else {
            continue;
        };
        match buffer.def {
            BufferDef::Input(_) => inputs.push(layout_attr(ctx, &l)),
            BufferDef::Constant => {
                if let Some(c) = ir::defining_op(pir.values[b]) {
                    ir::set_attr(c, names::LAYOUT, layout_attr(ctx, &l));
                }
            }
            BufferDef::Op(_) | BufferDef::Restickify(_) => {}
        }
    }
    ir::set_attr(f, names::INPUT_LAYOUTS, ir::array_attr(ctx, &inputs));
    for r in &a.restickify {
        let Some(&first) = r.readers.iter().min() else {
            continue;
        };
        let Some(l) = layout_of(r.buffer, r.to) else {
            continue;
        };
        // Between kernels: before the first reader's kernel, on the value outside it;
        // inside one: before the first reader, on the member's own value.
        let (old, anchor) = match r.inside {
            None => (pir.outer[r.buffer], pir.top[first]),
            Some(_) => (pir.values[r.buffer], pir.ops[first]),
        };
        let copy = ir::create(
            names::RESTICKIFY,
            ir::location(anchor),
            &[old],
            &[ir::value_type(old)],
            &[("layout", layout_attr(ctx, &l))],
            Vec::new(),
        );
        ir::insert_before(anchor, copy);
        let new = ir::result(copy, 0);
        for &o in &r.readers {
            rewire(pir.ops[o], &[old, pir.values[r.buffer]], new);
        }
    }
    Ok(())
}

/// Makes `op` (a node's loads, or an extern's operands) read `new` where it read one of
/// `old`.
fn rewire(op: MlirOperation, old: &[MlirValue], new: MlirValue) {
    let is_old = |v: MlirValue| old.iter().any(|o| o.ptr == v.ptr);
    if ir::op_name(op) == loop_names::EXTERN {
        for (i, v) in ir::operands(op).into_iter().enumerate() {
            if is_old(v) {
                ir::set_operand(op, i, new);
            }
        }
        return;
    }
    let Some(body) = ir::first_block(ir::region(op, 0)) else {
        return;
    };
    for load in ir::ops_named(body, loop_names::LOAD) {
        if is_old(ir::operand(load, 0)) {
            ir::set_operand(load, 0, new);
        }
    }
}
