//! A strided view copied into its own buffer by a kernel of its own (2-D tiles and a
//! shared-memory conversion for a transposing one, as a transposing pointwise kernel).

use super::super::tiles::{tiled_warps, transposed_view_tiles};
use super::*;
use fuselab_dialects::tile::names as tile_op;

impl Lowering {
    /// A strided view copied into its own buffer by a kernel of its own.
    pub(in crate::lower_loop_to_tile) fn view(
        &mut self,
        label: &str,
        op: MlirOperation,
    ) -> Result<(), TileError> {
        let base = self.buffer(op, ir::operand(op, 0))?;
        // A reshape reads its source's buffer as it is; only one that must land in an
        // output buffer its source was not written into is copied.
        let written_elsewhere = self.output_buffer(op).is_some_and(|o| o.v.ptr != base.v.ptr);
        if super::is_reshape(op) && !written_elsewhere {
            self.bufs.insert(ir::result(op, 0).ptr as usize, base);
            return Ok(());
        }
        let out = self.result_buffer(op)?;
        let layout =
            fuselab_dialects::loops::view_layout(op).ok_or_else(|| err(op, "a view without a layout"))?;
        let (offset, sizes, strides) = (layout.offset, &layout.sizes[..], &layout.strides[..]);
        let numel: i64 = sizes.iter().product();
        let (xb, rb, warps) = self.config.launch(numel, 1);
        let tiles = transposed_view_tiles(sizes, strides, xb);
        let warps = if tiles.is_some() { tiled_warps(xb) } else { warps };
        let symbol = self.symbol(label);
        let host_args = vec![out.v, base.v];
        self.narrow = self.config.narrow_index && super::fits_32_bits(&host_args, numel);
        let types: Vec<MlirType> = host_args.iter().map(|&v| ir::value_type(v)).collect();
        let i64t = self.b.int_type(64);
        let attributes = [
            ("sym_name", self.b.string_attr(&symbol)),
            (
                "grid",
                ir::i64_array_attr(self.b.context(), &[(numel + xb - 1) / xb]),
            ),
            ("block", ir::i64_array_attr(self.b.context(), &[xb, rb])),
            ("num_warps", self.b.int_attr(i64t, warps)),
        ];
        let host_block = self.b.pop();
        let Open { op: kernel, args } = self.b.open(tile_op::KERNEL, &[], &[], &attributes, &types);
        let k = self.preamble(&host_args, &args, numel, xb, rb, tiles);
        let x = V::B(k.x, [xb, 1]);
        let coords = self.unravel(x, sizes);
        let v = match k.tiles.filter(|_| self.config.layout_conversion) {
            // A transposing copy reads its tile down the columns and converts it.
            Some((t, start)) => {
                let flat = self.tile_rows(start, V::B(k.xs, [xb, 1]), t, true);
                let tcoords = self.unravel(flat, sizes);
                let at = self.strided(offset, &tcoords, strides);
                let v = self.load(&k, &base, at);
                self.transpose_back(v, t)
            }
            None => {
                let at = self.strided(offset, &coords, strides);
                self.load(&k, &base, at)
            }
        };
        self.store(&k, &out, x, v, k.mask);
        self.b.close(names::YIELD, &[]);
        if let Some(block) = host_block {
            self.b.push(block);
        }
        self.launch(kernel, &symbol, &host_args);
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    /// `offset + sum(coords[i] * strides[i])`.
    fn strided(&mut self, offset: i64, coords: &[V], strides: &[i64]) -> V {
        let mut at = self.index(offset);
        for (&c, &s) in coords.iter().zip(strides) {
            let st = self.index(s);
            let term = self.iop("arith.muli", c, st);
            at = self.iop("arith.addi", at, term);
        }
        at
    }
}
