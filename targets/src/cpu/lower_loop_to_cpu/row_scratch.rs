//! Row scratch: when a reduction member of a row nest reduces a value that a later
//! pointwise member of the same nest computes again — the same ops on the same loads,
//! over the same row — and that value calls a `math` function, the reduction stores it
//! into a row-sized stack buffer as it accumulates, and the pointwise member loads it
//! instead of recomputing it. Softmax is the case: after pointwise inlining the row sum
//! reduces `exp(x - max)` and the output computes `exp(x - max) / sum`, so every `exp`
//! was evaluated twice (as Inductor's C++ kernels also do), and `exp` bounds the kernel
//! (issue 18: "a row scratch instead of recomputing exp"). The loaded values are the ones
//! recomputation gives (the same ops, rounded where a half type is stored), so outputs
//! are unchanged.
//!
//! The buffer is a `memref.alloca` at the top of the function that runs the row (the
//! kernel, or its outlined rows function under `--parallel`: one per thread), at most
//! [`MAX_ELEMENTS`] f32 values, so it stays in the first-level cache.

use super::*;

/// The largest row (elements) kept in a scratch buffer: 64 KiB of f32.
pub(super) const MAX_ELEMENTS: i64 = 16_384;

/// The row scratches of the step being generated.
#[derive(Default)]
pub(super) struct RowScratches {
    /// Reduction member (op pointer) -> the buffer it stores its reduced values in.
    pub stores: HashMap<usize, Value>,
    /// Op of a pointwise member's body (op pointer) -> the buffer holding its value at
    /// the row position of the member's inner loop variables (after `prefix` dims).
    pub loads: HashMap<usize, (Value, usize)>,
}

impl Gen {
    /// Chooses the row scratches of a step whose nest covers the leading `prefix` dims
    /// and allocates them at the top of the function being generated.
    pub(super) fn plan_row_scratches(&mut self, members: &[MlirOperation], prefix: &[i64]) {
        for (i, &r) in members.iter().enumerate() {
            if ir::op_name(r) != names::REDUCTION || i64s(r, "ranges") != prefix {
                continue;
            }
            let rranges = i64s(r, "reduction_ranges");
            let row: i64 = rranges.iter().product();
            let Some((rblock, reduced)) = yielded(r) else {
                continue;
            };
            let float = unsafe { mlir_sys::mlirTypeIsAF32(ir::value_type(reduced)) };
            if !float || !(2..=MAX_ELEMENTS).contains(&row) || !calls_math(reduced) {
                continue;
            }
            let mut buffer = None;
            for &p in &members[i + 1..] {
                if ir::op_name(p) != names::POINTWISE || all_ranges(p) != all_ranges(r) {
                    continue;
                }
                let Some(pblock) = ir::first_block(ir::region(p, 0)) else {
                    continue;
                };
                let mut memo = HashMap::new();
                let found = ir::block_ops(pblock).into_iter().find(|&op| {
                    ir::result_count(op) == 1
                        && same_value(reduced, ir::result(op, 0), rblock, pblock, &mut memo)
                });
                if let Some(op) = found {
                    let memref = *buffer.get_or_insert_with(|| self.stack_buffer(row));
                    self.row_scratch
                        .loads
                        .insert(op.ptr as usize, (memref, prefix.len()));
                }
            }
            if let Some(memref) = buffer {
                self.row_scratch.stores.insert(r.ptr as usize, memref);
            }
        }
    }

    /// A `memref<n x f32>` on the stack of the function being generated (allocated at
    /// its entry, once per call).
    pub(super) fn stack_buffer(&mut self, n: i64) -> Value {
        let ty = self.b.flat_memref(n, self.b.f32_type());
        let segments = self.b.i32_array_attr(&[0, 0]);
        let align = self.b.int_attr(self.b.int_type(64), 64);
        let op = ir::create(
            "memref.alloca",
            self.b.location(),
            &[],
            &[ty],
            &[("operandSegmentSizes", segments), ("alignment", align)],
            Vec::new(),
        );
        // SAFETY: a live block taking ownership of a detached op.
        unsafe { mlir_sys::mlirBlockInsertOwnedOperation(self.func.entry, 0, op) };
        ir::result(op, 0)
    }
}

/// The body block of `node` and the value it yields.
fn yielded(node: MlirOperation) -> Option<(MlirBlock, Value)> {
    let block = ir::first_block(ir::region(node, 0))?;
    let last = ir::block_ops(block).into_iter().last()?;
    if ir::op_name(last) != "gpu.yield" {
        return None;
    }
    ir::operands(last).first().map(|&v| (block, v))
}

/// Whether the ops computing `v` inside its body call a `math` function.
fn calls_math(v: Value) -> bool {
    let mut stack = vec![v];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = stack.pop() {
        let Some(op) = ir::defining_op(v) else { continue };
        if !seen.insert(op.ptr as usize) {
            continue;
        }
        if ir::op_name(op).starts_with("math.") {
            return true;
        }
        stack.extend(ir::operands(op));
    }
    false
}

/// Whether `a` (in body `ba`) and `b` (in body `bb`) are the same computation: the same
/// block argument position, the same value defined outside both bodies (a buffer), or
/// the same op with equal attributes on operands that are the same computation.
fn same_value(
    a: Value,
    b: Value,
    ba: MlirBlock,
    bb: MlirBlock,
    memo: &mut HashMap<(usize, usize), bool>,
) -> bool {
    let key = (a.ptr as usize, b.ptr as usize);
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let same = match (argument_of(a, ba), argument_of(b, bb)) {
        (Some(i), Some(j)) => i == j,
        (None, None) => match (ir::defining_op(a), ir::defining_op(b)) {
            (Some(x), Some(y)) if ir::parent_block(x).ptr == ba.ptr && ir::parent_block(y).ptr == bb.ptr => {
                same_op(x, y) && {
                    let (xs, ys) = (ir::operands(x), ir::operands(y));
                    xs.len() == ys.len() && xs.iter().zip(&ys).all(|(&p, &q)| same_value(p, q, ba, bb, memo))
                }
            }
            // Both defined outside the bodies (buffers, constants): the same value.
            (Some(x), Some(y)) if ir::parent_block(x).ptr != ba.ptr && ir::parent_block(y).ptr != bb.ptr => {
                a.ptr == b.ptr
            }
            (None, None) => a.ptr == b.ptr,
            _ => false,
        },
        _ => false,
    };
    memo.insert(key, same);
    same
}

/// The same op name, result types and attributes.
fn same_op(x: MlirOperation, y: MlirOperation) -> bool {
    if ir::op_name(x) != ir::op_name(y) || ir::result_count(x) != ir::result_count(y) {
        return false;
    }
    let types_equal = (0..ir::result_count(x)).all(|i| unsafe {
        mlir_sys::mlirTypeEqual(ir::value_type(ir::result(x, i)), ir::value_type(ir::result(y, i)))
    });
    let (ax, ay) = (ir::named_attributes(x), ir::named_attributes(y));
    types_equal
        && ax.len() == ay.len()
        && ax.iter().all(|(k, v)| {
            ay.iter()
                .any(|(k2, v2)| k == k2 && unsafe { mlir_sys::mlirAttributeEqual(*v, *v2) })
        })
}

/// The position of `v` among `block`'s arguments, if it is one of them.
fn argument_of(v: Value, block: MlirBlock) -> Option<usize> {
    let n = ir::block_argument_number(v)?;
    // SAFETY: `v` is a block argument (checked above).
    let owner = unsafe { mlir_sys::mlirBlockArgumentGetOwner(v) };
    (owner.ptr == block.ptr).then_some(n)
}
