//! `--cpu-codegen-choices`: LLVM code generation choices of the CPU target, set on the
//! LLVM-dialect module (after the `llvm` stage's upstream lowering) before the
//! ExecutionEngine compiles it — the JIT applies the same function.
//!
//! Rule (issue 18's two measured causes of slow CPU code, and what Inductor's C++ back
//! end does instead):
//! - **fp-fusion**: the `contract` fast-math flag on every `llvm.fadd`/`fsub`/`fmul`/
//!   `fneg` (merged with the flags already there), so LLVM may fuse a multiply and the
//!   add that uses it into one `fma`. Inductor compiles its C++ with `-ffp-contract=off`
//!   (`config.cpp.enable_floating_point_contract_flag`), but its vectorized math (Sleef)
//!   uses FMA inside; fuselab's math expansions are plain arith, so they get FMA only
//!   through this flag, which also contracts user arithmetic — as Triton's
//!   `enable_fp_fusion` does on the GPU target. One rounding instead of two: never less
//!   accurate per operation.
//! - **vector-width**: `passthrough = [["prefer-vector-width", "N"]]` on every
//!   `llvm.func`; LLVM's X86 tuning keeps 256-bit vectors on AVX-512 server CPUs unless
//!   told, while Inductor's C++ back end picks its AVX-512 `Vectorized` (16 f32 lanes)
//!   on such hosts. `host`: 512 where the host has AVX-512F, else no attribute; `llvm`:
//!   no attribute.

use fuselab_dialects::ir;
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::MlirOperation;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "cpu-codegen-choices",
    summary: "Set the CPU target's LLVM code generation choices on LLVM-dialect functions (fma contraction, preferred vector width)",
    anchor: "builtin.module",
    options: &[
        PassOption {
            name: "fp-fusion",
            kind: OptionKind::Bool,
            default: "true",
            help: "mark float add/sub/mul/neg contractible, so a multiply and its add may become one fma",
        },
        PassOption {
            name: "vector-width",
            kind: OptionKind::String,
            default: "host",
            help: "preferred vector width: host (512 with AVX-512F, else LLVM's), llvm (LLVM's own), 128, 256 or 512",
        },
    ],
    run,
    id: &ID,
};

/// The preferred vector width an option value names (`Err`: not one).
pub fn vector_width(value: &str) -> Result<Option<u32>, String> {
    match value {
        "host" => Ok(host_vector_bits()),
        "llvm" => Ok(None),
        "128" | "256" | "512" => Ok(value.parse().ok()),
        _ => Err(format!(
            "vector-width must be host, llvm, 128, 256 or 512, not '{value}'"
        )),
    }
}

fn run(module: OperationRef<'_, '_>, cx: &PassContext) -> Result<(), PassFailed> {
    let choices = vector_width(cx.options.string("vector-width")).map(|vector_bits| CodegenChoices {
        fp_fusion: cx.options.flag("fp-fusion"),
        vector_bits,
    });
    let result = choices.and_then(|c| apply(module.to_raw(), c));
    result.map_err(|message| {
        cx.sink.error(module.location(), message);
        PassFailed
    })
}

/// LLVM code generation choices of the CPU target, applied to the lowered module before
/// the ExecutionEngine compiles it (issue 18's measured causes: half-width vectors and
/// no multiply-add fusion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodegenChoices {
    /// The `contract` fast-math flag on every floating-point add, sub, mul and neg, so
    /// LLVM may fuse a multiply and the add using it into one `fma` (one rounding
    /// instead of two). On by default, as Triton's `enable_fp_fusion` on the GPU
    /// target; Inductor's C++ back end compiles with `-ffp-contract=off`
    /// (`config.cpp.enable_floating_point_contract_flag`) but its vectorized `exp`,
    /// `sin`, ... (Sleef) use FMA inside, which fuselab's expansions get from this.
    pub fp_fusion: bool,
    /// `prefer-vector-width` of every function: with `Some(512)` LLVM vectorizes with
    /// 512-bit registers (its X86 tuning keeps 256 on AVX-512 server CPUs otherwise).
    /// `None`: LLVM's choice. Default: 512 where the host has AVX-512F, as Inductor's
    /// C++ back end picks its AVX-512 `Vectorized` (16 f32 lanes) there.
    pub vector_bits: Option<u32>,
}

impl Default for CodegenChoices {
    fn default() -> Self {
        Self {
            fp_fusion: true,
            vector_bits: host_vector_bits(),
        }
    }
}

/// The widest vector registers of this host that the default uses: 512 with AVX-512F.
pub fn host_vector_bits() -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        return Some(512);
    }
    None
}

/// The ops [`CodegenChoices::fp_fusion`] marks.
const CONTRACTIBLE: [&str; 4] = ["llvm.fadd", "llvm.fsub", "llvm.fmul", "llvm.fneg"];

/// Applies `options` to the LLVM-dialect `module`.
pub fn apply(module: MlirOperation, options: CodegenChoices) -> Result<(), String> {
    // SAFETY: the module's context is alive for this call.
    let ctx = unsafe { mlir_sys::mlirOperationGetContext(module) };
    let parse =
        |text: &str| ir::parse_attr(ctx, text).ok_or_else(|| format!("cannot build the attribute {text}"));
    if options.fp_fusion {
        for op in ir::collect_ops(module, |n| CONTRACTIBLE.contains(&n)) {
            let mut flags: Vec<String> = ir::attr(op, "fastmathFlags")
                .map(ir::attr_string)
                .and_then(|s| Some(s.strip_prefix("#llvm.fastmath<")?.strip_suffix('>')?.to_string()))
                .map(|s| s.split(',').map(|f| f.trim().to_string()).collect())
                .unwrap_or_default();
            flags.retain(|f| !f.is_empty() && f != "none");
            if flags.iter().any(|f| f == "contract" || f == "fast") {
                continue;
            }
            flags.push("contract".into());
            ir::set_attr(
                op,
                "fastmathFlags",
                parse(&format!("#llvm.fastmath<{}>", flags.join(", ")))?,
            );
        }
    }
    if let Some(bits) = options.vector_bits {
        let width = parse(&format!("[\"prefer-vector-width\", \"{bits}\"]"))?;
        for func in ir::collect_ops(module, |n| n == "llvm.func") {
            // Added to what the function already passes through (a parallel step's
            // rows function: `noinline`), unless it states a width of its own.
            let mut entries: Vec<mlir_sys::MlirAttribute> = ir::attr(func, "passthrough")
                .map(ir::array_elements)
                .unwrap_or_default();
            if entries
                .iter()
                .any(|&e| ir::attr_string(e).contains("prefer-vector-width"))
            {
                continue;
            }
            entries.push(width);
            ir::set_attr(func, "passthrough", ir::array_attr(ctx, &entries));
        }
    }
    Ok(())
}
