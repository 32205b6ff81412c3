//! What differs per device, as one interface: [`Target`].
//!
//! Strategies ask the target, they never hard-code a device: whether two groups of
//! nodes may share a kernel on it ([`Target::can_fuse`]; the shapes, reasons and SIMD
//! rule in `legality.rs`), how many inputs and how many on-chip bytes one kernel may have
//! ([`KernelLimits`], `limits.rs`), what memory traffic and a launch cost there
//! ([`Costs`]), and which stages lower a fused module to its code ([`Target::stages`]).
//! What PyTorch's Inductor back end does on the device (split reductions, bias and
//! layout handling, fused library calls) is a policy value of its own that the target
//! returns ([`Target::backend`], `crate::backend`). How a result is *run* needs the
//! interpreters' tensors and lives beside each implementation in `fuselab-targets`,
//! which depends on this crate
//! (never the reverse). `fuse-opt --target=NAME` chooses one; the implementations are
//! listed in `fuselab_targets::TARGETS`.
//!
//! [`Generic`] is what a pipeline gets when no target is named (the passes run as a
//! library, e.g. in unit tests): the SIMD code generators' rules and no limits.

pub use crate::backend::{InductorBackend, NoBackend};
use crate::{PassOption, PassOptions};
pub use legality::{simd_can_fuse, GroupShape, Refusal};
pub use limits::{fits_on_chip, smallest_tile_bytes, within_limits, KernelLimits};
use std::fmt;

mod legality;
mod limits;

/// Cost parameters of a target, for cost models and estimates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// Sustained memory bandwidth, bytes per second.
    pub bytes_per_second: f64,
    /// Cost of one kernel launch (or call), seconds.
    pub launch_seconds: f64,
}

impl Costs {
    /// The estimated time of moving `bytes` in `launches` kernels: the memory-bound
    /// roofline plus launch overhead.
    pub fn estimate_seconds(&self, bytes: u64, launches: u64) -> f64 {
        bytes as f64 / self.bytes_per_second + launches as f64 * self.launch_seconds
    }
}

/// One named stage of a target's lowering, as Triton's backends name theirs
/// (`make_ttir -> make_ttgir -> make_llir -> make_ptx`): the driver runs a target's
/// stages in order up to the one asked for (`fuse-opt --target=T --emit=STAGE`,
/// `fuse-gpu --emit`), the same way in every tool.
#[derive(Clone, Copy, Debug)]
pub struct Stage {
    /// The stage's name (`codegen`, `llvm`, `ptx`).
    pub name: &'static str,
    /// What it does.
    pub work: StageWork,
    /// Whether a driver may leave it out (the GPU's launch variants under
    /// `fuse-gpu --autotune false`); the others always run.
    pub optional: bool,
}

/// What a [`Stage`] does.
#[derive(Clone, Copy, Debug)]
pub enum StageWork {
    /// Runs a pipeline on the module, in `--pass-pipeline` syntax without the
    /// `builtin.module(...)`; the stage's result is IR.
    Passes(&'static str),
    /// Writes the module's code as text (PTX, Ascend C); the module is left as it is, so
    /// this is the last stage of a run.
    Emit {
        /// The writer.
        emit: Emitter,
        /// Its options, declared as a pass's (`fp-fusion=<bool>`), defaults included.
        options: &'static [PassOption],
    },
}

/// A code-writing stage: the module (after the stages before it) and the stage's
/// options (parsed against the stage's declaration) to the code's text.
pub type Emitter = fn(module: mlir_sys::MlirOperation, options: &PassOptions) -> Result<String, EmitError>;

/// Why a code-writing stage wrote nothing.
#[derive(Clone, Debug)]
pub struct EmitError {
    /// The op the error is about (its location is the diagnostic's), if one is.
    pub op: Option<mlir_sys::MlirOperation>,
    /// What.
    pub message: String,
}

impl Stage {
    /// A stage that runs `pipeline`.
    pub const fn passes(name: &'static str, pipeline: &'static str) -> Self {
        Self {
            name,
            work: StageWork::Passes(pipeline),
            optional: false,
        }
    }

    /// A stage that writes code with `emit`, taking `options`.
    pub const fn emit(name: &'static str, emit: Emitter, options: &'static [PassOption]) -> Self {
        Self {
            name,
            work: StageWork::Emit { emit, options },
            optional: false,
        }
    }

    /// This stage, which a driver may leave out.
    pub const fn optional(self) -> Self {
        Self {
            optional: true,
            ..self
        }
    }

    /// Its pipeline, for a stage that runs passes.
    pub fn pipeline(&self) -> Option<&'static str> {
        match self.work {
            StageWork::Passes(pipeline) => Some(pipeline),
            StageWork::Emit { .. } => None,
        }
    }
}

/// A device fuselab compiles for.
pub trait Target: Sync {
    /// The name `--target=` takes (`cpu`).
    fn name(&self) -> &'static str;

    /// One line for `--help`.
    fn summary(&self) -> &'static str;

    /// Whether groups of these shapes may share one kernel here (Inductor's
    /// `backend.can_fuse`). The default is [`simd_can_fuse`].
    fn can_fuse(&self, a: &GroupShape, b: &GroupShape) -> Result<(), Refusal> {
        simd_can_fuse(a, b)
    }

    /// Per-kernel limits.
    fn limits(&self) -> KernelLimits {
        KernelLimits::default()
    }

    /// Bandwidth and launch cost.
    fn costs(&self) -> Costs;

    /// The stages that lower fused `loop` IR to this target's code, in order.
    fn stages(&self) -> &'static [Stage];

    /// What Inductor's back end for this device does that the Inductor strategy's
    /// passes read (split reductions, bias handling, layout, fused library calls): a
    /// policy value of its own ([`InductorBackend`]). The default, [`NoBackend`], does
    /// none of it.
    fn backend(&self) -> &dyn InductorBackend {
        &NoBackend
    }

    /// The priority of fusing groups `a` and `b` here (higher first; `vertical`: one
    /// reads what the other writes) — the first sort key of GE AutoFuse's candidates
    /// ("backend priority"). The default states no preference: every pair 0.
    fn fusion_priority(&self, a: &GroupShape, b: &GroupShape, vertical: bool) -> i64 {
        let _ = (a, b, vertical);
        0
    }
}

impl fmt::Debug for dyn Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Target({})", self.name())
    }
}

/// The target of a pipeline that names none: [`simd_can_fuse`], no limits, and the
/// costs of the H200 in `../shared/anchors.md` (4.25 TB/s, 4 µs launches) as neutral
/// figures. It lowers nowhere.
#[derive(Clone, Copy, Debug, Default)]
pub struct Generic;

impl Target for Generic {
    fn name(&self) -> &'static str {
        "generic"
    }

    fn summary(&self) -> &'static str {
        "no device: SIMD fusion rules, no limits, no lowering"
    }

    fn costs(&self) -> Costs {
        Costs {
            bytes_per_second: 4.25e12,
            launch_seconds: 4e-6,
        }
    }

    fn stages(&self) -> &'static [Stage] {
        &[]
    }
}
