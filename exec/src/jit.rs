//! CPU code generation for `loop` IR through upstream MLIR and LLVM, and a JIT.
//!
//! [`cpu_module_text`] writes, for one `loop` function, a module of upstream ops only
//! (`func`, `scf`, `arith`, `math`, `affine`, `memref`): one `func.func @main` taking
//! every input and output as a flat 1-D memref. Each realized node becomes a loop nest —
//! `scf.for` over its ranges, the node's `arith`/`math` body copied op by op, `loop.load`
//! as `affine.apply` + `memref.load` — and stores its value once; a reduction carries its
//! accumulator in `iter_args` (the row stays in a register). Members of a `loop.kernel`
//! run in order inside the same function, and values inlined by a fusion strategy are
//! recomputed where used, so they never reach memory. Kernel-local buffers that remain
//! (e.g. a row reduction read by its epilogue) are `memref.alloc`ed and freed at the end.
//! Externs (`mm`, `bmm`) are loop nests too (not a BLAS: correct, not fast).
//!
//! [`Jit::compile`] lowers that module with upstream passes (`lower-affine`,
//! `convert-scf-to-cf`, math to libm/LLVM, memref/arith/cf/func to LLVM) and creates an
//! MLIR `ExecutionEngine` at -O3; [`Jit::run`] calls `main` through its C interface.

use crate::{tensor::Tensor, ExecError};
use fuselab_dialects::{
    loops::names,
    types::{DType, TensorType},
};
use fuselab_passes::ir;
use melior::{
    dialect::DialectRegistry,
    ir::{operation::OperationLike as _, Module},
    pass::PassManager,
    utility::{
        parse_pass_pipeline, register_all_dialects, register_all_llvm_translations, register_all_passes,
    },
    Context, ExecutionEngine,
};
use mlir_sys::{MlirOperation, MlirValue};
use std::{collections::HashMap, fmt::Write as _};

fn elem(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "f32",
        DType::F16 => "f16",
        DType::BF16 => "bf16",
        DType::I64 => "i64",
        DType::I1 => "i1",
    }
}

fn memref(t: &TensorType) -> String {
    format!("memref<{}x{}>", t.numel().max(1), elem(t.dtype))
}

fn i64_list(op: MlirOperation, name: &str) -> Vec<i64> {
    ir::attr(op, name)
        .and_then(|a| fuselab_dialects::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(a) }))
        .unwrap_or_default()
}

/// Whether the loop variables of `node` (ranges, then reduction ranges) start with
/// extents `ranges`.
fn node_ranges_prefix(node: MlirOperation, ranges: &[i64]) -> bool {
    let mut all = i64_list(node, "ranges");
    all.extend(i64_list(node, "reduction_ranges"));
    all.len() >= ranges.len() && all[..ranges.len()] == *ranges
}

/// `scf.for` loops carrying an accumulator (reductions, matmul and convolution sums).
struct Accumulation {
    /// Induction variables, outermost first.
    ivs: Vec<String>,
    /// The accumulator inside the innermost loop.
    carried: String,
    /// Each loop's result.
    results: Vec<String>,
    /// Indentation outside the loops.
    outer: String,
    /// Indentation inside the innermost loop.
    indent: String,
    /// Accumulator type.
    elem: &'static str,
}

/// A flat buffer in the generated function.
#[derive(Clone, Debug)]
struct Buf {
    ssa: String,
    ty: TensorType,
}

struct Gen {
    out: String,
    fresh: usize,
    bufs: HashMap<usize, Buf>,
    tuples: HashMap<usize, Vec<Buf>>,
    allocs: Vec<Buf>,
    /// Result value -> output argument it is written to directly.
    direct_out: HashMap<usize, Buf>,
    /// Kernel-local pointwise nodes: computed where they are read, never stored.
    inline: HashMap<usize, MlirOperation>,
}

fn err(op: MlirOperation, m: impl Into<String>) -> ExecError {
    ExecError::at(op, m)
}

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("%{prefix}{}", self.fresh)
    }

    fn index_const(&mut self, v: i64, indent: &str) -> String {
        let n = self.name("c");
        let _ = writeln!(self.out, "{indent}{n} = arith.constant {v} : index");
        n
    }

    fn buffer(&self, op: MlirOperation, v: MlirValue) -> Result<Buf, ExecError> {
        self.bufs
            .get(&(v.ptr as usize))
            .cloned()
            .ok_or_else(|| err(op, "reads a value the CPU code generator has no buffer for"))
    }

    /// The buffer a node writes: its output argument if it is returned directly, else a
    /// fresh allocation.
    fn result_buffer(&mut self, op: MlirOperation) -> Result<Buf, ExecError> {
        let result = ir::result(op, 0);
        if let Some(b) = self.direct_out.get(&(result.ptr as usize)) {
            return Ok(b.clone());
        }
        let ty = ir::tensor_type(result).ok_or_else(|| err(op, "result is not a supported tensor"))?;
        let ssa = self.name("buf");
        // Intermediate buffers are module globals, allocated once when the code is loaded
        // (as a caching allocator would), so calls do not pay for malloc and page faults.
        let global = format!("g{}", self.allocs.len());
        let _ = writeln!(
            self.out,
            "    {ssa} = memref.get_global @{global} : {}",
            memref(&ty)
        );
        let b = Buf { ssa, ty };
        self.allocs.push(b.clone());
        Ok(b)
    }

    /// Opens `scf.for` loops over `ranges`; returns the induction variables and the
    /// indentation inside.
    fn open_loops(&mut self, ranges: &[i64], indent: &str) -> (Vec<String>, String) {
        let mut ivs = Vec::new();
        let mut ind = indent.to_string();
        let c0 = self.index_const(0, indent);
        let c1 = self.index_const(1, indent);
        for &r in ranges {
            let ub = self.index_const(r, &ind);
            let iv = self.name("i");
            let _ = writeln!(self.out, "{ind}scf.for {iv} = {c0} to {ub} step {c1} {{");
            ivs.push(iv);
            ind.push_str("  ");
        }
        (ivs, ind)
    }

    /// Opens `scf.for` loops over `ranges` that carry one accumulator of type `e`,
    /// starting at `init`.
    fn open_accumulation(
        &mut self,
        ranges: &[i64],
        init: &str,
        e: &'static str,
        indent: &str,
    ) -> Accumulation {
        let c0 = self.index_const(0, indent);
        let c1 = self.index_const(1, indent);
        let mut acc = Accumulation {
            ivs: Vec::new(),
            carried: init.to_string(),
            results: Vec::new(),
            outer: indent.to_string(),
            indent: indent.to_string(),
            elem: e,
        };
        for &r in ranges {
            let ub = self.index_const(r, &acc.indent);
            let (iv, arg, res) = (self.name("r"), self.name("acc"), self.name("red"));
            let _ = writeln!(
                self.out,
                "{}{res} = scf.for {iv} = {c0} to {ub} step {c1} iter_args({arg} = {}) -> ({e}) {{",
                acc.indent, acc.carried
            );
            acc.ivs.push(iv);
            acc.results.push(res);
            acc.carried = arg;
            acc.indent.push_str("  ");
        }
        acc
    }

    /// Yields `next` through the loops of `acc`; returns the accumulated value.
    fn close_accumulation(&mut self, acc: Accumulation, next: String) -> String {
        let mut yielded = next;
        for k in (0..acc.results.len()).rev() {
            let _ = writeln!(
                self.out,
                "{}{}scf.yield {yielded} : {}",
                acc.outer,
                "  ".repeat(k + 1),
                acc.elem
            );
            let _ = writeln!(self.out, "{}{}}}", acc.outer, "  ".repeat(k));
            yielded = acc.results[k].clone();
        }
        yielded
    }

    fn close_loops(&mut self, n: usize, indent: &str) {
        for k in (0..n).rev() {
            let _ = writeln!(self.out, "{indent}{}}}", "  ".repeat(k));
        }
    }

    /// `affine.apply` of the contiguous offset of `ivs` over `ranges`.
    fn flat_index(&mut self, ivs: &[String], ranges: &[i64], indent: &str) -> String {
        if ivs.is_empty() {
            return self.index_const(0, indent);
        }
        let mut expr = String::new();
        let mut stride = 1i64;
        for d in (0..ranges.len()).rev() {
            if !expr.is_empty() {
                expr.insert_str(0, " + ");
            }
            expr.insert_str(0, &format!("d{d} * {stride}"));
            stride *= ranges[d];
        }
        let dims: Vec<String> = (0..ranges.len()).map(|d| format!("d{d}")).collect();
        let n = self.name("x");
        let _ = writeln!(
            self.out,
            "{indent}{n} = affine.apply affine_map<({}) -> ({expr})>({})",
            dims.join(", "),
            ivs.join(", ")
        );
        n
    }

    /// Emits the body of `node` with its block arguments bound to `ivs`; returns the
    /// SSA name of the yielded value.
    fn body(&mut self, node: MlirOperation, ivs: &[String], indent: &str) -> Result<String, ExecError> {
        let block = ir::first_block(ir::region(node, 0)).ok_or_else(|| err(node, "node without a body"))?;
        let mut names: HashMap<usize, String> = HashMap::new();
        for (a, iv) in ir::block_arguments(block).iter().zip(ivs) {
            names.insert(a.ptr as usize, iv.clone());
        }
        for op in ir::block_ops(block) {
            let name = ir::op_name(op);
            let operands: Vec<MlirValue> = ir::operands(op);
            let get = |v: &MlirValue| -> Result<String, ExecError> {
                names
                    .get(&(v.ptr as usize))
                    .cloned()
                    .ok_or_else(|| err(op, "operand defined outside the body"))
            };
            if name == "gpu.yield" {
                return get(&operands[0]);
            }
            let res = self.name("v");
            if name == names::LOAD && self.inline.contains_key(&(operands[0].ptr as usize)) {
                // A kernel-local pointwise producer: recompute it at the loaded position
                // (its loop variables unravelled from the flat index) instead of loading.
                let producer = self.inline[&(operands[0].ptr as usize)];
                let map = ir::attr(op, "index")
                    .map(ir::attr_string)
                    .ok_or_else(|| err(op, "load without index"))?;
                let syms: Vec<String> = operands[1..].iter().map(get).collect::<Result<_, _>>()?;
                let idx = self.name("x");
                let _ = writeln!(
                    self.out,
                    "{indent}{idx} = affine.apply {map}({}){}",
                    ivs.join(", "),
                    if syms.is_empty() {
                        String::new()
                    } else {
                        format!("[{}]", syms.join(", "))
                    }
                );
                let ranges = i64_list(producer, "ranges");
                // Fast path: the read is at the producer's own contiguous index of the
                // reader's leading loop variables (same iteration space): reuse them.
                let same_space = syms.is_empty()
                    && ivs.len() >= ranges.len()
                    && ir::attr(op, "index")
                        .and_then(fuselab_dialects::loops::index::from_affine_map_attr)
                        .is_some_and(|(e, _, _)| {
                            e == fuselab_dialects::loops::index::contiguous_index(&ranges)
                                .drop_unit_dims(&ranges)
                                || e == fuselab_dialects::loops::index::contiguous_index(&ranges)
                        })
                    && node_ranges_prefix(node, &ranges);
                if same_space {
                    let pdims: Vec<String> = ivs[..ranges.len()].to_vec();
                    let v = self.body(producer, &pdims, indent)?;
                    names.insert(ir::result(op, 0).ptr as usize, v);
                    continue;
                }
                let mut pdims = Vec::new();
                let mut stride: i64 = ranges.iter().product();
                for &r in &ranges {
                    stride /= r.max(1);
                    let d = self.name("x");
                    let _ = writeln!(
                        self.out,
                        "{indent}{d} = affine.apply affine_map<(d0) -> ((d0 floordiv {}) mod {})>({idx})",
                        stride.max(1),
                        r.max(1)
                    );
                    pdims.push(d);
                }
                let v = self.body(producer, &pdims, indent)?;
                names.insert(ir::result(op, 0).ptr as usize, v);
                continue;
            }
            if name == names::LOAD {
                let buf = self.buffer(op, operands[0])?;
                let map = ir::attr(op, "index")
                    .map(ir::attr_string)
                    .ok_or_else(|| err(op, "load without index"))?;
                let syms: Vec<String> = operands[1..].iter().map(get).collect::<Result<_, _>>()?;
                let idx = self.name("x");
                let dim_ivs = ivs;
                let _ = writeln!(
                    self.out,
                    "{indent}{idx} = affine.apply {map}({}){}",
                    dim_ivs.join(", "),
                    if syms.is_empty() {
                        String::new()
                    } else {
                        format!("[{}]", syms.join(", "))
                    }
                );
                let _ = writeln!(
                    self.out,
                    "{indent}{res} = memref.load {}[{idx}] : {}",
                    buf.ssa,
                    memref(&buf.ty)
                );
            } else {
                let ops: Vec<String> = operands.iter().map(get).collect::<Result<_, _>>()?;
                let types: Vec<String> = operands
                    .iter()
                    .map(|v| ir::type_string(ir::value_type(*v)))
                    .collect();
                let result_ty = ir::type_string(ir::value_type(ir::result(op, 0)));
                let mut attrs = Vec::new();
                unsafe {
                    for i in 0..mlir_sys::mlirOperationGetNumAttributes(op) {
                        let na = mlir_sys::mlirOperationGetAttribute(op, i);
                        let key = melior::StringRef::from_raw(mlir_sys::mlirIdentifierStr(na.name));
                        attrs.push(format!(
                            "{} = {}",
                            key.as_str().unwrap_or_default(),
                            ir::attr_string(na.attribute)
                        ));
                    }
                }
                let attrs = if attrs.is_empty() {
                    String::new()
                } else {
                    format!(" {{{}}}", attrs.join(", "))
                };
                let _ = writeln!(
                    self.out,
                    "{indent}{res} = \"{name}\"({}){attrs} : ({}) -> {result_ty}",
                    ops.join(", "),
                    types.join(", ")
                );
            }
            names.insert(ir::result(op, 0).ptr as usize, res);
        }
        Err(err(node, "body without gpu.yield"))
    }

    fn node(&mut self, op: MlirOperation) -> Result<(), ExecError> {
        let out = self.result_buffer(op)?;
        let ranges = i64_list(op, "ranges");
        let rranges = i64_list(op, "reduction_ranges");
        let (ivs, ind) = self.open_loops(&ranges, "    ");
        let value = if ir::op_name(op) == names::REDUCTION {
            let kind = ir::attr(op, "kind")
                .and_then(fuselab_dialects::attrs::string_raw)
                .unwrap_or_default();
            let float = out.ty.dtype.is_float();
            let e = elem(out.ty.dtype);
            let (init, combine) = match (kind.as_str(), float) {
                ("sum", true) => ("0.0".to_string(), "arith.addf"),
                ("sum", false) => ("0".to_string(), "arith.addi"),
                ("max", true) => ("0xFF800000".to_string(), "arith.maximumf"),
                ("min", true) => ("0x7F800000".to_string(), "arith.minimumf"),
                ("max", false) if out.ty.dtype == DType::I1 => ("false".to_string(), "arith.ori"),
                ("max", false) => (i64::MIN.to_string(), "arith.maxsi"),
                ("min", false) => (i64::MAX.to_string(), "arith.minsi"),
                _ => {
                    return Err(err(
                        op,
                        format!("reduction kind '{kind}' is not supported by the CPU code generator"),
                    ))
                }
            };
            let init = if e == "f32" || !float {
                init
            } else {
                return Err(err(
                    op,
                    "f16/bf16 reductions are not supported by the CPU code generator",
                ));
            };
            let acc0 = self.name("a");
            let _ = writeln!(self.out, "{ind}{acc0} = arith.constant {init} : {e}");
            let acc = self.open_accumulation(&rranges, &acc0, e, &ind);
            let mut all = ivs.clone();
            all.extend(acc.ivs.iter().cloned());
            let v = self.body(op, &all, &acc.indent)?;
            let next = self.name("n");
            let _ = writeln!(
                self.out,
                "{}{next} = {combine} {}, {v} : {e}",
                acc.indent, acc.carried
            );
            self.close_accumulation(acc, next)
        } else {
            self.body(op, &ivs, &ind)?
        };
        let flat = self.flat_index(&ivs, &ranges, &ind);
        let _ = writeln!(
            self.out,
            "{ind}memref.store {value}, {}[{flat}] : {}",
            out.ssa,
            memref(&out.ty)
        );
        self.close_loops(ranges.len(), "    ");
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    /// `mm` / `bmm` (with operand views and an optional bias) as loop nests.
    fn matmul(&mut self, op: MlirOperation) -> Result<(), ExecError> {
        let out = self.result_buffer(op)?;
        let operands = ir::operands(op);
        let views: Vec<Vec<i64>> = crate::operand_views(op);
        let kind = ir::attr(op, "kind")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        if kind == "convolution" {
            if views.iter().any(|v| !v.is_empty()) {
                return Err(err(op, "convolution operands with views are not generated yet"));
            }
            return self.convolution(op, out, &operands);
        }
        if kind != "mm" && kind != "bmm" {
            return Err(err(
                op,
                format!("the CPU code generator has no '{kind}' extern yet"),
            ));
        }
        if out.ty.dtype != DType::F32 {
            return Err(err(op, "only f32 matmuls are generated"));
        }
        let shape = &out.ty.shape;
        let r = shape.len();
        let (m, n) = (shape[r - 2], shape[r - 1]);
        let a = self.buffer(op, operands[0])?;
        let b = self.buffer(op, operands[1])?;
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
                None => (0, crate::tensor::strides(&logical)),
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
        let (ivs, ind) = self.open_loops(&loop_ranges, "    ");
        let zero = self.name("z");
        let _ = writeln!(self.out, "{ind}{zero} = arith.constant 0.0 : f32");
        let acc = self.open_accumulation(&[k], &zero, "f32", &ind);
        let inner = acc.indent.clone();
        // Map operands (i, j, p[, batch]) -> flat offsets into A and B.
        let (dims, a_expr, b_expr) = if bmm {
            (
                "d0, d1, d2, d3",
                format!("{ao} + d3 * {} + d0 * {} + d2 * {}", astr[0], astr[1], astr[2]),
                format!("{bo} + d3 * {} + d2 * {} + d1 * {}", bstr[0], bstr[1], bstr[2]),
            )
        } else {
            (
                "d0, d1, d2",
                format!("{ao} + d0 * {} + d2 * {}", astr[0], astr[1]),
                format!("{bo} + d2 * {} + d1 * {}", bstr[0], bstr[1]),
            )
        };
        let ij = if bmm { &ivs[1..] } else { &ivs[..] };
        let mut args = vec![ij[0].clone(), ij[1].clone(), acc.ivs[0].clone()];
        if bmm {
            args.push(ivs[0].clone());
        }
        let args = args.join(", ");
        let (ia, ib) = (self.name("x"), self.name("x"));
        let _ = writeln!(
            self.out,
            "{inner}{ia} = affine.apply affine_map<({dims}) -> ({a_expr})>({args})"
        );
        let _ = writeln!(
            self.out,
            "{inner}{ib} = affine.apply affine_map<({dims}) -> ({b_expr})>({args})"
        );
        let (va, vb, prod, sum) = (self.name("v"), self.name("v"), self.name("v"), self.name("v"));
        let _ = writeln!(
            self.out,
            "{inner}{va} = memref.load {}[{ia}] : {}",
            a.ssa,
            memref(&a.ty)
        );
        let _ = writeln!(
            self.out,
            "{inner}{vb} = memref.load {}[{ib}] : {}",
            b.ssa,
            memref(&b.ty)
        );
        let _ = writeln!(self.out, "{inner}{prod} = arith.mulf {va}, {vb} : f32");
        let _ = writeln!(
            self.out,
            "{inner}{sum} = arith.addf {}, {prod} : f32",
            acc.carried
        );
        let res = self.close_accumulation(acc, sum);
        let mut value = res;
        if let Some(&bias_v) = operands.get(2) {
            let bias = self.buffer(op, bias_v)?;
            // bias broadcast over the trailing dims of the result.
            let br = bias.ty.rank();
            let offs = r - br;
            let mut terms = Vec::new();
            let mut stride = 1i64;
            for d in (0..br).rev() {
                if bias.ty.shape[d] != 1 {
                    terms.push(format!("d{} * {stride}", d + offs));
                }
                stride *= bias.ty.shape[d];
            }
            let expr = if terms.is_empty() {
                "0".to_string()
            } else {
                terms.join(" + ")
            };
            let dl: Vec<String> = (0..r).map(|d| format!("d{d}")).collect();
            let ix = self.name("x");
            let _ = writeln!(
                self.out,
                "{ind}{ix} = affine.apply affine_map<({}) -> ({expr})>({})",
                dl.join(", "),
                ivs.join(", ")
            );
            let (vb, s) = (self.name("v"), self.name("v"));
            let _ = writeln!(
                self.out,
                "{ind}{vb} = memref.load {}[{ix}] : {}",
                bias.ssa,
                memref(&bias.ty)
            );
            let _ = writeln!(self.out, "{ind}{s} = arith.addf {value}, {vb} : f32");
            value = s;
        }
        let flat = self.flat_index(&ivs, &loop_ranges, &ind);
        let _ = writeln!(
            self.out,
            "{ind}memref.store {value}, {}[{flat}] : {}",
            out.ssa,
            memref(&out.ty)
        );
        self.close_loops(loop_ranges.len(), "    ");
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    /// N-d convolution as loop nests: out[n, o, s..] = bias[o] + sum over the group's input
    /// channels and the kernel window of in[n, c, s*stride - pad + k*dil] * w[o, c, k]
    /// (positions outside the input contribute 0).
    fn convolution(&mut self, op: MlirOperation, out: Buf, operands: &[MlirValue]) -> Result<(), ExecError> {
        let x = self.buffer(op, operands[0])?;
        let w = self.buffer(op, operands[1])?;
        let bias = operands.get(2).map(|&b| self.buffer(op, b)).transpose()?;
        let spatial = x.ty.rank() - 2;
        let list = |name: &str, default: i64| {
            let v = i64_list(op, name);
            if v.is_empty() {
                vec![default; spatial]
            } else {
                v
            }
        };
        let (stride, padding, dilation) = (list("stride", 1), list("padding", 0), list("dilation", 1));
        let groups = ir::attr(op, "groups")
            .and_then(|a| fuselab_dialects::attrs::integer(unsafe { melior::ir::Attribute::from_raw(a) }))
            .unwrap_or(1);
        let (cin_g, cout_g) = (w.ty.shape[1], w.ty.shape[0] / groups);
        let out_shape = out.ty.shape.clone();
        let (ivs, ind) = self.open_loops(&out_shape, "    ");
        // Reduction loops over (c, k0, k1, ...), carrying the sum.
        let mut red_ranges = vec![cin_g];
        red_ranges.extend_from_slice(&w.ty.shape[2..]);
        let zero = self.name("z");
        let _ = writeln!(self.out, "{ind}{zero} = arith.constant 0.0 : f32");
        let acc = self.open_accumulation(&red_ranges, &zero, "f32", &ind);
        let rind = acc.indent.clone();
        let rivs = acc.ivs.clone();
        // dims: d0 = n, d1 = o, d2.. = out spatial, then c, then kernel positions.
        let nd = 2 + spatial + 1 + spatial;
        let dl: Vec<String> = (0..nd).map(|d| format!("d{d}")).collect();
        let mut operands_list = ivs.clone();
        operands_list.extend(rivs.iter().cloned());
        let all = operands_list.join(", ");
        let c_dim = 2 + spatial;
        // Input channel = (o floordiv cout_g) * cin_g + c.
        let mut in_terms = vec![format!("d0 * {}", x.ty.shape[1..].iter().product::<i64>())];
        in_terms.push(format!(
            "((d1 floordiv {cout_g}) * {cin_g} + d{c_dim}) * {}",
            x.ty.shape[2..].iter().product::<i64>()
        ));
        let mut conds = Vec::new();
        for s in 0..spatial {
            let pos = format!(
                "(d{} * {} - {} + d{} * {})",
                2 + s,
                stride[s],
                padding[s],
                c_dim + 1 + s,
                dilation[s]
            );
            let inner: i64 = x.ty.shape[3 + s..].iter().product();
            let size = x.ty.shape[2 + s];
            // Clamp the position into the input for the (discarded) out-of-bounds loads.
            let p = self.name("x");
            let _ = writeln!(
                self.out,
                "{rind}{p} = affine.apply affine_map<({}) -> ({pos})>({all})",
                dl.join(", ")
            );
            let (lo, hi) = (self.index_const(0, &rind), self.index_const(size - 1, &rind));
            let (ge, le, clamped_lo, clamped) =
                (self.name("b"), self.name("b"), self.name("x"), self.name("x"));
            let _ = writeln!(self.out, "{rind}{ge} = arith.cmpi sge, {p}, {lo} : index");
            let _ = writeln!(self.out, "{rind}{le} = arith.cmpi sle, {p}, {hi} : index");
            let _ = writeln!(self.out, "{rind}{clamped_lo} = arith.maxsi {p}, {lo} : index");
            let _ = writeln!(
                self.out,
                "{rind}{clamped} = arith.minsi {clamped_lo}, {hi} : index"
            );
            conds.push(ge);
            conds.push(le);
            in_terms.push(format!("s{s} * {inner}"));
            operands_list.push(clamped);
        }
        let syms: Vec<String> = operands_list[nd..].to_vec();
        let ix = self.name("x");
        let _ = writeln!(
            self.out,
            "{rind}{ix} = affine.apply affine_map<({})[{}] -> ({})>({all})[{}]",
            dl.join(", "),
            (0..spatial)
                .map(|s| format!("s{s}"))
                .collect::<Vec<_>>()
                .join(", "),
            in_terms.join(" + "),
            syms.join(", ")
        );
        // Weight index: ((o * cin_g + c) * k0 + k0_idx) * k1 + ...
        let mut w_expr = format!("(d1 * {cin_g} + d{c_dim})");
        for s in 0..spatial {
            w_expr = format!("({w_expr} * {} + d{})", w.ty.shape[2 + s], c_dim + 1 + s);
        }
        let iw = self.name("x");
        let _ = writeln!(
            self.out,
            "{rind}{iw} = affine.apply affine_map<({}) -> ({w_expr})>({all})",
            dl.join(", ")
        );
        let (vx, vw, prod, sel, sum) = (
            self.name("v"),
            self.name("v"),
            self.name("v"),
            self.name("v"),
            self.name("v"),
        );
        let _ = writeln!(
            self.out,
            "{rind}{vx} = memref.load {}[{ix}] : {}",
            x.ssa,
            memref(&x.ty)
        );
        let _ = writeln!(
            self.out,
            "{rind}{vw} = memref.load {}[{iw}] : {}",
            w.ssa,
            memref(&w.ty)
        );
        let _ = writeln!(self.out, "{rind}{prod} = arith.mulf {vx}, {vw} : f32");
        let mut inside = conds[0].clone();
        for c in &conds[1..] {
            let a = self.name("b");
            let _ = writeln!(self.out, "{rind}{a} = arith.andi {inside}, {c} : i1");
            inside = a;
        }
        let _ = writeln!(
            self.out,
            "{rind}{sel} = arith.select {inside}, {prod}, {zero} : f32"
        );
        let _ = writeln!(self.out, "{rind}{sum} = arith.addf {}, {sel} : f32", acc.carried);
        let mut value = self.close_accumulation(acc, sum);
        if let Some(b) = bias {
            let (ib, vb, s) = (self.name("x"), self.name("v"), self.name("v"));
            let _ = writeln!(
                self.out,
                "{ind}{ib} = affine.apply affine_map<(d0) -> (d0)>({})",
                ivs[1]
            );
            let _ = writeln!(
                self.out,
                "{ind}{vb} = memref.load {}[{ib}] : {}",
                b.ssa,
                memref(&b.ty)
            );
            let _ = writeln!(self.out, "{ind}{s} = arith.addf {value}, {vb} : f32");
            value = s;
        }
        let flat = self.flat_index(&ivs, &out_shape, &ind);
        let _ = writeln!(
            self.out,
            "{ind}memref.store {value}, {}[{flat}] : {}",
            out.ssa,
            memref(&out.ty)
        );
        self.close_loops(out_shape.len(), "    ");
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    /// A strided view (`loop.view`) copied into its output buffer.
    fn view_copy(&mut self, op: MlirOperation) -> Result<(), ExecError> {
        let out = self.result_buffer(op)?;
        let base = self.buffer(op, ir::operand(op, 0))?;
        let layout = i64_list(op, "layout");
        let rank = out.ty.rank();
        let (offset, sizes, strides) = (layout[0], layout[1..=rank].to_vec(), layout[rank + 1..].to_vec());
        let (ivs, ind) = self.open_loops(&sizes, "    ");
        let terms: Vec<String> = strides
            .iter()
            .enumerate()
            .map(|(d, s)| format!("d{d} * {s}"))
            .collect();
        let dl: Vec<String> = (0..rank).map(|d| format!("d{d}")).collect();
        let src = self.name("x");
        let expr = if terms.is_empty() {
            offset.to_string()
        } else {
            format!("{offset} + {}", terms.join(" + "))
        };
        let _ = writeln!(
            self.out,
            "{ind}{src} = affine.apply affine_map<({}) -> ({expr})>({})",
            dl.join(", "),
            ivs.join(", ")
        );
        let v = self.name("v");
        let _ = writeln!(
            self.out,
            "{ind}{v} = memref.load {}[{src}] : {}",
            base.ssa,
            memref(&base.ty)
        );
        let flat = self.flat_index(&ivs, &sizes, &ind);
        let _ = writeln!(
            self.out,
            "{ind}memref.store {v}, {}[{flat}] : {}",
            out.ssa,
            memref(&out.ty)
        );
        self.close_loops(rank, "    ");
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    fn ops(&mut self, ops: &[MlirOperation]) -> Result<(), ExecError> {
        for &op in ops {
            match ir::op_name(op).as_str() {
                names::POINTWISE | names::REDUCTION => self.node(op)?,
                names::EXTERN => self.matmul(op)?,
                names::VIEW => self.view_copy(op)?,
                names::KERNEL => {
                    let block = ir::body(op).ok_or_else(|| err(op, "kernel without a body"))?;
                    let inner = ir::block_ops(block);
                    let (last, members) = inner.split_last().ok_or_else(|| err(op, "empty kernel"))?;
                    // Pointwise members whose buffer does not leave the kernel are fused
                    // into their readers (computed in registers, never stored).
                    let yielded: Vec<usize> = ir::operands(*last).iter().map(|v| v.ptr as usize).collect();
                    let mut rest = Vec::new();
                    for &m in members {
                        let r = ir::result(m, 0).ptr as usize;
                        if ir::op_name(m) == names::POINTWISE && !yielded.contains(&r) {
                            self.inline.insert(r, m);
                        } else {
                            rest.push(m);
                        }
                    }
                    self.ops(&rest)?;
                    let outs = ir::operands(*last)
                        .iter()
                        .map(|&v| self.buffer(op, v))
                        .collect::<Result<Vec<_>, _>>()?;
                    self.tuples.insert(ir::result(op, 0).ptr as usize, outs);
                }
                names::OUTPUT => {
                    let index = ir::attr(op, "index")
                        .and_then(|a| {
                            fuselab_dialects::attrs::integer(unsafe { melior::ir::Attribute::from_raw(a) })
                        })
                        .unwrap_or(0) as usize;
                    let buf = self
                        .tuples
                        .get(&(ir::operand(op, 0).ptr as usize))
                        .and_then(|t| t.get(index))
                        .cloned()
                        .ok_or_else(|| err(op, "loop.output of an unknown kernel"))?;
                    self.bufs.insert(ir::result(op, 0).ptr as usize, buf);
                }
                "func.return" => {}
                other => return Err(err(op, format!("the CPU code generator cannot handle '{other}'"))),
            }
        }
        Ok(())
    }
}

/// The CPU module (upstream dialects only) for the `loop` function `func`, with the
/// argument and result types of `@main(inputs..., outputs...)`.
pub fn cpu_module_text(func: MlirOperation) -> Result<(String, Vec<TensorType>, Vec<TensorType>), ExecError> {
    let block = ir::body(func).ok_or_else(|| ExecError::msg("function without a body"))?;
    let ops = ir::block_ops(block);
    let ret = *ops.last().ok_or_else(|| ExecError::msg("empty function"))?;
    let mut g = Gen {
        out: String::new(),
        fresh: 0,
        bufs: HashMap::new(),
        tuples: HashMap::new(),
        allocs: Vec::new(),
        direct_out: HashMap::new(),
        inline: HashMap::new(),
    };
    let mut params = Vec::new();
    let mut inputs = Vec::new();
    for (i, a) in ir::block_arguments(block).into_iter().enumerate() {
        let ty = ir::tensor_type(a)
            .ok_or_else(|| ExecError::msg(format!("argument #{i} is not a supported tensor")))?;
        let ssa = format!("%in{i}");
        params.push(format!("{ssa}: {}", memref(&ty)));
        g.bufs.insert(a.ptr as usize, Buf { ssa, ty: ty.clone() });
        inputs.push(ty);
    }
    let mut outputs = Vec::new();
    let mut copies = Vec::new();
    for (i, v) in ir::operands(ret).into_iter().enumerate() {
        let ty = ir::tensor_type(v)
            .ok_or_else(|| ExecError::msg(format!("result #{i} is not a supported tensor")))?;
        let ssa = format!("%out{i}");
        params.push(format!("{ssa}: {}", memref(&ty)));
        let out = Buf { ssa, ty: ty.clone() };
        // A node result returned once is written straight into the output.
        let is_node = ir::defining_op(v).is_some_and(|d| {
            matches!(
                ir::op_name(d).as_str(),
                names::POINTWISE | names::REDUCTION | names::EXTERN | names::VIEW
            )
        });
        if is_node && !g.direct_out.contains_key(&(v.ptr as usize)) {
            g.direct_out.insert(v.ptr as usize, out);
        } else {
            copies.push((v, out));
        }
        outputs.push(ty);
    }
    g.ops(&ops)?;
    for (v, out) in copies {
        let src = g.buffer(ret, v)?;
        let _ = writeln!(
            g.out,
            "    memref.copy {}, {} : {} to {}",
            src.ssa,
            out.ssa,
            memref(&src.ty),
            memref(&out.ty)
        );
    }
    let globals: String = g
        .allocs
        .iter()
        .enumerate()
        .map(|(i, b)| {
            format!(
                "  memref.global \"private\" @g{i} : {} = uninitialized {{alignment = 64 : i64}}\n",
                memref(&b.ty)
            )
        })
        .collect();
    let text = format!(
        "module {{\n{globals}  func.func @main({}) attributes {{llvm.emit_c_interface}} {{\n{}    return\n  }}\n}}\n",
        params.join(", "),
        g.out
    );
    Ok((text, inputs, outputs))
}

/// The upstream lowering of the CPU module to the LLVM dialect.
pub const LOWERING: &str = "builtin.module(lower-affine,convert-scf-to-cf,convert-math-to-llvm,\
    convert-math-to-libm,expand-strided-metadata,finalize-memref-to-llvm,convert-arith-to-llvm,\
    convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)";

#[repr(C)]
struct Descriptor {
    allocated: *mut u8,
    aligned: *mut u8,
    offset: i64,
    size: i64,
    stride: i64,
}

/// A compiled function.
pub struct Jit {
    engine: ExecutionEngine,
    _context: Context,
    inputs: Vec<TensorType>,
    outputs: Vec<TensorType>,
}

/// A host buffer in the element type the JIT'd code reads.
#[derive(Clone, Debug)]
pub enum HostBuffer {
    /// f32 elements.
    F32(Vec<f32>),
    /// i64 elements.
    I64(Vec<i64>),
    /// Bools as bytes.
    I1(Vec<u8>),
}

impl HostBuffer {
    /// A zeroed buffer for `ty`.
    pub fn zeros(ty: &TensorType) -> Result<Self, ExecError> {
        let n = ty.numel().max(1) as usize;
        match ty.dtype {
            DType::F32 => Ok(Self::F32(vec![0.0; n])),
            DType::I64 => Ok(Self::I64(vec![0; n])),
            DType::I1 => Ok(Self::I1(vec![0; n])),
            other => Err(ExecError::msg(format!(
                "the JIT does not run {other} tensors yet"
            ))),
        }
    }

    /// From a tensor.
    pub fn from_tensor(t: &Tensor) -> Result<Self, ExecError> {
        match t.dtype {
            DType::F32 => Ok(Self::F32(t.data.iter().map(|&v| v as f32).collect())),
            DType::I64 => Ok(Self::I64(t.data.iter().map(|&v| v as i64).collect())),
            DType::I1 => Ok(Self::I1(t.data.iter().map(|&v| u8::from(v != 0.0)).collect())),
            other => Err(ExecError::msg(format!(
                "the JIT does not run {other} tensors yet"
            ))),
        }
    }

    /// To a tensor of `ty`.
    pub fn to_tensor(&self, ty: &TensorType) -> Tensor {
        let data: Vec<f64> = match self {
            Self::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Self::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Self::I1(v) => v.iter().map(|&x| f64::from(x & 1)).collect(),
        };
        Tensor::new(ty.shape.clone(), ty.dtype, data[..ty.numel() as usize].to_vec())
    }

    fn descriptor(&mut self) -> Descriptor {
        let (ptr, len) = match self {
            Self::F32(v) => (v.as_mut_ptr() as *mut u8, v.len()),
            Self::I64(v) => (v.as_mut_ptr() as *mut u8, v.len()),
            Self::I1(v) => (v.as_mut_ptr(), v.len()),
        };
        Descriptor {
            allocated: ptr,
            aligned: ptr,
            offset: 0,
            size: len as i64,
            stride: 1,
        }
    }
}

impl Jit {
    /// Generates, lowers and JIT-compiles the `loop` function `func` at -O3.
    pub fn compile(func: MlirOperation) -> Result<Self, ExecError> {
        let (text, inputs, outputs) = cpu_module_text(func)?;
        Self::compile_text(&text, inputs, outputs)
    }

    /// JIT-compiles a CPU module written by [`cpu_module_text`].
    pub fn compile_text(
        text: &str,
        inputs: Vec<TensorType>,
        outputs: Vec<TensorType>,
    ) -> Result<Self, ExecError> {
        let registry = DialectRegistry::new();
        register_all_dialects(&registry);
        let context = Context::new();
        context.append_dialect_registry(&registry);
        context.load_all_available_dialects();
        register_all_llvm_translations(&context);
        register_all_passes();
        let mut module = Module::parse(&context, text)
            .ok_or_else(|| ExecError::msg(format!("the generated CPU module does not parse:\n{text}")))?;
        let manager = PassManager::new(&context);
        parse_pass_pipeline(manager.as_operation_pass_manager(), LOWERING)
            .map_err(|e| ExecError::msg(format!("bad lowering pipeline: {e}")))?;
        manager
            .run(&mut module)
            .map_err(|_| ExecError::msg("lowering the CPU module to LLVM failed"))?;
        if !module.as_operation().verify() {
            return Err(ExecError::msg("the lowered CPU module does not verify"));
        }
        let engine = ExecutionEngine::new(&module, 3, &[], false, false);
        Ok(Self {
            engine,
            _context: context,
            inputs,
            outputs,
        })
    }

    /// Output buffers of the right types.
    pub fn output_buffers(&self) -> Result<Vec<HostBuffer>, ExecError> {
        self.outputs.iter().map(HostBuffer::zeros).collect()
    }

    /// Calls the compiled function on host buffers (inputs then outputs).
    pub fn call(&self, inputs: &mut [HostBuffer], outputs: &mut [HostBuffer]) -> Result<(), ExecError> {
        if inputs.len() != self.inputs.len() || outputs.len() != self.outputs.len() {
            return Err(ExecError::msg("wrong number of buffers"));
        }
        let mut descriptors: Vec<Descriptor> = inputs
            .iter_mut()
            .chain(outputs.iter_mut())
            .map(HostBuffer::descriptor)
            .collect();
        let mut pointers: Vec<*mut Descriptor> =
            descriptors.iter_mut().map(|d| d as *mut Descriptor).collect();
        let mut args: Vec<*mut ()> = pointers
            .iter_mut()
            .map(|p| p as *mut *mut Descriptor as *mut ())
            .collect();
        // SAFETY: every argument points to a live descriptor of a buffer of the size the
        // function was compiled for.
        unsafe { self.engine.invoke_packed("main", &mut args) }
            .map_err(|e| ExecError::msg(format!("JIT call failed: {e}")))
    }

    /// Runs on tensors; returns the outputs.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
        let mut ins: Vec<HostBuffer> = inputs
            .iter()
            .map(HostBuffer::from_tensor)
            .collect::<Result<_, _>>()?;
        let mut outs = self.output_buffers()?;
        self.call(&mut ins, &mut outs)?;
        Ok(outs
            .iter()
            .zip(&self.outputs)
            .map(|(b, t)| b.to_tensor(t))
            .collect())
    }
}
