//! The `spyre` dialect's data (dialects/spyre.irdl.mlir, docs/dialects/spyre.md): stick
//! layouts ([`layout`]), the attributes the Spyre passes write and read ([`attrs`]), the
//! KTIR form's op names ([`ktir`]) and the machine's scratchpad size. The Spyre target
//! (`fuselab-targets`) decides; the interpreter (`fuselab-exec`) runs the KTIR form.

pub mod attrs;
pub mod layout;

/// Usable LX bytes per core (2 MiB less 64 KiB reserved, 20 % held back, rounded to 128).
pub const LX_CAPACITY: i64 = 1_625_344;
/// LX allocation alignment.
pub const LX_ALIGNMENT: i64 = 128;

/// The op and attribute names of the KTIR form (`--spyre-lower-to-ktir`).
pub mod ktir {
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

    /// Whether `func` is in the KTIR form (carries [`HBM_BYTES`]).
    pub fn is_ktir(func: mlir_sys::MlirOperation) -> bool {
        crate::ir::attr(func, HBM_BYTES).is_some()
    }
}
