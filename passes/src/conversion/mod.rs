//! Conversions: passes that lower one dialect to another. Lowerings to a device live
//! with their target (`fuselab-targets`), not here.

pub mod lower_aten_to_loop;
