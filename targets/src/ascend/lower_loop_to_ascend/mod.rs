//! `--lower-loop-to-ascend`: fused `loop` IR to `ascend` vector kernels and a host
//! function of launches and library calls (docs/dialects/ascend.md).
//!
//! The kernels are scheduled as the GPU target's block kernels are
//! ([`crate::lower_loop_to_tile`]: one kernel per fused `loop.kernel` run of
//! members sharing rows, reductions kept per row, looped over chunks when a row is
//! wide), with Ascend's choices:
//! - fp32 inside a kernel: f16 / bf16 values are widened where loaded and rounded where
//!   stored or explicitly cast, never between ops (GE AutoFuse's fused-kernel numerics,
//!   seed article 004; option `fp32-in-kernels`);
//! - the tile: the largest of 8192, 4096, ... 1 elements per row chunk (and as many
//!   rows per tile) whose UB tiles fit the Unified Buffer — every block value of the
//!   kernel is a UB tile, placed by lifetime ([`crate::ascend::ub`]), the tiles copied
//!   from / to GM double-buffered (two slots, Ascend C's `TQue<..., 2>`); a kernel that
//!   does not fit even at one element per chunk is an error naming the bytes it needs;
//! - programs (tiles) are spread over `cores` vector cores (`block_dim`, at most the
//!   programs), core `c` taking programs `c, c + block_dim, ...`;
//! - GM offsets are int32 (a buffer of 2^31 elements or more is refused).
//!
//! Library kernels (mm, bmm, convolution) become `ascend.extern` host calls (the cube
//! unit's library, as GE leaves matmuls to its own kernels).

mod access;
pub mod convert;

use crate::ascend::{MAX_CORES, UB_ALIGNMENT, UB_BYTES};
use crate::lower_loop_to_tile::{lower_module, TileConfig, TileError};
use convert::{convert, Outcome, Params};
use fuselab_dialects::ascend::names as ascend_op;
use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{build::OwnedModule, ir};
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirLocation, MlirOperation};
use std::collections::HashMap;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "lower-loop-to-ascend",
    summary: "Lower loop IR to ascend vector kernels (UB tiles, GM<->UB copies, per-core block loops) and a host function",
    anchor: "builtin.module",
    options: &[
        PassOption {
            name: "cores",
            kind: OptionKind::UInt,
            default: "48",
            help: "vector cores a kernel's programs are spread over (910B: 48)",
        },
        PassOption {
            name: "ub-bytes",
            kind: OptionKind::UInt,
            default: "196608",
            help: "Unified Buffer bytes per core (910B: 192 KiB)",
        },
        PassOption {
            name: "double-buffer",
            kind: OptionKind::Bool,
            default: "true",
            help: "two UB slots for every tile copied in or out (false: one)",
        },
        PassOption {
            name: "fp32-in-kernels",
            kind: OptionKind::Bool,
            default: "true",
            help: "keep f16/bf16 values in f32 between a kernel's ops (false: round after every op, as eager PyTorch)",
        },
    ],
    run,
    id: &ID,
};

/// The lowering's choices (the pass options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AscendConfig {
    /// The target parameters of every kernel.
    pub params: Params,
    /// [`TileConfig::fp32_inside`].
    pub fp32_inside: bool,
}

impl Default for AscendConfig {
    fn default() -> Self {
        Self {
            params: Params {
                cores: MAX_CORES,
                ub_bytes: UB_BYTES,
                alignment: UB_ALIGNMENT,
                double_buffer: true,
            },
            fp32_inside: true,
        }
    }
}

/// The widest row chunk tried (elements).
const WIDEST: i64 = 8192;

fn tile_config(chunk: i64, fp32_inside: bool) -> TileConfig {
    TileConfig {
        max_rblock: chunk,
        block_elements: chunk,
        max_xblock: chunk,
        fp32_inside,
        hoist_loads: false,
        outer: None,
        layout_conversion: false,
        narrow_index: false,
        ..TileConfig::default()
    }
}

fn kernel_name(op: MlirOperation) -> String {
    ir::attr(op, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default()
}

/// A located failure of the lowering.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct AscendError {
    /// Where (the loop op a kernel came from, or the module).
    pub location: MlirLocation,
    /// What.
    pub message: String,
}

impl From<TileError> for AscendError {
    fn from(e: TileError) -> Self {
        Self {
            location: ir::location(e.op),
            message: e.message,
        }
    }
}

/// The `ascend` module of `module`'s `loop` functions (`module` is unchanged).
pub fn lower(module: MlirOperation, config: AscendConfig) -> Result<OwnedModule, AscendError> {
    let mut chunk = WIDEST;
    let mut first: Option<OwnedModule> = None;
    let mut chosen: HashMap<String, MlirOperation> = HashMap::new();
    let mut pending: Option<Vec<String>> = None;
    loop {
        let tiles = lower_module(module, tile_config(chunk, config.fp32_inside))?;
        let mut overflow: Vec<(String, MlirLocation, u64)> = Vec::new();
        for k in ir::ops_named(tiles.body(), tile_op::KERNEL) {
            let name = kernel_name(k);
            if pending.as_ref().is_some_and(|p| !p.contains(&name)) {
                continue;
            }
            match convert(k, &config.params)? {
                Outcome::Fits(op) => {
                    chosen.insert(name, op);
                }
                Outcome::Overflow(bytes) => overflow.push((name, ir::location(k), bytes)),
            }
        }
        if let (1, Some((name, location, bytes))) = (chunk, overflow.first()) {
            for op in chosen.into_values() {
                unsafe { mlir_sys::mlirOperationDestroy(op) };
            }
            return Err(AscendError {
                location: *location,
                message: format!(
                    "kernel @{name} needs {bytes} bytes of Unified Buffer even at one element per row chunk; the target has {}",
                    config.params.ub_bytes
                ),
            });
        }
        if first.is_none() {
            first = Some(tiles);
        }
        if overflow.is_empty() {
            break;
        }
        pending = Some(overflow.into_iter().map(|(n, _, _)| n).collect());
        chunk /= 2;
    }
    let first = first.ok_or_else(|| AscendError {
        location: ir::location(module),
        message: "no tile module was built".into(),
    })?;
    assemble(module, &first, chosen)
}

/// The final module: `tiles`' host functions with `ascend.launch` / `ascend.extern` for
/// `tile.launch` / `tile.extern`, each kernel replaced by its chosen Ascend kernel.
fn assemble(
    module: MlirOperation,
    tiles: &OwnedModule,
    mut chosen: HashMap<String, MlirOperation>,
) -> Result<OwnedModule, AscendError> {
    let out = OwnedModule::new(ir::location(module));
    for op in ir::block_ops(tiles.body()) {
        match ir::op_name(op).as_str() {
            tile_op::KERNEL => {
                let name = kernel_name(op);
                let kernel = chosen.remove(&name).ok_or_else(|| AscendError {
                    location: ir::location(op),
                    message: format!("kernel @{name} was not converted (a fuselab bug)"),
                })?;
                ir::append(out.body(), kernel);
            }
            _ => {
                let host = ir::clone(op);
                for call in ir::collect_ops(host, |n| n == tile_op::LAUNCH || n == tile_op::EXTERN) {
                    let tile_name = ir::op_name(call);
                    let name = ascend_op::from_tile(&tile_name).ok_or_else(|| AscendError {
                        location: ir::location(call),
                        message: format!("{tile_name} has no ascend op (a fuselab bug)"),
                    })?;
                    let named = ir::named_attributes(call);
                    let attributes: Vec<(&str, mlir_sys::MlirAttribute)> =
                        named.iter().map(|(k, a)| (k.as_str(), *a)).collect();
                    let region = unsafe {
                        let region = mlir_sys::mlirRegionCreate();
                        mlir_sys::mlirRegionTakeBody(region, ir::region(call, 0));
                        region
                    };
                    let new = ir::create(name, ir::location(call), &[], &[], &attributes, vec![region]);
                    ir::insert_before(call, new);
                    ir::erase(call);
                }
                ir::append(out.body(), host);
            }
        }
    }
    for op in chosen.into_values() {
        unsafe { mlir_sys::mlirOperationDestroy(op) };
    }
    Ok(out)
}

fn run(module: OperationRef<'_, '_>, cx: &PassContext) -> Result<(), PassFailed> {
    let mut config = AscendConfig::default();
    config.params.cores = cx.options.uint("cores") as i64;
    config.params.ub_bytes = cx.options.uint("ub-bytes");
    config.params.double_buffer = cx.options.flag("double-buffer");
    config.fp32_inside = cx.options.flag("fp32-in-kernels");
    if config.params.cores < 1 || config.params.ub_bytes < UB_ALIGNMENT {
        cx.sink.error(
            module.location(),
            format!("--lower-loop-to-ascend: cores must be at least 1 and ub-bytes at least {UB_ALIGNMENT}"),
        );
        return Err(PassFailed);
    }
    let raw = module.to_raw();
    for f in ir::collect_ops(raw, |n| n == "func.func") {
        cx.require_loop_ir(f)?;
    }
    let block = ir::body(raw).ok_or(PassFailed)?;
    let built = match lower(raw, config) {
        Ok(built) => built,
        Err(e) => {
            cx.sink.error(
                unsafe { melior::ir::Location::from_raw(e.location) },
                format!("cannot lower to Ascend kernels: {}", e.message),
            );
            return Err(PassFailed);
        }
    };
    if !ir::verify(built.operation()) {
        cx.sink.error(
            module.location(),
            "the generated ascend IR does not verify (a fuselab bug)",
        );
        return Err(PassFailed);
    }
    built.replace_contents_of(block);
    Ok(())
}
