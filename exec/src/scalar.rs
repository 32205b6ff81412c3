//! Scalar semantics of the upstream `arith` / `math` ops fuselab's IR computes with,
//! shared by the interpreters of the `loop` and `ascend` dialects: every value is an f64
//! rounded to the op's declared type ([`Scalar::round`]).

use crate::{
    tensor::{i32_add, i32_mul, i32_sub, nan_max, nan_min, round_to},
    ExecError,
};
use fuselab_dialects::{ir, types::DType};
use mlir_sys::MlirOperation;

/// Scalar element types in bodies (`index` values are exact integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// A tensor element type.
    Typed(DType),
    /// `index`: exact integers.
    Index,
}

impl Scalar {
    /// The scalar type `ty`, if supported.
    pub fn of(ty: mlir_sys::MlirType) -> Option<Self> {
        let text = ir::type_string(ty);
        match text.as_str() {
            "index" => Some(Self::Index),
            "f32" => Some(Self::Typed(DType::F32)),
            "f16" => Some(Self::Typed(DType::F16)),
            "bf16" => Some(Self::Typed(DType::BF16)),
            "i64" => Some(Self::Typed(DType::I64)),
            "i32" => Some(Self::Typed(DType::I32)),
            "i1" => Some(Self::Typed(DType::I1)),
            _ => None,
        }
    }

    /// `v` rounded to this type.
    pub fn round(self, v: f64) -> f64 {
        match self {
            Self::Typed(d) => round_to(v, d),
            Self::Index => v,
        }
    }
}

/// What an op computes from its operands' values.
#[derive(Clone, Copy, Debug)]
pub enum ScalarOp {
    /// A constant.
    Const(f64),
    /// `f(a)`.
    Unary(fn(f64) -> f64),
    /// `f(a, b)`.
    Binary(fn(f64, f64) -> f64),
    /// `c ? a : b`.
    Select,
    /// A comparison (`float`: `cmpf`), by predicate number.
    Compare {
        /// `arith.cmpf` (else `arith.cmpi`).
        float: bool,
        /// The predicate number.
        predicate: i64,
    },
}

impl ScalarOp {
    /// The value on operands `args` (before rounding to the result type).
    pub fn apply(&self, args: &[f64]) -> f64 {
        match *self {
            Self::Const(c) => c,
            Self::Unary(f) => f(args[0]),
            Self::Binary(f) => f(args[0], args[1]),
            Self::Select => {
                if args[0] != 0.0 {
                    args[1]
                } else {
                    args[2]
                }
            }
            Self::Compare {
                float: true,
                predicate,
            } => bool_f(cmpf(predicate, args[0], args[1])),
            Self::Compare {
                float: false,
                predicate,
            } => bool_f(cmpi(predicate, args[0], args[1])),
        }
    }
}

pub(crate) fn bool_f(b: bool) -> f64 {
    f64::from(u8::from(b))
}

/// `arith.cmpf` with predicate number `p`.
pub fn cmpf(p: i64, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match p {
        0 => false,
        1 => !unordered && a == b,
        2 => !unordered && a > b,
        3 => !unordered && a >= b,
        4 => !unordered && a < b,
        5 => !unordered && a <= b,
        6 => !unordered && a != b,
        7 => !unordered,
        8 => unordered || a == b,
        9 => unordered || a > b,
        10 => unordered || a >= b,
        11 => unordered || a < b,
        12 => unordered || a <= b,
        13 => unordered || a != b,
        14 => unordered,
        _ => true,
    }
}

/// `arith.cmpi` with predicate number `p` (signed).
pub fn cmpi(p: i64, a: f64, b: f64) -> bool {
    match p {
        0 => a == b,
        1 => a != b,
        2 => a < b,
        3 => a <= b,
        4 => a > b,
        _ => a >= b,
    }
}

pub(crate) fn int_attr(op: MlirOperation, name: &str) -> Option<i64> {
    ir::attr(op, name)
        .and_then(|a| fuselab_dialects::attrs::integer(unsafe { melior::ir::Attribute::from_raw(a) }))
}

/// The value of the `arith.constant` `op` (bools 0 / 1).
pub fn float_value(op: MlirOperation) -> Option<f64> {
    let a = ir::attr(op, "value")?;
    unsafe {
        if mlir_sys::mlirAttributeIsAFloat(a) {
            Some(mlir_sys::mlirFloatAttrGetValueDouble(a))
        } else if mlir_sys::mlirAttributeIsAInteger(a) {
            let ty = mlir_sys::mlirAttributeGetType(a);
            let v = mlir_sys::mlirIntegerAttrGetValueInt(a);
            Some(if ir::type_string(ty) == "i1" {
                bool_f(v != 0)
            } else {
                v as f64
            })
        } else if mlir_sys::mlirAttributeIsABool(a) {
            Some(bool_f(mlir_sys::mlirBoolAttrGetValue(a)))
        } else {
            None
        }
    }
}

/// The semantics of `op` (named `name`, result type `ty`).
pub fn scalar_op(op: MlirOperation, name: &str, ty: Scalar) -> Result<ScalarOp, ExecError> {
    Ok(match name {
        "arith.constant" => {
            ScalarOp::Const(float_value(op).ok_or_else(|| ExecError::at(op, "unsupported constant"))?)
        }
        // int32 arithmetic wraps in i32 before the value becomes an f64 (a
        // product of two int32 values can exceed f64's 53 exact bits).
        "arith.addi" if ty == Scalar::Typed(DType::I32) => ScalarOp::Binary(i32_add),
        "arith.subi" if ty == Scalar::Typed(DType::I32) => ScalarOp::Binary(i32_sub),
        "arith.muli" if ty == Scalar::Typed(DType::I32) => ScalarOp::Binary(i32_mul),
        "arith.addf" | "arith.addi" => ScalarOp::Binary(|a, b| a + b),
        "arith.subf" | "arith.subi" => ScalarOp::Binary(|a, b| a - b),
        "arith.mulf" | "arith.muli" => ScalarOp::Binary(|a, b| a * b),
        "arith.divf" => ScalarOp::Binary(|a, b| a / b),
        "arith.divsi" => ScalarOp::Binary(|a, b| (a / b).trunc()),
        // Index arithmetic of views (tile and ascend kernels).
        "arith.floordivsi" => ScalarOp::Binary(|a, b| (a / b).floor()),
        "arith.remsi" => ScalarOp::Binary(|a, b| a % b),
        "arith.maximumf" | "arith.maxsi" => ScalarOp::Binary(nan_max),
        "arith.minimumf" | "arith.minsi" => ScalarOp::Binary(nan_min),
        "arith.negf" => ScalarOp::Unary(|a| -a),
        "arith.xori" => ScalarOp::Binary(|a, b| bool_f((a != 0.0) != (b != 0.0))),
        // Bitwise on the integer values (bools are 0 and 1): an unrolled `any` /
        // `all` combines with them.
        "arith.ori" => ScalarOp::Binary(|a, b| ((a as i64) | (b as i64)) as f64),
        "arith.andi" => ScalarOp::Binary(|a, b| ((a as i64) & (b as i64)) as f64),
        // Shifts and unsigned division of integer index values (a tile kernel's index
        // math, canonicalized: `x floordiv 32` of a non-negative x is `x >> 5`), on the
        // bits of the value's width.
        "arith.shrui" | "arith.shli" | "arith.shrsi" | "arith.divui" | "arith.remui" => {
            let wide = ty != Scalar::Typed(DType::I32);
            ScalarOp::Binary(match (name, wide) {
                ("arith.shrui", false) => {
                    |a, b| f64::from((a as i32 as u32).checked_shr(b as u32).unwrap_or(0) as i32)
                }
                ("arith.shli", false) => {
                    |a, b| f64::from((a as i32 as u32).checked_shl(b as u32).unwrap_or(0) as i32)
                }
                ("arith.shrsi", false) => |a, b| {
                    f64::from(
                        (a as i32)
                            .checked_shr(b as u32)
                            .unwrap_or(if a < 0.0 { -1 } else { 0 }),
                    )
                },
                ("arith.divui", false) => |a, b| f64::from(((a as i32 as u32) / (b as i32 as u32)) as i32),
                ("arith.remui", false) => |a, b| f64::from(((a as i32 as u32) % (b as i32 as u32)) as i32),
                ("arith.shrui", true) => {
                    |a, b| ((a as i64 as u64).checked_shr(b as u32).unwrap_or(0) as i64) as f64
                }
                ("arith.shli", true) => {
                    |a, b| ((a as i64 as u64).checked_shl(b as u32).unwrap_or(0) as i64) as f64
                }
                ("arith.shrsi", true) => |a, b| {
                    (a as i64)
                        .checked_shr(b as u32)
                        .unwrap_or(if a < 0.0 { -1 } else { 0 }) as f64
                },
                ("arith.divui", true) => |a, b| ((a as i64 as u64) / (b as i64 as u64)) as i64 as f64,
                _ => |a, b| ((a as i64 as u64) % (b as i64 as u64)) as i64 as f64,
            })
        }
        "arith.select" => ScalarOp::Select,
        "arith.cmpf" | "arith.cmpi" => {
            let predicate =
                int_attr(op, "predicate").ok_or_else(|| ExecError::at(op, "comparison without predicate"))?;
            let float = name == "arith.cmpf";
            // Unsigned integer predicates (ult .. uge) are not emitted by fuselab.
            if !(0..=if float { 15 } else { 5 }).contains(&predicate) {
                return Err(ExecError::at(
                    op,
                    format!("'{name}' predicate {predicate} is not supported"),
                ));
            }
            ScalarOp::Compare { float, predicate }
        }
        "arith.extf" | "arith.truncf" | "arith.sitofp" | "arith.uitofp" | "arith.extui" | "arith.extsi"
        | "arith.trunci" | "arith.index_cast" => ScalarOp::Unary(|a| a),
        "arith.fptosi" => ScalarOp::Unary(f64::trunc),
        "math.exp" => ScalarOp::Unary(f64::exp),
        "math.log" => ScalarOp::Unary(f64::ln),
        "math.sqrt" => ScalarOp::Unary(f64::sqrt),
        "math.rsqrt" => ScalarOp::Unary(|a| 1.0 / a.sqrt()),
        "math.tanh" => ScalarOp::Unary(f64::tanh),
        "math.sin" => ScalarOp::Unary(f64::sin),
        "math.cos" => ScalarOp::Unary(f64::cos),
        "math.erf" => ScalarOp::Unary(libm::erf),
        "math.absf" | "math.absi" => ScalarOp::Unary(f64::abs),
        "math.floor" => ScalarOp::Unary(f64::floor),
        "math.ceil" => ScalarOp::Unary(f64::ceil),
        "math.roundeven" => ScalarOp::Unary(f64::round_ties_even),
        "math.trunc" => ScalarOp::Unary(f64::trunc),
        "math.powf" => ScalarOp::Binary(f64::powf),
        other => return Err(ExecError::at(op, format!("the interpreter cannot run '{other}'"))),
    })
}
