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

/// `a`, an integer of `BITS` bits, as those bits.
fn to_bits<const BITS: u32>(a: f64) -> u64 {
    (a as i64 as u64) & (u64::MAX >> (64 - BITS))
}

/// `BITS` bits as the signed integer they hold.
fn from_bits<const BITS: u32>(v: u64) -> f64 {
    ((v << (64 - BITS)) as i64 >> (64 - BITS)) as f64
}

/// A shift or unsigned division (`name`) of `BITS`-bit integers. A shift by the width or
/// more gives 0 (-1 for an arithmetic right shift of a negative value), and a division
/// by zero 0: undefined in MLIR, never a panic here.
fn bit_op<const BITS: u32>(name: &str) -> fn(f64, f64) -> f64 {
    match name {
        "arith.shrui" => |a, b| from_bits::<BITS>(to_bits::<BITS>(a).checked_shr(b as u32).unwrap_or(0)),
        "arith.shli" => |a, b| from_bits::<BITS>(to_bits::<BITS>(a).checked_shl(b as u32).unwrap_or(0)),
        "arith.shrsi" => |a, b| {
            let v = from_bits::<BITS>(to_bits::<BITS>(a)) as i64;
            v.checked_shr(b as u32).unwrap_or(if v < 0 { -1 } else { 0 }) as f64
        },
        "arith.divui" => {
            |a, b| from_bits::<BITS>(to_bits::<BITS>(a).checked_div(to_bits::<BITS>(b)).unwrap_or(0))
        }
        _ => |a, b| from_bits::<BITS>(to_bits::<BITS>(a).checked_rem(to_bits::<BITS>(b)).unwrap_or(0)),
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
            ScalarOp::Binary(if ty == Scalar::Typed(DType::I32) {
                bit_op::<32>(name)
            } else {
                bit_op::<64>(name)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_and_unsigned_division_on_the_value_width() {
        // 32 bits: -1 is 0xffffffff.
        assert_eq!(bit_op::<32>("arith.shrui")(-1.0, 28.0), 15.0);
        assert_eq!(bit_op::<32>("arith.shrsi")(-16.0, 2.0), -4.0);
        assert_eq!(bit_op::<32>("arith.shli")(3.0, 31.0), f64::from(i32::MIN));
        assert_eq!(bit_op::<32>("arith.shli")(3.0, 32.0), 0.0);
        assert_eq!(bit_op::<32>("arith.divui")(-2.0, 2.0), f64::from(i32::MAX));
        assert_eq!(bit_op::<32>("arith.remui")(37.0, 32.0), 5.0);
        assert_eq!(bit_op::<32>("arith.divui")(5.0, 0.0), 0.0);
        // 64 bits (index): 1000 >> 5 and 1000 & 31 as the tile kernels compute a row of 32.
        assert_eq!(bit_op::<64>("arith.shrui")(1000.0, 5.0), 31.0);
        assert_eq!(bit_op::<64>("arith.shrui")(-1.0, 60.0), 15.0);
        assert_eq!(bit_op::<64>("arith.shrsi")(-1.0, 70.0), -1.0);
        assert_eq!(bit_op::<64>("arith.remui")(1000.0, 32.0), 8.0);
    }
}
