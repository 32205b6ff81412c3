//! Analyses: passes that compute plain Rust data from the IR and report it, without
//! rewriting. An analysis depends on the dialects alone (never on `transforms`,
//! `conversion` or `fusion`): `tests/layering.rs` checks it.

pub mod memory_deps;
pub mod prefer_channels_last;
pub mod print_memory_deps;
pub mod reduction_hint;
pub mod rows;
pub mod verify_shapes;

/// A seeded xorshift generator for tests: `next(m)` is in `0..m`.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed | 1;
    move |m: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % m.max(1) as u64) as usize
    }
}
