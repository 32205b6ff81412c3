//! Pass pipelines of the tools: strategy rows and strategy flags as steps, parsed
//! against every registered pass (the core's and the targets'); the steps and the pass
//! manager are `fuselab_passes::pipeline`'s.

pub use fuselab_passes::pipeline::{add_steps, build_pass_manager, fuselab_step, Step};

/// Parses `builtin.module(a, b{k=v}, func.func(c))` against every registered pass.
pub fn parse_pipeline(text: &str) -> Result<Vec<Step>, String> {
    fuselab_passes::pipeline::parse_pipeline(text, crate::passes::lookup)
}

/// The steps of a strategy row's pipeline (`fusion::table::Pipeline`) as steps.
pub fn pipeline_steps(pipeline: &fuselab_passes::fusion::table::Pipeline) -> Result<Vec<Step>, String> {
    steps_of(pipeline.steps())
}

/// Pass arguments with their options (`fusion::table::Step`s) as steps.
pub fn steps_of(list: impl IntoIterator<Item = (&'static str, &'static str)>) -> Result<Vec<Step>, String> {
    list.into_iter()
        .map(|(name, options)| {
            let info = crate::passes::lookup(name)
                .ok_or_else(|| format!("pass '{name}' is not registered (a fuselab bug)"))?;
            fuselab_step(info, options)
        })
        .collect()
}

/// What a strategy flag stands for on a program still in the aten dialect: the
/// strategy's whole pipeline from the strategy table (graph passes, decomposition,
/// lowering with the strategy's options, preparation), the same that
/// `--fusion-compare`, `fuse-run` and `fuse-gpu` run. `--inductor-fuse`,
/// `--tvm-fuse-ops`, `--ascend-autofuse` keep their own options as the last step;
/// `--fuse=strategy=S` becomes row `S`'s pipeline (a strategy or a variant). A
/// strategy flag after `--lower-aten-to-loop` (the program is loop IR by then), or on
/// a program without aten ops, is left as it is. `aten_input` is asked only when a
/// strategy flag comes before any lowering; `None` when nothing is expanded.
pub fn expand_strategies(
    steps: &[Step],
    aten_input: impl FnOnce() -> bool,
) -> Result<Option<Vec<Step>>, String> {
    use fuselab_passes::fusion::table::{named_pipeline, strategy_of_pass, strategy_pipeline};
    let is_strategy_flag = |step: &Step| match step {
        Step::Fuselab { info, .. } => {
            info.argument == fuselab_passes::fusion::fuse::INFO.argument
                || strategy_of_pass(info.argument).is_some()
        }
        _ => false,
    };
    let before_lowering = steps
        .iter()
        .take_while(|s| !matches!(s, Step::Fuselab { info, .. } if info.argument == "lower-aten-to-loop"));
    if !before_lowering.clone().any(is_strategy_flag) || !aten_input() {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(steps.len());
    let mut lowered = false;
    for step in steps {
        let Step::Fuselab { info, options } = step else {
            out.push(step.clone());
            continue;
        };
        if info.argument == "lower-aten-to-loop" {
            lowered = true;
        }
        if lowered {
            out.push(step.clone());
            continue;
        }
        if info.argument == fuselab_passes::fusion::fuse::INFO.argument {
            // An unknown name stays: the pass reports it, located.
            match named_pipeline(options.string("strategy")) {
                Some(pipeline) => out.extend(pipeline_steps(&pipeline)?),
                None => out.push(step.clone()),
            }
            lowered = true;
        } else if let Some(strategy) = strategy_of_pass(info.argument) {
            let mut expanded = pipeline_steps(&strategy_pipeline(strategy))?;
            // The strategy's own pass, with the user's options.
            expanded.pop();
            expanded.push(step.clone());
            out.extend(expanded);
            lowered = true;
        } else {
            out.push(step.clone());
        }
    }
    Ok(Some(out))
}
