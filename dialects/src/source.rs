//! Parsing MLIR text with the real buffer name, as `mlir-opt` does.
//!
//! `mlirOperationCreateParse` names the buffer (so diagnostics say `input.mlir:3:5`), but
//! unlike `mlir-opt` it does not wrap several top-level operations into an implicit
//! `builtin.module`. [`parse_module`] therefore inserts `module {` in front of the first
//! top-level operation when the text does not start with a module (after comments and
//! attribute/type alias definitions, which must stay at top level), and registers a
//! [`ColumnFixup`] so that columns on that one line are reported unshifted.

use crate::diagnostics::{ColumnFixup, DiagnosticSink};
use melior::{
    ir::{operation::OperationLike, Module, Operation},
    Context, StringRef,
};

const WRAP_OPEN: &str = "module {";

/// The deepest bracket nesting (`{`, `(`, `[`, `<`) accepted. MLIR's parser recurses
/// per nested region, attribute and type; about 3,900 nested regions overflow the
/// main thread's stack (a crash, not an error). Real programs nest a few dozen deep.
pub const MAX_NESTING: usize = 1000;

/// The 1-based line and column where `source` first nests brackets deeper than
/// `limit`, skipping string literals, `//` comments and the `->` arrow.
pub fn too_deep(source: &str, limit: usize) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let mut chars = source.chars().peekable();
    let (mut in_string, mut in_comment, mut previous) = (false, false, ' ');
    while let Some(c) = chars.next() {
        column += 1;
        if c == '\n' {
            (line, column, in_comment) = (line + 1, 0, false);
        } else if in_comment {
        } else if in_string {
            if c == '\\' {
                chars.next();
                column += 1;
            } else if c == '"' {
                in_string = false;
            }
        } else {
            match c {
                '"' => in_string = true,
                '/' if chars.peek() == Some(&'/') => in_comment = true,
                '{' | '(' | '[' | '<' => {
                    depth += 1;
                    if depth > limit {
                        return Some((line, column));
                    }
                }
                '>' if previous == '-' => {}
                '}' | ')' | ']' | '>' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        previous = c;
    }
    None
}

/// Byte offset of the first top-level token that is not a comment or an alias
/// definition (`#name = ...`, `!name = ...`), or `None` if there is none.
fn first_operation_offset(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut i = 0;
    loop {
        // Skip whitespace and line comments.
        while i < bytes.len() {
            if bytes[i].is_ascii_whitespace() {
                i += 1;
            } else if source[i..].starts_with("//") {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            } else {
                break;
            }
        }
        if i >= bytes.len() {
            return None;
        }
        if bytes[i] == b'#' || bytes[i] == b'!' {
            // An alias definition: skip to the end of the balanced value on its line(s).
            i = skip_alias_definition(bytes, i);
            continue;
        }
        return Some(i);
    }
}

fn skip_alias_definition(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0i32;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
        } else {
            match c {
                b'"' => in_string = true,
                b'<' | b'(' | b'[' | b'{' => depth += 1,
                b'>' | b')' | b']' | b'}' => depth -= 1,
                b'\n' if depth <= 0 => return i + 1,
                _ => {}
            }
        }
        i += 1;
    }
    i
}

fn starts_with_module(rest: &str) -> bool {
    let keyword = rest.starts_with("module")
        && !rest[6..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$');
    keyword || rest.starts_with("\"builtin.module\"")
}

/// Text ready for parsing: either `source` itself or `source` with an implicit module
/// around its operations, plus the column fixup that undoes the insertion.
pub fn wrap_in_module(source: &str, buffer_name: &str) -> (String, Option<ColumnFixup>) {
    let Some(offset) = first_operation_offset(source) else {
        // Only comments: an empty module.
        return (format!("{source}\nmodule {{}}\n"), None);
    };
    if starts_with_module(&source[offset..]) {
        return (source.to_string(), None);
    }
    let line = source[..offset].matches('\n').count() + 1;
    let line_start = source[..offset].rfind('\n').map_or(0, |p| p + 1);
    let column = source[line_start..offset].chars().count() + 1;
    let mut text = String::with_capacity(source.len() + WRAP_OPEN.len() + 3);
    text.push_str(&source[..offset]);
    text.push_str(WRAP_OPEN);
    text.push_str(&source[offset..]);
    text.push_str("\n}\n");
    let fixup = ColumnFixup {
        file: buffer_name.to_string(),
        line,
        from_column: column + WRAP_OPEN.len(),
        shift: WRAP_OPEN.len(),
    };
    (text, Some(fixup))
}

/// Parses `source` (named `buffer_name` in diagnostics) into a module, verifying it.
/// Parse and verification errors go to `sink`; `None` means at least one was emitted.
pub fn parse_module<'c>(
    context: &'c Context,
    source: &str,
    buffer_name: &str,
    sink: &DiagnosticSink,
) -> Option<Module<'c>> {
    if let Some((line, column)) = too_deep(source, MAX_NESTING) {
        let location = melior::ir::Location::new(context, buffer_name, line, column);
        sink.error(
            location,
            format!("the input nests brackets more than {MAX_NESTING} deep (fuselab's limit: MLIR's parser would overflow its stack)"),
        );
        return None;
    }
    let (text, fixup) = wrap_in_module(source, buffer_name);
    if let Some(fixup) = fixup {
        sink.add_fixup(fixup);
    }
    // Cannot be anything but a module after wrapping, but never hand out a non-module.
    parse_operation(context, text.as_bytes(), buffer_name, sink, "")
}

/// MLIR's parser on `bytes` (text or bytecode), verifying: the module it holds, or
/// `None` after errors went to `sink` (a top level other than a module is one, named
/// with `what`).
fn parse_operation<'c>(
    context: &'c Context,
    bytes: &[u8],
    buffer_name: &str,
    sink: &DiagnosticSink,
    what: &str,
) -> Option<Module<'c>> {
    let source = mlir_sys::MlirStringRef {
        data: bytes.as_ptr().cast(),
        length: bytes.len(),
    };
    // SAFETY: the parser reads `bytes` (any bytes: the bytecode reader checks them)
    // during the call only.
    let raw = unsafe {
        mlir_sys::mlirOperationCreateParse(context.to_raw(), source, StringRef::new(buffer_name).to_raw())
    };
    if raw.ptr.is_null() {
        return None;
    }
    let operation = unsafe { Operation::from_raw(raw) };
    if operation.name().as_string_ref().as_str() != Ok("builtin.module") {
        sink.error(
            operation.location(),
            format!("expected a top-level 'builtin.module'{what}"),
        );
        return None;
    }
    Module::from_operation(operation)
}

/// The magic number MLIR's bytecode files start with (`ML\xefR`).
pub const BYTECODE_MAGIC: &[u8] = b"ML\xefR";

/// Whether `bytes` are MLIR bytecode (they start with [`BYTECODE_MAGIC`]).
pub fn is_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(BYTECODE_MAGIC)
}

/// Parses MLIR bytecode (as `mlir-opt --emit-bytecode` or `fuse-opt --emit-bytecode`
/// writes it) into a module, verifying it, as [`parse_module`] parses text: errors go
/// to `sink`, with the locations the bytecode carries.
pub fn parse_bytecode<'c>(
    context: &'c Context,
    bytes: &[u8],
    buffer_name: &str,
    sink: &DiagnosticSink,
) -> Option<Module<'c>> {
    parse_operation(context, bytes, buffer_name, sink, " in the bytecode")
}

/// MLIR source: text, or bytecode.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// Text (the textual IR form).
    Text(&'a str),
    /// MLIR bytecode ([`is_bytecode`]).
    Bytecode(&'a [u8]),
}

impl Source<'_> {
    /// The module, parsed and verified ([`parse_module`] / [`parse_bytecode`]).
    pub fn parse<'c>(
        self,
        context: &'c Context,
        buffer_name: &str,
        sink: &DiagnosticSink,
    ) -> Option<Module<'c>> {
        match self {
            Source::Text(text) => parse_module(context, text, buffer_name, sink),
            Source::Bytecode(bytes) => parse_bytecode(context, bytes, buffer_name, sink),
        }
    }
}

/// `operation` as MLIR bytecode (the current bytecode version of MLIR 22).
pub fn write_bytecode<'c: 'a, 'a>(operation: &impl melior::ir::operation::OperationLike<'c, 'a>) -> Vec<u8> {
    unsafe extern "C" fn append(chunk: mlir_sys::MlirStringRef, data: *mut std::ffi::c_void) {
        // SAFETY: `data` is the Vec below; the chunk is valid during the call.
        let out = unsafe { &mut *data.cast::<Vec<u8>>() };
        if chunk.length > 0 {
            out.extend_from_slice(unsafe {
                std::slice::from_raw_parts(chunk.data.cast::<u8>(), chunk.length)
            });
        }
    }
    let mut out: Vec<u8> = Vec::new();
    // SAFETY: a live operation; the callback appends to `out`, which outlives the call.
    unsafe {
        mlir_sys::mlirOperationWriteBytecode(
            operation.to_raw(),
            Some(append),
            (&mut out as *mut Vec<u8>).cast(),
        )
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_measured_outside_strings_comments_and_arrows() {
        assert_eq!(too_deep("a({[<x>]})", 4), None);
        assert_eq!(too_deep("a({[<x>]})", 3), Some((1, 5)));
        assert_eq!(too_deep("f() -> (i1) // ((((((\n\"{{{{{\" ((x))", 2), None);
        assert_eq!(too_deep("\n\n  (((", 2), Some((3, 5)));
    }

    #[test]
    fn module_text_is_left_alone() {
        let src = "// RUN: x\n#map = affine_map<(d0) -> (d0)>\nmodule {\n}\n";
        assert_eq!(wrap_in_module(src, "f").0, src);
        let generic = "\"builtin.module\"() ({}) : () -> ()";
        assert_eq!(wrap_in_module(generic, "f").0, generic);
    }

    #[test]
    fn bare_functions_are_wrapped_after_aliases() {
        let src = "// c\n#map = affine_map<(d0)\n  -> (d0)>\n  func.func @f() { return }\n";
        let (text, fixup) = wrap_in_module(src, "in.mlir");
        assert!(text.contains("-> (d0)>\n  module {func.func"), "{text}");
        let fixup = fixup.expect("a fixup");
        assert_eq!((fixup.line, fixup.from_column, fixup.shift), (4, 11, 8));
    }

    #[test]
    fn modules_named_like_module_prefix_are_not_modules() {
        assert!(!starts_with_module("module_op.foo"));
        assert!(starts_with_module("module @m {"));
        assert!(starts_with_module("module{"));
    }
}
