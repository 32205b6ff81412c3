//! `--lower-loop-to-cpu`: `loop` IR to upstream MLIR for a CPU — `func`, `scf`,
//! `arith`, `math`, `affine`, `memref` only — ready for [`UPSTREAM_PIPELINE`] to the LLVM
//! dialect and an LLVM JIT ([`super::jit`]) or `mlir-opt` / `mlir-translate`.
//!
//! Per `loop` function: a host function of the same name taking every input and then
//! every output as a flat 1-D memref (results written in place), which calls one private
//! function per `loop.kernel` (and per node, extern or view left outside kernels) in
//! order; intermediate buffers are `memref.global`s. Inside a function:
//! - a node is a loop nest over its ranges with its `arith`/`math` body copied op by op;
//!   `loop.load` becomes `affine.apply` + `memref.load`; a reduction carries its
//!   accumulator in `iter_args` (the row stays in a register) and may be reassociated
//!   (`fastmath<reassoc>`), so LLVM vectorizes it with partial sums;
//! - a kernel's pointwise members whose value does not leave the kernel are recomputed
//!   where they are read and never stored (Inductor's inlining into the consumer);
//! - the other members share one nest over their common leading ranges when every read
//!   of another member's buffer stays in the reader's row: each row is produced and
//!   consumed while it is in cache (Inductor's persistent-reduction kernel shape), and
//!   with `parallel=true` chunks of rows are an `scf.parallel` (`async-parallel-for`);
//! - `exp`, `log`, `tanh`, `erf`, `sin`, `cos` on f32 are written as vectorizable
//!   polynomials ([`super::math`]) instead of one libm call per element;
//! - `mm`/`bmm` call `fuselab_sgemm` (a BLAS the JIT provides) with the operands' view
//!   strides; convolution is im2col + `fuselab_sgemm`; views are loop nests;
//! - f16 / bf16 are computed in f32, rounded to the declared type after every op (eager
//!   semantics), bf16 stored as i16 bits.

use fuselab_dialects::{
    ir::{self, i64s},
    loops::{
        index::{contiguous_index, unravel, IndexExpr},
        names, node_ranges,
    },
    types::{contiguous_strides, DType, TensorType},
};
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirValue};
use std::{collections::HashMap, fmt::Write as _};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "lower-loop-to-cpu",
    summary: "Lower loop IR to upstream scf/memref/arith/math: one function per kernel plus a host function",
    anchor: "builtin.module",
    options: &[PassOption {
        name: "parallel",
        kind: OptionKind::Bool,
        default: "false",
        help: "run chunks of rows of each kernel as scf.parallel (lowered by async-parallel-for)",
    }],
    run,
    id: &ID,
};

/// An op the code generator cannot handle, with a reason.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct CodegenError {
    /// Where (the op, when there is one).
    pub op: Option<MlirOperation>,
    /// What.
    pub message: String,
}

fn run(module: OperationRef<'_, '_>, cx: &PassContext) -> Result<(), PassFailed> {
    let options = CpuOptions {
        parallel: cx.options.flag("parallel"),
    };
    let raw = module.to_raw();
    let block = ir::body(raw).ok_or(PassFailed)?;
    let old = ir::block_ops(block);
    let mut functions = Vec::new();
    for &op in &old {
        if ir::op_name(op) != "func.func" {
            continue;
        }
        match cpu_function(op, options) {
            Ok(f) => functions.push(f),
            Err(e) => {
                let at = e.op.unwrap_or(op);
                cx.sink.error(
                    unsafe { melior::ir::Location::from_raw(ir::location(at)) },
                    format!("cannot lower to CPU code: {}", e.message),
                );
                return Err(PassFailed);
            }
        }
    }
    let text = module_text(&functions);
    let parsed = unsafe {
        mlir_sys::mlirModuleCreateParse(
            ir::context(raw),
            mlir_sys::MlirStringRef {
                data: text.as_ptr() as *const _,
                length: text.len(),
            },
        )
    };
    if parsed.ptr.is_null() {
        cx.sink.error(
            module.location(),
            "the generated CPU code does not parse (a fuselab bug)",
        );
        return Err(PassFailed);
    }
    for op in old {
        ir::erase(op);
    }
    let new_block = unsafe { mlir_sys::mlirModuleGetBody(parsed) };
    for op in ir::block_ops(new_block) {
        ir::detach(op);
        ir::append(block, op);
    }
    unsafe { mlir_sys::mlirModuleDestroy(parsed) };
    Ok(())
}

/// `text` with the half float types replaced by f32 (the compute type).
fn widen(text: &str) -> String {
    text.replace("bf16", "f32").replace("f16", "f32")
}

/// The flat memref holding a tensor of `t`. bf16 elements are stored as their i16 bits
/// and converted with integer ops ([`Gen::widened`], [`Gen::narrowed`]): LLVM's x86
/// backend otherwise calls compiler-rt's `__truncsfbf2` even for a bf16 load + store,
/// which the JIT's process does not have.
fn memref(t: &TensorType) -> String {
    let storage = if t.dtype == DType::BF16 {
        "i16"
    } else {
        t.dtype.mlir_name()
    };
    format!("memref<{}x{storage}>", t.numel().max(1))
}

/// Every loop extent of `node`: ranges, then reduction ranges (empty when absent).
fn all_ranges(node: MlirOperation) -> Vec<i64> {
    node_ranges(node).unwrap_or_default()
}

/// `scf.for` loops carrying an accumulator (a reduction's rows).
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

/// Element operations below which a step runs on one thread.
const PARALLEL_WORK: i64 = 1 << 16;
/// The most chunks a parallel step is split into.
const MAX_CHUNKS: i64 = 64;

/// The loops of one step (see [`Gen::open_nest`]).
struct Nest {
    /// Loop variables of the shared leading ranges.
    ivs: Vec<String>,
    /// Indentation inside.
    indent: String,
    /// Closing lines, innermost first.
    closers: Vec<String>,
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
    /// Whether `fuselab_sgemm` is called.
    uses_sgemm: bool,
    /// Whether steps may run their rows in parallel.
    parallel: bool,
    /// The `loop` function's name: prefix of every symbol generated for it.
    prefix: String,
    /// The host function's parameters (`%in0: memref<..>`), passed to every kernel.
    params: Vec<String>,
    /// Finished kernel functions: symbol and text.
    kernels: Vec<(String, String)>,
    /// The host function's calls.
    host: String,
}

/// The type of `fuselab_sgemm(m, n, k, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc)`:
/// `C = A B + beta C` with addresses as i64 and strides in elements.
pub const SGEMM_TYPE: &str = "(i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, i64, i64, i64) -> ()";

fn err(op: MlirOperation, m: impl Into<String>) -> CodegenError {
    CodegenError {
        op: Some(op),
        message: m.into(),
    }
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

    fn buffer(&self, op: MlirOperation, v: MlirValue) -> Result<Buf, CodegenError> {
        self.bufs
            .get(&(v.ptr as usize))
            .cloned()
            .ok_or_else(|| err(op, "reads a value the CPU code generator has no buffer for"))
    }

    /// The buffer a node writes: its output argument if it is returned directly, else a
    /// fresh allocation.
    fn result_buffer(&mut self, op: MlirOperation) -> Result<Buf, CodegenError> {
        let result = ir::result(op, 0);
        if let Some(b) = self.direct_out.get(&(result.ptr as usize)) {
            return Ok(b.clone());
        }
        let ty = ir::tensor_type(result).ok_or_else(|| err(op, "result is not a supported tensor"))?;
        Ok(self.scratch(&ty.shape, ty.dtype))
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

    /// `affine.apply` of the `index` map of the load `op` to the loop variables `ivs`
    /// and the indirect indices `syms`.
    fn load_index(
        &mut self,
        op: MlirOperation,
        ivs: &[String],
        syms: &[String],
        indent: &str,
    ) -> Result<String, CodegenError> {
        let map = ir::attr(op, "index")
            .map(ir::attr_string)
            .ok_or_else(|| err(op, "load without index"))?;
        let idx = self.name("x");
        let syms = if syms.is_empty() {
            String::new()
        } else {
            format!("[{}]", syms.join(", "))
        };
        let _ = writeln!(
            self.out,
            "{indent}{idx} = affine.apply {map}({}){syms}",
            ivs.join(", ")
        );
        Ok(idx)
    }

    /// The indices over row-major `extents` of the flat index `flat` (which is below
    /// their product): `flat` itself for one extent.
    fn unravel_index(&mut self, flat: &str, extents: &[i64], indent: &str) -> Vec<String> {
        if extents.len() == 1 {
            return vec![flat.to_string()];
        }
        let mut stride: i64 = extents.iter().product();
        extents
            .iter()
            .map(|&extent| {
                stride /= extent.max(1);
                let d = self.name("x");
                let _ = writeln!(
                    self.out,
                    "{indent}{d} = affine.apply affine_map<(d0) -> ((d0 floordiv {}) mod {})>({flat})",
                    stride.max(1),
                    extent.max(1)
                );
                d
            })
            .collect()
    }

    /// Emits the body of `node` with its block arguments bound to `ivs`; returns the
    /// SSA name of the yielded value.
    fn body(&mut self, node: MlirOperation, ivs: &[String], indent: &str) -> Result<String, CodegenError> {
        let block = ir::first_block(ir::region(node, 0)).ok_or_else(|| err(node, "node without a body"))?;
        let mut names: HashMap<usize, String> = HashMap::new();
        for (a, iv) in ir::block_arguments(block).iter().zip(ivs) {
            names.insert(a.ptr as usize, iv.clone());
        }
        for op in ir::block_ops(block) {
            let name = ir::op_name(op);
            let operands: Vec<MlirValue> = ir::operands(op);
            let get = |v: &MlirValue| -> Result<String, CodegenError> {
                names
                    .get(&(v.ptr as usize))
                    .cloned()
                    .ok_or_else(|| err(op, "operand defined outside the body"))
            };
            if name == "gpu.yield" {
                return get(&operands[0]);
            }
            let res = self.name("v");
            if name == names::LOAD {
                let syms: Vec<String> = operands[1..].iter().map(get).collect::<Result<_, _>>()?;
                if let Some(&producer) = self.inline.get(&(operands[0].ptr as usize)) {
                    // A kernel-local pointwise producer: recompute it at the loaded
                    // position instead of loading.
                    let ranges = i64s(producer, "ranges");
                    // Fast path: the read is at the producer's own contiguous index of
                    // the reader's leading loop variables (same iteration space): reuse
                    // them. Otherwise unravel the flat index over the producer's ranges.
                    let contiguous = contiguous_index(&ranges);
                    let same_space = syms.is_empty()
                        && ivs.len() >= ranges.len()
                        && ir::attr(op, "index")
                            .and_then(fuselab_dialects::loops::index::from_affine_map_attr)
                            .is_some_and(|(e, _, _)| {
                                e == contiguous.drop_unit_dims(&ranges) || e == contiguous
                            })
                        && all_ranges(node).starts_with(&ranges);
                    let pdims = if same_space {
                        ivs[..ranges.len()].to_vec()
                    } else {
                        let idx = self.load_index(op, ivs, &syms, indent)?;
                        self.unravel_index(&idx, &ranges, indent)
                    };
                    let v = self.body(producer, &pdims, indent)?;
                    names.insert(ir::result(op, 0).ptr as usize, v);
                    continue;
                }
                let buf = self.buffer(op, operands[0])?;
                let idx = self.load_index(op, ivs, &syms, indent)?;
                let _ = writeln!(
                    self.out,
                    "{indent}{res} = memref.load {}[{idx}] : {}",
                    buf.ssa,
                    memref(&buf.ty)
                );
                if buf.ty.dtype.is_half() {
                    let wide = self.widened(&res, buf.ty.dtype, indent);
                    names.insert(ir::result(op, 0).ptr as usize, wide);
                    continue;
                }
            } else {
                let ops: Vec<String> = operands.iter().map(get).collect::<Result<_, _>>()?;
                // f16 / bf16 values are computed in f32 (and rounded after each op, below).
                let types: Vec<String> = operands
                    .iter()
                    .map(|v| widen(&ir::type_string(ir::value_type(*v))))
                    .collect();
                let declared = ir::value_type(ir::result(op, 0));
                let result_ty = widen(&ir::type_string(declared));
                // A value declared f16 / bf16 is rounded to it (and widened back) after
                // its op, as eager PyTorch stores every op's result: without this a
                // fused chain is more precise than the unfused program, and differs
                // from it by more than half-precision tolerances where later ops amplify
                // (a 3-element layer_norm after sin/erf in bf16). Inductor's
                // `emulate_precision_casts` does the same.
                // SAFETY: a type of a live value.
                let half =
                    DType::from_mlir(unsafe { melior::ir::Type::from_raw(declared) }).filter(|d| d.is_half());
                if (name == "arith.extf" || name == "arith.truncf") && types.first() == Some(&result_ty) {
                    // A cast between f32 and a half type: a rounding in f32.
                    let v = self.round_to(&ops[0], half, indent);
                    names.insert(ir::result(op, 0).ptr as usize, v);
                    continue;
                }
                if result_ty == "f32" && ops.len() == 1 {
                    let mut lines = super::math::Lines {
                        out: &mut self.out,
                        fresh: &mut self.fresh,
                        indent,
                    };
                    if let Some(v) = super::math::expand(&mut lines, &name, &ops[0]) {
                        let v = self.round_to(&v, half, indent);
                        names.insert(ir::result(op, 0).ptr as usize, v);
                        continue;
                    }
                }
                let mut attrs = Vec::new();
                unsafe {
                    for i in 0..mlir_sys::mlirOperationGetNumAttributes(op) {
                        let na = mlir_sys::mlirOperationGetAttribute(op, i);
                        let key = melior::StringRef::from_raw(mlir_sys::mlirIdentifierStr(na.name));
                        attrs.push(format!(
                            "{} = {}",
                            key.as_str().unwrap_or_default(),
                            widen(&ir::attr_string(na.attribute))
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
                let v = self.round_to(&res, half, indent);
                names.insert(ir::result(op, 0).ptr as usize, v);
                continue;
            }
            names.insert(ir::result(op, 0).ptr as usize, res);
        }
        Err(err(node, "body without gpu.yield"))
    }

    /// Emits `op` (a pointwise or reduction node writing `out`) inside a nest whose
    /// loop variables `prefix` cover its leading ranges.
    fn node_in(
        &mut self,
        op: MlirOperation,
        out: Buf,
        prefix: &[String],
        indent: &str,
    ) -> Result<(), CodegenError> {
        let ranges = i64s(op, "ranges");
        let rranges = i64s(op, "reduction_ranges");
        let (inner, ind) = self.open_loops(&ranges[prefix.len()..], indent);
        let mut ivs = prefix.to_vec();
        ivs.extend(inner);
        let value = if ir::op_name(op) == names::REDUCTION {
            let kind = ir::attr(op, "kind")
                .and_then(fuselab_dialects::attrs::string_raw)
                .unwrap_or_default();
            let float = out.ty.dtype.is_float();
            let e = out.ty.dtype.mlir_name();
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
            // f16 / bf16 rows accumulate in f32 (as Inductor's CPU code does).
            let acc_e = if float { "f32" } else { e };
            let acc0 = self.name("a");
            let _ = writeln!(self.out, "{ind}{acc0} = arith.constant {init} : {acc_e}");
            let acc = self.open_accumulation(&rranges, &acc0, acc_e, &ind);
            let mut all = ivs.clone();
            all.extend(acc.ivs.iter().cloned());
            let v = self.body(op, &all, &acc.indent)?;
            let next = self.name("n");
            // Float accumulations may be reassociated (as every parallel or vectorized
            // reduction is), so LLVM vectorizes the row loop with partial sums.
            let flags = if float { " fastmath<reassoc>" } else { "" };
            let _ = writeln!(
                self.out,
                "{}{next} = {combine} {}, {v}{flags} : {acc_e}",
                acc.indent, acc.carried
            );
            self.close_accumulation(acc, next)
        } else {
            self.body(op, &ivs, &ind)?
        };
        let value = if out.ty.dtype.is_half() {
            self.narrowed(&value, out.ty.dtype, &ind)
        } else {
            value
        };
        let flat = self.flat_index(&ivs, &ranges, &ind);
        let _ = writeln!(
            self.out,
            "{ind}memref.store {value}, {}[{flat}] : {}",
            out.ssa,
            memref(&out.ty)
        );
        self.close_loops(ranges.len() - prefix.len(), indent);
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    /// Opens the nest of one step over the leading extents `prefix`, whose iterations
    /// are independent: when the step does at least [`PARALLEL_WORK`] element operations
    /// (`work`), the leading dims (collapsed until there are at least 16 rows) are split
    /// into chunks run by `scf.parallel` (lowered by `async-parallel-for` onto the MLIR
    /// async runtime's thread pool); the rest are `scf.for`.
    fn open_nest(&mut self, prefix: &[i64], work: i64) -> Nest {
        let base = "    ";
        let mut nest = Nest {
            ivs: Vec::new(),
            indent: base.to_string(),
            closers: Vec::new(),
        };
        let chunks = if self.parallel {
            (work / PARALLEL_WORK).min(MAX_CHUNKS)
        } else {
            1
        };
        let j = (1..=prefix.len())
            .find(|&j| prefix[..j].iter().product::<i64>() >= 16)
            .unwrap_or(prefix.len());
        let rows: i64 = prefix[..j].iter().product();
        let chunks = chunks.min(rows);
        if chunks >= 2 {
            let size = (rows + chunks - 1) / chunks;
            let chunks = (rows + size - 1) / size;
            let c0 = self.index_const(0, base);
            let c1 = self.index_const(1, base);
            let cn = self.index_const(chunks, base);
            let (t, lo, hi, f) = (self.name("t"), self.name("lo"), self.name("hi"), self.name("f"));
            let _ = writeln!(
                self.out,
                "{base}scf.parallel ({t}) = ({c0}) to ({cn}) step ({c1}) {{"
            );
            let ind = format!("{base}  ");
            let _ = writeln!(
                self.out,
                "{ind}{lo} = affine.apply affine_map<(d0) -> (d0 * {size})>({t})"
            );
            let _ = writeln!(
                self.out,
                "{ind}{hi} = affine.min affine_map<(d0) -> (d0 * {size} + {size}, {rows})>({t})"
            );
            let _ = writeln!(self.out, "{ind}scf.for {f} = {lo} to {hi} step {c1} {{");
            nest.closers.push(format!("{ind}}}"));
            nest.closers.push(format!("{ind}scf.reduce\n{base}}}"));
            nest.indent = format!("{ind}  ");
            // The collapsed dims' indices.
            let indent = nest.indent.clone();
            nest.ivs = self.unravel_index(&f, &prefix[..j], &indent);
        } else {
            let (ivs, ind) = self.open_loops(&prefix[..j], base);
            for k in 0..j {
                nest.closers.insert(0, format!("{base}{}}}", "  ".repeat(k)));
            }
            nest.ivs = ivs;
            nest.indent = ind;
        }
        let ind = nest.indent.clone();
        let (ivs, inner) = self.open_loops(&prefix[j..], &ind);
        for k in 0..prefix.len() - j {
            nest.closers.insert(0, format!("{ind}{}}}", "  ".repeat(k)));
        }
        nest.ivs.extend(ivs);
        nest.indent = inner;
        nest
    }

    fn close_nest(&mut self, nest: Nest) {
        for line in nest.closers {
            let _ = writeln!(self.out, "{line}");
        }
    }

    /// One step: `members` (pointwise / reduction nodes, in order) share the nest over
    /// their common leading ranges when every read of another member's buffer stays in
    /// the same row of it ([`Gen::row_prefix`]): the row is computed once per member,
    /// in order, while it is in cache, and rows run in parallel. Otherwise each member
    /// is a step of its own.
    fn step(&mut self, members: &[MlirOperation]) -> Result<(), CodegenError> {
        let k = self.row_prefix(members);
        if k == 0 && members.len() > 1 {
            for &m in members {
                self.step(&[m])?;
            }
            return Ok(());
        }
        let prefix: Vec<i64> = i64s(members[0], "ranges")[..k].to_vec();
        let work: i64 = members
            .iter()
            .map(|&m| all_ranges(m).iter().product::<i64>())
            .sum();
        let outs = members
            .iter()
            .map(|&m| self.result_buffer(m))
            .collect::<Result<Vec<_>, _>>()?;
        let nest = self.open_nest(&prefix, work);
        let ind = nest.indent.clone();
        for (&m, out) in members.iter().zip(outs) {
            self.node_in(m, out, &nest.ivs, &ind)?;
        }
        self.close_nest(nest);
        Ok(())
    }

    /// How many leading ranges `members` can share (see [`Gen::step`]): the longest
    /// common prefix of their ranges such that every read of a member's buffer by a
    /// later member (directly or through kernel-local values recomputed at the read)
    /// is at an index whose row, the index `floordiv` the row size, is the reader's
    /// own row. 0 when none does, or for a single node: all its ranges.
    fn row_prefix(&self, members: &[MlirOperation]) -> usize {
        let ranges: Vec<Vec<i64>> = members.iter().map(|&m| i64s(m, "ranges")).collect();
        if members.len() == 1 {
            return ranges[0].len();
        }
        let mut k = ranges.iter().map(Vec::len).min().unwrap_or(0);
        while k > 0 && ranges.iter().any(|r| r[..k] != ranges[0][..k]) {
            k -= 1;
        }
        let outputs: HashMap<usize, MlirOperation> = members
            .iter()
            .map(|&m| (ir::result(m, 0).ptr as usize, m))
            .collect();
        while k > 0 {
            let local = members.iter().all(|&m| {
                let full = all_ranges(m);
                let dims: Vec<IndexExpr> = (0..full.len()).map(IndexExpr::dim).collect();
                self.reads_in_row(m, &dims, &full, k, &outputs)
            });
            if local {
                return k;
            }
            k -= 1;
        }
        0
    }

    /// Whether every load in `node`'s body (its loop variables being `dims`, over the
    /// reader's variables with extents `full`) of a buffer in `outputs` reads the
    /// reader's row for a shared prefix of `k` ranges.
    fn reads_in_row(
        &self,
        node: MlirOperation,
        dims: &[IndexExpr],
        full: &[i64],
        k: usize,
        outputs: &HashMap<usize, MlirOperation>,
    ) -> bool {
        let Some(block) = ir::first_block(ir::region(node, 0)) else {
            return false;
        };
        for op in ir::block_ops(block) {
            if ir::op_name(op) != names::LOAD {
                continue;
            }
            let source = ir::operand(op, 0).ptr as usize;
            let Some((index, _, nsyms)) =
                ir::attr(op, "index").and_then(fuselab_dialects::loops::index::from_affine_map_attr)
            else {
                return false;
            };
            let syms: Vec<IndexExpr> = (0..nsyms).map(IndexExpr::sym).collect();
            let at = index.substitute(dims, &syms, full);
            if let Some(&producer) = self.inline.get(&source) {
                let pdims = unravel(&at, &i64s(producer, "ranges"), full);
                if !self.reads_in_row(producer, &pdims, full, k, outputs) {
                    return false;
                }
            } else if let Some(&writer) = outputs.get(&source) {
                let row: i64 = i64s(writer, "ranges")[k..].iter().product();
                let want = contiguous_index(&full[..k]).drop_unit_dims(full);
                if at.has_symbols() || at.floordiv(row.max(1), full).drop_unit_dims(full) != want {
                    return false;
                }
            }
        }
        true
    }

    /// `mm` / `bmm` (with operand views and an optional bias) as `fuselab_sgemm` calls;
    /// `convolution` goes to [`Gen::convolution`].
    fn matmul(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        let out = self.result_buffer(op)?;
        let operands = ir::operands(op);
        let views: Vec<Vec<i64>> = fuselab_dialects::loops::operand_views(op);
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
        let shape = &out.ty.shape;
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
            let mut terms = Vec::new();
            let mut stride = 1i64;
            for d in (0..bias.ty.rank()).rev() {
                if bias.ty.shape[d] != 1 {
                    terms.push(format!("d{} * {stride}", d + offset));
                }
                stride *= bias.ty.shape[d];
            }
            let index = if terms.is_empty() {
                "0".to_string()
            } else {
                terms.join(" + ")
            };
            self.broadcast_into(&bias, &index, &target);
            1.0
        } else {
            0.0
        };
        // C += A B per batch by the BLAS (`fuselab_sgemm`, matrixmultiply's sgemm, which
        // takes any row and column strides, so views need no copy).
        self.uses_sgemm = true;
        let base = "    ";
        let (pa, pb, pc) = (
            self.pointer(&a, base),
            self.pointer(&b, base),
            self.pointer(&target, base),
        );
        let (ivs, ind) = self.open_loops(&loop_ranges[..usize::from(bmm)], base);
        let iv = ivs.first().map(String::as_str);
        let (sa0, sb0) = if bmm { (astr[0], bstr[0]) } else { (0, 0) };
        let addr_a = self.address(&pa, iv, sa0, ao, &ind);
        let addr_b = self.address(&pb, iv, sb0, bo, &ind);
        let addr_c = self.address(&pc, iv, m * n, 0, &ind);
        let (ra, ca) = (astr[astr.len() - 2], astr[astr.len() - 1]);
        let (rb, cb) = (bstr[bstr.len() - 2], bstr[bstr.len() - 1]);
        self.call_sgemm(
            [m, n, k],
            (&addr_a, ra, ca),
            (&addr_b, rb, cb),
            beta,
            (&addr_c, n, 1),
            &ind,
        );
        self.close_loops(ivs.len(), base);
        self.finish_extern(op, &target, out);
        Ok(())
    }

    /// The operands and the result buffer an extern computes with, all f32: an f32
    /// extern uses its own buffers; an f16 / bf16 one has its operands widened into
    /// scratch buffers and computes into an f32 scratch that [`Gen::finish_extern`]
    /// narrows into the result once.
    fn in_f32(
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
    fn finish_extern(&mut self, op: MlirOperation, target: &Buf, out: Buf) {
        if target.ty.dtype != out.ty.dtype {
            self.copy_converting(target, &out);
        }
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
    }

    /// Fills the f32 buffer `target` with `src` read at `index`, an affine expression of
    /// the target's loop variables `d0, d1, ...` (a bias broadcast).
    fn broadcast_into(&mut self, src: &Buf, index: &str, target: &Buf) {
        let shape = target.ty.shape.clone();
        let (ivs, ind) = self.open_loops(&shape, "    ");
        let dims: Vec<String> = (0..shape.len()).map(|d| format!("d{d}")).collect();
        let (ix, v) = (self.name("x"), self.name("v"));
        let _ = writeln!(
            self.out,
            "{ind}{ix} = affine.apply affine_map<({}) -> ({index})>({})",
            dims.join(", "),
            ivs.join(", ")
        );
        let _ = writeln!(
            self.out,
            "{ind}{v} = memref.load {}[{ix}] : {}",
            src.ssa,
            memref(&src.ty)
        );
        let v = if src.ty.dtype.is_half() {
            self.widened(&v, src.ty.dtype, &ind)
        } else {
            v
        };
        let flat = self.flat_index(&ivs, &shape, &ind);
        let _ = writeln!(
            self.out,
            "{ind}memref.store {v}, {}[{flat}] : {}",
            target.ssa,
            memref(&target.ty)
        );
        self.close_loops(shape.len(), "    ");
    }

    /// `C = A B + beta C` through `fuselab_sgemm` for `[m, n, k]` (`A` is m x k, `B`
    /// k x n); each operand is an i64 address with its row and column strides in
    /// elements.
    fn call_sgemm(
        &mut self,
        [m, n, k]: [i64; 3],
        a: (&str, i64, i64),
        b: (&str, i64, i64),
        beta: f32,
        c: (&str, i64, i64),
        indent: &str,
    ) {
        let ints: Vec<String> = [m, n, k, a.1, a.2, b.1, b.2, c.1, c.2]
            .iter()
            .map(|&v| {
                let name = self.name("c");
                let _ = writeln!(self.out, "{indent}{name} = arith.constant {v} : i64");
                name
            })
            .collect();
        let beta_c = self.name("c");
        let _ = writeln!(self.out, "{indent}{beta_c} = arith.constant {beta:?} : f32");
        let _ = writeln!(
            self.out,
            "{indent}func.call @fuselab_sgemm({}, {}, {}, {}, {}, {}, {}, {}, {}, {beta_c}, {}, {}, {}) : {SGEMM_TYPE}",
            ints[0], ints[1], ints[2], a.0, ints[3], ints[4], b.0, ints[5], ints[6], c.0, ints[7], ints[8]
        );
    }

    /// A global buffer of `shape` and `dtype`. Intermediate buffers are module globals,
    /// allocated once when the code is loaded (as a caching allocator would), so calls do
    /// not pay for malloc and page faults; every function that uses one starts with its
    /// `memref.get_global`.
    fn scratch(&mut self, shape: &[i64], dtype: DType) -> Buf {
        let b = Buf {
            ssa: self.name("buf"),
            ty: TensorType {
                shape: shape.to_vec(),
                dtype,
            },
        };
        self.allocs.push(b.clone());
        b
    }

    /// `src` converted to `dtype` in a scratch buffer (`src` itself if it has it).
    fn convert(&mut self, src: &Buf, dtype: DType) -> Buf {
        if src.ty.dtype == dtype {
            return src.clone();
        }
        let dst = self.scratch(&src.ty.shape, dtype);
        self.copy_converting(src, &dst);
        dst
    }

    /// Copies `src` into `dst` element by element, between f32 and a half type.
    fn copy_converting(&mut self, src: &Buf, dst: &Buf) {
        let (ivs, ind) = self.open_loops(&[src.ty.numel().max(1)], "    ");
        let v = self.name("v");
        let _ = writeln!(
            self.out,
            "{ind}{v} = memref.load {}[{}] : {}",
            src.ssa,
            ivs[0],
            memref(&src.ty)
        );
        let w = if src.ty.dtype.is_half() {
            self.widened(&v, src.ty.dtype, &ind)
        } else {
            self.narrowed(&v, dst.ty.dtype, &ind)
        };
        let _ = writeln!(
            self.out,
            "{ind}memref.store {w}, {}[{}] : {}",
            dst.ssa,
            ivs[0],
            memref(&dst.ty)
        );
        self.close_loops(1, "    ");
    }

    /// The f32 value `v` rounded to `half` (and widened back), or `v` itself.
    fn round_to(&mut self, v: &str, half: Option<DType>, indent: &str) -> String {
        match half {
            Some(dtype) => {
                let narrow = self.narrowed(v, dtype, indent);
                self.widened(&narrow, dtype, indent)
            }
            None => v.to_string(),
        }
    }

    /// The f32 value of a loaded half element `v` (bf16 is stored as its i16 bits).
    fn widened(&mut self, v: &str, dtype: DType, indent: &str) -> String {
        let w = self.name("w");
        if dtype == DType::BF16 {
            let (a, b, k) = (self.name("w"), self.name("w"), self.name("w"));
            let _ = writeln!(self.out, "{indent}{a} = arith.extui {v} : i16 to i32");
            let _ = writeln!(self.out, "{indent}{k} = arith.constant 16 : i32");
            let _ = writeln!(self.out, "{indent}{b} = arith.shli {a}, {k} : i32");
            let _ = writeln!(self.out, "{indent}{w} = arith.bitcast {b} : i32 to f32");
        } else {
            let _ = writeln!(
                self.out,
                "{indent}{w} = arith.extf {v} : {} to f32",
                dtype.mlir_name()
            );
        }
        w
    }

    /// The half element to store for the f32 value `v`: f16 by `arith.truncf`, bf16 as
    /// its i16 bits rounded to nearest even (NaN kept quiet).
    fn narrowed(&mut self, v: &str, dtype: DType, indent: &str) -> String {
        if dtype != DType::BF16 {
            let w = self.name("w");
            let _ = writeln!(
                self.out,
                "{indent}{w} = arith.truncf {v} : f32 to {}",
                dtype.mlir_name()
            );
            return w;
        }
        let n: Vec<String> = (0..9).map(|_| self.name("w")).collect();
        let lines = [
            format!("{} = arith.bitcast {v} : f32 to i32", n[0]),
            format!("{} = arith.constant 16 : i32", n[1]),
            format!("{} = arith.shrui {}, {} : i32", n[2], n[0], n[1]),
            format!("{} = arith.constant 1 : i32", n[3]),
            format!("{} = arith.andi {}, {} : i32", n[4], n[2], n[3]),
            format!("{} = arith.constant 32767 : i32", n[5]),
            // bits + 0x7fff + lsb, then the upper half: round to nearest even.
            format!("{} = arith.addi {}, {} : i32", n[6], n[4], n[5]),
            format!("{} = arith.addi {}, {} : i32", n[7], n[0], n[6]),
            format!("{} = arith.shrui {}, {} : i32", n[8], n[7], n[1]),
        ];
        for line in lines {
            let _ = writeln!(self.out, "{indent}{line}");
        }
        let (t, nan, q, bad) = (self.name("w"), self.name("w"), self.name("w"), self.name("w"));
        let _ = writeln!(self.out, "{indent}{t} = arith.trunci {} : i32 to i16", n[8]);
        let _ = writeln!(self.out, "{indent}{q} = arith.constant 32704 : i16");
        let _ = writeln!(self.out, "{indent}{bad} = arith.cmpf uno, {v}, {v} : f32");
        let _ = writeln!(self.out, "{indent}{nan} = arith.select {bad}, {q}, {t} : i16");
        nan
    }

    /// The aligned base address of `buf` (an `index`).
    fn pointer(&mut self, buf: &Buf, indent: &str) -> String {
        let p = self.name("p");
        let _ = writeln!(
            self.out,
            "{indent}{p} = memref.extract_aligned_pointer_as_index {} : {} -> index",
            buf.ssa,
            memref(&buf.ty)
        );
        p
    }

    /// The i64 address of element `iv * stride + offset` (f32) from `pointer`.
    fn address(&mut self, pointer: &str, iv: Option<&str>, stride: i64, offset: i64, indent: &str) -> String {
        let x = self.name("x");
        match iv {
            Some(iv) => {
                let _ = writeln!(
                    self.out,
                    "{indent}{x} = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * {} + {})>({iv})[{pointer}]",
                    stride * 4,
                    offset * 4
                );
            }
            None => {
                let _ = writeln!(
                    self.out,
                    "{indent}{x} = affine.apply affine_map<()[s0] -> (s0 + {})>()[{pointer}]",
                    offset * 4
                );
            }
        }
        let a = self.name("addr");
        let _ = writeln!(self.out, "{indent}{a} = arith.index_cast {x} : index to i64");
        a
    }

    /// N-d convolution as im2col + GEMM, per image and group: the receptive fields of
    /// every output position are gathered into a scratch `col[(c, k...), (s...)]`
    /// (0 where the window leaves the input: padding), then `out[n, group] = W[group] x
    /// col` by `fuselab_sgemm` (on top of the bias, broadcast first). f16/bf16 run in
    /// f32 scratch buffers, as matmuls do.
    fn convolution(
        &mut self,
        op: MlirOperation,
        out: Buf,
        operands: &[MlirValue],
    ) -> Result<(), CodegenError> {
        let inputs = [self.buffer(op, operands[0])?, self.buffer(op, operands[1])?];
        let bias = operands.get(2).map(|&b| self.buffer(op, b)).transpose()?;
        let ([x, w], target) = self.in_f32(op, "convolutions", &out, inputs)?;
        let spatial = x.ty.rank() - 2;
        let list = |name: &str, default: i64| {
            let v = i64s(op, name);
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
        let (batch, cin) = (x.ty.shape[0], x.ty.shape[1]);
        let (cin_g, cout_g) = (w.ty.shape[1], w.ty.shape[0] / groups.max(1));
        let kernel: Vec<i64> = w.ty.shape[2..].to_vec();
        let out_spatial: Vec<i64> = target.ty.shape[2..].to_vec();
        let s_total: i64 = out_spatial.iter().product();
        let k_total: i64 = cin_g * kernel.iter().product::<i64>();
        let in_spatial: i64 = x.ty.shape[2..].iter().product();
        let cout = w.ty.shape[0];
        // The bias broadcast over images and positions (then C += W col).
        let beta = if let Some(b) = bias {
            self.broadcast_into(&b, "d1", &target);
            1.0
        } else {
            0.0
        };
        let col = self.scratch(&[k_total, s_total], DType::F32);
        self.uses_sgemm = true;
        let base = "    ";
        let (pw, pc, pcol) = (
            self.pointer(&w, base),
            self.pointer(&target, base),
            self.pointer(&col, base),
        );
        let (ng, nind) = self.open_loops(&[batch, groups], base);
        let (n, g) = (ng[0].clone(), ng[1].clone());
        // col[(c, k...), (s...)] = x[n, g*cin_g + c, s*stride - pad + k*dil] or 0.
        let mut fill = vec![cin_g];
        fill.extend_from_slice(&kernel);
        fill.extend_from_slice(&out_spatial);
        let (fivs, find) = self.open_loops(&fill, &nind);
        let mut conds = Vec::new();
        let mut positions = Vec::new();
        for sp in 0..spatial {
            let (k_iv, s_iv) = (&fivs[1 + sp], &fivs[1 + spatial + sp]);
            let p = self.name("x");
            let _ = writeln!(
                self.out,
                "{find}{p} = affine.apply affine_map<(d0, d1) -> (d1 * {} - {} + d0 * {})>({k_iv}, {s_iv})",
                stride[sp], padding[sp], dilation[sp]
            );
            let (lo, hi) = (
                self.index_const(0, &find),
                self.index_const(x.ty.shape[2 + sp] - 1, &find),
            );
            let (ge, le, cl, c) = (self.name("b"), self.name("b"), self.name("x"), self.name("x"));
            let _ = writeln!(self.out, "{find}{ge} = arith.cmpi sge, {p}, {lo} : index");
            let _ = writeln!(self.out, "{find}{le} = arith.cmpi sle, {p}, {hi} : index");
            // Clamped into the input for the (discarded) out-of-bounds loads.
            let _ = writeln!(self.out, "{find}{cl} = arith.maxsi {p}, {lo} : index");
            let _ = writeln!(self.out, "{find}{c} = arith.minsi {cl}, {hi} : index");
            conds.push(ge);
            conds.push(le);
            positions.push(c);
        }
        let mut in_expr = format!("(d0 * {cin} + d1 * {cin_g} + d2) * {in_spatial}");
        for sp in 0..spatial {
            let inner: i64 = x.ty.shape[3 + sp..].iter().product();
            in_expr.push_str(&format!(" + s{sp} * {inner}"));
        }
        let syms: Vec<String> = (0..spatial).map(|sp| format!("s{sp}")).collect();
        let ix = self.name("x");
        let _ = writeln!(
            self.out,
            "{find}{ix} = affine.apply affine_map<(d0, d1, d2)[{}] -> ({in_expr})>({n}, {g}, {})[{}]",
            syms.join(", "),
            fivs[0],
            positions.join(", ")
        );
        let (v, zero, sel) = (self.name("v"), self.name("z"), self.name("v"));
        let _ = writeln!(
            self.out,
            "{find}{v} = memref.load {}[{ix}] : {}",
            x.ssa,
            memref(&x.ty)
        );
        let _ = writeln!(self.out, "{find}{zero} = arith.constant 0.0 : f32");
        let mut inside = conds.first().cloned().unwrap_or_default();
        for c in conds.iter().skip(1) {
            let a = self.name("b");
            let _ = writeln!(self.out, "{find}{a} = arith.andi {inside}, {c} : i1");
            inside = a;
        }
        let value = if conds.is_empty() {
            v
        } else {
            let _ = writeln!(self.out, "{find}{sel} = arith.select {inside}, {v}, {zero} : f32");
            sel
        };
        let flat = self.flat_index(&fivs, &fill, &find);
        let _ = writeln!(
            self.out,
            "{find}memref.store {value}, {}[{flat}] : {}",
            col.ssa,
            memref(&col.ty)
        );
        self.close_loops(fill.len(), &nind);
        // out[n, g*cout_g.., s] (+)= W[g*cout_g.., (c, k...)] x col
        let addr_w = self.address(&pw, Some(&g), cout_g * k_total, 0, &nind);
        let addr_col = self.address(&pcol, None, 0, 0, &nind);
        let image = self.name("x");
        let _ = writeln!(
            self.out,
            "{nind}{image} = affine.apply affine_map<(d0, d1) -> (d0 * {} + d1 * {})>({n}, {g})",
            cout * s_total,
            cout_g * s_total
        );
        let addr_c = self.address(&pc, Some(&image), 1, 0, &nind);
        self.call_sgemm(
            [cout_g, s_total, k_total],
            (&addr_w, k_total, 1),
            (&addr_col, s_total, 1),
            beta,
            (&addr_c, s_total, 1),
            &nind,
        );
        self.close_loops(2, base);
        self.finish_extern(op, &target, out);
        Ok(())
    }

    /// A strided view (`loop.view`) copied into its output buffer.
    fn view_copy(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        let out = self.result_buffer(op)?;
        let base = self.buffer(op, ir::operand(op, 0))?;
        let layout = i64s(op, "layout");
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

    /// The ops of a kernel function that are not kernels themselves.
    fn members(&mut self, ops: &[MlirOperation]) -> Result<(), CodegenError> {
        for &op in ops {
            match ir::op_name(op).as_str() {
                names::POINTWISE | names::REDUCTION => self.step(&[op])?,
                names::EXTERN => self.matmul(op)?,
                names::VIEW => self.view_copy(op)?,
                other => {
                    return Err(err(
                        op,
                        format!("the CPU code generator cannot handle '{other}' here"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// A `loop.kernel`'s members: pointwise members whose buffer does not leave the
    /// kernel are fused into their readers (computed in registers, never stored); the
    /// rest share one row nest when they can ([`Gen::step`]).
    fn kernel(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        let block = ir::body(op).ok_or_else(|| err(op, "kernel without a body"))?;
        let inner = ir::block_ops(block);
        let (last, members) = inner.split_last().ok_or_else(|| err(op, "empty kernel"))?;
        let yielded: Vec<usize> = ir::operands(*last).iter().map(|v| v.ptr as usize).collect();
        let mut rest = Vec::new();
        for &m in members {
            let r = ir::result(m, 0).ptr as usize;
            // Only values every user reads through `loop.load` in a body can be
            // recomputed there; an extern or a view needs the buffer.
            let loaded_only = ir::users(ir::result(m, 0))
                .iter()
                .all(|&u| ir::op_name(u) == names::LOAD);
            if ir::op_name(m) == names::POINTWISE && !yielded.contains(&r) && loaded_only {
                self.inline.insert(r, m);
            } else {
                rest.push(m);
            }
        }
        let nodes = rest
            .iter()
            .all(|&m| matches!(ir::op_name(m).as_str(), names::POINTWISE | names::REDUCTION));
        if nodes && !rest.is_empty() {
            self.step(&rest)?;
        } else {
            self.members(&rest)?;
        }
        let outs = ir::operands(*last)
            .iter()
            .map(|&v| self.buffer(op, v))
            .collect::<Result<Vec<_>, _>>()?;
        self.tuples.insert(ir::result(op, 0).ptr as usize, outs);
        Ok(())
    }

    /// The function's ops: each kernel, node, extern or view becomes a function of its
    /// own, called by the host function in order.
    fn ops(&mut self, ops: &[MlirOperation]) -> Result<(), CodegenError> {
        for &op in ops {
            let name = ir::op_name(op);
            match name.as_str() {
                names::POINTWISE | names::REDUCTION | names::EXTERN | names::VIEW | names::KERNEL => {
                    self.out.clear();
                    if name == names::KERNEL {
                        self.kernel(op)?;
                    } else {
                        self.members(&[op])?;
                    }
                    let label = ir::attr(op, "name")
                        .and_then(fuselab_dialects::attrs::string_raw)
                        .unwrap_or_else(|| "node".to_string());
                    self.finish_kernel(&label);
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

    /// `memref.get_global` of every intermediate buffer so far.
    fn globals_prologue(&self) -> String {
        self.allocs
            .iter()
            .enumerate()
            .map(|(i, b)| {
                format!(
                    "    {} = memref.get_global @{}_g{i} : {}\n",
                    b.ssa,
                    self.prefix,
                    memref(&b.ty)
                )
            })
            .collect()
    }

    /// Closes the kernel function written in `out` as `@<function>_<label>` and calls
    /// it from the host function.
    fn finish_kernel(&mut self, label: &str) {
        let clean: String = label
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut symbol = format!("{}_{clean}", self.prefix);
        if self.kernels.iter().any(|(s, _)| *s == symbol) {
            symbol = format!("{symbol}_{}", self.kernels.len());
        }
        let text = format!(
            "  func.func private @{symbol}({}) {{\n{}{}    return\n  }}\n",
            self.params.join(", "),
            self.globals_prologue(),
            self.out
        );
        let args: Vec<&str> = self.params.iter().filter_map(|p| p.split(':').next()).collect();
        let types: Vec<&str> = self
            .params
            .iter()
            .filter_map(|p| p.split_once(": ").map(|(_, t)| t))
            .collect();
        let _ = writeln!(
            self.host,
            "    func.call @{symbol}({}) : ({}) -> ()",
            args.join(", "),
            types.join(", ")
        );
        self.kernels.push((symbol, text));
        self.out.clear();
    }
}

/// The node result behind `v`: `v` itself when a node defines it, or the kernel member
/// a `loop.output` forwards.
fn produced_by_node(v: MlirValue) -> Option<MlirValue> {
    let d = ir::defining_op(v)?;
    match ir::op_name(d).as_str() {
        names::POINTWISE | names::REDUCTION | names::EXTERN | names::VIEW => Some(v),
        names::OUTPUT => {
            let kernel = ir::defining_op(ir::operand(d, 0))?;
            let index = ir::attr(d, "index")
                .and_then(|a| fuselab_dialects::attrs::integer(unsafe { melior::ir::Attribute::from_raw(a) }))
                .unwrap_or(0) as usize;
            let yielded = *ir::operands(*ir::block_ops(ir::body(kernel)?).last()?).get(index)?;
            produced_by_node(yielded)
        }
        _ => None,
    }
}

/// Options of the CPU code generator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuOptions {
    /// Emit `scf.parallel` row chunks for steps of at least [`PARALLEL_WORK`] element
    /// operations.
    pub parallel: bool,
}

/// The upstream-dialect code for one `loop` function.
#[derive(Clone, Debug)]
pub struct CpuFunction {
    /// The host function's symbol (the `loop` function's name).
    pub entry: String,
    /// Module-level ops: globals, kernel functions and the host function.
    pub body: String,
    /// Whether `fuselab_sgemm` is called (its declaration is not in `body`).
    pub uses_sgemm: bool,
    /// Types of the host function's leading arguments (the `loop` function's inputs).
    pub inputs: Vec<TensorType>,
    /// Types of its trailing arguments (the results, written in place).
    pub outputs: Vec<TensorType>,
}

/// The declaration of the BLAS entry point.
pub fn sgemm_declaration() -> String {
    format!(
        "  func.func private @fuselab_sgemm{}\n",
        SGEMM_TYPE.replace(" -> ()", "")
    )
}

/// A module holding `functions` (and the BLAS declaration if one needs it).
pub fn module_text(functions: &[CpuFunction]) -> String {
    let mut text = String::from("module {\n");
    if functions.iter().any(|f| f.uses_sgemm) {
        text.push_str(&sgemm_declaration());
    }
    for f in functions {
        text.push_str(&f.body);
    }
    text.push_str("}\n");
    text
}

/// Generates the upstream-dialect code of the `loop` function `func`: a host function
/// `@<name>(inputs..., outputs...)` (flat 1-D memrefs, results written in place, with
/// `llvm.emit_c_interface`) calling one private function per kernel, node, extern or
/// view in order, and a `memref.global` per intermediate buffer.
pub fn cpu_function(func: MlirOperation, options: CpuOptions) -> Result<CpuFunction, CodegenError> {
    let missing = |m: String| CodegenError {
        op: Some(func),
        message: m,
    };
    let entry = ir::attr(func, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .ok_or_else(|| missing("function without a name".to_string()))?;
    let block = ir::body(func).ok_or_else(|| missing("function without a body".to_string()))?;
    let ops = ir::block_ops(block);
    let ret = *ops.last().ok_or_else(|| missing("empty function".to_string()))?;
    let mut g = Gen {
        out: String::new(),
        fresh: 0,
        bufs: HashMap::new(),
        tuples: HashMap::new(),
        allocs: Vec::new(),
        direct_out: HashMap::new(),
        inline: HashMap::new(),
        uses_sgemm: false,
        parallel: options.parallel,
        prefix: entry.clone(),
        params: Vec::new(),
        kernels: Vec::new(),
        host: String::new(),
    };
    let mut inputs = Vec::new();
    for (i, a) in ir::block_arguments(block).into_iter().enumerate() {
        let ty =
            ir::tensor_type(a).ok_or_else(|| missing(format!("argument #{i} is not a supported tensor")))?;
        let ssa = format!("%in{i}");
        g.params.push(format!("{ssa}: {}", memref(&ty)));
        g.bufs.insert(a.ptr as usize, Buf { ssa, ty: ty.clone() });
        inputs.push(ty);
    }
    let mut outputs = Vec::new();
    let mut copies = Vec::new();
    for (i, v) in ir::operands(ret).into_iter().enumerate() {
        let ty =
            ir::tensor_type(v).ok_or_else(|| missing(format!("result #{i} is not a supported tensor")))?;
        let ssa = format!("%out{i}");
        g.params.push(format!("{ssa}: {}", memref(&ty)));
        let out = Buf { ssa, ty: ty.clone() };
        // A node result returned once (directly or as a kernel's output) is written
        // straight into the output.
        let node = produced_by_node(v);
        if let Some(node) = node.filter(|n| !g.direct_out.contains_key(&(n.ptr as usize))) {
            g.direct_out.insert(node.ptr as usize, out);
        } else {
            copies.push((v, out));
        }
        outputs.push(ty);
    }
    g.ops(&ops)?;
    let mut host_copies = String::new();
    for (v, out) in copies {
        let src = g.buffer(ret, v)?;
        let _ = writeln!(
            host_copies,
            "    memref.copy {}, {} : {} to {}",
            src.ssa,
            out.ssa,
            memref(&src.ty),
            memref(&out.ty)
        );
    }
    let mut body: String = g
        .allocs
        .iter()
        .enumerate()
        .map(|(i, b)| {
            format!(
                "  memref.global \"private\" @{entry}_g{i} : {} = uninitialized {{alignment = 64 : i64}}\n",
                memref(&b.ty)
            )
        })
        .collect();
    for (_, text) in &g.kernels {
        body.push_str(text);
    }
    let _ = write!(
        body,
        "  func.func @{entry}({}) attributes {{llvm.emit_c_interface}} {{\n{}{}{}    return\n  }}\n",
        g.params.join(", "),
        if host_copies.is_empty() {
            String::new()
        } else {
            g.globals_prologue()
        },
        g.host,
        host_copies
    );
    Ok(CpuFunction {
        entry,
        body,
        uses_sgemm: g.uses_sgemm,
        inputs,
        outputs,
    })
}

/// The upstream passes that lower the CPU module to the LLVM dialect (the CPU target's
/// `llvm` stage).
pub const UPSTREAM_PIPELINE: &str =
    "async-parallel-for{async-dispatch=false num-workers=-1 min-task-size=1},\
    async-to-async-runtime,async-runtime-ref-counting,async-runtime-ref-counting-opt,\
    arith-expand,\
    convert-async-to-llvm,lower-affine,convert-scf-to-cf,convert-math-to-llvm,\
    convert-math-to-libm,expand-strided-metadata,finalize-memref-to-llvm,convert-arith-to-llvm,\
    convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts";

/// [`UPSTREAM_PIPELINE`] as a whole-module pipeline.
pub fn upstream_lowering() -> String {
    format!("builtin.module({UPSTREAM_PIPELINE})")
}
