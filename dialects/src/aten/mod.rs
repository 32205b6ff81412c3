//! The `aten` dialect: typed op kinds, accessors, builders and the shape verifier.

mod ops;
pub mod pattern;
mod rnn_cell;
mod verify;

pub use ops::{attr, AtenOpClass, AtenOpKind};
pub use rnn_cell::{CellKind, RnnCell};
pub use verify::{check_op, verify_aten};

use crate::{attrs, types::TensorType, types::TensorTypeError};
use melior::{
    ir::{
        attribute::{
            BoolAttribute, DenseI64ArrayAttribute, FloatAttribute, IntegerAttribute, StringAttribute,
        },
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
        Attribute, Identifier, Location, Operation, OperationRef, Type, Value, ValueLike,
    },
    Context,
};

/// A typed view of one `aten` operation.
#[derive(Clone, Copy, Debug)]
pub struct AtenOp<'c, 'a> {
    op: OperationRef<'c, 'a>,
    kind: AtenOpKind,
}

impl<'c, 'a> AtenOp<'c, 'a> {
    /// Wraps `op` if it is an `aten` operation.
    pub fn new(op: OperationRef<'c, 'a>) -> Option<Self> {
        let name = op.name();
        let kind = AtenOpKind::from_op_name(name.as_string_ref().as_str().ok()?)?;
        Some(Self { op, kind })
    }

    /// Which op this is.
    pub fn kind(&self) -> AtenOpKind {
        self.kind
    }

    /// The wrapped operation.
    pub fn operation(&self) -> OperationRef<'c, 'a> {
        self.op
    }

    /// The op's source location.
    pub fn location(&self) -> Location<'c> {
        self.op.location()
    }

    /// The tensor types of all operands, in order.
    pub fn operand_types(&self) -> Result<Vec<TensorType>, (usize, TensorTypeError)> {
        self.op
            .operands()
            .enumerate()
            .map(|(i, value)| TensorType::from_mlir(value.r#type()).map_err(|e| (i, e)))
            .collect()
    }

    /// The tensor type of the (single) result.
    pub fn result_type(&self) -> Result<TensorType, TensorTypeError> {
        let result = self
            .op
            .result(0)
            .map_err(|_| TensorTypeError::NotATensor("<no result>".to_string()))?;
        TensorType::from_mlir(result.r#type())
    }

    fn attribute(&self, name: &str) -> Option<Attribute<'c>> {
        self.op.attribute(name).ok()
    }

    /// An `i64` attribute.
    pub fn int(&self, name: &str) -> Option<i64> {
        attrs::integer(self.attribute(name)?)
    }

    /// An `array<i64: ...>` attribute.
    pub fn ints(&self, name: &str) -> Option<Vec<i64>> {
        attrs::i64_array(self.attribute(name)?)
    }

    /// A `true`/`false` attribute.
    pub fn flag(&self, name: &str) -> Option<bool> {
        attrs::boolean(self.attribute(name)?)
    }

    /// A float attribute.
    pub fn float(&self, name: &str) -> Option<f64> {
        attrs::float(self.attribute(name)?)
    }

    /// A string attribute.
    pub fn string(&self, name: &str) -> Option<String> {
        attrs::string(self.attribute(name)?)
    }

    /// `dims` of reductions, permute and squeeze.
    pub fn dims(&self) -> Option<Vec<i64>> {
        self.ints(attr::DIMS)
    }

    /// `keepdim` of reductions.
    pub fn keepdim(&self) -> Option<bool> {
        self.flag(attr::KEEPDIM)
    }

    /// `dim` of softmax, unsqueeze, slice, select, cat, gather.
    pub fn dim(&self) -> Option<i64> {
        self.int(attr::DIM)
    }
}

/// Builds `aten` operations with typed kinds and attribute names.
pub struct AtenBuilder<'c> {
    context: &'c Context,
}

impl<'c> AtenBuilder<'c> {
    /// A builder for ops in `context`.
    pub fn new(context: &'c Context) -> Self {
        Self { context }
    }

    /// Creates (unattached) `kind(operands) {attributes} -> result`.
    pub fn build(
        &self,
        kind: AtenOpKind,
        location: Location<'c>,
        operands: &[Value<'c, '_>],
        attributes: &[(&str, Attribute<'c>)],
        result: Type<'c>,
    ) -> Result<Operation<'c>, melior::Error> {
        let attributes: Vec<_> = attributes
            .iter()
            .map(|(name, value)| (Identifier::new(self.context, name), *value))
            .collect();
        OperationBuilder::new(kind.op_name(), location)
            .add_operands(operands)
            .add_attributes(&attributes)
            .add_results(&[result])
            .build()
            .inspect(|op| crate::ir::note_created(op.to_raw()))
    }

    /// `array<i64: ...>`.
    pub fn ints(&self, values: &[i64]) -> Attribute<'c> {
        DenseI64ArrayAttribute::new(self.context, values).into()
    }

    /// `N : i64`.
    pub fn int(&self, value: i64) -> Attribute<'c> {
        IntegerAttribute::new(IntegerType::new(self.context, 64).into(), value).into()
    }

    /// `true` / `false`.
    pub fn flag(&self, value: bool) -> Attribute<'c> {
        BoolAttribute::new(self.context, value).into()
    }

    /// `X : f64`.
    pub fn float(&self, value: f64) -> Attribute<'c> {
        FloatAttribute::new(self.context, Type::float64(self.context), value).into()
    }

    /// `"text"`.
    pub fn string(&self, value: &str) -> Attribute<'c> {
        StringAttribute::new(self.context, value).into()
    }
}
