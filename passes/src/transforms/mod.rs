//! Transforms: passes that rewrite the IR within a dialect.

pub mod aten_decompose;
pub mod fuse_attention;
pub mod fuse_rnn_cells;
pub mod inline_pointwise;
pub mod pointless_cumsum;
pub mod split_reductions;
pub mod unroll_small_reductions;
