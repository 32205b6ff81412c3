//! The `loop` dialect: Inductor's loop-level IR. Typed op kinds, accessors, builders
//! and a structural verifier for what IRDL cannot check (index arity, ranges vs types).

pub mod body;
mod combine;
mod concat;
pub mod index;
mod rnn_cell;
mod view_layout;
pub use combine::combine_op;
pub use concat::{concat_part, concat_slices, extern_kind, is_concat, written_into_concat};
pub use view_layout::{channels_last_differs, view_layout, StoredOrder, ViewLayout};

use crate::{
    attrs,
    diagnostics::DiagnosticSink,
    types::{shape_str, TensorType},
};
use melior::{
    ir::{
        attribute::{ArrayAttribute, DenseI64ArrayAttribute, StringAttribute},
        operation::{OperationBuilder, OperationLike, WalkOrder, WalkResult},
        Attribute, AttributeLike, Identifier, Location, Operation, OperationRef, Region, Type, Value,
    },
    Context,
};
use std::fmt;

/// Op names of the `loop` dialect (and the body terminator), usable in `match` patterns.
pub mod names {
    /// `loop.pointwise`.
    pub const POINTWISE: &str = "loop.pointwise";
    /// `loop.reduction`.
    pub const REDUCTION: &str = "loop.reduction";
    /// `loop.load`.
    pub const LOAD: &str = "loop.load";
    /// `loop.extern`.
    pub const EXTERN: &str = "loop.extern";
    /// `loop.view`.
    pub const VIEW: &str = "loop.view";
    /// `loop.kernel`.
    pub const KERNEL: &str = "loop.kernel";
    /// `loop.output`.
    pub const OUTPUT: &str = "loop.output";
    /// The terminator of every `loop` body (`gpu.yield`).
    pub const YIELD: &str = "gpu.yield";
}

/// Every operation of the `loop` dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopOpKind {
    /// `loop.pointwise`: a node computing one value per index.
    Pointwise,
    /// `loop.reduction`: a node combining values over reduction ranges.
    Reduction,
    /// `loop.load`: read one scalar of a buffer at an affine flat index.
    Load,
    /// `loop.extern`: a library kernel (matmul, convolution), a fusion barrier.
    Extern,
    /// `loop.view`: a strided view of a buffer (no copy).
    View,
    /// `loop.kernel`: a fused group of nodes.
    Kernel,
    /// `loop.output`: one buffer of a kernel's result tuple.
    Output,
}

impl LoopOpKind {
    /// All ops, in the order of `loop.irdl.mlir`.
    pub const ALL: &'static [LoopOpKind] = &[
        Self::Pointwise,
        Self::Reduction,
        Self::Load,
        Self::Extern,
        Self::View,
        Self::Kernel,
        Self::Output,
    ];

    /// The full op name (`loop.pointwise`).
    pub const fn op_name(self) -> &'static str {
        match self {
            Self::Pointwise => names::POINTWISE,
            Self::Reduction => names::REDUCTION,
            Self::Load => names::LOAD,
            Self::Extern => names::EXTERN,
            Self::View => names::VIEW,
            Self::Kernel => names::KERNEL,
            Self::Output => names::OUTPUT,
        }
    }

    /// The kind for a full op name.
    pub fn from_op_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|kind| kind.op_name() == name)
    }

    /// The kind of `op`, if it is a `loop` op.
    pub fn of(op: &OperationRef) -> Option<Self> {
        Self::from_op_name(op.name().as_string_ref().as_str().ok()?)
    }
}

impl fmt::Display for LoopOpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.op_name())
    }
}

/// The terminator of every `loop` body (IRDL cannot define terminators).
pub const BODY_TERMINATOR: &str = names::YIELD;

/// How a `loop.reduction` combines values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionKind {
    /// Sum.
    Sum,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
    /// Product.
    Prod,
    /// Index of the maximum.
    Argmax,
    /// Index of the minimum.
    Argmin,
}

impl ReductionKind {
    /// All kinds.
    pub const ALL: &'static [ReductionKind] = &[
        Self::Sum,
        Self::Max,
        Self::Min,
        Self::Prod,
        Self::Argmax,
        Self::Argmin,
    ];

    /// The `kind` attribute value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Sum => "sum",
            Self::Max => "max",
            Self::Min => "min",
            Self::Prod => "prod",
            Self::Argmax => "argmax",
            Self::Argmin => "argmin",
        }
    }

    /// Parses the `kind` attribute value.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.as_str() == text)
    }
}

/// Which library kernel a `loop.extern` calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExternKind {
    /// Matrix product.
    Mm,
    /// Batched matrix product.
    Bmm,
    /// Convolution.
    Convolution,
    /// Concatenation along `dim` of mm results that are written straight into their
    /// slices of its result (Inductor's `ConcatKernel`: no kernel of its own).
    Concat,
    /// Scaled dot-product attention as one fused kernel: query, key, value and an
    /// optional additive mask, in the operand positions `sdpa_operands` gives (IRDL binds
    /// one type to all of the variadic operands, the third on: two of one type go last);
    /// `scale`; its result [B, L, H, Ev] (PyTorch's efficient-attention output layout,
    /// heads after rows).
    Sdpa,
    /// PyTorch's fused LSTM cell (`_thnn_fused_lstm_cell`): the two gate products
    /// stacked `[2B, 4H]`, cx `[B, H]`, none or two biases; hy and cy stacked
    /// `[2, B, H]` (`crate::aten::RnnCell`).
    LstmCell,
    /// PyTorch's fused GRU cell (`_thnn_fused_gru_cell`): the two gate products stacked
    /// `[2B, 3H]`, hx `[B, H]`, none or two biases; hy `[B, H]`.
    GruCell,
}

impl ExternKind {
    /// All kinds.
    pub const ALL: &'static [ExternKind] = &[
        Self::Mm,
        Self::Bmm,
        Self::Convolution,
        Self::Concat,
        Self::Sdpa,
        Self::LstmCell,
        Self::GruCell,
    ];

    /// The `kind` attribute value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Mm => "mm",
            Self::Bmm => "bmm",
            Self::Convolution => "convolution",
            Self::Concat => "concat",
            Self::Sdpa => "sdpa",
            Self::LstmCell => "lstm_cell",
            Self::GruCell => "gru_cell",
        }
    }

    /// Parses the `kind` attribute value.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.as_str() == text)
    }
}

/// Attribute names of `loop` ops.
pub mod attr {
    /// `string`: the buffer name (`buf0`) or kernel name.
    pub const NAME: &str = "name";
    /// `array<i64>`: the pointwise (output) index ranges.
    pub const RANGES: &str = "ranges";
    /// `array<i64>`: the reduction index ranges.
    pub const REDUCTION_RANGES: &str = "reduction_ranges";
    /// `string`: reduction or extern kind.
    pub const KIND: &str = "kind";
    /// `array<i64>` on an `sdpa` extern: the operand positions of query, key, value and
    /// (when there is one) the mask.
    pub const SDPA_OPERANDS: &str = "sdpa_operands";
    /// `[string]`: aten ops the node came from.
    pub const ORIGINS: &str = "origins";
    /// `affine_map`: flat storage offset of a load.
    pub const INDEX: &str = "index";
    /// `array<i64>`: a kernel's (numel, rnumel).
    pub const ITERATION: &str = "iteration";
    /// `string`: the fusion strategy that formed a kernel.
    pub const STRATEGY: &str = "strategy";
    /// `i64`: which kernel output a `loop.output` reads (same name as a load's index).
    pub const OUTPUT_INDEX: &str = "index";
    /// On externs: per operand, `[]` or `[offset, sizes..., strides...]`.
    pub const OPERAND_VIEWS: &str = "operand_views";
    /// `array<i64>` on a convolution extern: its buffer's dim order ([`super::StoredOrder`]).
    pub const RESULT_ORDER: &str = "result_order";
}

/// All index extents of a node (`loop.pointwise` / `loop.reduction`): ranges, then
/// reduction ranges. `None` when the node has no `ranges`.
pub fn node_ranges(node: mlir_sys::MlirOperation) -> Option<Vec<i64>> {
    // SAFETY: a live op handle, used only for this read.
    let op = LoopOp::new(unsafe { crate::ir::op_ref(node) })?;
    let mut all = op.ranges()?;
    all.extend(op.reduction_ranges());
    Some(all)
}

/// The attribute naming the order in which a `loop.pointwise` iterates its ranges
/// (Inductor's loop reordering, `SchedulerNode.apply_new_loop_order`): iteration dim
/// `k` is the node's dim `loop_order[k]`. The result is still stored at its row-major
/// index, so the values do not depend on it; code generators that follow it iterate
/// the node in that order (and store it strided).
pub const LOOP_ORDER: &str = "loop_order";

/// The unit attribute of a `loop.pointwise` whose value a later op expects to be
/// stored (Inductor's `StorageBox.realize_hint`, called by the pooling lowerings on
/// their input): `--inline-pointwise` realizes it when its body makes more than one
/// load at a non-constant index.
pub const REALIZE_HINT: &str = "realize_hint";

/// The unit attribute of a `loop.pointwise` that is part of a larger node's
/// computation: `--inline-pointwise` never realizes it on its own account (size or
/// reuse), only when it is a graph output or an extern's input.
pub const INLINE: &str = "inline";

/// The unit attribute of an `arith.truncf` in a node body that rounds a half-precision
/// op's f32 result (PyTorch's op math) to its dtype, as eager kernels store it — not an
/// explicit cast. Targets that keep half values in f32 inside fused kernels (Ascend)
/// skip it there.
pub const OPMATH: &str = "fuselab.opmath";

/// A node's `loop_order`, if it has one (a permutation of its dims; the verifier
/// checks it).
pub fn loop_order(node: mlir_sys::MlirOperation) -> Option<Vec<usize>> {
    let attr = crate::ir::attr(node, LOOP_ORDER)?;
    // SAFETY: a live attribute handle, used only for this read.
    let order = attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(attr) })?;
    Some(order.into_iter().map(|d| d.max(0) as usize).collect())
}

/// Whether `order` is a permutation of `0..n`.
pub fn is_permutation(order: &[usize], n: usize) -> bool {
    let mut seen = vec![false; n];
    order.len() == n
        && order
            .iter()
            .all(|&d| d < n && !std::mem::replace(&mut seen[d], true))
}

/// A node's `ranges` in the order it iterates them (permuted by its `loop_order`).
pub fn ordered_ranges(node: mlir_sys::MlirOperation) -> Vec<i64> {
    let ranges = crate::ir::i64s(node, attr::RANGES);
    match loop_order(node).filter(|o| is_permutation(o, ranges.len())) {
        Some(order) => order.iter().map(|&d| ranges[d]).collect(),
        None => ranges,
    }
}

/// All of a node's indices in the order it iterates them: [`ordered_ranges`], then its
/// reduction ranges.
pub fn iteration_ranges(node: mlir_sys::MlirOperation) -> Option<Vec<i64>> {
    let all = node_ranges(node)?;
    let mut ordered = ordered_ranges(node);
    ordered.extend_from_slice(&all[ordered.len().min(all.len())..]);
    Some(ordered)
}

/// What a rewrite of a `loop.reduction` needs of it: its kind, body, the element type
/// the body yields and the result's tensor type.
#[derive(Clone, Debug)]
pub struct ReductionParts {
    /// `sum`, `prod`, `max`, `min`.
    pub kind: String,
    /// The body block.
    pub body: mlir_sys::MlirBlock,
    /// The type the body yields.
    pub element: mlir_sys::MlirType,
    /// The result type.
    pub result: crate::types::TensorType,
}

/// The parts of reduction `node` when its body yields the result's own element type (so
/// combining the yielded values computes the result); `None` otherwise — a bool sum
/// counted in int64, say — or for a malformed node.
pub fn reduction_parts(node: mlir_sys::MlirOperation) -> Option<ReductionParts> {
    use crate::ir;
    let body = ir::body(node)?;
    let yielded = *ir::block_ops(body).last()?;
    let element = ir::value_type(ir::operand(yielded, 0));
    let result = ir::tensor_type(ir::result(node, 0))?;
    let result_element = body::scalar_type(ir::context(node), result.dtype);
    if !unsafe { mlir_sys::mlirTypeEqual(element, result_element) } {
        return None;
    }
    let kind = ir::attr(node, attr::KIND).and_then(crate::attrs::string_raw)?;
    Some(ReductionParts {
        kind,
        body,
        element,
        result,
    })
}

/// An extern's `operand_views`: per operand `[]` or `[offset, sizes..., strides...]`.
pub fn operand_views(op: mlir_sys::MlirOperation) -> Vec<Vec<i64>> {
    crate::ir::i64_arrays(op, attr::OPERAND_VIEWS)
}

/// A typed view of any `loop` operation.
#[derive(Clone, Copy, Debug)]
pub struct LoopOp<'c, 'a> {
    op: OperationRef<'c, 'a>,
    kind: LoopOpKind,
}

impl<'c, 'a> LoopOp<'c, 'a> {
    /// Wraps `op` if it is a `loop` op.
    pub fn new(op: OperationRef<'c, 'a>) -> Option<Self> {
        Some(Self {
            kind: LoopOpKind::of(&op)?,
            op,
        })
    }

    /// Which op this is.
    pub fn kind(&self) -> LoopOpKind {
        self.kind
    }

    /// The wrapped operation.
    pub fn operation(&self) -> OperationRef<'c, 'a> {
        self.op
    }

    fn attribute(&self, name: &str) -> Option<Attribute<'c>> {
        self.op.attribute(name).ok()
    }

    /// `name` (buffer or kernel name).
    pub fn name(&self) -> Option<String> {
        attrs::string(self.attribute(attr::NAME)?)
    }

    /// `ranges` of a pointwise or reduction node.
    pub fn ranges(&self) -> Option<Vec<i64>> {
        attrs::i64_array(self.attribute(attr::RANGES)?)
    }

    /// `reduction_ranges` of a reduction node (empty for other ops).
    pub fn reduction_ranges(&self) -> Vec<i64> {
        self.attribute(attr::REDUCTION_RANGES)
            .and_then(attrs::i64_array)
            .unwrap_or_default()
    }

    /// `kind` of a reduction.
    pub fn reduction_kind(&self) -> Option<ReductionKind> {
        ReductionKind::parse(&attrs::string(self.attribute(attr::KIND)?)?)
    }

    /// `kind` of an extern.
    pub fn extern_kind(&self) -> Option<ExternKind> {
        ExternKind::parse(&attrs::string(self.attribute(attr::KIND)?)?)
    }

    /// `origins`: the aten ops this node came from.
    pub fn origins(&self) -> Vec<String> {
        self.attribute(attr::ORIGINS)
            .and_then(attrs::string_array)
            .unwrap_or_default()
    }

    /// `iteration` of a kernel: `(numel, rnumel)`.
    pub fn iteration(&self) -> Option<Vec<i64>> {
        attrs::i64_array(self.attribute(attr::ITERATION)?)
    }

    /// `index` of a `loop.output`.
    pub fn output_index(&self) -> Option<i64> {
        attrs::integer(self.attribute(attr::OUTPUT_INDEX)?)
    }

    /// The number of dims of a load's `index` map (`None`: no affine map). The verifier
    /// asks this of every load, so it does not print the map.
    pub fn load_index_dims(&self) -> Option<usize> {
        let raw = self.attribute(attr::INDEX)?.to_raw();
        unsafe {
            if !mlir_sys::mlirAttributeIsAAffineMap(raw) {
                return None;
            }
            Some(mlir_sys::mlirAffineMapGetNumDims(mlir_sys::mlirAffineMapAttrGetValue(raw)) as usize)
        }
    }
}

/// Builds `loop` operations with typed kinds and attribute names.
pub struct LoopBuilder<'c> {
    context: &'c Context,
}

impl<'c> LoopBuilder<'c> {
    /// A builder for ops in `context`.
    pub fn new(context: &'c Context) -> Self {
        Self { context }
    }

    fn named(&self, name: &str, value: Attribute<'c>) -> (Identifier<'c>, Attribute<'c>) {
        (Identifier::new(self.context, name), value)
    }

    fn origins(&self, origins: &[&str]) -> Attribute<'c> {
        let values: Vec<Attribute> = origins
            .iter()
            .map(|o| StringAttribute::new(self.context, o).into())
            .collect();
        ArrayAttribute::new(self.context, &values).into()
    }

    /// `loop.pointwise` with `body` (one block: index args, ..., `gpu.yield`).
    pub fn pointwise(
        &self,
        location: Location<'c>,
        name: &str,
        ranges: &[i64],
        origins: &[&str],
        body: Region<'c>,
        result: Type<'c>,
    ) -> Result<Operation<'c>, melior::Error> {
        OperationBuilder::new(LoopOpKind::Pointwise.op_name(), location)
            .add_attributes(&[
                self.named(attr::NAME, StringAttribute::new(self.context, name).into()),
                self.named(
                    attr::RANGES,
                    DenseI64ArrayAttribute::new(self.context, ranges).into(),
                ),
                self.named(attr::ORIGINS, self.origins(origins)),
            ])
            .add_regions([body])
            .add_results(&[result])
            .build()
            .inspect(|op| crate::ir::note_created(op.to_raw()))
    }

    /// `loop.reduction` with `body` (index args for ranges then reduction ranges).
    #[allow(clippy::too_many_arguments)]
    pub fn reduction(
        &self,
        location: Location<'c>,
        name: &str,
        ranges: &[i64],
        reduction_ranges: &[i64],
        kind: ReductionKind,
        origins: &[&str],
        body: Region<'c>,
        result: Type<'c>,
    ) -> Result<Operation<'c>, melior::Error> {
        OperationBuilder::new(LoopOpKind::Reduction.op_name(), location)
            .add_attributes(&[
                self.named(attr::NAME, StringAttribute::new(self.context, name).into()),
                self.named(
                    attr::RANGES,
                    DenseI64ArrayAttribute::new(self.context, ranges).into(),
                ),
                self.named(
                    attr::REDUCTION_RANGES,
                    DenseI64ArrayAttribute::new(self.context, reduction_ranges).into(),
                ),
                self.named(
                    attr::KIND,
                    StringAttribute::new(self.context, kind.as_str()).into(),
                ),
                self.named(attr::ORIGINS, self.origins(origins)),
            ])
            .add_regions([body])
            .add_results(&[result])
            .build()
            .inspect(|op| crate::ir::note_created(op.to_raw()))
    }

    /// `loop.load %buffer {index = map}` producing `element`.
    pub fn load(
        &self,
        location: Location<'c>,
        buffer: Value<'c, '_>,
        index: Attribute<'c>,
        element: Type<'c>,
    ) -> Result<Operation<'c>, melior::Error> {
        OperationBuilder::new(LoopOpKind::Load.op_name(), location)
            .add_operands(&[buffer])
            .add_attributes(&[self.named(attr::INDEX, index)])
            .add_results(&[element])
            .build()
            .inspect(|op| crate::ir::note_created(op.to_raw()))
    }

    /// `loop.extern` of `kind` over `inputs`.
    pub fn extern_kernel(
        &self,
        location: Location<'c>,
        name: &str,
        kind: ExternKind,
        origins: &[&str],
        inputs: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Result<Operation<'c>, melior::Error> {
        OperationBuilder::new(LoopOpKind::Extern.op_name(), location)
            .add_operands(inputs)
            .add_attributes(&[
                self.named(attr::NAME, StringAttribute::new(self.context, name).into()),
                self.named(
                    attr::KIND,
                    StringAttribute::new(self.context, kind.as_str()).into(),
                ),
                self.named(attr::ORIGINS, self.origins(origins)),
            ])
            .add_results(&[result])
            .build()
            .inspect(|op| crate::ir::note_created(op.to_raw()))
    }
}

/// Checks the structure of every `loop` op nested in `root` (what IRDL cannot):
/// a node's block takes one `index` argument per range (ranges, then reduction
/// ranges), its result has as many elements as its ranges, its body ends in
/// `gpu.yield`, and each `loop.load` map takes as many dims as its node has indices.
pub fn verify_loop(root: OperationRef, sink: &DiagnosticSink) -> bool {
    let mut ok = true;
    root.walk(WalkOrder::PreOrder, |op| {
        if let Some(node) = LoopOp::new(op) {
            if let Err(message) = crate::diagnostics::without_panics(|| check_loop_op(&node)) {
                sink.error(op.location(), format!("'{}' op {message}", node.kind().op_name()));
                ok = false;
            }
        }
        WalkResult::Advance
    });
    ok
}

fn check_loop_op(node: &LoopOp) -> Result<(), String> {
    let op = node.operation();
    match node.kind() {
        LoopOpKind::Pointwise | LoopOpKind::Reduction => {
            let ranges = node.ranges().ok_or("requires 'ranges'")?;
            let rranges = node.reduction_ranges();
            if node.kind() == LoopOpKind::Reduction && node.reduction_kind().is_none() {
                return Err("requires a reduction 'kind'".into());
            }
            let result = op.result(0).map_err(|_| "requires a result".to_string())?;
            let ty = TensorType::from_mlir(melior::ir::ValueLike::r#type(&result))
                .map_err(|e| format!("result: {e}"))?;
            let numel: i64 = ranges.iter().product();
            if ty.numel() != numel {
                return Err(format!(
                    "result {} has {} elements but 'ranges' {} cover {numel}",
                    shape_str(&ty.shape),
                    ty.numel(),
                    shape_str(&ranges)
                ));
            }
            let region = op.region(0).map_err(|_| "requires a body".to_string())?;
            use melior::ir::{BlockLike, RegionLike};
            let block = region.first_block().ok_or("requires a body block")?;
            let expected = ranges.len() + rranges.len();
            if block.argument_count() != expected {
                return Err(format!(
                    "body takes {} index arguments, expected {expected}",
                    block.argument_count()
                ));
            }
            let terminator = block.terminator().ok_or("body must end in 'gpu.yield'")?;
            if terminator.name().as_string_ref().as_str() != Ok(BODY_TERMINATOR)
                || terminator.operand_count() != 1
            {
                return Err("body must end in 'gpu.yield' of one scalar".into());
            }
            if let Some(attr) = node.attribute(LOOP_ORDER) {
                let array = attrs::i64_array(attr);
                let order = array.clone().unwrap_or_default();
                let valid = node.kind() == LoopOpKind::Pointwise
                    && array.is_some()
                    && order.iter().all(|&d| d >= 0)
                    && is_permutation(
                        &order.iter().map(|&d| d as usize).collect::<Vec<_>>(),
                        ranges.len(),
                    );
                if !valid {
                    return Err(format!(
                        "'{LOOP_ORDER}' {} must be a permutation of the {} dims of a pointwise node",
                        shape_str(&order),
                        ranges.len()
                    ));
                }
            }
            Ok(())
        }
        LoopOpKind::Load => {
            let dims = node.load_index_dims().ok_or("requires an affine_map 'index'")?;
            let parent = op.parent_operation().and_then(|p| {
                let mut current = Some(p);
                while let Some(candidate) = current {
                    if matches!(
                        LoopOpKind::of(&candidate),
                        Some(LoopOpKind::Pointwise | LoopOpKind::Reduction)
                    ) {
                        return Some(candidate);
                    }
                    current = candidate.parent_operation();
                }
                None
            });
            let node = parent
                .and_then(LoopOp::new)
                .ok_or("must be nested in a loop.pointwise or loop.reduction")?;
            let indices = node.ranges().map_or(0, |r| r.len()) + node.reduction_ranges().len();
            if dims != indices {
                let map = op
                    .attribute(attr::INDEX)
                    .map(|a| a.to_string())
                    .unwrap_or_default();
                return Err(format!(
                    "index {map} takes {dims} dims but the enclosing node has {indices} indices"
                ));
            }
            Ok(())
        }
        LoopOpKind::Extern => match (node.extern_kind(), StoredOrder::of(op.to_raw())) {
            (None, _) => Err("requires an extern 'kind'".into()),
            (_, Err(message)) => Err(message),
            (Some(ExternKind::Concat), _) => concat::check_concat(op.to_raw()),
            (Some(ExternKind::Sdpa), _) if !(3..=4).contains(&op.operand_count()) => Err(format!(
                "an 'sdpa' extern takes query, key, value and an optional mask, got {} operands",
                op.operand_count()
            )),
            (Some(ExternKind::Sdpa), _) if node.attribute("scale").and_then(attrs::float).is_none() => {
                Err("an 'sdpa' extern requires a float 'scale'".into())
            }
            (Some(ExternKind::Sdpa), _) if sdpa_operands(op.to_raw()).is_none() => Err(format!(
                "an 'sdpa' extern requires '{}', a permutation of its operand positions",
                attr::SDPA_OPERANDS
            )),
            (Some(ExternKind::Sdpa), _) => Ok(()),
            (Some(kind @ (ExternKind::LstmCell | ExternKind::GruCell)), _) => {
                rnn_cell::check_rnn_cell(node, kind)
            }
            (Some(kind), _) if op.operand_count() > 3 => Err(format!(
                "a '{}' extern takes two operands and an optional bias, got {}",
                kind.as_str(),
                op.operand_count()
            )),
            (Some(_), _) => Ok(()),
        },
        LoopOpKind::View => {
            use melior::ir::ValueLike;
            let layout = node
                .attribute("layout")
                .and_then(attrs::i64_array)
                .ok_or("requires 'layout'")?;
            let result = op.result(0).map_err(|_| "requires a result".to_string())?;
            let ty = TensorType::from_mlir(result.r#type()).map_err(|e| format!("result: {e}"))?;
            if layout.len() != 1 + 2 * ty.rank() || layout[1..=ty.rank()] != ty.shape[..] {
                return Err(format!(
                    "'layout' {} must be [offset, sizes {}, strides] for the result",
                    shape_str(&layout),
                    shape_str(&ty.shape)
                ));
            }
            Ok(())
        }
        LoopOpKind::Kernel => {
            let iteration = node.iteration().ok_or("requires 'iteration'")?;
            if iteration.len() != 2 {
                return Err(format!(
                    "'iteration' must be (numel, rnumel), got {}",
                    shape_str(&iteration)
                ));
            }
            use melior::ir::{BlockLike, RegionLike, TypeLike, ValueLike};
            let region = op.region(0).map_err(|_| "requires a body".to_string())?;
            let block = region.first_block().ok_or("requires a body block")?;
            let terminator = block.terminator().ok_or("body must end in 'gpu.yield'")?;
            if terminator.name().as_string_ref().as_str() != Ok(BODY_TERMINATOR) {
                return Err("body must end in 'gpu.yield' of the kernel's outputs".into());
            }
            let result = op.result(0).map_err(|_| "requires a result".to_string())?;
            let tuple = result.r#type().to_raw();
            let yielded: Vec<String> = terminator.operands().map(|v| v.r#type().to_string()).collect();
            let declared: Vec<String> = unsafe {
                (0..mlir_sys::mlirTupleTypeGetNumTypes(tuple))
                    .map(|i| Type::from_raw(mlir_sys::mlirTupleTypeGetType(tuple, i)).to_string())
                    .collect()
            };
            if yielded != declared {
                return Err(format!(
                    "yields ({}) but its result tuple holds ({})",
                    yielded.join(", "),
                    declared.join(", ")
                ));
            }
            Ok(())
        }
        LoopOpKind::Output => {
            use melior::ir::{TypeLike, ValueLike};
            let index = node.output_index().ok_or("requires an integer 'index'")?;
            let tuple = op
                .operand(0)
                .map_err(|_| "requires a kernel operand".to_string())?
                .r#type()
                .to_raw();
            let count = unsafe { mlir_sys::mlirTupleTypeGetNumTypes(tuple) } as i64;
            if !(0..count).contains(&index) {
                return Err(format!(
                    "index {index} is out of range for a kernel with {count} outputs"
                ));
            }
            let element = unsafe { Type::from_raw(mlir_sys::mlirTupleTypeGetType(tuple, index as isize)) };
            let result = op
                .result(0)
                .map_err(|_| "requires a result".to_string())?
                .r#type();
            if result != element {
                return Err(format!(
                    "result type {result} does not match kernel output #{index} of type {element}"
                ));
            }
            Ok(())
        }
    }
}

/// The operand positions of an `sdpa` extern's query, key, value and (optional) mask,
/// when its `sdpa_operands` is a permutation of its operands.
pub fn sdpa_operands(op: mlir_sys::MlirOperation) -> Option<Vec<usize>> {
    let n = crate::ir::operands(op).len();
    let positions: Vec<usize> = crate::ir::i64s(op, attr::SDPA_OPERANDS)
        .into_iter()
        .map(|p| usize::try_from(p).ok())
        .collect::<Option<_>>()?;
    let mut sorted = positions.clone();
    sorted.sort_unstable();
    (sorted == (0..n).collect::<Vec<_>>()).then_some(positions)
}
