//! `--lower-loop-to-cpu`: `loop` IR to upstream MLIR for a CPU — `func`, `scf`,
//! `arith`, `math`, `affine`, `memref` only — ready for [`UPSTREAM_PIPELINE`] to the LLVM
//! dialect and an LLVM JIT ([`crate::cpu::jit`]) or `mlir-opt` / `mlir-translate`.
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
//!   polynomials ([`crate::cpu::math`]) instead of one libm call per element;
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

mod emit;
mod externs;
mod kernels;
mod nodes;

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
    /// SSA name of each intermediate buffer -> its index in `allocs`.
    alloc_of: HashMap<String, usize>,
    /// Kernel function symbols so far.
    symbols: std::collections::HashSet<String>,
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

/// `@name` as MLIR writes a symbol reference: bare when `name` is an identifier
/// (`[A-Za-z_][A-Za-z0-9_$.]*`), else quoted with `"` and `\` escaped (`@"my model"`).
fn sym(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        format!("@{name}")
    } else {
        let mut quoted = String::from("@\"");
        for c in name.chars() {
            match c {
                '"' | '\\' => {
                    quoted.push('\\');
                    quoted.push(c);
                }
                c if c.is_control() => quoted.push_str(&format!("\\{:02X}", c as u32)),
                c => quoted.push(c),
            }
        }
        quoted.push('"');
        quoted
    }
}

fn err(op: MlirOperation, m: impl Into<String>) -> CodegenError {
    CodegenError {
        op: Some(op),
        message: m.into(),
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
        alloc_of: HashMap::new(),
        symbols: Default::default(),
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
                "  memref.global \"private\" {} : {} = uninitialized {{alignment = 64 : i64}}\n",
                sym(&format!("{entry}_g{i}")),
                memref(&b.ty)
            )
        })
        .collect();
    for (_, text) in &g.kernels {
        body.push_str(text);
    }
    let _ = write!(
        body,
        "  func.func {}({}) attributes {{llvm.emit_c_interface}} {{\n{}{}{}    return\n  }}\n",
        sym(&entry),
        g.params.join(", "),
        if host_copies.is_empty() {
            String::new()
        } else {
            g.globals_prologue(&host_copies)
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
/// `llvm` stage). There is no `arith-expand`: it rewrote the NaN-propagating
/// `arith.maximumf`/`minimumf` of row max/min reductions into compare + select, which
/// LLVM does not vectorize as a reduction; as `llvm.maximum`/`llvm.minimum` they
/// vectorize (log_softmax_nll 8.9 -> 2.6 ms, softmax 11.8 -> 4.5 ms on this VM, NaN
/// propagation unchanged: test/Execution/edge-cases.mlir under --jit).
pub const UPSTREAM_PIPELINE: &str =
    "async-parallel-for{async-dispatch=false num-workers=-1 min-task-size=1},\
    async-to-async-runtime,async-runtime-ref-counting,async-runtime-ref-counting-opt,\
    convert-async-to-llvm,lower-affine,convert-scf-to-cf,convert-math-to-llvm,\
    convert-math-to-libm,expand-strided-metadata,finalize-memref-to-llvm,convert-arith-to-llvm,\
    convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts";

/// [`UPSTREAM_PIPELINE`] as a whole-module pipeline.
pub fn upstream_lowering() -> String {
    format!("builtin.module({UPSTREAM_PIPELINE})")
}
