//! Analyses: passes that compute plain Rust data from the IR and report it, without
//! rewriting.

pub mod fusion_report;
pub mod inductor_scheduler;
pub mod memory_deps;
pub mod post_dominators;
pub mod print_memory_deps;
pub mod print_post_dominators;
pub mod verify_shapes;
