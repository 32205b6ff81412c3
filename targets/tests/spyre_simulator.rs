//! The Spyre simulator is a real check: on a program the three passes planned it computes
//! what the loop interpreter computes, and an injected LX overlap or a wrong core split
//! changes the numbers (or fails) instead of passing — both in the decisions (which the
//! simulator lowers to KTIR) and in the KTIR form itself (a view's address, a kernel's
//! cores, an LX piece).

use fuselab_dialects::{ir, source::parse_module, DiagnosticSink, FuseContext};
use fuselab_exec::{inputs::generate_inputs, loops::run_loop, Tensor};
use fuselab_targets::spyre::{
    assign, attrs::names, divide_work::CORES, scratchpad, simulator::simulate, transforms,
};
use mlir_sys::MlirOperation;

/// torch-spyre's softmax example as five ops (max, sub, exp, sum, div along dim 0) on
/// [64, 256] f32: every intermediate fits LX, exp overwrites sub in place.
const SOFTMAX: &str = r#"
#x = affine_map<(d0, d1) -> (d0 * 256 + d1)>
#col = affine_map<(d0, d1) -> (d1 * 256 + d0)>
#n = affine_map<(d0, d1) -> (d1)>
func.func @softmax_dim0(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %max = "loop.reduction"() ({
  ^bb0(%n: index, %m: index):
    %v = "loop.load"(%x) {index = #col} : (tensor<64x256xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "max", kind = "max", ranges = array<i64: 256>, reduction_ranges = array<i64: 64>, origins = ["amax"]} : () -> tensor<1x256xf32>
  %sub = "loop.pointwise"() ({
  ^bb0(%m: index, %n: index):
    %v = "loop.load"(%x) {index = #x} : (tensor<64x256xf32>) -> f32
    %w = "loop.load"(%max) {index = #n} : (tensor<1x256xf32>) -> f32
    %s = arith.subf %v, %w : f32
    gpu.yield %s : f32
  }) {name = "sub", ranges = array<i64: 64, 256>, origins = ["sub"]} : () -> tensor<64x256xf32>
  %exp = "loop.pointwise"() ({
  ^bb0(%m: index, %n: index):
    %v = "loop.load"(%sub) {index = #x} : (tensor<64x256xf32>) -> f32
    %e = math.exp %v : f32
    gpu.yield %e : f32
  }) {name = "exp", ranges = array<i64: 64, 256>, origins = ["exp"]} : () -> tensor<64x256xf32>
  %sum = "loop.reduction"() ({
  ^bb0(%n: index, %m: index):
    %v = "loop.load"(%exp) {index = #col} : (tensor<64x256xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "sum", kind = "sum", ranges = array<i64: 256>, reduction_ranges = array<i64: 64>, origins = ["sum"]} : () -> tensor<1x256xf32>
  %div = "loop.pointwise"() ({
  ^bb0(%m: index, %n: index):
    %v = "loop.load"(%exp) {index = #x} : (tensor<64x256xf32>) -> f32
    %w = "loop.load"(%sum) {index = #n} : (tensor<1x256xf32>) -> f32
    %d = arith.divf %v, %w : f32
    gpu.yield %d : f32
  }) {name = "div", ranges = array<i64: 64, 256>, origins = ["div"]} : () -> tensor<64x256xf32>
  return %div : tensor<64x256xf32>
}
"#;

/// A kernel whose second member reads the first transposed: the layouts need a copy
/// between two members of one kernel (an on-chip relayout).
const IN_KERNEL: &str = r#"
func.func @in_kernel(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %k = "loop.kernel"() ({
    %a = "loop.pointwise"() ({
    ^bb0(%i: index, %j: index):
      %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 64 + d1)>} : (tensor<64x64xf32>) -> f32
      %w = arith.addf %v, %v : f32
      gpu.yield %w : f32
    }) {name = "a", ranges = array<i64: 64, 64>, origins = ["mul"]} : () -> tensor<64x64xf32>
    %b = "loop.pointwise"() ({
    ^bb0(%i: index, %j: index):
      %v = "loop.load"(%a) {index = affine_map<(d0, d1) -> (d1 * 64 + d0)>} : (tensor<64x64xf32>) -> f32
      %u = "loop.load"(%y) {index = affine_map<(d0, d1) -> (d0 * 64 + d1)>} : (tensor<64x64xf32>) -> f32
      %w = arith.subf %v, %u : f32
      gpu.yield %w : f32
    }) {name = "b", ranges = array<i64: 64, 64>, origins = ["sub"]} : () -> tensor<64x64xf32>
    gpu.yield %b : tensor<64x64xf32>
  }) {iteration = array<i64: 4096, 1>, name = "fused_mul_sub_0", strategy = "test"} : () -> tuple<tensor<64x64xf32>>
  %o = "loop.output"(%k) {index = 0 : i64} : (tuple<tensor<64x64xf32>>) -> tensor<64x64xf32>
  return %o : tensor<64x64xf32>
}
"#;

/// The node named `name`.
fn node(func: MlirOperation, name: &str) -> MlirOperation {
    ir::collect_ops(func, |n| n.starts_with("loop."))
        .into_iter()
        .find(|&op| {
            ir::string_list(op, "name").is_empty()
                && ir::attr(op, "name")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .as_deref()
                    == Some(name)
        })
        .unwrap_or_else(|| panic!("no node {name}"))
}

fn close(a: &[Tensor], b: &[Tensor]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.data
                .iter()
                .zip(&y.data)
                .all(|(p, q)| (p - q).abs() <= 1e-6 * (1.0 + q.abs()))
        })
}

/// Plans SOFTMAX over `cores` cores, then lets `inject` change the plan; returns (reference, simulated).
fn planned(cores: i64, inject: impl FnOnce(MlirOperation)) -> (Vec<Tensor>, Result<Vec<Tensor>, String>) {
    planned_text(SOFTMAX, cores, false, inject)
}

/// Plans SOFTMAX over `cores` cores and lowers it to KTIR, then lets `inject` change the
/// KTIR; returns (reference, simulated).
fn lowered(cores: i64, inject: impl FnOnce(MlirOperation)) -> (Vec<Tensor>, Result<Vec<Tensor>, String>) {
    planned_text(SOFTMAX, cores, true, inject)
}

/// [`planned`] for the program `text`, lowered to KTIR before `inject` if `ktir`.
fn planned_text(
    text: &str,
    cores: i64,
    ktir: bool,
    inject: impl FnOnce(MlirOperation),
) -> (Vec<Tensor>, Result<Vec<Tensor>, String>) {
    let fuse = FuseContext::new().expect("context");
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let module = parse_module(fuse.context(), text, "program.mlir", &sink).expect("parses");
    let func = ir::collect_ops(module.as_operation().to_raw(), |n| n == "func.func")[0];
    let inputs = generate_inputs(func, 3).expect("inputs");
    let reference = run_loop(func, &inputs).expect("interprets");
    transforms::assign_layouts::apply(func, assign::Solver::Greedy).expect("layouts");
    transforms::divide_work::apply(func, cores).expect("splits");
    transforms::plan_scratchpad::apply(func, scratchpad::Solver::Greedy, scratchpad::LX_CAPACITY, true)
        .expect("plan");
    if ktir {
        fuselab_targets::spyre::ktir::lower::lower(func).expect("lowers to KTIR");
        assert!(ir::collect_ops(func, |n| n.starts_with("loop.")).is_empty());
    }
    inject(func);
    let simulated = simulate(func, &inputs).map_err(|e| e.to_string());
    (reference, simulated)
}

#[test]
fn the_planned_program_computes_the_reference() {
    // One core, as the article's example: every intermediate fits LX.
    let mut placed = Vec::new();
    let (reference, simulated) = planned(1, |f| {
        for name in ["max", "sub", "exp", "sum"] {
            placed.push(fuselab_targets::spyre::attrs::i64s(node(f, name), names::LX));
        }
    });
    assert!(
        placed.iter().all(Option::is_some),
        "every intermediate is in LX: {placed:?}"
    );
    assert!(close(&reference, &simulated.expect("simulates")));
    // All 32 cores: the reductions split columns and the pointwise ops rows, so only the
    // buffers whose reader keeps the split stay in LX; the numbers are the same.
    let (reference, simulated) = planned(CORES, |_| {});
    assert!(close(&reference, &simulated.expect("simulates on 32 cores")));
}

#[test]
fn an_lx_overlap_changes_the_numbers() {
    let (reference, simulated) = planned(1, |f| {
        // `sum` moved onto `exp`'s bytes while both are alive: the sums overwrite exps.
        let exp = fuselab_targets::spyre::attrs::i64s(node(f, "exp"), names::LX).expect("exp in LX");
        let sum = node(f, "sum");
        let mut at = fuselab_targets::spyre::attrs::i64s(sum, names::LX).expect("sum in LX");
        at[0] = exp[0];
        ir::set_attr(sum, names::LX, ir::i64_array_attr(ir::context(f), &at));
    });
    assert!(
        !simulated.is_ok_and(|s| close(&reference, &s)),
        "an overlap went unnoticed"
    );
}

#[test]
fn a_wrong_split_changes_the_numbers() {
    // Four cores: `sub` and `exp` both split rows 4 ways, so `sub` lives in LX.
    let (reference, simulated) = planned(4, |f| {
        assert!(fuselab_targets::spyre::attrs::i64s(node(f, "sub"), names::LX).is_some());
        // `exp` split differently from `sub`, whose LX slices it reads: cores read what
        // other cores computed.
        let exp = node(f, "exp");
        let split = fuselab_targets::spyre::attrs::i64s(exp, names::CORE_SPLIT).expect("split");
        let swapped: Vec<i64> = split.iter().rev().copied().collect();
        assert_ne!(split, swapped, "the injection must change the split");
        ir::set_attr(
            exp,
            names::CORE_SPLIT,
            ir::i64_array_attr(ir::context(f), &swapped),
        );
    });
    assert!(
        !simulated.is_ok_and(|s| close(&reference, &s)),
        "a wrong split went unnoticed"
    );
}

#[test]
fn a_relayout_inside_a_kernel_keeps_the_numbers() {
    let mut inside = false;
    let (reference, simulated) = planned_text(IN_KERNEL, CORES, false, |f| {
        let copies = ir::collect_ops(f, |n| n == names::RESTICKIFY);
        let kernel = ir::collect_ops(f, |n| n == "loop.kernel")[0];
        inside = copies.len() == 1 && ir::collect_ops(kernel, |n| n == names::RESTICKIFY).len() == 1;
    });
    assert!(inside, "the copy sits inside the kernel");
    assert!(close(&reference, &simulated.expect("simulates")));
}

/// The KTIR kernel named `<function>_<name>`.
fn kernel(func: MlirOperation, name: &str) -> MlirOperation {
    let full = format!("softmax_dim0_{name}");
    ir::collect_ops(func, |n| n == "spyre.kernel")
        .into_iter()
        .find(|&k| {
            ir::attr(k, "sym_name")
                .and_then(fuselab_dialects::attrs::string_raw)
                .as_deref()
                == Some(full.as_str())
        })
        .unwrap_or_else(|| panic!("no kernel {full}"))
}

/// Kernel `k`'s memory views.
fn views(k: MlirOperation) -> Vec<MlirOperation> {
    ir::collect_ops(k, |n| n == "spyre.memory_view")
}

#[test]
fn the_ktir_form_computes_the_reference() {
    for cores in [1, 4, CORES] {
        let mut kernels = 0;
        let (reference, simulated) = lowered(cores, |f| {
            kernels = ir::collect_ops(f, |n| n == "spyre.kernel").len()
        });
        assert!(kernels >= 5, "one kernel per op: {kernels}");
        assert!(
            close(&reference, &simulated.expect("runs the KTIR")),
            "{cores} cores"
        );
    }
}

#[test]
fn a_view_one_stick_off_changes_the_numbers() {
    let (reference, simulated) = lowered(CORES, |f| {
        // `div` reads `exp` one stick (128 bytes) further on.
        let v = views(kernel(f, "div"))[0];
        let at = ir::integer(v, "address").expect("address");
        ir::set_attr(v, "address", ir::i64_attr(ir::context(f), at + 128));
    });
    assert!(
        !simulated.is_ok_and(|s| close(&reference, &s)),
        "a wrong address went unnoticed"
    );
}

#[test]
fn a_kernel_short_of_a_core_changes_the_numbers() {
    let (reference, simulated) = lowered(CORES, |f| {
        // The last compute tile of `div` never runs: its box keeps device memory's fill.
        let k = kernel(f, "div");
        let cores = ir::integer(k, "cores").expect("cores");
        assert!(cores > 1);
        ir::set_attr(k, "cores", ir::i64_attr(ir::context(f), cores - 1));
    });
    assert!(
        !simulated.is_ok_and(|s| close(&reference, &s)),
        "a missing compute tile went unnoticed"
    );
}

#[test]
fn an_lx_piece_that_misses_an_element_fails() {
    let (_, simulated) = lowered(1, |f| {
        // One core holding every intermediate in LX: shrink the piece `exp` reads `sub` from.
        let v = views(kernel(f, "exp"))
            .into_iter()
            .find(|&v| !ir::i64s(v, "pieces").is_empty())
            .expect("an LX view");
        let mut pieces = ir::i64s(v, "pieces");
        pieces[1] -= 1;
        ir::set_attr(v, "pieces", ir::i64_array_attr(ir::context(f), &pieces));
    });
    let e = simulated.expect_err("reads outside its piece");
    assert!(e.contains("from its LX, which holds only"), "{e}");
}
