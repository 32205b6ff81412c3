//! Library kernels and copies: mm/bmm through `fuselab_sgemm` with the operands' view
//! strides, convolution as im2col + sgemm, half types through f32 scratch, views.

use super::*;
use fuselab_dialects::build::CmpI;
use fuselab_dialects::loops::StoredOrder;

/// The most bytes of im2col columns one tile of a convolution's output rows fills
/// before its GEMM: the tile is still in cache when the GEMM packs it. resnet_block
/// (`fuse-run --bench --runs 10`, 2-core Intel Xeon VM, 2 MiB L2, alternating): the
/// whole image (7.2 MB) 34–47 ms, 4 MiB tiles (half an image) 30–40, 2 MiB 40–43,
/// 1 MiB 33–37, 512 KiB 42–53 (the smaller tiles' GEMMs fall below
/// `OPENBLAS_MIN_MACS` onto matrixmultiply).
pub const COL_TILE_BYTES: i64 = 1 << 22;

/// [`COL_TILE_BYTES`] for a convolution whose images and tiles run as parallel chunks:
/// each chunk keeps its tile on its own stack (libomp's workers get 4 MiB) and in its
/// own core's L2 (1 MiB tiles ran as fast as 4 MiB ones on one thread, above).
pub const PARALLEL_COL_TILE_BYTES: i64 = 1 << 20;

impl Gen {
    /// `mm` / `bmm` (with operand views and an optional bias) as `fuselab_sgemm` calls;
    /// `convolution` goes to [`Gen::convolution`].
    pub(super) fn matmul(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        // An f32 mm written into its slice of a concatenation (Inductor's NonOwningLayout)
        // computes straight there: the concat's buffer at an offset, rows `ld` apart.
        let slice = self
            .concat_slice(op)?
            .filter(|(concat, _, _)| concat.ty.dtype == DType::F32);
        let out = match &slice {
            Some((concat, _, _)) => concat.clone(),
            None => self.result_buffer(op)?,
        };
        let operands = ir::operands(op);
        let views: Vec<Vec<i64>> = fuselab_dialects::loops::operand_views(op);
        let kind = ir::attr(op, "kind")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        if kind == "convolution" {
            // Each operand's buffer with its view (a permuted or selected input, a
            // channels-last copy), if any.
            let mut operands_viewed = Vec::with_capacity(operands.len());
            for (i, &operand) in operands.iter().enumerate() {
                let base = self.buffer(op, operand)?;
                let layout = views.get(i).filter(|v| !v.is_empty()).cloned();
                operands_viewed.push((base, layout));
            }
            return self.convolution(op, out, &operands_viewed);
        }
        if kind != "mm" && kind != "bmm" {
            return Err(err(
                op,
                format!("the CPU code generator has no '{kind}' extern yet"),
            ));
        }
        // The product's own shape (`out` may be a concatenation it is a slice of).
        let shape = &ir::tensor_type(ir::result(op, 0))
            .ok_or_else(|| err(op, "result is not a supported tensor"))?
            .shape;
        let r = shape.len();
        let (m, n) = (shape[r - 2], shape[r - 1]);
        let inputs = [self.buffer(op, operands[0])?, self.buffer(op, operands[1])?];
        let ([a, b], target) = self.in_f32(op, "matmuls", &out, inputs)?;
        // Logical shapes and strides of the operands (views or contiguous).
        let k = {
            let v = views.first().filter(|v| !v.is_empty());
            match v {
                Some(v) => v[(v.len() - 1) / 2],
                None => *a.ty.shape.last().unwrap_or(&1),
            }
        };
        // Offset and strides of each operand: its view, or contiguous.
        let layout = |view: Option<&Vec<i64>>, logical: Vec<i64>| -> (i64, Vec<i64>) {
            match view.filter(|v| !v.is_empty()) {
                Some(v) => (v[0], v[(v.len() - 1) / 2 + 1..].to_vec()),
                None => (0, contiguous_strides(&logical)),
            }
        };
        let bmm = kind == "bmm";
        let batch = if bmm { shape[0] } else { 1 };
        let (a_logical, b_logical) = if bmm {
            (vec![batch, m, k], vec![batch, k, n])
        } else {
            (vec![m, k], vec![k, n])
        };
        let (ao, astr) = layout(views.first(), a_logical);
        let (bo, bstr) = layout(views.get(1), b_logical);
        let loop_ranges = if bmm { vec![batch, m, n] } else { vec![m, n] };
        // C = the bias broadcast over the rows (then C += A B), or C = A B.
        let beta = if let Some(&bias_v) = operands.get(2) {
            // The bias broadcast over the leading dims of the result.
            let bias = self.buffer(op, bias_v)?;
            let offset = r - bias.ty.rank();
            let ctx = self.b.context();
            let mut terms = Vec::new();
            let mut stride = 1i64;
            for d in (0..bias.ty.rank()).rev() {
                if bias.ty.shape[d] != 1 {
                    terms.push(Affine::dim(ctx, d + offset) * stride);
                }
                stride *= bias.ty.shape[d];
            }
            let index = terms
                .into_iter()
                .reduce(|a, b| a + b)
                .unwrap_or_else(|| Affine::constant(ctx, 0));
            self.broadcast_into(&bias, index, &target);
            1.0
        } else {
            0.0
        };
        // C += A B per batch by the BLAS (`fuselab_sgemm`, matrixmultiply's sgemm, which
        // takes any row and column strides, so views need no copy).
        let (pa, pb, pc) = (self.pointer(&a), self.pointer(&b), self.pointer(&target));
        let ivs = self.open_loops(&loop_ranges[..usize::from(bmm)]);
        let iv = ivs.first().copied();
        let (sa0, sb0) = if bmm { (astr[0], bstr[0]) } else { (0, 0) };
        let addr_a = self.address(pa, iv, sa0, ao);
        let addr_b = self.address(pb, iv, sb0, bo);
        let (c_offset, ldc) = slice.as_ref().map_or((0, n), |&(_, offset, ld)| (offset, ld));
        let addr_c = self.address(pc, iv, m * n, c_offset);
        let (ra, ca) = (astr[astr.len() - 2], astr[astr.len() - 1]);
        let (rb, cb) = (bstr[bstr.len() - 2], bstr[bstr.len() - 1]);
        self.call_sgemm(
            [m, n, k],
            (addr_a, ra, ca),
            (addr_b, rb, cb),
            beta,
            (addr_c, ldc, 1),
        );
        self.close_loops(ivs.len());
        self.finish_extern(op, &target, out);
        Ok(())
    }

    /// For an mm whose one reader is a `concat` extern it is written into: the concat's
    /// buffer (made now, kept for the concat), where the mm's slice starts and its row
    /// stride there.
    fn concat_slice(&mut self, op: MlirOperation) -> Result<Option<(Buf, i64, i64)>, CodegenError> {
        let Some((concat, dim, start)) = fuselab_dialects::loops::concat_part(ir::result(op, 0)) else {
            return Ok(None);
        };
        let buf = self.concat_buffer(concat)?;
        let cols = buf.ty.shape[1];
        let offset = if dim == 0 { start * cols } else { start };
        Ok(Some((buf, offset, cols)))
    }

    /// A `concat` extern: its f32 mm operands wrote into its buffer already
    /// ([`Gen::matmul`]); an operand computed elsewhere (a half-precision mm) is copied
    /// into its slice.
    pub(super) fn concat(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        let buf = self.concat_buffer(op)?;
        let (dim, starts) = fuselab_dialects::loops::concat_slices(op)
            .ok_or_else(|| err(op, "concat without a valid 'dim'"))?;
        let strides = contiguous_strides(&buf.ty.shape);
        for (v, start) in ir::operands(op).into_iter().zip(starts) {
            let part = self.buffer(op, v)?;
            if part.id == buf.id {
                continue;
            }
            let mut at = vec![0; buf.ty.rank()];
            at[dim] = start;
            let offset: i64 = at.iter().zip(&strides).map(|(a, s)| a * s).sum();
            let mut layout = vec![offset];
            layout.extend(&part.ty.shape);
            layout.extend(&strides);
            self.strided_copy(&buf, &layout, &part, true);
        }
        Ok(())
    }

    /// The operands and the result buffer an extern computes with, all f32: an f32
    /// extern uses its own buffers; an f16 / bf16 one has its operands widened into
    /// scratch buffers and computes into an f32 scratch that [`Gen::finish_extern`]
    /// narrows into the result once.
    pub(super) fn in_f32(
        &mut self,
        op: MlirOperation,
        what: &str,
        out: &Buf,
        [a, b]: [Buf; 2],
    ) -> Result<([Buf; 2], Buf), CodegenError> {
        match out.ty.dtype {
            DType::F32 => Ok(([a, b], out.clone())),
            DType::F16 | DType::BF16 => {
                let operands = [self.convert(&a, DType::F32), self.convert(&b, DType::F32)];
                Ok((operands, self.scratch(&out.ty.shape, DType::F32)))
            }
            other => Err(err(op, format!("{other} {what} are not generated"))),
        }
    }

    /// The extern `op` computed into `target` ([`Gen::in_f32`]): narrowed into `out`
    /// if that is a scratch buffer; `out` becomes the result's buffer.
    pub(super) fn finish_extern(&mut self, op: MlirOperation, target: &Buf, out: Buf) {
        if target.ty.dtype != out.ty.dtype {
            self.copy_converting(target, &out);
        }
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
    }

    /// Fills the f32 buffer `target` with `src` read at `index`, an affine expression of
    /// the target's loop variables `d0, d1, ...` (a bias broadcast).
    pub(super) fn broadcast_into(&mut self, src: &Buf, index: Affine, target: &Buf) {
        let shape = target.ty.shape.clone();
        let ivs = self.open_loops(&shape);
        let map = fuselab_dialects::build::affine_map(self.b.context(), shape.len(), 0, &[index]);
        let ix = self.b.apply(map, &ivs, &[]);
        let s = self.val(src);
        let mut v = self.b.load(s, ix);
        if src.ty.dtype.is_half() {
            v = self.widened(v, src.ty.dtype);
        }
        let flat = self.flat_index(&ivs, &shape);
        let t = self.val(target);
        self.b.store(v, t, flat);
        self.close_loops(shape.len());
    }

    /// `C = A B + beta C` through `fuselab_sgemm` for `[m, n, k]` (`A` is m x k, `B`
    /// k x n); each operand is an i64 address with its row and column strides in
    /// elements. Inside a parallel loop the call is `fuselab_sgemm_serial`.
    pub(super) fn call_sgemm(
        &mut self,
        [m, n, k]: [i64; 3],
        a: (Value, i64, i64),
        b: (Value, i64, i64),
        beta: f32,
        c: (Value, i64, i64),
    ) {
        let ints: Vec<Value> = [m, n, k, a.1, a.2, b.1, b.2, c.1, c.2]
            .iter()
            .map(|&v| self.b.int(64, v))
            .collect();
        let beta_c = self.b.f32(beta);
        let symbol = if self.func.runs_in_parallel_loop() {
            SGEMM_SERIAL
        } else {
            SGEMM
        };
        self.runtime_symbols.insert(symbol);
        self.b.call(
            symbol,
            &[
                ints[0], ints[1], ints[2], a.0, ints[3], ints[4], b.0, ints[5], ints[6], beta_c, c.0,
                ints[7], ints[8],
            ],
        );
    }

    /// N-d convolution: first oneDNN's primitive (`fuselab_conv`, reading the input
    /// and weight through their views' strides — a channels-last copy as it is), and
    /// where that returns 0 im2col + GEMM, per image, group and tile of output rows:
    /// the viewed operands copied out of their views, the receptive fields of every
    /// output position of the tile gathered into a scratch `col[(c, k...), (s...)]` (0
    /// where the window leaves the input: padding), then `out[n, group, tile] =
    /// W[group] x col` by `fuselab_sgemm` (on top of the bias, broadcast first).
    /// f16/bf16 run in f32 scratch buffers, as matmuls do.
    pub(super) fn convolution(
        &mut self,
        op: MlirOperation,
        out: Buf,
        operands: &[(Buf, Option<Vec<i64>>)],
    ) -> Result<(), CodegenError> {
        let layouts = [operands[0].1.clone(), operands[1].1.clone()];
        let inputs = [operands[0].0.clone(), operands[1].0.clone()];
        let bias = match operands.get(2) {
            Some((base, Some(layout))) => Some(self.dense_copy(base, layout)),
            Some((base, None)) => Some(base.clone()),
            None => None,
        };
        // The operands in f32 (their buffers: a view's layout still applies).
        let ([x_src, w_src], target) = self.in_f32(op, "convolutions", &out, inputs)?;
        // (offset, logical shape, strides) of input and weight, in elements.
        let [(x_offset, x_shape, x_strides), (w_offset, w_shape, w_strides)] =
            [(&x_src, &layouts[0]), (&w_src, &layouts[1])].map(|(buf, layout)| match layout {
                Some(l) => {
                    let rank = (l.len() - 1) / 2;
                    (l[0], l[1..=rank].to_vec(), l[rank + 1..].to_vec())
                }
                None => (0, buf.ty.shape.clone(), buf.ty.contiguous_strides()),
            });
        let spatial = x_shape.len() - 2;
        let list = |name: &str, default: i64| {
            let v = i64s(op, name);
            if v.is_empty() {
                vec![default; spatial]
            } else {
                v
            }
        };
        let (stride, padding, dilation) = (list("stride", 1), list("padding", 0), list("dilation", 1));
        let groups = ir::integer(op, "groups").unwrap_or(1);
        let (batch, cin) = (x_shape[0], x_shape[1]);
        let (cin_g, cout_g) = (w_shape[1], w_shape[0] / groups.max(1));
        let kernel: Vec<i64> = w_shape[2..].to_vec();
        // A channels-last result (`result_order`): oneDNN writes it through its strides;
        // the im2col code below computes the logical result in a scratch buffer and
        // copies it in.
        let stored = StoredOrder::of(op).map_err(|m| err(op, m))?;
        let (logical, y_strides) = match &stored {
            Some(order) => (
                order.logical_shape(&target.ty.shape),
                order.logical_strides(&target.ty.shape),
            ),
            None => (target.ty.shape.clone(), target.ty.contiguous_strides()),
        };
        let out_spatial: Vec<i64> = logical[2..].to_vec();
        let s_total: i64 = out_spatial.iter().product();
        let k_total: i64 = cin_g * kernel.iter().product::<i64>();
        let in_spatial: i64 = x_shape[2..].iter().product();
        let cout = w_shape[0];
        // oneDNN's convolution first (`fuselab_conv`, on the step's threads); where it
        // returns 0 the im2col code below runs.
        let bias_f32 = match &bias {
            Some(b) if b.ty.shape != [cout] => {
                return Err(err(op, "a convolution's bias is not [out channels]"))
            }
            Some(b) if b.ty.dtype != DType::F32 => Some(self.convert(b, DType::F32)),
            other => other.clone(),
        };
        let padded = |v: &[i64], fill: i64, n: usize| -> Vec<i64> {
            (0..n).map(|i| v.get(i).copied().unwrap_or(fill)).collect()
        };
        let mut ints = vec![spatial as i64, batch, cin, cout, groups];
        ints.extend(padded(&x_shape[2..], 1, 3));
        ints.extend(padded(&kernel, 1, 3));
        ints.extend(padded(&out_spatial, 1, 3));
        ints.extend(padded(&stride, 1, 3));
        ints.extend(padded(&padding, 0, 3));
        ints.extend(padded(&dilation, 1, 3));
        ints.extend(padded(&x_strides, 0, 5));
        ints.extend(padded(&w_strides, 0, 5));
        ints.extend(padded(&y_strides, 0, 5));
        let threads = i64::from(!self.parallel || self.func.runs_in_parallel_loop());
        ints.push(threads);
        let mut args: Vec<Value> = ints.iter().map(|&v| self.b.int(64, v)).collect();
        let zero_address = self.b.int(64, 0);
        for (buf, offset) in [
            (Some(&x_src), x_offset),
            (Some(&w_src), w_offset),
            (bias_f32.as_ref(), 0),
            (Some(&target), 0),
        ] {
            args.push(match buf {
                Some(buf) => {
                    let p = self.pointer(buf);
                    self.address(p, None, 0, offset)
                }
                None => zero_address,
            });
        }
        self.runtime_symbols.insert(CONV);
        let i32t = self.b.int_type(32);
        let done = self.b.call_value(CONV, &args, i32t);
        let zero = self.b.int(32, 0);
        let refused = self.b.cmpi(CmpI::Eq, done, zero);
        self.b.open_if(refused);
        let result = target.clone();
        let target = match &stored {
            Some(_) => self.scratch(&logical, DType::F32),
            None => result.clone(),
        };
        // im2col reads contiguous operands: a viewed one is copied out of its view.
        let [x, w] = [(&x_src, &layouts[0]), (&w_src, &layouts[1])].map(|(buf, layout)| match layout {
            Some(l) => self.dense_copy(buf, l),
            None => buf.clone(),
        });
        // The bias broadcast over images and positions (then C += W col).
        let ctx = self.b.context();
        let beta = if let Some(b) = bias {
            self.broadcast_into(&b, Affine::dim(ctx, 1), &target);
            1.0
        } else {
            0.0
        };
        // Tiles of `rows` of the outermost output dim, their im2col columns within
        // COL_TILE_BYTES: each tile is filled and multiplied while it is in cache.
        let tile_bytes = if self.parallel {
            PARALLEL_COL_TILE_BYTES
        } else {
            COL_TILE_BYTES
        };
        let row_elems = s_total / out_spatial[0].max(1);
        let rows = (1..=out_spatial[0])
            .rev()
            .find(|&r| out_spatial[0] % r == 0 && k_total * r * row_elems * 4 <= tile_bytes)
            .unwrap_or(1);
        let tile = rows * row_elems;
        // Images, groups and tiles are independent: with parallel steps they are chunks
        // of an `scf.parallel` ([`Gen::open_nest`]), each filling its tile on its own
        // stack and running its GEMMs on its own thread (one chunk's fill and GEMM stay
        // in one core's cache; splitting each GEMM and fill over the threads instead
        // scaled resnet_block 1.17x on 2 threads). A tile above the stack budget stays
        // in a global, the tiles on one thread (each fill still split, below).
        let macs = if k_total * tile * 4 <= PARALLEL_COL_TILE_BYTES {
            batch * cout * s_total * k_total
        } else {
            0
        };
        let nest = self.open_nest(&[batch, groups, out_spatial[0] / rows], macs);
        let (n, g, t) = (nest.ivs[0], nest.ivs[1], nest.ivs[2]);
        // The tile: on the chunk's stack when the tiles are parallel chunks, else in a
        // global, whose memref each function that touches it takes for itself (the fill
        // below may be outlined on its own).
        let col = self.nest_scratch(nest.caller.is_some(), k_total * tile);
        let colv = self.nest_scratch_memref(&col);
        let (pw, pc, pcol) = (self.pointer(&w), self.pointer(&target), self.memref_pointer(colv));
        // col[(c, k...), (s...)] = x[n, g*cin_g + c, s*stride - pad + k*dil] or 0, s in
        // the tile.
        let mut fill = vec![cin_g];
        fill.extend_from_slice(&kernel);
        fill.push(rows);
        fill.extend_from_slice(&out_spatial[1..]);
        // Without parallel chunks of tiles the fill is split over input channels into
        // parallel chunks (with parallel steps): each stores its own rows of the tile.
        let (fill_nest, outer) = self.open_nest_passing(&fill[..1], k_total * tile, &[n, g, t]);
        let (fill_n, fill_g, fill_t) = (outer[0], outer[1], outer[2]);
        let mut fivs = fill_nest.ivs.clone();
        fivs.extend(self.open_loops(&fill[1..]));
        let mut conds = Vec::new();
        let mut positions = Vec::new();
        let (d0, d1, d2) = (Affine::dim(ctx, 0), Affine::dim(ctx, 1), Affine::dim(ctx, 2));
        for sp in 0..spatial {
            let (k_iv, s_iv) = (fivs[1 + sp], fivs[1 + spatial + sp]);
            // Along the outermost dim the position is in the tile `t`.
            let out_pos = if sp == 0 { d1 + d2 * rows } else { d1 };
            let e = out_pos * stride[sp] - Affine::constant(ctx, padding[sp]) + d0 * dilation[sp];
            let p = self.b.apply_expr(e, &[k_iv, s_iv, fill_t], &[]);
            let (lo, hi) = (self.b.index(0), self.b.index(x.ty.shape[2 + sp] - 1));
            let ge = self.b.cmpi(CmpI::Sge, p, lo);
            let le = self.b.cmpi(CmpI::Sle, p, hi);
            // Clamped into the input for the (discarded) out-of-bounds loads.
            let cl = self.b.binary("arith.maxsi", p, lo);
            let c = self.b.binary("arith.minsi", cl, hi);
            conds.push(ge);
            conds.push(le);
            positions.push(c);
        }
        let mut in_expr = (d0 * cin + d1 * cin_g + d2) * in_spatial;
        for sp in 0..spatial {
            let inner: i64 = x.ty.shape[3 + sp..].iter().product();
            in_expr = in_expr + Affine::sym(ctx, sp) * inner;
        }
        let ix = self.b.apply_expr(in_expr, &[fill_n, fill_g, fivs[0]], &positions);
        let xv = self.val(&x);
        let v = self.b.load(xv, ix);
        let zero = self.b.f32(0.0);
        let mut inside = conds.first().copied();
        for &c in conds.iter().skip(1) {
            inside = inside.map(|i| self.b.binary("arith.andi", i, c));
        }
        let value = match inside {
            Some(inside) => self.b.select(inside, v, zero),
            None => v,
        };
        let flat = self.flat_index(&fivs, &fill);
        let colv = self.nest_scratch_memref(&col);
        self.b.store(value, colv, flat);
        self.close_loops(fill.len() - 1);
        self.close_nest(fill_nest);
        // out[n, g*cout_g.., s] (+)= W[g*cout_g.., (c, k...)] x col
        let addr_w = self.address(pw, Some(g), cout_g * k_total, 0);
        let addr_col = self.address(pcol, None, 0, 0);
        let image = self.b.apply_expr(
            d0 * (cout * s_total) + d1 * (cout_g * s_total) + d2 * tile,
            &[n, g, t],
            &[],
        );
        let addr_c = self.address(pc, Some(image), 1, 0);
        self.call_sgemm(
            [cout_g, tile, k_total],
            (addr_w, k_total, 1),
            (addr_col, tile, 1),
            beta,
            (addr_c, s_total, 1),
        );
        self.close_nest(nest);
        if let Some(order) = &stored {
            self.strided_copy(&result, &order.logical_view(&result.ty.shape), &target, true);
        }
        self.b.close("scf.yield", &[]);
        self.finish_extern(op, &result, out);
        Ok(())
    }

    /// A strided view (`loop.view`) copied into its output buffer.
    pub(super) fn view_copy(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        if self.bufs.contains_key(&(ir::result(op, 0).ptr as usize)) {
            // Written already by the op it views (an attention writing the returned
            // output through this view's strides).
            return Ok(());
        }
        let out = self.result_buffer(op)?;
        let base = self.buffer(op, ir::operand(op, 0))?;
        self.copy_strided(&base, &i64s(op, "layout"), &out);
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    /// The strided view `layout` of `base` copied into a new contiguous scratch buffer.
    pub(super) fn dense_copy(&mut self, base: &Buf, layout: &[i64]) -> Buf {
        let rank = (layout.len() - 1) / 2;
        let dense = self.scratch(&layout[1..=rank], base.ty.dtype);
        self.copy_strided(base, layout, &dense);
        dense
    }

    /// Copies the strided view `layout` (`[offset, sizes..., strides...]`) of `base` into
    /// the contiguous buffer `out` of those sizes.
    pub(super) fn copy_strided(&mut self, base: &Buf, layout: &[i64], out: &Buf) {
        self.strided_copy(base, layout, out, false);
    }

    /// Between the strided view `layout` of `strided` and the contiguous `dense`: into
    /// the view when `to_view`, out of it otherwise.
    fn strided_copy(&mut self, strided: &Buf, layout: &[i64], dense: &Buf, to_view: bool) {
        let rank = (layout.len() - 1) / 2;
        let (offset, sizes, strides) = (layout[0], layout[1..=rank].to_vec(), layout[rank + 1..].to_vec());
        let ivs = self.open_loops(&sizes);
        let ctx = self.b.context();
        let expr = strides
            .iter()
            .enumerate()
            .fold(Affine::constant(ctx, offset), |e, (d, &s)| {
                e + Affine::dim(ctx, d) * s
            });
        let at = self.b.apply_expr(expr, &ivs, &[]);
        let flat = self.flat_index(&ivs, &sizes);
        let (view, contiguous) = (self.val(strided), self.val(dense));
        if to_view {
            let v = self.b.load(contiguous, flat);
            self.b.store(v, view, at);
        } else {
            let v = self.b.load(view, at);
            self.b.store(v, contiguous, flat);
        }
        self.close_loops(rank);
    }
}
