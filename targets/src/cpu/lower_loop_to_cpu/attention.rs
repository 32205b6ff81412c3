//! The `sdpa` extern on the CPU: scaled dot-product attention computed block by block,
//! as PyTorch's CPU flash attention (`_scaled_dot_product_flash_attention_for_cpu`,
//! which Inductor calls for the forms `--fuse-attention` replaces) does, so the
//! [L, S] score matrix of a head never goes to memory.
//!
//! Rule: for each batch and head, query rows in blocks of `rows` (their scores fit in
//! [`SCORE_BYTES`], which stays in the L2 cache next to the head's keys and values at
//! the workloads' head dims):
//! 1. `scores = Q_block K^T` by `fuselab_sgemm` (the operands' view strides, no copy);
//! 2. per row, `x = scores * scale + mask` and its max `m` (0 where the whole row is
//!    -inf), `e = exp(x - m)` written back, `sum(e)`;
//! 3. `out_block = e V` by `fuselab_sgemm` into the [B, L, H, Ev] result;
//! 4. each output row times `1 / sum` (0 for a row without a finite score, as torch's
//!    `_safe_softmax`): the division of the softmax moved after the product, as flash
//!    attention does — `Ev` divisions per row instead of `S`.
//!
//! With parallel steps (`parallel=true`) the (batch, head) pairs are chunks of an
//! `scf.parallel` calling the blocks as an outlined function (as a step's rows are),
//! whose block scratch is on its stack — one per thread — and whose GEMMs run on the
//! calling thread (`fuselab_sgemm_serial`): the attention workload went 91–94 → 50 ms
//! on 2 threads (it had been 103–106: only each GEMM split in row bands).
//!
//! f32 only (the CPU target runs fused attention for f32: `InductorBackend::fused_attention`);
//! the mask is additive f32 and broadcasts over its size-1 dims.

use super::*;
use fuselab_dialects::build::CmpF;
use fuselab_dialects::loops::ViewLayout;

/// The most bytes of scores one block of query rows keeps (the rows of a block: this
/// over `4 S`, at least 1, at most `L`). Larger blocks make the two products larger
/// GEMMs: on the attention workload (512 keys; `fuse-run --bench --runs 5`, a 2-core
/// Intel Xeon VM with AVX-512 and 2 MiB of L2 per core) 32 KiB took 121–127 ms,
/// 64 KiB 105–106, 128 KiB 101–103, 256 KiB 90–92, 512 KiB 87–94, 1–2 MiB 90–94 (the
/// unblocked bmm + softmax + bmm: 158–175).
pub const SCORE_BYTES: i64 = 512 * 1024;

/// An operand of the extern as a strided 4-D view of its buffer.
struct View {
    buf: Buf,
    offset: i64,
    sizes: [i64; 4],
    /// Element strides, 0 along broadcast (size-1) dims.
    strides: [i64; 4],
}

/// Loop variables and sizes a block of query rows is emitted with.
struct Block {
    /// Batch and head.
    b: Value,
    h: Value,
    /// First query row of the block.
    row0: Value,
    /// Rows in the block.
    rows: i64,
}

/// The views and sizes of one attention.
struct Plan {
    q: View,
    k: View,
    v: View,
    mask: Option<View>,
    scale: f64,
    /// [B, H, L, S, E, Ev].
    dims: [i64; 6],
    out: Buf,
    /// Element strides of batch, query row and head in `out`.
    out_strides: [i64; 3],
}

/// What the function running the blocks works with: the addresses
/// (`memref.extract_aligned_pointer_as_index`) of q, k, v, the output and the scores,
/// and the scores and 1 / sum memrefs of one block.
struct Work {
    pointers: [Value; 5],
    scores: Value,
    inverse: Value,
}

impl Gen {
    /// The `sdpa` extern `op` (module documentation).
    pub(super) fn attention(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        let operands = ir::operands(op);
        let roles = fuselab_dialects::loops::sdpa_operands(op)
            .ok_or_else(|| err(op, "an sdpa extern without a valid 'sdpa_operands'"))?;
        let views = fuselab_dialects::loops::operand_views(op);
        let scale = ir::float(op, "scale").ok_or_else(|| err(op, "an sdpa extern without 'scale'"))?;
        let view = |role: usize| -> Result<View, CodegenError> {
            let position = roles[role];
            let buf = self.buffer(op, operands[position])?;
            if buf.ty.dtype != DType::F32 {
                return Err(err(
                    op,
                    format!(
                        "{} attention is not generated for the CPU (f32 only)",
                        buf.ty.dtype
                    ),
                ));
            }
            let layout = match views.get(position).filter(|v| !v.is_empty()) {
                Some(v) => ViewLayout::parse(v).ok_or_else(|| err(op, "a malformed sdpa operand view"))?,
                None => ViewLayout {
                    offset: 0,
                    sizes: buf.ty.shape.clone(),
                    strides: contiguous_strides(&buf.ty.shape),
                },
            };
            let ViewLayout {
                offset,
                sizes,
                strides,
            } = layout;
            if sizes.len() > 4 {
                return Err(err(op, format!("an sdpa operand of rank {}", sizes.len())));
            }
            // Left-padded to 4-D; broadcast dims read index 0.
            let pad = 4 - sizes.len();
            let mut view = View {
                buf,
                offset,
                sizes: [1; 4],
                strides: [0; 4],
            };
            for (d, (&size, &stride)) in sizes.iter().zip(&strides).enumerate() {
                view.sizes[pad + d] = size;
                view.strides[pad + d] = if size == 1 { 0 } else { stride };
            }
            Ok(view)
        };
        let (q, k, v) = (view(0)?, view(1)?, view(2)?);
        let mask = if roles.len() > 3 { Some(view(3)?) } else { None };
        let [b, h, l, e] = q.sizes;
        let (s, ev) = (k.sizes[2], v.sizes[3]);
        let full = [b, h, l, s];
        let fits = k.sizes == [b, h, s, e]
            && v.sizes == [b, h, s, ev]
            && mask
                .as_ref()
                .is_none_or(|m| m.sizes.iter().zip(full).all(|(&x, n)| x == 1 || x == n));
        if !fits {
            return Err(err(op, "sdpa operands of mismatched shapes"));
        }
        if ir::tensor_type(ir::result(op, 0)).map(|t| t.shape) != Some(vec![b, l, h, ev]) {
            return Err(err(op, "an sdpa result that is not [B, L, H, Ev]"));
        }
        // Element strides of (batch, query row, head) in the buffer written: the
        // result's [B, L, H, Ev], or, when its only reader is the view back to [B, H, L,
        // Ev] that the function returns, that output itself (the view's copy is saved).
        let (out, out_strides, view) = match self.returned_heads_view(op, [b, h, l, ev]) {
            Some((view, buf)) => (buf, [h * l * ev, ev, l * ev], Some(view)),
            None => (self.result_buffer(op)?, [l * h * ev, h * ev, ev], None),
        };
        let rows = (SCORE_BYTES / (4 * s.max(1))).clamp(1, l.max(1));
        let plan = Plan {
            q,
            k,
            v,
            mask,
            scale,
            dims: [b, h, l, s, e, ev],
            out: out.clone(),
            out_strides,
        };
        // Heads are independent: with parallel steps they are split into chunks run by
        // an `scf.parallel` that calls an outlined function ([`Gen::open_nest`]), each
        // call with its block scratch on its own stack (at most SCORE_BYTES; libomp's
        // workers get 4 MiB of stack or the initial thread's limit) and GEMMs on its
        // own thread. Scores of one row above SCORE_BYTES stay in a global and on one
        // thread.
        let macs = if 4 * s <= SCORE_BYTES {
            b * h * l * s * (e + ev)
        } else {
            0
        };
        let nest = self.open_nest(&[b, h], macs);
        let outlined = nest.caller.is_some();
        let (scores, inverse) = (
            self.nest_scratch(outlined, rows * s),
            self.nest_scratch(outlined, rows),
        );
        let (scores, inverse) = (
            self.nest_scratch_memref(&scores),
            self.nest_scratch_memref(&inverse),
        );
        let pointers = [
            self.pointer(&plan.q.buf),
            self.pointer(&plan.k.buf),
            self.pointer(&plan.v.buf),
            self.pointer(&out),
            self.memref_pointer(scores),
        ];
        let work = Work {
            pointers,
            scores,
            inverse,
        };
        let block = |row0, rows| Block {
            b: nest.ivs[0],
            h: nest.ivs[1],
            row0,
            rows,
        };
        // Whole blocks in a loop, then the rows left over.
        let (blocks, rest) = (l / rows, l % rows);
        if blocks > 0 {
            let iv = self.open_loops(&[blocks]);
            let ctx = self.b.context();
            let row0 = self.b.apply_expr(Affine::dim(ctx, 0) * rows, &iv, &[]);
            self.attention_block(&plan, &work, &block(row0, rows));
            self.close_loops(1);
        }
        if rest > 0 {
            let row0 = self.b.index(blocks * rows);
            self.attention_block(&plan, &work, &block(row0, rest));
        }
        self.close_nest(nest);
        if let Some(view) = view {
            // The view's result is `out`, written: its copy has nothing left to do.
            self.bufs.insert(ir::result(view, 0).ptr as usize, out.clone());
        }
        self.finish_extern(op, &out, out.clone());
        Ok(())
    }

    /// Steps 1–4 of the module documentation for one block of query rows.
    fn attention_block(&mut self, p: &Plan, w: &Work, blk: &Block) {
        let [_, _, _, s, e, ev] = p.dims;
        let [pq, pk, pv, po, ps] = w.pointers;
        let at = [blk.b, blk.h, blk.row0];
        // 1. scores = Q_block K^T.
        let (q, k) = (&p.q, &p.k);
        let addr_q = self.strided_address(pq, &at, &q.strides[..3], q.offset);
        let addr_k = self.strided_address(pk, &at[..2], &k.strides[..2], k.offset);
        let addr_s = self.strided_address(ps, &[], &[], 0);
        self.call_sgemm(
            [blk.rows, s, e],
            (addr_q, q.strides[2], q.strides[3]),
            (addr_k, k.strides[3], k.strides[2]),
            0.0,
            (addr_s, s, 1),
        );
        // 2. Scaled, masked scores, their row max, exp and sum. Without a mask and with
        // a positive scale the scores are scaled where they are read again instead of
        // stored scaled: max(x c) = c max(x) exactly (rounding is monotonic), one store
        // pass fewer, the same values.
        let fold = p.mask.is_none() && p.scale > 0.0;
        let r = self.open_loops(&[blk.rows])[0];
        let scores = w.scores;
        let ctx = self.b.context();
        let neg_inf = self.b.f32(f32::NEG_INFINITY);
        let scale = self.b.f32(p.scale as f32);
        let max_acc = self.open_accumulation(&[s], neg_inf);
        let j = max_acc.ivs[0];
        let flat = self
            .b
            .apply_expr(Affine::dim(ctx, 0) * s + Affine::dim(ctx, 1), &[r, j], &[]);
        let raw = self.b.load(scores, flat);
        let mut x = raw;
        if !fold {
            x = self.b.binary("arith.mulf", raw, scale);
            if let Some(m) = &p.mask {
                let [m0, m1, m2, m3] = m.strides;
                let index = Affine::dim(ctx, 0) * m0
                    + Affine::dim(ctx, 1) * m1
                    + (Affine::dim(ctx, 2) + Affine::dim(ctx, 3)) * m2
                    + Affine::dim(ctx, 4) * m3;
                let i = self
                    .b
                    .apply_expr(index.add_const(m.offset), &[blk.b, blk.h, blk.row0, r, j], &[]);
                let memref = self.val(&m.buf);
                let bias = self.b.load(memref, i);
                x = self.b.binary("arith.addf", x, bias);
            }
            self.b.store(x, scores, flat);
        }
        let next = self.reassociated("arith.maximumf", max_acc.carried, x);
        let mut max = self.close_accumulation(max_acc, next);
        if fold {
            max = self.b.binary("arith.mulf", max, scale);
        }
        let all_masked = self.b.cmpf(CmpF::Oeq, max, neg_inf);
        let zero = self.b.f32(0.0);
        let max = self.b.select(all_masked, zero, max);
        let sum_acc = self.open_accumulation(&[s], zero);
        let j = sum_acc.ivs[0];
        let flat = self
            .b
            .apply_expr(Affine::dim(ctx, 0) * s + Affine::dim(ctx, 1), &[r, j], &[]);
        let mut x = self.b.load(scores, flat);
        if fold {
            x = self.b.binary("arith.mulf", x, scale);
        }
        let shifted = self.b.binary("arith.subf", x, max);
        let weight = match crate::math::expand(&mut self.b, "math.exp", shifted) {
            Some(w) => w,
            None => self.b.unary("math.exp", shifted),
        };
        self.b.store(weight, scores, flat);
        let next = self.reassociated("arith.addf", sum_acc.carried, weight);
        let sum = self.close_accumulation(sum_acc, next);
        let one = self.b.f32(1.0);
        let reciprocal = self.b.binary("arith.divf", one, sum);
        let empty = self.b.cmpf(CmpF::Oeq, sum, zero);
        let inverse = self.b.select(empty, zero, reciprocal);
        let inverse_buf = w.inverse;
        self.b.store(inverse, inverse_buf, r);
        self.close_loops(1);
        // 3. out_block = e V, rows `row` apart in the output.
        let addr_v = self.strided_address(pv, &at[..2], &p.v.strides[..2], p.v.offset);
        let [ob, row, oh] = p.out_strides;
        let addr_o = self.strided_address(po, &at, &[ob, oh, row], 0);
        self.call_sgemm(
            [blk.rows, ev, s],
            (addr_s, s, 1),
            (addr_v, p.v.strides[2], p.v.strides[3]),
            0.0,
            (addr_o, row, 1),
        );
        // 4. Each output row times its 1 / sum.
        let ivs = self.open_loops(&[blk.rows, ev]);
        let out = self.val(&p.out);
        let index = (Affine::dim(ctx, 1) + Affine::dim(ctx, 3)) * row
            + Affine::dim(ctx, 0) * ob
            + Affine::dim(ctx, 2) * oh
            + Affine::dim(ctx, 4);
        let i = self
            .b
            .apply_expr(index, &[blk.b, blk.row0, blk.h, ivs[0], ivs[1]], &[]);
        let y = self.b.load(out, i);
        let inverse_buf = w.inverse;
        let scale = self.b.load(inverse_buf, ivs[0]);
        let scaled = self.b.binary("arith.mulf", y, scale);
        self.b.store(scaled, out, i);
        self.close_loops(2);
    }

    /// The `loop.view` and output buffer when the only reader of the `sdpa` extern
    /// `op`'s [B, L, H, Ev] result is a view of it as [B, H, L, Ev] (dims 1 and 2
    /// swapped) whose result the function returns directly.
    fn returned_heads_view(
        &self,
        op: MlirOperation,
        [b, h, l, ev]: [i64; 4],
    ) -> Option<(MlirOperation, Buf)> {
        let [view] = ir::users(ir::result(op, 0))[..] else {
            return None;
        };
        let swapped = [0, b, h, l, ev, l * h * ev, ev, h * ev, 1];
        if ir::op_name(view) != names::VIEW || i64s(view, "layout") != swapped {
            return None;
        }
        let out = self.direct_out.get(&(ir::result(view, 0).ptr as usize))?;
        Some((view, out.clone()))
    }
}
