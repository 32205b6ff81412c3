//! The passes the tools offer: the core's ([`fuselab_passes::PASSES`]) and the
//! targets' ([`fuselab_targets::PASSES`]), in `--help` order.

use fuselab_passes::PassInfo;

/// Every pass, core first.
pub fn all() -> impl Iterator<Item = &'static PassInfo> {
    fuselab_passes::PASSES.iter().chain(fuselab_targets::PASSES)
}

/// The pass registered under `argument`.
pub fn lookup(argument: &str) -> Option<&'static PassInfo> {
    all().find(|p| p.argument == argument)
}
