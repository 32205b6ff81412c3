//! How a `loop.reduction` combines two values, as an upstream `arith` op (the code
//! generators' and device lowerings' shared table).

/// The upstream `arith` op a `loop.reduction` of `kind` combines two values with, on
/// float values (`float`), bools (`bool_`) or other integers; `None` for a kind with no
/// such op (and for bool sums and products).
pub fn combine_op(kind: &str, float: bool, bool_: bool) -> Option<&'static str> {
    Some(match (kind, float, bool_) {
        ("sum", true, _) => "arith.addf",
        ("prod", true, _) => "arith.mulf",
        ("max", true, _) => "arith.maximumf",
        ("min", true, _) => "arith.minimumf",
        ("max", false, true) => "arith.ori",
        ("min", false, true) => "arith.andi",
        ("sum", false, false) => "arith.addi",
        ("prod", false, false) => "arith.muli",
        ("max", false, false) => "arith.maxsi",
        ("min", false, false) => "arith.minsi",
        _ => return None,
    })
}
