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

/// Whether a `[N, C, H, W]` shape is stored differently in channels-last order than
/// contiguously: rank 4, more than one channel and more than one spatial element (else
/// the two orders are one).
pub fn channels_last_differs(shape: &[i64]) -> bool {
    shape.len() == 4 && shape[1] > 1 && shape[2] * shape[3] > 1
}

/// The dim order an extern's buffer stores its logical result in (its `result_order`,
/// outermost first: a channels-last `[N, C, H, W]` convolution result is `[0, 2, 3, 1]`,
/// stored as `[N, H, W, C]`); the extern's result type is the stored shape. Only
/// convolutions carry one (Inductor's extern convolution returns the library's
/// channels-last buffer when its input is channels-last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredOrder(pub Vec<usize>);

impl StoredOrder {
    /// `op`'s `result_order`, if it has one: `Err` when it is not a permutation of the
    /// result's dims (of its own length where `op` has no result) or `op` is not a
    /// convolution extern.
    pub fn of(op: mlir_sys::MlirOperation) -> Result<Option<StoredOrder>, String> {
        let Some(attr) = crate::ir::attr(op, super::attr::RESULT_ORDER) else {
            return Ok(None);
        };
        let order = crate::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(attr) })
            .ok_or("'result_order' must be an array<i64>")?;
        // A device dialect's host call carries the extern's attributes without its result.
        let rank = match crate::ir::result_count(op) {
            0 => order.len(),
            _ => crate::ir::tensor_type(crate::ir::result(op, 0)).map_or(0, |t| t.rank()),
        };
        let kind = crate::ir::attr(op, super::attr::KIND).and_then(crate::attrs::string_raw);
        if kind.as_deref() != Some(super::ExternKind::Convolution.as_str()) {
            return Err("only a 'convolution' extern may store its result in another 'result_order'".into());
        }
        let mut sorted = order.clone();
        sorted.sort_unstable();
        if sorted != (0..rank as i64).collect::<Vec<_>>() {
            return Err(format!(
                "'result_order' {order:?} is not a permutation of the result's {rank} dims"
            ));
        }
        Ok(Some(StoredOrder(order.into_iter().map(|d| d as usize).collect())))
    }

    /// The logical shape of a result stored as `stored`.
    pub fn logical_shape(&self, stored: &[i64]) -> Vec<i64> {
        self.logical(stored)
    }

    /// Per-dim values of the stored buffer (sizes, index expressions) in the logical
    /// dim order: stored dim `k` is logical dim `self.0[k]`.
    pub fn logical<T: Clone>(&self, stored: &[T]) -> Vec<T> {
        let mut logical = stored.to_vec();
        for (k, &d) in self.0.iter().enumerate() {
            if let (Some(slot), Some(v)) = (logical.get_mut(d), stored.get(k)) {
                *slot = v.clone();
            }
        }
        logical
    }

    /// The element strides of the logical dims in the contiguous buffer of shape
    /// `stored`.
    pub fn logical_strides(&self, stored: &[i64]) -> Vec<i64> {
        let mut strides = vec![0; stored.len()];
        let mut step = 1;
        for (k, &d) in self.0.iter().enumerate().rev() {
            strides[d] = step;
            step *= stored[k];
        }
        strides
    }

    /// `[0, logical sizes..., strides...]`: the view that reads the stored buffer as the
    /// logical result (an extern's `operand_views` form).
    pub fn logical_view(&self, stored: &[i64]) -> Vec<i64> {
        let mut view = vec![0];
        view.extend(self.logical_shape(stored));
        view.extend(self.logical_strides(stored));
        view
    }
}

#[cfg(test)]
mod tests {
    use super::StoredOrder;

    #[test]
    fn channels_last_order_reads_nhwc_as_nchw() {
        // [N, C, H, W] = [2, 3, 4, 5] stored as [2, 4, 5, 3].
        let order = StoredOrder(vec![0, 2, 3, 1]);
        let stored = [2, 4, 5, 3];
        assert_eq!(order.logical_shape(&stored), vec![2, 3, 4, 5]);
        // n: H*W*C = 60, c: 1, h: W*C = 15, w: C = 3.
        assert_eq!(order.logical_strides(&stored), vec![60, 1, 15, 3]);
        assert_eq!(order.logical_view(&stored), vec![0, 2, 3, 4, 5, 60, 1, 15, 3]);
        // The identity order is the contiguous layout.
        assert_eq!(
            StoredOrder(vec![0, 1, 2]).logical_strides(&[2, 3, 4]),
            vec![12, 4, 1]
        );
    }
}
