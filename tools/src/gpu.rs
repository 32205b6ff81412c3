//! `fuse-gpu FILE.mlir [--strategy S] [--emit tile|gpu|ptx] [-o DIR] ...`: compiles a
//! function for the GPU target — the strategy's fusion pipeline, `--lower-loop-to-tile`,
//! `--lower-tile-to-gpu`, PTX through LLVM's NVPTX back end — and prints one stage, or
//! writes a *bundle* for the device runner (`tools/gpu/run.py`): `kernels.ptx`,
//! `manifest.json` (buffers, launch plan, input generator, oracle samples). The format is
//! in docs/gpu.md.
//!
//! Inputs are not stored: the runner regenerates them from the seed with the portable
//! generator below ([`portable_inputs`], mirrored in run.py), so bundles of
//! 100-MB workloads stay small. The oracle (the aten interpreter on those inputs) is
//! stored as `--samples` evenly spaced elements per output plus each output's largest
//! magnitude (for the tolerance).

use crate::run::{functions, pipeline_module, pipeline_of, strategy_names};
use fuselab_dialects::{ir, source::parse_module, types::DType, DiagnosticSink, FuseContext};
use fuselab_exec::{aten::run_aten, inputs::tolerance, Tensor};
use fuselab_targets::gpu::{
    bundle::{plans, Plan, Role, Step},
    lower_tile_to_gpu::KERNEL_MODULE,
    ptx::{emit_ptx, PtxOptions, CHIP},
};
use serde_json::{json, Value as Json};
use std::io::Write as _;

mod validate;
use validate::validate_dir;

const HELP: &str = "\
fuse-gpu: compile a function for the GPU target (an NVIDIA H200, sm_90a)

USAGE:
  fuse-gpu FILE.mlir [options]

OPTIONS:
  --strategy <name>   Fusion pipeline before the GPU stages (default: inductor)
  --function <name>   The function to compile (default: the only one)
  --emit <stage>      Print one stage to stdout: tile (after --lower-loop-to-tile),
                      gpu (after --lower-tile-to-gpu) or ptx
  -o <dir>            Write a bundle for tools/gpu/run.py: kernels.ptx, manifest.json
  --validate <dir>    Check a bundle without a GPU: manifest fields, buffer ids and roles,
                      each launch's kernel is a PTX .entry taking as many parameters as
                      it is given buffers, no call of an undefined function, every
                      output is written, oracle sizes
  --tile-options <o>   Options of --lower-loop-to-tile, e.g. 'max-rblock=2048 elements-per-warp=256'
  --autotune <bool>   Compile each reduction kernel in several warp counts as launch
                      variants, for the runner to time and choose (--tile-warp-variants,
                      Inductor's autotuning; default: true)
  --fp-fusion <bool>  Contract a multiply and a dependent add into one fma (default:
                      true, as Triton's enable_fp_fusion; false: every op rounds)
  --approx-exp <bool>  f32 exp as ex2.approx(x*log2 e), as Triton's tl.exp (default:
                      false: the argument reduced exactly first, libdevice's expf
                      scheme, ~2 ulp, as the libdevice exp Inductor's kernels call)
  --approx-div <bool>  f32 division as div.full.f32, as Triton compiles '/' (default:
                      true; false: IEEE div.rn.f32)
  --seed <n>          Seed of the bundle's inputs (default: 0)
  --samples <n>       Oracle samples per output (default: 4096; 0: no oracle, for
                      sizes the interpreter would take too long on)
  -h, --help          Print this help

A bundle's inputs are regenerated on the device from the seed; the oracle is the
aten interpreter on those inputs (docs/gpu.md).
";

struct Options {
    validate: Option<String>,
    tile_options: Option<String>,
    /// `--autotune`: add `--tile-warp-variants` to the pipeline.
    autotune: bool,
    /// `--autotune` was given (it means nothing for `--emit tile`).
    autotune_chosen: bool,
    ptx: PtxOptions,
    /// `--fp-fusion`, `--approx-exp` or `--approx-div` was given (they mean something
    /// only where PTX is made).
    ptx_chosen: bool,
    file: String,
    strategy: String,
    function: Option<String>,
    emit: Option<String>,
    out: Option<String>,
    seed: u64,
    samples: usize,
}

fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        validate: None,
        tile_options: None,
        autotune: true,
        autotune_chosen: false,
        ptx: PtxOptions::default(),
        ptx_chosen: false,
        file: String::new(),
        strategy: "inductor".into(),
        function: None,
        emit: None,
        out: None,
        seed: 0,
        samples: 4096,
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a, None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("option '{flag}' requires {what}"))
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "--strategy" => o.strategy = value("a strategy name")?,
            "--function" => o.function = Some(value("a function name")?),
            "--emit" => o.emit = Some(value("a stage (tile, gpu or ptx)")?),
            "-o" => o.out = Some(value("a directory")?),
            "--validate" => o.validate = Some(value("a bundle directory")?),
            "--tile-options" => o.tile_options = Some(value("pass options")?),
            "--fp-fusion" | "--approx-exp" | "--approx-div" | "--autotune" => {
                let v = value("true or false")?;
                let on = match v.as_str() {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => return Err(format!("{flag}: '{v}' is not true or false")),
                };
                if flag == "--autotune" {
                    o.autotune = on;
                    o.autotune_chosen = true;
                    i += 1;
                    continue;
                }
                match flag {
                    "--fp-fusion" => o.ptx.fp_fusion = on,
                    "--approx-exp" => o.ptx.approx_exp = on,
                    _ => o.ptx.approx_div = on,
                }
                o.ptx_chosen = true;
            }
            "--seed" => {
                let v = value("a number")?;
                o.seed = v
                    .parse()
                    .map_err(|_| format!("--seed: '{v}' is not a non-negative integer"))?;
            }
            "--samples" => {
                let v = value("a number")?;
                o.samples = v
                    .parse()
                    .map_err(|_| format!("--samples: '{v}' is not a non-negative integer"))?;
            }
            f if f.starts_with('-') => return Err(format!("unknown option '{f}' (see --help)")),
            _ => {
                if !o.file.is_empty() {
                    return Err(format!("one input file expected, got '{}' and '{a}'", o.file));
                }
                o.file = a.to_string();
            }
        }
        i += 1;
    }
    if o.validate.is_some() {
        if !o.file.is_empty()
            || o.emit.is_some()
            || o.out.is_some()
            || o.tile_options.is_some()
            || o.ptx_chosen
            || o.autotune_chosen
        {
            return Err("--validate takes a bundle directory and nothing else".into());
        }
        return Ok(Some(o));
    }
    if o.file.is_empty() {
        return Err("no input file (see --help)".into());
    }
    if let Some(e) = &o.emit {
        if !matches!(e.as_str(), "tile" | "gpu" | "ptx") {
            return Err(format!("--emit: unknown stage '{e}' (expected tile, gpu or ptx)"));
        }
    }
    if o.emit.is_none() && o.out.is_none() {
        return Err("nothing to do: give --emit <stage> or -o <dir>".into());
    }
    if o.autotune_chosen && o.emit.as_deref() == Some("tile") {
        return Err("--autotune adds variants after the tile stage: not with --emit tile".into());
    }
    if o.ptx_chosen && o.out.is_none() && o.emit.as_deref() != Some("ptx") {
        return Err(
            "--fp-fusion, --approx-exp and --approx-div apply to PTX: they need --emit ptx or -o <dir>"
                .into(),
        );
    }
    if !strategy_names().contains(&o.strategy.as_str()) {
        return Err(format!(
            "unknown strategy '{}' (expected {})",
            o.strategy,
            strategy_names().join(", ")
        ));
    }
    Ok(Some(o))
}

/// `fuse-gpu` with `args`; the exit status.
pub fn run(args: &[String]) -> i32 {
    let options = match parse_args(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{HELP}");
            return 0;
        }
        Err(e) => {
            eprintln!("fuse-gpu: {e}");
            return 1;
        }
    };
    if let Some(dir) = &options.validate {
        return match validate_dir(dir) {
            Ok(()) => {
                println!("{dir}: valid bundle");
                0
            }
            Err(errors) => {
                for e in errors {
                    eprintln!("{dir}: {e}");
                }
                1
            }
        };
    }
    match compile(&options) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}

/// PTX of `module`'s kernels; MLIR's diagnostics join the error.
fn ptx_of(
    fuse: &FuseContext,
    module: mlir_sys::MlirOperation,
    file: &str,
    options: PtxOptions,
) -> Result<String, String> {
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    emit_ptx(module, KERNEL_MODULE, options).map_err(|e| {
        let notes: Vec<String> = sink.take().iter().map(|d| d.to_string()).collect();
        format!(
            "{file}: {e}{}{}",
            if notes.is_empty() { "" } else { "\n" },
            notes.join("\n")
        )
    })
}

fn compile(o: &Options) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&o.file).map_err(|e| format!("fuse-gpu: cannot read {}: {e}", o.file))?;
    let gpu = fuselab_targets::target("gpu").ok_or("fuse-gpu: no gpu target")?;
    let tile = match &o.tile_options {
        Some(options) => format!("lower-loop-to-tile{{{options}}}"),
        None => "lower-loop-to-tile".to_string(),
    };
    let stop = if o.emit.as_deref() == Some("tile") {
        tile
    } else if o.autotune {
        format!("{tile},tile-warp-variants,lower-tile-to-gpu")
    } else {
        format!("{tile},lower-tile-to-gpu")
    };
    let pipeline = format!("{},{stop}", pipeline_of(&o.strategy));
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let module = pipeline_module(&fuse, &text, &o.file, &pipeline, gpu)?;
    let raw = module.as_operation().to_raw();
    // PTX once, for printing and for the bundle.
    let ptx = if o.emit.as_deref() == Some("ptx") || o.out.is_some() {
        Some(ptx_of(&fuse, raw, &o.file, o.ptx)?)
    } else {
        None
    };
    let mut stdout = std::io::stdout();
    match (o.emit.as_deref(), &ptx) {
        (Some("tile" | "gpu"), _) => {
            writeln!(stdout, "{}", ir::op_string(raw)).map_err(|e| format!("fuse-gpu: {e}"))?;
        }
        (Some(_), Some(ptx)) => write!(stdout, "{ptx}").map_err(|e| format!("fuse-gpu: {e}"))?,
        _ => {}
    }
    let Some(dir) = &o.out else { return Ok(()) };
    let mut all = plans(raw)?;
    if let Some(f) = &o.function {
        all.retain(|p| &p.function == f);
    }
    let plan = match all.len() {
        1 => all.remove(0),
        0 => return Err(format!("{}: no function to bundle", o.file)),
        _ => {
            return Err(format!(
                "{}: several functions: choose one with --function",
                o.file
            ))
        }
    };
    let ptx = ptx.unwrap_or_default();
    let (bounds, oracle) = source_facts(&text, &o.file, &plan, o)?;
    let manifest = manifest(&plan, o, oracle, &bounds);
    std::fs::create_dir_all(dir).map_err(|e| format!("fuse-gpu: cannot create {dir}: {e}"))?;
    std::fs::write(format!("{dir}/kernels.ptx"), ptx).map_err(|e| format!("fuse-gpu: {e}"))?;
    let pretty = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(format!("{dir}/manifest.json"), pretty + "\n").map_err(|e| format!("fuse-gpu: {e}"))?;
    Ok(())
}

/// The splitmix64 finalizer.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The portable input generator: element `k` of input `i` is `mix(base_i + (k + 1) *
/// 0x9E3779B97F4A7C15)` with `base_i = mix(seed ^ ((i + 1) * 0xD1B54A32D192ED03))`,
/// read as `(z >> 40) / 2^23 - 1` (in [-1, 1), exact in f32; rounded to nearest even for
/// f16/bf16), `z % bound` for int64 and int32 (the bound of [`fuselab_exec::inputs::int_bound`])
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

/// Runs `f` on the function `function` of `text` as written (the aten input), in a
/// context of its own.
fn with_source_function<T>(
    text: &str,
    buffer: &str,
    function: &str,
    f: impl FnOnce(mlir_sys::MlirOperation) -> Result<T, String>,
) -> Result<T, String> {
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let module = parse_module(fuse.context(), text, buffer, &sink)
        .ok_or_else(|| format!("{buffer}: does not parse"))?;
    let func = functions(&module)
        .into_iter()
        .find(|(n, _)| n == function)
        .map(|(_, f)| f)
        .ok_or_else(|| format!("{buffer}: no function @{function}"))?;
    f(func)
}

/// From one parse of the source (the aten input): the int64 bound of each input of the
/// plan's function (0 for other dtypes) and, unless `--samples 0`, the oracle's samples
/// of every output on the portable inputs.
fn source_facts(
    text: &str,
    buffer: &str,
    plan: &Plan,
    o: &Options,
) -> Result<(Vec<i64>, Option<Json>), String> {
    with_source_function(text, buffer, &plan.function, |func| {
        let block = ir::body(func).ok_or_else(|| format!("{buffer}: @{} has no body", plan.function))?;
        let bounds: Vec<i64> = ir::block_arguments(block)
            .into_iter()
            .map(|a| match ir::tensor_type(a).map(|t| t.dtype) {
                Some(DType::I64 | DType::I32) => fuselab_exec::inputs::int_bound(a),
                _ => 0,
            })
            .collect();
        let oracle = if o.samples > 0 {
            Some(oracle(func, plan, o, &bounds)?)
        } else {
            None
        };
        Ok((bounds, oracle))
    })
}

/// The oracle's samples of every output of `func` (the plan's function) on the
/// portable inputs (int64 inputs below `bounds`).
fn oracle(func: mlir_sys::MlirOperation, plan: &Plan, o: &Options, bounds: &[i64]) -> Result<Json, String> {
    let types: Vec<(DType, Vec<i64>, i64)> = plan
        .buffers
        .iter()
        .filter_map(|b| match b.role {
            Role::Input(i) => Some((
                b.ty.dtype,
                b.ty.shape.clone(),
                bounds.get(i).copied().unwrap_or(0),
            )),
            _ => None,
        })
        .collect();
    let inputs = portable_inputs(&types, o.seed);
    let outputs = run_aten(func, &inputs).map_err(|e| e.to_string())?;
    let mut list = Vec::new();
    for (i, t) in outputs.iter().enumerate() {
        let n = t.data.len();
        let count = o.samples.min(n);
        let values: Vec<Json> = (0..count).map(|j| number(t.data[j * n / count.max(1)])).collect();
        let max_abs = t
            .data
            .iter()
            .filter(|v| v.is_finite())
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let (atol, rtol) = tolerance(t.dtype);
        let buffer_id = plan.buffers.iter().position(|b| b.role == Role::Output(i));
        list.push(json!({
            "buffer": buffer_id,
            "count": count,
            "values": values,
            "max_abs": max_abs,
            "atol": atol,
            "rtol": rtol,
        }));
    }
    Ok(json!({ "indices": "floor(j * numel / count)", "outputs": list }))
}

/// A JSON number, or "nan" / "inf" / "-inf".
fn number(v: f64) -> Json {
    if v.is_nan() {
        json!("nan")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(v)
    }
}

fn manifest(plan: &Plan, o: &Options, oracle: Option<Json>, bounds: &[i64]) -> Json {
    let buffers: Vec<Json> = plan
        .buffers
        .iter()
        .enumerate()
        .map(|(id, b)| {
            let (role, index) = match b.role {
                Role::Input(i) => ("input", Some(i)),
                Role::Output(i) => ("output", Some(i)),
                Role::Temp => ("temp", None),
            };
            let mut entry = json!({
                "id": id,
                "role": role,
                "shape": b.ty.shape,
                "dtype": b.ty.dtype.to_string(),
            });
            if let Some(i) = index {
                entry["index"] = json!(i);
            }
            if let Role::Input(i) = b.role {
                if matches!(b.ty.dtype, DType::I64 | DType::I32) {
                    entry["int_bound"] = json!(bounds.get(i).copied().unwrap_or(8));
                }
            }
            entry
        })
        .collect();
    let steps: Vec<Json> = plan
        .steps
        .iter()
        .map(|s| match s {
            Step::Launch {
                kernel,
                grid,
                threads,
                args,
                variants,
            } => {
                let mut l = json!({"op": "launch", "kernel": kernel, "grid": [grid, 1, 1], "block": [threads, 1, 1], "args": args});
                if !variants.is_empty() {
                    l["variants"] = variants
                        .iter()
                        .map(|(k, t)| json!({"kernel": k, "block": [t, 1, 1]}))
                        .collect();
                }
                l
            }
            Step::Extern {
                kind,
                args,
                views,
                ints,
                scale,
            } => {
                let mut e = json!({"op": "extern", "kind": kind, "args": args, "views": views});
                for (name, v) in ints {
                    e[name.as_str()] = json!(v);
                }
                if let Some(scale) = scale {
                    e["scale"] = json!(scale);
                }
                e
            }
            Step::Copy { src, dst } => json!({"op": "copy", "src": src, "dst": dst}),
        })
        .collect();
    json!({
        "format": "fuselab-gpu-bundle/1",
        "source": o.file,
        "function": plan.function,
        "strategy": o.strategy,
        "chip": CHIP,
        "ptx": "kernels.ptx",
        "inputs": {"generator": "splitmix64", "seed": o.seed},
        "buffers": buffers,
        "steps": steps,
        "oracle": oracle,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first elements of two inputs, as an independent implementation (Python
    /// integers, the formula in the doc comment) computes them: run.py must regenerate
    /// exactly the inputs the oracle saw.
    #[test]
    fn portable_inputs_match_the_documented_generator() {
        let t = portable_inputs(
            &[
                (DType::F32, vec![4], 0),
                (DType::F32, vec![1], 0),
                (DType::I64, vec![4], 1000),
            ],
            7,
        );
        let want_f32 = [
            -0.8252720832824707,
            0.3302370309829712,
            0.7924003601074219,
            0.19399607181549072,
        ];
        let want_i64 = [565.0, 748.0, 607.0, 84.0];
        assert_eq!(t[2].data, want_i64);
        let t0 = portable_inputs(&[(DType::F32, vec![4], 0)], 0);
        assert_eq!(
            t0[0].data,
            [
                -0.7659341096878052,
                0.4613816738128662,
                -0.6929281949996948,
                -0.8794034719467163
            ]
        );
        // Input #2 with seed 7 as floats: the same z, read as a float.
        let as_float = portable_inputs(
            &[
                (DType::F32, vec![1], 0),
                (DType::F32, vec![1], 0),
                (DType::F32, vec![4], 0),
            ],
            7,
        );
        assert_eq!(as_float[2].data, want_f32);
    }
}
