//! `fuselab-targets`: the devices fuselab compiles for. Each target is one folder with
//! its [`Target`] implementation (what the fusion strategies ask), its lowering passes
//! and its [`Runner`] (how its code is run here and checked against the aten oracle).
//!
//! This crate depends on the core (`fuselab-dialects`, `fuselab-passes`,
//! `fuselab-exec`'s tensors), never the reverse: the core knows targets only through
//! the [`Target`] trait. Adding a target = one folder here, one line in [`TARGETS`] and
//! its passes in [`PASSES`] (docs/architecture.md, "Adding a target").
//!
//! Conversions that several targets start from sit beside the target folders, as
//! upstream MLIR's `lib/Conversion` beside `lib/Dialect`: [`lower_loop_to_tile`] (fused
//! `loop` IR to Triton-like `tile` kernels) is the GPU's first stage and the Ascend
//! lowering's front end, each target supplying its [`lower_loop_to_tile::TileConfig`];
//! [`math`] holds the scalar expansions the CPU and GPU share.

pub mod ascend;
pub mod cpu;
pub mod gpu;
mod host;
pub mod lower_loop_to_tile;
pub mod math;
pub mod spyre;
pub mod stages;

use fuselab_exec::{ExecError, Tensor};
use fuselab_passes::{target::Target, PassInfo};
use mlir_sys::MlirOperation;

/// Code compiled for one function, runnable on this machine.
pub trait Executable {
    /// Runs on `inputs`; returns the function's results.
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError>;

    /// Seconds per call of `runs` calls (at least one) after a warm-up call.
    fn time(&self, inputs: &[Tensor], runs: usize) -> Result<Vec<f64>, ExecError>;
}

/// Options of a runner's compilation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// Use the machine's cores (CPU: `scf.parallel` row chunks).
    pub parallel: bool,
    /// With `parallel`, steps doing fewer element operations than this run on one
    /// thread (CPU: [`cpu::lower_loop_to_cpu::PARALLEL_WORK`] by default).
    pub parallel_min_work: i64,
    /// Let a multiply and the add using it become one fused multiply-add (CPU:
    /// [`cpu::codegen_choices::CodegenChoices::fp_fusion`]). Default true.
    pub fp_fusion: bool,
    /// The vector width the code should prefer, in bits; `None`: the back end's own
    /// choice (CPU: [`cpu::codegen_choices::CodegenChoices::vector_bits`]). Default: the
    /// host's widest ([`cpu::codegen_choices::host_vector_bits`]).
    pub vector_bits: Option<u32>,
    /// Let the back end interleave long loop bodies (CPU:
    /// [`cpu::lower_loop_to_cpu::interleave`]). Default true.
    pub interleave: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self {
            parallel: false,
            parallel_min_work: cpu::lower_loop_to_cpu::PARALLEL_WORK,
            fp_fusion: true,
            vector_bits: cpu::codegen_choices::host_vector_bits(),
            interleave: true,
        }
    }
}

/// How a target's code is run here.
pub trait Runner: Sync {
    /// Compiles the fused `loop` function `func` through the target's stages.
    fn compile(&self, func: MlirOperation, options: CompileOptions)
        -> Result<Box<dyn Executable>, ExecError>;

    /// Whether compiled code can run steps on several threads
    /// ([`CompileOptions::parallel`]). The default is no.
    fn runs_parallel_steps(&self) -> bool {
        false
    }

    /// The libraries compiled code calls (a line for reports), if any.
    fn libraries(&self) -> Option<String> {
        None
    }
}

/// One row of the target table.
#[derive(Clone, Copy)]
pub struct TargetEntry {
    /// What the strategies and the driver ask.
    pub target: &'static dyn Target,
    /// How its code runs here (`None`: only by a device runner elsewhere).
    pub runner: Option<&'static dyn Runner>,
}

impl std::fmt::Debug for TargetEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TargetEntry")
            .field("target", &self.target.name())
            .field("runner", &self.runner.is_some())
            .finish()
    }
}

/// Every target, in `--help` order; the first is the default of `--target`.
pub static TARGETS: &[TargetEntry] = &[
    TargetEntry {
        target: &cpu::CPU,
        runner: Some(&cpu::CPU),
    },
    TargetEntry {
        target: &gpu::GPU,
        runner: None,
    },
    TargetEntry {
        target: &ascend::ASCEND,
        runner: Some(&ascend::ASCEND),
    },
    TargetEntry {
        target: &spyre::SPYRE,
        runner: Some(&spyre::SPYRE),
    },
];

/// The targets' passes, added to the core's by `fuse-opt`.
pub static PASSES: &[PassInfo] = &[
    cpu::lower_loop_to_cpu::INFO,
    cpu::codegen_choices::INFO,
    lower_loop_to_tile::INFO,
    gpu::warp_variants::INFO,
    gpu::lower_tile_to_gpu::INFO,
    ascend::lower_loop_to_ascend::INFO,
    ascend::emit_ascendc::INFO,
    spyre::transforms::assign_layouts::INFO,
    spyre::transforms::divide_work::INFO,
    spyre::transforms::plan_scratchpad::INFO,
    spyre::transforms::spyre_report::INFO,
    spyre::transforms::lower_to_ktir::INFO,
];

/// Every pass, the core's ([`fuselab_passes::PASSES`]) first, then the targets'.
pub fn all_passes() -> impl Iterator<Item = &'static PassInfo> {
    fuselab_passes::PASSES.iter().chain(PASSES)
}

/// The pass registered under `argument`, the core's or a target's.
pub fn lookup_pass(argument: &str) -> Option<&'static PassInfo> {
    all_passes().find(|p| p.argument == argument)
}

/// `label` as a symbol part: ASCII letters, digits and `_`, everything else `_` (kernel
/// names of the code generators are `<function>_<label>`).
pub(crate) fn symbol_part(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static TargetEntry> {
    TARGETS.iter().find(|e| e.target.name() == name)
}

/// The target names joined by `sep`.
pub fn target_names(sep: &str) -> String {
    TARGETS
        .iter()
        .map(|e| e.target.name())
        .collect::<Vec<_>>()
        .join(sep)
}
