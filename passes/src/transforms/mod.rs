//! Transforms: passes that rewrite the IR.

pub mod aten_decompose;
pub mod inline_pointwise;
