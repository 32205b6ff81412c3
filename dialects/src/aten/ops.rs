//! The table of `aten` operations: one Rust variant per op in `aten.irdl.mlir`, in the
//! same order (a test checks the two agree), with the class that decides how shapes
//! are checked and how later passes treat the op.

use std::fmt;

/// What kind of computation an `aten` op is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtenOpClass {
    /// Elementwise with one tensor operand; result shape = operand shape.
    Unary,
    /// Elementwise with broadcasting over all operands.
    Broadcasting,
    /// Reduction over `dims` with `keepdim`.
    Reduction,
    /// Composite normalization/softmax ops, decomposed before lowering.
    Composite,
    /// Matrix products and convolution (extern kernels).
    Contraction,
    /// Views and data movement (index remappings).
    Movement,
    /// Tensors made from attributes alone (arange).
    Creation,
}

macro_rules! aten_ops {
    ($($variant:ident = $name:literal : $class:ident),* $(,)?) => {
        /// Every operation of the `aten` dialect.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum AtenOpKind { $(#[doc = concat!("`aten.", $name, "`")] $variant),* }

        impl AtenOpKind {
            /// All ops, in the order of `aten.irdl.mlir`.
            pub const ALL: &'static [AtenOpKind] = &[$(AtenOpKind::$variant),*];

            /// The op name without the dialect prefix (`add`).
            pub const fn short_name(self) -> &'static str {
                match self { $(AtenOpKind::$variant => $name),* }
            }

            /// The full op name (`aten.add`).
            pub const fn op_name(self) -> &'static str {
                match self { $(AtenOpKind::$variant => concat!("aten.", $name)),* }
            }

            /// The op's class.
            pub const fn class(self) -> AtenOpClass {
                match self { $(AtenOpKind::$variant => AtenOpClass::$class),* }
            }
        }
    };
}

aten_ops! {
    Neg = "neg": Unary,
    Exp = "exp": Unary,
    Log = "log": Unary,
    Sqrt = "sqrt": Unary,
    Rsqrt = "rsqrt": Unary,
    Relu = "relu": Unary,
    Sigmoid = "sigmoid": Unary,
    Tanh = "tanh": Unary,
    Sin = "sin": Unary,
    Cos = "cos": Unary,
    Abs = "abs": Unary,
    Floor = "floor": Unary,
    Ceil = "ceil": Unary,
    Round = "round": Unary,
    Trunc = "trunc": Unary,
    Erf = "erf": Unary,
    Silu = "silu": Unary,
    Reciprocal = "reciprocal": Unary,
    Gelu = "gelu": Unary,
    ToDtype = "to_dtype": Unary,
    Clone = "clone": Unary,
    LogicalNot = "logical_not": Unary,
    Add = "add": Broadcasting,
    Sub = "sub": Broadcasting,
    Mul = "mul": Broadcasting,
    Div = "div": Broadcasting,
    Maximum = "maximum": Broadcasting,
    Minimum = "minimum": Broadcasting,
    Pow = "pow": Broadcasting,
    Where = "where": Broadcasting,
    Eq = "eq": Broadcasting,
    Ne = "ne": Broadcasting,
    Lt = "lt": Broadcasting,
    Le = "le": Broadcasting,
    Gt = "gt": Broadcasting,
    Ge = "ge": Broadcasting,
    Sum = "sum": Reduction,
    Prod = "prod": Reduction,
    Mean = "mean": Reduction,
    Amax = "amax": Reduction,
    Amin = "amin": Reduction,
    Var = "var": Reduction,
    Any = "any": Reduction,
    Softmax = "softmax": Composite,
    LogSoftmax = "log_softmax": Composite,
    LayerNorm = "layer_norm": Composite,
    RmsNorm = "rms_norm": Composite,
    GroupNorm = "group_norm": Composite,
    BatchNorm = "batch_norm": Composite,
    Mm = "mm": Contraction,
    Bmm = "bmm": Contraction,
    ScaledDotProductAttention = "scaled_dot_product_attention": Contraction,
    FusedLstmCell = "fused_lstm_cell": Contraction,
    FusedGruCell = "fused_gru_cell": Contraction,
    Addmm = "addmm": Contraction,
    Linear = "linear": Contraction,
    Convolution = "convolution": Contraction,
    View = "view": Movement,
    Reshape = "reshape": Movement,
    Permute = "permute": Movement,
    Transpose = "transpose": Movement,
    Expand = "expand": Movement,
    Unsqueeze = "unsqueeze": Movement,
    Squeeze = "squeeze": Movement,
    Slice = "slice": Movement,
    Select = "select": Movement,
    Cat = "cat": Movement,
    Gather = "gather": Movement,
    Arange = "arange": Creation,
}

impl AtenOpKind {
    /// Whether the op is a comparison (`eq`, `ne`, `lt`, `le`, `gt`, `ge`): i1 result.
    pub const fn is_comparison(self) -> bool {
        matches!(
            self,
            Self::Eq | Self::Ne | Self::Lt | Self::Le | Self::Gt | Self::Ge
        )
    }

    /// The kind for a full op name (`aten.add`), if it is an `aten` op.
    pub fn from_op_name(name: &str) -> Option<Self> {
        let short = name.strip_prefix("aten.")?;
        Self::ALL.iter().copied().find(|kind| kind.short_name() == short)
    }
}

impl fmt::Display for AtenOpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.op_name())
    }
}

/// Attribute names used by `aten` ops (so passes never spell them as loose strings).
pub mod attr {
    /// `array<i64>`: reduced or permuted or squeezed dims.
    pub const DIMS: &str = "dims";
    /// `i1`: keep reduced dims as size 1.
    pub const KEEPDIM: &str = "keepdim";
    /// `i64`: variance correction (1 = Bessel).
    pub const CORRECTION: &str = "correction";
    /// `i64`: a single dimension (softmax, unsqueeze, slice, select, cat, gather).
    pub const DIM: &str = "dim";
    /// `i64`: first dim swapped by transpose.
    pub const DIM0: &str = "dim0";
    /// `i64`: second dim swapped by transpose.
    pub const DIM1: &str = "dim1";
    /// `array<i64>`: trailing shape normalized by layer_norm/rms_norm.
    pub const NORMALIZED_SHAPE: &str = "normalized_shape";
    /// `f64`: epsilon of layer_norm/rms_norm/group_norm/batch_norm.
    pub const EPS: &str = "eps";
    /// `i64`: group_norm's number of channel groups.
    pub const NUM_GROUPS: &str = "num_groups";
    /// `"none"` or `"tanh"`: gelu's approximation.
    pub const APPROXIMATE: &str = "approximate";
    /// `array<i64>`: convolution stride per spatial dim.
    pub const STRIDE: &str = "stride";
    /// `array<i64>`: convolution zero padding per spatial dim.
    pub const PADDING: &str = "padding";
    /// `array<i64>`: convolution dilation per spatial dim.
    pub const DILATION: &str = "dilation";
    /// `i64`: convolution groups.
    pub const GROUPS: &str = "groups";
    /// `i64`: slice start.
    pub const START: &str = "start";
    /// `i64`: slice end (exclusive; clamped).
    pub const END: &str = "end";
    /// `i64`: slice step.
    pub const STEP: &str = "step";
    /// `i64`: select index.
    pub const INDEX: &str = "index";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::irdl_op_names;

    #[test]
    fn rust_table_matches_irdl_file() {
        let declared = irdl_op_names(crate::context::ATEN_IRDL);
        let table: Vec<String> = AtenOpKind::ALL
            .iter()
            .map(|k| k.short_name().to_string())
            .collect();
        assert_eq!(declared, table);
    }

    #[test]
    fn loop_kinds_match_irdl_file() {
        let declared: Vec<String> = irdl_op_names(crate::context::LOOP_IRDL)
            .into_iter()
            .map(|n| format!("loop.{n}"))
            .collect();
        let table: Vec<String> = crate::loops::LoopOpKind::ALL
            .iter()
            .map(|k| k.op_name().to_string())
            .collect();
        assert_eq!(declared, table);
    }

    #[test]
    fn names_round_trip() {
        for kind in AtenOpKind::ALL {
            assert_eq!(AtenOpKind::from_op_name(kind.op_name()), Some(*kind));
        }
        assert_eq!(AtenOpKind::from_op_name("aten.frobnicate"), None);
        assert_eq!(AtenOpKind::from_op_name("loop.add"), None);
    }
}
