//! The GPU target (an NVIDIA H200, sm_90a): fused `loop` IR to `tile` kernels
//! ([`crate::lower_loop_to_tile`], shared with the Ascend lowering), then to upstream `gpu`/`arith`/`memref`/`scf`
//! ([`lower_tile_to_gpu`]), then through MLIR's NVVM lowering and LLVM's NVPTX back end
//! (inkwell) to PTX ([`ptx`]); [`bundle`] writes the PTX with a launch manifest that
//! `tools/gpu/run.py` runs on the device. No runner here: this machine has no GPU.
//!
//! Fusion legality: Triton's iteration-space rule (`simd_can_fuse`, the default of
//! [`Target::can_fuse`]). Costs: the H200's measured copy bandwidth and a launch.

pub mod bundle;
pub mod lower_tile_to_gpu;
pub mod ptx;
pub mod warp_variants;

use fuselab_dialects::types::DType;
use fuselab_passes::target::{Costs, InductorBackend, Stage, Target};

/// The GPU target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gpu;

/// The table entry.
pub static GPU: Gpu = Gpu;

/// The stages: loop to tile kernels, tile to upstream gpu, then PTX.
static STAGES: &[Stage] = &[
    Stage::passes("tile", "lower-loop-to-tile"),
    Stage::passes("variants", "tile-warp-variants").optional(),
    Stage::passes("gpu", "lower-tile-to-gpu"),
    Stage::emit("ptx", ptx::ptx_stage, ptx::PTX_OPTIONS),
];

impl Target for Gpu {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn summary(&self) -> &'static str {
        "NVIDIA H200 (sm_90a): loop IR -> tile kernels -> gpu/nvvm -> LLVM NVPTX -> PTX (run by tools/gpu/run.py)"
    }

    /// HBM copy bandwidth measured on the H200 (4.25 TB/s, ../shared/anchors.md) and a
    /// kernel launch without CUDA graphs (about 4 µs host-side, same source).
    fn costs(&self) -> Costs {
        Costs {
            bytes_per_second: 4.25e12,
            launch_seconds: 4e-6,
        }
    }

    fn stages(&self) -> &'static [Stage] {
        STAGES
    }

    /// Inductor's Triton back end on this GPU (the `InductorBackend` impl below).
    fn backend(&self) -> &dyn InductorBackend {
        self
    }
}

impl InductorBackend for Gpu {
    /// Inductor's reduction splits on the H200's 132 SMs
    /// ([`fuselab_passes::backend::gpu_reduction_split`]).
    fn reduction_split(&self, numel: i64, rnumel: i64, outer: bool) -> i64 {
        fuselab_passes::backend::gpu_reduction_split(numel, rnumel, outer, 132)
    }

    /// Inductor unrolls tiny single-output reductions on GPUs.
    fn unrolls_single_output_reductions(&self) -> bool {
        true
    }

    /// Inductor unfuses a bias add consumed by pointwise ops on GPUs.
    fn prefers_unfused_bias_add(&self) -> bool {
        true
    }

    /// Inductor's layout optimization: 2-D convolutions run channels-last on GPUs.
    fn converts_convolutions_to_channels_last(&self) -> bool {
        true
    }

    /// Inductor convolves without the bias on GPUs and adds it in a pointwise kernel.
    fn peels_convolution_bias(&self) -> bool {
        true
    }

    /// PyTorch's memory-efficient attention on an sm_90 GPU (aten/src/ATen/native/
    /// transformers/cuda/sdp_utils.cpp, `use_mem_efficient_attention`): f32, f16 or bf16
    /// inputs whose head dims are multiples of `minimum_gemm_alignment` — 4 elements
    /// (sm80+) widened to 128 bits when tensor cores are used: 4 for f32, 8 for half.
    /// Flash attention would take half inputs first; it is a library call too.
    fn fused_attention(&self, dtype: DType, head_dims: &[i64]) -> bool {
        let alignment = if dtype.is_half() { 8 } else { 4 };
        dtype.is_float() && head_dims.iter().all(|&d| d > 0 && d % alignment == 0)
    }

    /// CUDA's `lstm_cell` / `gru_cell` call the fused cell kernels (RNN.cpp, every
    /// floating dtype: `AT_DISPATCH_FLOATING_TYPES_AND2(Half, BFloat16)`).
    fn fused_rnn_cells(&self, dtype: DType) -> bool {
        dtype.is_float()
    }

    /// Inductor reorders loops after fusion on GPUs (`loop_ordering_after_fusion`).
    fn reorders_loops(&self) -> bool {
        true
    }
}
