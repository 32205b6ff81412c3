//! The Spyre target's passes (each applies a decision its analysis made as data).

pub mod assign_layouts;
pub mod divide_work;
pub mod lower_to_ktir;
pub mod plan_scratchpad;
pub mod spyre_report;
