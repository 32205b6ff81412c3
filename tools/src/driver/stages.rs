//! A target's stages ([`fuselab_passes::target::Stage`]) run up to a named one, the same
//! way by every tool: `fuse-opt --target=T --emit=STAGE`, `fuse-gpu --emit` and its
//! bundles. Stages that run passes become pipeline elements after the caller's own
//! (the strategy's); a code-writing stage (PTX, Ascend C) ends the run and its text is
//! the result.

use fuselab_dialects::{ir, DiagnosticSink};
use fuselab_passes::{
    parse_declared,
    target::{EmitError, Emitter, Stage, StageWork, Target},
    PassOptions,
};
use melior::ir::operation::OperationLike as _;
use mlir_sys::MlirOperation;

/// Which of a target's stages to run.
#[derive(Clone, Debug, Default)]
pub struct StageRequest<'a> {
    /// The last stage to run (`None`: the target's last).
    pub stop: Option<&'a str>,
    /// Options of single stages, by stage name: appended to the stage's one pass as
    /// `{options}`, or parsed against a code-writing stage's declaration.
    pub options: Vec<(&'a str, String)>,
    /// Optional stages to leave out ([`Stage::optional`]).
    pub skip: Vec<&'a str>,
}

/// The stages a [`StageRequest`] asked for, ready to run.
#[derive(Debug)]
pub struct StagePlan {
    /// The pass stages' pipeline elements, in order (`lower-loop-to-tile{max-rblock=2048}`).
    pub passes: Vec<String>,
    /// The code-writing stage that ends the run, if it is one, with its options.
    pub emit: Option<(Emitter, PassOptions)>,
}

impl StagePlan {
    /// The pass stages as one pipeline (`a,b{k=v},c`; empty when there are none).
    pub fn pipeline(&self) -> String {
        self.passes.join(",")
    }

    /// The code of the code-writing stage on `module` (after the pass stages), `None`
    /// when the run ends in IR.
    pub fn emit(&self, module: MlirOperation) -> Result<Option<String>, EmitError> {
        match &self.emit {
            None => Ok(None),
            Some((emit, options)) => emit(module, options).map(Some),
        }
    }
}

/// Reports a code-writing stage's `error` to `sink`, located at its op or else at
/// `module`.
pub fn report(error: EmitError, module: MlirOperation, sink: &DiagnosticSink) {
    // SAFETY: the op is `module` or one of its ops, alive.
    let at = unsafe { ir::op_ref(error.op.unwrap_or(module)) };
    sink.error(at.location(), error.message);
}

/// The stage names of `target`, joined by `sep`.
pub fn stage_names(target: &dyn Target, sep: &str) -> String {
    target
        .stages()
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(sep)
}

/// The stages of `target` that `request` asks for.
pub fn plan(target: &dyn Target, request: &StageRequest<'_>) -> Result<StagePlan, String> {
    let stages = target.stages();
    if stages.is_empty() {
        return Err(format!("target '{}' has no stages", target.name()));
    }
    let find = |name: &str| -> Result<usize, String> {
        stages.iter().position(|s| s.name == name).ok_or_else(|| {
            format!(
                "target '{}' has no stage '{name}' (stages: {})",
                target.name(),
                stage_names(target, ", ")
            )
        })
    };
    let last = match request.stop {
        Some(name) => find(name)?,
        None => stages.len() - 1,
    };
    for &name in &request.skip {
        let at = find(name)?;
        if !stages[at].optional {
            return Err(format!(
                "stage '{name}' of target '{}' always runs",
                target.name()
            ));
        }
    }
    for (name, _) in &request.options {
        if find(name)? > last {
            return Err(format!(
                "options of stage '{name}', which comes after '{}', the last stage run",
                stages[last].name
            ));
        }
    }
    let options_of = |name: &str| {
        request
            .options
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, o)| o.as_str())
    };
    let mut plan = StagePlan {
        passes: Vec::new(),
        emit: None,
    };
    for (at, stage) in stages.iter().enumerate().take(last + 1) {
        if request.skip.contains(&stage.name) {
            continue;
        }
        match stage.work {
            StageWork::Passes(pipeline) => {
                plan.passes
                    .push(pass_element(stage, pipeline, options_of(stage.name))?)
            }
            StageWork::Emit { emit, options } if at == last => {
                let parsed = parse_declared(stage.name, options, options_of(stage.name).unwrap_or(""))
                    .map_err(|e| e.to_string())?;
                plan.emit = Some((emit, parsed));
            }
            StageWork::Emit { .. } => {
                return Err(format!(
                    "stage '{}' of target '{}' writes code and must be the last (a fuselab bug)",
                    stage.name,
                    target.name()
                ))
            }
        }
    }
    Ok(plan)
}

/// `pipeline` with `options` on its one pass.
fn pass_element(stage: &Stage, pipeline: &str, options: Option<&str>) -> Result<String, String> {
    let Some(options) = options else {
        return Ok(pipeline.to_string());
    };
    if pipeline.contains([',', '(', '{']) {
        return Err(format!(
            "stage '{}' runs several passes ({pipeline}); it takes no options",
            stage.name
        ));
    }
    Ok(format!("{pipeline}{{{options}}}"))
}

/// `STAGE` or `STAGE{options}` (`fuse-opt --emit=ptx{fp-fusion=false}`).
pub fn parse_stage_spec(spec: &str) -> Result<(&str, Option<&str>), String> {
    match spec.split_once('{') {
        None => Ok((spec, None)),
        Some((name, rest)) => rest
            .strip_suffix('}')
            .map(|options| (name, Some(options)))
            .ok_or_else(|| format!("'{spec}': stage options go in braces, as 'ptx{{fp-fusion=false}}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> &'static dyn Target {
        fuselab_targets::target("gpu").expect("gpu target").target
    }

    /// The GPU's pipeline as fuse-gpu ran it before the stages drove it (spelled
    /// here once, as the expected value).
    #[test]
    fn gpu_stages_make_the_known_pipelines() {
        let all = plan(gpu(), &StageRequest::default()).expect("plan");
        assert_eq!(
            all.pipeline(),
            "lower-loop-to-tile,tile-warp-variants,lower-tile-to-gpu"
        );
        assert!(all.emit.is_some());
        let tile = plan(
            gpu(),
            &StageRequest {
                stop: Some("gpu"),
                options: vec![("tile", "max-rblock=2048".into())],
                skip: vec!["variants"],
            },
        )
        .expect("plan");
        assert_eq!(
            tile.pipeline(),
            "lower-loop-to-tile{max-rblock=2048},lower-tile-to-gpu"
        );
        assert!(tile.emit.is_none());
    }

    #[test]
    fn bad_requests_are_refused_with_the_stage_list() {
        let err = |request: StageRequest<'_>| plan(gpu(), &request).expect_err("an error");
        assert_eq!(
            err(StageRequest {
                stop: Some("llvm"),
                ..Default::default()
            }),
            "target 'gpu' has no stage 'llvm' (stages: tile, variants, gpu, ptx)"
        );
        assert_eq!(
            err(StageRequest {
                skip: vec!["tile"],
                ..Default::default()
            }),
            "stage 'tile' of target 'gpu' always runs"
        );
        assert_eq!(
            err(StageRequest {
                stop: Some("tile"),
                options: vec![("ptx", "fp-fusion=false".into())],
                ..Default::default()
            }),
            "options of stage 'ptx', which comes after 'tile', the last stage run"
        );
        assert!(err(StageRequest {
            options: vec![("ptx", "fp-fusion=maybe".into())],
            ..Default::default()
        })
        .contains("fp-fusion"));
        let cpu = fuselab_targets::target("cpu").expect("cpu").target;
        let several = plan(
            cpu,
            &StageRequest {
                stop: Some("llvm"),
                options: vec![("llvm", "x=1".into())],
                ..Default::default()
            },
        );
        assert!(several.expect_err("an error").contains("takes no options"));
    }

    #[test]
    fn stage_specs() {
        assert_eq!(parse_stage_spec("ptx"), Ok(("ptx", None)));
        assert_eq!(
            parse_stage_spec("ptx{fp-fusion=false}"),
            Ok(("ptx", Some("fp-fusion=false")))
        );
        assert!(parse_stage_spec("ptx{fp-fusion=false").is_err());
    }

    /// Every target's stages: names unique, code-writing stages only last, every pass
    /// stage's passes registered.
    #[test]
    fn every_target_has_well_formed_stages() {
        for entry in fuselab_targets::TARGETS {
            let stages = entry.target.stages();
            assert!(!stages.is_empty(), "{} has no stages", entry.target.name());
            for (i, stage) in stages.iter().enumerate() {
                assert!(
                    stages[..i].iter().all(|s| s.name != stage.name),
                    "{}: stage {} twice",
                    entry.target.name(),
                    stage.name
                );
                match stage.work {
                    StageWork::Emit { .. } => assert_eq!(i, stages.len() - 1, "{}", stage.name),
                    StageWork::Passes(pipeline) => {
                        super::super::parse_pipeline(&format!("builtin.module({pipeline})"))
                            .unwrap_or_else(|e| panic!("{}: {e}", stage.name));
                    }
                }
            }
        }
    }
}
