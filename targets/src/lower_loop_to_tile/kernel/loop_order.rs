//! Members a fusion reordered (`loop_order`, Inductor's loop reordering after fusion):
//! the kernel iterates them in that order and stores each at its own row-major index.

use super::{Lowering, V};
use fuselab_dialects::ir::i64s;
use mlir_sys::MlirOperation;

impl Lowering {
    /// A pointwise member's dims from its iteration `coords`, and where it stores them:
    /// `in_order` (the row-major position of the iteration) unless it has a
    /// `loop_order`, then the row-major index of its own dims.
    pub(super) fn logical(&mut self, m: MlirOperation, coords: Vec<V>, in_order: V) -> (Vec<V>, V) {
        let Some(order) = fuselab_dialects::loops::loop_order(m) else {
            return (coords, in_order);
        };
        let ranges = i64s(m, "ranges");
        let mut dims = coords.clone();
        for (p, &d) in order.iter().enumerate() {
            dims[d] = coords[p];
        }
        let mut offset = self.index(0);
        let mut stride = 1;
        for d in (0..ranges.len()).rev() {
            if ranges[d] != 1 {
                let scaled = if stride == 1 {
                    dims[d]
                } else {
                    let s = self.index(stride);
                    self.iop("arith.muli", dims[d], s)
                };
                offset = self.iop("arith.addi", offset, scaled);
            }
            stride *= ranges[d];
        }
        (dims, offset)
    }
}
