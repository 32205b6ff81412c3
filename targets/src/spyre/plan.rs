//! The Spyre decisions recorded on a function, read back as plain data for the later
//! passes, the report and the simulator ([`Decisions`]), and the geometry they share:
//! an op's work dims ([`work_dims`]) and the box of its dims one core computes
//! ([`core_box`]).

use super::attrs::{self, names, DeviceLayout};
use super::divide_work::{MatmulDims, WorkDim};
use super::layout::stick_elements;
use super::program::{BufferDef, OpKind, Program, ProgramIr};
use fuselab_dialects::ir;
use mlir_sys::MlirOperation;

/// One buffer's LX placement (per core).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LxPlacement {
    /// Byte address in each core's LX.
    pub address: i64,
    /// Bytes per core.
    pub bytes: i64,
    /// First op step alive.
    pub start: i64,
    /// One past the last.
    pub end: i64,
}

/// What the passes decided, by op and by buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions {
    /// Each op's stick dim.
    pub stick: Vec<Option<usize>>,
    /// Each buffer's device layout.
    pub layouts: Vec<DeviceLayout>,
    /// Each op's parts per dim (empty: not divided yet).
    pub split: Vec<Vec<i64>>,
    /// Each buffer's LX placement (`None`: device memory).
    pub lx: Vec<Option<LxPlacement>>,
}

type Located = (MlirOperation, String);

fn defining(pir: &ProgramIr, b: usize) -> Option<MlirOperation> {
    ir::defining_op(pir.values[b])
}

/// Reads the layouts (`--spyre-assign-layouts`); `Err` when they are missing.
pub fn read_layouts(pir: &ProgramIr, func: MlirOperation, pass: &str) -> Result<Decisions, Located> {
    let p = &pir.program;
    let missing = |at: MlirOperation| {
        (
            at,
            format!("--{pass} needs the Spyre layouts: run --spyre-assign-layouts first"),
        )
    };
    let inputs = ir::attr(func, names::INPUT_LAYOUTS).ok_or_else(|| missing(func))?;
    let mut layouts = Vec::with_capacity(p.buffers.len());
    for (b, buffer) in p.buffers.iter().enumerate() {
        let (dict, at) = match buffer.def {
            BufferDef::Input(i) => (attrs::array_element(inputs, i), func),
            BufferDef::Constant => {
                let c = defining(pir, b).unwrap_or(func);
                (ir::attr(c, names::LAYOUT), c)
            }
            BufferDef::Op(k) => (ir::attr(pir.ops[k], names::LAYOUT), pir.ops[k]),
            BufferDef::Restickify(_) => {
                let c = defining(pir, b).unwrap_or(func);
                (ir::attr(c, "layout"), c)
            }
        };
        let layout = dict
            .and_then(|d| attrs::read_layout(d, &buffer.shape, buffer.dtype))
            .ok_or_else(|| missing(at))?;
        layouts.push(layout);
    }
    let stick = pir
        .ops
        .iter()
        .map(|&op| ir::integer(op, names::STICK).map(|j| j as usize))
        .collect();
    Ok(Decisions {
        stick,
        layouts,
        split: vec![Vec::new(); p.ops.len()],
        lx: vec![None; p.buffers.len()],
    })
}

/// Reads layouts and core splits (`--spyre-divide-work`).
pub fn read_splits(pir: &ProgramIr, func: MlirOperation, pass: &str) -> Result<Decisions, Located> {
    let mut d = read_layouts(pir, func, pass)?;
    for (o, &op) in pir.ops.iter().enumerate() {
        let split = attrs::i64s(op, names::CORE_SPLIT).ok_or_else(|| {
            (
                op,
                format!("--{pass} needs the core splits: run --spyre-divide-work first"),
            )
        })?;
        if split.len() != pir.program.ops[o].dims.len() {
            return Err((
                op,
                format!("{} has one part per dim, not {}", names::CORE_SPLIT, split.len()),
            ));
        }
        d.split[o] = split;
    }
    Ok(d)
}

/// Reads every decision (`--spyre-plan-scratchpad` too).
pub fn read_all(pir: &ProgramIr, func: MlirOperation, pass: &str) -> Result<Decisions, Located> {
    let mut d = read_splits(pir, func, pass)?;
    let mut planned = false;
    if let Some(inputs) = ir::attr(func, names::INPUT_LX) {
        planned = true;
        for (b, buffer) in pir.program.buffers.iter().enumerate() {
            let BufferDef::Input(i) = buffer.def else { continue };
            let v = attrs::array_element(inputs, i)
                .and_then(|a| {
                    fuselab_dialects::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(a) })
                })
                .unwrap_or_default();
            if let [address, bytes, start, end] = v[..] {
                d.lx[b] = Some(LxPlacement {
                    address,
                    bytes,
                    start,
                    end,
                });
            }
        }
    }
    for (o, &op) in pir.ops.iter().enumerate() {
        let out = pir.program.ops[o].out;
        if let Some(v) = attrs::i64s(op, names::LX) {
            let [address, bytes, start, end] = <[i64; 4]>::try_from(v)
                .map_err(|_| (op, format!("{} is [address, bytes, start, end]", names::LX)))?;
            d.lx[out] = Some(LxPlacement {
                address,
                bytes,
                start,
                end,
            });
            planned = true;
        }
        planned |= ir::attr(op, names::HBM).is_some();
    }
    if !planned && !pir.ops.is_empty() {
        return Err((
            func,
            format!("--{pass} needs the LX plan: run --spyre-plan-scratchpad first"),
        ));
    }
    Ok(d)
}

/// Elements per stick of op `o`'s output.
pub fn op_stick_elements(p: &Program, o: usize) -> i64 {
    stick_elements(p.buffers[p.ops[o].out].dtype)
}

/// Op `o`'s dims as work division sees them: kept dims `c<i>`, reduced `r<i>` (matmul:
/// batch `b<i>`, `m`, `n`, `k`); the stick dim (matmul: N and K) in sticks.
pub fn work_dims(p: &Program, o: usize, stick: Option<usize>) -> (Vec<WorkDim>, Option<MatmulDims>) {
    let op = &p.ops[o];
    let e = op_stick_elements(p, o);
    let sticks = |n: i64| (n + e - 1) / e;
    if op.kind == OpKind::Matmul {
        let rank = op.dims.len();
        let dims = (0..rank)
            .map(|j| match rank - j {
                3 => WorkDim::new("m", op.dims[j], false),
                2 => WorkDim::new("n", sticks(op.dims[j]), false),
                1 => WorkDim::new("k", sticks(op.dims[j]), true),
                _ => WorkDim::new(&format!("b{j}"), op.dims[j], false),
            })
            .collect();
        let mm = MatmulDims {
            b: (rank > 3).then_some(0),
            m: rank - 3,
            n: rank - 2,
            k: rank - 1,
        };
        return (dims, Some(mm));
    }
    let dims = (0..op.dims.len())
        .map(|j| {
            let size = if Some(j) == stick {
                sticks(op.dims[j])
            } else {
                op.dims[j]
            };
            if j < op.kept {
                WorkDim::new(&format!("c{j}"), size, false)
            } else {
                WorkDim::new(&format!("r{}", j - op.kept), size, true)
            }
        })
        .collect();
    (dims, None)
}

/// The half-open range of each of op `o`'s dims that core `core` computes under `split`
/// (`None`: the core is idle). Stick dims are split in whole sticks.
pub fn core_box(
    p: &Program,
    o: usize,
    stick: Option<usize>,
    split: &[i64],
    core: i64,
) -> Option<Vec<(i64, i64)>> {
    let op = &p.ops[o];
    let (dims, _) = work_dims(p, o, stick);
    let cores: i64 = split.iter().product();
    if core >= cores {
        return None;
    }
    let e = op_stick_elements(p, o);
    let mut rest = core;
    let mut parts = vec![0; split.len()];
    for d in (0..split.len()).rev() {
        parts[d] = rest % split[d];
        rest /= split[d];
    }
    let in_sticks = |j: usize| {
        if op.kind == OpKind::Matmul {
            j + 2 >= op.dims.len()
        } else {
            Some(j) == stick
        }
    };
    Some(
        (0..split.len())
            .map(|j| {
                let per = dims[j].size / split[j];
                let (lo, hi) = (parts[j] * per, (parts[j] + 1) * per);
                if in_sticks(j) {
                    ((lo * e).min(op.dims[j]), (hi * e).min(op.dims[j]))
                } else {
                    (lo, hi)
                }
            })
            .collect(),
    )
}
