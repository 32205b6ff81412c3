//! One interface for every fusion strategy: [`Strategy`]. The table of them and the
//! pipelines read from it are `super::table`, apart from this file: each strategy
//! imports the interface, the table imports each strategy.
//!
//! A strategy states the graph it expects (the options it gives
//! `--lower-aten-to-loop`), the passes that prepare that graph before it decides
//! (Inductor realizes buffers with `--inline-pointwise`; TVM fuses ops as written), its
//! own pass (whose options configure it), and the decision itself: plain data computed
//! from the MemoryDep graph and the [`Target`]. Adding a strategy = one folder under
//! `fusion/` with a `Strategy` value and its pass, plus one line in the table
//! (`super::table::STRATEGIES`; docs/architecture.md, "Adding a strategy").

use super::plan::Decision;
use crate::{
    analysis::memory_deps::SchedGraph,
    registry::{PassInfo, PassOptions},
    target::Target,
};
use mlir_sys::MlirOperation;

/// A named variant of a strategy that the execution checks also run: the same
/// strategy on a graph lowered with other options (TVM on folded views) or with other
/// options of its pass (Ascend's MindSpore mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Its name in `fuse-run --strategy`.
    pub name: &'static str,
    /// The options it gives `--lower-aten-to-loop`.
    pub lowering_options: &'static str,
    /// The options it gives the strategy's pass.
    pub pass_options: &'static str,
}

/// A fusion strategy.
pub trait Strategy: Sync {
    /// The name `--fuse=strategy=` and the tools take (`inductor`).
    fn name(&self) -> &'static str;

    /// One line for `--help`.
    fn summary(&self) -> &'static str;

    /// The strategy's own pass (`--inductor-fuse`); its options configure [`decide`].
    ///
    /// [`decide`]: Strategy::decide
    fn pass(&self) -> &'static PassInfo;

    /// The options this strategy's graph needs from `--lower-aten-to-loop`.
    fn lowering_options(&self) -> &'static str {
        ""
    }

    /// Passes on the aten graph, before decomposition, that give it the ops the real
    /// compiler receives (Inductor: `--fuse-attention`, the attention call PyTorch
    /// dispatches to a fused kernel).
    fn graph_passes(&self) -> &'static [&'static str] {
        &[]
    }

    /// Passes (arguments, default options) run on the lowered graph before deciding;
    /// they count as fusion time.
    fn prepare(&self) -> &'static [&'static str] {
        &[]
    }

    /// Variants the execution checks also run.
    fn variants(&self) -> &'static [Variant] {
        &[]
    }

    /// The decision for one function: which of `graph`'s nodes share a kernel on
    /// `target`. `options` are the strategy pass's parsed options. `rejections`: whether
    /// the rejected pairs are wanted (a report or `--fusion-explain` remarks); where
    /// false, a strategy may leave [`FusionPlan::rejections`](super::plan::FusionPlan)
    /// empty (large graphs reject millions of pairs), never decide differently.
    fn decide(
        &self,
        func: MlirOperation,
        graph: &SchedGraph,
        target: &dyn Target,
        options: &PassOptions,
        rejections: bool,
    ) -> Result<Decision, String>;
}
