//! A target's stages ([`fuselab_passes::target::Stage`]) run from a named one up to a
//! named one, the same way by every driver: `fuse-opt --target=T --emit=STAGE`,
//! `fuse-gpu --emit` and its bundles (which append the pass stages to the strategy's
//! pipeline, [`StagePlan::pipeline`]) and the runners here ([`run`]: the CPU JIT, the
//! Spyre and Ascend simulators). A code-writing stage (PTX, Ascend C) ends the run and
//! its text is the result.

use fuselab_dialects::{build::OwnedModule, ir, DiagnosticSink, Severity};
use fuselab_exec::ExecError;
use fuselab_passes::{
    parse_declared,
    pipeline::{build_pass_manager, parse_pipeline},
    target::{EmitError, Emitter, Stage, StageWork, Target},
    DriverSettings, PassOptions, TargetRef,
};
use melior::ir::operation::OperationLike as _;
use mlir_sys::MlirOperation;
use std::rc::Rc;

/// Which of a target's stages to run.
#[derive(Clone, Debug, Default)]
pub struct StageRequest<'a> {
    /// The first stage to run (`None`: the target's first), for a module whose earlier
    /// stages are done (a Spyre function that carries its layouts).
    pub start: Option<&'a str>,
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
    let first = match request.start {
        Some(name) => find(name)?,
        None => 0,
    };
    if first > last {
        return Err(format!(
            "stage '{}' of target '{}' comes after '{}', the last stage run",
            stages[first].name,
            target.name(),
            stages[last].name
        ));
    }
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
        let at = find(name)?;
        if at > last {
            return Err(format!(
                "options of stage '{name}', which comes after '{}', the last stage run",
                stages[last].name
            ));
        }
        if at < first {
            return Err(format!(
                "options of stage '{name}', which comes before '{}', the first stage run",
                stages[first].name
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
    for (at, stage) in stages.iter().enumerate().take(last + 1).skip(first) {
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

/// A new module holding a copy of `func` (in `func`'s context): what a runner compiles,
/// leaving the caller's function as it is.
pub fn copy_into_module(func: MlirOperation) -> OwnedModule {
    let module = OwnedModule::new(ir::location(func));
    ir::append(module.body(), ir::clone(func));
    module
}

/// Runs the stages of `target` that `request` asks for on `module` (a `builtin.module`
/// holding the fused `loop` functions), as a runner compiles: the pass stages through
/// one pass manager that knows every registered pass ([`crate::lookup_pass`]), then the
/// code-writing stage if it was asked for (its text). The first error the passes
/// report, located, on failure.
pub fn run(
    target: &'static dyn Target,
    module: MlirOperation,
    request: &StageRequest<'_>,
) -> Result<Option<String>, ExecError> {
    let plan = plan(target, request).map_err(ExecError::msg)?;
    // SAFETY: `module` is alive; its context outlives this call.
    let context = unsafe { melior::ContextRef::from_raw(mlir_sys::mlirOperationGetContext(module)) };
    // SAFETY: as above.
    let context = unsafe { context.to_ref() };
    let sink = DiagnosticSink::new();
    sink.capture(context);
    let steps = parse_pipeline(
        &format!("builtin.module({})", plan.pipeline()),
        crate::lookup_pass,
    )
    .map_err(ExecError::msg)?;
    let settings = Rc::new(DriverSettings {
        target: Some(TargetRef(target)),
        ..DriverSettings::default()
    });
    let manager = build_pass_manager(context, &steps, &sink, &settings).map_err(ExecError::msg)?;
    // SAFETY: both are alive; the manager runs on `module` in place.
    let ran = unsafe { mlir_sys::mlirPassManagerRunOnOp(manager.to_raw(), module) };
    let diagnostics = sink.take();
    if ran.value == 0 {
        let first = diagnostics.into_iter().find(|d| d.severity == Severity::Error);
        return Err(match first {
            Some(d) => ExecError {
                loc: d.loc,
                message: d.message,
            },
            None => ExecError::msg(format!("the stages of target '{}' failed", target.name())),
        });
    }
    plan.emit(module).map_err(|e| match e.op {
        Some(op) => ExecError::at(op, e.message),
        None => ExecError::msg(e.message),
    })
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
        crate::target("gpu").expect("gpu target").target
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
                ..Default::default()
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
        let cpu = crate::target("cpu").expect("cpu").target;
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

    /// `start` leaves out the stages before it (a Spyre function that carries its
    /// layouts starts at `ktir`); a start after the stop, or options of a stage before
    /// the start, are refused.
    #[test]
    fn a_run_can_start_at_a_later_stage() {
        let spyre = crate::target("spyre").expect("spyre").target;
        let from_ktir = plan(
            spyre,
            &StageRequest {
                start: Some("ktir"),
                ..Default::default()
            },
        )
        .expect("plan");
        assert_eq!(from_ktir.pipeline(), "spyre-lower-to-ktir");
        let middle = plan(
            spyre,
            &StageRequest {
                start: Some("work"),
                stop: Some("scratchpad"),
                ..Default::default()
            },
        )
        .expect("plan");
        assert_eq!(middle.pipeline(), "spyre-divide-work,spyre-plan-scratchpad");
        let err = |request: StageRequest<'_>| plan(spyre, &request).expect_err("an error");
        assert_eq!(
            err(StageRequest {
                start: Some("ktir"),
                stop: Some("work"),
                ..Default::default()
            }),
            "stage 'ktir' of target 'spyre' comes after 'work', the last stage run"
        );
        assert_eq!(
            err(StageRequest {
                start: Some("ktir"),
                options: vec![("layouts", "solver=beam".into())],
                ..Default::default()
            }),
            "options of stage 'layouts', which comes before 'ktir', the first stage run"
        );
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
        for entry in crate::TARGETS {
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
                        parse_pipeline(&format!("builtin.module({pipeline})"), crate::lookup_pass)
                            .unwrap_or_else(|e| panic!("{}: {e}", stage.name));
                    }
                }
            }
        }
    }
}
