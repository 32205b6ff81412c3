//! Pass pipelines: fuselab flags and `--pass-pipeline='builtin.module(...)'` text,
//! turned into one MLIR pass manager.
//!
//! fuselab passes are created from the Rust registry (`create_external`) and nested
//! under their anchor op; every other name is handed to MLIR's own parser with
//! `mlirOpPassManagerAddPipeline`, which *appends* to the pass manager (unlike
//! `parse_pass_pipeline`, which would replace what is already there).

use fuselab_dialects::DiagnosticSink;
use fuselab_passes::{DriverSettings, PassInfo, PassOptions};
use melior::{
    pass::{OperationPassManager, PassManager},
    StringRef,
};
use std::ffi::c_void;
use std::rc::Rc;

/// One element of a pipeline.
#[derive(Debug, Clone)]
pub enum Step {
    /// A fuselab pass with validated options.
    Fuselab {
        /// The registry entry.
        info: &'static PassInfo,
        /// Its options.
        options: PassOptions,
    },
    /// An upstream pass or pipeline element, as text (`canonicalize{max-iterations=3}`).
    Upstream(String),
    /// `op-name(steps)`: steps nested on ops of that name.
    Nest {
        /// The op name (`func.func`).
        op: String,
        /// The nested steps.
        steps: Vec<Step>,
    },
}

/// Builds a step for the fuselab flag `--argument[=options]`.
pub fn fuselab_step(info: &'static PassInfo, options: &str) -> Result<Step, String> {
    let options = info.parse_options(options).map_err(|e| e.to_string())?;
    Ok(Step::Fuselab { info, options })
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

/// Parses `builtin.module(a, b{k=v}, func.func(c))`.
pub fn parse_pipeline(text: &str) -> Result<Vec<Step>, String> {
    let mut parser = Parser { text, pos: 0 };
    let steps = parser.elements()?;
    parser.skip_ws();
    if parser.pos != text.len() {
        return Err(format!(
            "unexpected '{}' at offset {} in pass pipeline",
            &text[parser.pos..],
            parser.pos
        ));
    }
    match steps.as_slice() {
        [Step::Nest { op, steps }] if op == "builtin.module" => Ok(steps.clone()),
        _ => Err(format!(
            "pass pipeline must be anchored on the top-level module: write 'builtin.module({text})'"
        )),
    }
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
}

impl<'t> Parser<'t> {
    fn skip_ws(&mut self) {
        while self.text[self.pos..].starts_with(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn elements(&mut self) -> Result<Vec<Step>, String> {
        let mut steps = Vec::new();
        loop {
            self.skip_ws();
            if matches!(self.peek(), None | Some(')')) {
                return Ok(steps);
            }
            steps.push(self.element()?);
            self.skip_ws();
            if self.peek() == Some(',') {
                self.pos += 1;
            }
        }
    }

    fn element(&mut self) -> Result<Step, String> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        let name = &self.text[start..self.pos];
        if name.is_empty() {
            return Err(format!(
                "expected a pass name at offset {start} in pass pipeline '{}'",
                self.text
            ));
        }
        self.skip_ws();
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let steps = self.elements()?;
                if self.peek() != Some(')') {
                    return Err(format!("missing ')' after '{name}(' in pass pipeline"));
                }
                self.pos += 1;
                Ok(Step::Nest {
                    op: name.to_string(),
                    steps,
                })
            }
            Some('{') => {
                let options = self.braced()?;
                Self::step(name, options)
            }
            _ => Self::step(name, ""),
        }
    }

    /// The text inside balanced `{...}`, consuming the braces.
    fn braced(&mut self) -> Result<&'t str, String> {
        let open = self.pos;
        let mut depth = 0;
        for (i, c) in self.text[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = open + i + 1;
                        return Ok(&self.text[open + 1..open + i]);
                    }
                }
                _ => {}
            }
        }
        Err("unbalanced '{' in pass pipeline".to_string())
    }

    fn step(name: &str, options: &str) -> Result<Step, String> {
        match crate::passes::lookup(name) {
            Some(info) => fuselab_step(info, options),
            None if options.is_empty() => Ok(Step::Upstream(name.to_string())),
            None => Ok(Step::Upstream(format!("{name}{{{options}}}"))),
        }
    }
}

unsafe extern "C" fn append_error(message: mlir_sys::MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the `String` passed by `add_upstream`, alive for the call.
    let out = unsafe { &mut *(data as *mut String) };
    // SAFETY: MLIR lends `message` for the call.
    out.push_str(&unsafe { fuselab_dialects::ir::owned_string(message) });
}

fn add_upstream(manager: OperationPassManager, text: &str) -> Result<(), String> {
    let mut error = String::new();
    let result = unsafe {
        mlir_sys::mlirOpPassManagerAddPipeline(
            manager.to_raw(),
            StringRef::new(text).to_raw(),
            Some(append_error),
            &mut error as *mut String as *mut c_void,
        )
    };
    if result.value == 0 {
        let error = error.trim();
        Err(if error.is_empty() {
            format!("invalid pass pipeline element '{text}'")
        } else {
            error.to_string()
        })
    } else {
        Ok(())
    }
}

/// Appends `steps` to `manager` (anchored on `anchor`), creating fuselab passes that
/// report to `sink`.
pub fn add_steps(
    manager: OperationPassManager,
    anchor: &str,
    steps: &[Step],
    sink: &DiagnosticSink,
    settings: &Rc<DriverSettings>,
) -> Result<(), String> {
    for step in steps {
        match step {
            Step::Fuselab { info, options } => {
                let pass = info.create(options.clone(), sink, settings);
                if info.anchor == anchor {
                    manager.add_pass(pass);
                } else if anchor == "builtin.module" {
                    manager.nested_under(info.anchor).add_pass(pass);
                } else {
                    return Err(format!(
                        "pass '{}' runs on '{}' and cannot be nested under '{anchor}'",
                        info.argument, info.anchor
                    ));
                }
            }
            Step::Upstream(text) => add_upstream(manager, text)?,
            Step::Nest { op, steps } => add_steps(manager.nested_under(op), op, steps, sink, settings)?,
        }
    }
    Ok(())
}

/// A pass manager on `builtin.module` holding `steps`.
pub fn build_pass_manager<'c>(
    context: &'c melior::Context,
    steps: &[Step],
    sink: &DiagnosticSink,
    settings: &Rc<DriverSettings>,
) -> Result<PassManager<'c>, String> {
    melior::utility::register_all_passes();
    let manager = PassManager::new(context);
    manager.enable_verifier(true);
    add_steps(
        manager.as_operation_pass_manager(),
        "builtin.module",
        steps,
        sink,
        settings,
    )?;
    Ok(manager)
}
