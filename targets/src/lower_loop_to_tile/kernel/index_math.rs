//! Index arithmetic of a kernel on `index` blocks: divisions by constants (signed, or
//! unsigned on 32-bit integers where the kernel's buffers allow) and unravelling a flat
//! row into dims.

use super::{Lowering, V};
use fuselab_dialects::{build::Value, ir};

/// Whether every buffer of `args` and `extent` (the block elements the grid covers)
/// stay below 2^30 elements, so that rows, offsets and the index arithmetic on the way
/// fit 32-bit integers (Triton's rule: `int32` indices unless a tensor may reach 2^31
/// elements).
pub(in crate::lower_loop_to_tile) fn fits_32_bits(args: &[Value], extent: i64) -> bool {
    const LIMIT: i64 = 1 << 30;
    extent < LIMIT
        && args
            .iter()
            .all(|&a| ir::static_numel(ir::value_type(a)).is_some_and(|n| n < LIMIT))
}

impl Lowering {
    /// `a floordiv c` and `a mod c` (non-negative) for a constant `c > 0`.
    pub(in crate::lower_loop_to_tile) fn floordiv(&mut self, a: V, c: i64) -> V {
        if c == 1 {
            return a;
        }
        let k = self.index(c);
        self.iop("arith.floordivsi", a, k)
    }

    pub(in crate::lower_loop_to_tile) fn modulo(&mut self, a: V, c: i64) -> V {
        let q = self.floordiv(a, c);
        let k = self.index(c);
        let m = self.iop("arith.muli", q, k);
        self.iop("arith.subi", a, m)
    }

    /// `a / c` and `a mod c` of a value known non-negative (a row, a program id), for
    /// a constant `c > 0`: unsigned, so no sign fix-up (a floor division of a signed
    /// value is a division, a compare and a select).
    pub(in crate::lower_loop_to_tile) fn udiv(&mut self, a: V, c: i64) -> V {
        if c == 1 {
            return a;
        }
        self.unsigned("arith.divui", a, c)
    }

    pub(in crate::lower_loop_to_tile) fn urem(&mut self, a: V, c: i64) -> V {
        self.unsigned("arith.remui", a, c)
    }

    /// `name` (`divui` / `remui`) of `a` by `c`; on 32-bit integers when the kernel's
    /// values fit them ([`Lowering::narrow`]): a 64-bit division by a constant is a
    /// 64-bit multiply-high, several instructions on the GPU, the 32-bit one is one.
    fn unsigned(&mut self, name: &str, a: V, c: i64) -> V {
        if !(self.narrow && matches!(a, V::B(..))) {
            let k = self.index(c);
            return self.iop(name, a, k);
        }
        let (i32t, index) = (self.b.int_type(32), self.b.index_type());
        let narrow = self.op_on("arith.index_castui", &[a], i32t, &[]);
        let k = V::S(self.b.int(32, c));
        let q = self.op_on(name, &[narrow, k], i32t, &[]);
        self.op_on("arith.index_castui", &[q], index, &[])
    }

    /// The indices over row-major `extents` of `flat` (below their product, so
    /// non-negative).
    pub(in crate::lower_loop_to_tile) fn unravel(&mut self, flat: V, extents: &[i64]) -> Vec<V> {
        let mut stride: i64 = extents.iter().product();
        let mut coords = Vec::new();
        for (d, &extent) in extents.iter().enumerate() {
            stride /= extent.max(1);
            coords.push(if extent == 1 {
                self.index(0)
            } else if d == 0 {
                self.udiv(flat, stride.max(1))
            } else {
                let q = self.udiv(flat, stride.max(1));
                self.urem(q, extent)
            });
        }
        coords
    }
}
