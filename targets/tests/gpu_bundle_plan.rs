//! The bundle's launch plan (`gpu::bundle::plans`) reads a host function only once its
//! launches name kernels of the `gpu.module` that `--lower-tile-to-gpu` makes: the
//! launch's symbol root is that module (read from the reference, not from its printed
//! text), the leaf names the PTX `.entry`, and each variant keeps its threads.

use fuselab_dialects::{source::parse_module, DiagnosticSink, FuseContext};
use fuselab_targets::gpu::bundle::{plans, Plan, Step};
use fuselab_targets::gpu::lower_tile_to_gpu::KERNEL_MODULE;

/// A host function launching `kernel` (a symbol reference, as written) over one input and
/// one output of 64 floats; `extra` is appended to the launch's attributes.
fn host(kernel: &str, extra: &str) -> String {
    format!(
        r#"module {{
  func.func @f(%arg0: memref<64xf32>, %arg1: memref<64xf32>) attributes {{fuselab.arg_shapes = [array<i64: 64>, array<i64: 64>], fuselab.num_inputs = 1 : i64}} {{
    "tile.launch"() ({{
      gpu.yield %arg0, %arg1 : memref<64xf32>, memref<64xf32>
    }}) {{kernel = {kernel}, grid = array<i64: 2>, threads = 64 : i64{extra}}} : () -> ()
    return
  }}
}}
"#
    )
}

fn plan_of(text: &str) -> Result<Vec<Plan>, String> {
    let fuse = FuseContext::new().expect("context");
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let module = parse_module(fuse.context(), text, "host.mlir", &sink)
        .unwrap_or_else(|| panic!("parses:\n{text}\n{:?}", sink.take()));
    plans(module.as_operation().to_raw())
}

#[test]
fn launch_of_a_tile_kernel_is_refused() {
    let err = plan_of(&host("@f_fused_relu_0", "")).expect_err("a tile-level launch has no PTX entry");
    assert_eq!(err, "@f: launch of @f_fused_relu_0 before --lower-tile-to-gpu");
    // A kernel of another module is not one of the PTX's entries either, even when its
    // name spells the kernel module's.
    let other = format!("@other::@{KERNEL_MODULE}_k");
    let err = plan_of(&host(&other, "")).expect_err("another module");
    assert!(err.contains("before --lower-tile-to-gpu"), "{err}");
}

#[test]
fn lowered_launch_and_its_variants() {
    let text = host(
        &format!("@{KERNEL_MODULE}::@k"),
        &format!(
            ", variants = [@{KERNEL_MODULE}::@k__w1, @{KERNEL_MODULE}::@k__w4], variant_threads = array<i64: 32, 128>"
        ),
    );
    let plans = plan_of(&text).expect("a lowered launch");
    assert_eq!(plans.len(), 1);
    assert_eq!(plans[0].buffers.len(), 2);
    match plans[0].steps.as_slice() {
        [Step::Launch {
            kernel,
            grid,
            threads,
            args,
            variants,
        }] => {
            assert_eq!(kernel, "k");
            assert_eq!((*grid, *threads), (2, 64));
            assert_eq!(args, &[0, 1]);
            assert_eq!(variants, &[("k__w1".to_string(), 32), ("k__w4".to_string(), 128)]);
        }
        steps => panic!("one launch expected, got {steps:?}"),
    }
}
