//! Analyses: passes that compute plain data from the IR and report it, without
//! rewriting.

pub mod verify_shapes;
