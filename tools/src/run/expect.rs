//! `fuse-run --expect FILE`: inputs and outputs recorded from PyTorch.

use fuselab_exec::Tensor;

/// Inputs and outputs recorded from PyTorch for one function.
#[derive(Clone, Debug)]
pub struct Expectation {
    /// Inputs, in argument order.
    pub inputs: Vec<Tensor>,
    /// torch's outputs.
    pub outputs: Vec<Tensor>,
}

fn tensor_from_json(v: &serde_json::Value) -> Result<Tensor, String> {
    let shape: Vec<i64> = v["shape"]
        .as_array()
        .ok_or("tensor without 'shape'")?
        .iter()
        .map(|d| d.as_i64().ok_or("bad size"))
        .collect::<Result<_, _>>()?;
    let dtype = match v["dtype"].as_str().unwrap_or_default() {
        "float32" => fuselab_dialects::types::DType::F32,
        "float16" => fuselab_dialects::types::DType::F16,
        "bfloat16" => fuselab_dialects::types::DType::BF16,
        "int64" => fuselab_dialects::types::DType::I64,
        "int32" => fuselab_dialects::types::DType::I32,
        "bool" => fuselab_dialects::types::DType::I1,
        other => return Err(format!("unsupported dtype '{other}' in the expectation file")),
    };
    let integer = !dtype.is_float();
    let data: Vec<f64> = v["data"]
        .as_array()
        .ok_or("tensor without 'data'")?
        .iter()
        .map(|x| match x {
            serde_json::Value::Bool(b) => Ok(f64::from(u8::from(*b))),
            _ if integer => exact_integer(x),
            serde_json::Value::String(s) if s == "nan" || s == "NaN" => Ok(f64::NAN),
            serde_json::Value::String(s) if s == "inf" || s == "Infinity" => Ok(f64::INFINITY),
            serde_json::Value::String(s) if s == "-inf" || s == "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => x.as_f64().ok_or_else(|| format!("bad element {x}")),
        })
        .collect::<Result<_, _>>()?;
    if data.len() != shape.iter().product::<i64>() as usize {
        return Err("tensor data does not match its shape".into());
    }
    Ok(Tensor::new(shape, dtype, data))
}

/// The largest magnitude up to which every integer is an f64: the interpreters and the
/// comparison hold elements as f64, so an integer element beyond it could compare equal
/// to its neighbour (2^53 + 1 reads as 2^53).
const EXACT_INTEGERS: u64 = 1 << 53;

/// An integer tensor's element, read as a JSON integer and kept only where it is exact.
fn exact_integer(x: &serde_json::Value) -> Result<f64, String> {
    let magnitude = x.as_i64().map(i64::unsigned_abs).or_else(|| x.as_u64());
    match magnitude {
        None => Err(format!("element {x} of an integer tensor is not an integer")),
        Some(m) if m > EXACT_INTEGERS => Err(format!(
            "element {x} of an integer tensor is beyond 2^53: fuse-run holds elements as \
             float64 and could not compare it exactly, so it does not check it"
        )),
        // Exact: |x| <= 2^53.
        Some(_) => Ok(x.as_i64().map_or(EXACT_INTEGERS as f64, |i| i as f64)),
    }
}

/// Reads `{"inputs": [tensor...], "outputs": [tensor...]}` with tensors as
/// `{"shape": [...], "dtype": "float32", "data": [...]}` (row-major).
pub fn load_expectation(path: &str) -> Result<Expectation, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{path}: not JSON: {e}"))?;
    let list = |key: &str| -> Result<Vec<Tensor>, String> {
        doc[key]
            .as_array()
            .ok_or_else(|| format!("{path}: no '{key}' list"))?
            .iter()
            .map(tensor_from_json)
            .collect::<Result<_, _>>()
            .map_err(|m| format!("{path}: {m}"))
    };
    Ok(Expectation {
        inputs: list("inputs")?,
        outputs: list("outputs")?,
    })
}
