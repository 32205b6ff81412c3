//! One interface for every fusion strategy ([`Strategy`]) and the one table of them
//! ([`STRATEGIES`]) that `fuse-opt --fuse` and `--fusion-compare`, `fuse-run`,
//! `fuse-bench` and `fuse-fuzz` all read.
//!
//! A strategy states the graph it expects (the options it gives
//! `--lower-aten-to-loop`), the passes that prepare that graph before it decides
//! (Inductor realizes buffers with `--inline-pointwise`; TVM fuses ops as written), its
//! own pass (whose options configure it), and the decision itself: plain data computed
//! from the MemoryDep graph and the [`Target`]. Adding a strategy = one folder under
//! `fusion/` with a `Strategy` value and its pass, plus one line in [`STRATEGIES`]
//! (docs/architecture.md, "Adding a strategy").

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

/// Every strategy, in `--help` order.
pub static STRATEGIES: &[&dyn Strategy] = &[
    &super::inductor::INDUCTOR,
    &super::tvm::TVM,
    &super::ascend::ASCEND,
];

/// The strategy named `name`.
pub fn strategy(name: &str) -> Option<&'static dyn Strategy> {
    STRATEGIES.iter().copied().find(|s| s.name() == name)
}

/// The strategies' names joined by `sep` (for messages and help).
pub fn strategy_names(sep: &str) -> String {
    STRATEGIES.iter().map(|s| s.name()).collect::<Vec<_>>().join(sep)
}

/// One step of a pipeline: a pass argument and its options.
pub type Step = (&'static str, &'static str);

/// A pipeline the tools run, split where fusion starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// `unfused`, a strategy's name, or a variant's.
    pub name: &'static str,
    /// Decomposition and lowering (not fusion time).
    pub lowering: Vec<Step>,
    /// Preparation and the strategy's pass (fusion time); empty for `unfused`.
    pub fusion: Vec<Step>,
}

impl Pipeline {
    /// All steps, in order.
    pub fn steps(&self) -> impl Iterator<Item = Step> + '_ {
        self.lowering.iter().chain(&self.fusion).copied()
    }

    /// The pipeline in `--pass-pipeline` syntax without the `builtin.module(...)`:
    /// `aten-decompose,lower-aten-to-loop{materialize-views=true},tvm-fuse-ops`.
    pub fn text(&self) -> String {
        self.steps()
            .map(|(pass, options)| {
                if options.is_empty() {
                    pass.to_string()
                } else {
                    format!("{pass}{{{options}}}")
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

fn lowering(graph: &[&'static str], options: &'static str) -> Vec<Step> {
    graph
        .iter()
        .map(|&pass| (pass, ""))
        .chain([("aten-decompose", ""), ("lower-aten-to-loop", options)])
        .collect()
}

/// The pipeline of `strategy` from aten input: decompose, lower with its options,
/// prepare, decide and apply.
pub fn strategy_pipeline(strategy: &dyn Strategy) -> Pipeline {
    Pipeline {
        name: strategy.name(),
        lowering: lowering(strategy.graph_passes(), strategy.lowering_options()),
        fusion: strategy
            .prepare()
            .iter()
            .map(|&pass| (pass, ""))
            .chain([(strategy.pass().argument, "")])
            .collect(),
    }
}

/// Every pipeline the execution checks run: `unfused` (decompose and lower, one node
/// per primitive op), then each strategy and its variants, in table order.
pub fn execution_pipelines() -> Vec<Pipeline> {
    let mut all = vec![Pipeline {
        name: "unfused",
        lowering: lowering(&[], ""),
        fusion: Vec::new(),
    }];
    for &strategy in STRATEGIES {
        let main = strategy_pipeline(strategy);
        for variant in strategy.variants() {
            let mut fusion = main.fusion.clone();
            if let Some(last) = fusion.last_mut() {
                last.1 = variant.pass_options;
            }
            all.push(Pipeline {
                name: variant.name,
                lowering: lowering(strategy.graph_passes(), variant.lowering_options),
                fusion,
            });
        }
        all.insert(all.len() - strategy.variants().len(), main);
    }
    all
}

/// The pipeline of a row of the strategy table by name — a strategy (`inductor`) or a
/// variant (`ascend-mindspore`), as `fuse-run --strategy` names them; `None` for
/// `unfused` and unknown names.
pub fn named_pipeline(name: &str) -> Option<Pipeline> {
    execution_pipelines()
        .into_iter()
        .find(|p| p.name == name && !p.fusion.is_empty())
}

/// The names [`named_pipeline`] takes, joined by `sep`.
pub fn pipeline_names(sep: &str) -> String {
    execution_pipelines()
        .iter()
        .filter(|p| !p.fusion.is_empty())
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(sep)
}

/// The strategy whose own pass is `argument` (`inductor-fuse` gives Inductor's).
pub fn strategy_of_pass(argument: &str) -> Option<&'static dyn Strategy> {
    STRATEGIES.iter().copied().find(|s| s.pass().argument == argument)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_unique_and_pipelines_name_registered_passes() {
        let pipelines = execution_pipelines();
        let names: Vec<&str> = pipelines.iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            [
                "unfused",
                "inductor",
                "tvm",
                "tvm-folded",
                "ascend",
                "ascend-mindspore"
            ]
        );
        for pipeline in &pipelines {
            for (pass, options) in pipeline.steps() {
                let info = crate::lookup(pass).unwrap_or_else(|| panic!("{pass} is not registered"));
                info.parse_options(options)
                    .unwrap_or_else(|e| panic!("{pass}{{{options}}}: {e}"));
            }
        }
        assert_eq!(
            strategy_pipeline(strategy("inductor").expect("inductor")).text(),
            "fuse-attention,fuse-rnn-cells,pointless-cumsum,aten-decompose,lower-aten-to-loop,unroll-small-reductions,inline-pointwise,split-reductions,inductor-fuse"
        );
        assert_eq!(
            strategy_pipeline(strategy("tvm").expect("tvm")).text(),
            "aten-decompose,lower-aten-to-loop{materialize-views=true concat-kernels=false channels-last=false convolution-bias=add},tvm-fuse-ops"
        );
        assert_eq!(
            strategy_pipeline(strategy("ascend").expect("ascend")).text(),
            "aten-decompose,lower-aten-to-loop{materialize-views=true concat-kernels=false channels-last=false},ascend-autofuse"
        );
        let mindspore = pipelines
            .iter()
            .find(|p| p.name == "ascend-mindspore")
            .expect("variant");
        assert_eq!(
            mindspore.text(),
            "aten-decompose,lower-aten-to-loop{materialize-views=true concat-kernels=false channels-last=false},ascend-autofuse{mode=mindspore}"
        );
    }
}
