//! The GPU target's last stage: the `gpu.module` of `--lower-tile-to-gpu` to PTX.
//!
//! 1. upstream MLIR on a copy of the module: `math-expand-ops{ops=powf}` (pow as exp and
//!    log), fuselab's `arith` expansions of exp/log/tanh/erf/sin/cos ([`crate::math`];
//!    NVVM would otherwise call libdevice, which is not linked), then `lower-affine`,
//!    `convert-scf-to-cf` (without pattern rollback), `convert-math-to-llvm` (fabs, sqrt, floor, ... as LLVM
//!    intrinsics, which NVPTX selects natively), `convert-gpu-to-nvvm` with bare-pointer
//!    kernel arguments, `reconcile-unrealized-casts`;
//! 2. the LLVM dialect translated to LLVM IR (`mlirTranslateModuleToLLVMIR`), handed to
//!    inkwell;
//! 3. LLVM's `default<O3>` pipeline and the NVPTX target machine (`sm_90a`, `+ptx80`)
//!    emitting assembly: the PTX text.
//!
//! Fast math as Triton and Inductor's libdevice calls do it: f32 `exp` is libdevice's
//! `expf` scheme, one `ex2.approx.ftz` after an exact argument reduction ([`ex2_exp`];
//! Triton's `tl.exp`, `ex2.approx` of `x * log2(e)`, as an option), f32 `erf` a fitted
//! polynomial and one exp ([`gpu_erf`]), f32 `/` is `div.full.f32` ([`fast_div`]), and a multiply feeding an add may become one `fma` (Triton's
//! `enable_fp_fusion`, on by default: the LLVM target machine's `AllowFPOpFusion = Fast`;
//! here the `contract` flag on every floating-point add, sub, mul and neg, which lets the
//! same DAG combine fire — [`PtxOptions::fp_fusion`]). Nothing else is approximate: no
//! other fast-math flag, sqrt stays IEEE (`sqrt.rn`), log/tanh/erf/sin/cos are fuselab's
//! expansions.

use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{
    build::{rewrite, Builder, OwnedModule},
    ir,
};
use fuselab_passes::{parse_declared, target::EmitError, OptionKind, PassOption, PassOptions};
use inkwell::{
    context::Context as LlvmContext,
    module::Module as LlvmModule,
    passes::PassBuilderOptions,
    targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetTriple},
    OptimizationLevel,
};
use melior::{
    pass::PassManager,
    utility::{parse_pass_pipeline, register_all_llvm_translations, register_all_passes},
    ContextRef,
};
use mlir_sys::MlirOperation;

/// Why PTX could not be made.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{0}")]
pub struct PtxError(pub String);

/// The chip and PTX version (the H200).
pub const CHIP: &str = "sm_90a";
/// PTX ISA features.
pub const FEATURES: &str = "+ptx80";

/// The upstream lowering of the kernels to the LLVM and NVVM dialects.
/// `convert-scf-to-cf` runs without pattern rollback: with it, the dialect conversion
/// records every op that `splitBlock` moves at each `scf.if` so it could undo it, which
/// is quadratic in a block of many `scf.if`s (a 60-op reduction chain's warp variants:
/// 13.1 s and 3.9 GB, now 0.9 s). The pass's patterns (`IfLowering`, `ForLowering`, ...
/// in upstream `SCFToControlFlow.cpp`) either fail before changing the IR or succeed, so
/// no rollback is ever needed.
pub const NVVM_PIPELINE: &str =
    "builtin.module(gpu.module(lower-affine,convert-scf-to-cf{allow-pattern-rollback=0},convert-math-to-llvm,\
convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}),reconcile-unrealized-casts)";

fn run_pipeline(module: MlirOperation, pipeline: &str) -> Result<(), PtxError> {
    // SAFETY: the module's context is alive for this call.
    let context = unsafe { ContextRef::from_raw(mlir_sys::mlirOperationGetContext(module)) };
    let context = unsafe { context.to_ref() };
    register_all_passes();
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        .map_err(|e| PtxError(format!("bad pipeline {pipeline}: {e}")))?;
    let status = unsafe { mlir_sys::mlirPassManagerRunOnOp(manager.to_raw(), module) };
    if status.value == 0 {
        return Err(PtxError(format!("the upstream lowering failed: {pipeline}")));
    }
    Ok(())
}

/// Choices of the PTX stage.
#[derive(Clone, Copy, Debug)]
pub struct PtxOptions {
    /// Contract a multiply and a dependent add into one `fma` (one rounding instead of
    /// two), as Triton's `enable_fp_fusion` (default true) and nvcc's `--fmad=true` do.
    pub fp_fusion: bool,
    /// f32 `exp` as `ex2.approx(x log2 e)` ([`ex2_exp`], Triton's `tl.exp`: the
    /// product's rounding costs |x| 6e-8 relative); false (the default): the argument
    /// reduced exactly first ([`ex2_exp`], libdevice's scheme, ~2 ulp over the range —
    /// Inductor 2.11's kernels call libdevice's `exp`).
    pub approx_exp: bool,
    /// f32 division as `div.full.f32` (2 ulp, full range), as Triton compiles `/` on
    /// f32 (Inductor's kernels in the same run: `div.full.f32` in their PTX); false:
    /// IEEE `div.rn.f32`. fuselab's own expansions (log, tanh, erf) keep IEEE division.
    pub approx_div: bool,
}

/// The PTX stage's options (`fuse-opt --target=gpu --emit=ptx`, `fuse-gpu`'s
/// `--fp-fusion`, `--approx-exp`, `--approx-div`): the one place their defaults are
/// written.
pub static PTX_OPTIONS: &[PassOption] = &[
    PassOption {
        name: "fp-fusion",
        kind: OptionKind::Bool,
        default: "true",
        help: "Contract a multiply and a dependent add into one fma (Triton's enable_fp_fusion)",
    },
    PassOption {
        name: "approx-exp",
        kind: OptionKind::Bool,
        default: "false",
        help: "f32 exp as ex2.approx(x*log2 e), as Triton's tl.exp (false: libdevice's expf scheme)",
    },
    PassOption {
        name: "approx-div",
        kind: OptionKind::Bool,
        default: "true",
        help: "f32 division as div.full.f32, as Triton compiles '/' (false: IEEE div.rn.f32)",
    },
];

impl Default for PtxOptions {
    /// [`PTX_OPTIONS`]' declared defaults.
    fn default() -> Self {
        PtxOptions::from_options(
            &parse_declared("ptx", PTX_OPTIONS, "").expect("the PTX stage's declared defaults parse"),
        )
    }
}

impl PtxOptions {
    /// The choices of the PTX stage's `options` (parsed against [`PTX_OPTIONS`]).
    pub fn from_options(options: &PassOptions) -> Self {
        PtxOptions {
            fp_fusion: options.flag("fp-fusion"),
            approx_exp: options.flag("approx-exp"),
            approx_div: options.flag("approx-div"),
        }
    }

    /// These choices as the PTX stage's option text (`fp-fusion=true approx-exp=false
    /// approx-div=true`).
    pub fn option_text(&self) -> String {
        format!(
            "fp-fusion={} approx-exp={} approx-div={}",
            self.fp_fusion, self.approx_exp, self.approx_div
        )
    }
}

/// The PTX stage ([`super::STAGES`]): PTX of the module's kernels
/// ([`crate::gpu::lower_tile_to_gpu::KERNEL_MODULE`]) with the stage's options.
pub fn ptx_stage(module: MlirOperation, options: &PassOptions) -> Result<String, EmitError> {
    emit_ptx(
        module,
        crate::gpu::lower_tile_to_gpu::KERNEL_MODULE,
        PtxOptions::from_options(options),
    )
    .map_err(|e| EmitError {
        op: None,
        message: e.to_string(),
    })
}

/// PTX for the `gpu.module` named `name` in `module` (left unchanged).
pub fn emit_ptx(module: MlirOperation, name: &str, options: PtxOptions) -> Result<String, PtxError> {
    let kernels = ir::collect_ops(module, |n| n == "gpu.module")
        .into_iter()
        .find(|&m| {
            ir::attr(m, "sym_name")
                .and_then(fuselab_dialects::attrs::string_raw)
                .as_deref()
                == Some(name)
        });
    let Some(kernels) = kernels else {
        // No kernel (a function whose results are its inputs, or only library calls):
        // a PTX module without entries, if the host plan has no launch.
        if !ir::collect_ops(module, |n| n == tile_op::LAUNCH).is_empty() {
            return Err(PtxError(format!(
                "no gpu.module @{name}: run --lower-tile-to-gpu first"
            )));
        }
        return Ok(format!(".version 8.0\n.target {CHIP}\n.address_size 64\n"));
    };
    let scratch = OwnedModule::new(ir::location(kernels));
    let copy = ir::clone(kernels);
    ir::append(scratch.body(), copy);
    run_pipeline(
        scratch.operation(),
        "builtin.module(gpu.module(math-expand-ops{ops=powf}))",
    )?;
    if options.approx_div {
        fast_div(scratch.operation());
    }
    gpu_erf(scratch.operation());
    gpu_tanh(scratch.operation());
    ex2_exp(scratch.operation(), !options.approx_exp);
    branching_sin_cos(scratch.operation());
    crate::math::expand_math_ops(scratch.operation());
    native_intrinsics(scratch.operation());
    run_pipeline(scratch.operation(), NVVM_PIPELINE)?;
    // The kernels' LLVM-dialect functions, as a module of their own.
    let llvm_module = OwnedModule::new(ir::location(kernels));
    for op in ir::block_ops(ir::body(copy).ok_or_else(|| PtxError("empty gpu.module".into()))?) {
        ir::detach(op);
        ir::append(llvm_module.body(), op);
    }
    translate(&llvm_module, options)
}

/// f32 `math.exp(x)` through `ex2.approx`: with `exact_reduction` false as
/// `ex2.approx.f32(x * log2(e))`, as Triton lowers `tl.exp` on NVIDIA GPUs (2 ulp for
/// the power of two; the product's rounding adds |x| 6e-8 relative); with it
/// [`crate::math::Math::exp_base2`] over [`Nvptx`], the argument reduced exactly first
/// (libdevice's `expf` scheme, the `libdevice.exp` Inductor's kernels call, within ~2
/// ulp over the range). ±inf, NaN and subnormal results behave as exp's either way.
fn ex2_exp(root: MlirOperation, exact_reduction: bool) {
    rewrite_f32(root, &["math.exp"], |b, args, _| {
        if exact_reduction {
            return crate::math::Math { b }.exp_base2(args[0], &Nvptx);
        }
        let log2e = b.f32(std::f32::consts::LOG2_E);
        let scaled = b.binary("arith.mulf", args[0], log2e);
        intrinsic(b, "llvm.nvvm.ex2.approx.f32", &[scaled], ir::value_type(args[0]))
    });
}

/// f32 `math.tanh` as [`crate::math::Math::tanh`] with its exp left a `math.exp`, which
/// [`ex2_exp`] then lowers as every other exp of the kernels.
fn gpu_tanh(root: MlirOperation) {
    rewrite_f32(root, &["math.tanh"], |b, args, _| {
        crate::math::Math { b }.tanh_from_exp(args[0], |m, a| {
            let ty = ir::value_type(a);
            m.b.value("math.exp", &[a], ty, &[])
        })
    });
}

/// Replaces every op of `root` named in `names` whose result is f32 by what `build`
/// makes of its operands (and its name): the f32 rewrites of this stage; ops of other
/// types keep theirs.
fn rewrite_f32(
    root: MlirOperation,
    names: &[&str],
    build: impl Fn(&mut Builder, &[mlir_sys::MlirValue], &str) -> mlir_sys::MlirValue,
) {
    for op in ir::collect_ops(root, |n| names.contains(&n)) {
        if !unsafe { mlir_sys::mlirTypeIsAF32(ir::value_type(ir::result(op, 0))) } {
            continue;
        }
        let (args, name) = (ir::operands(op), ir::op_name(op));
        rewrite(op, |b| Some(build(b, &args, &name)));
    }
}

/// The NVPTX instructions [`crate::math::Math::exp_base2`] is written for:
/// `ex2.approx.ftz.f32` (one MUFU op; the non-ftz form adds a rescaling around it for
/// subnormal results, which the scheme never needs from it), `fma.rm.f32`,
/// `cvt.sat.f32.f32`.
struct Nvptx;

impl crate::math::ExpPrimitives for Nvptx {
    fn pow2(&self, b: &mut Builder, f: mlir_sys::MlirValue) -> mlir_sys::MlirValue {
        let ty = ir::value_type(f);
        intrinsic(b, "llvm.nvvm.ex2.approx.ftz.f32", &[f], ty)
    }

    fn fma_down(
        &self,
        b: &mut Builder,
        a: mlir_sys::MlirValue,
        m: mlir_sys::MlirValue,
        c: mlir_sys::MlirValue,
    ) -> mlir_sys::MlirValue {
        let ty = ir::value_type(a);
        intrinsic(b, "llvm.nvvm.fma.rm.f", &[a, m, c], ty)
    }

    fn saturate(&self, b: &mut Builder, x: mlir_sys::MlirValue) -> mlir_sys::MlirValue {
        let ty = ir::value_type(x);
        intrinsic(b, "llvm.nvvm.saturate.f", &[x], ty)
    }
}

/// f32 `math.erf` as [`crate::math::Math::erf_gpu`] (its `exp` then lowered by
/// [`ex2_exp`]): no division, one `ex2` (the CPU target keeps [`crate::math::Math::erf`]).
fn gpu_erf(root: MlirOperation) {
    rewrite_f32(root, &["math.erf"], |b, args, _| {
        crate::math::Math { b }.erf_gpu(args[0])
    });
}

/// f32 `arith.divf` as `llvm.nvvm.div.full` (`div.full.f32`), as Triton lowers `/`.
fn fast_div(root: MlirOperation) {
    rewrite_f32(root, &["arith.divf"], |b, args, _| {
        intrinsic(b, "llvm.nvvm.div.full", args, ir::value_type(args[0]))
    });
}

/// f32 `math.sin` / `math.cos` as [`crate::math::Math::sin_cos_branching`]: f32 for
/// |x| < 4096, the f64 expansion otherwise (the CPU target keeps the branch-free f64
/// form, which vectorizes).
fn branching_sin_cos(root: MlirOperation) {
    rewrite_f32(root, &["math.sin", "math.cos"], |b, args, name| {
        crate::math::Math { b }.sin_cos_branching(args[0], name == "math.cos")
    });
}

/// `llvm.call_intrinsic "name"(args) : ty`.
fn intrinsic(
    b: &mut Builder,
    name: &str,
    args: &[mlir_sys::MlirValue],
    ty: mlir_sys::MlirType,
) -> mlir_sys::MlirValue {
    let attributes = [
        ("intrin", b.string_attr(name)),
        ("op_bundle_sizes", b.i32_array_attr(&[])),
        ("operandSegmentSizes", b.i32_array_attr(&[args.len() as i32, 0])),
    ];
    b.value("llvm.call_intrinsic", args, ty, &attributes)
}

/// Replaces the `math` ops that NVPTX implements natively (fabs, sqrt, floor, ceil,
/// roundeven, trunc, copysign; rsqrt as 1 / sqrt) by calls of the LLVM intrinsics:
/// `convert-gpu-to-nvvm` would call libdevice for them (and rejects the LLVM-dialect
/// intrinsic ops), and libdevice is not linked here.
fn native_intrinsics(root: MlirOperation) {
    let ops = ir::collect_ops(root, |n| {
        matches!(
            n,
            "math.absf"
                | "math.sqrt"
                | "math.floor"
                | "math.ceil"
                | "math.roundeven"
                | "math.trunc"
                | "math.copysign"
                | "math.rsqrt"
        )
    });
    for op in ops {
        let ty = ir::value_type(ir::result(op, 0));
        let suffix = unsafe {
            if mlir_sys::mlirTypeIsAF32(ty) {
                "f32"
            } else if mlir_sys::mlirTypeIsAF64(ty) {
                "f64"
            } else {
                continue;
            }
        };
        let name = ir::op_name(op);
        let intrinsic = match name.as_str() {
            "math.absf" => "fabs",
            "math.sqrt" | "math.rsqrt" => "sqrt",
            "math.floor" => "floor",
            "math.ceil" => "ceil",
            "math.roundeven" => "roundeven",
            "math.trunc" => "trunc",
            _ => "copysign",
        };
        let mut b = Builder::new(ir::location(op));
        let scratch = ir::new_block(&[], ir::location(op));
        b.push(scratch);
        let operands = ir::operands(op);
        let attributes = [
            ("intrin", b.string_attr(&format!("llvm.{intrinsic}.{suffix}"))),
            ("op_bundle_sizes", b.i32_array_attr(&[])),
            (
                "operandSegmentSizes",
                b.i32_array_attr(&[operands.len() as i32, 0]),
            ),
        ];
        let mut v = b.value("llvm.call_intrinsic", &operands, ty, &attributes);
        if name == "math.rsqrt" {
            let one = b.constant(b.float_attr(ty, 1.0), ty);
            v = b.binary("arith.divf", one, v);
        }
        for new in ir::block_ops(scratch) {
            ir::detach(new);
            ir::insert_before(op, new);
        }
        ir::replace_uses(ir::result(op, 0), v);
        ir::erase(op);
        unsafe { mlir_sys::mlirBlockDestroy(scratch) };
    }
}

fn translate(module: &OwnedModule, options: PtxOptions) -> Result<String, PtxError> {
    let context = unsafe { ContextRef::from_raw(mlir_sys::mlirOperationGetContext(module.operation())) };
    register_all_llvm_translations(unsafe { context.to_ref() });
    let llvm = LlvmContext::create();
    // SAFETY: an LLVM context handle is the same pointer in both bindings.
    let raw = unsafe {
        mlir_sys::mlirTranslateModuleToLLVMIR(module.operation(), llvm.raw() as mlir_sys::LLVMContextRef)
    };
    if raw.is_null() {
        return Err(PtxError("the kernels do not translate to LLVM IR".into()));
    }
    // SAFETY: a module just created in `llvm`, owned by the wrapper from here on.
    let llvm_module: LlvmModule =
        unsafe { LlvmModule::new(raw as inkwell::llvm_sys::prelude::LLVMModuleRef) };
    Target::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create("nvptx64-nvidia-cuda");
    let target = Target::from_triple(&triple).map_err(|e| PtxError(format!("no NVPTX target: {e}")))?;
    let machine = target
        .create_target_machine(
            &triple,
            CHIP,
            FEATURES,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| PtxError("cannot create the NVPTX target machine".into()))?;
    llvm_module.set_triple(&triple);
    llvm_module.set_data_layout(&machine.get_target_data().get_data_layout());
    llvm_module
        .verify()
        .map_err(|e| PtxError(format!("the kernels' LLVM IR does not verify: {e}")))?;
    if options.fp_fusion {
        allow_contraction(&llvm_module);
    }
    llvm_module
        .run_passes("default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| PtxError(format!("LLVM's O3 pipeline failed: {e}")))?;
    let buffer = machine
        .write_to_memory_buffer(&llvm_module, FileType::Assembly)
        .map_err(|e| PtxError(format!("the NVPTX back end failed: {e}")))?;
    let ptx = String::from_utf8_lossy(buffer.as_slice()).into_owned();
    let missing = extern_functions(&ptx);
    if !missing.is_empty() {
        return Err(PtxError(format!(
            "the kernels call {}, which nothing defines (libdevice is not linked): \
             the device could not load them",
            missing.join(", ")
        )));
    }
    Ok(ptx)
}

/// The functions `ptx` declares `.extern` (calls it does not define).
pub fn extern_functions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter(|l| l.trim_start().starts_with(".extern .func"))
        .filter_map(|l| {
            // `.extern .func (.param .b32 func_retval0) NAME` or `.extern .func NAME(`.
            let after = l.rsplit(')').next().unwrap_or(l);
            let before = after.split('(').next().unwrap_or(after);
            before.split_whitespace().last().map(str::to_string)
        })
        .collect()
}

/// Sets the `contract` fast-math flag on every floating-point add, sub, mul and neg of
/// `module`: LLVM may then fuse a multiply and the add that uses it into one `fma`
/// (what `AllowFPOpFusion = Fast`, the target-machine option Triton sets, allows
/// globally; inkwell's target machine does not expose that option).
fn allow_contraction(module: &LlvmModule) {
    use inkwell::values::{FastMathFlags, InstructionOpcode};
    for function in module.get_functions() {
        for block in function.get_basic_blocks() {
            for inst in block.get_instructions() {
                if !matches!(
                    inst.get_opcode(),
                    InstructionOpcode::FAdd
                        | InstructionOpcode::FSub
                        | InstructionOpcode::FMul
                        | InstructionOpcode::FNeg
                ) {
                    continue;
                }
                if let Ok(flags) = inst.get_fast_math_flags() {
                    // Cannot fail: the instruction takes fast-math flags (just read).
                    let _ = inst.set_fast_math_flags(flags | FastMathFlags::AllowContract);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn undefined_calls_are_found() {
        let ptx = ".extern .func  (.param .b32 func_retval0) __nv_fmaxf\n(\n\t.param .b32 a\n);\n.visible .entry k()\n{\n}\n";
        assert_eq!(super::extern_functions(ptx), vec!["__nv_fmaxf".to_string()]);
        assert!(super::extern_functions(".visible .entry k()\n{\n}\n").is_empty());
        assert_eq!(
            super::extern_functions(".extern .func f(\n);"),
            vec!["f".to_string()]
        );
    }
}
