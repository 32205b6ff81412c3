//! Building the scalar bodies of `loop` nodes: block arguments are the node's indices,
//! reads are `loop.load` with an [`IndexExpr`] turned into an affine map, index values
//! are `affine.apply` over all block arguments, and the body ends in `gpu.yield`.

use crate::{
    ir,
    loops::{
        index::{from_affine_map_attr, IndexExpr},
        names,
    },
    types::DType,
};
use mlir_sys::{MlirBlock, MlirContext, MlirLocation, MlirOperation, MlirType, MlirValue};
use std::collections::HashMap;

/// The MLIR scalar type of a dtype (built, not parsed: a parse per type set up an
/// assembly parser, a cost per op of the bodies built).
pub fn scalar_type(ctx: MlirContext, dtype: DType) -> MlirType {
    unsafe {
        match dtype {
            DType::F32 => mlir_sys::mlirF32TypeGet(ctx),
            DType::F16 => mlir_sys::mlirF16TypeGet(ctx),
            DType::BF16 => mlir_sys::mlirBF16TypeGet(ctx),
            DType::I64 => mlir_sys::mlirIntegerTypeGet(ctx, 64),
            DType::I32 => mlir_sys::mlirIntegerTypeGet(ctx, 32),
            DType::I1 => mlir_sys::mlirIntegerTypeGet(ctx, 1),
        }
    }
}

/// The `index` type.
fn index_type(ctx: MlirContext) -> MlirType {
    unsafe { mlir_sys::mlirIndexTypeGet(ctx) }
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
        let index = index_type(ctx);
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
        let ty = index_type(self.ctx);
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
        let attr =
            index
                .drop_unit_dims(&self.ranges)
                .to_affine_map_attr(self.ctx, self.ranges.len(), syms.len());
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
        let attr =
            expr.drop_unit_dims(&self.ranges)
                .to_affine_map_attr(self.ctx, self.ranges.len(), syms.len());
        let index = index_type(self.ctx);
        let mut operands = ir::block_arguments(self.block);
        operands.extend_from_slice(syms);
        self.op_with("affine.apply", &operands, index, &[("map", attr)])
    }

    /// Copies the ops of another node's `body` into this one with that node's indices at
    /// `at` (one expression over this block's indices per index of `body`, symbols
    /// `s0..` bound to `syms`); returns the value `body` yields. Loads and
    /// `affine.apply`s get their maps substituted; block arguments used directly become
    /// `affine.apply` of their expression; other ops are cloned with their operands
    /// mapped. (Inlining a producer at a load, unrolling a small reduction.)
    pub fn copy_body(
        &self,
        body: MlirBlock,
        at: &[IndexExpr],
        syms: &[MlirValue],
    ) -> Result<MlirValue, String> {
        let mut mapping: HashMap<usize, MlirValue> = HashMap::new();
        for (k, arg) in ir::block_arguments(body).into_iter().enumerate() {
            if ir::has_uses(arg) {
                let v = self.index_value_with(&at[k], syms);
                mapping.insert(arg.ptr as usize, v);
            }
        }
        let map_value =
            |mapping: &HashMap<usize, MlirValue>, v: MlirValue| *mapping.get(&(v.ptr as usize)).unwrap_or(&v);
        for op in ir::block_ops(body) {
            // The name is compared in place (no copy: this runs once per inlined op).
            let (yield_, load, apply) =
                ir::with_op_name(op, |n| (n == names::YIELD, n == names::LOAD, n == "affine.apply"));
            if yield_ {
                return Ok(map_value(&mapping, ir::operand(op, 0)));
            }
            if load || apply {
                let attr_name = if load { "index" } else { "map" };
                let (pe, pdims, _) =
                    from_affine_map_attr(ir::attr(op, attr_name).ok_or("missing map")?).ok_or("bad map")?;
                let operands = ir::operands(op);
                let first_sym = if load { 1 } else { pdims };
                let own_syms: Vec<MlirValue> = operands[first_sym..]
                    .iter()
                    .map(|v| map_value(&mapping, *v))
                    .collect();
                let shifted: Vec<IndexExpr> = (0..own_syms.len())
                    .map(|s| IndexExpr::sym(syms.len() + s))
                    .collect();
                let e = pe.substitute(at, &shifted, &self.ranges);
                let mut all_syms = syms.to_vec();
                all_syms.extend(own_syms);
                let v = if load {
                    self.load(operands[0], &e, &all_syms, ir::value_type(ir::result(op, 0)))
                } else {
                    self.index_value_with(&e, &all_syms)
                };
                mapping.insert(ir::result(op, 0).ptr as usize, v);
            } else {
                let copy = self.place(ir::clone(op));
                for (i, v) in ir::operands(op).into_iter().enumerate() {
                    ir::set_operand(copy, i, map_value(&mapping, v));
                }
                for i in 0..ir::result_count(op) {
                    mapping.insert(ir::result(op, i).ptr as usize, ir::result(copy, i));
                }
            }
        }
        Err("a node body without gpu.yield".into())
    }

    /// Ends the body with `gpu.yield %value`.
    pub fn finish(&self, value: MlirValue) {
        self.place(ir::create(names::YIELD, self.loc, &[value], &[], &[], Vec::new()));
    }
}
