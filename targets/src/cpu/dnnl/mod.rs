//! oneDNN (Debian's `libdnnl2`, 2.x, loaded at run time like OpenBLAS) for the CPU
//! code's GEMMs and convolutions — the library PyTorch's CPU convolutions run on.
//!
//! Chosen by measurement on the 2-core Intel Xeon VM (AVX-512; docs/performance.md):
//! `dnnl_sgemm` took 0.91–0.94 of OpenBLAS's time on gelu_mlp's GEMMs (2048×4096×1024,
//! 1 thread: 95–105 against 104–107 ms) and 0.75–0.85 on attention's blocks
//! (256×512×64, 256×64×512); a convolution primitive (its `brgconv` kernels on blocked
//! layouts, the NCHW operands reordered in and out) 12.4 ms per resnet_block
//! convolution against 17.4 ms for fuselab's im2col + OpenBLAS, on 1 thread.
//!
//! Threads: oneDNN runs on LLVM's OpenMP runtime, the one parallel steps run on (loaded
//! first, globally: its GOMP entry points take dnnl's calls; libgomp only where libomp
//! is missing), and uses
//! `omp_get_max_threads()` threads. Every call here sets that per-thread value to the
//! threads it is given and puts it back afterwards, through the `omp_*` functions the
//! process resolves globally — the ones dnnl's own calls were bound to.
//!
//! The library is optional: without it (or with `FUSELAB_BLAS` naming another BLAS)
//! GEMMs go to OpenBLAS / matrixmultiply ([`super::blas`]) and convolutions to the
//! generated im2col code, which the generated code runs when [`fuselab_conv`] returns 0.

use super::runtime::{parallel_threads, Library};
use std::collections::{hash_map::Entry, HashMap};
use std::ffi::{c_char, c_int, c_void};
use std::sync::{Mutex, OnceLock};

type Status = c_int;
type Handle = *mut c_void;
/// `dnnl_dims_t`: `DNNL_MAX_NDIMS` (12) `int64_t`s.
type Dims = [i64; 12];

/// Room for a `dnnl_memory_desc_t` (696 bytes in 2.6) or a `dnnl_convolution_desc_t`
/// (5,976 bytes), which the library fills through a pointer: never read here.
#[repr(C, align(64))]
struct Opaque([u8; 8192]);

impl Opaque {
    fn new() -> Box<Opaque> {
        Box::new(Opaque([0; 8192]))
    }

    fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
}

/// `dnnl_exec_arg_t`.
#[repr(C)]
struct ExecArg {
    arg: c_int,
    memory: Handle,
}

const SUCCESS: Status = 0;
const ENGINE_CPU: c_int = 1;
const STREAM_DEFAULT: u32 = 1;
const F32: c_int = 3;
const FORMAT_ANY: c_int = 1;
const FORWARD_INFERENCE: c_int = 96;
const CONVOLUTION_DIRECT: c_int = 1;
const QUERY_SRC_MD: c_int = 129;
const QUERY_WEIGHTS_MD: c_int = 131;
const QUERY_DST_MD: c_int = 133;
const ARG_SRC: c_int = 1;
const ARG_DST: c_int = 17;
const ARG_WEIGHTS: c_int = 33;
const ARG_BIAS: c_int = 41;
const ARG_FROM: c_int = ARG_SRC;
const ARG_TO: c_int = ARG_DST;
/// `DNNL_MEMORY_ALLOCATE`: the library allocates the buffer.
const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

/// The plain row-major format tag of a tensor of `rank` dims (`dnnl_a`, `dnnl_ab`, ...).
fn plain_tag(rank: usize) -> Option<c_int> {
    [2, 3, 4, 5, 7, 8].get(rank.checked_sub(1)?).copied()
}

macro_rules! api {
    ($($name:ident: fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// The library's entry points this module calls.
        #[allow(non_snake_case)]
        struct Api {
            $($name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
            omp_get_max_threads: unsafe extern "C" fn() -> c_int,
            omp_set_num_threads: unsafe extern "C" fn(c_int),
        }

        impl Api {
            fn load(library: &Library, global: &Library) -> Option<Api> {
                // SAFETY: each symbol is the library's C function of the declared type
                // (oneDNN 2.x, `dnnl.h`); the library is never closed.
                unsafe {
                    Some(Api {
                        $($name: std::mem::transmute::<usize, unsafe extern "C" fn($($arg),*) $(-> $ret)?>(
                            library.symbol(stringify!($name))?,
                        ),)*
                        omp_get_max_threads: std::mem::transmute::<usize, unsafe extern "C" fn() -> c_int>(
                            global.symbol("omp_get_max_threads")?,
                        ),
                        omp_set_num_threads: std::mem::transmute::<usize, unsafe extern "C" fn(c_int)>(
                            global.symbol("omp_set_num_threads")?,
                        ),
                    })
                }
            }
        }
    };
}

api! {
    dnnl_sgemm: fn(c_char, c_char, i64, i64, i64, f32, *const f32, i64, *const f32, i64, f32, *mut f32, i64) -> Status;
    dnnl_engine_create: fn(*mut Handle, c_int, usize) -> Status;
    dnnl_stream_create: fn(*mut Handle, Handle, u32) -> Status;
    dnnl_stream_wait: fn(Handle) -> Status;
    dnnl_memory_desc_init_by_tag: fn(*mut c_void, c_int, *const i64, c_int, c_int) -> Status;
    dnnl_memory_desc_init_by_strides: fn(*mut c_void, c_int, *const i64, c_int, *const i64) -> Status;
    dnnl_memory_desc_equal: fn(*const c_void, *const c_void) -> c_int;
    dnnl_dilated_convolution_forward_desc_init: fn(
        *mut c_void, c_int, c_int, *const c_void, *const c_void, *const c_void, *const c_void,
        *const i64, *const i64, *const i64, *const i64
    ) -> Status;
    dnnl_primitive_desc_create: fn(*mut Handle, *const c_void, Handle, Handle, Handle) -> Status;
    dnnl_primitive_desc_query_md: fn(Handle, c_int, c_int) -> *const c_void;
    dnnl_reorder_primitive_desc_create: fn(*mut Handle, *const c_void, Handle, *const c_void, Handle, Handle) -> Status;
    dnnl_primitive_create: fn(*mut Handle, Handle) -> Status;
    dnnl_primitive_execute: fn(Handle, Handle, c_int, *const ExecArg) -> Status;
    dnnl_memory_create: fn(*mut Handle, *const c_void, Handle, *mut c_void) -> Status;
    dnnl_memory_set_data_handle: fn(Handle, *mut c_void) -> Status;
    dnnl_version: fn() -> *const c_int;
    dnnl_primitive_destroy: fn(Handle) -> Status;
    dnnl_primitive_desc_destroy: fn(Handle) -> Status;
    dnnl_memory_destroy: fn(Handle) -> Status;
}

/// The loaded library: its entry points, one CPU engine and one stream.
struct Dnnl {
    api: Api,
    engine: Handle,
    stream: Handle,
}

// SAFETY: the engine and stream are only used under `CONVS`' lock or by `dnnl_sgemm`,
// which does not touch them; the function pointers are plain code addresses.
unsafe impl Send for Dnnl {}
unsafe impl Sync for Dnnl {}

/// Which BLAS `FUSELAB_BLAS` asks for: unset or `dnnl` lets oneDNN take GEMMs where it
/// loads; `openblas` or `matrixmultiply` keeps it out (for measuring one against another).
fn wanted() -> bool {
    std::env::var("FUSELAB_BLAS").map_or(true, |v| v == "dnnl")
}

/// oneDNN, loaded once (after LLVM's OpenMP runtime, both `RTLD_GLOBAL`: its `omp_*`
/// then resolve globally, to the runtime it calls), or `None`.
fn dnnl() -> Option<&'static Dnnl> {
    static DNNL: OnceLock<Option<Dnnl>> = OnceLock::new();
    DNNL.get_or_init(|| {
        if !wanted() {
            return None;
        }
        // LLVM's OpenMP runtime first, global: dnnl's `GOMP_*` / `omp_*` calls then bind
        // to it, the runtime parallel steps run on — one thread pool. Bound to its own
        // libgomp instead (loaded before libomp, or with RTLD_DEEPBIND), the two pools'
        // spinning workers competed: resnet_block on 2 threads 16.0-16.1 ms against
        // 11.5-11.9 (docs/performance.md). Without libomp dnnl takes its libgomp.
        let _ = super::runtime::openmp_runtime();
        let library = Library::open_with("libdnnl.so.2", true)?;
        let api = Api::load(&library, &Library::global_scope())?;
        let (mut engine, mut stream) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: out-pointers to handles; the engine outlives the stream (never freed).
        unsafe {
            ok((api.dnnl_engine_create)(&mut engine, ENGINE_CPU, 0))?;
            ok((api.dnnl_stream_create)(&mut stream, engine, STREAM_DEFAULT))?;
        }
        Some(Dnnl { api, engine, stream })
    })
    .as_ref()
}

/// The loaded library's version (`2.6.3`), or `None` when it is not used.
pub fn version() -> Option<String> {
    let d = dnnl()?;
    // SAFETY: `dnnl_version()` returns a static `dnnl_version_t`, which starts with the
    // ints major, minor and patch.
    let v = unsafe { std::slice::from_raw_parts((d.api.dnnl_version)(), 3) };
    Some(format!("{}.{}.{}", v[0], v[1], v[2]))
}

impl Dnnl {
    /// Runs `f` with the calling thread's OpenMP thread count set to `threads`, then
    /// puts the previous count back.
    fn with_threads<R>(&self, threads: usize, f: impl FnOnce() -> R) -> R {
        let threads = c_int::try_from(threads.max(1)).unwrap_or(c_int::MAX);
        // SAFETY: the OpenMP runtime's thread-count getter and setter.
        let saved = unsafe { (self.api.omp_get_max_threads)() };
        if saved != threads {
            unsafe { (self.api.omp_set_num_threads)(threads) };
        }
        let result = f();
        if saved != threads {
            unsafe { (self.api.omp_set_num_threads)(saved) };
        }
        result
    }
}

/// One row-major `dnnl_sgemm` call: `C = op(A) op(B) + beta C`, `C` m×n with leading
/// dimension `ldc`; each operand `(transposed, leading dimension)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sgemm {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub a: (*const f32, bool, i64),
    pub b: (*const f32, bool, i64),
    pub beta: f32,
    pub c: (*mut f32, i64),
}

/// Runs `gemm` on `threads` threads; `false` (nothing written) without the library or
/// when it refuses the call.
///
/// # Safety
/// The pointers, extents and leading dimensions must describe live buffers.
pub(crate) unsafe fn sgemm(gemm: Sgemm, threads: usize) -> bool {
    let Some(d) = dnnl() else { return false };
    let t = |transposed: bool| if transposed { b'T' } else { b'N' } as c_char;
    d.with_threads(threads, || {
        // SAFETY: as the caller promises.
        unsafe {
            (d.api.dnnl_sgemm)(
                t(gemm.a.1),
                t(gemm.b.1),
                gemm.m,
                gemm.n,
                gemm.k,
                1.0,
                gemm.a.0,
                gemm.a.2,
                gemm.b.0,
                gemm.b.2,
                gemm.beta,
                gemm.c.0,
                gemm.c.1,
            ) == SUCCESS
        }
    })
}

/// A convolution's shape: what its oneDNN primitive is made for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ConvShape {
    spatial: usize,
    batch: i64,
    cin: i64,
    cout: i64,
    groups: i64,
    input: Vec<i64>,
    kernel: Vec<i64>,
    output: Vec<i64>,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    /// The input's element strides (NCHW-like order: a channels-last copy has a unit
    /// channel stride) and the weight's.
    input_strides: Vec<i64>,
    weight_strides: Vec<i64>,
    /// The result's element strides (contiguous, or channels-last: `result_order`).
    output_strides: Vec<i64>,
    bias: bool,
    threads: usize,
}

impl std::fmt::Display for ConvShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "input [{}, {}, {:?}], {} outputs, kernel {:?}, stride {:?}, padding {:?}, dilation {:?}, groups {}{}",
            self.batch,
            self.cin,
            self.input,
            self.cout,
            self.kernel,
            self.stride,
            self.padding,
            self.dilation,
            self.groups,
            if self.bias { ", a bias" } else { "" }
        )
    }
}

/// A convolution primitive for one [`ConvShape`] with the reorders between the caller's
/// plain (NCHW-like) buffers and the layouts the primitive chose: user memories get the
/// call's pointers; the primitive's own are allocated by the library.
struct ConvPlan {
    /// Everything the plan made, destroyed with it (held only for its `Drop`).
    _owned: Owned,
    conv: Handle,
    user: [Handle; 4],
    inner: [Handle; 3],
    /// Reorders of source and weights into `inner` and of the result out of it (`None`
    /// where the primitive takes the plain layout).
    reorders: [Option<Handle>; 3],
}

// SAFETY: a plan is used only under `CONVS`' lock.
unsafe impl Send for ConvPlan {}

/// The library objects a plan made: primitive descriptors, primitives and memories,
/// destroyed when it is dropped (also when making it failed halfway).
#[derive(Default)]
struct Owned {
    descs: Vec<Handle>,
    primitives: Vec<Handle>,
    memories: Vec<Handle>,
}

impl Owned {
    /// The primitive of the descriptor `pd`; both are kept to be destroyed with the plan.
    ///
    /// # Safety
    /// `pd` is a primitive descriptor the library made, owned by nothing else.
    unsafe fn primitive(&mut self, api: &Api, pd: Handle) -> Option<Handle> {
        self.descs.push(pd);
        let mut primitive = std::ptr::null_mut();
        // SAFETY: an out-pointer and a live descriptor.
        ok(unsafe { (api.dnnl_primitive_create)(&mut primitive, pd) })?;
        self.primitives.push(primitive);
        Some(primitive)
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        let Some(d) = dnnl() else { return };
        // SAFETY: handles this plan created and nothing else holds; each destroyed once.
        unsafe {
            for &p in &self.primitives {
                (d.api.dnnl_primitive_destroy)(p);
            }
            for &m in &self.memories {
                (d.api.dnnl_memory_destroy)(m);
            }
            for &pd in &self.descs {
                (d.api.dnnl_primitive_desc_destroy)(pd);
            }
        }
    }
}

/// The plans made so far (`None`: oneDNN refused the shape; the generated im2col code
/// runs it).
static CONVS: Mutex<Option<HashMap<ConvShape, Option<ConvPlan>>>> = Mutex::new(None);

/// The most plans kept: past it the cache starts again (a fuzzing run compiles many
/// shapes, and each plan holds its blocked copies of source and result).
const MAX_PLANS: usize = 64;

fn ok(status: Status) -> Option<()> {
    (status == SUCCESS).then_some(())
}

impl ConvShape {
    fn plan(&self, d: &Dnnl) -> Option<ConvPlan> {
        let api = &d.api;
        let dims = |v: &[i64]| {
            let mut out: Dims = [0; 12];
            out[..v.len()].copy_from_slice(v);
            out
        };
        let mut src = vec![self.batch, self.cin];
        src.extend_from_slice(&self.input);
        let mut dst = vec![self.batch, self.cout];
        dst.extend_from_slice(&self.output);
        // Grouped weights are [g, cout/g, cin/g, k...]: the same memory as aten's.
        let mut wei = Vec::new();
        if self.groups > 1 {
            wei.push(self.groups);
        }
        wei.extend_from_slice(&[self.cout / self.groups, self.cin / self.groups]);
        wei.extend_from_slice(&self.kernel);
        // The weight's strides over those dims: a group is cout/g output channels apart.
        let mut wei_strides = Vec::new();
        if self.groups > 1 {
            wei_strides.push(self.weight_strides[0] * (self.cout / self.groups));
        }
        wei_strides.extend_from_slice(&self.weight_strides);
        // A channels-last input is handed to the primitive as it is (oneDNN's kernels
        // take NHWC-like sources: no reorder); other inputs go through the layout the
        // primitive chooses.
        let channels_last = self.input_strides.get(1) == Some(&1) && self.spatial > 0;
        let stride = dims(&self.stride);
        let padding = dims(&self.padding);
        let dilation: Vec<i64> = self.dilation.iter().map(|d| d - 1).collect();
        let dilation = dims(&dilation);
        let mut descs: Vec<Box<Opaque>> = (0..7).map(|_| Opaque::new()).collect();
        let mut owned = Owned::default();
        // SAFETY: every descriptor is written by the library into its own Opaque, which
        // outlives the calls that read it; handles are out-pointers.
        unsafe {
            let init_strided = |md: &mut Opaque, shape: &[i64], strides: &[i64]| {
                let (full, strides) = (dims(shape), dims(strides));
                ok((api.dnnl_memory_desc_init_by_strides)(
                    md.ptr(),
                    shape.len() as c_int,
                    full.as_ptr(),
                    F32,
                    strides.as_ptr(),
                ))
            };
            let init = |md: &mut Opaque, shape: &[i64], tag: c_int| {
                let full = dims(shape);
                ok((api.dnnl_memory_desc_init_by_tag)(
                    md.ptr(),
                    shape.len() as c_int,
                    full.as_ptr(),
                    F32,
                    tag,
                ))
            };
            let [user_src, user_wei, user_dst, user_bias, any_src, any_wei, any_dst] = &mut descs[..] else {
                return None;
            };
            init_strided(user_src, &src, &self.input_strides)?;
            init_strided(user_wei, &wei, &wei_strides)?;
            init_strided(user_dst, &dst, &self.output_strides)?;
            init(user_bias, &[self.cout], plain_tag(1)?)?;
            // The primitive's source: the caller's channels-last layout, or its choice.
            let src_md = if channels_last {
                user_src.ptr()
            } else {
                init(any_src, &src, FORMAT_ANY)?;
                any_src.ptr()
            };
            init(any_wei, &wei, FORMAT_ANY)?;
            init(any_dst, &dst, FORMAT_ANY)?;
            let mut op = Opaque::new();
            let bias_md = if self.bias {
                user_bias.ptr()
            } else {
                std::ptr::null_mut()
            };
            ok((api.dnnl_dilated_convolution_forward_desc_init)(
                op.ptr(),
                FORWARD_INFERENCE,
                CONVOLUTION_DIRECT,
                src_md,
                any_wei.ptr(),
                bias_md,
                any_dst.ptr(),
                stride.as_ptr(),
                dilation.as_ptr(),
                padding.as_ptr(),
                padding.as_ptr(),
            ))?;
            let mut pd = std::ptr::null_mut();
            ok((api.dnnl_primitive_desc_create)(
                &mut pd,
                op.ptr(),
                std::ptr::null_mut(),
                d.engine,
                std::ptr::null_mut(),
            ))?;
            let conv = owned.primitive(api, pd)?;
            let chosen = [QUERY_SRC_MD, QUERY_WEIGHTS_MD, QUERY_DST_MD]
                .map(|q| (api.dnnl_primitive_desc_query_md)(pd, q, 0));
            let memory = |owned: &mut Owned, md: *const c_void, handle: *mut c_void| {
                let mut m = std::ptr::null_mut();
                ok((api.dnnl_memory_create)(&mut m, md, d.engine, handle))?;
                owned.memories.push(m);
                Some(m)
            };
            let user = [
                memory(&mut owned, user_src.ptr(), std::ptr::null_mut())?,
                memory(&mut owned, user_wei.ptr(), std::ptr::null_mut())?,
                memory(&mut owned, user_dst.ptr(), std::ptr::null_mut())?,
                memory(&mut owned, user_bias.ptr(), std::ptr::null_mut())?,
            ];
            let mut inner = [std::ptr::null_mut(); 3];
            let mut reorders = [None; 3];
            for (i, (user_md, md)) in [user_src.ptr(), user_wei.ptr(), user_dst.ptr()]
                .into_iter()
                .zip(chosen)
                .enumerate()
            {
                if md.is_null() {
                    return None;
                }
                if (api.dnnl_memory_desc_equal)(user_md, md) != 0 {
                    inner[i] = user[i];
                    continue;
                }
                inner[i] = memory(&mut owned, md, ALLOCATE)?;
                // Into the primitive's layout for source and weights, out of it for the result.
                let (from, to) = if i < 2 {
                    (user_md as *const c_void, md)
                } else {
                    (md, user_md as *const c_void)
                };
                let mut rpd = std::ptr::null_mut();
                ok((api.dnnl_reorder_primitive_desc_create)(
                    &mut rpd,
                    from,
                    d.engine,
                    to,
                    d.engine,
                    std::ptr::null_mut(),
                ))?;
                reorders[i] = Some(owned.primitive(api, rpd)?);
            }
            Some(ConvPlan {
                _owned: owned,
                conv,
                user,
                inner,
                reorders,
            })
        }
    }
}

impl ConvPlan {
    /// Runs the plan on the caller's buffers; `None` if a call failed.
    ///
    /// # Safety
    /// The pointers must be live buffers of the plan's shape.
    unsafe fn run(&self, d: &Dnnl, buffers: [*mut c_void; 4]) -> Option<()> {
        let api = &d.api;
        for (memory, pointer) in self.user.iter().zip(buffers) {
            if !pointer.is_null() {
                ok((api.dnnl_memory_set_data_handle)(*memory, pointer))?;
            }
        }
        let execute = |primitive: Handle, args: &[(c_int, Handle)]| {
            let args: Vec<ExecArg> = args
                .iter()
                .map(|&(arg, memory)| ExecArg { arg, memory })
                .collect();
            ok((api.dnnl_primitive_execute)(
                primitive,
                d.stream,
                args.len() as c_int,
                args.as_ptr(),
            ))
        };
        let reorder = |i: usize, from: Handle, to: Handle| match self.reorders[i] {
            Some(reorder) => execute(reorder, &[(ARG_FROM, from), (ARG_TO, to)]),
            None => Some(()),
        };
        for i in 0..2 {
            reorder(i, self.user[i], self.inner[i])?;
        }
        let mut args = vec![
            (ARG_SRC, self.inner[0]),
            (ARG_WEIGHTS, self.inner[1]),
            (ARG_DST, self.inner[2]),
        ];
        if !buffers[3].is_null() {
            args.push((ARG_BIAS, self.user[3]));
        }
        execute(self.conv, &args)?;
        reorder(2, self.inner[2], self.user[2])?;
        ok((api.dnnl_stream_wait)(d.stream))
    }
}

/// `y = conv(x, w) + b` for f32 NCHW-like tensors (1 to 3 spatial dims; `x` and `w`
/// read with the given element strides — a channels-last copy as it is; `y` written
/// with its strides, contiguous or channels-last;
/// `b` 0 for no bias; aten's padding on both sides, its dilation, `groups`), on `threads` threads
/// (0: [`parallel_threads`]). Returns 1 when oneDNN computed `y`, 0 when
/// it did not (no library, a shape it refuses: said once per shape on stderr): the
/// generated code then runs its own im2col convolution. The entry point the generated code calls (`fuselab_conv`).
#[allow(clippy::too_many_arguments)]
pub extern "C" fn fuselab_conv(
    spatial: i64,
    batch: i64,
    cin: i64,
    cout: i64,
    groups: i64,
    i0: i64,
    i1: i64,
    i2: i64,
    k0: i64,
    k1: i64,
    k2: i64,
    o0: i64,
    o1: i64,
    o2: i64,
    s0: i64,
    s1: i64,
    s2: i64,
    p0: i64,
    p1: i64,
    p2: i64,
    d0: i64,
    d1: i64,
    d2: i64,
    xs0: i64,
    xs1: i64,
    xs2: i64,
    xs3: i64,
    xs4: i64,
    ws0: i64,
    ws1: i64,
    ws2: i64,
    ws3: i64,
    ws4: i64,
    ys0: i64,
    ys1: i64,
    ys2: i64,
    ys3: i64,
    ys4: i64,
    threads: i64,
    x: i64,
    w: i64,
    b: i64,
    y: i64,
) -> i32 {
    let Some(d) = dnnl() else { return 0 };
    if !(1..=3).contains(&spatial) || groups < 1 || cin % groups != 0 || cout % groups != 0 {
        return 0;
    }
    let n = spatial as usize;
    let threads = if threads <= 0 {
        parallel_threads()
    } else {
        threads as usize
    };
    let shape = ConvShape {
        spatial: n,
        batch,
        cin,
        cout,
        groups,
        input: [i0, i1, i2][..n].to_vec(),
        kernel: [k0, k1, k2][..n].to_vec(),
        output: [o0, o1, o2][..n].to_vec(),
        stride: [s0, s1, s2][..n].to_vec(),
        padding: [p0, p1, p2][..n].to_vec(),
        dilation: [d0, d1, d2][..n].to_vec(),
        input_strides: [xs0, xs1, xs2, xs3, xs4][..n + 2].to_vec(),
        weight_strides: [ws0, ws1, ws2, ws3, ws4][..n + 2].to_vec(),
        output_strides: [ys0, ys1, ys2, ys3, ys4][..n + 2].to_vec(),
        bias: b != 0,
        threads,
    };
    let Ok(mut plans) = CONVS.lock() else { return 0 };
    let plans = plans.get_or_insert_with(HashMap::new);
    if plans.len() >= MAX_PLANS && !plans.contains_key(&shape) {
        plans.clear();
    }
    d.with_threads(threads, || {
        let plan = match plans.entry(shape) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(new) => {
                let plan = new.key().plan(d);
                if plan.is_none() {
                    // Once per shape: the result is still right (the im2col code
                    // computes it), but slower, and a test can tell which code ran.
                    eprintln!(
                        "fuselab: oneDNN refused a convolution ({}); the generated im2col code runs it",
                        new.key()
                    );
                }
                new.insert(plan)
            }
        };
        let buffers = [x, w, y, b].map(|p| p as usize as *mut c_void);
        // SAFETY: the generated code passes live buffers of the convolution's shape.
        match plan.as_ref().map(|plan| unsafe { plan.run(d, buffers) }) {
            Some(Some(())) => 1,
            _ => 0,
        }
    })
}

#[cfg(test)]
mod tests;
