//! The Ascend interpreter is a real check: on a lowered program it computes what the
//! loop interpreter computes, and an injected UB overlap, a lost double-buffer slot, a
//! reduction's scratch tile over a live one or a tile placed past the UB changes the
//! numbers or fails instead of passing.

use fuselab_dialects::ascend::names as ascend_op;
use fuselab_dialects::{build::OwnedModule, ir, source::parse_module, DiagnosticSink, FuseContext};
use fuselab_exec::{ascend::run_ascend, inputs::generate_inputs, loops::run_loop, Tensor};
use fuselab_targets::ascend::lower_loop_to_ascend::{lower, AscendConfig};
use mlir_sys::MlirOperation;

/// A fused row softmax over [40, 300] f32 (max, exp-sum, divide in one kernel) as
/// `--inductor-fuse` writes it.
const SOFTMAX: &str = r#"
#x = affine_map<(d0, d1) -> (d0 * 300 + d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<40x300xf32>) -> tensor<40x300xf32> {
  %k = "loop.kernel"() ({
    %max = "loop.reduction"() ({
    ^bb0(%i: index, %j: index):
      %v = "loop.load"(%x) {index = #x} : (tensor<40x300xf32>) -> f32
      gpu.yield %v : f32
    }) {name = "max", kind = "max", ranges = array<i64: 40>, reduction_ranges = array<i64: 300>, origins = ["amax"]} : () -> tensor<40x1xf32>
    %sum = "loop.reduction"() ({
    ^bb0(%i: index, %j: index):
      %v = "loop.load"(%x) {index = #x} : (tensor<40x300xf32>) -> f32
      %m = "loop.load"(%max) {index = #row} : (tensor<40x1xf32>) -> f32
      %s = arith.subf %v, %m : f32
      %e = math.exp %s : f32
      gpu.yield %e : f32
    }) {name = "sum", kind = "sum", ranges = array<i64: 40>, reduction_ranges = array<i64: 300>, origins = ["sum"]} : () -> tensor<40x1xf32>
    %div = "loop.pointwise"() ({
    ^bb0(%i: index, %j: index):
      %v = "loop.load"(%x) {index = #x} : (tensor<40x300xf32>) -> f32
      %m = "loop.load"(%max) {index = #row} : (tensor<40x1xf32>) -> f32
      %z = "loop.load"(%sum) {index = #row} : (tensor<40x1xf32>) -> f32
      %s = arith.subf %v, %m : f32
      %e = math.exp %s : f32
      %d = arith.divf %e, %z : f32
      gpu.yield %d : f32
    }) {name = "div", ranges = array<i64: 40, 300>, origins = ["div"]} : () -> tensor<40x300xf32>
    gpu.yield %div : tensor<40x300xf32>
  }) {iteration = array<i64: 40, 300>, name = "fused_softmax_0", strategy = "test"} : () -> tuple<tensor<40x300xf32>>
  %o = "loop.output"(%k) {index = 0 : i64} : (tuple<tensor<40x300xf32>>) -> tensor<40x300xf32>
  return %o : tensor<40x300xf32>
}
"#;

/// Fields drop in order: the modules before their context.
struct Case {
    lowered: OwnedModule,
    module: melior::ir::Module<'static>,
    inputs: Vec<Tensor>,
    want: Vec<f64>,
    _fuse: FuseContext,
}

fn case(config: AscendConfig) -> Case {
    let fuse = FuseContext::new().expect("context");
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    // SAFETY (test only): the context outlives the module, both dropped with the case.
    let ctx: &'static melior::Context = unsafe { &*(fuse.context() as *const melior::Context) };
    let module = parse_module(ctx, SOFTMAX, "softmax.mlir", &sink).expect("parses");
    let raw = module.as_operation().to_raw();
    let func = ir::collect_ops(raw, |n| n == "func.func")[0];
    let inputs = generate_inputs(func, 3).expect("inputs");
    let want = run_loop(func, &inputs).expect("loop interpreter")[0].data.clone();
    let lowered = lower(raw, config).expect("lowers");
    Case {
        _fuse: fuse,
        module,
        lowered,
        inputs,
        want,
    }
}

fn run(c: &Case) -> Result<Vec<f64>, String> {
    run_ascend(c.lowered.operation(), "softmax", &c.inputs)
        .map(|o| o[0].data.clone())
        .map_err(|e| e.to_string())
}

fn max_err(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            if x.is_nan() || y.is_nan() {
                f64::INFINITY
            } else {
                (x - y).abs()
            }
        })
        .fold(0.0, f64::max)
}

fn allocs(c: &Case) -> Vec<MlirOperation> {
    ir::collect_ops(c.lowered.operation(), |n| n == ascend_op::ALLOC)
}

fn address(op: MlirOperation) -> i64 {
    ir::integer(op, "address").expect("address")
}

#[test]
fn computes_what_the_loop_interpreter_computes() {
    let c = case(AscendConfig::default());
    let got = run(&c).expect("runs");
    assert!(
        max_err(&got, &c.want) < 1e-6,
        "max error {}",
        max_err(&got, &c.want)
    );
    let _ = &c.module;
}

/// Moving the row-max tile (which the exp-sum and the divide read later) onto the
/// input tile breaks the numbers: the interpreter's UB is real memory.
#[test]
fn an_injected_ub_overlap_changes_the_numbers() {
    let c = case(AscendConfig::default());
    let reduces = ir::collect_ops(c.lowered.operation(), |n| n == ascend_op::REDUCE);
    let row_max = ir::operand(reduces[0], 0);
    let input = ir::operand(
        ir::collect_ops(c.lowered.operation(), |n| n == ascend_op::COPY_IN)[0],
        4,
    );
    let (max_alloc, in_alloc) = (
        ir::defining_op(row_max).expect("alloc"),
        ir::defining_op(input).expect("alloc"),
    );
    ir::set_attr(
        max_alloc,
        "address",
        ir::i64_attr(ir::context(max_alloc), address(in_alloc)),
    );
    let got = run(&c).expect("runs");
    assert!(max_err(&got, &c.want) > 1e-3, "the overlap went unnoticed");
}

/// A double-buffered tile given one slot where its neighbour starts: the second slot
/// of the core's odd programs lands on another live tile.
#[test]
fn an_injected_slot_overlap_changes_the_numbers() {
    let mut config = AscendConfig::default();
    config.params.cores = 2;
    let c = case(config);
    let all = allocs(&c);
    let doubled = all
        .iter()
        .copied()
        .find(|&a| {
            ir::integer(a, "depth") == Some(2)
                && ir::attr(a, "queue").map(ir::attr_string).as_deref() == Some("\"vecin\"")
        })
        .expect("a double-buffered input tile");
    // Put a live tile right after its first slot, where its second slot is.
    let bytes = {
        let ty = ir::value_type(ir::result(doubled, 0));
        let n: i64 = unsafe {
            (0..mlir_sys::mlirShapedTypeGetRank(ty))
                .map(|d| mlir_sys::mlirShapedTypeGetDimSize(ty, d as isize))
                .product()
        };
        (n * 4 + 31) / 32 * 32
    };
    let reduces = ir::collect_ops(c.lowered.operation(), |n| n == ascend_op::REDUCE);
    let row_max = ir::defining_op(ir::operand(reduces[0], 0)).expect("alloc");
    ir::set_attr(
        row_max,
        "address",
        ir::i64_attr(ir::context(row_max), address(doubled) + bytes),
    );
    let blocks = ir::integer(c.lowered.body_op_named(ascend_op::KERNEL), "block_dim").unwrap_or(1);
    let programs = ir::integer(c.lowered.body_op_named(ascend_op::KERNEL), "programs").unwrap_or(1);
    assert!(
        programs > blocks,
        "some core must run two programs ({programs} on {blocks})"
    );
    let got = run(&c).expect("runs");
    assert!(max_err(&got, &c.want) > 1e-3, "the slot overlap went unnoticed");
}

/// A reduction's work tile (the intrinsic's scratch) moved onto the input tile, which
/// the exp-sum and the divide read after the row max: the scratch overwrites it.
#[test]
fn an_injected_work_tile_overlap_changes_the_numbers() {
    let c = case(AscendConfig::default());
    let reduces = ir::collect_ops(c.lowered.operation(), |n| n == ascend_op::REDUCE);
    let work = ir::defining_op(ir::operand(reduces[0], 2)).expect("alloc");
    let input = ir::defining_op(ir::operand(
        ir::collect_ops(c.lowered.operation(), |n| n == ascend_op::COPY_IN)[0],
        4,
    ))
    .expect("alloc");
    // Placed where the planner put it, the numbers hold (the first test); over the input,
    // not.
    ir::set_attr(work, "address", ir::i64_attr(ir::context(work), address(input)));
    let got = run(&c).expect("runs");
    assert!(
        max_err(&got, &c.want) > 1e-3,
        "the work tile overlap went unnoticed"
    );
}

#[test]
fn a_tile_past_the_ub_is_an_error() {
    let c = case(AscendConfig::default());
    let a = allocs(&c)[0];
    ir::set_attr(a, "address", ir::i64_attr(ir::context(a), 196_600));
    let e = run(&c).expect_err("must fail");
    assert!(e.contains("outside the Unified Buffer of 196608 bytes"), "{e}");
}

/// The host function's `fuselab.arg_shapes` shorter than its parameters, or not an
/// array: the output buffer takes its memref's shape (it was read past the array's end).
#[test]
fn arg_shapes_shorter_than_the_parameters_fall_back_to_the_types() {
    let c = case(AscendConfig::default());
    let func = c.lowered.body_op_named("func.func");
    let shapes = ir::array_elements(ir::attr(func, "fuselab.arg_shapes").expect("arg_shapes"));
    assert_eq!(shapes.len(), 2, "one input and one output");
    let ctx = ir::context(func);
    let first = unsafe { mlir_sys::mlirArrayAttrGet(ctx, 1, shapes.as_ptr()) };
    for value in [first, ir::i64_attr(ctx, 7)] {
        ir::set_attr(func, "fuselab.arg_shapes", value);
        let got = run(&c).expect("runs");
        assert!(
            max_err(&got, &c.want) < 1e-6,
            "max error {}",
            max_err(&got, &c.want)
        );
    }
}

/// Fewer cores and a small UB: more programs per core, rows looped in chunks; same
/// numbers.
#[test]
fn small_ub_and_few_cores_compute_the_same() {
    let mut config = AscendConfig::default();
    config.params.cores = 3;
    config.params.ub_bytes = 4096;
    let c = case(config);
    assert!(!ir::collect_ops(c.lowered.operation(), |n| n == "scf.for").is_empty());
    let got = run(&c).expect("runs");
    assert!(
        max_err(&got, &c.want) < 1e-6,
        "max error {}",
        max_err(&got, &c.want)
    );
}

trait BodyOp {
    fn body_op_named(&self, name: &str) -> MlirOperation;
}

impl BodyOp for OwnedModule {
    fn body_op_named(&self, name: &str) -> MlirOperation {
        ir::ops_named(self.body(), name)[0]
    }
}
