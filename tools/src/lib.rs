//! fuselab's command-line tools. Each tool is a thin `main` over a library module here,
//! so the logic is testable and the test harness can share it.

pub mod bench;
pub mod fuzz;
pub mod import;
pub mod opt;
pub mod passes;
pub mod run;
