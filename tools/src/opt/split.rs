//! `--split-input-file`: cut a buffer at `// -----` lines into chunks that keep their
//! absolute line numbers (each chunk is padded with the newlines before it), so
//! diagnostics and `expected-*@+N` comments refer to lines of the original file.

/// The marker line that separates chunks.
pub const SPLIT_MARKER: &str = "// -----";

/// The chunks of `source`, each padded to start at its original line.
pub fn split_input(source: &str) -> Vec<String> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut line_count = 0usize;
    for line in source.split_inclusive('\n') {
        if line.trim_end() == SPLIT_MARKER {
            chunks.push(std::mem::take(&mut current));
            line_count += 1;
            current = "\n".repeat(line_count);
            continue;
        }
        current.push_str(line);
        line_count += 1;
    }
    chunks.push(current);
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_line_numbers() {
        let chunks = split_input("a\n// -----\nb\nc\n// -----\nd");
        assert_eq!(chunks, vec!["a\n", "\n\nb\nc\n", "\n\n\n\n\nd"]);
    }
}
