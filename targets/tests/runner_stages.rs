//! The runners compile through their target's stages (`fuselab_targets::stages::run`),
//! as `fuse-opt --target=T --emit=STAGE` does: the stage a runner's compilation fails in
//! reports its own located error, a function whose earlier stages are done starts later,
//! and the caller's function is left as it was.

use fuselab_dialects::{ir, source::parse_module, DiagnosticSink, FuseContext};
use fuselab_exec::{inputs::generate_inputs, loops::run_loop};
use fuselab_targets::{stages, target, CompileOptions};

/// A row softmax-like kernel in loop IR: a row max and a pointwise subtraction.
const KERNEL: &str = r#"func.func @k(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = "loop.kernel"() ({
    %1 = "loop.reduction"() ({
    ^bb0(%i: index, %r: index):
      %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 16 + d1)>} : (tensor<8x16xf32>) -> f32
      gpu.yield %v : f32
    }) {name = "buf0", ranges = array<i64: 8>, reduction_ranges = array<i64: 16>, kind = "max", origins = ["amax"]} : () -> tensor<8x1xf32>
    %2 = "loop.pointwise"() ({
    ^bb0(%i: index, %j: index):
      %a = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 16 + d1)>} : (tensor<8x16xf32>) -> f32
      %s = "loop.load"(%1) {index = affine_map<(d0, d1) -> (d0)>} : (tensor<8x1xf32>) -> f32
      %d = arith.subf %a, %s : f32
      gpu.yield %d : f32
    }) {name = "buf1", ranges = array<i64: 8, 16>, origins = ["sub"]} : () -> tensor<8x16xf32>
    gpu.yield %2 : tensor<8x16xf32>
  }) {iteration = array<i64: 8, 16>, name = "fused_amax_sub_0", strategy = "test"} : () -> tuple<tensor<8x16xf32>>
  %3 = "loop.output"(%0) {index = 0 : i64} : (tuple<tensor<8x16xf32>>) -> tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}"#;

/// An aten function: no target's stages take it.
const ATEN: &str = r#"func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("model.py":3:7)
  return %0 : tensor<4xf32>
}"#;

fn with_func<T>(text: &str, f: impl FnOnce(mlir_sys::MlirOperation) -> T) -> T {
    let fuse = FuseContext::new().expect("context");
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let module = parse_module(fuse.context(), text, "test.mlir", &sink).expect("parses");
    let func = ir::collect_ops(module.as_operation().to_raw(), |n| n == "func.func")[0];
    f(func)
}

/// Every runner compiles the kernel, runs it to the loop interpreter's numbers, and
/// leaves the caller's function untouched.
#[test]
fn every_runner_compiles_a_copy_through_its_stages() {
    with_func(KERNEL, |func| {
        let before = ir::op_string(func);
        let inputs = generate_inputs(func, 3).expect("inputs");
        let want = run_loop(func, &inputs).expect("interprets");
        for entry in fuselab_targets::TARGETS {
            let Some(runner) = entry.runner else { continue };
            let name = entry.target.name();
            let options = CompileOptions::default();
            let program = runner
                .compile(func, options)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let got = program.run(&inputs).unwrap_or_else(|e| panic!("{name}: {e}"));
            let diff = (got[0].data.iter().zip(&want[0].data))
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(diff < 1e-6, "{name}: max difference {diff}");
            assert_eq!(
                ir::op_string(func),
                before,
                "{name} changed the caller's function"
            );
        }
    });
}

/// An aten function fails in each runner's first stage, located at the aten op, with
/// that stage's pass's message naming the op.
#[test]
fn a_runner_reports_the_failing_stage_located() {
    with_func(ATEN, |func| {
        for name in ["cpu", "ascend", "spyre"] {
            let runner = target(name).and_then(|e| e.runner).expect("a runner");
            let err = match runner.compile(func, CompileOptions::default()) {
                Ok(_) => panic!("{name}: compiled an aten function"),
                Err(e) => e,
            };
            let loc = err.loc.as_ref().map(|l| l.to_string()).unwrap_or_default();
            assert!(loc.contains("model.py:3:7"), "{name}: located at '{loc}': {err}");
            assert!(err.message.contains("'aten.relu'"), "{name}: {err}");
        }
    });
}

/// `stages::run` up to a pass stage leaves IR (the CPU's `codegen`: no loop op left, a
/// host function of the same name); a code-writing stage returns its text.
#[test]
fn stages_run_up_to_the_stage_asked_for() {
    with_func(KERNEL, |func| {
        let cpu = target("cpu").expect("cpu").target;
        let module = stages::copy_into_module(func);
        let request = stages::StageRequest {
            stop: Some("codegen"),
            ..Default::default()
        };
        let code = stages::run(cpu, module.operation(), &request).expect("runs");
        assert!(code.is_none());
        let text = module.text();
        assert!(!text.contains("loop."), "{text}");
        assert!(text.contains("func.func @k("), "{text}");
        let ascend = target("ascend").expect("ascend").target;
        let module = stages::copy_into_module(func);
        let code = stages::run(ascend, module.operation(), &stages::StageRequest::default())
            .expect("runs")
            .expect("Ascend C");
        assert!(code.contains("__aicore__"), "{code}");
    });
}
