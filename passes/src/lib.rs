//! fuselab's passes, grouped as in upstream MLIR projects:
//! - [`analysis`]: compute plain Rust data from the IR (and print it for tests);
//! - transforms and conversions arrive with the issues that introduce them.
//!
//! Every pass is listed in [`PASSES`] and reachable from `fuse-opt` by its argument.

pub mod analysis;
pub mod conversion;
pub mod ir;
pub mod registry;
pub mod transforms;

pub use registry::{
    all_passes, lookup, DriverSettings, OptionKind, PassContext, PassError, PassFailed, PassInfo, PassOption,
    PassOptions, ReportCollector,
};

/// The pass table, in `--help` order.
pub static PASSES: &[PassInfo] = &[
    analysis::verify_shapes::INFO,
    transforms::aten_decompose::INFO,
    conversion::lower_aten_to_loop::INFO,
    transforms::inline_pointwise::INFO,
    analysis::print_memory_deps::INFO,
    analysis::print_post_dominators::INFO,
    transforms::annotate_op_pattern::INFO,
    transforms::inductor_fuse::INFO,
    transforms::tvm_fuse_ops::INFO,
    transforms::fuse::INFO,
    conversion::lower_loop_to_cpu::INFO,
];
