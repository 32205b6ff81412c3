//! `--inline-pointwise`: Inductor's realize rules at lowering time (seed 000 §6.3–6.4,
//! torch/_inductor/ir.py `StorageBox.should_realize_on_reuse`, `has_exceeded_max_reads`,
//! graph.py `run_node`).
//!
//! Nodes are visited in program order. Every load of a node that was *not* realized is
//! replaced by a copy of that node's body (recomputation), with the load's index mapped
//! into the producer's indices (flat index → `(i floordiv stride) mod size`, simplified).
//! Then the node itself is realized (kept as a buffer) when:
//! - it is a reduction (a reduction's output shape differs from its input: always stored);
//! - it is a graph output or the input of an extern kernel;
//! - it has more than one user and its body has more than `realize-opcount-threshold`
//!   ops or reads more than `realize-reads-threshold` distinct buffers
//!   (`should_realize_on_reuse`, GPU thresholds 30 and 4);
//! - it reads more than `realize-acc-reads-threshold` buffers or has more than
//!   `realize-opcount-threshold` ops whatever its users (`has_exceeded_max_reads`);
//! - a later op asked for it (`realize_hint`, set from the pooling ops' `x.realize_hint()`)
//!   and it loads more than once at a non-constant index (`StorageBox.realize_hint`:
//!   `nontrivial_read_count > 1`).
//!
//! A 4-D pointwise node realized because it is reused or reads too much is stored
//! channels-last (`[N, H, W, C]`, its readers' loads re-indexed) when it prefers that
//! layout under layout optimization (`maybe_apply_channels_last_stride_order`;
//! [`crate::analysis::prefer_channels_last`]): reductions over it then read it as
//! Inductor's do (a spatial mean of a batch norm after a convolution is an outer
//! reduction, which `--split-reductions`, run after this pass, splits as Inductor does).
//!
//! A node marked `inline` (a part of one computation fuse-import spells as several ops,
//! such as a max pool's partial maximums) is stored only as a graph output or an
//! extern's input.
//!
//! Unrealized nodes are erased; realized nodes and externs are renamed `buf0, buf1, ...`
//! in program order, as Inductor numbers realized buffers.

use crate::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use fuselab_dialects::ir;
use fuselab_dialects::loops::index::{from_affine_map_attr, unravel, IndexExpr};
use fuselab_dialects::loops::{names, INLINE, REALIZE_HINT};
use fuselab_dialects::{
    ir::string_list,
    loops::{body::BodyBuilder, node_ranges},
};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirValue};
use rustc_hash::{FxHashMap, FxHashSet};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "inline-pointwise",
    summary: "Inline unrealized pointwise nodes into their users; realize by Inductor's rules",
    anchor: "func.func",
    options: &[
        PassOption {
            name: "realize-reads-threshold",
            kind: OptionKind::UInt,
            default: "4",
            help: "a multi-user node reading more distinct buffers is realized",
        },
        PassOption {
            name: "realize-opcount-threshold",
            kind: OptionKind::UInt,
            default: "30",
            help: "a node with a larger body is realized",
        },
        PassOption {
            name: "realize-acc-reads-threshold",
            kind: OptionKind::UInt,
            default: "8",
            help: "a node reading more distinct buffers is realized, whatever its users",
        },
    ],
    run,
    id: &ID,
};

/// Why a node was realized (for tests and reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RealizeReason {
    /// Reductions always are.
    Reduction,
    /// Returned from the function.
    GraphOutput,
    /// Read by a `loop.extern`.
    ExternInput,
    /// More than one user and a large body or many reads.
    ReuseCost,
    /// Too many reads or ops in any case.
    AccumulatedReads,
    /// A later op asked for it (`realize_hint`) and it loads more than once at a
    /// non-constant index.
    Hint,
}

fn is_node(op: MlirOperation) -> bool {
    ir::with_op_name(op, |n| matches!(n, names::POINTWISE | names::REDUCTION))
}

use mlir_sys::MlirBlock;

/// Body op count after common-subexpression elimination (terminator excluded), as
/// Inductor's `inner_fn_opcount` counts with `OpCounterCSE`, and distinct buffers loaded.
/// Loads at a non-constant index, identical ones counted once: Inductor's
/// `inner_fn_opcount().nontrivial_read_count` (`OpCounterCSE.load` counts a load whose
/// index is not an integer).
fn nontrivial_reads(node: MlirOperation) -> usize {
    let mut seen: FxHashSet<(Vec<usize>, Option<usize>)> = FxHashSet::default();
    for load in ir::collect_ops(node, |n| n == names::LOAD) {
        let index = ir::attr(load, "index");
        let constant = ir::operands(load).len() == 1
            && index
                .and_then(from_affine_map_attr)
                .is_some_and(|(expr, _, _)| expr.as_constant().is_some());
        if !constant {
            let operands: Vec<usize> = ir::operands(load).iter().map(|v| v.ptr as usize).collect();
            // Attributes are uniqued: equal maps are the same pointer.
            seen.insert((operands, index.map(|a| a.ptr as usize)));
        }
    }
    seen.len()
}

fn body_stats(node: MlirOperation) -> (usize, usize) {
    let Some(block) = ir::body(node) else {
        return (0, 0);
    };
    let mut buffers: FxHashSet<usize> = FxHashSet::default();
    let mut canonical: FxHashMap<usize, usize> = FxHashMap::default();
    // Name, canonical operands and the four attributes that tell ops apart (names and
    // attributes are uniqued in their context: equal ones are the same pointer).
    let mut first_result: FxHashMap<(usize, Vec<usize>, Vec<usize>), Option<usize>> = FxHashMap::default();
    let mut index_math = 0;
    for op in ir::block_ops(block) {
        if ir::name_is(op, names::YIELD) {
            continue;
        }
        if ir::name_is(op, names::LOAD) {
            buffers.insert(ir::operand(op, 0).ptr as usize);
        }
        let operands: Vec<usize> = ir::operands(op)
            .into_iter()
            .map(|v| *canonical.get(&(v.ptr as usize)).unwrap_or(&(v.ptr as usize)))
            .collect();
        let attrs: Vec<usize> = ["index", "value", "map", "predicate"]
            .iter()
            .filter_map(|a| ir::attr(op, a).map(|v| v.ptr as usize))
            .collect();
        let result = (ir::result_count(op) == 1).then(|| ir::result(op, 0).ptr as usize);
        let entry = first_result.entry((ir::name_id(op), operands, attrs));
        if matches!(entry, std::collections::hash_map::Entry::Vacant(_)) && ir::name_is(op, "affine.apply") {
            // Index arithmetic (`affine.apply`) is sympy in Inductor, not an op its
            // counter sees: deduplicated, not counted.
            index_math += 1;
        }
        let first = *entry.or_insert(result);
        if let (Some(result), Some(first)) = (result, first) {
            canonical.insert(result, first);
        }
    }
    (first_result.len() - index_math, buffers.len())
}

/// Removes a body's repeated computations: an op without regions whose name, operands
/// and attributes equal an earlier one's is replaced by that one. The copies come from
/// inlining a producer once per reader when the readers themselves are inlined into one
/// body (a value read by two members of a chain); Inductor's kernel code gets the same
/// reuse from its CSE cache, so a body is as long as the `inner_fn_opcount` the realize
/// rules count ([`body_stats`]). Without it a chain whose values are read again several
/// members later grew its bodies exponentially (issue 44, item 4).
fn cse_body(block: MlirBlock) {
    // By name and operands; the attributes are compared only between ops that agree on
    // those (reading them builds a dictionary for ops with properties), and each op's
    // are read at most once (a body's constants all agree on name and operands).
    struct Earlier {
        op: MlirOperation,
        attrs: std::cell::OnceCell<Vec<(usize, usize)>>,
    }
    let mut first: FxHashMap<(usize, Vec<usize>), Vec<Earlier>> = FxHashMap::default();
    for op in ir::block_ops(block) {
        if ir::name_is(op, names::YIELD)
            || ir::result_count(op) != 1
            || unsafe { mlir_sys::mlirOperationGetNumRegions(op) } != 0
        {
            continue;
        }
        let operands: Vec<usize> = ir::operands(op).iter().map(|v| v.ptr as usize).collect();
        let earlier = first.entry((ir::name_id(op), operands)).or_default();
        // The first op of its name and operands has nothing to be compared with: its
        // attributes are read only when a second one comes.
        let attrs = std::cell::OnceCell::new();
        if !earlier.is_empty() {
            let own = attrs.get_or_init(|| ir::attribute_ids(op));
            if let Some(e) = earlier
                .iter()
                .find(|e| e.attrs.get_or_init(|| ir::attribute_ids(e.op)) == own)
            {
                ir::replace_uses(ir::result(op, 0), ir::result(e.op, 0));
                ir::erase(op);
                continue;
            }
        }
        earlier.push(Earlier { op, attrs });
    }
}

/// Inlines the unrealized producer read by `load` into the load's block.
fn inline_load(load: MlirOperation, producer: MlirOperation) -> Result<MlirValue, String> {
    let consumer_block = ir::parent_block(load);
    let consumer_ranges = node_ranges(top_level_node(load)).ok_or("consumer without ranges")?;
    let producer_ranges = node_ranges(producer).ok_or("producer without ranges")?;
    let (flat, _, _) =
        from_affine_map_attr(ir::attr(load, "index").ok_or("load without index")?).ok_or("bad load index")?;
    let load_syms: Vec<MlirValue> = ir::operands(load).into_iter().skip(1).collect();
    let p_idx = unravel(&flat, &producer_ranges, &consumer_ranges);
    let bx = BodyBuilder {
        ctx: ir::context(load),
        loc: ir::location(load),
        block: consumer_block,
        ranges: consumer_ranges.clone(),
        before: Some(load),
    };
    let pblock = ir::body(producer).ok_or("producer without body")?;
    let value = bx.copy_body(pblock, &p_idx, &load_syms)?;
    ir::replace_uses(ir::result(load, 0), value);
    ir::erase(load);
    // The consumer now also computes what the producer came from (Inductor's origins).
    let consumer = top_level_node(consumer_block_owner(consumer_block));
    let mut origins = string_list(consumer, "origins");
    origins.extend(string_list(producer, "origins"));
    origins.sort();
    origins.dedup();
    ir::set_attr(
        consumer,
        "origins",
        ir::string_array_attr(ir::context(consumer), &origins),
    );
    Ok(value)
}

fn consumer_block_owner(block: MlirBlock) -> MlirOperation {
    unsafe { mlir_sys::mlirBlockGetParentOperation(block) }
}

fn top_level_node(mut op: MlirOperation) -> MlirOperation {
    loop {
        if is_node(op) {
            return op;
        }
        op = unsafe { mlir_sys::mlirOperationGetParentOperation(op) };
    }
}

/// Replaces pointwise `node` over `[N, C, H, W]` by one computing the same values over
/// `[N, H, W, C]` (stored channels-last) and re-indexes its readers' loads; returns the
/// new node. `None` (nothing changed) where the layouts coincide (one channel or one
/// spatial element), the node's ranges are not its result's shape, or a user is not a
/// load.
fn store_channels_last(node: MlirOperation) -> Result<Option<MlirOperation>, String> {
    let result = ir::result(node, 0);
    let (Some(ty), Some(body)) = (ir::tensor_type(result), ir::body(node)) else {
        return Ok(None);
    };
    let users = ir::users(result);
    let [n, c, h, w] = ty.shape[..] else {
        return Ok(None);
    };
    // The body's indices are the node's ranges: only a node iterating its result's
    // own dims is rebuilt (an unrolled reduction iterates its kept dims alone).
    if ir::op_name(node) != names::POINTWISE
        || ir::i64s(node, "ranges") != ty.shape
        || !fuselab_dialects::loops::channels_last_differs(&ty.shape)
        || users.iter().any(|&u| ir::op_name(u) != names::LOAD)
    {
        return Ok(None);
    }
    let ctx = ir::context(node);
    let stored = vec![n, h, w, c];
    let bx = BodyBuilder::new_block(ctx, ir::location(node), stored.clone());
    let d = IndexExpr::dim;
    let value = bx.copy_body(body, &[d(0), d(3), d(1), d(2)], &[])?;
    bx.finish(value);
    let ranges = ir::i64_array_attr(ctx, &stored);
    let attributes: Vec<(String, mlir_sys::MlirAttribute)> = ir::named_attributes(node)
        .into_iter()
        .map(|(name, a)| {
            if name == "ranges" {
                (name, ranges)
            } else {
                (name, a)
            }
        })
        .collect();
    let attributes: Vec<(&str, mlir_sys::MlirAttribute)> =
        attributes.iter().map(|(name, a)| (name.as_str(), *a)).collect();
    let stored_ty = fuselab_dialects::types::TensorType {
        shape: stored,
        dtype: ty.dtype,
    };
    let result_ty = ir::parse_type(ctx, &stored_ty.to_string()).ok_or("unprintable type")?;
    let relaid = ir::create(
        names::POINTWISE,
        ir::location(node),
        &[],
        &[result_ty],
        &attributes,
        vec![ir::new_region(bx.block)],
    );
    ir::insert_before(node, relaid);
    // Each reader's logical [n, c, h, w] index, now at n*HWC + c + h*WC + w*C.
    let strides = [h * w * c, 1, w * c, c];
    for load in users {
        let reader_ranges = node_ranges(top_level_node(load)).ok_or("reader without ranges")?;
        let (flat, dims, syms) = from_affine_map_attr(ir::attr(load, "index").ok_or("load without index")?)
            .ok_or("bad load index")?;
        let index = unravel(&flat, &ty.shape, &reader_ranges)
            .iter()
            .zip(strides)
            .fold(IndexExpr::constant(0), |acc, (x, s)| acc.add(&x.scale(s)));
        let map = index.to_affine_map_attr(ctx, dims, syms);
        ir::set_attr(load, "index", map);
        ir::set_operand(load, 0, ir::result(relaid, 0));
    }
    ir::erase(node);
    Ok(Some(relaid))
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let func_raw = func.to_raw();
    cx.require_loop_ir(func_raw)?;
    let Some(block) = ir::body(func_raw) else {
        return Ok(());
    };
    let reads_threshold = cx.options.uint("realize-reads-threshold") as usize;
    let opcount_threshold = cx.options.uint("realize-opcount-threshold") as usize;
    let acc_threshold = cx.options.uint("realize-acc-reads-threshold") as usize;
    let ops = ir::block_ops(block);
    let prefer_channels_last = crate::analysis::prefer_channels_last::of_block(block);
    let mut realized: FxHashSet<usize> = FxHashSet::default();
    let mut unrealized: Vec<MlirOperation> = Vec::new();
    for &node in ops.iter().filter(|&&op| is_node(op)) {
        // 1. Recompute unrealized producers inside this node's body.
        let loads: Vec<MlirOperation> = ir::collect_ops(node, |n| n == names::LOAD);
        // Identical reads of the same producer are recomputed once (CSE, as Inductor's
        // codegen does); without this, x * x chains would grow exponentially.
        let mut inlined: FxHashMap<(Vec<usize>, Option<usize>), MlirValue> = FxHashMap::default();
        for load in loads {
            let buffer = ir::operand(load, 0);
            if let Some(producer) = ir::defining_op(buffer) {
                if is_node(producer) && !realized.contains(&(producer.ptr as usize)) {
                    let operands: Vec<usize> = ir::operands(load).iter().map(|v| v.ptr as usize).collect();
                    let index = ir::attr(load, "index").map(|a| a.ptr as usize);
                    let key = (operands, index);
                    if let Some(&value) = inlined.get(&key) {
                        ir::replace_uses(ir::result(load, 0), value);
                        ir::erase(load);
                        continue;
                    }
                    match inline_load(load, producer) {
                        Ok(value) => {
                            inlined.insert(key, value);
                        }
                        Err(message) => {
                            cx.sink.error(
                                unsafe { ir::op_ref(node) }.location(),
                                format!("cannot inline: {message}"),
                            );
                            return Err(PassFailed);
                        }
                    }
                }
            }
        }
        if let Some(body) = ir::body(node) {
            cse_body(body);
        }
        // 2. Decide whether this node is stored (realized).
        let result = ir::result(node, 0);
        let mut consumers: FxHashSet<usize> = FxHashSet::default();
        let mut reason = None;
        for user in ir::users(result) {
            let top = ir::ancestor_in(user, block);
            match ir::op_name(top).as_str() {
                "func.return" | names::VIEW => reason = reason.or(Some(RealizeReason::GraphOutput)),
                names::EXTERN => reason = reason.or(Some(RealizeReason::ExternInput)),
                _ => {}
            }
            consumers.insert(top.ptr as usize);
        }
        let (opcount, reads) = body_stats(node);
        // A part of a larger node's computation is stored only when it must be.
        let part = ir::attr(node, INLINE).is_some();
        if ir::op_name(node) == names::REDUCTION {
            reason = Some(RealizeReason::Reduction);
        } else if part {
        } else if reason.is_none()
            && consumers.len() > 1
            && (opcount > opcount_threshold || reads > reads_threshold)
        {
            reason = Some(RealizeReason::ReuseCost);
        } else if reason.is_none() && (reads > acc_threshold || opcount > opcount_threshold) {
            reason = Some(RealizeReason::AccumulatedReads);
        } else if reason.is_none() && ir::attr(node, REALIZE_HINT).is_some() && nontrivial_reads(node) > 1 {
            reason = Some(RealizeReason::Hint);
        }
        let reused = matches!(
            reason,
            Some(RealizeReason::ReuseCost | RealizeReason::AccumulatedReads)
        );
        if reused && prefer_channels_last.contains(&(node.ptr as usize)) {
            match store_channels_last(node) {
                Ok(Some(relaid)) => {
                    realized.insert(relaid.ptr as usize);
                    continue;
                }
                Ok(None) => {}
                Err(message) => {
                    cx.sink.error(
                        unsafe { ir::op_ref(node) }.location(),
                        format!("cannot store channels-last: {message}"),
                    );
                    return Err(PassFailed);
                }
            }
        }
        if reason.is_some() {
            realized.insert(node.ptr as usize);
        } else {
            unrealized.push(node);
        }
    }
    // 3. Erase what every consumer recomputed, then number the stored buffers.
    for &node in unrealized.iter().rev() {
        if ir::has_uses(ir::result(node, 0)) {
            cx.sink.error(
                unsafe { ir::op_ref(node) }.location(),
                "unrealized node still has users (a fuselab bug)",
            );
            return Err(PassFailed);
        }
        ir::erase(node);
    }
    let ctx = ir::context(func_raw);
    let mut next = 0;
    for op in ir::block_ops(block) {
        if is_node(op) || ir::name_is(op, names::EXTERN) {
            ir::set_attr(op, "name", ir::string_attr(ctx, &format!("buf{next}")));
            next += 1;
        }
    }
    Ok(())
}
