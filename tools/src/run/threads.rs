//! How many threads compiled CPU code runs on, which decides `fuse-run`'s default
//! `--parallel auto`.

/// The threads compiled code's OpenMP loops run on (`OMP_NUM_THREADS` when set, else
/// the CPUs this process may run on): the CPU target's own count.
pub fn compiled_threads() -> usize {
    fuselab_targets::cpu::blas::parallel_threads()
}

/// The bench table's note on the code that ran: parallel steps on how many threads, or
/// the serial code.
pub fn describe(parallel: bool) -> String {
    if parallel {
        let n = compiled_threads();
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
