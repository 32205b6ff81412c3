//! The KTIR form of a Spyre program (docs/dialects/spyre.md, "KTIR"): the decisions of
//! the three Spyre passes made explicit as IBM's KTIR (RFC 0682) writes kernels — one
//! `spyre.kernel` per op run by every compute tile (core), memory views over device
//! memory (HBM, each buffer at a byte address in its stick layout) and over the cores'
//! scratchpads (LX, one piece per core at the planned address), access tiles, loads and
//! stores — built by [`lower`] and run by [`run`] (the functional simulator's machine).

pub mod lower;
pub mod run;

/// The op and attribute names of the KTIR form.
pub mod names {
    /// A kernel run by every compute tile.
    pub const KERNEL: &str = "spyre.kernel";
    /// The running compute tile's id.
    pub const TILE_ID: &str = "spyre.compute_tile_id";
    /// A view of a buffer in HBM or LX.
    pub const VIEW: &str = "spyre.memory_view";
    /// One element of a view.
    pub const ACCESS_TILE: &str = "spyre.access_tile";
    /// Reads an access tile.
    pub const LOAD: &str = "spyre.load";
    /// Writes an access tile.
    pub const STORE: &str = "spyre.store";
    /// Host tensor into a view.
    pub const COPY_IN: &str = "spyre.copy_in";
    /// A view out to a host tensor.
    pub const COPY_OUT: &str = "spyre.copy_out";
    /// A library kernel on views.
    pub const EXTERN: &str = "spyre.extern";
    /// Function attribute: device-memory bytes the program's HBM views span.
    pub const HBM_BYTES: &str = "spyre.hbm_bytes";
    /// `memory_space` of device memory.
    pub const HBM: &str = "hbm";
    /// `memory_space` of the cores' scratchpads.
    pub const LX: &str = "lx";
}

/// Whether `func` is in the KTIR form (carries [`names::HBM_BYTES`]).
pub fn is_ktir(func: mlir_sys::MlirOperation) -> bool {
    fuselab_dialects::ir::attr(func, names::HBM_BYTES).is_some()
}
