//! A GPU *bundle*, the GPU target's artefact for the device runner (`tools/gpu/run.py`):
//! `kernels.ptx` and `manifest.json`. This module is the one Rust implementation of its
//! schema (`fuselab-gpu-bundle/1`, docs/gpu.md): the launch plan read from the lowered
//! module ([`plan`]), the manifest written from it ([`manifest`]), read back and checked
//! against the PTX ([`validate`]), and the portable input generator the oracle's
//! inputs come from ([`inputs`]). The runner is the one Python implementation (it runs
//! where no fuselab build is); both are tested against the same fixture
//! (`test/Tools/fuse-gpu/Inputs/portable-inputs.json`).

pub mod inputs;
pub mod manifest;
mod plan;
pub mod validate;

pub use inputs::portable_inputs;
pub use manifest::{manifest, oracle, BundleInfo, FORMAT};
pub use plan::{plans, Buffer, Plan, Role, Step};
pub use validate::{validate, validate_dir};
