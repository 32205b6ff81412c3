//! One function per kernel (and per op left outside kernels), with the globals it uses.

use super::*;
use fuselab_dialects::loops::ExternKind;
use fuselab_passes::analysis::rows::{kernel_members_bounded, MAX_RECOMPUTED_OPS};

impl Gen {
    /// The ops of a kernel function that are not kernels themselves.
    pub(super) fn members(&mut self, ops: &[MlirOperation]) -> Result<(), CodegenError> {
        for &op in ops {
            match ir::op_name(op).as_str() {
                names::POINTWISE | names::REDUCTION => self.step(&[op])?,
                names::EXTERN => match fuselab_dialects::loops::extern_kind(op) {
                    Some(ExternKind::Concat) => self.concat(op)?,
                    Some(ExternKind::Sdpa) => self.attention(op)?,
                    _ => self.matmul(op)?,
                },
                names::VIEW => self.view_copy(op)?,
                other => {
                    return Err(err(
                        op,
                        format!("the CPU code generator cannot handle '{other}' here"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// A `loop.kernel`'s members: pointwise members whose buffer does not leave the
    /// kernel are fused into their readers (computed in registers, never stored) unless
    /// several loops would recompute a large one
    /// ([`fuselab_passes::analysis::rows::kernel_members_bounded`]); the rest share one
    /// row nest when they can ([`Gen::step`]).
    fn fused_kernel(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        let split = kernel_members_bounded(op, MAX_RECOMPUTED_OPS).ok_or_else(|| err(op, "empty kernel"))?;
        self.inline.extend(split.inline);
        // Recomputed values never serve another kernel (their blocks differ anyway).
        self.recomputed.clear();
        let rest = split.materialized;
        let block = ir::body(op).ok_or_else(|| err(op, "kernel without a body"))?;
        let last = *ir::block_ops(block)
            .last()
            .ok_or_else(|| err(op, "empty kernel"))?;
        let nodes = rest
            .iter()
            .all(|&m| matches!(ir::op_name(m).as_str(), names::POINTWISE | names::REDUCTION));
        if nodes && !rest.is_empty() {
            self.step(&rest)?;
        } else {
            self.members(&rest)?;
        }
        let outs = ir::operands(last)
            .iter()
            .map(|&v| self.buffer(op, v))
            .collect::<Result<Vec<_>, _>>()?;
        self.tuples.insert(ir::result(op, 0).ptr as usize, outs);
        Ok(())
    }

    /// Starts the kernel function `@<function>_<label>` for `op` (before the host
    /// function, at `op`'s location) and makes its body the insertion point.
    pub(super) fn start_kernel(&mut self, op: MlirOperation, label: &str) {
        let symbol = self
            .symbols
            .fresh(&format!("{}_{}", self.prefix, crate::symbol_part(label)));
        self.b.at(ir::location(op));
        let params = self.params.clone();
        let (function, entry) = self.b.function(&symbol, &params, false, &[]);
        ir::insert_before(self.host.0, function);
        self.first_kernel.get_or_insert(function);
        self.func = Function {
            entry,
            globals: BTreeMap::new(),
            param_offset: 0,
        };
        self.b.push(entry);
    }

    /// Closes the kernel function being built and calls it from the host function.
    pub(super) fn finish_kernel(&mut self) {
        let function = unsafe { mlir_sys::mlirBlockGetParentOperation(self.func.entry) };
        self.b.at(ir::location(function));
        self.b.close("func.return", &[]);
        let symbol = ir::attr(function, "sym_name")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        let args = ir::block_arguments(self.host.1);
        self.b.push(self.host.1);
        self.b.call(&symbol, &args);
        self.b.pop();
    }
}

/// The host function: each kernel, node, extern or view becomes a function of its own,
/// called by the host function in order.
impl HostLowering for Gen {
    type Buf = Buf;
    type Error = CodegenError;
    const WHO: &'static str = "the CPU code generator";

    fn error(op: MlirOperation, message: String) -> CodegenError {
        err(op, message)
    }

    fn kernel(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        self.start_kernel(op, &crate::host::kernel_label(op));
        self.fused_kernel(op)?;
        self.finish_kernel();
        Ok(())
    }

    fn node(&mut self, op: MlirOperation) -> Result<(), CodegenError> {
        self.start_kernel(op, &crate::host::kernel_label(op));
        self.members(&[op])?;
        self.finish_kernel();
        Ok(())
    }

    fn buffers(&mut self) -> &mut HashMap<usize, Buf> {
        &mut self.bufs
    }

    fn kernel_outputs(&self) -> &HashMap<usize, Vec<Buf>> {
        &self.tuples
    }

    /// Its output argument if it is returned directly, else a fresh allocation.
    fn result_buffer(&mut self, op: MlirOperation) -> Result<Buf, CodegenError> {
        let result = ir::result(op, 0);
        if let Some(b) = self.direct_out.get(&(result.ptr as usize)) {
            return Ok(b.clone());
        }
        let ty = ir::tensor_type(result).ok_or_else(|| err(op, "result is not a supported tensor"))?;
        Ok(self.scratch(&ty.shape, ty.dtype))
    }
}

/// Drops the parameters a generated function (`symbols`: the kernels and outlined row
/// ranges, all private) never uses, and the matching operands of every call of it, until
/// none is left. Kernels are built with the host function's whole buffer list; passing
/// every buffer to every kernel made the host code quadratic in a model's size
/// (MobileNetV2: 107 kernels x 316 buffers, 169k LLVM `extractvalue`s in the host
/// function; 40 s of LLVM per compile). A parameter a call passes on is a use, so a
/// caller's parameters go only after its callees' (hence the rounds).
pub(super) fn prune_unused_params(module: MlirBlock, symbols: &crate::host::Symbols) {
    let functions: Vec<(String, MlirOperation)> = ir::block_ops(module)
        .into_iter()
        .filter(|&op| ir::op_name(op) == "func.func")
        .filter_map(|op| {
            ir::attr(op, "sym_name")
                .and_then(fuselab_dialects::attrs::string_raw)
                .filter(|n| symbols.made(n))
                .map(|n| (n, op))
        })
        .collect();
    let mut calls: HashMap<String, Vec<MlirOperation>> = HashMap::new();
    for op in ir::block_ops(module) {
        for call in ir::collect_ops(op, |n| n == "func.call") {
            if let Some(callee) = ir::attr(call, "callee")
                .and_then(ir::symbol_leaf)
                .filter(|n| symbols.made(n))
            {
                calls.entry(callee).or_default().push(call);
            }
        }
    }
    loop {
        let mut changed = false;
        for (name, function) in &functions {
            let (Some(entry), Some(old_type)) = (ir::body(*function), ir::attr(*function, "function_type"))
            else {
                continue;
            };
            let args = ir::block_arguments(entry);
            let keep: Vec<bool> = args.iter().map(|&a| ir::has_uses(a)).collect();
            if keep.iter().all(|&k| k) {
                continue;
            }
            changed = true;
            for i in (0..args.len()).rev().filter(|&i| !keep[i]) {
                unsafe { mlir_sys::mlirBlockEraseArgument(entry, i as u32) };
            }
            let inputs: Vec<MlirType> = ir::block_arguments(entry)
                .iter()
                .map(|&a| ir::value_type(a))
                .collect();
            let ty = unsafe {
                let old = mlir_sys::mlirTypeAttrGetValue(old_type);
                let results: Vec<MlirType> = (0..mlir_sys::mlirFunctionTypeGetNumResults(old))
                    .map(|i| mlir_sys::mlirFunctionTypeGetResult(old, i))
                    .collect();
                mlir_sys::mlirFunctionTypeGet(
                    ir::context(*function),
                    inputs.len() as isize,
                    inputs.as_ptr(),
                    results.len() as isize,
                    results.as_ptr(),
                )
            };
            ir::set_attr(*function, "function_type", unsafe {
                mlir_sys::mlirTypeAttrGet(ty)
            });
            for &call in calls.get(name).into_iter().flatten() {
                let operands: Vec<mlir_sys::MlirValue> = ir::operands(call)
                    .into_iter()
                    .zip(&keep)
                    .filter_map(|(v, &k)| k.then_some(v))
                    .collect();
                unsafe {
                    mlir_sys::mlirOperationSetOperands(call, operands.len() as isize, operands.as_ptr())
                };
            }
        }
        if !changed {
            break;
        }
    }
}
