//! Reading a node's arguments and writing its results: the helpers every target table
//! uses (typed arguments, operands with scalars as constants, result binding, and the
//! shared shapes of unary, binary and reduction targets).

use super::*;

impl<'m> Emitter<'m> {
    /// The SSA value of a tensor argument.
    pub(super) fn tensor(&self, node: &Node, arg: &str) -> R<String> {
        let value = node
            .arg(arg)
            .ok_or_else(|| self.node_error(node, format!("missing tensor argument '{arg}'")))?;
        let name = tensor_name(value)
            .ok_or_else(|| self.node_error(node, format!("argument '{arg}' is not a tensor: {value}")))?;
        self.values.get(name).cloned().ok_or_else(|| {
            self.node_error(
                node,
                format!("argument '{arg}' reads '{name}', which is not defined before"),
            )
        })
    }

    /// A tensor argument, or a scalar one as a rank-0 constant of `dtype`.
    pub(super) fn operand(&mut self, node: &Node, arg: &str, dtype: &'static str) -> R<String> {
        let value = node
            .arg(arg)
            .ok_or_else(|| self.node_error(node, format!("missing argument '{arg}'")))?;
        if tensor_name(value).is_some() {
            return self.tensor(node, arg);
        }
        let scalar = scalar_of(value).ok_or_else(|| {
            self.node_error(
                node,
                format!("argument '{arg}' is neither a tensor nor a number: {value}"),
            )
        })?;
        let ty = TType { shape: vec![], dtype };
        Ok(self.constant(scalar, &ty, &node.loc.clone()))
    }

    pub(super) fn int_arg(&self, node: &Node, arg: &str, default: Option<i64>) -> R<i64> {
        match node.arg(arg) {
            Some(v) => as_int(v)
                .ok_or_else(|| self.node_error(node, format!("argument '{arg}' is not an integer: {v}"))),
            None => default.ok_or_else(|| self.node_error(node, format!("missing integer argument '{arg}'"))),
        }
    }

    pub(super) fn ints_arg(&self, node: &Node, arg: &str) -> R<Option<Vec<i64>>> {
        match node.arg(arg) {
            None => Ok(None),
            Some(v) => match (as_ints(v), as_int(v)) {
                (Some(list), _) => Ok(Some(list)),
                (None, Some(one)) => Ok(Some(vec![one])),
                _ => Err(self.node_error(node, format!("argument '{arg}' is not a list of integers: {v}"))),
            },
        }
    }

    pub(super) fn bool_arg(&self, node: &Node, arg: &str, default: bool) -> R<bool> {
        match node.arg(arg) {
            None => Ok(default),
            Some(v) => as_bool(v)
                .ok_or_else(|| self.node_error(node, format!("argument '{arg}' is not a bool: {v}"))),
        }
    }

    /// The type of the node's output `i`.
    pub(super) fn out_type(&self, node: &Node, i: usize) -> R<TType> {
        let name = node
            .outputs
            .get(i)
            .cloned()
            .flatten()
            .ok_or_else(|| self.node_error(node, format!("output #{i} is missing")))?;
        self.tensor_type(&name, &node.where_)
    }

    pub(super) fn ty(&self, ssa: &str) -> TType {
        self.ssa_types.get(ssa).cloned().unwrap_or(TType {
            shape: vec![],
            dtype: "f32",
        })
    }

    /// Binds output `i` of `node` to `ssa`.
    pub(super) fn bind(&mut self, node: &Node, i: usize, ssa: String) {
        if let Some(Some(name)) = node.outputs.get(i) {
            self.values.insert(name.clone(), ssa);
        }
    }

    /// The SSA name for output `i` (the torch name, so the IR reads like the graph).
    pub(super) fn out_ssa(&self, node: &Node, i: usize) -> Option<String> {
        node.outputs.get(i).cloned().flatten().map(|n| self.ssa(&n))
    }

    /// Emits `op(operands) {attrs}` as the node's output #0, typed from tensor_values.
    pub(super) fn finish(&mut self, node: &Node, op: &str, operands: &[&str], attrs: &str) -> R<()> {
        let out = self.out_type(node, 0)?;
        let res = self.op(
            self.out_ssa(node, 0).as_deref(),
            op,
            operands,
            attrs,
            &out,
            &node.loc,
        );
        self.bind(node, 0, res);
        Ok(())
    }

    /// Runs `import` with every op it emits marked as a part of `node`, one torch op
    /// named `origin` (`fuselab.origin` / `fuselab.op_group`).
    pub(super) fn grouped(
        &mut self,
        origin: &'static str,
        node: &Node,
        import: impl FnOnce(&mut Self, &Node) -> R<()>,
    ) -> R<()> {
        self.op_group = Some((origin, node.name.clone()));
        let imported = import(self, node);
        self.op_group = None;
        imported
    }

    pub(super) fn unary(&mut self, node: &Node, op: &str, attrs: &str) -> R<()> {
        let x = self.tensor(node, "self")?;
        let out = self.out_type(node, 0)?;
        let res = self.op(
            self.out_ssa(node, 0).as_deref(),
            op,
            &[&x],
            attrs,
            &out,
            &node.loc,
        );
        self.bind(node, 0, res);
        Ok(())
    }

    /// `op(self, other)` with `other` a tensor or a scalar; `alpha` scales `other`.
    pub(super) fn binary(&mut self, node: &Node, op: &str, self_arg: &str, other_arg: &str) -> R<()> {
        let out = self.out_type(node, 0)?;
        let x = self.operand(node, self_arg, out.dtype)?;
        // Comparisons compare in the operand's dtype; arithmetic computes in the result's.
        let scalar_dtype = if out.dtype == "i1" {
            self.ty(&x).dtype
        } else {
            out.dtype
        };
        let mut y = self.operand(node, other_arg, scalar_dtype)?;
        if let Some(alpha) = node.arg("alpha").and_then(scalar_of) {
            if alpha != Scalar::Int(1) && alpha != Scalar::Float(1.0) {
                let ty = TType {
                    shape: vec![],
                    dtype: scalar_dtype,
                };
                let a = self.constant(alpha, &ty, &node.loc.clone());
                let yt = self.ty(&y);
                let shape = yt.shape.clone();
                y = self.op(
                    None,
                    "mul",
                    &[&y, &a],
                    "",
                    &TType {
                        shape,
                        dtype: yt.dtype,
                    },
                    &node.loc,
                );
            }
        }
        let res = self.op(
            self.out_ssa(node, 0).as_deref(),
            op,
            &[&x, &y],
            "",
            &out,
            &node.loc,
        );
        self.bind(node, 0, res);
        Ok(())
    }

    pub(super) fn reduction(&mut self, node: &Node, op: &str, all_dims_default: bool) -> R<()> {
        let x = self.tensor(node, "self")?;
        let rank = self.ty(&x).rank();
        let dims = match self.ints_arg(node, "dim")? {
            Some(d) if !d.is_empty() => d,
            _ if all_dims_default => (0..rank as i64).collect(),
            _ => (0..rank as i64).collect(),
        };
        let keepdim = self.bool_arg(node, "keepdim", false)?;
        let mut attrs = format!("dims = {}, keepdim = {keepdim}", ints(&dims));
        if op == "var" {
            let correction = match node.arg("correction") {
                None => 1,
                Some(v) => as_int(v)
                    .or_else(|| as_float(v).map(|f| f as i64))
                    .ok_or_else(|| self.node_error(node, "argument 'correction' is not a number"))?,
            };
            attrs.push_str(&format!(", correction = {correction} : i64"));
        }
        let out = self.out_type(node, 0)?;
        let res = self.op(
            self.out_ssa(node, 0).as_deref(),
            op,
            &[&x],
            &attrs,
            &out,
            &node.loc,
        );
        self.bind(node, 0, res);
        Ok(())
    }

    /// A view of `x` to `shape` (aten.view), named `res`.
    pub(super) fn view(&mut self, res: Option<&str>, x: &str, shape: Vec<i64>, loc: &str) -> String {
        let dtype = self.ty(x).dtype;
        self.op(res, "view", &[x], "", &TType { shape, dtype }, loc)
    }

    /// A splat constant of type `ty`.
    pub(super) fn splat(&mut self, res: Option<&str>, value: Scalar, ty: &TType, loc: &str) -> String {
        let res = res.map_or_else(|| self.fresh(), str::to_string);
        let _ = writeln!(
            self.body,
            "    {res} = arith.constant dense<{}> : {} {loc}",
            value.literal(ty.dtype),
            ty.mlir()
        );
        self.ssa_types.insert(res.clone(), ty.clone());
        res
    }

    /// `x[.., start:end:step, ..]` along `dim` (aten.slice; `end` exclusive, in range).
    pub(super) fn slice(
        &mut self,
        x: &str,
        dim: usize,
        start: i64,
        end: i64,
        step: i64,
        loc: &str,
    ) -> String {
        let xt = self.ty(x);
        let mut shape = xt.shape.clone();
        shape[dim] = if end > start {
            (end - start + step - 1) / step
        } else {
            0
        };
        self.op(
            None,
            "slice",
            &[x],
            &format!("dim = {dim} : i64, start = {start} : i64, end = {end} : i64, step = {step} : i64"),
            &TType {
                shape,
                dtype: xt.dtype,
            },
            loc,
        )
    }

    /// `x` padded along `dim` by `before` and `after` elements of `value` (a positive
    /// amount concatenates a splat, a negative one slices; torch/_refs `constant_pad_nd`).
    pub(super) fn pad(
        &mut self,
        x: &str,
        dim: usize,
        before: i64,
        after: i64,
        value: Scalar,
        loc: &str,
    ) -> String {
        let mut x = x.to_string();
        for (side, amount) in [(0, before), (1, after)] {
            let xt = self.ty(&x);
            let size = xt.shape[dim];
            if amount < 0 {
                let (start, end) = if side == 0 {
                    (-amount, size)
                } else {
                    (0, size + amount)
                };
                x = self.slice(&x, dim, start, end.max(start), 1, loc);
            } else if amount > 0 {
                let mut piece = xt.shape.clone();
                piece[dim] = amount;
                let fill = self.splat(
                    None,
                    value,
                    &TType {
                        shape: piece,
                        dtype: xt.dtype,
                    },
                    loc,
                );
                let mut shape = xt.shape.clone();
                shape[dim] += amount;
                let parts = if side == 0 { [&fill, &x] } else { [&x, &fill] };
                x = self.op(
                    None,
                    "cat",
                    &[parts[0], parts[1]],
                    &format!("dim = {dim} : i64"),
                    &TType {
                        shape,
                        dtype: xt.dtype,
                    },
                    loc,
                );
            }
        }
        x
    }

    /// Fails if an output of `node` other than those in `keep` is read later.
    pub(super) fn only_outputs(&self, node: &Node, keep: &[usize]) -> R<()> {
        for (i, name) in node.outputs.iter().enumerate() {
            if let Some(name) = name {
                if !keep.contains(&i) && self.used.contains(name) {
                    return Err(self.node_error(
                        node,
                        format!(
                            "output #{i} ('{name}') is used, but fuselab computes only the primary result"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}
