//! The fusion wing: the decision which operators share a kernel, as a swappable,
//! verifiable step.
//! - [`plan`]: what every strategy produces (groups, rejections, kernel names);
//! - [`strategy`]: the [`Strategy`](strategy::Strategy) interface;
//! - [`table`]: the one table of strategies every tool reads, and its pipelines;
//! - [`apply`]: a decision applied to the IR (`loop.kernel`s), shared by all strategies;
//! - [`report`]: kernels, launches, bytes and refusals, one format for all strategies;
//! - [`fuse`]: the `--fuse` pass (`strategy=` one of the table);
//! - one folder per strategy: [`inductor`] (TorchInductor's scheduler), [`tvm`] (TVM's
//!   FuseOps), [`ascend`] (CANN GE AutoFuse).

pub mod apply;
pub mod ascend;
pub mod fuse;
pub mod group_order;
pub mod inductor;
pub mod plan;
pub mod report;
pub mod strategy;
pub mod table;
#[cfg(test)]
pub(crate) mod test_graphs;
pub mod tvm;

pub use plan::{Decision, FusionPlan, Rejection};
pub use strategy::Strategy;
pub use table::{strategy, STRATEGIES};
