//! Conversions: passes that lower one dialect to another.

pub mod body;
pub mod lower_aten_to_loop;
