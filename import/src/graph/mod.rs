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

mod args;
mod ops;

use crate::{ImportError, ImportOptions};
use serde_json::{Map, Value};
use std::{collections::HashMap, fmt::Write as _};

/// Every `torch.ops.*` target the importer maps (for docs and `--help`), from the
/// family tables in [`ops`].
pub fn supported_targets() -> Vec<&'static str> {
    ops::targets().collect()
}

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
        4 => Some("i32"),
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

/// The discardable attribute of Inductor's `realize_hint` on an aten op reading the
/// hinted value (`fuselab_dialects::attrs::REALIZE_HINT_ATTR`).
const REALIZE_HINT: &str = "fuselab.realize_hint";
/// The discardable attribute of an aten op that is part of a larger computation
/// (`fuselab_dialects::attrs::INLINE_ATTR`).
const INLINE: &str = "fuselab.inline";
/// The discardable attribute of a view whose size argument has a -1
/// (`fuselab_dialects::attrs::INFERRED_SIZE_ATTR`).
const INFERRED_SIZE_ATTR: &str = "fuselab.inferred_size";

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
    /// Inductor's `x.realize_hint()` (pooling lowerings): while set, every op emitted
    /// that reads this SSA value carries `fuselab.realize_hint`, so `--lower-aten-to-loop`
    /// marks the value's producer (docs/strategies/inductor.md).
    realize_hint: Option<String>,
    /// While set, every op emitted carries `fuselab.inline`: a part of one computation
    /// the importer spells as several ops (a max pool's padding and partial maximums),
    /// which Inductor lowers as one node; never stored on its own account.
    inline_parts: bool,
    /// While set, every op emitted carries `fuselab.origin = <origin>` and
    /// `fuselab.op_group = <key>`: the parts of one torch op (a max pool), one op for the
    /// strategies that work per op and named after it in kernel names.
    op_group: Option<(&'static str, String)>,
    /// torch value name -> its SSA name, unique in the function.
    ssa_names: std::cell::RefCell<SsaNames>,
}

/// SSA names given to torch value names: the sanitized name, or, when two torch names
/// sanitize alike (`mul.1` and `mul_1`), the sanitized name with a `_<n>` suffix.
#[derive(Default)]
struct SsaNames {
    by_torch: HashMap<String, String>,
    taken: std::collections::HashSet<String>,
}

impl SsaNames {
    /// The SSA name of `torch`, assigned on first request.
    fn name_of(&mut self, torch: &str) -> String {
        if let Some(ssa) = self.by_torch.get(torch) {
            return ssa.clone();
        }
        let base = ssa_name(torch);
        let mut ssa = base.clone();
        let mut n = 1;
        while self.taken.contains(&ssa) {
            ssa = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(ssa.clone());
        self.by_torch.insert(torch.to_string(), ssa.clone());
        ssa
    }
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
                "tensor '{name}' has dtype {} (torch ScalarType {code}); fuselab supports float32, float16, bfloat16, int64, int32 and bool",
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

    /// The SSA name of the torch value `name`: the same for every request, and never
    /// that of another torch value. (Fresh names, `%f.N`, contain a `.`, which sanitized
    /// names never do.)
    fn ssa(&self, name: &str) -> String {
        self.ssa_names.borrow_mut().name_of(name)
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
        let hint = self
            .realize_hint
            .as_deref()
            .is_some_and(|x| operands.contains(&x))
            .then_some(REALIZE_HINT);
        let inline = self.inline_parts.then_some(INLINE);
        let group = self.op_group.as_ref().map(|(origin, key)| {
            format!(
                "fuselab.origin = {}, fuselab.op_group = {}",
                mlir_string(origin),
                mlir_string(key)
            )
        });
        let attrs: Vec<&str> = [Some(attrs), hint, inline, group.as_deref()]
            .into_iter()
            .flatten()
            .filter(|a| !a.is_empty())
            .collect();
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" {{{}}}", attrs.join(", "))
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
        realize_hint: None,
        inline_parts: false,
        op_group: None,
        ssa_names: Default::default(),
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
        let ssa = e.ssa(name);
        // An empty constant or buffer (an empty cache) may be left unused: see below.
        let empty = kind != "user_input" && ty.shape.contains(&0);
        args.push((
            ssa.clone(),
            empty,
            format!(
                "{ssa}: {} {{fuselab.input = {}, fuselab.name = {}}}",
                ty.mlir(),
                mlir_string(&kind),
                mlir_string(&original)
            ),
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
    // Empty constants and buffers nothing reads any more (a clone of an empty cache is
    // that cache, cat drops it) leave the signature: zero-size tensors are not supported.
    let read = |ssa: &str| {
        e.body.match_indices(ssa).any(|(at, _)| {
            !e.body[at + ssa.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
        }) || results.iter().any(|r| r == ssa)
    };
    let (kept, dropped): (Vec<_>, Vec<_>) =
        args.into_iter().partition(|(ssa, empty, _)| !*empty || read(ssa));
    if !dropped.is_empty() {
        let names: Vec<&str> = dropped.iter().map(|(ssa, _, _)| ssa.as_str()).collect();
        let _ = writeln!(text, "// Unused empty inputs left out: {}.", names.join(", "));
    }
    let args: Vec<String> = kept.into_iter().map(|(_, _, arg)| arg).collect();
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

    /// Torch names that sanitize alike get distinct SSA names, stable per name (issue 13,
    /// item 5: `mul.1` was renamed to an already used `mul_1`).
    #[test]
    fn clashing_names_get_distinct_ssa_names() {
        let mut names = SsaNames::default();
        assert_eq!(names.name_of("mul_1"), "%mul_1");
        assert_eq!(names.name_of("mul.1"), "%mul_1_1");
        assert_eq!(names.name_of("mul_1_1"), "%mul_1_1_1");
        assert_eq!(names.name_of("mul.1"), "%mul_1_1");
        assert_eq!(names.name_of("mul_1"), "%mul_1");
    }
}
