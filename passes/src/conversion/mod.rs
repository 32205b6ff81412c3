//! Conversions: passes that lower one dialect to another.

pub mod body;
pub mod cpu_math;
pub mod lower_aten_to_loop;
pub mod lower_loop_to_cpu;
