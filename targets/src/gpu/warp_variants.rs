//! `--tile-warp-variants`: compile each reduction kernel in several warp counts and let
//! the device choose (Inductor's autotuning of reductions).
//!
//! Rule (torch/_inductor/runtime/triton_heuristics.py): a reduction kernel is compiled in
//! several `triton.Config`s and `CachingAutotuner.benchmark_all_configs` times each on the
//! device at its first call, keeping the fastest; which config wins depends on the card
//! (an H100 and an H200 differ on softmax's rows, docs/gpu.md). Here the configs differ
//! in `num_warps` only — the block and the grid stay those of the launch rule, so the
//! variants take the same buffers and the same grid, and the host plan stays one step
//! with alternatives.
//!
//! For every `tile.kernel` holding a `tile.reduce`: one clone `@<kernel>__w<W>` per
//! power of two `W` in `1..=max-warps` (other than the kernel's own) whose threads hold
//! between `min-per-thread` and `max-per-thread` block elements each (fewer than 4 loses
//! the 128-bit accesses, more than 32 the registers); the `tile.launch`es of the kernel
//! list them in `variants = [@k__w1, ...]` (the kernel itself stays the default).
//! `--lower-tile-to-gpu` lowers the clones like any kernel and gives each variant its
//! threads; the bundle's launch step carries them and `tools/gpu/run.py` times them.

use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{build::Builder, ir};
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::{operation::OperationLike as _, Location, OperationRef};
use mlir_sys::MlirOperation;
use std::collections::{BTreeMap, HashSet};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "tile-warp-variants",
    summary: "Clone each tile reduction kernel with other num_warps as launch variants the device runner times (Inductor's autotuning)",
    anchor: "builtin.module",
    options: &[
        PassOption {
            name: "max-warps",
            kind: OptionKind::UInt,
            default: "16",
            help: "the most warps of a variant (a power of two, at most 32)",
        },
        PassOption {
            name: "min-per-thread",
            kind: OptionKind::UInt,
            default: "4",
            help: "the fewest block elements a thread of a variant holds",
        },
        PassOption {
            name: "max-per-thread",
            kind: OptionKind::UInt,
            default: "32",
            help: "the most block elements a thread of a variant holds",
        },
    ],
    run,
    id: &ID,
};

/// The variant rule's knobs (the pass options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpRule {
    /// The most warps of a variant.
    pub max_warps: i64,
    /// The fewest block elements per thread.
    pub min_per_thread: i64,
    /// The most block elements per thread.
    pub max_per_thread: i64,
}

impl Default for WarpRule {
    fn default() -> Self {
        Self {
            max_warps: 16,
            min_per_thread: 4,
            max_per_thread: 32,
        }
    }
}

impl WarpRule {
    /// The warp counts of the variants of a kernel of `elements` block elements launched
    /// with `own` warps, ascending, without `own`.
    pub fn candidates(&self, elements: i64, own: i64) -> Vec<i64> {
        (0..=5)
            .map(|p| 1i64 << p)
            .filter(|&w| w <= self.max_warps && w != own)
            .filter(|&w| {
                let per_thread = (elements + 32 * w - 1) / (32 * w);
                (self.min_per_thread..=self.max_per_thread).contains(&per_thread)
            })
            .collect()
    }
}

fn sym_name(op: MlirOperation) -> String {
    ir::attr(op, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default()
}

fn run(module: OperationRef<'_, '_>, cx: &PassContext) -> Result<(), PassFailed> {
    let rule = WarpRule {
        max_warps: cx.options.uint("max-warps") as i64,
        min_per_thread: cx.options.uint("min-per-thread") as i64,
        max_per_thread: cx.options.uint("max-per-thread") as i64,
    };
    let error = |loc: Location, m: String| {
        cx.sink.error(loc, format!("--tile-warp-variants: {m}"));
        PassFailed
    };
    if !(1..=32).contains(&rule.max_warps) || rule.max_warps & (rule.max_warps - 1) != 0 {
        return Err(error(
            module.location(),
            format!("max-warps={} is not a power of two in 1..=32", rule.max_warps),
        ));
    }
    if rule.min_per_thread < 1 || rule.min_per_thread > rule.max_per_thread {
        return Err(error(
            module.location(),
            format!(
                "min-per-thread={} must be at least 1 and at most max-per-thread={}",
                rule.min_per_thread, rule.max_per_thread
            ),
        ));
    }
    let raw = module.to_raw();
    let block = ir::body(raw).ok_or(PassFailed)?;
    let launches = ir::collect_ops(raw, |n| n == tile_op::LAUNCH);
    let at = |op: MlirOperation| unsafe { Location::from_raw(ir::location(op)) };
    // The pass means something only between the two GPU stages, once.
    if let Some(&lowered) = ir::ops_named(block, "gpu.module").first() {
        return Err(error(
            at(lowered),
            "the kernels are lowered to GPU code already: run before --lower-tile-to-gpu".into(),
        ));
    }
    if let Some(&again) = launches.iter().find(|&&l| ir::attr(l, "variants").is_some()) {
        return Err(error(at(again), "this launch has variants already".into()));
    }
    if let Some(&early) = ir::collect_ops(raw, |n| n.starts_with("loop.") || n.starts_with("aten.")).first() {
        return Err(error(
            at(early),
            format!(
                "'{}' is not lowered to tile kernels yet: run after --lower-loop-to-tile",
                ir::op_name(early)
            ),
        ));
    }
    let kernels = ir::ops_named(block, tile_op::KERNEL);
    let names: HashSet<String> = kernels.iter().map(|&k| sym_name(k)).collect();
    let b = Builder::new(ir::location(raw));
    let i64t = b.int_type(64);
    let mut variants: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for k in kernels {
        if ir::collect_ops(k, |n| n == tile_op::REDUCE).is_empty() {
            continue;
        }
        let (name, shape) = (sym_name(k), ir::i64s(k, "block"));
        let own = ir::integer(k, "num_warps").unwrap_or(4);
        for w in rule.candidates(shape.iter().product(), own) {
            let variant = format!("{name}__w{w}");
            if names.contains(&variant) {
                return Err(error(at(k), format!("a kernel named @{variant} exists already")));
            }
            let clone = ir::clone(k);
            ir::set_attr(clone, "sym_name", b.string_attr(&variant));
            ir::set_attr(clone, "num_warps", b.int_attr(i64t, w));
            ir::insert_before(k, clone);
            variants.entry(name.clone()).or_default().push(variant);
        }
    }
    let ctx = b.context();
    for launch in launches {
        let Some(list) =
            ir::attr(launch, "kernel").and_then(|c| variants.get(&ir::symbol_leaf(c).unwrap_or_default()))
        else {
            continue;
        };
        let refs: Vec<_> = list.iter().map(|v| b.symbol_ref(v)).collect();
        ir::set_attr(launch, "variants", ir::array_attr(ctx, &refs));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_keep_4_to_32_elements_per_thread() {
        let rule = WarpRule::default();
        // softmax's row of 1024 at 4 warps: 1 (32 per thread), 2 (16), 8 (4).
        assert_eq!(rule.candidates(1024, 4), vec![1, 2, 8]);
        // A 4096 row: 4 (32), 8 (16), 16 (8); 32 warps exceed max-warps.
        assert_eq!(rule.candidates(4096, 8), vec![4, 16]);
        // A tiny block: only counts that keep 4 per thread.
        assert_eq!(rule.candidates(64, 1), Vec::<i64>::new());
        assert_eq!(rule.candidates(256, 1), vec![2]);
        let wide = WarpRule {
            max_warps: 32,
            min_per_thread: 1,
            max_per_thread: 4,
        };
        assert_eq!(wide.candidates(4096, 8), vec![32]);
    }
}
