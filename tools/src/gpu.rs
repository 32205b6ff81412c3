//! `fuse-gpu FILE.mlir [--strategy S] [--emit tile|gpu|ptx] [-o DIR] ...`: compiles a
//! function for the GPU target — the strategy's fusion pipeline, `--lower-loop-to-tile`,
//! `--lower-tile-to-gpu`, PTX through LLVM's NVPTX back end — and prints one stage, or
//! writes a *bundle* for the device runner (`tools/gpu/run.py`): `kernels.ptx`,
//! `manifest.json` (buffers, launch plan, input generator, oracle samples). The format is
//! in docs/gpu.md.
//!
//! Inputs are not stored: the runner regenerates them from the seed with the portable
//! generator ([`fuselab_targets::gpu::bundle::inputs`], mirrored in run.py), so bundles
//! of 100-MB workloads stay small. The bundle's schema (plan, manifest, validation) is
//! `fuselab_targets::gpu::bundle`. The oracle (the aten interpreter on those inputs) is
//! stored as `--samples` evenly spaced elements per output plus each output's largest
//! magnitude (for the tolerance).

use crate::driver::{
    functions, pipeline_module_and_source, pipeline_of,
    stages::{plan as stage_plan, StageRequest},
};
use fuselab_dialects::{ir, types::DType, DiagnosticSink, FuseContext};
use fuselab_exec::aten::run_aten;
use fuselab_targets::gpu::{
    bundle::{manifest, oracle, plans, portable_inputs, validate_dir, BundleInfo, Plan},
    ptx::PtxOptions,
};
use serde_json::Value as Json;
use std::io::Write as _;

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

impl Default for Options {
    /// `fuse-gpu`'s defaults (see `--help`).
    fn default() -> Self {
        Options {
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
        }
    }
}

fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options::default();
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
    if o.out.is_some() && o.emit.as_deref() == Some("tile") {
        return Err("-o runs every stage; with it --emit prints gpu or ptx, not tile".into());
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
    crate::driver::known_strategy(&o.strategy, None)?;
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

fn compile(o: &Options) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&o.file).map_err(|e| format!("fuse-gpu: cannot read {}: {e}", o.file))?;
    compile_text(o, &text)
}

/// The bundle of the one function of the aten `text` (named `buffer` in messages)
/// under `strategy`, written to `dir` as `fuse-gpu -o DIR --samples 0` writes it (no
/// oracle samples; inputs seed 0): what `fuselab.aot_compile` packages.
pub fn write_bundle(text: &str, buffer: &str, strategy: &str, dir: &str) -> Result<(), String> {
    crate::driver::known_strategy(strategy, None)?;
    let o = Options {
        file: buffer.to_string(),
        strategy: strategy.to_string(),
        out: Some(dir.to_string()),
        samples: 0,
        ..Options::default()
    };
    compile_text(&o, text)
}

fn compile_text(o: &Options, text: &str) -> Result<(), String> {
    let gpu = fuselab_targets::target("gpu").ok_or("fuse-gpu: no gpu target")?;
    // The GPU target's stages: up to the one printed, or to PTX for a bundle.
    let stop = if o.out.is_some() {
        "ptx"
    } else {
        o.emit.as_deref().unwrap_or("ptx")
    };
    let mut request = StageRequest {
        stop: Some(stop),
        ..StageRequest::default()
    };
    if let Some(options) = &o.tile_options {
        request.options.push(("tile", options.clone()));
    }
    if stop == "ptx" {
        request.options.push(("ptx", o.ptx.option_text()));
    }
    if !o.autotune {
        request.skip.push("variants");
    }
    let stages = stage_plan(gpu.target, &request)?;
    let pipeline = format!("{},{}", pipeline_of(&o.strategy), stages.pipeline());
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let (module, source) = pipeline_module_and_source(&fuse, text, &o.file, &pipeline, gpu)?;
    let raw = module.as_operation().to_raw();
    // PTX once, for printing and for the bundle; MLIR's diagnostics join the error.
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let ptx = stages.emit(raw).map_err(|e| {
        let notes: Vec<String> = sink.take().iter().map(|d| d.to_string()).collect();
        format!(
            "{}: {}{}{}",
            o.file,
            e.message,
            if notes.is_empty() { "" } else { "\n" },
            notes.join("\n")
        )
    })?;
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
    let (bounds, oracle) = source_facts(&source, &o.file, &plan, o)?;
    let info = BundleInfo {
        source: &o.file,
        strategy: &o.strategy,
        seed: o.seed,
    };
    let manifest = manifest(&plan, &info, oracle, &bounds);
    std::fs::create_dir_all(dir).map_err(|e| format!("fuse-gpu: cannot create {dir}: {e}"))?;
    std::fs::write(format!("{dir}/kernels.ptx"), ptx).map_err(|e| format!("fuse-gpu: {e}"))?;
    let pretty = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    std::fs::write(format!("{dir}/manifest.json"), pretty + "\n").map_err(|e| format!("fuse-gpu: {e}"))?;
    Ok(())
}

/// From the source module as parsed (the aten input): the int64 bound of each input of the
/// plan's function (0 for other dtypes) and, unless `--samples 0`, the oracle's samples
/// of every output on the portable inputs.
fn source_facts(
    source: &melior::ir::Module,
    buffer: &str,
    plan: &Plan,
    o: &Options,
) -> Result<(Vec<i64>, Option<Json>), String> {
    let func = functions(source)
        .into_iter()
        .find(|(n, _)| n == &plan.function)
        .map(|(_, f)| f)
        .ok_or_else(|| format!("{buffer}: no function @{}", plan.function))?;
    let block = ir::body(func).ok_or_else(|| format!("{buffer}: @{} has no body", plan.function))?;
    let bounds: Vec<i64> = ir::block_arguments(block)
        .into_iter()
        .map(|a| match ir::tensor_type(a).map(|t| t.dtype) {
            Some(DType::I64 | DType::I32) => fuselab_exec::inputs::int_bound(a),
            _ => 0,
        })
        .collect();
    let oracle = if o.samples > 0 {
        let inputs = portable_inputs(&plan.input_types(&bounds), o.seed);
        let outputs = run_aten(func, &inputs).map_err(|e| e.to_string())?;
        Some(oracle(plan, &outputs, o.samples))
    } else {
        None
    };
    Ok((bounds, oracle))
}
