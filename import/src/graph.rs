//! The graph of `model.json` to one `func.func` in the `aten` dialect.
//!
//! Each node's `target` (`torch.ops.aten.mul.Tensor`: op and overload) maps to one or a
//! few `aten` ops; arguments are typed (`as_tensor`, `as_float`, `as_ints`, ...), result
//! types come from `tensor_values` (sizes must be plain integers: symbolic sizes are
//! dynamic shapes, refused). A Python scalar in a tensor position becomes a rank-0
//! `arith.constant`. Ops without an `aten` counterpart are spelled with the ones that
//! exist, as their decompositions do: batch norm in inference (`(x - mean) *
//! rsqrt(var + eps) * w + b` over channel views), `embedding` (a `gather` of rows),
//! `clamp` (maximum/minimum), `split_with_sizes` (slices), `t` (transpose), `full*`
//! (splat constants). Anything else is an error at the node's source line naming the op
//! and overload; nothing is skipped.

use crate::{ImportError, ImportOptions};
use serde_json::{Map, Value};
use std::{collections::HashMap, fmt::Write as _};

/// Every `torch.ops.*` target the importer maps (for docs and `--help`).
pub fn supported_targets() -> &'static [&'static str] {
    TARGETS
}

const TARGETS: &[&str] = &[
    "aten.add.Tensor",
    "aten.add.Scalar",
    "aten.sub.Tensor",
    "aten.sub.Scalar",
    "aten.rsub.Scalar",
    "aten.mul.Tensor",
    "aten.mul.Scalar",
    "aten.div.Tensor",
    "aten.div.Scalar",
    "aten.maximum.default",
    "aten.minimum.default",
    "aten.pow.Tensor_Scalar",
    "aten.pow.Tensor_Tensor",
    "aten.where.self",
    "aten.clamp.default",
    "aten.clamp_min.default",
    "aten.clamp_max.default",
    "aten.eq.Scalar",
    "aten.eq.Tensor",
    "aten.ne.Scalar",
    "aten.ne.Tensor",
    "aten.lt.Scalar",
    "aten.lt.Tensor",
    "aten.le.Scalar",
    "aten.le.Tensor",
    "aten.gt.Scalar",
    "aten.gt.Tensor",
    "aten.ge.Scalar",
    "aten.ge.Tensor",
    "aten.logical_not.default",
    "aten.relu.default",
    "aten.gelu.default",
    "aten.exp.default",
    "aten.log.default",
    "aten.sqrt.default",
    "aten.rsqrt.default",
    "aten.tanh.default",
    "aten.sigmoid.default",
    "aten.neg.default",
    "aten.abs.default",
    "aten.sin.default",
    "aten.cos.default",
    "aten.erf.default",
    "aten.reciprocal.default",
    "aten.silu.default",
    "aten.sum.dim_IntList",
    "aten.sum.default",
    "aten.mean.dim",
    "aten.mean.default",
    "aten.amax.default",
    "aten.amin.default",
    "aten.var.correction",
    "aten.any.dim",
    "aten.any.dims",
    "aten.any.default",
    "aten._softmax.default",
    "aten._log_softmax.default",
    "aten.native_layer_norm.default",
    "aten._native_batch_norm_legit_no_training.default",
    "aten.mm.default",
    "aten.bmm.default",
    "aten.addmm.default",
    "aten.linear.default",
    "aten.convolution.default",
    "aten.view.default",
    "aten._unsafe_view.default",
    "aten.reshape.default",
    "aten.permute.default",
    "aten.transpose.int",
    "aten.t.default",
    "aten.expand.default",
    "aten.clone.default",
    "aten.alias.default",
    "aten.select.int",
    "aten.slice.Tensor",
    "aten.squeeze.dim",
    "aten.squeeze.dims",
    "aten.squeeze.default",
    "aten.unsqueeze.default",
    "aten.cat.default",
    "aten.gather.default",
    "aten.embedding.default",
    "aten.split_with_sizes.default",
    "aten.split.Tensor",
    "aten.full.default",
    "aten.full_like.default",
    "aten.zeros_like.default",
    "aten.ones_like.default",
    "aten.scalar_tensor.default",
    "aten._to_copy.default",
    "aten.to.dtype",
    "_operator.getitem",
];

/// A static tensor type.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TType {
    shape: Vec<i64>,
    dtype: &'static str,
}

impl TType {
    fn mlir(&self) -> String {
        let mut s = String::from("tensor<");
        for d in &self.shape {
            let _ = write!(s, "{d}x");
        }
        s.push_str(self.dtype);
        s.push('>');
        s
    }

    fn rank(&self) -> usize {
        self.shape.len()
    }
}

/// torch's `ScalarType` code (torch/_export/serde/schema.py) to an MLIR element type.
pub fn dtype_name(code: i64) -> Option<&'static str> {
    match code {
        5 => Some("i64"),
        6 => Some("f16"),
        7 => Some("f32"),
        12 => Some("i1"),
        13 => Some("bf16"),
        _ => None,
    }
}

fn dtype_spelled(code: i64) -> &'static str {
    match code {
        1 => "uint8",
        2 => "int8",
        3 => "int16",
        4 => "int32",
        8 => "float64",
        9 => "complex32",
        10 => "complex64",
        11 => "complex128",
        _ => "an unknown dtype",
    }
}

/// An MLIR float literal (always with a '.'; non-finite values as bit patterns).
fn float_literal(v: f64, dtype: &str) -> String {
    if !v.is_finite() {
        return match dtype {
            "f64" => format!("0x{:016X}", v.to_bits()),
            "f16" => (if v.is_nan() {
                "0x7E00"
            } else if v > 0.0 {
                "0x7C00"
            } else {
                "0xFC00"
            })
            .to_string(),
            "bf16" => (if v.is_nan() {
                "0x7FC0"
            } else if v > 0.0 {
                "0x7F80"
            } else {
                "0xFF80"
            })
            .to_string(),
            _ => format!("0x{:08X}", (v as f32).to_bits()),
        };
    }
    let s = format!("{v:e}");
    match s.split_once('e') {
        Some((m, e)) if !m.contains('.') => format!("{m}.0e{e}"),
        _ => s,
    }
}

/// A scalar argument.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar {
    Float(f64),
    Int(i64),
    Bool(bool),
}

impl Scalar {
    fn literal(self, dtype: &str) -> String {
        let is_float = dtype.starts_with('f') || dtype == "bf16";
        match (self, is_float) {
            (Scalar::Float(v), true) => float_literal(v, dtype),
            (Scalar::Int(v), true) => float_literal(v as f64, dtype),
            (Scalar::Bool(b), true) => float_literal(f64::from(u8::from(b)), dtype),
            (Scalar::Bool(b), false) if dtype == "i1" => b.to_string(),
            (Scalar::Float(v), false) if dtype == "i1" => (v != 0.0).to_string(),
            (Scalar::Int(v), false) if dtype == "i1" => (v != 0).to_string(),
            (Scalar::Float(v), false) => (v as i64).to_string(),
            (Scalar::Int(v), false) => v.to_string(),
            (Scalar::Bool(b), false) => i64::from(b).to_string(),
        }
    }
}

fn ints(values: &[i64]) -> String {
    let list: Vec<String> = values.iter().map(i64::to_string).collect();
    if list.is_empty() {
        "array<i64>".to_string()
    } else {
        format!("array<i64: {}>", list.join(", "))
    }
}

/// The emitter state for one graph.
struct Emitter<'m> {
    path: &'m str,
    tensor_values: &'m Map<String, Value>,
    /// torch value name -> SSA name.
    values: HashMap<String, String>,
    /// SSA name -> type.
    ssa_types: HashMap<String, TType>,
    /// torch names that some node or the graph output reads.
    used: std::collections::HashSet<String>,
    body: String,
    fresh: usize,
}

/// One node being imported.
struct Node<'m> {
    target: String,
    name: String,
    loc: String,
    /// `file:line:0` for error messages.
    where_: String,
    args: HashMap<&'m str, &'m Value>,
    /// Output names (`None` for an output torch does not name).
    outputs: Vec<Option<String>>,
}

impl Node<'_> {
    fn arg(&self, name: &str) -> Option<&Value> {
        self.args
            .get(name)
            .copied()
            .filter(|v| v.get("as_none").is_none())
    }
}

type R<T> = Result<T, ImportError>;

impl<'m> Emitter<'m> {
    fn node_error(&self, node: &Node, message: impl Into<String>) -> ImportError {
        ImportError::Node {
            loc: node.where_.clone(),
            message: format!(
                "{} (node '{}', {})",
                message.into(),
                node.name,
                op_and_overload(&node.target)
            ),
        }
    }

    fn tensor_type(&self, name: &str, loc: &str) -> R<TType> {
        let bad = |message: String| ImportError::Node {
            loc: loc.to_string(),
            message,
        };
        let meta = self
            .tensor_values
            .get(name)
            .ok_or_else(|| bad(format!("tensor '{name}' has no entry in tensor_values")))?;
        let code = meta["dtype"].as_i64().unwrap_or(0);
        let dtype = dtype_name(code).ok_or_else(|| {
            bad(format!(
                "tensor '{name}' has dtype {} (torch ScalarType {code}); fuselab supports float32, float16, bfloat16, int64 and bool",
                dtype_spelled(code)
            ))
        })?;
        let sizes = meta["sizes"]
            .as_array()
            .ok_or_else(|| bad(format!("tensor '{name}' has no sizes")))?;
        let mut shape = Vec::with_capacity(sizes.len());
        for size in sizes {
            match size["as_int"].as_i64() {
                Some(v) => shape.push(v),
                None => {
                    return Err(bad(format!(
                        "tensor '{name}' has a symbolic (dynamic) size {}; fuselab needs static shapes \
                         (export without dynamic_shapes)",
                        size
                    )))
                }
            }
        }
        Ok(TType { shape, dtype })
    }

    fn fresh(&mut self) -> String {
        self.fresh += 1;
        format!("%f.{}", self.fresh)
    }

    /// Writes `%res = "op"(operands) {attrs} : (types) -> result loc`; returns `%res`.
    fn op(
        &mut self,
        res: Option<&str>,
        op: &str,
        operands: &[&str],
        attrs: &str,
        result: &TType,
        loc: &str,
    ) -> String {
        let res = res.map_or_else(|| self.fresh(), str::to_string);
        let types: Vec<String> = operands
            .iter()
            .map(|o| self.type_of_ssa(o).map_or_else(|| "?".into(), |t| t.mlir()))
            .collect();
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" {{{attrs}}}")
        };
        let _ = writeln!(
            self.body,
            "    {res} = \"aten.{op}\"({}){attrs} : ({}) -> {} {loc}",
            operands.join(", "),
            types.join(", "),
            result.mlir()
        );
        self.ssa_types.insert(res.clone(), result.clone());
        res
    }

    fn type_of_ssa(&self, ssa: &str) -> Option<TType> {
        self.ssa_types.get(ssa).cloned()
    }

    fn constant(&mut self, value: Scalar, ty: &TType, loc: &str) -> String {
        self.splat(None, value, ty, loc)
    }
}

/// The last `File "...", line N` of a stack trace.
fn source_line(trace: &str) -> Option<(String, u64)> {
    let mut found = None;
    for line in trace.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix("File \"") else {
            continue;
        };
        let Some((file, rest)) = rest.split_once('"') else {
            continue;
        };
        let Some(rest) = rest.trim_start_matches(',').trim_start().strip_prefix("line ") else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse() {
            found = Some((file.to_string(), n));
        }
    }
    found
}

fn mlir_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\22"),
            '\\' => out.push_str("\\5C"),
            '\n' => out.push_str("\\0A"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A valid SSA name for a torch value name.
fn ssa_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.starts_with(|c: char| c.is_ascii_digit()) || clean.is_empty() {
        format!("%v_{clean}")
    } else {
        format!("%{clean}")
    }
}

fn as_int(v: &Value) -> Option<i64> {
    v.get("as_int").and_then(Value::as_i64)
}

fn as_ints(v: &Value) -> Option<Vec<i64>> {
    v.get("as_ints")?.as_array()?.iter().map(Value::as_i64).collect()
}

/// A float as torch serializes it: a number, or "Infinity" / "-Infinity" / "NaN".
fn json_float(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| match v.as_str()? {
        "Infinity" | "inf" => Some(f64::INFINITY),
        "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
        "NaN" | "nan" => Some(f64::NAN),
        _ => None,
    })
}

fn as_float(v: &Value) -> Option<f64> {
    v.get("as_float")
        .and_then(json_float)
        .or_else(|| as_int(v).map(|i| i as f64))
}

/// `torch.ops.aten.mul.Tensor` as "op 'aten.mul', overload 'Tensor'".
fn op_and_overload(target: &str) -> String {
    let t = target.strip_prefix("torch.ops.").unwrap_or(target);
    match t.rsplit_once('.') {
        Some((op, overload)) => format!("op '{op}', overload '{overload}'"),
        None => format!("op '{t}'"),
    }
}

fn as_bool(v: &Value) -> Option<bool> {
    v.get("as_bool").and_then(Value::as_bool)
}

fn scalar_of(v: &Value) -> Option<Scalar> {
    if let Some(f) = v.get("as_float").and_then(json_float) {
        return Some(Scalar::Float(f));
    }
    if let Some(i) = as_int(v) {
        return Some(Scalar::Int(i));
    }
    if let Some(b) = as_bool(v) {
        return Some(Scalar::Bool(b));
    }
    // `as_scalar`-style wrappers.
    let inner = v.get("as_scalar")?;
    scalar_of(inner)
}

fn tensor_name(v: &Value) -> Option<&str> {
    v.get("as_tensor")?.get("name")?.as_str()
}

fn wrap(dim: i64, rank: usize) -> i64 {
    if dim < 0 {
        dim + rank as i64
    } else {
        dim
    }
}

impl<'m> Emitter<'m> {
    /// The SSA value of a tensor argument.
    fn tensor(&self, node: &Node, arg: &str) -> R<String> {
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
    fn operand(&mut self, node: &Node, arg: &str, dtype: &'static str) -> R<String> {
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

    fn int_arg(&self, node: &Node, arg: &str, default: Option<i64>) -> R<i64> {
        match node.arg(arg) {
            Some(v) => as_int(v)
                .ok_or_else(|| self.node_error(node, format!("argument '{arg}' is not an integer: {v}"))),
            None => default.ok_or_else(|| self.node_error(node, format!("missing integer argument '{arg}'"))),
        }
    }

    fn ints_arg(&self, node: &Node, arg: &str) -> R<Option<Vec<i64>>> {
        match node.arg(arg) {
            None => Ok(None),
            Some(v) => match (as_ints(v), as_int(v)) {
                (Some(list), _) => Ok(Some(list)),
                (None, Some(one)) => Ok(Some(vec![one])),
                _ => Err(self.node_error(node, format!("argument '{arg}' is not a list of integers: {v}"))),
            },
        }
    }

    fn bool_arg(&self, node: &Node, arg: &str, default: bool) -> R<bool> {
        match node.arg(arg) {
            None => Ok(default),
            Some(v) => as_bool(v)
                .ok_or_else(|| self.node_error(node, format!("argument '{arg}' is not a bool: {v}"))),
        }
    }

    /// The type of the node's output `i`.
    fn out_type(&self, node: &Node, i: usize) -> R<TType> {
        let name = node
            .outputs
            .get(i)
            .cloned()
            .flatten()
            .ok_or_else(|| self.node_error(node, format!("output #{i} is missing")))?;
        self.tensor_type(&name, &node.where_)
    }

    fn ty(&self, ssa: &str) -> TType {
        self.ssa_types.get(ssa).cloned().unwrap_or(TType {
            shape: vec![],
            dtype: "f32",
        })
    }

    /// Binds output `i` of `node` to `ssa`.
    fn bind(&mut self, node: &Node, i: usize, ssa: String) {
        if let Some(Some(name)) = node.outputs.get(i) {
            self.values.insert(name.clone(), ssa);
        }
    }

    /// The SSA name for output `i` (the torch name, so the IR reads like the graph).
    fn out_ssa(&self, node: &Node, i: usize) -> Option<String> {
        node.outputs.get(i).cloned().flatten().map(|n| ssa_name(&n))
    }

    /// Emits `op(operands) {attrs}` as the node's output #0, typed from tensor_values.
    fn finish(&mut self, node: &Node, op: &str, operands: &[&str], attrs: &str) -> R<()> {
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

    fn unary(&mut self, node: &Node, op: &str, attrs: &str) -> R<()> {
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
    fn binary(&mut self, node: &Node, op: &str, self_arg: &str, other_arg: &str) -> R<()> {
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

    fn reduction(&mut self, node: &Node, op: &str, all_dims_default: bool) -> R<()> {
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
    fn view(&mut self, res: Option<&str>, x: &str, shape: Vec<i64>, loc: &str) -> String {
        let dtype = self.ty(x).dtype;
        self.op(res, "view", &[x], "", &TType { shape, dtype }, loc)
    }

    /// A splat constant of type `ty`.
    fn splat(&mut self, res: Option<&str>, value: Scalar, ty: &TType, loc: &str) -> String {
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

    /// Fails if an output of `node` other than those in `keep` is read later.
    fn only_outputs(&self, node: &Node, keep: &[usize]) -> R<()> {
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

    fn emit_node(&mut self, node: &Node) -> R<()> {
        let target = node
            .target
            .strip_prefix("torch.ops.")
            .unwrap_or(&node.target)
            .to_string();
        let loc = node.loc.clone();
        match target.as_str() {
            "aten.add.Tensor" | "aten.add.Scalar" => self.binary(node, "add", "self", "other"),
            "aten.sub.Tensor" | "aten.sub.Scalar" => self.binary(node, "sub", "self", "other"),
            "aten.rsub.Scalar" => self.binary(node, "sub", "other", "self"),
            "aten.mul.Tensor" | "aten.mul.Scalar" => self.binary(node, "mul", "self", "other"),
            "aten.div.Tensor" | "aten.div.Scalar" => self.binary(node, "div", "self", "other"),
            "aten.maximum.default" => self.binary(node, "maximum", "self", "other"),
            "aten.minimum.default" => self.binary(node, "minimum", "self", "other"),
            "aten.pow.Tensor_Scalar" | "aten.pow.Tensor_Tensor" => {
                self.binary(node, "pow", "self", "exponent")
            }
            t if t.starts_with("aten.eq.") => self.binary(node, "eq", "self", "other"),
            t if t.starts_with("aten.ne.") => self.binary(node, "ne", "self", "other"),
            t if t.starts_with("aten.lt.") => self.binary(node, "lt", "self", "other"),
            t if t.starts_with("aten.le.") => self.binary(node, "le", "self", "other"),
            t if t.starts_with("aten.gt.") => self.binary(node, "gt", "self", "other"),
            t if t.starts_with("aten.ge.") => self.binary(node, "ge", "self", "other"),
            "aten.where.self" => {
                let out = self.out_type(node, 0)?;
                let c = self.tensor(node, "condition")?;
                let a = self.operand(node, "self", out.dtype)?;
                let b = self.operand(node, "other", out.dtype)?;
                self.finish(node, "where", &[&c, &a, &b], "")
            }
            "aten.clamp.default" | "aten.clamp_min.default" | "aten.clamp_max.default" => {
                let out = self.out_type(node, 0)?;
                let mut x = self.tensor(node, "self")?;
                let bounds: [(&str, &str); 2] = if target == "aten.clamp_max.default" {
                    [("max", "minimum"), ("", "")]
                } else {
                    [("min", "maximum"), ("max", "minimum")]
                };
                for (arg, op) in bounds {
                    if arg.is_empty() || node.arg(arg).is_none() {
                        continue;
                    }
                    let bound = self.operand(node, arg, out.dtype)?;
                    x = self.op(None, op, &[&x, &bound], "", &out, &loc);
                }
                self.bind(node, 0, x);
                Ok(())
            }
            "aten.logical_not.default" => self.unary(node, "logical_not", ""),
            "aten.relu.default" => self.unary(node, "relu", ""),
            "aten.gelu.default" => {
                let approximate = node
                    .arg("approximate")
                    .and_then(|v| v.get("as_string"))
                    .and_then(Value::as_str)
                    .unwrap_or("none")
                    .to_string();
                if approximate != "none" && approximate != "tanh" {
                    return Err(self.node_error(
                        node,
                        format!("gelu approximation '{approximate}' is not 'none' or 'tanh'"),
                    ));
                }
                self.unary(
                    node,
                    "gelu",
                    &format!("approximate = {}", mlir_string(&approximate)),
                )
            }
            "aten.exp.default" => self.unary(node, "exp", ""),
            "aten.log.default" => self.unary(node, "log", ""),
            "aten.sqrt.default" => self.unary(node, "sqrt", ""),
            "aten.rsqrt.default" => self.unary(node, "rsqrt", ""),
            "aten.tanh.default" => self.unary(node, "tanh", ""),
            "aten.sigmoid.default" => self.unary(node, "sigmoid", ""),
            "aten.neg.default" => self.unary(node, "neg", ""),
            "aten.abs.default" => self.unary(node, "abs", ""),
            "aten.sin.default" => self.unary(node, "sin", ""),
            "aten.cos.default" => self.unary(node, "cos", ""),
            "aten.erf.default" => self.unary(node, "erf", ""),
            "aten.reciprocal.default" => self.unary(node, "reciprocal", ""),
            "aten.silu.default" => self.unary(node, "silu", ""),
            "aten.clone.default" | "aten.alias.default" => self.unary(node, "clone", ""),
            "aten._to_copy.default" | "aten.to.dtype" => {
                let x = self.tensor(node, "self")?;
                let out = self.out_type(node, 0)?;
                let op = if self.ty(&x).dtype == out.dtype {
                    "clone"
                } else {
                    "to_dtype"
                };
                self.finish(node, op, &[&x], "")
            }
            "aten.sum.dim_IntList" | "aten.sum.default" => self.reduction(node, "sum", true),
            "aten.mean.dim" | "aten.mean.default" => self.reduction(node, "mean", true),
            "aten.amax.default" => self.reduction(node, "amax", true),
            "aten.amin.default" => self.reduction(node, "amin", true),
            "aten.var.correction" => self.reduction(node, "var", true),
            "aten.any.dim" | "aten.any.dims" | "aten.any.default" => self.reduction(node, "any", true),
            "aten._softmax.default" | "aten._log_softmax.default" => {
                if self.bool_arg(node, "half_to_float", false)? {
                    return Err(self.node_error(node, "half_to_float=True is not supported"));
                }
                let dim = self.int_arg(node, "dim", None)?;
                let op = if target.contains("_log_") {
                    "log_softmax"
                } else {
                    "softmax"
                };
                self.unary(node, op, &format!("dim = {dim} : i64"))
            }
            "aten.native_layer_norm.default" => {
                self.only_outputs(node, &[0])?;
                let x = self.tensor(node, "input")?;
                let out = self.out_type(node, 0)?;
                let normalized = self.ints_arg(node, "normalized_shape")?.unwrap_or_default();
                let eps = node.arg("eps").and_then(as_float).unwrap_or(1e-5);
                let param = TType {
                    shape: normalized.clone(),
                    dtype: out.dtype,
                };
                let w = match node.arg("weight") {
                    Some(_) => self.tensor(node, "weight")?,
                    None => self.splat(None, Scalar::Float(1.0), &param, &loc),
                };
                let b = match node.arg("bias") {
                    Some(_) => self.tensor(node, "bias")?,
                    None => self.splat(None, Scalar::Float(0.0), &param, &loc),
                };
                let attrs = format!(
                    "normalized_shape = {}, eps = {} : f64",
                    ints(&normalized),
                    float_literal(eps, "f64")
                );
                self.finish(node, "layer_norm", &[&x, &w, &b], &attrs)
            }
            "aten._native_batch_norm_legit_no_training.default" => {
                // Inference batch norm: (x - mean) * rsqrt(var + eps) * w + b, each [C]
                // parameter viewed as [1, C, 1, ...].
                self.only_outputs(node, &[0])?;
                let x = self.tensor(node, "input")?;
                let out = self.out_type(node, 0)?;
                let c = *out
                    .shape
                    .get(1)
                    .ok_or_else(|| self.node_error(node, "input has no channel dimension"))?;
                let mut bshape = vec![1; out.rank()];
                bshape[1] = c;
                let eps = node.arg("eps").and_then(as_float).unwrap_or(1e-5);
                let param = |this: &mut Self, arg: &str, default: f64| -> R<String> {
                    let p = match node.arg(arg) {
                        Some(_) => this.tensor(node, arg)?,
                        None => this.splat(
                            None,
                            Scalar::Float(default),
                            &TType {
                                shape: vec![c],
                                dtype: out.dtype,
                            },
                            &loc,
                        ),
                    };
                    Ok(this.view(None, &p, bshape.clone(), &loc))
                };
                let mean = param(self, "running_mean", 0.0)?;
                let var = param(self, "running_var", 1.0)?;
                let w = param(self, "weight", 1.0)?;
                let b = param(self, "bias", 0.0)?;
                let bty = TType {
                    shape: bshape.clone(),
                    dtype: out.dtype,
                };
                let e = self.constant(
                    Scalar::Float(eps),
                    &TType {
                        shape: vec![],
                        dtype: out.dtype,
                    },
                    &loc,
                );
                let ve = self.op(None, "add", &[&var, &e], "", &bty, &loc);
                let r = self.op(None, "rsqrt", &[&ve], "", &bty, &loc);
                let d = self.op(None, "sub", &[&x, &mean], "", &out, &loc);
                let n = self.op(None, "mul", &[&d, &r], "", &out, &loc);
                let s = self.op(None, "mul", &[&n, &w], "", &out, &loc);
                self.finish(node, "add", &[&s, &b], "")
            }
            "aten.mm.default" | "aten.bmm.default" => {
                let a = self.tensor(node, "self")?;
                let b = self.tensor(node, "mat2")?;
                let op = if target.starts_with("aten.mm") {
                    "mm"
                } else {
                    "bmm"
                };
                self.finish(node, op, &[&a, &b], "")
            }
            "aten.addmm.default" => {
                for factor in ["beta", "alpha"] {
                    if let Some(v) = node.arg(factor).and_then(scalar_of) {
                        if v != Scalar::Int(1) && v != Scalar::Float(1.0) {
                            return Err(
                                self.node_error(node, format!("addmm with {factor} != 1 is not supported"))
                            );
                        }
                    }
                }
                let bias = self.tensor(node, "self")?;
                let a = self.tensor(node, "mat1")?;
                let b = self.tensor(node, "mat2")?;
                self.finish(node, "addmm", &[&bias, &a, &b], "")
            }
            "aten.linear.default" => {
                let x = self.tensor(node, "input")?;
                let w = self.tensor(node, "weight")?;
                let mut operands = vec![x, w];
                if node.arg("bias").is_some() {
                    operands.push(self.tensor(node, "bias")?);
                }
                let refs: Vec<&str> = operands.iter().map(String::as_str).collect();
                self.finish(node, "linear", &refs, "")
            }
            "aten.convolution.default" => {
                if self.bool_arg(node, "transposed", false)? {
                    return Err(self.node_error(node, "transposed convolution is not supported"));
                }
                if self
                    .ints_arg(node, "output_padding")?
                    .is_some_and(|p| p.iter().any(|&v| v != 0))
                {
                    return Err(self.node_error(node, "convolution output_padding is not supported"));
                }
                let x = self.tensor(node, "input")?;
                let w = self.tensor(node, "weight")?;
                let mut operands = vec![x, w];
                if node.arg("bias").is_some() {
                    operands.push(self.tensor(node, "bias")?);
                }
                let spatial = self.ty(&operands[0]).rank().saturating_sub(2);
                let list = |this: &Self, arg: &str, default: i64| -> R<Vec<i64>> {
                    let mut v = this.ints_arg(node, arg)?.unwrap_or_else(|| vec![default]);
                    if v.len() == 1 && spatial > 1 {
                        v = vec![v[0]; spatial];
                    }
                    Ok(v)
                };
                let attrs = format!(
                    "stride = {}, padding = {}, dilation = {}, groups = {} : i64",
                    ints(&list(self, "stride", 1)?),
                    ints(&list(self, "padding", 0)?),
                    ints(&list(self, "dilation", 1)?),
                    self.int_arg(node, "groups", Some(1))?
                );
                let refs: Vec<&str> = operands.iter().map(String::as_str).collect();
                self.finish(node, "convolution", &refs, &attrs)
            }
            "aten.view.default" | "aten._unsafe_view.default" | "aten.reshape.default" => {
                self.unary(node, "view", "")
            }
            "aten.expand.default" => self.unary(node, "expand", ""),
            "aten.permute.default" => {
                let dims = self.ints_arg(node, "dims")?.unwrap_or_default();
                self.unary(node, "permute", &format!("dims = {}", ints(&dims)))
            }
            "aten.transpose.int" => {
                let d0 = self.int_arg(node, "dim0", None)?;
                let d1 = self.int_arg(node, "dim1", None)?;
                self.unary(
                    node,
                    "transpose",
                    &format!("dim0 = {d0} : i64, dim1 = {d1} : i64"),
                )
            }
            "aten.t.default" => self.unary(node, "transpose", "dim0 = 0 : i64, dim1 = 1 : i64"),
            "aten.select.int" => {
                let dim = self.int_arg(node, "dim", None)?;
                let index = self.int_arg(node, "index", None)?;
                self.unary(
                    node,
                    "select",
                    &format!("dim = {dim} : i64, index = {index} : i64"),
                )
            }
            "aten.slice.Tensor" => {
                let x = self.tensor(node, "self")?;
                let xt = self.ty(&x);
                let dim = wrap(self.int_arg(node, "dim", Some(0))?, xt.rank());
                let size = *xt
                    .shape
                    .get(dim as usize)
                    .ok_or_else(|| self.node_error(node, "slice dim out of range"))?;
                let clampi = |v: i64| if v < 0 { (v + size).max(0) } else { v.min(size) };
                let start = clampi(self.int_arg(node, "start", Some(0))?);
                let end = clampi(self.int_arg(node, "end", Some(size))?);
                let step = self.int_arg(node, "step", Some(1))?;
                self.unary(
                    node,
                    "slice",
                    &format!(
                        "dim = {dim} : i64, start = {start} : i64, end = {end} : i64, step = {step} : i64"
                    ),
                )
            }
            "aten.squeeze.dim" | "aten.squeeze.dims" | "aten.squeeze.default" => {
                let x = self.tensor(node, "self")?;
                let xt = self.ty(&x);
                let dims: Vec<i64> = match self.ints_arg(node, "dim")? {
                    Some(d) => d
                        .iter()
                        .map(|&d| wrap(d, xt.rank()))
                        .filter(|&d| xt.shape.get(d as usize) == Some(&1))
                        .collect(),
                    None => (0..xt.rank() as i64)
                        .filter(|&d| xt.shape[d as usize] == 1)
                        .collect(),
                };
                self.unary(node, "squeeze", &format!("dims = {}", ints(&dims)))
            }
            "aten.unsqueeze.default" => {
                let dim = self.int_arg(node, "dim", None)?;
                self.unary(node, "unsqueeze", &format!("dim = {dim} : i64"))
            }
            "aten.cat.default" => {
                let list = node
                    .arg("tensors")
                    .and_then(|v| v.get("as_tensors"))
                    .and_then(Value::as_array)
                    .ok_or_else(|| self.node_error(node, "argument 'tensors' is not a list of tensors"))?;
                let mut parts = Vec::new();
                for t in list {
                    let name = t["name"].as_str().unwrap_or_default();
                    parts.push(self.values.get(name).cloned().ok_or_else(|| {
                        self.node_error(node, format!("cat reads '{name}', which is not defined before"))
                    })?);
                }
                let out = self.out_type(node, 0)?;
                let dim = wrap(self.int_arg(node, "dim", Some(0))?, out.rank());
                let Some((first, rest)) = parts.split_first() else {
                    return Err(self.node_error(node, "cat of no tensors"));
                };
                // aten.cat is binary: fold left.
                let mut acc = first.clone();
                for (k, part) in rest.iter().enumerate() {
                    let (a, b) = (self.ty(&acc), self.ty(part));
                    let mut shape = a.shape.clone();
                    shape[dim as usize] += b.shape[dim as usize];
                    let res = if k + 1 == rest.len() {
                        self.out_ssa(node, 0)
                    } else {
                        None
                    };
                    acc = self.op(
                        res.as_deref(),
                        "cat",
                        &[&acc, part],
                        &format!("dim = {dim} : i64"),
                        &TType {
                            shape,
                            dtype: out.dtype,
                        },
                        &loc,
                    );
                }
                self.bind(node, 0, acc);
                Ok(())
            }
            "aten.gather.default" => {
                let x = self.tensor(node, "self")?;
                let index = self.tensor(node, "index")?;
                let dim = self.int_arg(node, "dim", None)?;
                self.finish(node, "gather", &[&x, &index], &format!("dim = {dim} : i64"))
            }
            "aten.embedding.default" => {
                // out[i.., :] = weight[indices[i..], :]: flatten the indices, broadcast them
                // over the embedding width, gather rows, view back.
                let w = self.tensor(node, "weight")?;
                let idx = self.tensor(node, "indices")?;
                let (wt, it) = (self.ty(&w), self.ty(&idx));
                let out = self.out_type(node, 0)?;
                let n: i64 = it.shape.iter().product();
                let d = *wt
                    .shape
                    .get(1)
                    .ok_or_else(|| self.node_error(node, "embedding weight must be 2-D"))?;
                let flat = self.view(None, &idx, vec![n], &loc);
                let col = self.op(
                    None,
                    "unsqueeze",
                    &[&flat],
                    "dim = 1 : i64",
                    &TType {
                        shape: vec![n, 1],
                        dtype: it.dtype,
                    },
                    &loc,
                );
                let wide = self.op(
                    None,
                    "expand",
                    &[&col],
                    "",
                    &TType {
                        shape: vec![n, d],
                        dtype: it.dtype,
                    },
                    &loc,
                );
                let rows = self.op(
                    None,
                    "gather",
                    &[&w, &wide],
                    "dim = 0 : i64",
                    &TType {
                        shape: vec![n, d],
                        dtype: out.dtype,
                    },
                    &loc,
                );
                let res = self.view(self.out_ssa(node, 0).as_deref(), &rows, out.shape.clone(), &loc);
                self.bind(node, 0, res);
                Ok(())
            }
            "aten.split_with_sizes.default" | "aten.split.Tensor" => {
                let x = self.tensor(node, "self")?;
                let xt = self.ty(&x);
                let dim = wrap(self.int_arg(node, "dim", Some(0))?, xt.rank());
                let size = xt.shape[dim as usize];
                let sizes: Vec<i64> = if target.ends_with("split_with_sizes.default") {
                    self.ints_arg(node, "split_sizes")?.unwrap_or_default()
                } else {
                    let chunk = self.int_arg(node, "split_size", None)?.max(1);
                    (0..size)
                        .step_by(chunk as usize)
                        .map(|s| chunk.min(size - s))
                        .collect()
                };
                let mut start = 0;
                for (i, len) in sizes.iter().enumerate() {
                    let mut shape = xt.shape.clone();
                    shape[dim as usize] = *len;
                    let attrs = format!(
                        "dim = {dim} : i64, start = {start} : i64, end = {} : i64, step = 1 : i64",
                        start + len
                    );
                    let res = self.op(
                        self.out_ssa(node, i).as_deref(),
                        "slice",
                        &[&x],
                        &attrs,
                        &TType {
                            shape,
                            dtype: xt.dtype,
                        },
                        &loc,
                    );
                    self.bind(node, i, res);
                    start += len;
                }
                Ok(())
            }
            "aten.full.default"
            | "aten.full_like.default"
            | "aten.zeros_like.default"
            | "aten.ones_like.default"
            | "aten.scalar_tensor.default" => {
                let out = self.out_type(node, 0)?;
                let value = match target.as_str() {
                    "aten.zeros_like.default" => Scalar::Int(0),
                    "aten.ones_like.default" => Scalar::Int(1),
                    "aten.scalar_tensor.default" => {
                        node.arg("s").and_then(scalar_of).unwrap_or(Scalar::Int(0))
                    }
                    _ => node
                        .arg("fill_value")
                        .and_then(scalar_of)
                        .ok_or_else(|| self.node_error(node, "argument 'fill_value' is not a number"))?,
                };
                let res = self.splat(self.out_ssa(node, 0).as_deref(), value, &out, &loc);
                self.bind(node, 0, res);
                Ok(())
            }
            "_operator.getitem" => {
                let items = node
                    .args
                    .values()
                    .find_map(|v| v.get("as_tensors").and_then(Value::as_array));
                let index = node.args.values().find_map(|v| as_int(v));
                match (items, index) {
                    (Some(items), Some(i)) => {
                        let name = items
                            .get(i as usize)
                            .and_then(|t| t["name"].as_str())
                            .unwrap_or_default();
                        let ssa =
                            self.values.get(name).cloned().ok_or_else(|| {
                                self.node_error(node, format!("getitem of undefined '{name}'"))
                            })?;
                        self.bind(node, 0, ssa);
                        Ok(())
                    }
                    _ => Err(self.node_error(node, "getitem of something other than a tensor list")),
                }
            }
            _ => Err(self.node_error(node, "fuse-import does not support this op")),
        }
    }
}

/// Every tensor name mentioned in an argument.
fn mentioned(arg: &Value, out: &mut Vec<String>) {
    if let Some(name) = tensor_name(arg) {
        out.push(name.to_string());
    }
    if let Some(list) = arg.get("as_tensors").and_then(Value::as_array) {
        out.extend(list.iter().filter_map(|t| t["name"].as_str().map(str::to_string)));
    }
    if let Some(inner) = arg.get("as_optional_tensor") {
        mentioned(inner, out);
    }
}

fn output_names(outputs: &Value) -> Vec<Option<String>> {
    let mut names = Vec::new();
    for out in outputs.as_array().map(Vec::as_slice).unwrap_or_default() {
        if let Some(name) = tensor_name(out) {
            names.push(Some(name.to_string()));
        } else if let Some(list) = out.get("as_tensors").and_then(Value::as_array) {
            names.extend(list.iter().map(|t| t["name"].as_str().map(str::to_string)));
        } else {
            names.push(None);
        }
    }
    names
}

/// Writes the module for `model` (parsed `model.json`); returns it and the node count.
pub(crate) fn emit_module(model: &Value, path: &str, options: &ImportOptions) -> R<(String, usize)> {
    let bad = |reason: &str| ImportError::BadModel {
        path: path.to_string(),
        reason: reason.to_string(),
    };
    let gm = &model["graph_module"];
    let graph = &gm["graph"];
    let tensor_values = graph["tensor_values"]
        .as_object()
        .ok_or_else(|| bad("graph has no tensor_values"))?;
    let nodes = graph["nodes"]
        .as_array()
        .ok_or_else(|| bad("graph has no nodes"))?;
    let inputs = graph["inputs"]
        .as_array()
        .ok_or_else(|| bad("graph has no inputs"))?;
    let outputs = graph["outputs"]
        .as_array()
        .ok_or_else(|| bad("graph has no outputs"))?;
    let mut e = Emitter {
        path,
        tensor_values,
        values: HashMap::new(),
        ssa_types: HashMap::new(),
        used: Default::default(),
        body: String::new(),
        fresh: 0,
    };
    for node in nodes {
        let mut names = Vec::new();
        for input in node["inputs"].as_array().map(Vec::as_slice).unwrap_or_default() {
            mentioned(&input["arg"], &mut names);
        }
        e.used.extend(names);
    }
    for out in outputs {
        let mut names = Vec::new();
        mentioned(out, &mut names);
        e.used.extend(names);
    }
    // Arguments, with what the signature says they are.
    let specs = gm["signature"]["input_specs"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut args = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let name = tensor_name(input).ok_or_else(|| ImportError::BadModel {
            path: path.to_string(),
            reason: format!("graph input #{i} is not a tensor ({input}); symbolic-int inputs are dynamic shapes, not supported"),
        })?;
        let ty = e.tensor_type(name, path)?;
        let (kind, original) = match specs
            .get(i)
            .and_then(Value::as_object)
            .and_then(|o| o.iter().next())
        {
            Some((kind, spec)) => {
                let original = [
                    "parameter_name",
                    "buffer_name",
                    "tensor_constant_name",
                    "constant_name",
                ]
                .iter()
                .find_map(|k| spec[*k].as_str())
                .unwrap_or(name)
                .to_string();
                (kind.clone(), original)
            }
            None => ("user_input".to_string(), name.to_string()),
        };
        let ssa = ssa_name(name);
        args.push(format!(
            "{ssa}: {} {{fuselab.input = {}, fuselab.name = {}}}",
            ty.mlir(),
            mlir_string(&kind),
            mlir_string(&original)
        ));
        e.values.insert(name.to_string(), ssa.clone());
        e.ssa_types.insert(ssa, ty);
    }
    for node in nodes {
        let target = node["target"].as_str().unwrap_or_default().to_string();
        let name = node["name"].as_str().unwrap_or_default().to_string();
        let trace = node["metadata"]["stack_trace"].as_str().unwrap_or_default();
        let (loc, where_) = match source_line(trace) {
            Some((file, line)) => (
                format!(
                    "loc(fused[{}:{line}:0, {}])",
                    mlir_string(&file),
                    mlir_string(&name)
                ),
                format!("{file}:{line}:0"),
            ),
            None => (format!("loc({})", mlir_string(&name)), path.to_string()),
        };
        let mut node_args = HashMap::new();
        for input in node["inputs"].as_array().map(Vec::as_slice).unwrap_or_default() {
            if let Some(arg_name) = input["name"].as_str() {
                node_args.insert(arg_name, &input["arg"]);
            }
        }
        let n = Node {
            target,
            name,
            loc,
            where_,
            args: node_args,
            outputs: output_names(&node["outputs"]),
        };
        e.emit_node(&n)?;
    }
    let mut results = Vec::new();
    for (i, out) in outputs.iter().enumerate() {
        let name = tensor_name(out).ok_or_else(|| ImportError::BadModel {
            path: path.to_string(),
            reason: format!("graph output #{i} is not a tensor: {out}"),
        })?;
        let ssa = e.values.get(name).cloned().ok_or_else(|| ImportError::BadModel {
            path: path.to_string(),
            reason: format!("graph output '{name}' is never defined"),
        })?;
        results.push(ssa);
    }
    let result_types: Vec<String> = results.iter().map(|r| e.ty(r).mlir()).collect();
    let mut text = format!(
        "// Imported by fuse-import from {} (torch.export schema {}.{}).\n",
        e.path, model["schema_version"]["major"], model["schema_version"]["minor"]
    );
    let _ = writeln!(
        text,
        "func.func @{}({}) -> ({}) {{",
        options.entry,
        args.join(", "),
        result_types.join(", ")
    );
    text.push_str(&e.body);
    let _ = writeln!(
        text,
        "    return {} : {}",
        results.join(", "),
        result_types.join(", ")
    );
    text.push_str("}\n");
    Ok((text, nodes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_literals_always_have_a_dot() {
        assert_eq!(float_literal(1.0, "f32"), "1.0e0");
        assert_eq!(float_literal(1.1, "f32"), "1.1e0");
        assert_eq!(float_literal(1e-5, "f64"), "1.0e-5");
        assert_eq!(float_literal(f64::INFINITY, "f32"), "0x7F800000");
        assert_eq!(float_literal(f64::NEG_INFINITY, "f64"), "0xFFF0000000000000");
    }

    #[test]
    fn stack_traces_give_the_innermost_line() {
        let trace = "File \"/a/model.py\", line 10, in forward\n    x = f(x)\nFile \"/a/layers.py\", line 42, in f\n    return x * 2";
        assert_eq!(source_line(trace), Some(("/a/layers.py".to_string(), 42)));
        assert_eq!(source_line("no trace"), None);
    }

    #[test]
    fn names_and_strings_are_escaped() {
        assert_eq!(ssa_name("add_2"), "%add_2");
        assert_eq!(ssa_name("0weird.name"), "%v_0weird_name");
        assert_eq!(mlir_string("a\"b\n"), "\"a\\22b\\0A\"");
    }
}
