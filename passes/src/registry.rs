//! fuselab's pass registry.
//!
//! LLVM 22's C API cannot register a Rust pass under a name MLIR's own pipeline
//! parser understands (there is no `mlirRegisterExternalPass`), so fuselab keeps its
//! own table: each [`PassInfo`] names the flag, its summary, the op it anchors on, its
//! options with defaults, and how to create the MLIR pass (`create_external`).
//! `fuse-opt` builds `--help`, flag parsing and `--pass-pipeline` from this table.

use crate::analysis::memory_deps;
use crate::target::{Generic, Target};
use fuselab_dialects::DiagnosticSink;
use melior::{
    ir::{operation::OperationLike, r#type::TypeId, OperationRef},
    pass::{create_external, ExternalPass, Pass, RunExternalPass},
    ContextRef,
};
use std::{collections::BTreeMap, fmt};

/// The type of a pass option's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A non-negative integer.
    UInt,
    /// `true` or `false`.
    Bool,
    /// Any text.
    String,
}

/// One declared pass option (kebab-case, with a default), as in MLIR's `Option<>`.
#[derive(Clone, Copy, Debug)]
pub struct PassOption {
    /// The option name (`max-fusion-size`).
    pub name: &'static str,
    /// The value type.
    pub kind: OptionKind,
    /// The default value, as text.
    pub default: &'static str,
    /// One line of help.
    pub help: &'static str,
}

/// Errors in pass names or options given by the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    /// No pass has this argument.
    #[error("unknown fuselab pass '{0}'")]
    UnknownPass(String),
    /// The pass has no option with this name.
    #[error("pass '{pass}' has no option '{option}' (options: {known})")]
    UnknownOption {
        /// The pass argument.
        pass: String,
        /// The option given.
        option: String,
        /// The declared options, comma-separated.
        known: String,
    },
    /// The value does not fit the option's type.
    #[error("option '{option}' of pass '{pass}' expects {expected}, got '{value}'")]
    BadValue {
        /// The pass argument.
        pass: String,
        /// The option name.
        option: String,
        /// What was expected.
        expected: &'static str,
        /// The value given.
        value: String,
    },
    /// `name` without `=value`.
    #[error("option '{0}' needs a value: write {0}=VALUE")]
    MissingValue(String),
    /// A quote opened and never closed.
    #[error("unterminated quote in the options '{0}'")]
    UnterminatedQuote(String),
}

/// Parsed, validated option values of one pass instance (defaults filled in).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassOptions {
    values: BTreeMap<&'static str, String>,
}

impl PassOptions {
    /// An integer option (validated at parse time, so always present for declared
    /// `UInt` options).
    pub fn uint(&self, name: &str) -> u64 {
        self.values.get(name).and_then(|v| v.parse().ok()).unwrap_or(0)
    }

    /// A boolean option.
    pub fn flag(&self, name: &str) -> bool {
        self.values.get(name).is_some_and(|v| v == "true")
    }

    /// A string option.
    pub fn string(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }
}

/// Driver-wide settings passes may consult (from `fuse-opt` flags).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverSettings {
    /// `--fusion-report=<file|->`: where fusion passes write their JSON report.
    pub fusion_report: Option<String>,
    /// `--fusion-explain`: emit why-not-fused remarks at op locations.
    pub fusion_explain: bool,
    /// Fusion passes also append each function's JSON report here (`--fusion-compare`).
    pub report_collector: Option<ReportCollector>,
    /// `--target=NAME`: the device strategies ask; [`Generic`] when `None`.
    pub target: Option<TargetRef>,
}

/// The target a pipeline compiles for (compared by name).
#[derive(Clone, Copy)]
pub struct TargetRef(pub &'static dyn Target);

impl fmt::Debug for TargetRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TargetRef({})", self.0.name())
    }
}

impl PartialEq for TargetRef {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name()
    }
}

impl Eq for TargetRef {}

/// A shared list that fusion passes append their JSON reports to.
#[derive(Clone, Debug, Default)]
pub struct ReportCollector(pub std::rc::Rc<std::cell::RefCell<Vec<serde_json::Value>>>);

impl ReportCollector {
    /// Appends one report.
    pub fn push(&self, report: serde_json::Value) {
        self.0.borrow_mut().push(report);
    }

    /// Takes the reports collected so far.
    pub fn take(&self) -> Vec<serde_json::Value> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}

impl PartialEq for ReportCollector {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ReportCollector {}

/// What a running pass may use besides the IR.
#[derive(Clone, Debug)]
pub struct PassContext {
    /// Where the pass reports errors, warnings and remarks.
    pub sink: DiagnosticSink,
    /// The pass's options.
    pub options: PassOptions,
    /// Driver-wide settings.
    pub settings: std::rc::Rc<DriverSettings>,
    /// The running pass's argument (`inline-pointwise`), for messages.
    pub pass: &'static str,
}

impl PassContext {
    /// The target strategies ask: `--target`'s, or [`Generic`].
    pub fn target(&self) -> &'static dyn Target {
        self.settings
            .target
            .map_or(&Generic as &'static dyn Target, |t| t.0)
    }

    /// Refuses a function that still holds `aten` ops: the running pass works on loop IR
    /// and would silently do nothing there. A located error at the first such op.
    pub fn require_loop_ir(&self, func: mlir_sys::MlirOperation) -> Result<(), PassFailed> {
        let pass = self.pass;
        let Some(block) = fuselab_dialects::ir::body(func) else {
            return Ok(());
        };
        let aten = fuselab_dialects::ir::block_ops(block)
            .into_iter()
            .find(|&op| fuselab_dialects::ir::op_name(op).starts_with("aten."));
        match aten {
            None => Ok(()),
            Some(op) => {
                self.sink.error(
                    unsafe { fuselab_dialects::ir::op_ref(op) }.location(),
                    format!(
                        "'{}' is not lowered: --{pass} works on loop IR (run --aten-decompose --lower-aten-to-loop first)",
                        fuselab_dialects::ir::op_name(op)
                    ),
                );
                Err(PassFailed)
            }
        }
    }

    /// The scheduler graph of `func` ([`memory_deps::analyze`]) for a pass that reads
    /// it: loop IR required, a failure reported at the function. Also returns the
    /// function's name.
    pub fn sched_graph(
        &self,
        func: melior::ir::OperationRef,
    ) -> Result<(memory_deps::SchedGraph, String), PassFailed> {
        use melior::ir::operation::OperationLike as _;
        self.require_loop_ir(func.to_raw())?;
        let graph = memory_deps::analyze(func.to_raw()).map_err(|message| {
            self.sink.error(func.location(), message);
            PassFailed
        })?;
        let name = fuselab_dialects::ir::attr(func.to_raw(), "sym_name")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        Ok((graph, name))
    }
}

/// A pass failed; its error diagnostics are already in the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassFailed;

/// The body of a Rust pass: inspect/rewrite `op`, report to `cx.sink`, return
/// `Err(PassFailed)` after reporting an error to make the pipeline fail.
pub type RunFn = for<'c, 'a> fn(OperationRef<'c, 'a>, &PassContext) -> Result<(), PassFailed>;

/// A distinct address per pass, used as its MLIR TypeID.
#[repr(align(8))]
pub struct PassId {
    _distinct: u8,
}

impl PassId {
    /// A new id; declare one `static` per pass.
    pub const fn new() -> Self {
        Self { _distinct: 0 }
    }
}

impl Default for PassId {
    fn default() -> Self {
        Self::new()
    }
}

/// Everything fuselab knows about one pass.
pub struct PassInfo {
    /// The flag / pipeline name (`aten-verify-shapes`).
    pub argument: &'static str,
    /// One line for `--help`.
    pub summary: &'static str,
    /// The op the pass runs on (`builtin.module` or `func.func`).
    pub anchor: &'static str,
    /// Declared options.
    pub options: &'static [PassOption],
    /// The pass body.
    pub run: RunFn,
    /// The pass's TypeID anchor.
    pub id: &'static PassId,
}

impl fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PassInfo")
            .field("argument", &self.argument)
            .finish_non_exhaustive()
    }
}

/// The `k=v` items of an option string: split at spaces and commas outside quotes.
fn option_items(text: &str) -> Result<Vec<String>, PassError> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                current.push(c);
            }
            (None, '"' | '\'') => {
                quote = Some(c);
                current.push(c);
            }
            (None, ' ' | ',') => {
                if !current.is_empty() {
                    items.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if quote.is_some() {
        return Err(PassError::UnterminatedQuote(text.to_string()));
    }
    if !current.is_empty() {
        items.push(current);
    }
    Ok(items)
}

/// `value` without one pair of enclosing quotes.
fn unquote(value: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner;
        }
    }
    value
}

/// Parses `k=v` pairs (separated by spaces or commas) against `declared` options (of
/// the pass or stage `owner`, for messages), filling in defaults. A value in double or
/// single quotes (as MLIR's textual pass options) may hold spaces, commas and `=`; the
/// quotes are dropped.
pub fn parse_declared(owner: &str, declared: &[PassOption], text: &str) -> Result<PassOptions, PassError> {
    let mut values: BTreeMap<&'static str, String> =
        declared.iter().map(|o| (o.name, o.default.to_string())).collect();
    for item in option_items(text)? {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| PassError::MissingValue(item.to_string()))?;
        let value = unquote(value);
        let option = declared
            .iter()
            .find(|o| o.name == name)
            .ok_or_else(|| PassError::UnknownOption {
                pass: owner.to_string(),
                option: name.to_string(),
                known: if declared.is_empty() {
                    "none".to_string()
                } else {
                    declared.iter().map(|o| o.name).collect::<Vec<_>>().join(", ")
                },
            })?;
        let bad = |expected| PassError::BadValue {
            pass: owner.to_string(),
            option: name.to_string(),
            expected,
            value: value.to_string(),
        };
        match option.kind {
            OptionKind::UInt if value.parse::<u64>().is_err() => return Err(bad("a non-negative integer")),
            OptionKind::Bool if value != "true" && value != "false" => return Err(bad("true or false")),
            _ => {}
        }
        values.insert(option.name, value.to_string());
    }
    Ok(PassOptions { values })
}

impl PassInfo {
    /// Parses `k=v` pairs (separated by spaces or commas) against the declared
    /// options, filling in defaults. A value in double or single quotes (as MLIR's
    /// textual pass options) may hold spaces, commas and `=`; the quotes are dropped.
    pub fn parse_options(&self, text: &str) -> Result<PassOptions, PassError> {
        parse_declared(self.argument, self.options, text)
    }

    /// Creates the MLIR pass object for one instance with these options.
    pub fn create(
        &self,
        options: PassOptions,
        sink: &DiagnosticSink,
        settings: &std::rc::Rc<DriverSettings>,
    ) -> Pass {
        let runner = RustPass {
            run: self.run,
            cx: PassContext {
                sink: sink.clone(),
                options,
                settings: settings.clone(),
                pass: self.argument,
            },
        };
        create_external(
            runner,
            TypeId::create(self.id),
            self.argument,
            self.argument,
            self.summary,
            self.anchor,
            &[],
        )
    }
}

#[derive(Clone)]
struct RustPass {
    run: RunFn,
    cx: PassContext,
}

impl<'c> RunExternalPass<'c> for RustPass {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        // A panic must not unwind into MLIR's C++ (that aborts): report it as an error.
        // The values erased by an earlier pass may have been reused by MLIR since.
        fuselab_dialects::ir::forget_erased();
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.run)(operation, &self.cx)));
        fuselab_dialects::ir::forget_erased();
        let failed = match outcome {
            Ok(result) => result.is_err(),
            Err(payload) => {
                let what = fuselab_dialects::diagnostics::panic_message(payload.as_ref());
                self.cx.sink.error(
                    operation.location(),
                    format!("internal error in a fuselab pass: {what}"),
                );
                true
            }
        };
        if failed {
            if !self.cx.sink.has_errors() {
                // A pass must never fail silently.
                self.cx.sink.error(
                    operation.location(),
                    "pass failed without a diagnostic (a fuselab bug)",
                );
            }
            pass.signal_failure();
        }
    }
}

/// Every fuselab pass, in `--help` order.
pub fn all_passes() -> &'static [PassInfo] {
    crate::PASSES
}

/// The pass registered under `argument`.
pub fn lookup(argument: &str) -> Option<&'static PassInfo> {
    all_passes().iter().find(|p| p.argument == argument)
}
