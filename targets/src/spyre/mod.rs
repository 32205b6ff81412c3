//! The Spyre target (IBM's Spyre accelerator as torch-spyre drives it): stick layouts
//! ([`layout`]), work division over its cores ([`divide_work`]) and scratchpad (LX)
//! planning ([`scratchpad`]), each as plain data.

pub mod assign;
pub mod divide_work;
pub mod ktir;
pub use fuselab_dialects::spyre::{attrs, layout};
pub mod plan;
pub mod program;
pub mod report;
pub mod residency;
pub mod scratchpad;
pub mod simulator;
pub mod transforms;

/// A seeded generator of numbers below `n` (a 64-bit LCG) for the property tests.
#[cfg(test)]
pub(crate) fn seeded(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |n| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    }
}

use crate::{CompileOptions, Executable, Runner};
use fuselab_exec::{ExecError, Tensor};
use fuselab_passes::target::{Costs, KernelLimits, Stage, Target};
use mlir_sys::MlirOperation;

/// The Spyre target and its runner (the functional [`simulator`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Spyre;

/// The table entry.
pub static SPYRE: Spyre = Spyre;

/// The stages after fusion: layouts, work division, LX plan (defaults of each pass),
/// then the KTIR form the simulator runs.
static STAGES: &[Stage] = &[
    Stage::passes("layouts", "spyre-assign-layouts"),
    Stage::passes("work", "spyre-divide-work"),
    Stage::passes("scratchpad", "spyre-plan-scratchpad"),
    Stage::passes("ktir", "spyre-lower-to-ktir"),
];

impl Target for Spyre {
    fn name(&self) -> &'static str {
        "spyre"
    }

    fn summary(&self) -> &'static str {
        "IBM Spyre (32 cores, 128-byte sticks, 1,625,344 B LX per core): layouts, work division, LX plan; runs on a functional simulator"
    }

    /// A fused kernel's smallest tile must fit one core's LX (a pointwise kernel is
    /// looped over smaller tiles instead; a reduction keeps a whole row): the on-chip
    /// rule of [`fuselab_passes::target::fits_on_chip`] with LX's size and alignment.
    fn limits(&self) -> KernelLimits {
        KernelLimits {
            max_inputs: None,
            on_chip_bytes: Some(scratchpad::LX_CAPACITY as u64),
            on_chip_alignment: scratchpad::LX_ALIGNMENT as u64,
        }
    }

    /// Project figures, not measured: the card's device memory at ~200 GB/s and ~10 µs
    /// per op launch.
    fn costs(&self) -> Costs {
        Costs {
            bytes_per_second: 200e9,
            launch_seconds: 10e-6,
        }
    }

    fn stages(&self) -> &'static [Stage] {
        STAGES
    }
}

/// A function with its Spyre decisions, run by the simulator.
struct Program {
    /// The module holding the function, owned here so that `func` stays alive.
    _module: fuselab_dialects::build::OwnedModule,
    /// The function in KTIR form, alive as long as `module`.
    func: MlirOperation,
}

impl Executable for Program {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
        simulator::simulate(self.func, inputs)
    }

    fn time(&self, _inputs: &[Tensor], _runs: usize) -> Result<Vec<f64>, ExecError> {
        Err(ExecError::msg(
            "the Spyre simulator checks numbers; it does not time (no device here)",
        ))
    }
}

impl Runner for Spyre {
    /// A copy of `func` through the target's stages with their defaults (greedy layouts,
    /// 32 cores, greedy LX plan, KTIR), from `ktir` on when it already carries the
    /// layouts and none when it is in KTIR form already.
    fn compile(
        &self,
        func: MlirOperation,
        options: CompileOptions,
    ) -> Result<Box<dyn Executable>, ExecError> {
        if options.parallel {
            return Err(ExecError::msg("--parallel means nothing to the Spyre simulator (it runs the 32 cores' work one after another)"));
        }
        let module = crate::stages::copy_into_module(func);
        if !ktir::is_ktir(func) {
            let laid_out = fuselab_dialects::ir::attr(func, attrs::names::INPUT_LAYOUTS).is_some();
            let request = crate::stages::StageRequest {
                start: laid_out.then_some("ktir"),
                ..Default::default()
            };
            crate::stages::run(&SPYRE, module.operation(), &request)?;
        }
        let func = fuselab_dialects::ir::ops_named(module.body(), "func.func")
            .first()
            .copied()
            .ok_or_else(|| ExecError::msg("the Spyre stages left no function (a fuselab bug)"))?;
        Ok(Box::new(Program {
            _module: module,
            func,
        }))
    }
}
