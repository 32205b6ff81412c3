//! The strided layout of a view: `[offset, sizes..., strides...]`.

/// A `loop.view`'s `layout`: the source read at `offset + sum(i_k strides_k)` for an
/// index `i` over `sizes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewLayout {
    /// Element offset into the source.
    pub offset: i64,
    /// The view's shape.
    pub sizes: Vec<i64>,
    /// Element strides into the source, one per dim.
    pub strides: Vec<i64>,
}

/// The `layout` of the `loop.view` `op` (`[offset, sizes..., strides...]`), if it has a
/// well-formed one.
pub fn view_layout(op: mlir_sys::MlirOperation) -> Option<ViewLayout> {
    ViewLayout::parse(&crate::ir::i64s(op, "layout"))
}

impl ViewLayout {
    /// The layout written flat as `[offset, sizes..., strides...]` (a view's `layout`,
    /// an extern's `operand_views` entry), if the list has that form.
    pub fn parse(layout: &[i64]) -> Option<ViewLayout> {
        if layout.len().is_multiple_of(2) {
            return None;
        }
        let rank = (layout.len() - 1) / 2;
        Some(ViewLayout {
            offset: layout[0],
            sizes: layout[1..=rank].to_vec(),
            strides: layout[rank + 1..].to_vec(),
        })
    }
}
