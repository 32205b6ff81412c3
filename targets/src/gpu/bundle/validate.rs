//! `fuse-gpu --validate DIR`: a bundle's manifest checked against its PTX without a GPU
//! (the format: docs/gpu.md).

use fuselab_dialects::types::DType;
use serde_json::Value as Json;

/// Checks the bundle in `dir` (see `--help`); every problem found.
pub fn validate_dir(dir: &str) -> Result<(), Vec<String>> {
    let read = |name: &str| {
        std::fs::read_to_string(format!("{dir}/{name}")).map_err(|e| vec![format!("cannot read {name}: {e}")])
    };
    let manifest: Json =
        serde_json::from_str(&read("manifest.json")?).map_err(|e| vec![format!("manifest.json: {e}")])?;
    let ptx_name = manifest["ptx"].as_str().unwrap_or("kernels.ptx").to_string();
    validate(&manifest, &read(&ptx_name)?)
}

/// The integers of the array `key` of `step`.
fn dims_of(step: &Json, key: &str) -> Option<Vec<u64>> {
    step[key]
        .as_array()
        .map(|d| d.iter().filter_map(Json::as_u64).collect())
}

/// The `.entry` kernels of `ptx` with their parameter counts.
fn ptx_entries(ptx: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry ") {
        let after = &rest[at + 7..];
        let name: String = after
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '(')
            .collect();
        let params = after
            .split(')')
            .next()
            .map(|p| p.matches(".param").count())
            .unwrap_or(0);
        out.push((name, params));
        rest = after;
    }
    out
}

/// Checks a bundle's manifest against its PTX (see `--help`); every problem found.
pub fn validate(m: &Json, ptx: &str) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    for f in crate::gpu::ptx::extern_functions(ptx) {
        errors.push(format!("the PTX calls {f}, which it does not define"));
    }
    if m["format"] != super::FORMAT {
        errors.push(format!("unknown format {}", m["format"]));
    }
    let buffers = m["buffers"].as_array().cloned().unwrap_or_default();
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for (i, b) in buffers.iter().enumerate() {
        if b["id"].as_u64() != Some(i as u64) {
            errors.push(format!("buffer #{i} has id {}", b["id"]));
        }
        if !b["shape"]
            .as_array()
            .is_some_and(|s| s.iter().all(|d| d.as_i64().is_some_and(|d| d > 0)))
        {
            errors.push(format!("buffer #{i} has no valid shape"));
        }
        if DType::parse(b["dtype"].as_str().unwrap_or_default()).is_none() {
            errors.push(format!("buffer #{i} has unknown dtype {}", b["dtype"]));
        }
        match b["role"].as_str() {
            Some("input") => inputs.push(b["index"].as_u64()),
            Some("output") => outputs.push((b["index"].as_u64(), i)),
            Some("temp") => {}
            other => errors.push(format!("buffer #{i} has role {other:?}")),
        }
    }
    for (want, got) in inputs.iter().enumerate() {
        if *got != Some(want as u64) {
            errors.push(format!("input #{want} is missing or out of order"));
        }
    }
    for (want, (got, _)) in outputs.iter().enumerate() {
        if *got != Some(want as u64) {
            errors.push(format!("output #{want} is missing or out of order"));
        }
    }
    let entries = ptx_entries(ptx);
    let in_range = |v: &Json| v.as_u64().is_some_and(|a| (a as usize) < buffers.len());
    let mut written = std::collections::HashSet::new();
    for (n, s) in m["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let args: Vec<Json> = s["args"].as_array().cloned().unwrap_or_default();
        if !args.iter().all(in_range) {
            errors.push(format!("step #{n} names a buffer that does not exist"));
        }
        match s["op"].as_str() {
            Some("launch") => {
                let variants = s["variants"].as_array().cloned().unwrap_or_default();
                for (which, l) in std::iter::once(s).chain(variants.iter()).enumerate() {
                    let kernel = l["kernel"].as_str().unwrap_or_default();
                    let what = match which {
                        0 => format!("step #{n}"),
                        v => format!("step #{n} (variant {v})"),
                    };
                    match entries.iter().find(|(e, _)| e == kernel) {
                        None => errors.push(format!("{what} launches {kernel}, which is not a PTX .entry")),
                        Some((_, params)) if *params != args.len() => errors.push(format!(
                            "{what} gives {kernel} {} buffers, its .entry takes {params}",
                            args.len()
                        )),
                        Some(_) => {}
                    }
                    // A variant runs on its step's grid.
                    let (grid, block) = (
                        dims_of(l, "grid")
                            .or_else(|| dims_of(s, "grid"))
                            .unwrap_or_default(),
                        dims_of(l, "block").unwrap_or_default(),
                    );
                    if grid.len() != 3
                        || grid.contains(&0)
                        || block.len() != 3
                        || block.contains(&0)
                        || block.iter().product::<u64>() > 1024
                    {
                        errors.push(format!("{what} has an invalid launch shape"));
                    }
                }
                written.extend(args.iter().filter_map(Json::as_u64));
            }
            Some("extern") => {
                let valid = match s["kind"].as_str() {
                    Some("mm" | "bmm" | "convolution") => args.len() >= 3,
                    // Gate products, state, biases? and the output.
                    Some("lstm_cell" | "gru_cell") => args.len() == 3 || args.len() == 5,
                    // query, key, value, mask? (at sdpa_operands), output; a scale.
                    Some("sdpa") => {
                        (4..=5).contains(&args.len())
                            && s["scale"].is_f64()
                            && s["sdpa_operands"]
                                .as_array()
                                .is_some_and(|a| a.len() + 1 == args.len())
                    }
                    _ => false,
                };
                if !valid {
                    errors.push(format!("step #{n} is not a valid library kernel"));
                }
                written.extend(args.last().and_then(Json::as_u64));
            }
            Some("copy") => {
                if !in_range(&s["src"]) || !in_range(&s["dst"]) {
                    errors.push(format!("step #{n} copies a buffer that does not exist"));
                }
                written.extend(s["dst"].as_u64());
            }
            other => errors.push(format!("step #{n} has op {other:?}")),
        }
    }
    for (index, id) in &outputs {
        if !written.contains(&(*id as u64)) {
            errors.push(format!(
                "output #{} (buffer {id}) is written by no step",
                index.unwrap_or(0)
            ));
        }
    }
    if let Some(oracle) = m["oracle"].as_object() {
        for (k, o) in oracle
            .get("outputs")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let count = o["count"].as_u64().unwrap_or(0) as usize;
            let values = o["values"].as_array().map(Vec::len).unwrap_or(0);
            let numel = o["buffer"]
                .as_u64()
                .and_then(|b| buffers.get(b as usize))
                .and_then(|b| b["shape"].as_array())
                .map(|s| s.iter().filter_map(Json::as_u64).product::<u64>() as usize);
            if values != count || numel.is_none_or(|n| count > n) {
                errors.push(format!(
                    "oracle output #{k} has {values} values for count {count}"
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PTX: &str = ".visible .entry k(\n\t.param .u64 .ptr a,\n\t.param .u64 .ptr b\n)\n{\n}\n";

    fn manifest() -> Json {
        json!({
            "format": "fuselab-gpu-bundle/1",
            "buffers": [
                {"id": 0, "role": "input", "index": 0, "shape": [4], "dtype": "f32"},
                {"id": 1, "role": "output", "index": 0, "shape": [4], "dtype": "f32"}
            ],
            "steps": [{"op": "launch", "kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1], "args": [1, 0]}],
            "oracle": {"outputs": [{"buffer": 1, "count": 2, "values": [0.0, 1.0]}]}
        })
    }

    #[test]
    fn a_consistent_bundle_is_valid() {
        assert_eq!(validate(&manifest(), PTX), Ok(()));
    }

    #[test]
    fn each_inconsistency_is_reported() {
        let mut m = manifest();
        m["steps"][0]["args"] = json!([1]);
        let e = validate(&m, PTX).unwrap_err();
        assert!(e[0].contains("gives k 1 buffers, its .entry takes 2"), "{e:?}");
        let mut m = manifest();
        m["steps"][0]["kernel"] = json!("other");
        assert!(validate(&m, PTX).unwrap_err()[0].contains("not a PTX .entry"));
        let mut m = manifest();
        m["steps"][0]["args"] = json!([0, 0]);
        assert!(validate(&m, PTX)
            .unwrap_err()
            .iter()
            .any(|e| e.contains("written by no step")));
        let mut m = manifest();
        m["steps"][0]["block"] = json!([2048, 1, 1]);
        assert!(validate(&m, PTX).unwrap_err()[0].contains("invalid launch shape"));
        let mut m = manifest();
        m["steps"][0]["variants"] = json!([{"kernel": "k", "block": [64, 1, 1]}]);
        assert_eq!(validate(&m, PTX), Ok(()));
        m["steps"][0]["variants"][0]["kernel"] = json!("k__w2");
        let e = validate(&m, PTX).unwrap_err();
        assert!(
            e[0].contains("step #0 (variant 1) launches k__w2, which is not a PTX .entry"),
            "{e:?}"
        );
        m["steps"][0]["variants"][0] = json!({"kernel": "k", "block": [2048, 1, 1]});
        let e = validate(&m, PTX).unwrap_err();
        assert!(
            e[0].contains("step #0 (variant 1) has an invalid launch shape"),
            "{e:?}"
        );
        let mut m = manifest();
        m["oracle"]["outputs"][0]["count"] = json!(9);
        assert!(validate(&m, PTX).unwrap_err()[0].contains("oracle output #0"));
        let mut m = manifest();
        m["buffers"][0]["dtype"] = json!("f8");
        assert!(validate(&m, PTX).unwrap_err()[0].contains("unknown dtype"));
        let undefined = format!(".extern .func  (.param .b32 func_retval0) __nv_expf\n(\n);\n{PTX}");
        assert!(validate(&manifest(), &undefined).unwrap_err()[0].contains("calls __nv_expf"));
    }
}
