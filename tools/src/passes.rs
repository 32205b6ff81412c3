//! The passes the tools offer: the core's ([`fuselab_passes::PASSES`]) and the
//! targets' ([`fuselab_targets::PASSES`]), in `--help` order.

pub use fuselab_targets::{all_passes as all, lookup_pass as lookup};
