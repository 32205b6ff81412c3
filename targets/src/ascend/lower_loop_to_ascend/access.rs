//! Which offsets tiles are strided: an index tile is tracked as `base + row * r + col *
//! c` with a base uniform over the tile (a function of scalars only), built from
//! `splat` (r = c = 0), `arange` (1 along its axis), `broadcast`, `+`, `-` and products
//! with a known constant. A `copy_in` / `copy_out` at such offsets is a strided
//! `DataCopy` of rows; anything else (a `floordiv`/`mod` view, a computed gather index)
//! is a gather.

/// What is known of an index tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The same known constant everywhere.
    Const(i64),
    /// `base + row * r + col * c`, `base` uniform but not known here.
    Strided { r: i64, c: i64 },
    /// Nothing known: a gather.
    Gather,
}

impl Access {
    /// The row and column strides, unless a gather.
    pub fn strides(self) -> Option<(i64, i64)> {
        match self {
            Self::Const(_) => Some((0, 0)),
            Self::Strided { r, c } => Some((r, c)),
            Self::Gather => None,
        }
    }

    /// `arange` along `axis` (0: rows, 1: columns).
    pub fn arange(axis: i64) -> Self {
        if axis == 0 {
            Self::Strided { r: 1, c: 0 }
        } else {
            Self::Strided { r: 0, c: 1 }
        }
    }

    /// The result of the elementwise index op `name` on `a` and `b`.
    pub fn combine(name: &str, a: Self, b: Self) -> Self {
        use Access::{Const, Gather, Strided};
        let checked = |x: Option<i64>, y: Option<i64>| x.zip(y);
        match (name, a, b) {
            (_, Gather, _) | (_, _, Gather) => Gather,
            ("arith.addi", Const(x), Const(y)) => x.checked_add(y).map_or(Gather, Const),
            ("arith.subi", Const(x), Const(y)) => x.checked_sub(y).map_or(Gather, Const),
            ("arith.muli", Const(x), Const(y)) => x.checked_mul(y).map_or(Gather, Const),
            ("arith.addi" | "arith.subi", _, _) => {
                let (r1, c1) = a.strides().unwrap_or((0, 0));
                let (r2, c2) = b.strides().unwrap_or((0, 0));
                let sum = if name == "arith.addi" {
                    checked(r1.checked_add(r2), c1.checked_add(c2))
                } else {
                    checked(r1.checked_sub(r2), c1.checked_sub(c2))
                };
                sum.map_or(Gather, |(r, c)| Strided { r, c })
            }
            ("arith.muli", Strided { r, c }, Const(k)) | ("arith.muli", Const(k), Strided { r, c }) => {
                checked(r.checked_mul(k), c.checked_mul(k)).map_or(Gather, |(r, c)| Strided { r, c })
            }
            // Uniform operands give a uniform result, whatever the op.
            (_, Strided { r: 0, c: 0 } | Const(_), Strided { r: 0, c: 0 } | Const(_)) => {
                Strided { r: 0, c: 0 }
            }
            _ => Gather,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Access::{self, Const, Gather, Strided};

    /// The softmax row offsets: (pid * 1 + arange0) * 1024 + arange1 = rows of 1024.
    #[test]
    fn row_major_offsets_are_strided() {
        let rows = Access::combine("arith.addi", Strided { r: 0, c: 0 }, Access::arange(0));
        let scaled = Access::combine("arith.muli", rows, Const(1024));
        let offsets = Access::combine("arith.addi", scaled, Access::arange(1));
        assert_eq!(offsets.strides(), Some((1024, 1)));
    }

    #[test]
    fn views_and_products_of_unknowns_gather() {
        let x = Access::arange(0);
        assert_eq!(Access::combine("arith.floordivsi", x, Const(32)), Gather);
        assert_eq!(Access::combine("arith.muli", x, Access::arange(1)), Gather);
        assert_eq!(Access::combine("arith.muli", x, Strided { r: 0, c: 0 }), Gather);
        assert_eq!(
            Access::combine("arith.floordivsi", Strided { r: 0, c: 0 }, Const(3)),
            Strided { r: 0, c: 0 }
        );
        assert_eq!(Access::combine("arith.subi", Const(5), Const(7)), Const(-2));
    }
}
