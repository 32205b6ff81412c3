//! fuselab's core passes, grouped as in upstream MLIR projects:
//! - [`analysis`]: compute plain Rust data from the IR (and print it for tests);
//! - [`transforms`]: rewrite within a dialect (decomposition, pointwise inlining);
//! - [`conversion`]: lower `aten` to `loop`;
//! - [`fusion`]: the fusion wing (plan, strategy table, apply, report, one folder per
//!   strategy);
//! - [`target`]: the [`Target`](target::Target) interface strategies ask;
//! - [`backend`]: what Inductor's back end for a device does
//!   ([`InductorBackend`](backend::InductorBackend)), the policy a target returns.
//!
//! Device targets and their lowerings live in `fuselab-targets`, which depends on this
//! crate, never the reverse. Every pass here is listed in [`PASSES`]; `fuse-opt` adds the
//! targets' passes to the ones it offers.

pub mod analysis;
pub mod backend;
pub mod conversion;
pub mod fusion;
#[cfg(test)]
mod layering;
pub mod pipeline;
pub mod registry;
pub mod target;
pub mod transforms;

pub use registry::{
    all_passes, lookup, parse_declared, DriverSettings, OptionKind, PassContext, PassError, PassFailed,
    PassInfo, PassOption, PassOptions, ReportCollector, TargetRef,
};

/// The pass table of the core, in `--help` order.
pub static PASSES: &[PassInfo] = &[
    analysis::verify_shapes::INFO,
    transforms::fuse_attention::INFO,
    transforms::fuse_rnn_cells::INFO,
    transforms::pointless_cumsum::INFO,
    transforms::aten_decompose::INFO,
    conversion::lower_aten_to_loop::INFO,
    transforms::unroll_small_reductions::INFO,
    transforms::split_reductions::INFO,
    transforms::inline_pointwise::INFO,
    analysis::print_memory_deps::INFO,
    fusion::tvm::print_post_dominators::INFO,
    fusion::tvm::annotate::INFO,
    fusion::inductor::INFO,
    fusion::tvm::INFO,
    fusion::ascend::INFO,
    fusion::fuse::INFO,
];
