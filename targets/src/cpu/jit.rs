//! A JIT for `loop` IR: `--lower-loop-to-cpu`'s code
//! ([`super::lower_loop_to_cpu`]) lowered with upstream passes
//! ([`upstream_lowering`]: scf.parallel to OpenMP, affine/scf/math/memref/arith/func to
//! the LLVM dialect), given the target's code generation choices
//! ([`super::codegen_choices`]: fma contraction, the preferred vector width) and compiled
//! by MLIR's `ExecutionEngine` at -O3 (LLVM's vectorizer on the host CPU). The engine is
//! given the generated code's runtime: `fuselab_sgemm` ([`super::blas`]: OpenBLAS or
//! matrixmultiply) and, for parallel steps, the LLVM OpenMP runtime.
//! [`Jit::call`] runs the host function on host buffers through its C interface.

use super::blas::{fuselab_sgemm, fuselab_sgemm_parallel};
use super::codegen_choices::CodegenChoices;
use super::lower_loop_to_cpu::{
    host_signature, stage_options, upstream_lowering, CpuOptions, HostSignature, CONV, SGEMM, SGEMM_SERIAL,
};
use super::runtime::openmp_runtime;
use fuselab_dialects::build::OwnedModule;
use fuselab_dialects::types::{DType, TensorType};
use fuselab_exec::{tensor::Tensor, ExecError};
use melior::{
    ir::{operation::OperationLike as _, Module},
    pass::PassManager,
    utility::{parse_pass_pipeline, register_all_llvm_translations, register_all_passes},
    ContextRef, ExecutionEngine,
};
use mlir_sys::MlirOperation;

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
    entry: String,
    inputs: Vec<TensorType>,
    outputs: Vec<TensorType>,
}

/// A host buffer in the element type the JIT'd code reads.
#[derive(Clone, Debug)]
pub enum HostBuffer {
    /// f32 elements.
    F32(Vec<f32>),
    /// f16 elements (IEEE binary16 bits).
    F16(Vec<u16>),
    /// bf16 elements (bfloat16 bits).
    BF16(Vec<u16>),
    /// i64 elements.
    I64(Vec<i64>),
    /// i32 elements.
    I32(Vec<i32>),
    /// Bools as bytes.
    I1(Vec<u8>),
}

impl HostBuffer {
    /// A zeroed buffer for `ty`.
    pub fn zeros(ty: &TensorType) -> Self {
        let n = ty.numel().max(1) as usize;
        match ty.dtype {
            DType::F32 => Self::F32(vec![0.0; n]),
            DType::F16 => Self::F16(vec![0; n]),
            DType::BF16 => Self::BF16(vec![0; n]),
            DType::I64 => Self::I64(vec![0; n]),
            DType::I32 => Self::I32(vec![0; n]),
            DType::I1 => Self::I1(vec![0; n]),
        }
    }

    /// From a tensor.
    pub fn from_tensor(t: &Tensor) -> Self {
        match t.dtype {
            DType::F32 => Self::F32(t.data.iter().map(|&v| v as f32).collect()),
            DType::F16 => Self::F16(t.data.iter().map(|&v| half::f16::from_f64(v).to_bits()).collect()),
            DType::BF16 => Self::BF16(
                t.data
                    .iter()
                    .map(|&v| half::bf16::from_f64(v).to_bits())
                    .collect(),
            ),
            DType::I64 => Self::I64(t.data.iter().map(|&v| v as i64).collect()),
            DType::I32 => Self::I32(t.data.iter().map(|&v| v as i32).collect()),
            DType::I1 => Self::I1(t.data.iter().map(|&v| u8::from(v != 0.0)).collect()),
        }
    }

    /// To a tensor of `ty`.
    pub fn to_tensor(&self, ty: &TensorType) -> Tensor {
        let data: Vec<f64> = match self {
            Self::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Self::F16(v) => v.iter().map(|&x| half::f16::from_bits(x).to_f64()).collect(),
            Self::BF16(v) => v.iter().map(|&x| half::bf16::from_bits(x).to_f64()).collect(),
            Self::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Self::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Self::I1(v) => v.iter().map(|&x| f64::from(x & 1)).collect(),
        };
        Tensor::new(ty.shape.clone(), ty.dtype, data[..ty.numel() as usize].to_vec())
    }

    fn descriptor(&mut self) -> Descriptor {
        let (ptr, len) = match self {
            Self::F32(v) => (v.as_mut_ptr() as *mut u8, v.len()),
            Self::F16(v) | Self::BF16(v) => (v.as_mut_ptr() as *mut u8, v.len()),
            Self::I64(v) => (v.as_mut_ptr() as *mut u8, v.len()),
            Self::I32(v) => (v.as_mut_ptr() as *mut u8, v.len()),
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
    /// Generates (`--lower-loop-to-cpu`), lowers and JIT-compiles the `loop` function
    /// `func` at -O3, on one thread.
    pub fn compile(func: MlirOperation) -> Result<Self, ExecError> {
        Self::compile_with(func, CpuOptions::default())
    }

    /// [`Jit::compile`] with code generator options: a copy of `func` through the CPU
    /// target's stages (`codegen`, `llvm`, `choices`: [`super::STAGES`], run by
    /// [`crate::stages::run`] as every driver runs them, with `options` as the stages'
    /// options), then compiled as built (no printing and re-parsing).
    pub fn compile_with(func: MlirOperation, options: CpuOptions) -> Result<Self, ExecError> {
        let signature = host_signature(func).map_err(|e| match e.op {
            Some(op) => ExecError::at(op, e.message),
            None => ExecError::msg(e.message),
        })?;
        let module = crate::stages::copy_into_module(func);
        let request = crate::stages::StageRequest {
            options: stage_options(options),
            ..Default::default()
        };
        crate::stages::run(&super::CPU, module.operation(), &request)?;
        // SAFETY: the module is owned here and destroyed once, by `Module`.
        let module = unsafe { Module::from_raw(module.into_raw()) };
        Self::engine(module, signature, options.parallel)
    }

    /// JIT-compiles a module of upstream ops (in a context with every upstream dialect,
    /// such as [`fuselab_dialects::FuseContext`]'s) whose function `signature.entry`
    /// (with `llvm.emit_c_interface`) takes flat 1-D memrefs of the inputs then the
    /// outputs: lowered by [`upstream_lowering`], given `options`, compiled.
    pub fn compile_module(
        module: OwnedModule,
        signature: HostSignature,
        options: CodegenChoices,
    ) -> Result<Self, ExecError> {
        // SAFETY: the module's context outlives this call (the caller holds the module's
        // IR).
        let context = unsafe { ContextRef::from_raw(mlir_sys::mlirOperationGetContext(module.operation())) };
        let context = unsafe { context.to_ref() };
        register_all_passes();
        // SAFETY: the module is owned here and destroyed once, by `Module`.
        let mut module = unsafe { Module::from_raw(module.into_raw()) };
        let manager = PassManager::new(context);
        parse_pass_pipeline(manager.as_operation_pass_manager(), &upstream_lowering())
            .map_err(|e| ExecError::msg(format!("bad lowering pipeline: {e}")))?;
        manager
            .run(&mut module)
            .map_err(|_| ExecError::msg("lowering the CPU module to LLVM failed"))?;
        super::codegen_choices::apply(module.as_operation().to_raw(), options).map_err(ExecError::msg)?;
        if !module.as_operation().verify() {
            return Err(ExecError::msg("the lowered CPU module does not verify"));
        }
        Self::engine(module, signature, false)
    }

    /// The engine of a module in the LLVM dialect; with `parallel`, the GEMMs the code
    /// calls are split over threads ([`super::blas::fuselab_sgemm_parallel`]), as its
    /// steps are.
    fn engine(module: Module, signature: HostSignature, parallel: bool) -> Result<Self, ExecError> {
        let HostSignature {
            entry,
            inputs,
            outputs,
        } = signature;
        // SAFETY: the module's context is alive while the module is.
        register_all_llvm_translations(unsafe { module.context().to_ref() });
        let omp = !fuselab_dialects::ir::collect_ops(module.as_operation().to_raw(), |n| n == "omp.parallel")
            .is_empty();
        if omp {
            openmp_runtime()?;
        }
        let engine = ExecutionEngine::new(&module, 3, &[], false, false);
        let sgemm = if parallel {
            fuselab_sgemm_parallel as *mut ()
        } else {
            fuselab_sgemm as *mut ()
        };
        // SAFETY: a function with the C signature the generated declaration has.
        unsafe { engine.register_symbol(SGEMM, sgemm) };
        // SAFETY: the same signature; called from inside parallel loops.
        unsafe { engine.register_symbol(SGEMM_SERIAL, fuselab_sgemm as *mut ()) };
        // SAFETY: `fuselab_conv`'s C signature is the declaration's (CONV_PARAMS i64s
        // -> i32).
        unsafe { engine.register_symbol(CONV, super::dnnl::fuselab_conv as *mut ()) };
        Ok(Self {
            engine,
            entry,
            inputs,
            outputs,
        })
    }

    /// Output buffers of the right types.
    pub fn output_buffers(&self) -> Vec<HostBuffer> {
        self.outputs.iter().map(HostBuffer::zeros).collect()
    }

    /// Calls the compiled function on host buffers (inputs then outputs).
    pub fn call(&self, inputs: &mut [HostBuffer], outputs: &mut [HostBuffer]) -> Result<(), ExecError> {
        if inputs.len() != self.inputs.len() || outputs.len() != self.outputs.len() {
            return Err(ExecError::msg("wrong number of buffers"));
        }
        let descriptors = inputs
            .iter_mut()
            .chain(outputs.iter_mut())
            .map(HostBuffer::descriptor)
            .collect();
        // SAFETY: every descriptor is of a live buffer of the size the function was
        // compiled for.
        unsafe { self.invoke(descriptors) }
    }

    /// Calls the entry with one memref descriptor per input and output.
    ///
    /// # Safety
    /// Each descriptor must describe memory valid for the call, of its argument's size.
    unsafe fn invoke(&self, mut descriptors: Vec<Descriptor>) -> Result<(), ExecError> {
        let mut pointers: Vec<*mut Descriptor> =
            descriptors.iter_mut().map(|d| d as *mut Descriptor).collect();
        let mut args: Vec<*mut ()> = pointers
            .iter_mut()
            .map(|p| p as *mut *mut Descriptor as *mut ())
            .collect();
        // SAFETY: the caller's contract; the descriptors and pointers live through the
        // call.
        unsafe { self.engine.invoke_packed(&self.entry, &mut args) }
            .map_err(|e| ExecError::msg(format!("JIT call failed: {e}")))
    }

    /// The types of the compiled function's inputs and outputs.
    pub fn signature(&self) -> (&[TensorType], &[TensorType]) {
        (&self.inputs, &self.outputs)
    }

    /// Calls the compiled function on buffers it does not own: `buffers` holds each
    /// input's then each output's first element, in the function's order, each a
    /// contiguous array of the element type and size of [`Jit::signature`] (an embedder's
    /// tensors, used in place).
    ///
    /// # Safety
    /// Every pointer must be valid for reads (inputs) or writes (outputs) of its type's
    /// elements for the duration of the call, and no output may overlap another buffer.
    pub unsafe fn call_raw(&self, buffers: &[*mut u8]) -> Result<(), ExecError> {
        if buffers.len() != self.inputs.len() + self.outputs.len() {
            return Err(ExecError::msg(format!(
                "{} buffers given, the function takes {} inputs and {} outputs",
                buffers.len(),
                self.inputs.len(),
                self.outputs.len()
            )));
        }
        let descriptors = buffers
            .iter()
            .zip(self.inputs.iter().chain(&self.outputs))
            .map(|(&ptr, ty)| Descriptor {
                allocated: ptr,
                aligned: ptr,
                offset: 0,
                size: ty.numel().max(1),
                stride: 1,
            })
            .collect();
        // SAFETY: the caller's contract.
        unsafe { self.invoke(descriptors) }
    }

    /// Runs on tensors; returns the outputs.
    pub fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
        let mut ins: Vec<HostBuffer> = inputs.iter().map(HostBuffer::from_tensor).collect();
        let mut outs = self.output_buffers();
        self.call(&mut ins, &mut outs)?;
        Ok(outs
            .iter()
            .zip(&self.outputs)
            .map(|(b, t)| b.to_tensor(t))
            .collect())
    }
}
