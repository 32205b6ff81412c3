//! The host function every code generator of fused `loop` IR builds (the CPU's kernel
//! functions and calls, the tile lowering's `tile.launch`es): one walk over the fused
//! function's ops ([`HostLowering::lower_ops`]: a kernel, a node outside kernels, a
//! kernel's output, the return), the buffers of values and of kernel results it keeps,
//! the shared buffer of a `concat` its parts are written into, and one rule for kernel
//! symbols ([`Symbols`]). Each code generator says what a kernel and a lone node become.

use fuselab_dialects::{ir, loops::names};
use mlir_sys::{MlirBlock, MlirOperation};
use std::collections::{HashMap, HashSet};

/// The symbols generated for one module: `base`, or `base_1`, `base_2`, ... when taken.
#[derive(Clone, Debug, Default)]
pub(crate) struct Symbols {
    /// Every symbol in use: the module's own and those made here.
    taken: HashSet<String>,
    /// The symbols made here (the generated functions, private to the lowering).
    made: HashSet<String>,
}

impl Symbols {
    /// The symbols `names` are taken.
    pub(crate) fn taken(names: impl IntoIterator<Item = String>) -> Self {
        Symbols {
            taken: names.into_iter().collect(),
            made: HashSet::new(),
        }
    }

    /// Every symbol `module` (a module's body) defines already is taken: another
    /// function's kernels keep their names.
    pub(crate) fn of_module(module: MlirBlock) -> Self {
        Self::taken(
            ir::block_ops(module)
                .into_iter()
                .filter_map(|op| ir::attr(op, "sym_name").and_then(fuselab_dialects::attrs::string_raw)),
        )
    }

    /// A fresh symbol for `base` (taken from now on).
    pub(crate) fn fresh(&mut self, base: &str) -> String {
        let mut symbol = base.to_string();
        let mut n = 0;
        while self.taken.contains(&symbol) {
            n += 1;
            symbol = format!("{base}_{n}");
        }
        self.taken.insert(symbol.clone());
        self.made.insert(symbol.clone());
        symbol
    }

    /// Whether `symbol` was made here by [`Symbols::fresh`] (not one the module had:
    /// a host function's signature is its callers' ABI and is never rewritten).
    pub(crate) fn made(&self, symbol: &str) -> bool {
        self.made.contains(symbol)
    }
}

/// What a code generator does with the ops of a fused function, and the buffers it keeps
/// for their values.
pub(crate) trait HostLowering {
    /// A buffer of the generated code.
    type Buf: Clone;
    /// The code generator's located error.
    type Error;

    /// Who reports an op it cannot handle ("the CPU code generator").
    const WHO: &'static str;

    /// A located error at `op`.
    fn error(op: MlirOperation, message: String) -> Self::Error;
    /// A `loop.kernel`.
    fn kernel(&mut self, op: MlirOperation) -> Result<(), Self::Error>;
    /// A node, extern or view outside kernels.
    fn node(&mut self, op: MlirOperation) -> Result<(), Self::Error>;
    /// The buffers of values, by `MlirValue` pointer.
    fn buffers(&mut self) -> &mut HashMap<usize, Self::Buf>;
    /// The output buffers of each kernel, by its result's pointer.
    fn kernel_outputs(&self) -> &HashMap<usize, Vec<Self::Buf>>;
    /// The buffer `op` writes (an output it is returned as, or a new temporary).
    fn result_buffer(&mut self, op: MlirOperation) -> Result<Self::Buf, Self::Error>;

    /// The fused function's ops, in order.
    fn lower_ops(&mut self, ops: &[MlirOperation]) -> Result<(), Self::Error> {
        for &op in ops {
            match ir::op_name(op).as_str() {
                names::KERNEL => self.kernel(op)?,
                names::POINTWISE | names::REDUCTION | names::EXTERN | names::VIEW => self.node(op)?,
                names::OUTPUT => {
                    let buf = kernel_output(self.kernel_outputs(), op)
                        .ok_or_else(|| Self::error(op, format!("{} of an unknown kernel", names::OUTPUT)))?;
                    self.buffers().insert(ir::result(op, 0).ptr as usize, buf);
                }
                "func.return" => {}
                other => return Err(Self::error(op, format!("{} cannot handle '{other}'", Self::WHO))),
            }
        }
        Ok(())
    }

    /// The buffer of a `concat` extern, made (by [`HostLowering::result_buffer`]) when
    /// first asked: by the first of its parts written into it in place, or by the concat.
    fn concat_buffer(&mut self, concat: MlirOperation) -> Result<Self::Buf, Self::Error> {
        let key = ir::result(concat, 0).ptr as usize;
        if let Some(b) = self.buffers().get(&key) {
            return Ok(b.clone());
        }
        let b = self.result_buffer(concat)?;
        self.buffers().insert(key, b.clone());
        Ok(b)
    }
}

/// The label of the function or kernel a code generator makes for `op` (a kernel or a
/// lone node): its `name` (`buf3`, `fused_exp_mean_0`), else `node`.
pub(crate) fn kernel_label(op: MlirOperation) -> String {
    ir::attr(op, "name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_else(|| "node".to_string())
}

/// The buffer a `loop.output` op reads: element `index` of its kernel's output list in
/// `tuples` (each code generator's buffers, by kernel result).
fn kernel_output<B: Clone>(tuples: &HashMap<usize, Vec<B>>, output: MlirOperation) -> Option<B> {
    let index = ir::integer(output, "index").unwrap_or(0) as usize;
    tuples
        .get(&(ir::operand(output, 0).ptr as usize))
        .and_then(|t| t.get(index))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::Symbols;

    #[test]
    fn symbols_are_unique_with_one_rule() {
        let mut s = Symbols::taken(["f_buf0".to_string()]);
        assert_eq!(s.fresh("f_buf0"), "f_buf0_1");
        assert_eq!(s.fresh("f_buf0"), "f_buf0_2");
        assert_eq!(s.fresh("f_buf1"), "f_buf1");
        assert_eq!(s.fresh("f_buf1_rows"), "f_buf1_rows");
        assert_eq!(s.fresh("f_buf1_rows"), "f_buf1_rows_1");
        assert!(s.made("f_buf0_2") && !s.made("f_buf3"));
        assert!(
            !s.made("f_buf0"),
            "a symbol the module had is taken, not made here"
        );
    }
}
