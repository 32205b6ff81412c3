//! Pass pipelines as data ([`Step`]s) and one MLIR pass manager built from them, for
//! every driver (the tools, the targets' runners): `--pass-pipeline` text
//! (`builtin.module(a, b{k=v}, func.func(c))`) is parsed against a pass registry given by
//! the caller (the core's [`crate::PASSES`] and the targets' passes).
//!
//! fuselab passes are created from the registry (`create_external`) and nested under
//! their anchor op; every other name is handed to MLIR's own parser with
//! `mlirOpPassManagerAddPipeline`, which *appends* to the pass manager (unlike
//! `parse_pass_pipeline`, which would replace what is already there).

use crate::{DriverSettings, PassInfo, PassOptions};
use fuselab_dialects::DiagnosticSink;
use melior::{
    pass::{OperationPassManager, PassManager},
    StringRef,
};
use std::ffi::c_void;
use std::rc::Rc;

/// Finds the fuselab pass registered under an argument (`lower-loop-to-tile`).
pub type Lookup = fn(&str) -> Option<&'static PassInfo>;

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

/// Parses `builtin.module(a, b{k=v}, func.func(c))`, fuselab pass names by `lookup`.
pub fn parse_pipeline(text: &str, lookup: Lookup) -> Result<Vec<Step>, String> {
    let mut parser = Parser { text, pos: 0, lookup };
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
    lookup: Lookup,
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
                self.step(name, options)
            }
            _ => self.step(name, ""),
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

    fn step(&self, name: &str, options: &str) -> Result<Step, String> {
        match (self.lookup)(name) {
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
