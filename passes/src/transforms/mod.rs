//! Transforms: passes that rewrite the IR.

pub mod aten_decompose;
pub mod inductor_fuse;
pub mod inline_pointwise;
