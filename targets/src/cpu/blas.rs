//! The BLAS behind `fuselab_sgemm`, the entry point the generated code calls for `mm`,
//! `bmm`, `addmm` and convolution (registered in every engine).
//!
//! oneDNN's `dnnl_sgemm` first where the library loads ([`super::dnnl`]: 0.91–0.94 of
//! OpenBLAS's time on gelu_mlp's GEMMs, 0.75–0.85 on attention's blocks). Without it,
//! chosen by measurement (docs/performance.md): OpenBLAS's `cblas_sgemm`, loaded at run
//! time from the system (`libopenblas.so.0`, Debian's `libopenblas0-serial`, which
//! `scripts/install-deps.sh` installs; set to one thread when it has a pool), took
//! 0.80–0.92 of matrixmultiply's time on the workloads' large GEMMs on this VM and the
//! same or up to 7 % slower on attention's 512×512×64 batches; so calls of fewer than
//! [`OPENBLAS_MIN_MACS`] multiply-adds stay on `matrixmultiply`, which is also the
//! fallback when the library is absent or an operand has no unit stride (cblas needs
//! one per operand). The `gemm` crate 0.18 was 1.35–1.44× slower than matrixmultiply here
//! (its AVX-512 kernels need a nightly compiler).

use super::runtime::{parallel_threads, Library};
use std::ffi::{c_char, c_int};

/// `cblas_sgemm(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)`.
type CblasSgemm = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    f32,
    *const f32,
    c_int,
    *const f32,
    c_int,
    f32,
    *mut f32,
    c_int,
);

/// The smallest GEMM (m·n·k multiply-adds) given to OpenBLAS: measured on this VM,
/// 512·512·64 and 512·64·512 (16.8M) ran 0.99–1.07× matrixmultiply's time there, and
/// 64·3136·576 (116M) and larger 0.80–0.92×.
pub const OPENBLAS_MIN_MACS: i64 = 1 << 25;

const ROW_MAJOR: c_int = 101;
const NO_TRANS: c_int = 111;
const TRANS: c_int = 112;

/// OpenBLAS's kernels for CPUs older than AVX2, which its runtime CPU detection falls
/// back to when it does not know the CPU model (OpenBLAS 0.3.21 reports `Prescott` on
/// this VM's "Intel Xeon Processor" with AVX-512): there its SGEMM took 1.50 s on
/// gelu_mlp against matrixmultiply's 0.37 s and 0.29 s with `OPENBLAS_CORETYPE=SkylakeX`.
const PRE_AVX2_CORES: &[&str] = &[
    "Prescott",
    "Katmai",
    "Coppermine",
    "Northwood",
    "Banias",
    "Core2",
    "Penryn",
    "Dunnington",
    "Nehalem",
    "Atom",
    "Generic",
    "Unknown",
];

/// The OpenBLAS core type this host's instructions call for (`SkylakeX` with AVX-512,
/// `Haswell` with AVX2 and FMA), when `OPENBLAS_CORETYPE` is not set already.
fn host_core_type() -> Option<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::env::var_os("OPENBLAS_CORETYPE").is_some() {
            return None;
        }
        if std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512cd")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx512vl")
        {
            return Some("SkylakeX");
        }
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            return Some("Haswell");
        }
    }
    None
}

/// Tells OpenBLAS which kernels to use (`OPENBLAS_CORETYPE`, read when the library is
/// loaded) from the host's instruction set, unless the user set it: OpenBLAS's own
/// detection goes by CPU model and falls back to pre-AVX2 kernels on models it does not
/// know. Call it at the start of `main`, before any thread is started (it sets an
/// environment variable).
pub fn choose_openblas_core() {
    if let Some(core) = host_core_type() {
        std::env::set_var("OPENBLAS_CORETYPE", core);
    }
}

/// The system's OpenBLAS `cblas_sgemm`, loaded once; `None` without the library, with
/// `FUSELAB_BLAS=matrixmultiply` in the environment (for measuring one against the
/// other), or when OpenBLAS chose pre-AVX2 kernels on a host with AVX2
/// ([`choose_openblas_core`] avoids that; matrixmultiply's AVX2 kernels are 4x faster).
fn openblas() -> Option<CblasSgemm> {
    static SGEMM: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let address = *SGEMM.get_or_init(|| {
        if std::env::var("FUSELAB_BLAS").is_ok_and(|v| v == "matrixmultiply") {
            return None;
        }
        let library = Library::open("libopenblas.so.0")?;
        if let Some(corename) = library.symbol("openblas_get_corename") {
            // SAFETY: OpenBLAS's `char *openblas_get_corename(void)`, a static string.
            let corename: unsafe extern "C" fn() -> *const c_char = unsafe { std::mem::transmute(corename) };
            let name = unsafe { std::ffi::CStr::from_ptr(corename()) }.to_string_lossy();
            let avx2 = {
                #[cfg(target_arch = "x86_64")]
                {
                    std::is_x86_feature_detected!("avx2")
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    false
                }
            };
            if avx2 && PRE_AVX2_CORES.iter().any(|c| c.eq_ignore_ascii_case(&name)) {
                return None;
            }
        }
        if let Some(set_threads) = library.symbol("openblas_set_num_threads") {
            // SAFETY: OpenBLAS's `void openblas_set_num_threads(int)`.
            let set_threads: unsafe extern "C" fn(c_int) = unsafe { std::mem::transmute(set_threads) };
            unsafe { set_threads(1) };
        }
        // The library is never closed (Library has no Drop): the address stays valid.
        library.symbol("cblas_sgemm")
    });
    // SAFETY: the address of OpenBLAS's `cblas_sgemm`, whose C signature is CblasSgemm.
    address.map(|a| unsafe { std::mem::transmute::<usize, CblasSgemm>(a) })
}

/// Which libraries compiled code calls, for reports: oneDNN for GEMMs and
/// convolutions where it loads ([`super::dnnl`]), else OpenBLAS for large GEMMs and
/// matrixmultiply for the rest, convolutions by the generated im2col code.
pub fn describe() -> String {
    if let Some(version) = super::dnnl::version() {
        return format!("GEMM and convolution by oneDNN {version}");
    }
    let gemm = if openblas().is_some() {
        "GEMM by OpenBLAS from 2^25 multiply-adds, else matrixmultiply"
    } else {
        "GEMM by matrixmultiply"
    };
    format!("{gemm}; convolution by im2col + GEMM")
}

/// An operand with row stride `rs` and column stride `cs` as cblas sees it in row-major
/// layout: (transpose flag, leading dimension), when one stride is 1 and the other
/// at least `min_ld` and within `c_int`.
fn cblas_operand(rs: i64, cs: i64, min_ld: i64) -> Option<(c_int, c_int)> {
    let ld = |v: i64| (v >= min_ld.max(1)).then(|| c_int::try_from(v).ok()).flatten();
    if cs == 1 {
        Some((NO_TRANS, ld(rs)?))
    } else if rs == 1 {
        Some((TRANS, ld(cs)?))
    } else {
        None
    }
}

/// One GEMM call: `C = A B + beta C` for `A` m×k, `B` k×n, `C` m×n at addresses `a`,
/// `b`, `c` with (row, column) strides in elements, as the generated code passes it.
#[derive(Clone, Copy, Debug)]
struct Gemm {
    m: i64,
    n: i64,
    k: i64,
    a: i64,
    rsa: i64,
    csa: i64,
    b: i64,
    rsb: i64,
    csb: i64,
    beta: f32,
    c: i64,
    rsc: i64,
    csc: i64,
}

impl Gemm {
    fn macs(&self) -> i64 {
        self.m.saturating_mul(self.n).saturating_mul(self.k)
    }

    /// `len` rows of `C` (and `A`) from `start`, or with `by_columns` `len` columns of
    /// `C` (and `B`): the same GEMM on a band.
    fn band(self, by_columns: bool, start: i64, len: i64) -> Gemm {
        let element = std::mem::size_of::<f32>() as i64;
        if by_columns {
            Gemm {
                n: len,
                b: self.b + start * self.csb * element,
                c: self.c + start * self.csc * element,
                ..self
            }
        } else {
            Gemm {
                m: len,
                a: self.a + start * self.rsa * element,
                c: self.c + start * self.rsc * element,
                ..self
            }
        }
    }

    /// As `threads` bands on scoped threads (the calling thread runs the first), each
    /// with the library choice of the whole: bands of rows, or of columns where `C` is
    /// wider than tall — each thread then packs only its share of the larger operand (a
    /// convolution's 64 × 3136 image from a 576 × 3136 im2col matrix: split by rows,
    /// both threads packed all of it, and resnet_block ran no faster on 2 threads).
    fn run_in_bands(self, threads: usize) {
        let large = self.macs() >= OPENBLAS_MIN_MACS;
        let by_columns = self.n > self.m;
        let extent = if by_columns { self.n } else { self.m };
        let threads = (threads as i64).min(extent);
        if threads < 2 {
            return self.run(large);
        }
        let size = (extent + threads - 1) / threads;
        let part = |start: i64| self.band(by_columns, start, size.min(extent - start));
        std::thread::scope(|scope| {
            let mut first = None;
            for start in (0..extent).step_by(size as usize) {
                let part = part(start);
                if first.is_none() {
                    first = Some(part);
                } else {
                    scope.spawn(move || part.run(large));
                }
            }
            if let Some(part) = first {
                part.run(large);
            }
        });
    }
}

/// Defines an `extern "C"` GEMM entry point with the signature the generated code
/// declares (`fuselab_sgemm(m, n, k, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc)`),
/// which hands the call as a [`Gemm`] to `$run`.
macro_rules! gemm_entry_point {
    ($(#[$attr:meta])* $name:ident => $run:expr) => {
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        pub extern "C" fn $name(
            m: i64, n: i64, k: i64, a: i64, rsa: i64, csa: i64, b: i64, rsb: i64, csb: i64,
            beta: f32, c: i64, rsc: i64, csc: i64,
        ) {
            let run: fn(Gemm) = $run;
            run(Gemm { m, n, k, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc })
        }
    };
}

gemm_entry_point!(
    /// `C = A B + beta C` for `A` m×k, `B` k×n, `C` m×n at the given addresses and (row,
    /// column) strides: the entry point the generated code calls.
    fuselab_sgemm => |gemm| gemm.run(gemm.macs() >= OPENBLAS_MIN_MACS)
);

/// Multiply-adds from which [`fuselab_sgemm_parallel`] splits a GEMM over threads (a
/// thread costs tens of microseconds to start; 2^22 multiply-adds take about a
/// millisecond on one core here).
pub const PARALLEL_MIN_MACS: i64 = 1 << 22;

gemm_entry_point!(
    /// [`fuselab_sgemm`] for code compiled with parallel steps: a GEMM of at least
    /// [`PARALLEL_MIN_MACS`] multiply-adds is split into bands of rows of `C` (columns
    /// where `C` is wider than tall: [`Gemm::run_in_bands`]), one per thread
    /// ([`parallel_threads`]), each a single-threaded GEMM of the same
    /// library choice as the whole; bands write disjoint parts, and each element is still
    /// one dot product over all of `k`.
    fuselab_sgemm_parallel => |gemm| {
        let threads = if gemm.macs() >= PARALLEL_MIN_MACS { parallel_threads() } else { 1 };
        if !gemm.dnnl(threads) {
            gemm.run_in_bands(threads)
        }
    }
);

impl Gemm {
    /// The GEMM by oneDNN on `threads` threads, when the library is there and the
    /// operands' strides suit it (as cblas: [`cblas_operand`]); `false` otherwise,
    /// nothing written.
    fn dnnl(&self, threads: usize) -> bool {
        let Some([(ta, lda), (tb, ldb), (_, ldc)]) = self.blas_operands() else {
            return false;
        };
        let call = super::dnnl::Sgemm {
            m: self.m,
            n: self.n,
            k: self.k,
            a: (self.a as usize as *const f32, ta == TRANS, i64::from(lda)),
            b: (self.b as usize as *const f32, tb == TRANS, i64::from(ldb)),
            beta: self.beta,
            c: (self.c as usize as *mut f32, i64::from(ldc)),
        };
        // SAFETY: the generated code passes addresses inside live buffers, and strides
        // and extents that stay inside them; the leading dimensions are those strides.
        unsafe { super::dnnl::sgemm(call, threads) }
    }

    /// `A`, `B` and `C` as a row-major BLAS call takes them — (transpose flag, leading
    /// dimension) each ([`cblas_operand`]; `C` not transposed) — when every operand has a
    /// unit stride and no extent is 0.
    fn blas_operands(&self) -> Option<[(c_int, c_int); 3]> {
        let a = cblas_operand(self.rsa, self.csa, if self.csa == 1 { self.k } else { self.m })?;
        let b = cblas_operand(self.rsb, self.csb, if self.csb == 1 { self.n } else { self.k })?;
        let c = (self.csc == 1)
            .then_some(())
            .and_then(|_| cblas_operand(self.rsc, self.csc, self.n))?;
        (self.m > 0 && self.n > 0 && self.k > 0).then_some([a, b, c])
    }

    /// The GEMM on this thread: oneDNN where it loads ([`Gemm::dnnl`]), else OpenBLAS
    /// when `large` (and the library and the operands' strides allow), else
    /// matrixmultiply.
    fn run(self, large: bool) {
        if self.dnnl(1) {
            return;
        }
        let Gemm {
            m,
            n,
            k,
            a,
            rsa,
            csa,
            b,
            rsb,
            csb,
            beta,
            c,
            rsc,
            csc,
        } = self;
        let dims = (c_int::try_from(m), c_int::try_from(n), c_int::try_from(k));
        let operands = self.blas_operands();
        if let (true, Some(cblas), (Ok(mi), Ok(ni), Ok(ki)), Some([(ta, lda), (tb, ldb), (_, ldc)])) =
            (large, openblas(), dims, operands)
        {
            // SAFETY: the generated code passes addresses inside live buffers, and strides
            // and extents that stay inside them (the extern's verified shapes and views);
            // the leading dimensions are those strides.
            unsafe {
                cblas(
                    ROW_MAJOR,
                    ta,
                    tb,
                    mi,
                    ni,
                    ki,
                    1.0,
                    a as usize as *const f32,
                    lda,
                    b as usize as *const f32,
                    ldb,
                    beta,
                    c as usize as *mut f32,
                    ldc,
                )
            };
            return;
        }
        // SAFETY: as above.
        unsafe {
            matrixmultiply::sgemm(
                m as usize,
                k as usize,
                n as usize,
                1.0,
                a as usize as *const f32,
                rsa as isize,
                csa as isize,
                b as usize as *const f32,
                rsb as isize,
                csb as isize,
                beta,
                c as usize as *mut f32,
                rsc as isize,
                csc as isize,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The OpenBLAS path (this size is above [`OPENBLAS_MIN_MACS`]) and the
    /// matrixmultiply fallback (a stride that is not 1; or no library) agree with a
    /// plain loop on plain, transposed and strided operands.
    #[test]
    fn sgemm_matches_the_definition_on_every_layout() {
        matches_the_definition(|gemm| gemm.run(gemm.macs() >= OPENBLAS_MIN_MACS));
    }

    /// Bands of rows (3 of 110 rows, whatever the machine's cores) compute the same
    /// GEMM: an offset band or a lost remainder row would fail.
    #[test]
    fn gemm_in_bands_matches_the_definition_on_every_layout() {
        matches_the_definition(|gemm| gemm.run_in_bands(3));
    }

    /// A `C` wider than tall is split in bands of columns (3 of 110 of 330 columns):
    /// the same GEMM.
    #[test]
    fn gemm_in_column_bands_matches_the_definition_on_every_layout() {
        matches_the_definition_at((320, 330, 321), |gemm| {
            assert!(gemm.n > gemm.m);
            gemm.run_in_bands(3)
        });
    }

    fn matches_the_definition(run: fn(Gemm)) {
        matches_the_definition_at((330, 320, 321), run)
    }

    fn matches_the_definition_at((m, n, k): (usize, usize, usize), run: fn(Gemm)) {
        assert!((m * n * k) as i64 >= OPENBLAS_MIN_MACS);
        let a: Vec<f32> = (0..m * k * 2).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..k * n * 2).map(|i| (i as f32 * 0.91).cos()).collect();
        // (rsa, csa, rsb, csb): row-major, A transposed, B transposed, A strided by 2.
        let layouts = [
            (k as i64, 1, n as i64, 1),
            (1, m as i64, n as i64, 1),
            (k as i64, 1, 1, k as i64),
            (2 * k as i64, 2, n as i64, 1),
        ];
        for (rsa, csa, rsb, csb) in layouts {
            let at = |i: usize, p: usize| a[i * rsa as usize + p * csa as usize];
            let bt = |p: usize, j: usize| b[p * rsb as usize + j * csb as usize];
            let mut c = vec![1.0f32; m * n];
            run(Gemm {
                m: m as i64,
                n: n as i64,
                k: k as i64,
                a: a.as_ptr() as i64,
                rsa,
                csa,
                b: b.as_ptr() as i64,
                rsb,
                csb,
                beta: 0.5,
                c: c.as_mut_ptr() as i64,
                rsc: n as i64,
                csc: 1,
            });
            for i in (0..m).step_by(7).chain([109, 110, 219, 220, m - 1]) {
                for j in (0..n).step_by(5).chain([109, 110, 219, 220, n - 1]) {
                    let want: f64 = 0.5 + (0..k).map(|p| at(i, p) as f64 * bt(p, j) as f64).sum::<f64>();
                    let got = c[i * n + j] as f64;
                    assert!(
                        (got - want).abs() < 1e-3,
                        "{:?} ({i},{j}): {got} vs {want}",
                        (rsa, csa, rsb, csb)
                    );
                }
            }
        }
    }

    #[test]
    fn cblas_needs_a_unit_stride_and_a_wide_enough_leading_dimension() {
        assert_eq!(cblas_operand(8, 1, 8), Some((NO_TRANS, 8)));
        assert_eq!(cblas_operand(1, 5, 5), Some((TRANS, 5)));
        assert_eq!(cblas_operand(16, 2, 8), None);
        assert_eq!(cblas_operand(4, 1, 8), None);
    }
}
