//! fuselab's command-line tools. Each tool is a thin `main` over a library module here,
//! so the logic is testable and the test harness can share it.

/// The Rust side's heap (the fusion passes' graphs, plans and reports): jemalloc instead
/// of glibc's malloc (docs/performance.md: the passes on 100k-node graphs).
#[cfg(feature = "jemalloc")]
#[global_allocator]
static HEAP: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

pub mod bench;
pub mod compile;
pub mod driver;
pub mod fuzz;
pub mod gpu;
pub mod import;
pub mod opt;
pub mod passes;
pub mod progress;
pub mod run;

/// Gives SIGPIPE its default action, as command-line tools have it: a reader that closes
/// the pipe early (`fuse-opt ... | head`) ends the tool quietly. Rust ignores the signal,
/// so the next write failed with EPIPE, and a write inside a pass (`--fusion-report=-`)
/// became a panic and an internal error. Every tool's `main` calls it first.
pub fn quiet_on_closed_pipe() {
    // SAFETY: setting a signal's disposition to the default; no handler runs Rust code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The most timed calls or runs a tool accepts (`--runs`): more would only hold the
/// machine, and the timings are kept in memory.
pub const MAX_RUNS: usize = 1_000_000;

/// Writes `text` to stdout and flushes it; a closed or full stdout (`> /dev/full`) is an
/// error for the tool to report with exit 1, not a panic as `print!` makes it.
pub fn print_stdout(text: &str) -> Result<(), String> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write output: {e}"))
}
