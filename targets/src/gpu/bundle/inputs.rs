//! The portable input generator of a bundle: the seeded inputs the oracle saw, which
//! the device runner regenerates (`tools/gpu/run.py`, `portable_input`) so bundles of
//! 100-MB workloads stay small.

use fuselab_dialects::types::DType;
use fuselab_exec::Tensor;

/// The splitmix64 finalizer.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The portable input generator: element `k` of input `i` is `mix(base_i + (k + 1) *
/// 0x9E3779B97F4A7C15)` with `base_i = mix(seed ^ ((i + 1) * 0xD1B54A32D192ED03))`,
/// read as `(z >> 40) / 2^23 - 1` (in [-1, 1), exact in f32; rounded to nearest even for
/// f16/bf16), `z % bound` for int64 and int32 (the bound of `fuselab_exec::inputs::int_bound`)
/// and `z & 1` for bools.
pub fn portable_inputs(types: &[(DType, Vec<i64>, i64)], seed: u64) -> Vec<Tensor> {
    types
        .iter()
        .enumerate()
        .map(|(i, (dtype, shape, bound))| {
            let base = mix(seed ^ ((i as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03)));
            let n: i64 = shape.iter().product();
            let data = (0..n.max(0) as u64)
                .map(|k| {
                    let z = mix(base.wrapping_add((k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
                    let u = (z >> 40) as f64 / f64::from(1u32 << 23) - 1.0;
                    match dtype {
                        DType::F32 => u,
                        DType::F16 => half::f16::from_f64(u).to_f64(),
                        DType::BF16 => half::bf16::from_f64(u).to_f64(),
                        DType::I64 | DType::I32 => (z % (*bound).max(1) as u64) as f64,
                        DType::I1 => (z & 1) as f64,
                    }
                })
                .collect();
            Tensor::new(shape.clone(), *dtype, data)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value as Json;

    /// SplitMix64's published first output for state 0 (Vigna's `splitmix64.c`: the
    /// state advances by the golden gamma, then the finalizer): an anchor independent of
    /// this code.
    #[test]
    fn mix_is_splitmix64() {
        assert_eq!(mix(0x9E37_79B9_7F4A_7C15), 0xE220_A839_7B1D_CDAF);
    }

    /// The fixture run.py's test reads too: the same seeds, shapes and dtypes give the
    /// same first elements in both implementations.
    #[test]
    fn portable_inputs_match_the_shared_fixture() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../test/Tools/fuse-gpu/Inputs/portable-inputs.json"
        );
        let text = std::fs::read_to_string(path).expect("the fixture");
        let fixture: Json = serde_json::from_str(&text).expect("JSON");
        let cases = fixture["cases"].as_array().expect("cases");
        assert!(cases.len() >= 5);
        for case in cases {
            let dtype = DType::parse(case["dtype"].as_str().expect("dtype")).expect("a dtype");
            let shape: Vec<i64> = case["shape"]
                .as_array()
                .expect("shape")
                .iter()
                .map(|d| d.as_i64().expect("dim"))
                .collect();
            let index = case["index"].as_u64().expect("index") as usize;
            let bound = case["bound"].as_i64().expect("bound");
            let seed = case["seed"].as_u64().expect("seed");
            // Inputs before `index` are f32 scalars: only their count matters.
            let mut types: Vec<(DType, Vec<i64>, i64)> = vec![(DType::F32, vec![1], 0); index];
            types.push((dtype, shape, bound));
            let got = &portable_inputs(&types, seed)[index].data;
            let want: Vec<f64> = case["first"]
                .as_array()
                .expect("first")
                .iter()
                .map(|v| v.as_f64().expect("number"))
                .collect();
            assert_eq!(&got[..want.len()], want.as_slice(), "{case}");
        }
    }
}
