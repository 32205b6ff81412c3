//! `--verify-diagnostics`: match `// expected-<severity>[-re][@<where>] {{text}}`
//! comments against the diagnostics actually emitted, as `mlir-opt` does.
//!
//! `<where>` is omitted (this line), `+N` / `-N` (relative), `above` / `below` (the
//! nearest line in that direction that is not itself only an expectation comment),
//! or an absolute line number. Plain expectations match when the message *contains*
//! the text; `-re` expectations are literal text with `{{regex}}` parts. Every
//! expectation must be met and every diagnostic must be expected.

use fuselab_dialects::{Diagnostic, Severity};
use regex::Regex;
use std::sync::OnceLock;

/// One `expected-*` comment.
#[derive(Debug)]
pub struct Expectation {
    severity: Severity,
    /// The line the diagnostic must be on.
    line: usize,
    /// The line of the comment itself.
    comment_line: usize,
    text: String,
    pattern: Option<Regex>,
    met: bool,
}

fn directive() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // As MLIR's `-verify-diagnostics`: spaces may separate the kind, the `@` offset
        // and the text.
        Regex::new(
            r"expected-(error|warning|note|remark)(-re)?(?:\s*@([+-]?\d+|above|below))?\s*\{\{(.*)\}\}\s*$",
        )
        .expect("valid regex")
    })
}

/// Any mention of an expectation keyword: a line with one that [`directive`] does not
/// match is malformed (an unclosed `{{`, a missing text), never silently skipped.
fn keyword() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"expected-(error|warning|note|remark)\b").expect("valid regex"))
}

fn severity_of(word: &str) -> Severity {
    match word {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        "note" => Severity::Note,
        _ => Severity::Remark,
    }
}

/// Turns `literal {{re}} literal` into one regex.
fn expectation_regex(text: &str) -> Result<Regex, String> {
    let mut pattern = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        pattern.push_str(&regex::escape(&rest[..start]));
        let end = rest[start + 2..]
            .find("}}")
            .ok_or_else(|| format!("unterminated '{{{{' in '{text}'"))?;
        pattern.push_str(&format!("(?:{})", &rest[start + 2..start + 2 + end]));
        rest = &rest[start + 2 + end + 2..];
    }
    pattern.push_str(&regex::escape(rest));
    Regex::new(&pattern).map_err(|e| format!("invalid regex in expectation '{text}': {e}"))
}

fn is_expectation_only(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("//") && directive().is_match(trimmed)
}

/// Reads every expectation in `source` (line numbers are 1-based, absolute).
pub fn parse_expectations(source: &str) -> Result<Vec<Expectation>, String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let comment_line = index + 1;
        let Some(caps) = directive().captures(line) else {
            if keyword().is_match(line) {
                return Err(format!(
                    "line {comment_line}: malformed expectation (write `expected-error {{{{text}}}}`, \
                     optionally with -re and @+N/@-N/@above/@below/@LINE): {}",
                    line.trim()
                ));
            }
            continue;
        };
        let target = match caps.get(3).map(|m| m.as_str()) {
            None => comment_line,
            Some("above") => (1..comment_line)
                .rev()
                .find(|&l| !is_expectation_only(lines[l - 1]))
                .ok_or_else(|| format!("line {comment_line}: no line above for '@above'"))?,
            Some("below") => (comment_line + 1..=lines.len())
                .find(|&l| !is_expectation_only(lines[l - 1]))
                .ok_or_else(|| format!("line {comment_line}: no line below for '@below'"))?,
            Some(offset) if offset.starts_with(['+', '-']) => {
                let delta: i64 = offset
                    .parse()
                    .map_err(|_| format!("line {comment_line}: bad offset '{offset}'"))?;
                usize::try_from(comment_line as i64 + delta)
                    .ok()
                    .filter(|&l| l >= 1)
                    .ok_or_else(|| format!("line {comment_line}: offset '{offset}' points before the file"))?
            }
            Some(absolute) => absolute
                .parse()
                .map_err(|_| format!("line {comment_line}: bad line '{absolute}'"))?,
        };
        let text = caps[4].to_string();
        let pattern = if caps.get(2).is_some() {
            Some(expectation_regex(&text)?)
        } else {
            None
        };
        out.push(Expectation {
            severity: severity_of(&caps[1]),
            line: target,
            comment_line,
            text,
            pattern,
            met: false,
        });
    }
    Ok(out)
}

/// Diagnostics and their notes, in order, with MLIR's "see current operation" notes
/// dropped (mlir-opt does not attach them under `-verify-diagnostics`).
fn flatten(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    let mut out = Vec::new();
    for d in diagnostics {
        if d.severity == Severity::Note && d.message.starts_with("see current operation") {
            continue;
        }
        out.push(d);
        out.extend(flatten(&d.notes));
    }
    out
}

/// Matches `diagnostics` against `expectations`; returns the problems, printed in
/// `mlir-opt`'s words (empty when everything matched).
pub fn check(
    buffer_name: &str,
    mut expectations: Vec<Expectation>,
    diagnostics: &[Diagnostic],
) -> Vec<String> {
    let mut problems = Vec::new();
    for diagnostic in flatten(diagnostics) {
        let line = diagnostic.loc.as_ref().map(|l| l.line);
        let found = expectations.iter_mut().find(|e| {
            !e.met
                && e.severity == diagnostic.severity
                && Some(e.line) == line
                && match &e.pattern {
                    Some(re) => re.is_match(&diagnostic.message),
                    None => diagnostic.message.contains(&e.text),
                }
        });
        match found {
            Some(e) => e.met = true,
            None => {
                let at = diagnostic
                    .loc
                    .as_ref()
                    .map_or_else(|| "<unknown>".to_string(), |l| l.to_string());
                problems.push(format!(
                    "{at}: error: unexpected {}: {}",
                    diagnostic.severity, diagnostic.message
                ));
            }
        }
    }
    for e in expectations.iter().filter(|e| !e.met) {
        problems.push(format!(
            "{buffer_name}:{}: error: expected {} \"{}\" was not produced (on line {})",
            e.comment_line, e.severity, e.text, e.line
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use fuselab_dialects::SourceLoc;

    fn diag(severity: Severity, line: usize, message: &str) -> Diagnostic {
        Diagnostic::new(
            severity,
            Some(SourceLoc {
                file: "f".into(),
                line,
                column: 1,
            }),
            message,
        )
    }

    #[test]
    fn designators_resolve_lines() {
        let src = "a\n// expected-error@+1 {{x}}\nb\n// expected-error@above {{y}}\n// expected-note@-3 {{z}}\nc // expected-warning {{w}}\n// expected-error@below {{v}}\n// expected-error@2 {{u}}\nd\n";
        let lines: Vec<usize> = parse_expectations(src).unwrap().iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![3, 3, 2, 6, 9, 2]);
    }

    #[test]
    fn unmatched_and_unexpected_are_reported() {
        let src = "x\n// expected-error@-1 {{wanted}}\n";
        let problems = check(
            "f",
            parse_expectations(src).unwrap(),
            &[diag(Severity::Error, 1, "something else")],
        );
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("unexpected error: something else"));
        assert!(problems[1].contains("expected error \"wanted\" was not produced"));
    }

    #[test]
    fn regex_expectations_match() {
        let src = "x // expected-error-re {{shape {{\\[[0-9]+\\]}} bad}}\n";
        let problems = check(
            "f",
            parse_expectations(src).unwrap(),
            &[diag(Severity::Error, 1, "the shape [42] bad!")],
        );
        assert!(problems.is_empty(), "{problems:?}");
    }
}
