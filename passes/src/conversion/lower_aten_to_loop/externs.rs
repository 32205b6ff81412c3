//! Matmul-like aten ops as `loop.extern` nodes (library kernels), the fold of a bias
//! add into the extern, and concatenations of their results as `concat` externs.

use super::*;

/// A 4-D convolution operand read through a channels-last copy, where its channels-last
/// order differs from its contiguous one: a graph input read as it is stored, or a
/// pointwise node's result read whole that only this convolution uses (`value`: the
/// aten operand) — Inductor's layout optimization gives such a buffer (FlexibleLayout;
/// its `clone` lowering ignores `memory_format`) the channels-last layout, and the copy
/// that computes it in that order takes the node's place once the node is inlined into
/// it. Returns the shape, the dtype and the copy's origin (`convolution` for a graph
/// input, else the node's first origin).
fn channels_last_source(access: &Access, value: MlirValue) -> Option<(Vec<i64>, DType, String)> {
    let origin = match ir::defining_op(access.stored_buffer()?) {
        None => "convolution".to_string(),
        Some(node) => {
            let relaid = ir::op_name(node) == names::POINTWISE
                && ir::attr(node, fuselab_dialects::loops::INLINE).is_none()
                && ir::sole_user(value).is_some();
            if !relaid {
                return None;
            }
            ir::attr(node, "origins")
                .and_then(fuselab_dialects::attrs::string_array_raw)
                .and_then(|origins| origins.into_iter().next())
                .unwrap_or_else(|| "convolution".to_string())
        }
    };
    let shape = access.shape();
    fuselab_dialects::loops::channels_last_differs(shape).then(|| (shape.to_vec(), access.dtype(), origin))
}

/// The result of shape `shape` of an extern whose buffer (`buffer`, of type `physical`)
/// stores it in another dim order: stored dim `k` is the result's dim `order[k]`.
fn stored_as(buffer: MlirValue, physical: &TensorType, shape: &[i64], order: &[usize]) -> Access {
    let stored = Access::Buffer {
        base: buffer,
        shape: physical.shape.clone(),
        dtype: physical.dtype,
        index: contiguous_index(&physical.shape),
    };
    let at: Vec<IndexExpr> = order.iter().map(|&d| IndexExpr::dim(d)).collect();
    stored.remap(shape, &at)
}

impl Lowering {
    /// Inductor's post-grad mm + bias patterns (torch/_inductor/fx_passes/post_grad.py,
    /// behind `config.pattern_matcher`): `add(mm(a, b), inp)` becomes one `addmm` extern
    /// (the BLAS epilogue adds the bias; `is_valid_addmm_fusion`) unless
    /// `should_prefer_unfused_addmm` — on GPUs only, a bias-like `inp` and every user of
    /// the sum pointwise — leaves the add to the pointwise kernel; `linear`'s and
    /// `addmm`'s own adds are split by the same rule. With the pattern matcher off
    /// (`pattern-matcher=false`) no pattern runs: a user's `mm + add` stays unfused and
    /// `linear` / `addmm` stay one extern. fuselab folds `add(mm(a, b), bias[N])` (a row
    /// bias, always bias-like; Inductor also folds other shapes expandable to [M, N])
    /// when the mm has no other use. Returns whether it folded.
    pub(super) fn fold_bias_into_mm(
        &mut self,
        add: MlirOperation,
        operands: &[Access],
        out: &TensorType,
    ) -> Result<bool, String> {
        let of_addmm = ir::attr(add, ORIGIN_ATTR)
            .and_then(fuselab_dialects::attrs::string_raw)
            .is_some_and(|o| o == "linear" || o == "addmm");
        if !self.pattern_matcher {
            if !of_addmm {
                return Ok(false);
            }
        } else if self.prefer_unfused_bias {
            let sum_users = ir::users(ir::result(add, 0));
            let all_pointwise = !sum_users.is_empty()
                && sum_users.iter().all(|&u| {
                    AtenOpKind::from_op_name(&ir::op_name(u))
                        .is_some_and(|k| matches!(k.class(), AtenOpClass::Unary | AtenOpClass::Broadcasting))
                });
            if all_pointwise {
                return Ok(false);
            }
        }
        for (mm_at, bias_at) in [(0, 1), (1, 0)] {
            let (
                Access::Buffer {
                    base, shape, index, ..
                },
                Access::Buffer {
                    base: bias,
                    shape: bias_shape,
                    index: bias_index,
                    ..
                },
            ) = (&operands[mm_at], &operands[bias_at])
            else {
                continue;
            };
            let Some(ext) = ir::defining_op(*base) else {
                continue;
            };
            let is_plain_mm = ir::op_name(ext) == names::EXTERN
                && ir::attr(ext, "kind")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .as_deref()
                    == Some("mm")
                && ir::operands(ext).len() == 2;
            let n = *shape.last().unwrap_or(&0);
            let bias_is_row = bias_shape.iter().product::<i64>() == n && bias_shape.last() == Some(&n);
            let reshape_of_whole = is_plain_mm
                && *index == contiguous_index(shape)
                && value_bytes(*base) == out.size_bytes()
                && self.single_consumer(*base, ir::operand(add, mm_at));
            // The extern runs where the mm was: a bias computed after it cannot join.
            let bias_ready = ir::available_at(*bias, ext);
            if !(is_plain_mm
                && bias_is_row
                && bias_ready
                && reshape_of_whole
                && *bias_index == contiguous_index(bias_shape))
            {
                continue;
            }
            let mut new_operands = ir::operands(ext);
            new_operands.push(*bias);
            unsafe {
                mlir_sys::mlirOperationSetOperands(ext, new_operands.len() as isize, new_operands.as_ptr())
            };
            let ctx = ir::context(ext);
            let mut views: Vec<mlir_sys::MlirAttribute> = (0..2)
                .map(|i| unsafe {
                    mlir_sys::mlirArrayAttrGetElement(
                        ir::attr(ext, fuselab_dialects::loops::attr::OPERAND_VIEWS).expect("set at creation"),
                        i,
                    )
                })
                .collect();
            views.push(ir::i64_array_attr(ctx, &[]));
            ir::set_attr(
                ext,
                fuselab_dialects::loops::attr::OPERAND_VIEWS,
                ir::array_attr(ctx, &views),
            );
            ir::set_attr(ext, "origins", ir::string_array_attr(ctx, &["addmm".to_string()]));
            self.accesses
                .insert(key(ir::result(add, 0)), operands[mm_at].clone());
            return Ok(true);
        }
        Ok(false)
    }

    /// Whether `buffer` is used only by `via` (itself, or a view op whose only user
    /// chain leads to the op being lowered).
    pub(super) fn single_consumer(&self, buffer: MlirValue, via: MlirValue) -> bool {
        let Some(user) = ir::sole_user(buffer) else {
            return false;
        };
        via.ptr == buffer.ptr
            || (ir::defining_op(via).is_some_and(|v| v.ptr == user.ptr) && ir::sole_user(via).is_some())
    }

    /// Inductor's cat lowering (torch/_inductor/lowering.py `cat`) for inputs that are
    /// all mm results: none `should_lower_cat_input` (an mm's output layout is flexible,
    /// `ConcatKernel.can_realize_into_without_copy`), so neither the pointwise-use nor
    /// the horizontal `pointwise_cat` applies, and `ConcatKernel.create` realizes each
    /// mm into its slice (`NonOwningLayout`: `extern_kernels.mm(..., out=reinterpret_tensor
    /// (buf, ...))`) — no kernel, no copy, on the GPU and the CPU alike (measured with
    /// torch 2.11, tools/fidelity programs cat_mm*). fuselab: a `concat` extern over the
    /// mm results (a nested one, the importer's left fold of an n-way cat, is merged),
    /// when each mm has no bias and no other reader (Inductor's other readers would read
    /// the slice). A bmm's result is copied (its layout is fixed: measured, cat_bmm).
    /// Returns whether it lowered `op`.
    pub(super) fn lower_concat(
        &mut self,
        op: MlirOperation,
        d: usize,
        operands: &[Access],
        origin: &str,
    ) -> Result<bool, String> {
        let out = ir::tensor_type(ir::result(op, 0)).ok_or("cat result is not a supported tensor")?;
        let mut parts = Vec::new();
        let mut merged = Vec::new();
        for access in operands {
            let Some(base) = access.stored_buffer() else {
                return Ok(false);
            };
            let Some(producer) =
                ir::defining_op(base).filter(|_| ir::sole_user(base).is_some_and(|u| u.ptr == op.ptr))
            else {
                return Ok(false);
            };
            let kind = ir::attr(producer, "kind").and_then(fuselab_dialects::attrs::string_raw);
            match kind.as_deref() {
                Some("mm") if ir::op_name(producer) == names::EXTERN && ir::operands(producer).len() == 2 => {
                    parts.push(base)
                }
                Some("concat")
                    if ir::op_name(producer) == names::EXTERN
                        && ir::integer(producer, "dim") == Some(d as i64) =>
                {
                    parts.extend(ir::operands(producer));
                    merged.push(producer);
                }
                _ => return Ok(false),
            }
        }
        // IRDL binds one type to all of an op's variadic operands (the third on): a
        // concatenation whose later parts differ in shape cannot be one extern, and stays
        // a pointwise cat of what is merged so far.
        let tail: Vec<String> = parts
            .iter()
            .skip(2)
            .map(|&v| ir::type_string(ir::value_type(v)))
            .collect();
        if tail.windows(2).any(|w| w[0] != w[1]) {
            return Ok(false);
        }
        let ctx = ir::context(op);
        let name = self.new_name();
        let attrs = [
            ("name", ir::string_attr(ctx, &name)),
            ("kind", ir::string_attr(ctx, "concat")),
            ("dim", ir::i64_attr(ctx, d as i64)),
            ("origins", ir::string_array_attr(ctx, &[origin.to_string()])),
            (EAGER_ID_ATTR, ir::i64_attr(ctx, self.eager_id)),
        ];
        let ty = ir::parse_type(ctx, &out.to_string()).ok_or("unprintable result type")?;
        let node = ir::create(names::EXTERN, ir::location(op), &parts, &[ty], &attrs, Vec::new());
        ir::insert_before(op, node);
        self.merged_concats.extend(merged);
        let value = self.record_buffer(ir::result(node, 0), &out);
        ir::replace_uses(ir::result(op, 0), value);
        Ok(true)
    }

    /// A convolution: its graph-input operands (and pointwise results only it reads)
    /// through channels-last copies where the target converts them, its bias peeled off into a pointwise add where the target
    /// (or `convolution-bias`) says so, else one library call.
    pub(super) fn lower_convolution(
        &mut self,
        op: MlirOperation,
        aten: &AtenOp,
        operands: &[Access],
        out: &TensorType,
        origin: &str,
    ) -> Result<Access, String> {
        let operands = if self.channels_last {
            self.channels_last_operands(op, operands)?
        } else {
            operands.to_vec()
        };
        if self.peel_conv_bias && operands.len() == 3 {
            let value = self.lower_peeled_convolution(op, aten, &operands, out, origin)?;
            self.access(value)
        } else {
            self.convolution_extern(op, aten, &operands, out, origin)
        }
    }

    /// The convolution's `loop.extern` and how to read its result. With a channels-last
    /// input or weight the library writes a channels-last result (cuDNN's and oneDNN's
    /// `suggest_memory_format`; Inductor's `conv_layout` takes the output strides from
    /// the meta kernel, so its extern buffer is channels-last and the kernels after it
    /// read it so): the extern's buffer is `[N, H, W, C]` (`result_order`), read as the
    /// `[N, C, H, W]` result through strides `(HWC, 1, WC, C)`.
    fn convolution_extern(
        &mut self,
        op: MlirOperation,
        aten: &AtenOp,
        operands: &[Access],
        out: &TensorType,
        origin: &str,
    ) -> Result<Access, String> {
        let differs = fuselab_dialects::loops::channels_last_differs;
        let channels_last = |a: &Access| {
            differs(a.shape())
                && matches!(a, Access::Buffer { index, .. }
                    if index.linear_coefficients(4).is_some_and(|s| s[1] == 1))
        };
        let stored_nhwc =
            self.channels_last && differs(&out.shape) && operands.iter().take(2).any(channels_last);
        if !stored_nhwc {
            let value = self.lower_extern(op, aten, operands, out, origin)?;
            return self.access(value);
        }
        let order = [0usize, 2, 3, 1];
        let physical = TensorType {
            shape: order.iter().map(|&d| out.shape[d]).collect(),
            dtype: out.dtype,
        };
        let ctx = ir::context(op);
        let order_attr = ir::i64_array_attr(ctx, &order.map(|d| d as i64));
        let value = self.lower_extern_as(
            op,
            aten,
            operands,
            &physical,
            &[(fuselab_dialects::loops::attr::RESULT_ORDER, order_attr)],
            origin,
        )?;
        Ok(stored_as(value, &physical, &out.shape, &order))
    }

    /// The convolution's operands with every input or weight that needs it
    /// ([`channels_last_source`]) read through a copy in channels-last order
    /// (`ExternKernel.require_channels_last` under Inductor's layout optimization): a
    /// pointwise node writes `[N, H, W, C]` contiguously, and the extern reads it as the `[N, C, H, W]`
    /// view with strides `(HWC, 1, WC, C)`.
    fn channels_last_operands(
        &mut self,
        op: MlirOperation,
        operands: &[Access],
    ) -> Result<Vec<Access>, String> {
        let mut out = operands.to_vec();
        for (slot, value) in out.iter_mut().zip(ir::operands(op)).take(2) {
            let Some((shape, dtype, origin)) = channels_last_source(slot, value) else {
                continue;
            };
            let [n, c, h, w] = shape[..] else { continue };
            let nhwc = TensorType {
                shape: vec![n, h, w, c],
                dtype,
            };
            let source = slot.clone();
            let copy = self.emit_node(op, &origin, &nhwc, nhwc.shape.clone(), None, move |this, bx| {
                let d = |k| IndexExpr::dim(k);
                Ok(this.read(bx, &source, &[d(0), d(3), d(1), d(2)]))
            })?;
            let index = IndexExpr::dim(0)
                .scale(h * w * c)
                .add(&IndexExpr::dim(1))
                .add(&IndexExpr::dim(2).scale(w * c))
                .add(&IndexExpr::dim(3).scale(c));
            *slot = Access::Buffer {
                base: copy,
                shape: shape.clone(),
                dtype,
                index,
            };
        }
        Ok(out)
    }

    /// A convolution whose bias is peeled off (Inductor's `convolution` lowering on GPUs,
    /// kernel/conv.py: "peel off the bias, cudnn is slower with it"): the extern
    /// convolves `x` and `w`, and a pointwise node of origin `convolution` adds the
    /// bias per channel (dim 1), in f32 for half types.
    fn lower_peeled_convolution(
        &mut self,
        op: MlirOperation,
        aten: &AtenOp,
        operands: &[Access],
        out: &TensorType,
        origin: &str,
    ) -> Result<MlirValue, String> {
        let mut bias = operands[2].clone();
        if bias.shape().len() != 1 || out.rank() < 2 {
            return Err("a convolution bias must be one value per output channel".to_string());
        }
        if self.materialize_views {
            // Relax's form: `reshape(bias, [1, C, 1, ...])`, an op of its own.
            let mut shape = vec![1; out.rank()];
            shape[1] = bias.shape()[0];
            let viewed = bias.remap(&shape, &[IndexExpr::dim(1)]);
            let conv_id = self.eager_id;
            self.eager_id = self.fresh_eager_id();
            let copy = self.copy_as(op, &viewed, "view")?;
            self.eager_id = conv_id;
            bias = self.access(copy)?;
        }
        // After the reshape: the extern and its add are one op's contiguous nodes.
        let conv = self.convolution_extern(op, aten, &operands[..2], out, origin)?;
        let per_channel = bias.shape().len() == 1;
        let dtypes = [conv.dtype(), bias.dtype()];
        let out_dtype = out.dtype;
        self.emit_node(op, origin, out, out.shape.clone(), None, move |this, bx| {
            let dims: Vec<IndexExpr> = (0..bx.ranges.len()).map(IndexExpr::dim).collect();
            // The bias is [C], or (Relax's form) its [1, C, 1, ...] reshape.
            let bias_index: Vec<IndexExpr> = if per_channel {
                vec![dims[1].clone()]
            } else {
                (0..dims.len())
                    .map(|k| {
                        if k == 1 {
                            dims[1].clone()
                        } else {
                            IndexExpr::constant(0)
                        }
                    })
                    .collect()
            };
            let values = [this.read(bx, &conv, &dims), this.read(bx, &bias, &bias_index)];
            let wide = if out_dtype.is_half() {
                DType::F32
            } else {
                out_dtype
            };
            let values: Vec<MlirValue> = values
                .iter()
                .zip(dtypes)
                .map(|(&v, d)| convert(bx, v, d, wide))
                .collect();
            let sum = scalar_body(
                bx,
                AtenOpKind::Add,
                &values,
                &[wide, wide],
                &[conv.clone(), bias.clone()],
                wide,
            )?;
            Ok(convert(bx, sum, wide, out_dtype))
        })
    }

    /// `access` copied into a buffer of its own, read whole.
    fn realized(&mut self, op: MlirOperation, access: &Access) -> Result<Access, String> {
        let copy = self.copy(op, access)?;
        self.accesses
            .get(&key(copy))
            .cloned()
            .ok_or_else(|| "a copy records its access".to_string())
    }

    /// An extern's operands as buffers and `operand_views` (a strided view of a buffer
    /// is passed as it is; any other access is copied first).
    fn extern_operands(
        &mut self,
        op: MlirOperation,
        operands: &[Access],
    ) -> Result<(Vec<MlirValue>, Vec<mlir_sys::MlirAttribute>), String> {
        let ctx = ir::context(op);
        let mut values = Vec::new();
        let mut views = Vec::new();
        for access in operands {
            let (base, view) = match access {
                Access::Scalar { .. } => {
                    return Err("a matrix operand cannot be a scalar constant".to_string())
                }
                Access::Buffer {
                    base, shape, index, ..
                } => {
                    if ir::tensor_type(*base).is_none() {
                        return Err("extern operand is not a supported tensor".to_string());
                    }
                    if let Some(stored) = access.stored_buffer() {
                        (stored, Vec::new())
                    } else if let Some(strides) = index.linear_coefficients(shape.len()) {
                        let mut view = vec![index.constant_part()];
                        view.extend(shape);
                        view.extend(strides);
                        (*base, view)
                    } else {
                        (self.copy(op, access)?, Vec::new())
                    }
                }
            };
            values.push(base);
            views.push(ir::i64_array_attr(ctx, &view));
        }
        Ok((values, views))
    }

    pub(super) fn lower_extern(
        &mut self,
        op: MlirOperation,
        aten: &AtenOp,
        operands: &[Access],
        out: &TensorType,
        origin: &str,
    ) -> Result<MlirValue, String> {
        self.lower_extern_as(op, aten, operands, out, &[], origin)
    }

    /// [`Lowering::lower_extern`] writing a buffer of type `out` with `more` attributes.
    fn lower_extern_as(
        &mut self,
        op: MlirOperation,
        aten: &AtenOp,
        operands: &[Access],
        out: &TensorType,
        more: &[(&str, mlir_sys::MlirAttribute)],
        origin: &str,
    ) -> Result<MlirValue, String> {
        let (values, views) = self.extern_operands(op, operands)?;
        let extern_kind = match aten.kind() {
            AtenOpKind::Mm => "mm",
            AtenOpKind::Bmm => "bmm",
            kind => match fuselab_dialects::aten::CellKind::of_aten(kind) {
                Some(cell) => cell.extern_kind(),
                None => "convolution",
            },
        };
        let mut extra: Vec<(&str, mlir_sys::MlirAttribute)> =
            [attr::STRIDE, attr::PADDING, attr::DILATION, attr::GROUPS]
                .into_iter()
                .filter_map(|a| Some((a, ir::attr(op, a)?)))
                .collect();
        extra.extend_from_slice(more);
        self.create_extern(op, extern_kind, &values, views, out, &extra, origin)
    }

    /// A `loop.extern` of `kind` over `values` (with their `operand_views`) writing a
    /// buffer of type `out`, before `op`, with `extra` attributes; its buffer.
    #[allow(clippy::too_many_arguments)]
    fn create_extern(
        &mut self,
        op: MlirOperation,
        kind: &str,
        values: &[MlirValue],
        views: Vec<mlir_sys::MlirAttribute>,
        out: &TensorType,
        extra: &[(&str, mlir_sys::MlirAttribute)],
        origin: &str,
    ) -> Result<MlirValue, String> {
        let ctx = ir::context(op);
        let name = self.new_name();
        let mut attrs = vec![
            ("name", ir::string_attr(ctx, &name)),
            ("kind", ir::string_attr(ctx, kind)),
            ("origins", ir::string_array_attr(ctx, &[origin.to_string()])),
            (EAGER_ID_ATTR, ir::i64_attr(ctx, self.eager_id)),
            (
                fuselab_dialects::loops::attr::OPERAND_VIEWS,
                ir::array_attr(ctx, &views),
            ),
        ];
        attrs.extend_from_slice(extra);
        let ty = ir::parse_type(ctx, &out.to_string()).ok_or("unprintable result type")?;
        let node = ir::create(names::EXTERN, ir::location(op), values, &[ty], &attrs, Vec::new());
        ir::insert_before(op, node);
        Ok(self.record_buffer(ir::result(node, 0), out))
    }
}

impl Lowering {
    /// `scaled_dot_product_attention` as one `sdpa` extern (PyTorch's fused
    /// efficient-attention kernel, a library call under Inductor): query, key, value and
    /// mask (when there is one) passed as views where they are strided, else realized;
    /// the kernel writes [B, L, H, Ev] and the op's [B, H, L, Ev] result is
    /// that buffer with dims 1 and 2 swapped, so `transpose(1, 2).reshape(B, L, H*Ev)`
    /// after it is a free view, as after Inductor's call.
    pub(super) fn lower_attention(
        &mut self,
        op: MlirOperation,
        aten: &AtenOp,
        operands: &[Access],
        out: &TensorType,
        origin: &str,
    ) -> Result<Access, String> {
        let ctx = ir::context(op);
        let scale = aten.float("scale").ok_or("missing scale")?;
        // Inductor's `sdpa_constraint` (lowering.py) passes an input that is a strided
        // view of a buffer from its start as it is and realizes the others: a query, key
        // or value sliced out of a fused projection at an offset (GPT-2's split c_attn,
        // GPT-NeoX's interleaved heads) is copied by a kernel first.
        let mut inputs = Vec::with_capacity(operands.len());
        for (i, access) in operands.iter().enumerate() {
            let offset =
                i < 3 && matches!(access, Access::Buffer { index, .. } if index.constant_part() != 0);
            inputs.push(if offset {
                self.realized(op, access)?
            } else {
                access.clone()
            });
        }
        let (mut values, mut views) = self.extern_operands(op, &inputs)?;
        // IRDL binds one type to all of an op's variadic operands (the third on): with a
        // mask, two operands whose buffers share a type go last (`sdpa_operands` records
        // where query, key, value and mask went). When no two do, query and key are
        // copied to [B, H, L|S, E], which self-attention makes one type.
        let type_of = |v: MlirValue| ir::type_string(ir::value_type(v));
        let n = values.len();
        let pair = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .find(|&(i, j)| type_of(values[i]) == type_of(values[j]));
        let (a, b) = match pair {
            _ if n < 4 => (n - 2, n - 1),
            Some(p) => p,
            None => {
                for at in [0, 1] {
                    if inputs[at].stored_buffer().is_none() {
                        inputs[at] = self.realized(op, &inputs[at])?;
                        values[at] = inputs[at].stored_buffer().ok_or("a copy is a stored buffer")?;
                        views[at] = ir::i64_array_attr(ctx, &[]);
                    }
                }
                if type_of(values[0]) != type_of(values[1]) {
                    return Err(format!(
                        "attention with {} queries and {} keys: the sdpa extern takes self-attention only",
                        inputs[0].shape()[2],
                        inputs[1].shape()[2]
                    ));
                }
                (0, 1)
            }
        };
        let order: Vec<usize> = (0..n).filter(|&i| i != a && i != b).chain([a, b]).collect();
        let positions: Vec<i64> = (0..n)
            .map(|role| order.iter().position(|&i| i == role).unwrap_or(role) as i64)
            .collect();
        let values: Vec<MlirValue> = order.iter().map(|&i| values[i]).collect();
        let views = order.iter().map(|&i| views[i]).collect();
        let order = [0, 2, 1, 3];
        let physical = TensorType {
            shape: order.iter().map(|&d| out.shape[d]).collect(),
            dtype: out.dtype,
        };
        let attrs = [
            ("scale", ir::f64_attr(ctx, scale)),
            (
                fuselab_dialects::loops::attr::SDPA_OPERANDS,
                ir::i64_array_attr(ctx, &positions),
            ),
        ];
        let buffer = self.create_extern(op, "sdpa", &values, views, &physical, &attrs, origin)?;
        Ok(stored_as(buffer, &physical, &out.shape, &order))
    }
}
