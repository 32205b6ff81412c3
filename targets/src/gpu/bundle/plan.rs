//! The launch plan of a lowered GPU module, as plain data: the host function's buffers
//! (inputs, outputs, temporaries) and its steps in order (kernel launches, library
//! kernels, copies).

use crate::gpu::lower_tile_to_gpu::KERNEL_MODULE;
use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{ir, loops::names, types::TensorType};
use mlir_sys::MlirOperation;
use std::collections::HashMap;

/// What a buffer is to the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Argument #i of the function.
    Input(usize),
    /// Result #i (written in place).
    Output(usize),
    /// An intermediate, allocated by the runner.
    Temp,
}

/// One buffer of the plan.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// What it is.
    pub role: Role,
    /// Its logical type (shape and dtype; stored flat and contiguous).
    pub ty: TensorType,
}

/// One step of the plan.
#[derive(Clone, Debug)]
pub enum Step {
    /// Launch `kernel` (a `.entry` of the PTX) on `grid` programs of `threads` threads
    /// with the buffers `args` (bare pointers, in order). `variants`: other `.entry`s
    /// computing the same on the same grid and buffers, each with its threads
    /// (`--tile-warp-variants`); the runner may launch the fastest instead.
    Launch {
        kernel: String,
        grid: i64,
        threads: i64,
        args: Vec<usize>,
        variants: Vec<(String, i64)>,
    },
    /// A library kernel writing `args.last()`: `kind` is mm, bmm, convolution or sdpa;
    /// `views` each input's strided view (`[offset, sizes..., strides...]`, empty:
    /// contiguous); `ints` its other integer-list attributes (stride, padding, dilation,
    /// groups); `scale` an attention's score scale.
    Extern {
        kind: String,
        args: Vec<usize>,
        views: Vec<Vec<i64>>,
        ints: Vec<(String, Vec<i64>)>,
        scale: Option<f64>,
    },
    /// `dst = src` (a result that is not written in place).
    Copy { src: usize, dst: usize },
}

/// The launch plan of one host function.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The function's name.
    pub function: String,
    /// Every buffer, by id.
    pub buffers: Vec<Buffer>,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// The plan of each host function of a module lowered by `--lower-tile-to-gpu`.
pub fn plans(module: MlirOperation) -> Result<Vec<Plan>, String> {
    let Some(body) = ir::body(module) else {
        return Ok(Vec::new());
    };
    ir::ops_named(body, "func.func").into_iter().map(plan).collect()
}

fn memref_type(v: mlir_sys::MlirValue) -> Option<TensorType> {
    // A flat memref<N x T>: its logical shape is not kept, only N.
    let ty = ir::value_type(v);
    unsafe {
        if !mlir_sys::mlirTypeIsAMemRef(ty) {
            return None;
        }
        let element = mlir_sys::mlirShapedTypeGetElementType(ty);
        let dtype = fuselab_dialects::types::DType::from_mlir(melior::ir::Type::from_raw(element))?;
        let n = mlir_sys::mlirShapedTypeGetDimSize(ty, 0);
        Some(TensorType {
            shape: vec![n],
            dtype,
        })
    }
}

fn plan(func: MlirOperation) -> Result<Plan, String> {
    let function = ir::attr(func, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default();
    let inputs = ir::integer(func, "fuselab.num_inputs")
        .ok_or_else(|| format!("@{function}: not a tile host function"))? as usize;
    let block = ir::body(func).ok_or_else(|| format!("@{function}: no body"))?;
    let mut ids: HashMap<usize, usize> = HashMap::new();
    let mut buffers = Vec::new();
    let shapes = ir::i64_arrays(func, "fuselab.arg_shapes");
    for (i, a) in ir::block_arguments(block).into_iter().enumerate() {
        let mut ty =
            memref_type(a).ok_or_else(|| format!("@{function}: argument #{i} is not a flat memref"))?;
        if let Some(shape) = shapes.get(i) {
            ty.shape = shape.clone();
        }
        let role = if i < inputs {
            Role::Input(i)
        } else {
            Role::Output(i - inputs)
        };
        ids.insert(a.ptr as usize, buffers.len());
        buffers.push(Buffer { role, ty });
    }
    let id_of = |ids: &HashMap<usize, usize>, v: mlir_sys::MlirValue| {
        ids.get(&(v.ptr as usize))
            .copied()
            .ok_or_else(|| format!("@{function}: an unknown buffer"))
    };
    let mut steps = Vec::new();
    for op in ir::block_ops(block) {
        match ir::op_name(op).as_str() {
            "memref.alloc" => {
                let v = ir::result(op, 0);
                let mut ty =
                    memref_type(v).ok_or_else(|| format!("@{function}: a temporary is not a flat memref"))?;
                if let Some(shape) = ir::attr(op, "fuselab.shape").and_then(|a| {
                    fuselab_dialects::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(a) })
                }) {
                    ty.shape = shape;
                }
                ids.insert(v.ptr as usize, buffers.len());
                buffers.push(Buffer { role: Role::Temp, ty });
            }
            tile_op::LAUNCH | tile_op::EXTERN => {
                let yielded = ir::body(op)
                    .and_then(|b| ir::block_ops(b).last().copied())
                    .filter(|&y| ir::op_name(y) == names::YIELD)
                    .ok_or_else(|| format!("@{function}: a launch without its buffers"))?;
                let args = ir::operands(yielded)
                    .into_iter()
                    .map(|v| id_of(&ids, v))
                    .collect::<Result<Vec<_>, _>>()?;
                if ir::op_name(op) == tile_op::LAUNCH {
                    let callee = ir::attr(op, "kernel");
                    let kernel = callee.and_then(ir::symbol_leaf).unwrap_or_default();
                    if callee.and_then(ir::symbol_root).as_deref() != Some(KERNEL_MODULE) {
                        return Err(format!(
                            "@{function}: launch of @{kernel} before --lower-tile-to-gpu"
                        ));
                    }
                    let variants = ir::attr(op, "variants")
                        .map(ir::array_elements)
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(ir::symbol_leaf)
                        .zip(ir::i64s(op, "variant_threads"))
                        .collect();
                    let grid = ir::i64s(op, "grid").first().copied().unwrap_or(1);
                    let threads = ir::integer(op, "threads").unwrap_or(128);
                    steps.push(Step::Launch {
                        kernel,
                        grid,
                        threads,
                        args,
                        variants,
                    });
                } else {
                    let kind = ir::attr(op, "kind")
                        .and_then(fuselab_dialects::attrs::string_raw)
                        .unwrap_or_default();
                    let views = fuselab_dialects::loops::operand_views(op);
                    let mut ints = Vec::new();
                    for name in [
                        "stride",
                        "padding",
                        "dilation",
                        fuselab_dialects::loops::attr::SDPA_OPERANDS,
                    ] {
                        let v = ir::i64s(op, name);
                        if !v.is_empty() {
                            ints.push((name.to_string(), v));
                        }
                    }
                    if let Some(g) = ir::integer(op, "groups") {
                        ints.push(("groups".to_string(), vec![g]));
                    }
                    let shape = ir::i64s(op, "fuselab.shape");
                    if !shape.is_empty() {
                        ints.push(("out_shape".to_string(), shape));
                    }
                    let out_view = ir::i64s(op, "fuselab.out_view");
                    if !out_view.is_empty() {
                        ints.push(("out_view".to_string(), out_view));
                    }
                    let scale = ir::float(op, "scale");
                    steps.push(Step::Extern {
                        kind,
                        args,
                        views,
                        ints,
                        scale,
                    });
                }
            }
            "memref.copy" => {
                let o = ir::operands(op);
                steps.push(Step::Copy {
                    src: id_of(&ids, o[0])?,
                    dst: id_of(&ids, o[1])?,
                });
            }
            "func.return" => {}
            other => return Err(format!("@{function}: the plan cannot hold '{other}'")),
        }
    }
    Ok(Plan {
        function,
        buffers,
        steps,
    })
}
