//! The scalar bodies of elementwise ops: upstream `arith`/`math` on the loaded values,
//! comparisons and dtype conversions.

use super::*;

/// The scalar computation of an elementwise op.
pub(super) fn scalar_body(
    bx: &BodyBuilder,
    kind: AtenOpKind,
    v: &[MlirValue],
    dtypes: &[DType],
    operands: &[Access],
    out: DType,
) -> Result<MlirValue, String> {
    use AtenOpKind::*;
    let ty = scalar_type(bx.ctx, out);
    let float = out.is_float();
    // Operands of mixed dtypes are converted to the result dtype first (ATen promotion).
    let conv = |value: MlirValue, from: DType| -> MlirValue { convert(bx, value, from, out) };
    let unary_float = |name: &str| -> Result<MlirValue, String> {
        if !float {
            return Err(format!("'{}' needs a floating-point result", kind.op_name()));
        }
        Ok(bx.op(name, &[conv(v[0], dtypes[0])], ty))
    };
    Ok(match kind {
        _ if kind.is_comparison() => compare(bx, kind, v, dtypes),
        LogicalNot => {
            let value = convert(bx, v[0], dtypes[0], DType::I1);
            let t = bx.constant(1.0, DType::I1);
            bx.op("arith.xori", &[value, t], ty)
        }
        Neg if float => bx.op("arith.negf", &[v[0]], ty),
        Neg => {
            let zero = bx.constant(0.0, out);
            bx.op("arith.subi", &[zero, v[0]], ty)
        }
        Exp => unary_float("math.exp")?,
        Log => unary_float("math.log")?,
        Sqrt => unary_float("math.sqrt")?,
        Rsqrt => unary_float("math.rsqrt")?,
        Tanh => unary_float("math.tanh")?,
        Sin => unary_float("math.sin")?,
        Cos => unary_float("math.cos")?,
        Erf => unary_float("math.erf")?,
        Floor if float => bx.op("math.floor", &[v[0]], ty),
        Ceil if float => bx.op("math.ceil", &[v[0]], ty),
        Round if float => bx.op("math.roundeven", &[v[0]], ty),
        Trunc if float => bx.op("math.trunc", &[v[0]], ty),
        Floor | Ceil | Round | Trunc => v[0],
        Abs if float => bx.op("math.absf", &[v[0]], ty),
        Abs => bx.op("math.absi", &[v[0]], ty),
        Relu => {
            let zero = bx.constant(0.0, out);
            bx.op(
                if float { "arith.maximumf" } else { "arith.maxsi" },
                &[v[0], zero],
                ty,
            )
        }
        Sigmoid => {
            // 1 / (1 + exp(-x))
            let x = conv(v[0], dtypes[0]);
            let n = bx.op("arith.negf", &[x], ty);
            let e = bx.op("math.exp", &[n], ty);
            let one = bx.constant(1.0, out);
            let d = bx.op("arith.addf", &[one, e], ty);
            bx.op("arith.divf", &[one, d], ty)
        }
        Reciprocal => {
            let one = bx.constant(1.0, out);
            bx.op("arith.divf", &[one, conv(v[0], dtypes[0])], ty)
        }
        ToDtype => conv(v[0], dtypes[0]),
        Clone => v[0],
        Add | Sub | Mul | Div | Maximum | Minimum => {
            let (a, b) = (conv(v[0], dtypes[0]), conv(v[1], dtypes[1]));
            let name = match (kind, float) {
                (Add, true) => "arith.addf",
                (Sub, true) => "arith.subf",
                (Mul, true) => "arith.mulf",
                (Div, true) => "arith.divf",
                (Maximum, true) => "arith.maximumf",
                (Minimum, true) => "arith.minimumf",
                (Add, false) => "arith.addi",
                (Sub, false) => "arith.subi",
                (Mul, false) => "arith.muli",
                (Maximum, false) => "arith.maxsi",
                (Minimum, false) => "arith.minsi",
                _ => return Err("integer true division needs a floating-point result type".to_string()),
            };
            bx.op(name, &[a, b], ty)
        }
        Pow => {
            let base = conv(v[0], dtypes[0]);
            match &operands[1] {
                // Inductor's pow lowering: an integer-valued scalar exponent becomes
                // repeated multiplication (pow_recursive), exact like eager.
                Access::Scalar { value, .. } if value.fract() == 0.0 && value.abs() <= 64.0 && float => {
                    let n = value.abs() as u32;
                    let mut acc: Option<MlirValue> = None;
                    let mut square = base;
                    let mut bits = n;
                    while bits > 0 {
                        if bits & 1 == 1 {
                            acc = Some(match acc {
                                None => square,
                                Some(a) => bx.op("arith.mulf", &[a, square], ty),
                            });
                        }
                        bits >>= 1;
                        if bits > 0 {
                            square = bx.op("arith.mulf", &[square, square], ty);
                        }
                    }
                    let positive = acc.unwrap_or_else(|| bx.constant(1.0, out));
                    if *value < 0.0 {
                        let one = bx.constant(1.0, out);
                        bx.op("arith.divf", &[one, positive], ty)
                    } else {
                        positive
                    }
                }
                _ if float => bx.op("math.powf", &[base, conv(v[1], dtypes[1])], ty),
                _ => return Err("integer pow is not supported".to_string()),
            }
        }
        Where => bx.op(
            "arith.select",
            &[v[0], conv(v[1], dtypes[1]), conv(v[2], dtypes[2])],
            ty,
        ),
        other => return Err(format!("'{other}' has no elementwise lowering")),
    })
}

/// A comparison (`eq` .. `ge`) of two scalars, in their promoted dtype: `arith.cmpf`
/// with ordered predicates (`ne` is unordered-or-not-equal, as IEEE and ATen say NaN != x)
/// or `arith.cmpi` with signed ones.
pub(super) fn compare(bx: &BodyBuilder, kind: AtenOpKind, v: &[MlirValue], dtypes: &[DType]) -> MlirValue {
    use AtenOpKind::*;
    let common = match (dtypes[0].is_float(), dtypes[1].is_float()) {
        (true, false) => dtypes[0],
        (false, true) => dtypes[1],
        (true, true) if dtypes[0].size_bytes() >= dtypes[1].size_bytes() => dtypes[0],
        (true, true) => dtypes[1],
        (false, false) if dtypes[0] == dtypes[1] => dtypes[0],
        (false, false) => DType::I64,
    };
    let (a, b) = (
        convert(bx, v[0], dtypes[0], common),
        convert(bx, v[1], dtypes[1], common),
    );
    let i1 = scalar_type(bx.ctx, DType::I1);
    let (name, predicate) = if common.is_float() {
        let p = match kind {
            Eq => 1,
            Gt => 2,
            Ge => 3,
            Lt => 4,
            Le => 5,
            _ => 13,
        };
        ("arith.cmpf", p)
    } else {
        let p = match kind {
            Eq => 0,
            Ne => 1,
            Lt => 2,
            Le => 3,
            Gt => 4,
            _ => 5,
        };
        ("arith.cmpi", p)
    };
    bx.op_with(
        name,
        &[a, b],
        i1,
        &[("predicate", ir::i64_attr(bx.ctx, predicate))],
    )
}

/// An f32 op-math result rounded to its half `dtype` once, as eager kernels store it:
/// the `arith.truncf` carries [`fuselab_dialects::loops::OPMATH`], so that targets that keep half values
/// in f32 inside fused kernels (Ascend) can tell it from an explicit cast.
pub(super) fn round_opmath(bx: &BodyBuilder, value: MlirValue, dtype: DType) -> MlirValue {
    let v = convert(bx, value, DType::F32, dtype);
    if let Some(op) = ir::defining_op(v).filter(|&op| ir::op_name(op) == "arith.truncf") {
        ir::set_attr(op, fuselab_dialects::loops::OPMATH, ir::unit_attr(bx.ctx));
    }
    v
}

/// Converts a scalar between dtypes (`arith` casts).
pub(super) fn convert(bx: &BodyBuilder, value: MlirValue, from: DType, to: DType) -> MlirValue {
    if from == to {
        return value;
    }
    let ty = scalar_type(bx.ctx, to);
    match (from.is_float(), to.is_float()) {
        (true, true) if from.size_bytes() < to.size_bytes() => bx.op("arith.extf", &[value], ty),
        (true, true) if from.size_bytes() > to.size_bytes() => bx.op("arith.truncf", &[value], ty),
        (true, true) => {
            // f16 <-> bf16 via f32.
            let f32 = scalar_type(bx.ctx, DType::F32);
            let wide = bx.op("arith.extf", &[value], f32);
            bx.op("arith.truncf", &[wide], ty)
        }
        (false, true) if from == DType::I1 => bx.op("arith.uitofp", &[value], ty),
        (false, true) => bx.op("arith.sitofp", &[value], ty),
        (true, false) if to == DType::I1 => {
            let zero = bx.constant(0.0, from);
            let une = ir::i64_attr(bx.ctx, 13);
            bx.op_with("arith.cmpf", &[value, zero], ty, &[("predicate", une)])
        }
        (true, false) => bx.op("arith.fptosi", &[value], ty),
        (false, false) if to == DType::I1 => {
            let zero = bx.constant(0.0, from);
            let ne = ir::i64_attr(bx.ctx, 1);
            bx.op_with("arith.cmpi", &[value, zero], ty, &[("predicate", ne)])
        }
        // Bools widen as 0/1; integers sign-extend or truncate (two's complement).
        (false, false) if from == DType::I1 => bx.op("arith.extui", &[value], ty),
        (false, false) if from.size_bytes() < to.size_bytes() => bx.op("arith.extsi", &[value], ty),
        (false, false) => bx.op("arith.trunci", &[value], ty),
    }
}
