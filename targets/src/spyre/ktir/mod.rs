//! The KTIR form of a Spyre program (docs/dialects/spyre.md, "KTIR"): the decisions of
//! the three Spyre passes made explicit as IBM's KTIR (RFC 0682) writes kernels — one
//! `spyre.kernel` per op run by every compute tile (core), memory views over device
//! memory (HBM, each buffer at a byte address in its stick layout) and over the cores'
//! scratchpads (LX, one piece per core at the planned address), access tiles, loads and
//! stores — built by [`lower`]; `fuselab_exec::spyre` runs it (the functional simulator).

pub mod lower;

pub use fuselab_dialects::spyre::ktir::{self as names, is_ktir};
