//! Progress of long runs (`fuse-fuzz` campaigns, `fuse-bench` sizes) on stderr, never on
//! stdout, so a run's output (text, JSON, `-o -`) stays what it was: on a terminal a
//! bar (`indicatif`) with the count, elapsed and remaining time; elsewhere (a log, CI)
//! one line per tenth of the work, `tool: 300/1000 graphs, 12.0 s elapsed, 28.0 s left`;
//! nothing with `--quiet`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;
use std::time::Instant;

/// Where progress goes.
enum Sink {
    Bar(ProgressBar),
    Lines { every: u64 },
    Quiet,
}

/// The progress of `total` items of one kind.
pub struct Progress {
    sink: Sink,
    tool: &'static str,
    unit: &'static str,
    total: u64,
    done: u64,
    start: Instant,
}

impl Progress {
    /// Progress of `total` `unit`s of `tool`; `quiet` shows none.
    pub fn new(tool: &'static str, unit: &'static str, total: u64, quiet: bool) -> Self {
        let sink = if quiet || total == 0 {
            Sink::Quiet
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} {msg} {elapsed} elapsed, {eta} left",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(tool);
            bar.set_message(unit);
            Sink::Bar(bar)
        } else {
            Sink::Lines {
                every: (total / 10).max(1),
            }
        };
        Self {
            sink,
            tool,
            unit,
            total,
            done: 0,
            start: Instant::now(),
        }
    }

    /// The line printed after `done` of `total` items, `elapsed` seconds in.
    pub fn line(&self, done: u64, elapsed: f64) -> String {
        let left = if done == 0 {
            0.0
        } else {
            elapsed / done as f64 * (self.total - done.min(self.total)) as f64
        };
        format!(
            "{}: {done}/{} {}, {elapsed:.1} s elapsed, {left:.1} s left",
            self.tool, self.total, self.unit
        )
    }

    /// One more item done.
    pub fn step(&mut self) {
        self.done += 1;
        match &self.sink {
            Sink::Bar(bar) => bar.inc(1),
            Sink::Lines { every } => {
                if self.done.is_multiple_of(*every) || self.done == self.total {
                    eprintln!("{}", self.line(self.done, self.start.elapsed().as_secs_f64()));
                }
            }
            Sink::Quiet => {}
        }
    }

    /// A message above the bar (or a plain line), so it does not tear the bar.
    pub fn println(&self, message: &str) {
        match &self.sink {
            Sink::Bar(bar) => bar.println(message),
            _ => eprintln!("{message}"),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Sink::Bar(bar) = &self.sink {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_and_estimate_what_is_left() {
        let p = Progress::new("fuse-fuzz", "graphs", 1000, true);
        assert_eq!(
            p.line(300, 12.0),
            "fuse-fuzz: 300/1000 graphs, 12.0 s elapsed, 28.0 s left"
        );
        assert_eq!(
            p.line(0, 0.0),
            "fuse-fuzz: 0/1000 graphs, 0.0 s elapsed, 0.0 s left"
        );
    }
}
