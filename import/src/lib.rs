//! `fuselab-import`: torch.export archives (`.pt2`) to `aten`-dialect MLIR, in Rust.
//!
//! `torch.export.save(ep, "model.pt2")` writes a zip whose `models/model.json` holds the
//! graph (schema 8.x in torch 2.15). [`import_pt2`] reads it (`archive.rs`) and writes
//! one `func.func` in the `aten` dialect (`graph.rs`): user inputs, parameters, buffers
//! and constants as arguments (marked with `fuselab.input` and their original names),
//! static tensor types from `tensor_values`, scalars as rank-0 constants, one result per
//! graph output, and locations from each node's `stack_trace` fused with the node name.
//! The text is plain MLIR; `fuse-import` parses and verifies it with fuselab's context.

mod archive;
pub mod coverage;
mod graph;

pub use archive::{read_archive, Archive, SCHEMA_MAJOR};
pub use graph::{dtype_name, supported_targets};

/// What can go wrong, each with the archive path (and the node, for graph errors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// The file cannot be read.
    #[error("{path}: cannot read: {reason}")]
    Io {
        /// Archive path.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// Not a zip archive, or a truncated / corrupt one.
    #[error("{path}: not a torch.export archive (.pt2 zip): {reason}")]
    NotAnArchive {
        /// Archive path.
        path: String,
        /// What the zip reader said.
        reason: String,
    },
    /// A zip without `models/model.json`.
    #[error("{path}: the archive has no 'models/model.json' (is it a torch.export.save archive?)")]
    NoModel {
        /// Archive path.
        path: String,
    },
    /// `model.json` is not what torch.export writes.
    #[error("{path}: malformed model: {reason}")]
    BadModel {
        /// Archive path.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A schema major version fuselab does not know.
    #[error(
        "{path}: unsupported torch.export schema version {major}.{minor} (fuse-import reads {}.x, written by torch 2.x)",
        SCHEMA_MAJOR
    )]
    UnsupportedSchema {
        /// Archive path.
        path: String,
        /// Major version found.
        major: u64,
        /// Minor version found.
        minor: u64,
    },
    /// A node fuselab cannot express, located at the node's source line.
    #[error("{loc}: error: {message}")]
    Node {
        /// `file:line:0` of the node (or the archive path).
        loc: String,
        /// What is wrong, naming the op and node.
        message: String,
    },
}

/// Options of an import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Name of the emitted function.
    pub entry: String,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            entry: "forward".to_string(),
        }
    }
}

/// The imported module.
#[derive(Clone, Debug)]
pub struct Imported {
    /// MLIR text (one `func.func`).
    pub text: String,
    /// Graph nodes read.
    pub nodes: usize,
    /// `schema_version` of the archive.
    pub schema: (u64, u64),
}

/// Imports the archive `bytes` (named `path` in messages).
pub fn import_pt2(bytes: &[u8], path: &str, options: &ImportOptions) -> Result<Imported, ImportError> {
    let archive = read_archive(bytes, path)?;
    let (text, nodes) = graph::emit_module(&archive.model, path, options)?;
    Ok(Imported {
        text,
        nodes,
        schema: archive.schema,
    })
}

/// Imports the archive at `path`.
pub fn import_file(path: &str, options: &ImportOptions) -> Result<Imported, ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::Io {
        path: path.to_string(),
        reason: e.to_string(),
    })?;
    import_pt2(&bytes, path, options)
}
