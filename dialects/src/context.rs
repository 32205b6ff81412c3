//! The MLIR context every fuselab tool works in: all upstream dialects plus the
//! IRDL-defined `aten`, `loop`, `tile`, `spyre` and `ascend` dialects embedded in the binary.

use crate::DialectError;
use melior::{
    dialect::DialectRegistry,
    ir::Module,
    utility::{load_irdl_dialects, register_all_dialects},
    Context,
};
use mlir_sys::MlirModule;

/// The `aten` dialect definition (IRDL), as shipped in `dialects/aten.irdl.mlir`.
pub const ATEN_IRDL: &str = include_str!("../aten.irdl.mlir");
/// The `loop` dialect definition (IRDL), as shipped in `dialects/loop.irdl.mlir`.
pub const LOOP_IRDL: &str = include_str!("../loop.irdl.mlir");

/// The `tile` dialect definition (IRDL), as shipped in `dialects/tile.irdl.mlir`.
pub const TILE_IRDL: &str = include_str!("../tile.irdl.mlir");

/// The `spyre` dialect definition (IRDL), as shipped in `dialects/spyre.irdl.mlir`.
pub const SPYRE_IRDL: &str = include_str!("../spyre.irdl.mlir");

/// The `ascend` dialect definition (IRDL), as shipped in `dialects/ascend.irdl.mlir`.
pub const ASCEND_IRDL: &str = include_str!("../ascend.irdl.mlir");

/// The IRDL files that define fuselab's dialects, with their dialect names.
pub const IRDL_DIALECTS: &[(&str, &str)] = &[
    ("aten", ATEN_IRDL),
    ("loop", LOOP_IRDL),
    ("tile", TILE_IRDL),
    ("spyre", SPYRE_IRDL),
    ("ascend", ASCEND_IRDL),
];

/// An MLIR context with upstream and fuselab dialects loaded.
///
/// Multi-threading is off so diagnostics arrive in a deterministic order. The IRDL
/// modules that define the dialects live as long as the context (MLIR requires it).
pub struct FuseContext {
    irdl_modules: Vec<MlirModule>,
    context: Context,
}

impl FuseContext {
    /// Creates the context and loads every dialect.
    pub fn new() -> Result<Self, DialectError> {
        let registry = DialectRegistry::new();
        register_all_dialects(&registry);
        let context = Context::new_with_registry(&registry, false);
        context.load_all_available_dialects();
        let mut irdl_modules = Vec::new();
        for (name, source) in IRDL_DIALECTS {
            let module =
                Module::parse(&context, source).ok_or(DialectError::InvalidIrdl { dialect: name })?;
            if !load_irdl_dialects(&module) {
                return Err(DialectError::InvalidIrdl { dialect: name });
            }
            irdl_modules.push(module.to_raw());
            std::mem::forget(module);
        }
        Ok(Self {
            irdl_modules,
            context,
        })
    }

    /// The underlying MLIR context.
    pub fn context(&self) -> &Context {
        &self.context
    }
}

impl Drop for FuseContext {
    fn drop(&mut self) {
        for module in self.irdl_modules.drain(..) {
            // SAFETY: each module was created in `new` from this context and forgotten
            // there, so it is destroyed exactly once, before the context.
            unsafe { mlir_sys::mlirModuleDestroy(module) };
        }
    }
}

/// The op names declared in an IRDL file, in order (tests compare the Rust name tables
/// with the definitions).
#[cfg(test)]
pub(crate) fn irdl_op_names(irdl: &str) -> Vec<String> {
    irdl.lines()
        .filter_map(|line| line.trim().strip_prefix("irdl.operation @"))
        .map(|rest| {
            rest.trim_end_matches(|c: char| c == '{' || c.is_whitespace())
                .to_string()
        })
        .collect()
}
