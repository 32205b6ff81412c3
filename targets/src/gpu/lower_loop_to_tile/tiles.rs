//! Transposing pointwise kernels and view copies as 2-D tiles ([`transposed_tiles`]),
//! as Inductor's Triton back end tiles them.

use super::kernel::V;
use super::*;

/// A pointwise kernel's programs as 2-D tiles of its last two row dims (sizes `p`,
/// `q`): `tp x tq` elements a program, `tq` consecutive along the last dim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tiles {
    p: i64,
    q: i64,
    tp: i64,
    tq: i64,
}

/// Elements of a tile row: 32 f32 values are one 128-byte line.
const TILE_COLUMNS: i64 = 32;

/// Inductor's 2-D tiling of a transposing pointwise kernel (its `tiling_scores` pick
/// a `(y, x)` grid when a load is contiguous along another dim than the store): when a
/// member's load is contiguous along the second-last row dim and strided along the
/// last, a program takes a `XBLOCK / 32 x 32` tile of those two dims instead of
/// `XBLOCK` consecutive elements. Its stores are still whole 128-byte lines, and its
/// loads read `32` elements of one line each — where consecutive elements read a new
/// line each, the same line reached 32 programs on different SMs. Only where the tile
/// divides both dims (no masks); the values are the same either way, only which
/// program computes which element changes.
pub(super) fn transposed_tiles(
    run: &[MlirOperation],
    prefix: &[i64],
    xb: i64,
    inline: &std::collections::HashMap<usize, MlirOperation>,
) -> Option<Tiles> {
    let n = prefix.len();
    let t = tiles_of(prefix, xb)?;
    let index_of = |load: MlirOperation| {
        ir::attr(load, "index")
            .and_then(fuselab_dialects::loops::index::from_affine_map_attr)
            .filter(|(_, dims, _)| *dims == n)
            .map(|(e, _, _)| e)
    };
    let transposed = |load: MlirOperation| {
        index_of(load).is_some_and(|e| is_transposing(e.dim_coefficient(n - 2), e.dim_coefficient(n - 1)))
    };
    // A load of a kernel-local producer at the reader's own position (a TVM group's
    // transpose feeding its epilogue) reads what the producer's loads read.
    let identity = fuselab_dialects::loops::index::contiguous_index(prefix);
    let reads_transposed = |node: MlirOperation| {
        let mut stack = vec![node];
        let mut seen = 0;
        while let Some(m) = stack.pop() {
            seen += 1;
            if seen > 64 || ir::op_name(m) != names::POINTWISE || i64s(m, "ranges") != prefix {
                continue;
            }
            let Some(body) = ir::first_block(ir::region(m, 0)) else {
                continue;
            };
            for op in ir::block_ops(body)
                .into_iter()
                .filter(|&op| ir::op_name(op) == names::LOAD)
            {
                if transposed(op) {
                    return true;
                }
                if let Some(&producer) = inline.get(&(ir::operand(op, 0).ptr as usize)) {
                    if index_of(op).as_ref() == Some(&identity) {
                        stack.push(producer);
                    }
                }
            }
        }
        false
    };
    run.iter().any(|&m| reads_transposed(m)).then_some(t)
}

/// The tiles of `xb` elements over the last two of `sizes`, if they divide them.
fn tiles_of(sizes: &[i64], xb: i64) -> Option<Tiles> {
    let n = sizes.len();
    if n < 2 || xb < TILE_COLUMNS {
        return None;
    }
    let t = Tiles {
        p: sizes[n - 2],
        q: sizes[n - 1],
        tp: xb / TILE_COLUMNS,
        tq: TILE_COLUMNS,
    };
    (t.p % t.tp == 0 && t.q % t.tq == 0).then_some(t)
}

/// [`transposed_tiles`] for a view copy of `sizes` reading its source at `strides`.
pub(super) fn transposed_view_tiles(sizes: &[i64], strides: &[i64], xb: i64) -> Option<Tiles> {
    let n = sizes.len();
    let t = tiles_of(sizes, xb)?;
    is_transposing(Some(strides[n - 2]), Some(strides[n - 1])).then_some(t)
}

/// Whether a read with these strides along the second-last and the last dim (`None`:
/// not a plain stride) is contiguous along the former and strided along the latter.
fn is_transposing(second_last: Option<i64>, last: Option<i64>) -> bool {
    second_last == Some(1) && last.is_some_and(|c| c.abs() > 1)
}

/// Warps of a tiled kernel of `xb` elements: one group of 4 adjacent elements a thread
/// (a second group's position in its tile is past what LLVM proves adjacent, and its
/// stores would not be 128-bit).
pub(super) fn tiled_warps(xb: i64) -> i64 {
    (xb / 128).clamp(1, 32)
}

impl Lowering {
    /// The flat rows of tile `pid` of `t`: the tile `(o, tp, tq)` (outer index, tile
    /// row, tile column; tile columns fastest), its element `j` at `(j / TQ, j % TQ)`.
    pub(super) fn tile_rows(&mut self, pid: V, j: V, t: Tiles) -> V {
        let (row_tiles, col_tiles) = (t.p / t.tp, t.q / t.tq);
        let outer = self.floordiv(pid, row_tiles * col_tiles);
        let in_plane = self.modulo(pid, row_tiles * col_tiles);
        let tile_row = self.floordiv(in_plane, col_tiles);
        let tile_col = self.modulo(in_plane, col_tiles);
        let mut start = V::S(self.b.index(0));
        for (v, stride) in [(outer, t.p * t.q), (tile_row, t.tp * t.q), (tile_col, t.tq)] {
            let c = self.index(stride);
            let term = self.iop("arith.muli", v, c);
            start = self.iop("arith.addi", start, term);
        }
        // By shift and mask (`tq` is a power of two): the GPU lowering's groups of 4
        // adjacent elements then stay visibly adjacent for LLVM (128-bit stores).
        let shift = self.index(i64::from(t.tq.trailing_zeros()));
        let low = self.index(t.tq - 1);
        let (jp, jq) = (self.iop("arith.shrui", j, shift), self.iop("arith.andi", j, low));
        let q = self.index(t.q);
        let down = self.iop("arith.muli", jp, q);
        let within = self.iop("arith.addi", down, jq);
        self.iop("arith.addi", start, within)
    }
}
