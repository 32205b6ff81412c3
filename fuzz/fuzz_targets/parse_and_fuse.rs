//! Arbitrary bytes as MLIR text: parse, verify, run every fusion strategy's pipeline and
//! `--lower-loop-to-cpu`. Diagnostics are fine; a panic or a crash is a finding.
//!
//! The target has its own `main`, which hands control to libFuzzer's
//! `LLVMFuzzerRunDriver`: with `#![no_main]` the linker would take `main` from the MLIR
//! static libraries that mlir-sys links (libMLIRMlirOptMain.a holds mlir-opt's `main`)
//! before libFuzzer's, and the binary would be an mlir-opt.

use libfuzzer_sys::fuzz_target;
use std::ffi::{c_char, c_int, CString};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        fuselab_tools::run::exercise_pipelines(text);
    }
});

extern "C" {
    fn LLVMFuzzerRunDriver(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        callback: unsafe extern "C" fn(*const u8, usize) -> c_int,
    ) -> c_int;
    fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> c_int;
}

fn main() {
    let args: Vec<CString> = std::env::args()
        .map(|a| CString::new(a).unwrap_or_default())
        .collect();
    let mut pointers: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    pointers.push(std::ptr::null_mut());
    let mut argc = args.len() as c_int;
    let mut argv = pointers.as_mut_ptr();
    // SAFETY: argv holds argc NUL-terminated strings (and a null) that outlive the call.
    let status = unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, LLVMFuzzerTestOneInput) };
    std::process::exit(status);
}
