//! The CPU target: fused `loop` IR lowered to upstream `scf`/`memref`/`arith`/`math`
//! ([`lower_loop_to_cpu`], with the vectorizable [`crate::math`] expansions), then by upstream
//! passes to the LLVM dialect, given the target's code generation choices (fma
//! contraction, 512-bit vectors on AVX-512 hosts: [`codegen_choices`]) and compiled by
//! MLIR's ExecutionEngine ([`jit`]).
//!
//! Fusion legality: the code generator runs a kernel's members in row nests, so it
//! takes the SIMD back ends' iteration-space rule (`simd_can_fuse`, the default of
//! [`Target::can_fuse`]); Inductor's C++ back end has rules of its own (cpp.py), not
//! modelled here. No input or on-chip limit. Costs: this class of machine, one core.

pub mod blas;
pub mod codegen_choices;
pub mod dnnl;
pub mod jit;
pub mod lower_loop_to_cpu;
pub mod runtime;

use crate::{CompileOptions, Executable, Runner};
use codegen_choices::CodegenChoices;
use fuselab_dialects::types::DType;
use fuselab_exec::{ExecError, Tensor};
use fuselab_passes::target::{Costs, InductorBackend, Stage, Target};
use jit::{HostBuffer, Jit};
use lower_loop_to_cpu::CpuOptions;
use mlir_sys::MlirOperation;

/// The CPU target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

/// The table entry.
pub static CPU: Cpu = Cpu;

/// The stages: fuselab's code generator, then upstream MLIR to the LLVM dialect.
static STAGES: &[Stage] = &[
    Stage::passes("codegen", "lower-loop-to-cpu"),
    Stage::passes("llvm", lower_loop_to_cpu::UPSTREAM_PIPELINE),
    Stage::passes("choices", "cpu-codegen-choices"),
];

impl Target for Cpu {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn summary(&self) -> &'static str {
        "this machine: loop IR -> scf/memref/arith/math -> LLVM JIT (ExecutionEngine)"
    }

    /// One core streaming from DRAM: the 64 MiB copy roofline that `fuse-run --bench`
    /// measures was 10–25 GB/s on the project's 2-core VMs (docs/performance.md), so 10
    /// GB/s, conservatively; a call of a kernel function is an estimate (a direct call
    /// plus its `memref.get_global`s, ~50 ns), not a measurement.
    fn costs(&self) -> Costs {
        Costs {
            bytes_per_second: 10e9,
            launch_seconds: 50e-9,
        }
    }

    fn stages(&self) -> &'static [Stage] {
        STAGES
    }

    /// Inductor's C++ back end (the `InductorBackend` impl below).
    fn backend(&self) -> &dyn InductorBackend {
        self
    }
}

impl InductorBackend for Cpu {
    /// Inductor's C++ back end: one function per run of kernels between library calls.
    fn groups_kernels_between_library_calls(&self) -> bool {
        true
    }

    /// Inductor's layout optimization holds on the CPU too (torch 2.15's output code for
    /// resnet_block: `cpp_fused_convolution_0` copies the image and the weights to
    /// channels-last, the convolution's result has strides `(200704, 1, 3584, 64)`);
    /// oneDNN reads the copies as they are (`dnnl::fuselab_conv`).
    fn converts_convolutions_to_channels_last(&self) -> bool {
        true
    }

    /// PyTorch's CPU flash attention (`_scaled_dot_product_flash_attention_for_cpu`,
    /// which Inductor keeps as a library call) where sdp_utils_cpp's
    /// `use_flash_attention_cpp` takes the inputs: query, key and value head dims equal
    /// (`check_head_dim_size_cpp`). PyTorch runs it for f64 and the half types too; the
    /// CPU code generator computes attention in f32 only, so those keep the math form.
    fn fused_attention(&self, dtype: DType, head_dims: &[i64]) -> bool {
        dtype == DType::F32 && head_dims.iter().all(|&d| d > 0 && Some(&d) == head_dims.first())
    }

    /// `_sfdp_params_check` has no dtype condition on the CPU (its TF32 check is CUDA's).
    fn rewrites_attention_patterns(&self, dtype: DType) -> bool {
        dtype.is_float()
    }
}

impl Runner for Cpu {
    /// Parallel steps: `scf.parallel` row chunks on OpenMP.
    fn runs_parallel_steps(&self) -> bool {
        true
    }

    /// oneDNN, or OpenBLAS / matrixmultiply and im2col ([`blas::describe`]).
    fn libraries(&self) -> Option<String> {
        Some(blas::describe())
    }

    fn compile(
        &self,
        func: MlirOperation,
        options: CompileOptions,
    ) -> Result<Box<dyn Executable>, ExecError> {
        compile_jit(func, options, false)
    }
}

/// `func` through the CPU code generator and JIT with a runner's `options`;
/// `fp32_in_kernels`: [`CpuOptions::fp32_in_kernels`] (the Ascend target's numerics).
pub fn compile_jit(
    func: MlirOperation,
    options: CompileOptions,
    fp32_in_kernels: bool,
) -> Result<Box<dyn Executable>, ExecError> {
    Ok(Box::new(Jit::compile_with(
        func,
        cpu_options(options, fp32_in_kernels),
    )?))
}

/// The CPU code generator's options for a runner's `options`; `fp32_in_kernels`:
/// [`CpuOptions::fp32_in_kernels`].
pub fn cpu_options(options: CompileOptions, fp32_in_kernels: bool) -> CpuOptions {
    CpuOptions {
        parallel: options.parallel,
        parallel_min_work: options.parallel_min_work,
        jit: CodegenChoices {
            fp_fusion: options.fp_fusion,
            vector_bits: options.vector_bits,
        },
        fp32_in_kernels,
        interleave: options.interleave,
    }
}

impl Executable for Jit {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
        Jit::run(self, inputs)
    }

    fn time(&self, inputs: &[Tensor], runs: usize) -> Result<Vec<f64>, ExecError> {
        let mut ins: Vec<HostBuffer> = inputs.iter().map(HostBuffer::from_tensor).collect();
        let mut outs = self.output_buffers();
        self.call(&mut ins, &mut outs)?;
        (0..runs.max(1))
            .map(|_| {
                let start = std::time::Instant::now();
                self.call(&mut ins, &mut outs)?;
                Ok(start.elapsed().as_secs_f64())
            })
            .collect()
    }
}
