//! Building upstream IR in code generators: an insertion point (a stack of blocks), a
//! current location carried onto every op built, and the constants, types and affine
//! maps conversions need — so a conversion never writes MLIR as text and re-parses it.
//!
//! [`Builder`] works on MLIR's raw C handles, like [`crate::ir`]: ops are created
//! through `OperationState` (MLIR's generic builder, which also fills inherent
//! attributes stored as properties) and appended to the innermost open block. Opening a
//! region op ([`Builder::open`]) pushes its body; closing it ([`Builder::close`]) writes
//! its terminator and pops. Locations: [`Builder::at`] sets the location of what follows
//! (a conversion passes the source op's location, so `--mlir-print-debuginfo` on its
//! output points at the input's lines).

use crate::ir;
use mlir_sys::*;

/// A value, type, attribute or affine expression handle (MLIR's raw C handles).
pub type Value = MlirValue;

/// An affine expression under construction (dims `d_i`, symbols `s_i`, constants).
#[derive(Clone, Copy, Debug)]
pub struct Affine(MlirAffineExpr);

impl Affine {
    /// `d<k>`.
    pub fn dim(ctx: MlirContext, k: usize) -> Self {
        Self(unsafe { mlirAffineDimExprGet(ctx, k as isize) })
    }

    /// `s<k>`.
    pub fn sym(ctx: MlirContext, k: usize) -> Self {
        Self(unsafe { mlirAffineSymbolExprGet(ctx, k as isize) })
    }

    /// A constant.
    pub fn constant(ctx: MlirContext, c: i64) -> Self {
        Self(unsafe { mlirAffineConstantExprGet(ctx, c) })
    }

    /// `self + c`.
    pub fn add_const(self, c: i64) -> Self {
        let ctx = unsafe { mlirAffineExprGetContext(self.0) };
        self + Self::constant(ctx, c)
    }

    /// `self floordiv c`.
    pub fn floordiv(self, c: i64) -> Self {
        let ctx = unsafe { mlirAffineExprGetContext(self.0) };
        Self(unsafe { mlirAffineFloorDivExprGet(self.0, Self::constant(ctx, c).0) })
    }

    /// `self mod c`.
    pub fn modulo(self, c: i64) -> Self {
        let ctx = unsafe { mlirAffineExprGetContext(self.0) };
        Self(unsafe { mlirAffineModExprGet(self.0, Self::constant(ctx, c).0) })
    }
}

impl std::ops::Add for Affine {
    type Output = Affine;

    fn add(self, other: Affine) -> Affine {
        Affine(unsafe { mlirAffineAddExprGet(self.0, other.0) })
    }
}

/// `a - b` as MLIR's parser reads it: `a + b * -1`.
impl std::ops::Sub for Affine {
    type Output = Affine;

    fn sub(self, other: Affine) -> Affine {
        self + other * -1
    }
}

/// Multiplication by a constant.
impl std::ops::Mul<i64> for Affine {
    type Output = Affine;

    fn mul(self, c: i64) -> Affine {
        let ctx = unsafe { mlirAffineExprGetContext(self.0) };
        Affine(unsafe { mlirAffineMulExprGet(self.0, Affine::constant(ctx, c).0) })
    }
}

/// `affine_map<(d0, ...)[s0, ...] -> (results...)>` as an attribute.
pub fn affine_map(ctx: MlirContext, dims: usize, syms: usize, results: &[Affine]) -> MlirAttribute {
    let exprs: Vec<MlirAffineExpr> = results.iter().map(|e| e.0).collect();
    unsafe {
        let map = mlirAffineMapGet(
            ctx,
            dims as isize,
            syms as isize,
            exprs.len() as isize,
            exprs.as_ptr() as *mut _,
        );
        mlirAffineMapAttrGet(map)
    }
}

/// `arith.cmpf` predicates, numbered as MLIR's `CmpFPredicate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum CmpF {
    Oeq = 1,
    Ogt = 2,
    Oge = 3,
    Olt = 4,
    Ole = 5,
    Ult = 11,
    Uno = 14,
}

/// `arith.cmpi` predicates, numbered as MLIR's `CmpIPredicate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum CmpI {
    Eq = 0,
    Ne = 1,
    Slt = 2,
    Sle = 3,
    Sgt = 4,
    Sge = 5,
}

/// An open region op (see [`Builder::open`]).
#[derive(Clone, Debug)]
pub struct Open {
    /// The op.
    pub op: MlirOperation,
    /// Its body's arguments (a loop's induction variable, then its carried values).
    pub args: Vec<Value>,
}

/// Builds ops at an insertion point (see the module documentation).
pub struct Builder {
    ctx: MlirContext,
    loc: MlirLocation,
    blocks: Vec<MlirBlock>,
}

impl Builder {
    /// A builder with no insertion block yet, building at `loc`.
    pub fn new(loc: MlirLocation) -> Self {
        Self {
            ctx: unsafe { mlirLocationGetContext(loc) },
            loc,
            blocks: Vec::new(),
        }
    }

    /// The context.
    pub fn context(&self) -> MlirContext {
        self.ctx
    }

    /// The location ops are built at now.
    pub fn location(&self) -> MlirLocation {
        self.loc
    }

    /// Builds what follows at `loc`; returns the previous location.
    pub fn at(&mut self, loc: MlirLocation) -> MlirLocation {
        std::mem::replace(&mut self.loc, loc)
    }

    /// Appends to `block` until [`Builder::pop`].
    pub fn push(&mut self, block: MlirBlock) {
        self.blocks.push(block);
    }

    /// Stops appending to the innermost block; returns it.
    pub fn pop(&mut self) -> Option<MlirBlock> {
        self.blocks.pop()
    }

    /// The innermost block (ops are appended to it).
    pub fn block(&self) -> Option<MlirBlock> {
        self.blocks.last().copied()
    }

    /// Creates `name` at the current location and appends it to the current block (or
    /// leaves it detached when there is none).
    pub fn op(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[MlirType],
        attributes: &[(&str, MlirAttribute)],
    ) -> MlirOperation {
        let op = ir::create(name, self.loc, operands, results, attributes, Vec::new());
        if let Some(&block) = self.blocks.last() {
            ir::append(block, op);
        }
        op
    }

    /// [`Builder::op`] with one result; returns it.
    pub fn value(
        &mut self,
        name: &str,
        operands: &[Value],
        result: MlirType,
        attributes: &[(&str, MlirAttribute)],
    ) -> Value {
        let op = self.op(name, operands, &[result], attributes);
        ir::result(op, 0)
    }

    /// Creates the region op `name` with one single-block region whose block takes
    /// `block_args`, appends it, and makes its body the insertion block (until
    /// [`Builder::close`]).
    pub fn open(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[MlirType],
        attributes: &[(&str, MlirAttribute)],
        block_args: &[MlirType],
    ) -> Open {
        let block = ir::new_block(block_args, self.loc);
        let region = ir::new_region(block);
        let op = ir::create(name, self.loc, operands, results, attributes, vec![region]);
        if let Some(&parent) = self.blocks.last() {
            ir::append(parent, op);
        }
        self.blocks.push(block);
        Open {
            op,
            args: ir::block_arguments(block),
        }
    }

    /// Writes the terminator `terminator(values)` into the innermost open body and
    /// leaves it; returns the results of the op that owns it.
    pub fn close(&mut self, terminator: &str, values: &[Value]) -> Vec<Value> {
        self.op(terminator, values, &[], &[]);
        let Some(block) = self.blocks.pop() else {
            return Vec::new();
        };
        let owner = unsafe { mlirBlockGetParentOperation(block) };
        (0..ir::result_count(owner))
            .map(|i| ir::result(owner, i))
            .collect()
    }

    // --- types -----------------------------------------------------------------------

    /// `index`.
    pub fn index_type(&self) -> MlirType {
        unsafe { mlirIndexTypeGet(self.ctx) }
    }

    /// `f32`.
    pub fn f32_type(&self) -> MlirType {
        unsafe { mlirF32TypeGet(self.ctx) }
    }

    /// `f64`.
    pub fn f64_type(&self) -> MlirType {
        unsafe { mlirF64TypeGet(self.ctx) }
    }

    /// `i<bits>`.
    pub fn int_type(&self, bits: u32) -> MlirType {
        unsafe { mlirIntegerTypeGet(self.ctx, bits) }
    }

    /// `memref<NxT>` (identity layout, default memory space).
    pub fn flat_memref(&self, n: i64, element: MlirType) -> MlirType {
        unsafe { mlirMemRefTypeContiguousGet(element, 1, &n, mlirAttributeGetNull()) }
    }

    /// `tensor<shape x element>`.
    pub fn tensor_type(&self, shape: &[i64], element: MlirType) -> MlirType {
        unsafe {
            mlirRankedTensorTypeGet(
                shape.len() as isize,
                shape.as_ptr(),
                element,
                mlirAttributeGetNull(),
            )
        }
    }

    /// `(inputs) -> (results)`.
    pub fn function_type(&self, inputs: &[MlirType], results: &[MlirType]) -> MlirType {
        unsafe {
            mlirFunctionTypeGet(
                self.ctx,
                inputs.len() as isize,
                inputs.as_ptr(),
                results.len() as isize,
                results.as_ptr(),
            )
        }
    }

    // --- attributes ------------------------------------------------------------------

    /// A `T` integer attribute (`index`, `iN`).
    pub fn int_attr(&self, ty: MlirType, v: i64) -> MlirAttribute {
        unsafe { mlirIntegerAttrGet(ty, v) }
    }

    /// A float attribute of type `ty` holding `v` (rounded to `ty`).
    pub fn float_attr(&self, ty: MlirType, v: f64) -> MlirAttribute {
        unsafe { mlirFloatAttrDoubleGet(self.ctx, ty, v) }
    }

    /// `@name`.
    pub fn symbol_ref(&self, name: &str) -> MlirAttribute {
        unsafe {
            mlirFlatSymbolRefAttrGet(
                self.ctx,
                MlirStringRef {
                    data: name.as_ptr() as *const _,
                    length: name.len(),
                },
            )
        }
    }

    /// A string attribute.
    pub fn string_attr(&self, s: &str) -> MlirAttribute {
        ir::string_attr(self.ctx, s)
    }

    /// `unit`.
    pub fn unit_attr(&self) -> MlirAttribute {
        unsafe { mlirUnitAttrGet(self.ctx) }
    }

    /// A type as an attribute.
    pub fn type_attr(&self, ty: MlirType) -> MlirAttribute {
        unsafe { mlirTypeAttrGet(ty) }
    }

    /// `array<i32: ...>`.
    pub fn i32_array_attr(&self, values: &[i32]) -> MlirAttribute {
        unsafe { mlirDenseI32ArrayGet(self.ctx, values.len() as isize, values.as_ptr()) }
    }

    // --- common ops ------------------------------------------------------------------

    /// `arith.constant v : index`.
    pub fn index(&mut self, v: i64) -> Value {
        let ty = self.index_type();
        self.constant(self.int_attr(ty, v), ty)
    }

    /// `arith.constant v : iN`.
    pub fn int(&mut self, bits: u32, v: i64) -> Value {
        let ty = self.int_type(bits);
        self.constant(self.int_attr(ty, v), ty)
    }

    /// `arith.constant v : f32` (bit-exact).
    pub fn f32(&mut self, v: f32) -> Value {
        let ty = self.f32_type();
        self.constant(self.float_attr(ty, f64::from(v)), ty)
    }

    /// `arith.constant v : f64`.
    pub fn f64(&mut self, v: f64) -> Value {
        let ty = self.f64_type();
        self.constant(self.float_attr(ty, v), ty)
    }

    /// `arith.constant` of `value`.
    pub fn constant(&mut self, value: MlirAttribute, ty: MlirType) -> Value {
        self.value("arith.constant", &[], ty, &[("value", value)])
    }

    /// A binary op whose result has its first operand's type (`arith.addf`, ...).
    pub fn binary(&mut self, name: &str, a: Value, b: Value) -> Value {
        self.value(name, &[a, b], ir::value_type(a), &[])
    }

    /// A unary op whose result has its operand's type (`math.absf`, ...).
    pub fn unary(&mut self, name: &str, a: Value) -> Value {
        self.value(name, &[a], ir::value_type(a), &[])
    }

    /// A cast (`arith.extf`, `arith.bitcast`, ...) of `a` to `ty`.
    pub fn cast(&mut self, name: &str, a: Value, ty: MlirType) -> Value {
        self.value(name, &[a], ty, &[])
    }

    /// `arith.cmpf pred, a, b`.
    pub fn cmpf(&mut self, pred: CmpF, a: Value, b: Value) -> Value {
        let (i1, i64t) = (self.int_type(1), self.int_type(64));
        let p = self.int_attr(i64t, pred as i64);
        self.value("arith.cmpf", &[a, b], i1, &[("predicate", p)])
    }

    /// `arith.cmpi pred, a, b`.
    pub fn cmpi(&mut self, pred: CmpI, a: Value, b: Value) -> Value {
        let (i1, i64t) = (self.int_type(1), self.int_type(64));
        let p = self.int_attr(i64t, pred as i64);
        self.value("arith.cmpi", &[a, b], i1, &[("predicate", p)])
    }

    /// `arith.select c, a, b`.
    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        self.value("arith.select", &[c, a, b], ir::value_type(a), &[])
    }

    /// `affine.apply map(dims)[syms]`.
    pub fn apply(&mut self, map: MlirAttribute, dims: &[Value], syms: &[Value]) -> Value {
        let operands: Vec<Value> = dims.iter().chain(syms).copied().collect();
        let ty = self.index_type();
        self.value("affine.apply", &operands, ty, &[("map", map)])
    }

    /// `affine.apply` of one expression over `dims` and `syms`.
    pub fn apply_expr(&mut self, expr: Affine, dims: &[Value], syms: &[Value]) -> Value {
        let map = affine_map(self.ctx, dims.len(), syms.len(), &[expr]);
        self.apply(map, dims, syms)
    }

    /// `memref.load m[i]`.
    pub fn load(&mut self, m: Value, i: Value) -> Value {
        let element = unsafe { mlirShapedTypeGetElementType(ir::value_type(m)) };
        self.value("memref.load", &[m, i], element, &[])
    }

    /// `memref.store v, m[i]`.
    pub fn store(&mut self, v: Value, m: Value, i: Value) {
        self.op("memref.store", &[v, m, i], &[], &[]);
    }

    /// Opens `scf.for iv = lb to ub step step iter_args(inits)`; close with
    /// `close("scf.yield", next)`.
    pub fn open_for(&mut self, lb: Value, ub: Value, step: Value, inits: &[Value]) -> Open {
        let mut operands = vec![lb, ub, step];
        operands.extend_from_slice(inits);
        let carried: Vec<MlirType> = inits.iter().map(|&v| ir::value_type(v)).collect();
        let mut args = vec![self.index_type()];
        args.extend_from_slice(&carried);
        self.open("scf.for", &operands, &carried, &[], &args)
    }

    /// Opens `scf.if cond` with no results and no else branch; close with
    /// `close("scf.yield", &[])`.
    pub fn open_if(&mut self, cond: Value) {
        let block = ir::new_block(&[], self.loc);
        let then = ir::new_region(block);
        let otherwise = unsafe { mlirRegionCreate() };
        let op = ir::create("scf.if", self.loc, &[cond], &[], &[], vec![then, otherwise]);
        if let Some(&parent) = self.blocks.last() {
            ir::append(parent, op);
        }
        self.blocks.push(block);
    }

    /// Opens `scf.if cond -> (results)` with both branches: the then-branch is the
    /// insertion block until [`Builder::else_branch`]; close the else-branch with
    /// `close("scf.yield", values)`, which returns the `scf.if`'s results.
    pub fn open_if_else(&mut self, cond: Value, results: &[MlirType]) -> MlirOperation {
        let (then, otherwise) = (ir::new_block(&[], self.loc), ir::new_block(&[], self.loc));
        let regions = vec![ir::new_region(then), ir::new_region(otherwise)];
        let op = ir::create("scf.if", self.loc, &[cond], results, &[], regions);
        if let Some(&parent) = self.blocks.last() {
            ir::append(parent, op);
        }
        self.blocks.push(then);
        op
    }

    /// Ends the then-branch of `op` (from [`Builder::open_if_else`]) yielding `values`
    /// and continues in its else-branch.
    pub fn else_branch(&mut self, op: MlirOperation, values: &[Value]) {
        self.op("scf.yield", values, &[], &[]);
        self.blocks.pop();
        if let Some(otherwise) = ir::first_block(ir::region(op, 1)) {
            self.blocks.push(otherwise);
        }
    }

    /// `func.call @callee(args)` with no results.
    pub fn call(&mut self, callee: &str, args: &[Value]) {
        let callee = self.symbol_ref(callee);
        self.op("func.call", args, &[], &[("callee", callee)]);
    }

    /// `func.call @callee(args) -> result`: the call's one result.
    pub fn call_value(&mut self, callee: &str, args: &[Value], result: MlirType) -> Value {
        let callee = self.symbol_ref(callee);
        self.value("func.call", args, result, &[("callee", callee)])
    }

    /// A `func.func @name(inputs) -> ()` (private unless `public`) with an entry block,
    /// built detached; returns it and its entry block (not pushed).
    pub fn function(
        &mut self,
        name: &str,
        inputs: &[MlirType],
        public: bool,
        extra: &[(&str, MlirAttribute)],
    ) -> (MlirOperation, MlirBlock) {
        let block = ir::new_block(inputs, self.loc);
        let region = ir::new_region(block);
        let ty = self.function_type(inputs, &[]);
        let mut attributes = vec![
            ("sym_name", self.string_attr(name)),
            ("function_type", self.type_attr(ty)),
        ];
        if !public {
            attributes.push(("sym_visibility", self.string_attr("private")));
        }
        attributes.extend_from_slice(extra);
        let op = ir::create("func.func", self.loc, &[], &[], &attributes, vec![region]);
        (op, block)
    }

    /// A private `func.func` declaration (no body), detached.
    pub fn declaration(&mut self, name: &str, inputs: &[MlirType]) -> MlirOperation {
        self.declaration_returning(name, inputs, &[])
    }

    /// A private `func.func @name(inputs) -> (results)` with no body (an external
    /// function), built detached.
    pub fn declaration_returning(
        &mut self,
        name: &str,
        inputs: &[MlirType],
        results: &[MlirType],
    ) -> MlirOperation {
        let ty = self.function_type(inputs, results);
        let attributes = [
            ("sym_name", self.string_attr(name)),
            ("function_type", self.type_attr(ty)),
            ("sym_visibility", self.string_attr("private")),
        ];
        let region = unsafe { mlirRegionCreate() };
        ir::create("func.func", self.loc, &[], &[], &attributes, vec![region])
    }
}

/// Replaces the one-result op `op` by what `build` makes at its location: the ops are
/// built in a scratch block, then moved before `op`, which is erased once its uses take
/// the returned value. Nothing changes when `build` returns `None`.
pub fn rewrite(op: MlirOperation, build: impl FnOnce(&mut Builder) -> Option<Value>) {
    let loc = ir::location(op);
    let scratch = ir::new_block(&[], loc);
    let mut b = Builder::new(loc);
    b.push(scratch);
    if let Some(v) = build(&mut b) {
        for new in ir::block_ops(scratch) {
            ir::detach(new);
            ir::insert_before(op, new);
        }
        ir::replace_uses(ir::result(op, 0), v);
        ir::erase(op);
    }
    unsafe { mlirBlockDestroy(scratch) };
}

/// An owned top-level `builtin.module` (destroyed with its contents when dropped).
pub struct OwnedModule(MlirModule);

impl OwnedModule {
    /// An empty module at `loc`.
    pub fn new(loc: MlirLocation) -> Self {
        Self(unsafe { mlirModuleCreateEmpty(loc) })
    }

    /// Its body block.
    pub fn body(&self) -> MlirBlock {
        unsafe { mlirModuleGetBody(self.0) }
    }

    /// The module op.
    pub fn operation(&self) -> MlirOperation {
        unsafe { mlirModuleGetOperation(self.0) }
    }

    /// Gives up ownership (the caller destroys it, e.g. by wrapping it in melior's
    /// `Module::from_raw`).
    pub fn into_raw(self) -> MlirModule {
        let raw = self.0;
        std::mem::forget(self);
        raw
    }

    /// Replaces every op of `block` (another module's body) by this module's ops.
    pub fn replace_contents_of(self, block: MlirBlock) {
        for op in ir::block_ops(block) {
            ir::erase(op);
        }
        for op in ir::block_ops(self.body()) {
            ir::detach(op);
            ir::append(block, op);
        }
    }

    /// The module printed (generic form off, no locations).
    pub fn text(&self) -> String {
        ir::op_string(self.operation())
    }
}

impl Drop for OwnedModule {
    fn drop(&mut self) {
        // SAFETY: created by `new` and owned by `self` alone.
        unsafe { mlirModuleDestroy(self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FuseContext;

    fn unknown(ctx: &FuseContext) -> MlirLocation {
        unsafe { mlirLocationUnknownGet(ctx.context().to_raw()) }
    }

    #[test]
    fn builds_a_verified_loop_with_a_carried_value_and_locations() {
        let fuse = FuseContext::new().expect("context");
        let ctx = fuse.context().to_raw();
        let module = OwnedModule::new(unknown(&fuse));
        let file = unsafe {
            mlirLocationFileLineColGet(
                ctx,
                MlirStringRef {
                    data: "model.mlir".as_ptr() as *const _,
                    length: 10,
                },
                7,
                3,
            )
        };
        let mut b = Builder::new(file);
        let f32t = b.f32_type();
        let m = b.flat_memref(8, f32t);
        let (f, entry) = b.function("sum8", &[m], true, &[]);
        ir::append(module.body(), f);
        b.push(entry);
        let buf = ir::block_arguments(entry)[0];
        let (c0, c8, c1) = (b.index(0), b.index(8), b.index(1));
        let zero = b.f32(0.0);
        let open = b.open_for(c0, c8, c1, &[zero]);
        let x = b.load(buf, open.args[0]);
        let next = b.binary("arith.addf", open.args[1], x);
        let total = b.close("scf.yield", &[next]);
        b.store(total[0], buf, c0);
        b.close("func.return", &[]);
        assert!(
            unsafe { mlirOperationVerify(module.operation()) },
            "{}",
            module.text()
        );
        let text = module.text();
        assert!(
            text.contains("scf.for %arg1 = %c0 to %c8 step %c1 iter_args(%arg2 = %cst) -> (f32)"),
            "{text}"
        );
        assert!(
            text.contains("memref.store %0, %arg0[%c0] : memref<8xf32>"),
            "{text}"
        );
        let with_locs = ir::op_string_with_locations(module.operation());
        assert!(with_locs.contains("loc(\"model.mlir\":7:3)"), "{with_locs}");
    }

    #[test]
    fn affine_maps_read_as_the_parser_builds_them() {
        let fuse = FuseContext::new().expect("context");
        let ctx = fuse.context().to_raw();
        let (d0, d1, s0) = (Affine::dim(ctx, 0), Affine::dim(ctx, 1), Affine::sym(ctx, 0));
        let e = d1 * 2 - Affine::constant(ctx, 1) + d0 * 3 + s0.floordiv(4).modulo(5);
        let printed = ir::attr_string(affine_map(ctx, 2, 1, &[e]));
        let parsed = ir::attr_string(
            ir::parse_attr(
                ctx,
                "affine_map<(d0, d1)[s0] -> (d1 * 2 - 1 + d0 * 3 + (s0 floordiv 4) mod 5)>",
            )
            .expect("parses"),
        );
        assert_eq!(printed, parsed);
    }
}
