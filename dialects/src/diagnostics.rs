//! Diagnostics: one located, plain-data form for everything fuselab reports.
//!
//! MLIR's own diagnostics (parser, verifier, upstream passes) arrive through a context
//! handler ([`DiagnosticSink::capture`]); fuselab's Rust code pushes into the same sink
//! ([`DiagnosticSink::emit`]). The driver prints the sink in `mlir-opt`'s format
//! (`file:line:col: error: message`) or matches it against `expected-*` comments.

use melior::{
    diagnostic::{Diagnostic as MlirDiagnostic, DiagnosticSeverity},
    ir::Location,
    Context,
};
use std::{cell::RefCell, fmt, rc::Rc};

/// How serious a diagnostic is, as in MLIR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// A failure: the tool exits with status 1.
    Error,
    /// Something suspicious that does not stop compilation.
    Warning,
    /// Extra information attached to another diagnostic.
    Note,
    /// Optimization information (e.g. why two nodes were not fused).
    Remark,
}

impl Severity {
    /// The word used in printed diagnostics and in `expected-<word>` comments.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Note => "note",
            Self::Remark => "remark",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A position in a source file (1-based line and column, as MLIR prints them).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceLoc {
    /// The file name as given to the parser.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

impl SourceLoc {
    /// The first file/line/column position inside an MLIR location, looking through
    /// name, fused and call-site locations. `None` for unknown locations.
    pub fn from_location(location: Location) -> Option<Self> {
        if location.is_file_line_col_range() {
            return Some(Self {
                file: location
                    .file_line_col_range_filename()
                    .as_string_ref()
                    .as_str()
                    .ok()?
                    .to_string(),
                line: location.file_line_col_range_start_line(),
                column: location.file_line_col_range_start_column(),
            });
        }
        if location.is_name() {
            return Self::from_location(location.name_child_location());
        }
        if location.is_call_site() {
            return Self::from_location(location.call_site_callee());
        }
        if location.is_fused() {
            return (0..location.fused_num_locations())
                .find_map(|index| Self::from_location(location.fused_location(index)));
        }
        None
    }
}

/// One diagnostic with its location and attached notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error, warning, note or remark.
    pub severity: Severity,
    /// Where it points; `None` for an unknown location.
    pub loc: Option<SourceLoc>,
    /// The message, without location or severity.
    pub message: String,
    /// Notes attached to this diagnostic, printed after it.
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// A diagnostic without notes.
    pub fn new(severity: Severity, loc: Option<SourceLoc>, message: impl Into<String>) -> Self {
        Self {
            severity,
            loc,
            message: message.into(),
            notes: Vec::new(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.loc {
            Some(loc) => write!(f, "{loc}: {}: {}", self.severity, self.message)?,
            None => write!(f, "<unknown>: {}: {}", self.severity, self.message)?,
        }
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

/// Corrects columns on one line of a buffer whose text was shifted before parsing
/// (see [`crate::source`]: an implicit `module {` inserted in front of a token).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnFixup {
    /// Buffer name the fixup applies to.
    pub file: String,
    /// The shifted line.
    pub line: usize,
    /// Columns at or after this one (in the shifted text) are moved left.
    pub from_column: usize,
    /// How many columns were inserted.
    pub shift: usize,
}

#[derive(Debug, Default)]
struct SinkState {
    diagnostics: Vec<Diagnostic>,
    fixups: Vec<ColumnFixup>,
}

/// A shared, single-threaded collector of diagnostics. Cloning shares the same store.
#[derive(Clone, Debug, Default)]
pub struct DiagnosticSink {
    state: Rc<RefCell<SinkState>>,
}

impl DiagnosticSink {
    /// An empty sink.
    pub fn new() -> Self {
        Self::default()
    }

    /// Routes every diagnostic MLIR emits in `context` into this sink (they are then
    /// not printed by MLIR). Keep the context single-threaded.
    pub fn capture(&self, context: &Context) {
        let sink = self.clone();
        context.attach_diagnostic_handler(move |diagnostic| {
            sink.push(convert(&diagnostic));
            true
        });
    }

    /// Registers a column correction for a shifted line (see [`ColumnFixup`]).
    pub fn add_fixup(&self, fixup: ColumnFixup) {
        self.state.borrow_mut().fixups.push(fixup);
    }

    /// Adds a diagnostic, applying column fixups to it and its notes.
    pub fn push(&self, mut diagnostic: Diagnostic) {
        let mut state = self.state.borrow_mut();
        fix_columns(&mut diagnostic, &state.fixups);
        state.diagnostics.push(diagnostic);
    }

    /// Adds a diagnostic at an MLIR location.
    pub fn emit(&self, severity: Severity, location: Location, message: impl Into<String>) {
        self.push(Diagnostic::new(
            severity,
            SourceLoc::from_location(location),
            message,
        ));
    }

    /// Adds an error at an MLIR location.
    pub fn error(&self, location: Location, message: impl Into<String>) {
        self.emit(Severity::Error, location, message);
    }

    /// Whether any error has been collected (and not yet taken).
    pub fn has_errors(&self) -> bool {
        self.state
            .borrow()
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// Removes and returns every collected diagnostic, in emission order.
    pub fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.state.borrow_mut().diagnostics)
    }

    /// Forgets all column fixups (call between input buffers).
    pub fn clear_fixups(&self) {
        self.state.borrow_mut().fixups.clear();
    }
}

fn fix_columns(diagnostic: &mut Diagnostic, fixups: &[ColumnFixup]) {
    if let Some(loc) = &mut diagnostic.loc {
        for fixup in fixups {
            if loc.file == fixup.file && loc.line == fixup.line && loc.column >= fixup.from_column {
                loc.column -= fixup.shift;
            }
        }
    }
    for note in &mut diagnostic.notes {
        fix_columns(note, fixups);
    }
}

fn convert(diagnostic: &MlirDiagnostic) -> Diagnostic {
    let severity = match diagnostic.severity() {
        DiagnosticSeverity::Error => Severity::Error,
        DiagnosticSeverity::Warning => Severity::Warning,
        DiagnosticSeverity::Note => Severity::Note,
        DiagnosticSeverity::Remark => Severity::Remark,
    };
    let notes = (0..diagnostic.note_count())
        .filter_map(|index| diagnostic.note(index).ok())
        .map(|note| convert(&note))
        .collect();
    Diagnostic {
        severity,
        loc: SourceLoc::from_location(diagnostic.location()),
        message: diagnostic.to_string(),
        notes,
    }
}

/// Runs `check`, turning a panic into an error message: checks run inside MLIR's
/// walks, and a panic unwinding through C++ frames aborts the process (exit 134)
/// instead of reaching the tool's error handling.
pub fn without_panics(check: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).unwrap_or_else(|payload| {
        Err(format!(
            "internal error in a fuselab verifier (a fuselab bug): {}",
            panic_message(payload.as_ref())
        ))
    })
}

/// The message of a caught panic (empty when it carried no text).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    /// A panic inside a check becomes an error message (verifiers run inside MLIR's
    /// walks, where an unwinding panic aborts the process).
    #[test]
    fn panics_in_checks_become_errors() {
        assert_eq!(super::without_panics(|| Ok(())), Ok(()));
        let message = super::without_panics(|| panic!("index out of bounds")).unwrap_err();
        assert!(
            message.contains("a fuselab bug") && message.contains("index out of bounds"),
            "{message}"
        );
    }
}
