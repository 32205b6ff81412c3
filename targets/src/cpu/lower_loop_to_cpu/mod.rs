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
//!   with `parallel=true` chunks of rows are an `scf.parallel` (lowered to OpenMP) whose
//!   body calls the rows as an outlined function;
//! - `exp`, `log`, `tanh`, `erf`, `sin`, `cos` on f32 are written as vectorizable
//!   polynomials ([`crate::math`]) instead of one libm call per element;
//! - `mm`/`bmm` call `fuselab_sgemm` (a BLAS the JIT provides) with the operands' view
//!   strides; convolution is im2col + `fuselab_sgemm`; views are loop nests;
//! - `sdpa` (fused attention) is blocked: per block of query rows two `fuselab_sgemm`
//!   calls around a row softmax whose scores stay in cache (`attention.rs`);
//! - f16 / bf16 are computed in f32, rounded to the declared type after every op (eager
//!   semantics), bf16 stored as i16 bits.

use crate::host::HostLowering;
use crate::math::{widen, widen_attr};
use fuselab_dialects::{
    build::{Affine, Builder, OwnedModule, Value},
    ir::{self, i64s},
    loops::{names, node_ranges},
    types::{contiguous_strides, DType, TensorType},
};
use fuselab_passes::analysis::rows::{produced_by_node, Recomputed};
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::OperationRef;
use mlir_sys::{MlirBlock, MlirOperation, MlirType};
use std::collections::{BTreeMap, BTreeSet, HashMap};

mod attention;
mod emit;
mod externs;
pub mod interleave;
mod kernels;
mod nodes;
mod row_scratch;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "lower-loop-to-cpu",
    summary: "Lower loop IR to upstream scf/memref/arith/math: one function per kernel plus a host function",
    anchor: "builtin.module",
    options: &[
        PassOption {
            name: "parallel",
            kind: OptionKind::Bool,
            default: "false",
            help: "run chunks of rows of each kernel as scf.parallel (an OpenMP worksharing loop in the llvm stage)",
        },
        PassOption {
            name: "parallel-min-work",
            kind: OptionKind::UInt,
            default: "65536",
            help: "with parallel=true, steps doing fewer element operations stay on one thread (1: every step of 2 or more rows)",
        },
        PassOption {
            name: "interleave",
            kind: OptionKind::Bool,
            default: "true",
            help: "annotate innermost loops with long bodies for LLVM to interleave (run vector iterations side by side)",
        },
        PassOption {
            name: "fp32-in-kernels",
            kind: OptionKind::Bool,
            default: "false",
            help: "keep f16/bf16 values in f32 inside fused kernels, rounding only where stored (Ascend's numerics)",
        },
    ],
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
        parallel_min_work: i64::try_from(cx.options.uint("parallel-min-work")).unwrap_or(i64::MAX),
        fp32_in_kernels: cx.options.flag("fp32-in-kernels"),
        interleave: cx.options.flag("interleave"),
        ..CpuOptions::default()
    };
    let raw = module.to_raw();
    let block = ir::body(raw).ok_or(PassFailed)?;
    let functions = ir::ops_named(block, "func.func");
    if functions.is_empty() {
        // Nothing to generate: the module's other ops are not CPU code either.
        for op in ir::block_ops(block) {
            ir::erase(op);
        }
        return Ok(());
    }
    let built = match cpu_module(&functions, options) {
        Ok(built) => built,
        Err(e) => {
            let at = e.op.unwrap_or(raw);
            cx.sink.error(
                unsafe { melior::ir::Location::from_raw(ir::location(at)) },
                format!("cannot lower to CPU code: {}", e.message),
            );
            return Err(PassFailed);
        }
    };
    built.module.replace_contents_of(block);
    Ok(())
}

/// The element type a buffer of `dtype` stores: bf16 elements are stored as their i16
/// bits and converted with integer ops ([`Gen::widened`], [`Gen::narrowed`]): LLVM's x86
/// backend otherwise calls compiler-rt's `__truncsfbf2` even for a bf16 load + store,
/// which the JIT's process does not have.
fn storage_type(b: &Builder, dtype: DType) -> MlirType {
    match dtype {
        DType::F32 => b.f32_type(),
        DType::F16 => unsafe { mlir_sys::mlirF16TypeGet(b.context()) },
        DType::BF16 => b.int_type(16),
        DType::I64 => b.int_type(64),
        DType::I32 => b.int_type(32),
        DType::I1 => b.int_type(1),
    }
}

/// The flat memref holding a tensor of `t`.
fn memref(b: &Builder, t: &TensorType) -> MlirType {
    b.flat_memref(t.numel().max(1), storage_type(b, t.dtype))
}

/// Every loop extent of `node`: ranges, then reduction ranges (empty when absent).
fn all_ranges(node: MlirOperation) -> Vec<i64> {
    node_ranges(node).unwrap_or_default()
}

/// `scf.for` loops carrying an accumulator (a reduction's rows).
struct Accumulation {
    /// Induction variables, outermost first.
    ivs: Vec<Value>,
    /// The accumulator inside the innermost loop.
    carried: Value,
    /// How many loops are open.
    depth: usize,
}

/// Element operations below which a step runs on one thread (by default: the pass
/// option `parallel-min-work`).
pub const PARALLEL_WORK: i64 = 1 << 16;
/// The most chunks a parallel step is split into.
const MAX_CHUNKS: i64 = 64;

/// The loops of one step (see [`Gen::open_nest`]).
struct Nest {
    /// Loop variables of the shared leading ranges.
    ivs: Vec<Value>,
    /// The terminator of each open body, innermost first.
    closers: Vec<&'static str>,
    /// For a parallel step: the function the step was called from (the step's rows are
    /// an outlined function of their own, see [`Gen::open_nest`]).
    caller: Option<Function>,
}

/// Where a buffer lives: a parameter of every generated function (an input or output of
/// the `loop` function) or an intermediate `memref.global`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BufId {
    /// The host function's (and every kernel function's) parameter #i.
    Param(usize),
    /// Intermediate buffer #i (global `@<function>_g<i>`).
    Global(usize),
}

/// A flat buffer of the generated code.
#[derive(Clone, Debug)]
struct Buf {
    id: BufId,
    ty: TensorType,
}

/// The function being generated: its entry block and the `memref.get_global`s it has
/// so far, by global index (kept in that order at the top of the entry block).
struct Function {
    entry: MlirBlock,
    globals: BTreeMap<usize, (MlirOperation, Value)>,
    /// Arguments before the buffer parameters (a parallel step's row range: 2, then
    /// the enclosing loop variables it was passed; 0 outside parallel loops).
    param_offset: usize,
}

impl Function {
    /// Whether this is the outlined body of a parallel loop ([`Gen::open_nest`]):
    /// GEMMs there call [`SGEMM_SERIAL`] (the threads are taken already).
    fn runs_in_parallel_loop(&self) -> bool {
        self.param_offset > 0
    }
}

struct Gen {
    b: Builder,
    bufs: HashMap<usize, Buf>,
    tuples: HashMap<usize, Vec<Buf>>,
    allocs: Vec<Buf>,
    /// Kernel function symbols so far.
    symbols: crate::host::Symbols,
    /// Result value -> output argument it is written to directly.
    direct_out: HashMap<usize, Buf>,
    /// Kernel-local pointwise nodes: computed where they are read, never stored.
    inline: HashMap<usize, MlirOperation>,
    /// Values of kernel-local nodes already recomputed, by where and how they were read.
    recomputed: HashMap<Recomputed, Value>,
    /// Values of the current step computed once per row ([`row_scratch`]).
    row_scratch: row_scratch::RowScratches,
    /// The runtime entry points called so far ([`SGEMM`], [`SGEMM_SERIAL`], [`CONV`]).
    runtime_symbols: BTreeSet<&'static str>,
    /// Whether steps may run their rows in parallel.
    parallel: bool,
    /// Element operations a step needs to run in parallel (at least 1).
    parallel_min_work: i64,
    /// Keep f16 / bf16 values in f32 inside fused kernels ([`CpuOptions::fp32_in_kernels`]).
    fp32_in_kernels: bool,
    /// The `loop` function's name: prefix of every symbol generated for it.
    prefix: String,
    /// The memref type of each parameter (inputs, then outputs).
    params: Vec<MlirType>,
    /// The first kernel function generated for this `loop` function.
    first_kernel: Option<MlirOperation>,
    /// The host function and its entry block.
    host: (MlirOperation, MlirBlock),
    /// The function being generated.
    func: Function,
}

/// The GEMM the generated code calls; with parallel steps the JIT splits a large one
/// over the threads (`cpu::blas::fuselab_sgemm_parallel`).
pub const SGEMM: &str = "fuselab_sgemm";

/// The same GEMM on the calling thread only, called from inside parallel loops
/// (`cpu::blas::fuselab_sgemm`).
pub const SGEMM_SERIAL: &str = "fuselab_sgemm_serial";

/// The convolution the generated code tries first (`cpu::dnnl::fuselab_conv`:
/// oneDNN's primitive where the library loads), running its own im2col code when that
/// returns 0.
pub const CONV: &str = "fuselab_conv";

/// The number of i64 parameters of [`CONV`]: spatial dims, batch, channels in and out,
/// groups, then input, kernel and output sizes, strides, paddings and dilations (3
/// each, the unused ones 1 or 0), the input's, the weight's and the result's element strides (5
/// each, the unused ones 0), threads, and the addresses of input, weight, bias (0:
/// none) and result; it returns an i32.
pub const CONV_PARAMS: usize = 43;

/// The parameter types of `fuselab_sgemm(m, n, k, a, rsa, csa, b, rsb, csb, beta, c, rsc,
/// csc)`: `C = A B + beta C` with addresses as i64 and strides in elements (all i64
/// but `beta`, an f32).
fn sgemm_params(b: &Builder) -> Vec<MlirType> {
    (0..13)
        .map(|i| if i == 9 { b.f32_type() } else { b.int_type(64) })
        .collect()
}

fn err(op: MlirOperation, m: impl Into<String>) -> CodegenError {
    CodegenError {
        op: Some(op),
        message: m.into(),
    }
}

/// Options of the CPU code generator and its JIT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuOptions {
    /// Emit `scf.parallel` row chunks for steps of at least `parallel_min_work` element
    /// operations.
    pub parallel: bool,
    /// The work below which a step runs on one thread (at most 0: [`PARALLEL_WORK`]).
    pub parallel_min_work: i64,
    /// LLVM code generation choices of the JIT (not read by the code generator).
    pub jit: crate::cpu::codegen_choices::CodegenChoices,
    /// Half-precision values stay f32 inside a fused kernel's node bodies and are rounded
    /// to their type only where they are stored (Ascend's fused-kernel numerics: cast up
    /// at the inputs, compute in fp32, cast back at the outputs) instead of after every
    /// op (eager PyTorch's, the default). Explicit casts still round.
    pub fp32_in_kernels: bool,
    /// Innermost loops with long bodies are annotated for LLVM to interleave
    /// ([`interleave`]).
    pub interleave: bool,
}

impl Default for CpuOptions {
    /// One thread, the JIT's default choices, eager half-precision rounding, long
    /// loops interleaved.
    fn default() -> Self {
        Self {
            parallel: false,
            parallel_min_work: 0,
            jit: crate::cpu::codegen_choices::CodegenChoices::default(),
            fp32_in_kernels: false,
            interleave: true,
        }
    }
}

/// The signature of one generated host function.
#[derive(Clone, Debug)]
pub struct HostSignature {
    /// The host function's symbol (the `loop` function's name).
    pub entry: String,
    /// Types of its leading arguments (the `loop` function's inputs).
    pub inputs: Vec<TensorType>,
    /// Types of its trailing arguments (the results, written in place).
    pub outputs: Vec<TensorType>,
}

/// The upstream-dialect code of some `loop` functions, built in their context.
pub struct CpuModule {
    /// The module: per function its globals, kernel functions and host function (and
    /// the BLAS declaration first, if called).
    pub module: OwnedModule,
    /// One host function per `loop` function, in order.
    pub functions: Vec<HostSignature>,
}

/// Generates the upstream-dialect code of the `loop` functions `funcs` (see the module
/// documentation) into a new module of their context, verified.
pub fn cpu_module(funcs: &[MlirOperation], options: CpuOptions) -> Result<CpuModule, CodegenError> {
    let first = funcs.first().copied();
    let loc = match first {
        Some(f) => ir::location(f),
        None => {
            return Err(CodegenError {
                op: None,
                message: "no function to generate".into(),
            })
        }
    };
    let module = OwnedModule::new(loc);
    let mut functions = Vec::new();
    let mut runtime_symbols = BTreeSet::new();
    for &f in funcs {
        let (signature, symbols) = cpu_function(f, module.body(), options)?;
        functions.push(signature);
        runtime_symbols.extend(symbols);
    }
    // Declared first, in reverse so that they end up in name order.
    for symbol in runtime_symbols.into_iter().rev() {
        let mut b = Builder::new(loc);
        let declaration = if symbol == CONV {
            let (params, result) = (vec![b.int_type(64); CONV_PARAMS], b.int_type(32));
            b.declaration_returning(symbol, &params, &[result])
        } else {
            let params = sgemm_params(&b);
            b.declaration(symbol, &params)
        };
        match ir::block_ops(module.body()).first() {
            Some(&first) => ir::insert_before(first, declaration),
            None => ir::append(module.body(), declaration),
        }
    }
    if options.interleave {
        let bits = crate::cpu::codegen_choices::host_vector_bits().unwrap_or(256);
        interleave::annotate(module.operation(), i64::from(bits / 32));
    }
    if !ir::verify(module.operation()) {
        return Err(CodegenError {
            op: first,
            message: "the generated CPU code does not verify (a fuselab bug)".into(),
        });
    }
    Ok(CpuModule { module, functions })
}

/// The host function `func` becomes: its name, its arguments' types (the inputs) and
/// its results' types (the outputs, written in place); a located error for a function
/// without a name or body, or with a value that is not a supported tensor.
pub fn host_signature(func: MlirOperation) -> Result<HostSignature, CodegenError> {
    let missing = |m: String| CodegenError {
        op: Some(func),
        message: m,
    };
    let entry = ir::attr(func, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .ok_or_else(|| missing("function without a name".to_string()))?;
    let block = ir::body(func).ok_or_else(|| missing("function without a body".to_string()))?;
    let ret = *ir::block_ops(block)
        .last()
        .ok_or_else(|| missing("empty function".to_string()))?;
    let inputs = ir::block_arguments(block)
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            ir::tensor_type(a).ok_or_else(|| missing(format!("argument #{i} is not a supported tensor")))
        })
        .collect::<Result<_, _>>()?;
    let outputs = ir::operands(ret)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            ir::tensor_type(v).ok_or_else(|| missing(format!("result #{i} is not a supported tensor")))
        })
        .collect::<Result<_, _>>()?;
    Ok(HostSignature {
        entry,
        inputs,
        outputs,
    })
}

/// `options` as the CPU target's stage options (`codegen`: this pass's, `choices`:
/// [`crate::cpu::codegen_choices::INFO`]'s), for [`crate::stages::run`].
pub fn stage_options(options: CpuOptions) -> Vec<(&'static str, String)> {
    let min_work = if options.parallel_min_work > 0 {
        options.parallel_min_work
    } else {
        PARALLEL_WORK
    };
    let width = match options.jit.vector_bits {
        Some(bits) => bits.to_string(),
        None => "llvm".to_string(),
    };
    vec![
        (
            "codegen",
            format!(
                "parallel={},parallel-min-work={min_work},interleave={},fp32-in-kernels={}",
                options.parallel, options.interleave, options.fp32_in_kernels
            ),
        ),
        (
            "choices",
            format!("fp-fusion={},vector-width={width}", options.jit.fp_fusion),
        ),
    ]
}

/// Generates the code of the `loop` function `func` into `module`: a host function
/// `@<name>(inputs..., outputs...)` (flat 1-D memrefs, results written in place, with
/// `llvm.emit_c_interface`) calling one private function per kernel, node, extern or
/// view in order, and a `memref.global` per intermediate buffer. Returns its signature
/// and the GEMM entry points it calls.
fn cpu_function(
    func: MlirOperation,
    module: MlirBlock,
    options: CpuOptions,
) -> Result<(HostSignature, BTreeSet<&'static str>), CodegenError> {
    let missing = |m: String| CodegenError {
        op: Some(func),
        message: m,
    };
    let signature = host_signature(func)?;
    let HostSignature {
        entry,
        inputs,
        outputs,
    } = &signature;
    let block = ir::body(func).ok_or_else(|| missing("function without a body".to_string()))?;
    let ops = ir::block_ops(block);
    let ret = *ops.last().ok_or_else(|| missing("empty function".to_string()))?;
    let mut b = Builder::new(ir::location(func));
    let mut bufs = HashMap::new();
    let mut params = Vec::new();
    for (i, (a, ty)) in ir::block_arguments(block).into_iter().zip(inputs).enumerate() {
        let ty = ty.clone();
        params.push(memref(&b, &ty));
        bufs.insert(
            a.ptr as usize,
            Buf {
                id: BufId::Param(i),
                ty,
            },
        );
    }
    let mut direct_out = HashMap::new();
    let mut copies = Vec::new();
    for (i, (v, ty)) in ir::operands(ret).into_iter().zip(outputs).enumerate() {
        let ty = ty.clone();
        params.push(memref(&b, &ty));
        let out = Buf {
            id: BufId::Param(inputs.len() + i),
            ty: ty.clone(),
        };
        // A node result returned once (directly or as a kernel's output) is written
        // straight into the output.
        let node = produced_by_node(v);
        if let Some(node) = node.filter(|n| !direct_out.contains_key(&(n.ptr as usize))) {
            direct_out.insert(node.ptr as usize, out);
        } else {
            copies.push((v, out));
        }
    }
    let c_interface = b.unit_attr();
    let host = b.function(entry, &params, true, &[("llvm.emit_c_interface", c_interface)]);
    ir::append(module, host.0);
    let mut g = Gen {
        b,
        bufs,
        tuples: HashMap::new(),
        allocs: Vec::new(),
        symbols: crate::host::Symbols::of_module(module),
        direct_out,
        inline: HashMap::new(),
        recomputed: HashMap::new(),
        row_scratch: Default::default(),
        runtime_symbols: BTreeSet::new(),
        parallel: options.parallel,
        parallel_min_work: if options.parallel_min_work > 0 {
            options.parallel_min_work
        } else {
            PARALLEL_WORK
        },
        fp32_in_kernels: options.fp32_in_kernels,
        prefix: entry.clone(),
        params,
        first_kernel: None,
        host,
        func: Function {
            entry: host.1,
            globals: BTreeMap::new(),
            param_offset: 0,
        },
    };
    g.lower_ops(&ops)?;
    // The host function: its calls are in; the copies of results that are not written
    // in place close it.
    g.func = Function {
        entry: g.host.1,
        globals: BTreeMap::new(),
        param_offset: 0,
    };
    g.b.at(ir::location(ret));
    g.b.push(g.host.1);
    for (v, out) in copies {
        let src = g.buffer(ret, v)?;
        let (s, d) = (g.val(&src), g.val(&out));
        g.b.op("memref.copy", &[s, d], &[], &[]);
    }
    g.b.close("func.return", &[]);
    kernels::prune_unused_params(module, &g.symbols);
    // The globals, before the first function that uses them.
    let anchor = g.first_kernel.unwrap_or(g.host.0);
    for (i, buf) in g.allocs.iter().enumerate() {
        let name = format!("{entry}_g{i}");
        let attributes = [
            ("sym_name", g.b.string_attr(&name)),
            ("sym_visibility", g.b.string_attr("private")),
            ("type", g.b.type_attr(memref(&g.b, &buf.ty))),
            ("initial_value", g.b.unit_attr()),
            ("alignment", g.b.int_attr(g.b.int_type(64), 64)),
        ];
        let global = ir::create(
            "memref.global",
            ir::location(func),
            &[],
            &[],
            &attributes,
            Vec::new(),
        );
        ir::insert_before(anchor, global);
    }
    Ok((signature, g.runtime_symbols))
}

/// The upstream passes that lower the CPU module to the LLVM dialect (the CPU target's
/// `llvm` stage). There is no `arith-expand`: it rewrote the NaN-propagating
/// `arith.maximumf`/`minimumf` of row max/min reductions into compare + select, which
/// LLVM does not vectorize as a reduction; as `llvm.maximum`/`llvm.minimum` they
/// vectorize (log_softmax_nll 8.9 -> 2.6 ms, softmax 11.8 -> 4.5 ms on this VM, NaN
/// propagation unchanged: test/Execution/edge-cases.mlir under --jit).
///
/// A parallel step's `scf.parallel` becomes an OpenMP worksharing loop
/// (`convert-scf-to-openmp`: `omp.parallel` + `omp.wsloop`, run by the LLVM OpenMP
/// runtime's persistent thread pool); `finalize-memref-to-llvm` runs before
/// `convert-scf-to-cf` because the parallel body is a `memref.alloca_scope`, which must
/// keep a single block until it is lowered. The MLIR async runtime
/// (`async-parallel-for`) was slower than one thread on every row workload (layernorm
/// 1.6 -> 3.8 ms on 2 cores); OpenMP: 1.6 -> 0.8-0.9 ms.
pub const UPSTREAM_PIPELINE: &str =
    "convert-scf-to-openmp,lower-affine,expand-strided-metadata,finalize-memref-to-llvm,\
    convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,\
    convert-cf-to-llvm,convert-func-to-llvm,convert-openmp-to-llvm,reconcile-unrealized-casts";

/// [`UPSTREAM_PIPELINE`] as a whole-module pipeline.
pub fn upstream_lowering() -> String {
    format!("builtin.module({UPSTREAM_PIPELINE})")
}
