//! How many threads compiled CPU code runs on, which decides `fuse-run`'s default
//! `--parallel auto`.

pub use fuselab_targets::cpu::runtime::parallel_threads;

/// The bench table's note on the code that ran: parallel steps on how many threads, or
/// the serial code.
pub fn describe(parallel: bool) -> String {
    if parallel {
        let n = parallel_threads();
        format!("parallel steps, {n} thread{}", if n == 1 { "" } else { "s" })
    } else {
        "one thread".to_string()
    }
}

/// The value of `--parallel` (`None` when given alone: `true`): `Some(on)`, or `None`
/// for `auto`.
pub fn parse_parallel(given: Option<&str>) -> Result<Option<bool>, String> {
    match given {
        None | Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some("auto") => Ok(None),
        Some(other) => Err(format!("--parallel expects auto, true or false, got '{other}'")),
    }
}

/// Why `--parallel-min-work` has nothing to apply to: the target's compiled code runs no
/// parallel steps (`capable` false), or `--parallel false` was given.
pub fn min_work_unused(capable: bool) -> String {
    let why = if capable {
        "--parallel false was given"
    } else {
        "the target's compiled code runs on one thread"
    };
    format!("--parallel-min-work applies to parallel code ({why})")
}
