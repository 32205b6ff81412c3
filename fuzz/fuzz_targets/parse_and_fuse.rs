//! Arbitrary bytes as MLIR text: parse, verify, run every fusion strategy's pipeline and
//! `--lower-loop-to-cpu`. Diagnostics are fine; a panic or a crash is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        fuselab_tools::run::exercise_pipelines(text);
    }
});
