//! The one table of fusion strategies ([`STRATEGIES`]) that `fuse-opt --fuse` and
//! `--fusion-compare`, `fuse-run`, `fuse-bench` and `fuse-fuzz` all read, and the
//! pipelines made from it: a strategy's from aten input ([`strategy_pipeline`]) and
//! every row the execution checks run ([`execution_pipelines`]).

use super::strategy::Strategy;

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
