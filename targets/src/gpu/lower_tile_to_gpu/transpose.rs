//! `tile.transpose` on the blocked layout: a layout conversion through workgroup
//! (shared) memory, as Triton's `convert_layout` between a load's layout and a store's.
//!
//! The block's elements, row-major, are an `[A, B]` matrix; the result is its transpose
//! (`result[b A + a] = value[a B + b]`). Every thread writes its slots' elements at
//! `a (B + 1) + b` — one padding element per matrix row, so that neither the writes (a
//! thread's 4 adjacent elements, consecutive `b`) nor the reads (consecutive `a`, a row
//! apart) of one warp meet in a bank: with `B = 32`, lane `l`'s element `k` of a group
//! lands in bank `(l / 8 + 4 (l mod 8) + k) mod 32`, distinct for the 32 lanes — waits
//! at a barrier, and reads each result element from the position it came from.

use super::*;
use fuselab_dialects::build::Affine;
use fuselab_dialects::tile::names as tile_op;

impl Kernel<'_> {
    /// `tile.transpose {shape = [A, B]}` of the per-slot `values` (see the module
    /// documentation).
    pub(super) fn transpose(&mut self, op: MlirOperation, values: Vec<Value>) -> Result<Vec<Value>, Failure> {
        let (a, b) = match ir::i64s(op, "shape").as_slice() {
            &[a, b] if a > 0 && b > 0 => (a, b),
            _ => return Err(fail(op, format!("{} needs a shape [A, B]", tile_op::TRANSPOSE))),
        };
        let dims = shape(ir::value_type(ir::operand(op, 0)));
        if dims != [self.xb, self.rb] || a * b != self.xb * self.rb {
            return Err(fail(
                op,
                format!(
                    "{} of a block of shape {dims:?} as [{a}, {b}]: the block must be the kernel's [{}, {}] and hold A * B elements",
                    tile_op::TRANSPOSE,
                    self.xb,
                    self.rb
                ),
            ));
        }
        let ty = ir::value_type(values[0]);
        let is_bool =
            unsafe { mlir_sys::mlirTypeIsAInteger(ty) && mlir_sys::mlirIntegerTypeGetWidth(ty) == 1 };
        let i32t = self.b.int_type(32);
        let stored_ty = if is_bool { i32t } else { ty };
        let smem = self.workgroup_buffer(a * (b + 1), stored_ty);
        // Inside a loop, the previous iteration's readers must be done with the buffer.
        let nested = unsafe {
            let parent = mlir_sys::mlirBlockGetParentOperation(ir::parent_block(op));
            ir::op_name(parent) != tile_op::KERNEL
        };
        if nested {
            self.b.op("gpu.barrier", &[], &[], &[]);
        }
        let d0 = Affine::dim(self.b.context(), 0);
        let (t, v) = (self.threads, self.vec as i64);
        let element_of = |s: i64| (d0 * v).add_const((s / v) * t * v + s % v);
        for (s, &value) in values.iter().enumerate() {
            let e = element_of(s as i64);
            let at = self
                .b
                .apply_expr(e.floordiv(b) * (b + 1) + e.modulo(b), &[self.tid], &[]);
            let value = if is_bool {
                self.b.cast("arith.extui", value, i32t)
            } else {
                value
            };
            match self.active[s] {
                None => self.b.store(value, smem, at),
                Some(there) => {
                    self.b.open_if(there);
                    self.b.store(value, smem, at);
                    self.b.close("scf.yield", &[]);
                }
            }
        }
        self.b.op("gpu.barrier", &[], &[], &[]);
        let mut out = Vec::new();
        for s in 0..values.len() {
            let e = element_of(s as i64);
            let mut at = self
                .b
                .apply_expr(e.modulo(a) * (b + 1) + e.floordiv(a), &[self.tid], &[]);
            if let Some(there) = self.active[s] {
                // A slot past the block reads a position that exists.
                let c0 = self.b.index(0);
                at = self.b.select(there, at, c0);
            }
            let x = self.b.load(smem, at);
            out.push(if is_bool {
                self.b.cast("arith.trunci", x, ty)
            } else {
                x
            });
        }
        Ok(out)
    }
}
