//! Per-kernel parity with Inductor: fuselab's profiled kernels of one function and
//! strategy beside the kernels `torch.compile` (Inductor) launched for the same module,
//! matched by the aten ops they cover — the table that finds a gap kernel by kernel
//! (issue 48's "per-kernel parity report").
//!
//! Both sides come from the GPU runner's rows (`tools/gpu/run.py --json`: the CUDA
//! profiler's µs per call of every kernel, `fuselab_kernels` and `inductor_kernels`).
//! The matching, in order:
//! 1. library kernels (cuBLAS/cuDNN/CUTLASS, named by the vendor) pair with an Inductor
//!    kernel of the same name, one for one;
//! 2. a generated kernel pairs with the Inductor kernel whose name holds most of its aten
//!    origins: Inductor names a kernel `triton_<kind>_fused_<origins>_<n>` (the origin
//!    ops' names joined by `_`, `torch/_inductor/codegen/triton.py`), fuselab's reports
//!    list the origins; greedy by the number of shared origins, each Inductor kernel at
//!    most once;
//!    (a profiled kernel this report does not name — a profile of another build — is
//!    matched by the ops its own name lists after `fused_`);
//! 3. the rest stand alone on their side (a kernel one compiler has and the other not).

use crate::model::Report;
use crate::timings::profiles;

/// One line of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct ParityRow {
    /// fuselab's kernel: the report's kernel name (or the profiled name of a library
    /// kernel) and µs per call.
    pub fuselab: Option<(String, f64)>,
    /// Bytes the report says fuselab's kernel moves (generated kernels only).
    pub bytes: Option<u64>,
    /// Inductor's kernel and µs per call.
    pub inductor: Option<(String, f64)>,
}

/// Whether `name` holds the aten op `origin` as one of its `_`-separated runs
/// (`layer_norm` in `triton_per_fused_add_native_layer_norm_0`).
fn names_origin(name: &str, origin: &str) -> bool {
    let origin = origin.trim_start_matches('_');
    format!("_{name}_").contains(&format!("_{origin}_"))
}

/// Matches `fuselab`'s profiled kernels (PTX names `<function>_<kernel>`, or vendor
/// names) of `report` against `inductor`'s, as the module header says; rows in
/// fuselab's order, then Inductor's kernels that matched none.
pub fn parity(report: &Report, fuselab: &[(String, f64)], inductor: &[(String, f64)]) -> Vec<ParityRow> {
    let kernel_of = |profiled: &str| {
        report
            .kernels
            .iter()
            .find(|k| profiles(profiled, &report.function, &k.name))
    };
    let mut taken = vec![false; inductor.len()];
    let mut rows: Vec<ParityRow> = fuselab
        .iter()
        .map(|(name, us)| {
            let kernel = kernel_of(name);
            ParityRow {
                fuselab: Some((kernel.map_or_else(|| name.clone(), |k| k.name.clone()), *us)),
                bytes: kernel.map(|k| k.bytes_read + k.bytes_written),
                inductor: None,
            }
        })
        .collect();
    // 1. Library kernels by name.
    for (row, (name, _)) in rows.iter_mut().zip(fuselab) {
        if kernel_of(name).is_some() {
            continue;
        }
        if let Some(j) = (0..inductor.len()).find(|&j| !taken[j] && inductor[j].0 == *name) {
            taken[j] = true;
            row.inductor = Some(inductor[j].clone());
        }
    }
    // 2. Generated kernels by shared origins, the best pairs first.
    let mut candidates: Vec<(usize, usize, usize)> = Vec::new();
    for (i, (name, _)) in fuselab.iter().enumerate() {
        if rows[i].inductor.is_some() {
            continue;
        }
        let origins: Vec<String> = match kernel_of(name) {
            Some(kernel) => report
                .nodes
                .iter()
                .filter(|n| kernel.members.contains(&n.name))
                .flat_map(|n| n.origins.iter().cloned())
                .collect(),
            // A generated kernel this report does not name (a profile of another
            // build): the ops its own name lists after `fused_`.
            None => match name.split_once("fused_") {
                Some((_, ops)) => ops
                    .split('_')
                    .filter(|t| !t.is_empty() && !t.chars().all(|c| c.is_ascii_digit()))
                    .map(str::to_string)
                    .collect(),
                None => Vec::new(),
            },
        };
        for (j, (iname, _)) in inductor.iter().enumerate() {
            let shared = origins.iter().filter(|o| names_origin(iname, o)).count();
            if shared > 0 {
                candidates.push((shared, i, j));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    for (_, i, j) in candidates {
        if rows[i].inductor.is_none() && !taken[j] {
            taken[j] = true;
            rows[i].inductor = Some(inductor[j].clone());
        }
    }
    // 3. Inductor's kernels that matched none.
    for (j, kernel) in inductor.iter().enumerate() {
        if !taken[j] {
            rows.push(ParityRow {
                fuselab: None,
                bytes: None,
                inductor: Some(kernel.clone()),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::chain_report;

    fn events(list: &[(&str, f64)]) -> Vec<(String, f64)> {
        list.iter().map(|(n, us)| (n.to_string(), *us)).collect()
    }

    #[test]
    fn origins_are_whole_runs_of_a_name() {
        assert!(names_origin(
            "triton_per_fused_add_native_layer_norm_0",
            "layer_norm"
        ));
        assert!(names_origin("triton_per_fused__softmax_amax_div_0", "_softmax"));
        assert!(names_origin("triton_per_fused__softmax_amax_div_0", "softmax"));
        assert!(!names_origin("triton_poi_fused_addmm_0", "add"));
        assert!(!names_origin("triton_poi_fused_mul_0", "mu"));
    }

    #[test]
    fn kernels_pair_by_library_name_then_by_shared_origins() {
        // chain_report: kernel k's members alternate add / mul origins.
        let report = chain_report(&[2, 1, 1]);
        let fuselab = events(&[
            ("chain_fused_add_mul_0", 10.0),
            ("sm80_xmma_gemm_f32", 50.0),
            ("chain_fused_add_mul_1", 5.0),
            ("chain_fused_add_mul_2", 4.0),
        ]);
        let inductor = events(&[
            ("sm80_xmma_gemm_f32", 49.0),
            ("triton_poi_fused_mul_1", 3.0),
            ("triton_poi_fused_add_mul_0", 8.0),
            ("triton_poi_fused_relu_2", 1.0),
        ]);
        let rows = parity(&report, &fuselab, &inductor);
        let pairs: Vec<(Option<&str>, Option<&str>)> = rows
            .iter()
            .map(|r| {
                (
                    r.fuselab.as_ref().map(|f| f.0.as_str()),
                    r.inductor.as_ref().map(|i| i.0.as_str()),
                )
            })
            .collect();
        assert_eq!(
            pairs,
            vec![
                // buf0 add + buf1 mul: both origins in the Inductor name.
                (Some("fused_add_mul_0"), Some("triton_poi_fused_add_mul_0")),
                (Some("sm80_xmma_gemm_f32"), Some("sm80_xmma_gemm_f32")),
                // buf2 (mul): the remaining mul kernel.
                (Some("fused_add_mul_1"), Some("triton_poi_fused_mul_1")),
                // buf3 (add): nothing left that names add.
                (Some("fused_add_mul_2"), None),
                (None, Some("triton_poi_fused_relu_2")),
            ]
        );
        assert_eq!(rows[0].bytes, Some(4096 + 4096));
        assert_eq!(rows[1].bytes, None);
    }

    #[test]
    fn a_kernel_the_report_does_not_name_pairs_by_the_ops_in_its_name() {
        let report = chain_report(&[1]);
        let fuselab = events(&[("chain_fused_add_gelu_0", 20.0), ("chain_fused_tanh_1", 2.0)]);
        let inductor = events(&[("triton_poi_fused_add_gelu_0", 16.0)]);
        let rows = parity(&report, &fuselab, &inductor);
        assert_eq!(
            rows[0].inductor.as_ref().map(|i| i.0.as_str()),
            Some("triton_poi_fused_add_gelu_0")
        );
        assert_eq!(rows[0].bytes, None);
        assert!(rows[1].inductor.is_none());
        assert_eq!(rows.len(), 2);
    }
}
