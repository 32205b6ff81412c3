//! Transposing pointwise kernels and view copies as 2-D tiles ([`transposed_tiles`]),
//! as Inductor's Triton back end tiles them, with the transposing loads converted
//! through shared memory ([`Lowering::transposed_load`]).

use super::*;
use fuselab_dialects::loops::index::{from_affine_map_attr, IndexExpr};
use fuselab_dialects::tile::names as tile_op;

/// A pointwise kernel's rows as a `p x q` matrix — `y`, the row dims up to and
/// including `split`, by `x`, the dims after it — whose programs take `tp x tq` tiles,
/// `tq` consecutive along `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tiles {
    p: i64,
    q: i64,
    tp: i64,
    tq: i64,
    /// The last row dim of `y`.
    split: usize,
    /// How many row dims there are.
    dims: usize,
}

/// Elements of a tile row: 32 f32 values are one 128-byte line.
const TILE_COLUMNS: i64 = 32;

/// The most loads of one kernel converted through shared memory (each takes
/// `tq x (tp + 1)` elements of it: 4.2 KB for 32 x 32 f32 tiles).
const MAX_CONVERSIONS: usize = 4;

/// Inductor's 2-D tiling of a transposing pointwise kernel (`candidate_tilings`: a read
/// whose stride-1 dim is not the last splits the ranges after that dim into a `(y, x)`
/// grid; `tiling_scores` weigh such reads): when a member's load is contiguous along a
/// row dim `d` before the last and strided along the last, a program takes a `XBLOCK /
/// 32 x 32` tile of `(y, x)` = (dims `..= d`, dims after `d`) instead of `XBLOCK`
/// consecutive elements. Its stores are whole 128-byte lines; its transposing loads
/// read the tile along `y` and reach the store's order through shared memory
/// ([`Lowering::transposed_load`]) — where consecutive elements read a new line each,
/// the same line reached 32 programs on different SMs. Only where the tile divides both
/// `y` and `x` (no masks); the values are the same either way, only which program
/// computes which element changes.
pub(super) fn transposed_tiles(
    run: &[MlirOperation],
    prefix: &[i64],
    xb: i64,
    inline: &std::collections::HashMap<usize, MlirOperation>,
) -> Option<Tiles> {
    let n = prefix.len();
    let index_of = |load: MlirOperation| {
        ir::attr(load, "index")
            .and_then(from_affine_map_attr)
            .filter(|(_, dims, _)| *dims == n)
            .map(|(e, _, _)| e)
    };
    // A load of a kernel-local producer at the reader's own position (a TVM group's
    // transpose feeding its epilogue) reads what the producer's loads read.
    let identity = fuselab_dialects::loops::index::contiguous_index(prefix);
    let split_of = |node: MlirOperation| {
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
                if let Some(split) =
                    index_of(op).and_then(|e| transposing_split(|d| e.dim_coefficient(d), prefix))
                {
                    return Some(split);
                }
                if let Some(&producer) = inline.get(&(ir::operand(op, 0).ptr as usize)) {
                    if index_of(op).as_ref() == Some(&identity) {
                        stack.push(producer);
                    }
                }
            }
        }
        None
    };
    let split = run.iter().find_map(|&m| split_of(m))?;
    tiles_of(prefix, split, xb)
}

/// The tiles of `xb` elements over `sizes` split after dim `split`, if they divide
/// both sides.
fn tiles_of(sizes: &[i64], split: usize, xb: i64) -> Option<Tiles> {
    if split + 1 >= sizes.len() || xb < TILE_COLUMNS {
        return None;
    }
    let t = Tiles {
        p: sizes[..=split].iter().product(),
        q: sizes[split + 1..].iter().product(),
        tp: xb / TILE_COLUMNS,
        tq: TILE_COLUMNS,
        split,
        dims: sizes.len(),
    };
    (t.p % t.tp == 0 && t.q % t.tq == 0).then_some(t)
}

/// [`transposed_tiles`] for a view copy of `sizes` reading its source at `strides`.
pub(super) fn transposed_view_tiles(sizes: &[i64], strides: &[i64], xb: i64) -> Option<Tiles> {
    let split = transposing_split(|d| strides.get(d).copied(), sizes)?;
    tiles_of(sizes, split, xb)
}

/// The innermost dim `d` before the last of `sizes` along which a read with these
/// coefficients (`None`: not a plain stride) is contiguous while strided along the
/// last (size-1 dims, whose coefficients mean nothing, are neither).
fn transposing_split(coefficient: impl Fn(usize) -> Option<i64>, sizes: &[i64]) -> Option<usize> {
    let n = sizes.len();
    if n < 2 || sizes[n - 1] == 1 || coefficient(n - 1).is_none_or(|c| c.abs() <= 1) {
        return None;
    }
    (0..n - 1)
        .rev()
        .find(|&d| sizes[d] > 1 && coefficient(d).is_some_and(|c| c.abs() == 1))
}

/// Warps of a tiled kernel of `xb` elements: one group of 4 adjacent elements a thread
/// (a second group's position in its tile is past what LLVM proves adjacent, and its
/// stores would not be 128-bit).
pub(super) fn tiled_warps(xb: i64) -> i64 {
    (xb / 128).clamp(1, 32)
}

impl Lowering {
    /// Where tile `pid` of `t` starts: tile `(ty, tx)`, tile columns fastest.
    pub(super) fn tile_start(&mut self, pid: V, t: Tiles) -> V {
        let col_tiles = t.q / t.tq;
        let tile_row = self.udiv(pid, col_tiles);
        let tile_col = self.urem(pid, col_tiles);
        let mut start = V::S(self.b.index(0));
        for (v, stride) in [(tile_row, t.tp * t.q), (tile_col, t.tq)] {
            let c = self.index(stride);
            let term = self.iop("arith.muli", v, c);
            start = self.iop("arith.addi", start, term);
        }
        start
    }

    /// The flat rows of the tile of `t` at `start`: its element `j` at `(j / TQ, j %
    /// TQ)` — or, `transposed`, at `(j % TP, j / TP)`: consecutive elements down a tile
    /// column, the order a load contiguous along `y` reads in.
    pub(super) fn tile_rows(&mut self, start: V, j: V, t: Tiles, transposed: bool) -> V {
        // By shift and mask (`tp`, `tq` are powers of two): the GPU lowering's groups of
        // 4 adjacent elements then stay visibly adjacent for LLVM (128-bit stores).
        let (fast, slow_first) = if transposed { (t.tp, false) } else { (t.tq, true) };
        let shift = self.index(i64::from(fast.trailing_zeros()));
        let low = self.index(fast - 1);
        let (hi, lo) = (self.iop("arith.shrui", j, shift), self.iop("arith.andi", j, low));
        let (jp, jq) = if slow_first { (hi, lo) } else { (lo, hi) };
        let q = self.index(t.q);
        let down = self.iop("arith.muli", jp, q);
        let within = self.iop("arith.addi", down, jq);
        self.iop("arith.addi", start, within)
    }

    /// `v` (a block loaded in the transposed order of `t`) in the kernel's order.
    pub(super) fn transpose_back(&mut self, v: V, t: Tiles) -> V {
        let value = Self::value_of(v);
        let ty = ir::value_type(value);
        let shape = ir::i64_array_attr(self.b.context(), &[t.tq, t.tp]);
        let out = self
            .b
            .value(tile_op::TRANSPOSE, &[value], ty, &[("shape", shape)]);
        V::B(out, [t.tp * t.tq, 1])
    }

    /// The state [`Transposed::dims_for`] needs for a kernel tiled by `t` whose rows
    /// index `prefix`: the row coords of the transposed element order.
    pub(super) fn transposed_rows(&mut self, start: V, j: Value, t: Tiles, prefix: &[i64]) -> Transposed {
        let xb = t.tp * t.tq;
        let flat = self.tile_rows(start, V::B(j, [xb, 1]), t, true);
        let trows = self.unravel(flat, prefix);
        Transposed {
            trows,
            budget: MAX_CONVERSIONS,
            tiles: t,
        }
    }
}

/// A tiled kernel's rows in the transposed element order, for its transposing loads.
pub(super) struct Transposed {
    tiles: Tiles,
    trows: Vec<V>,
    budget: usize,
}

impl Transposed {
    /// The dims to read a load at `index` over `coords` — the kernel's own rows (over
    /// `sizes`, then inner coords), its mask the rows' — at, when it reads the tile along
    /// `y` (contiguous along the split dim, strided along the last): the transposed
    /// rows, the load then converted to the kernel's order by
    /// [`Lowering::transpose_back`]. `None` when it does not, or the kernel's conversions
    /// are used up.
    pub(super) fn dims_for(&mut self, index: &IndexExpr, sizes: &[i64], coords: &[V]) -> Option<Vec<V>> {
        let split = transposing_split(|d| index.dim_coefficient(d), sizes);
        if split != Some(self.tiles.split)
            || index.dim_coefficient(self.tiles.split) != Some(1)
            || self.budget == 0
        {
            return None;
        }
        self.budget -= 1;
        let mut dims = self.trows.clone();
        dims.extend_from_slice(&coords[sizes.len()..]);
        Some(dims)
    }
}
