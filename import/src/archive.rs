//! Reading a `torch.export.save` archive: a zip whose `<name>/models/model.json` holds
//! the serialized `ExportedProgram` (graph, tensor metadata, signature). Weights,
//! constants and sample inputs live in other members and are not needed: an archive
//! stripped of them imports the same.

use crate::ImportError;
use serde_json::Value;
use std::io::{Cursor, Read};

/// The schema major version fuselab reads (torch 2.x writes 8.x).
pub const SCHEMA_MAJOR: u64 = 8;

/// The parts of an archive the importer uses.
#[derive(Debug)]
pub struct Archive {
    /// The member holding the model (`seed/models/model.json`).
    pub model_member: String,
    /// `model.json`, parsed.
    pub model: Value,
    /// `schema_version` as (major, minor).
    pub schema: (u64, u64),
}

/// Opens the archive in `bytes` (`path` is used in messages only).
pub fn read_archive(bytes: &[u8], path: &str) -> Result<Archive, ImportError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| ImportError::NotAnArchive {
        path: path.to_string(),
        reason: e.to_string(),
    })?;
    let member = (0..zip.len())
        .filter_map(|i| zip.name_for_index(i).map(str::to_string))
        .find(|name| name == "models/model.json" || name.ends_with("/models/model.json"))
        .ok_or_else(|| ImportError::NoModel {
            path: path.to_string(),
        })?;
    let mut text = String::new();
    zip.by_name(&member)
        .and_then(|mut f| f.read_to_string(&mut text).map_err(Into::into))
        .map_err(|e| ImportError::NotAnArchive {
            path: path.to_string(),
            reason: format!("cannot read '{member}': {e}"),
        })?;
    let model: Value = serde_json::from_str(&text).map_err(|e| ImportError::BadModel {
        path: path.to_string(),
        reason: format!("'{member}' is not valid JSON: {e}"),
    })?;
    let version = &model["schema_version"];
    let (Some(major), Some(minor)) = (version["major"].as_u64(), version["minor"].as_u64()) else {
        return Err(ImportError::BadModel {
            path: path.to_string(),
            reason: format!("'{member}' has no schema_version {{major, minor}}"),
        });
    };
    if major != SCHEMA_MAJOR {
        return Err(ImportError::UnsupportedSchema {
            path: path.to_string(),
            major,
            minor,
        });
    }
    Ok(Archive {
        model_member: member,
        model,
        schema: (major, minor),
    })
}
