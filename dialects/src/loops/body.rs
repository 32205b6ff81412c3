//! Building the scalar bodies of `loop` nodes: block arguments are the node's indices,
//! reads are `loop.load` with an [`IndexExpr`] turned into an affine map, index values
//! are `affine.apply` over all block arguments, and the body ends in `gpu.yield`.

use crate::{
    ir,
    loops::{index::IndexExpr, names},
    types::DType,
};
use mlir_sys::{MlirBlock, MlirContext, MlirLocation, MlirOperation, MlirType, MlirValue};

/// The MLIR scalar type of a dtype.
pub fn scalar_type(ctx: MlirContext, dtype: DType) -> MlirType {
    ir::parse_type(ctx, dtype.mlir_name()).expect("builtin scalar types parse")
}

/// A node body under construction (or an existing body being edited, inserting before
/// an anchor op).
pub struct BodyBuilder {
    /// The context.
    pub ctx: MlirContext,
    /// Location given to created ops.
    pub loc: MlirLocation,
    /// The body block.
    pub block: MlirBlock,
    /// The extents of the block's index arguments.
    pub ranges: Vec<i64>,
    /// Insert before this op instead of appending.
    pub before: Option<MlirOperation>,
}

impl BodyBuilder {
    /// A new block with one `index` argument per range.
    pub fn new_block(ctx: MlirContext, loc: MlirLocation, ranges: Vec<i64>) -> Self {
        let index = ir::parse_type(ctx, "index").expect("index type");
        let block = ir::new_block(&vec![index; ranges.len()], loc);
        Self {
            ctx,
            loc,
            block,
            ranges,
            before: None,
        }
    }

    fn place(&self, op: MlirOperation) -> MlirOperation {
        match self.before {
            Some(anchor) => ir::insert_before(anchor, op),
            None => ir::append(self.block, op),
        }
        op
    }

    /// Creates `name(operands) -> result` in the body.
    pub fn op(&self, name: &str, operands: &[MlirValue], result: MlirType) -> MlirValue {
        ir::result(
            self.place(ir::create(name, self.loc, operands, &[result], &[], Vec::new())),
            0,
        )
    }

    /// Like [`Self::op`] with attributes.
    pub fn op_with(
        &self,
        name: &str,
        operands: &[MlirValue],
        result: MlirType,
        attrs: &[(&str, mlir_sys::MlirAttribute)],
    ) -> MlirValue {
        ir::result(
            self.place(ir::create(name, self.loc, operands, &[result], attrs, Vec::new())),
            0,
        )
    }

    /// A scalar constant of `dtype`.
    pub fn constant(&self, value: f64, dtype: DType) -> MlirValue {
        let ty = scalar_type(self.ctx, dtype);
        let attr = unsafe {
            if dtype.is_float() {
                mlir_sys::mlirFloatAttrDoubleGet(self.ctx, ty, value)
            } else {
                mlir_sys::mlirIntegerAttrGet(ty, value as i64)
            }
        };
        self.op_with("arith.constant", &[], ty, &[("value", attr)])
    }

    /// An `index` constant.
    pub fn index_constant(&self, value: i64) -> MlirValue {
        let ty = ir::parse_type(self.ctx, "index").expect("index type");
        let attr = unsafe { mlir_sys::mlirIntegerAttrGet(ty, value) };
        self.op_with("arith.constant", &[], ty, &[("value", attr)])
    }

    /// `loop.load %buffer[syms] {index}` of element type `element`.
    pub fn load(
        &self,
        buffer: MlirValue,
        index: &IndexExpr,
        syms: &[MlirValue],
        element: MlirType,
    ) -> MlirValue {
        let map = index
            .drop_unit_dims(&self.ranges)
            .to_affine_map(self.ranges.len(), syms.len());
        let attr = ir::parse_attr(self.ctx, &map).expect("index maps print parseably");
        let mut operands = vec![buffer];
        operands.extend_from_slice(syms);
        self.op_with(names::LOAD, &operands, element, &[("index", attr)])
    }

    /// The value of an index expression (over this block's indices), as `index`.
    pub fn index_value(&self, expr: &IndexExpr) -> MlirValue {
        self.index_value_with(expr, &[])
    }

    /// The value of an index expression with symbols bound to `syms`.
    pub fn index_value_with(&self, expr: &IndexExpr, syms: &[MlirValue]) -> MlirValue {
        let map = expr
            .drop_unit_dims(&self.ranges)
            .to_affine_map(self.ranges.len(), syms.len());
        let attr = ir::parse_attr(self.ctx, &map).expect("index maps print parseably");
        let index = ir::parse_type(self.ctx, "index").expect("index type");
        let mut operands = ir::block_arguments(self.block);
        operands.extend_from_slice(syms);
        self.op_with("affine.apply", &operands, index, &[("map", attr)])
    }

    /// Ends the body with `gpu.yield %value`.
    pub fn finish(&self, value: MlirValue) {
        self.place(ir::create(names::YIELD, self.loc, &[value], &[], &[], Vec::new()));
    }
}
