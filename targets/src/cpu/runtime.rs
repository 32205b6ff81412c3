//! What the CPU target's compiled code runs with in this process: shared libraries
//! loaded at run time ([`Library`]: OpenBLAS, oneDNN, the OpenMP runtime), the OpenMP
//! runtime itself ([`openmp_runtime`]) and the threads parallel code uses
//! ([`parallel_threads`]). The JIT, the BLAS entry points and oneDNN all depend on it;
//! it depends on none of them.

use fuselab_exec::ExecError;
use std::ffi::{c_char, c_int, c_void, CString};

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// A loaded shared library (never closed).
pub(crate) struct Library(*mut c_void);

// SAFETY: a dlopen handle may be used from any thread.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

impl Library {
    /// Loads `path` (`RTLD_NOW`), or `None`.
    pub(crate) fn open(path: &str) -> Option<Library> {
        Self::open_with(path, false)
    }

    /// Loads `path` (`RTLD_NOW`, with `RTLD_GLOBAL` when `global`: its symbols then
    /// resolve the JIT's calls), or `None`.
    pub(crate) fn open_with(path: &str, global: bool) -> Option<Library> {
        const RTLD_NOW: c_int = 2;
        const RTLD_GLOBAL: c_int = 0x100;
        let path = CString::new(path).ok()?;
        let flags = if global { RTLD_NOW | RTLD_GLOBAL } else { RTLD_NOW };
        // SAFETY: a NUL-terminated path; the handle is never closed.
        let handle = unsafe { dlopen(path.as_ptr(), flags) };
        (!handle.is_null()).then_some(Library(handle))
    }

    /// The process's global scope (`RTLD_DEFAULT`): [`Library::symbol`] then finds a
    /// name where the dynamic linker binds it for every library loaded so far.
    pub(crate) fn global_scope() -> Library {
        Library(std::ptr::null_mut())
    }

    /// The address of `name`, or `None`.
    pub(crate) fn symbol(&self, name: &str) -> Option<usize> {
        let name = CString::new(name).ok()?;
        // SAFETY: a live handle and a NUL-terminated name.
        let address = unsafe { dlsym(self.0, name.as_ptr()) };
        (!address.is_null()).then_some(address as usize)
    }
}

/// Loads the LLVM OpenMP runtime (`libomp.so.5` of the LLVM 22 prefix the build used)
/// once, with `RTLD_GLOBAL`: the `__kmpc_*` calls of a parallel step's lowered
/// `omp.parallel` resolve through the process's symbols, which is where the engine
/// looks. The library stays loaded for the life of the process; its thread pool is
/// created on the first parallel region and reused by every later call and engine.
/// oneDNN loads it first too ([`super::dnnl`]), so that its OpenMP calls bind to the same
/// runtime (libomp provides libgomp's `GOMP_*` entry points): one thread pool.
pub(crate) fn openmp_runtime() -> Result<(), ExecError> {
    static RUNTIME: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let prefix = option_env!("MLIR_SYS_220_PREFIX").unwrap_or("/usr/lib/llvm-22");
            let path = format!("{prefix}/lib/libomp.so.5");
            Library::open_with(&path, true).map(|_| ()).ok_or_else(|| {
                format!("cannot load the OpenMP runtime {path} that parallel steps run on (install libomp-22-dev)")
            })
        })
        .clone()
        .map_err(ExecError::msg)
}

/// The threads parallel code uses: `OMP_NUM_THREADS` when set (as the OpenMP runtime
/// that runs the parallel steps), else the machine's.
pub fn parallel_threads() -> usize {
    std::env::var("OMP_NUM_THREADS")
        .ok()
        .and_then(|v| v.split(',').next().and_then(|t| t.trim().parse().ok()))
        .or_else(|| std::thread::available_parallelism().ok().map(usize::from))
        .unwrap_or(1)
        .max(1)
}
