//! Transforms: passes that rewrite the IR.

pub mod annotate_op_pattern;
pub mod apply_fusion;
pub mod aten_decompose;
pub mod fuse;
pub mod inductor_fuse;
pub mod inline_pointwise;
pub mod tvm_fuse_ops;
