//! Index expressions of the `loop` dialect: the flat storage offset a `loop.load` reads,
//! as a function of the enclosing node's loop variables (`d0, d1, ...`) and of
//! indirect indices (`s0, ...`, values loaded at run time, as in `gather`).
//!
//! This is Inductor's MemoryDep index (seed 000, §1.1): `1024*d0 + d1` for a contiguous
//! `[1024, 1024]` read, `d1` for a broadcast bias. Expressions are kept in a canonical
//! form (sorted terms, merged coefficients) and simplified with the variables' ranges,
//! the way Inductor simplifies sympy indices: `(1024*d0 + d1) floordiv 1024 = d0` when
//! `d1 < 1024`, `(1024*d0 + d1) mod 1024 = d1`. Two reads are "the same MemoryDep" when
//! their canonical expressions are equal.

use std::fmt;

/// A non-linear or variable building block of an index expression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// Loop variable `d<k>` of the enclosing node.
    Dim(usize),
    /// Indirect index `s<k>` (an SSA value bound at run time).
    Sym(usize),
    /// `expr floordiv c` (c > 1), not further simplifiable.
    FloorDiv(Box<IndexExpr>, i64),
    /// `expr mod c` (c > 1, Euclidean), not further simplifiable.
    Mod(Box<IndexExpr>, i64),
}

/// `sum(coeff * atom) + constant`, canonical: atoms sorted, unique, coefficients non-zero.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct IndexExpr {
    terms: Vec<(Atom, i64)>,
    constant: i64,
}

impl IndexExpr {
    /// The constant `c`.
    pub fn constant(c: i64) -> Self {
        Self {
            terms: Vec::new(),
            constant: c,
        }
    }

    /// The loop variable `d<k>`.
    pub fn dim(k: usize) -> Self {
        Self::atom(Atom::Dim(k))
    }

    /// The indirect index `s<k>`.
    pub fn sym(k: usize) -> Self {
        Self::atom(Atom::Sym(k))
    }

    fn atom(atom: Atom) -> Self {
        Self {
            terms: vec![(atom, 1)],
            constant: 0,
        }
    }

    /// The terms `(atom, coefficient)`, sorted.
    pub fn terms(&self) -> &[(Atom, i64)] {
        &self.terms
    }

    /// The constant part.
    pub fn constant_part(&self) -> i64 {
        self.constant
    }

    /// Whether the expression is a constant.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `self + other`.
    pub fn add(&self, other: &IndexExpr) -> IndexExpr {
        let mut terms = self.terms.clone();
        terms.extend(other.terms.iter().cloned());
        Self::normalize(terms, self.constant + other.constant)
    }

    /// `self * c`.
    pub fn scale(&self, c: i64) -> IndexExpr {
        if c == 0 {
            return Self::constant(0);
        }
        Self {
            terms: self.terms.iter().map(|(a, k)| (a.clone(), k * c)).collect(),
            constant: self.constant * c,
        }
    }

    fn normalize(mut terms: Vec<(Atom, i64)>, constant: i64) -> IndexExpr {
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        let mut merged: Vec<(Atom, i64)> = Vec::with_capacity(terms.len());
        for (atom, coeff) in terms {
            match merged.last_mut() {
                Some((last, k)) if *last == atom => *k += coeff,
                _ => merged.push((atom, coeff)),
            }
        }
        merged.retain(|(_, k)| *k != 0);
        // a*c*(x floordiv c) + a*(x mod c) = a*x
        for i in 0..merged.len() {
            let (Atom::FloorDiv(x, c), a) = merged[i].clone() else {
                continue;
            };
            let partner = merged.iter().position(|(atom, b)| {
                matches!(atom, Atom::Mod(y, d) if *y == x && *d == c) && b.checked_mul(c) == Some(a)
            });
            if let Some(j) = partner {
                let b = merged[j].1;
                let mut rest: Vec<(Atom, i64)> = merged
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i && *k != j)
                    .map(|(_, t)| t.clone())
                    .collect();
                rest.extend(x.scale(b).terms);
                return Self::normalize(rest, constant + x.constant * b);
            }
        }
        IndexExpr {
            terms: merged,
            constant,
        }
    }

    /// Splits `self` as `g*big + small` with `0 <= small < g` for a factor `g` of `c`
    /// (tried from the largest), returning `(g, big, small)`.
    fn split_by_factor(&self, c: i64, dims: &[i64]) -> Option<(i64, IndexExpr, IndexExpr)> {
        let mut candidates: Vec<i64> = self
            .terms
            .iter()
            .map(|(_, k)| gcd(k.abs(), c))
            .filter(|g| *g > 1)
            .collect();
        candidates.sort_unstable_by(|a, b| b.cmp(a));
        candidates.dedup();
        for g in candidates {
            let mut big = Vec::new();
            let mut small = Vec::new();
            for (atom, k) in &self.terms {
                if k % g == 0 {
                    big.push((atom.clone(), k / g));
                } else {
                    small.push((atom.clone(), *k));
                }
            }
            let small = Self::normalize(small, self.constant.rem_euclid(g));
            if let Some((lo, hi)) = small.bounds(dims) {
                if lo >= 0 && hi < g {
                    return Some((g, Self::normalize(big, self.constant.div_euclid(g)), small));
                }
            }
        }
        None
    }

    /// Inclusive value range given the dims' extents (`dims[k]` = range of `d<k>`);
    /// `None` when a symbol (unknown at compile time) is involved.
    pub fn bounds(&self, dims: &[i64]) -> Option<(i64, i64)> {
        let (mut lo, mut hi) = (self.constant, self.constant);
        for (atom, k) in &self.terms {
            let (alo, ahi) = atom_bounds(atom, dims)?;
            if *k >= 0 {
                lo += k * alo;
                hi += k * ahi;
            } else {
                lo += k * ahi;
                hi += k * alo;
            }
        }
        Some((lo, hi))
    }

    /// `self floordiv c` (c > 0), simplified with the dims' extents.
    pub fn floordiv(&self, c: i64, dims: &[i64]) -> IndexExpr {
        assert!(c > 0, "floordiv by a non-positive constant");
        if c == 1 {
            return self.clone();
        }
        // Split off the part divisible by c: (c*q + r) floordiv c = q + r floordiv c.
        let mut quotient = Vec::new();
        let mut rest = Vec::new();
        for (atom, k) in &self.terms {
            if k % c == 0 {
                quotient.push((atom.clone(), k / c));
            } else {
                rest.push((atom.clone(), *k));
            }
        }
        let q0 = self.constant.div_euclid(c);
        let r0 = self.constant.rem_euclid(c);
        let rest = Self::normalize(rest, r0);
        let quotient = Self::normalize(quotient, q0);
        if let Some((lo, hi)) = rest.bounds(dims) {
            if lo >= 0 && hi < c {
                return quotient;
            }
        }
        // (e floordiv a) floordiv b = e floordiv (a*b)
        if let ([(Atom::FloorDiv(inner, a), 1)], 0) = (rest.terms.as_slice(), rest.constant) {
            return quotient.add(&inner.floordiv(a * c, dims));
        }
        // (g*q + r) floordiv c = q floordiv (c/g) when g | c and 0 <= r < g
        if let Some((g, big, _)) = rest.split_by_factor(c, dims) {
            return quotient.add(&big.floordiv(c / g, dims));
        }
        quotient.add(&Self::atom(Atom::FloorDiv(Box::new(rest), c)))
    }

    /// `self mod c` (c > 0, Euclidean), simplified with the dims' extents.
    pub fn modulo(&self, c: i64, dims: &[i64]) -> IndexExpr {
        assert!(c > 0, "mod by a non-positive constant");
        if c == 1 {
            return Self::constant(0);
        }
        let rest: Vec<_> = self.terms.iter().filter(|(_, k)| k % c != 0).cloned().collect();
        let rest = Self::normalize(rest, self.constant.rem_euclid(c));
        if let Some(constant) = rest.as_constant() {
            return Self::constant(constant.rem_euclid(c));
        }
        if let Some((lo, hi)) = rest.bounds(dims) {
            if lo >= 0 && hi < c {
                return rest;
            }
        }
        // (g*q + r) mod c = g*(q mod (c/g)) + r when g | c and 0 <= r < g
        if let Some((g, big, small)) = rest.split_by_factor(c, dims) {
            return big.modulo(c / g, dims).scale(g).add(&small);
        }
        Self::atom(Atom::Mod(Box::new(rest), c))
    }

    /// Replaces `d<k>` by `dims[k]` and `s<k>` by `syms[k]`, simplifying with `ranges`
    /// (the extents of the variables of the *result* expression).
    pub fn substitute(&self, dims: &[IndexExpr], syms: &[IndexExpr], ranges: &[i64]) -> IndexExpr {
        let mut out = Self::constant(self.constant);
        for (atom, k) in &self.terms {
            let value = match atom {
                Atom::Dim(d) => dims[*d].clone(),
                Atom::Sym(s) => syms[*s].clone(),
                Atom::FloorDiv(e, c) => e.substitute(dims, syms, ranges).floordiv(*c, ranges),
                Atom::Mod(e, c) => e.substitute(dims, syms, ranges).modulo(*c, ranges),
            };
            out = out.add(&value.scale(*k));
        }
        out
    }

    /// The value for loop variables `dims` and indirect indices `syms` (floordiv and mod
    /// are Euclidean, as in affine maps).
    pub fn eval(&self, dims: &[i64], syms: &[i64]) -> i64 {
        let mut value = self.constant;
        for (atom, k) in &self.terms {
            let a = match atom {
                Atom::Dim(d) => dims[*d],
                Atom::Sym(s) => syms[*s],
                Atom::FloorDiv(e, c) => e.eval(dims, syms).div_euclid(*c),
                Atom::Mod(e, c) => e.eval(dims, syms).rem_euclid(*c),
            };
            value += k * a;
        }
        value
    }

    /// Replaces dims whose extent is 1 (always 0) by 0, so equal accesses print equal.
    pub fn drop_unit_dims(&self, ranges: &[i64]) -> IndexExpr {
        if !ranges.contains(&1) {
            return self.clone();
        }
        let dims: Vec<IndexExpr> = (0..ranges.len())
            .map(|d| {
                if ranges[d] == 1 {
                    IndexExpr::constant(0)
                } else {
                    IndexExpr::dim(d)
                }
            })
            .collect();
        let syms: Vec<IndexExpr> = (0..self.symbol_count()).map(IndexExpr::sym).collect();
        self.substitute(&dims, &syms, ranges)
    }

    /// Coefficient of `d<k>` if the expression is linear (no floordiv/mod/symbols).
    pub fn linear_coefficients(&self, num_dims: usize) -> Option<Vec<i64>> {
        let mut coeffs = vec![0; num_dims];
        for (atom, k) in &self.terms {
            match atom {
                Atom::Dim(d) if *d < num_dims => coeffs[*d] = *k,
                _ => return None,
            }
        }
        Some(coeffs)
    }

    /// The coefficient of `d<k>` where it appears only as a term of its own (0 where it
    /// does not appear); `None` where it also appears inside a floordiv or mod. The
    /// stride of a read along one loop dim, whatever the other dims do.
    pub fn dim_coefficient(&self, k: usize) -> Option<i64> {
        let mut coefficient = 0;
        for (atom, c) in &self.terms {
            match atom {
                Atom::Dim(d) if *d == k => coefficient = *c,
                other if atom_uses_dim(other, k) => return None,
                _ => {}
            }
        }
        Some(coefficient)
    }

    /// Whether an indirect index (symbol) appears.
    pub fn has_symbols(&self) -> bool {
        self.terms.iter().any(|(a, _)| atom_has_symbols(a))
    }

    /// Whether `d<k>` appears anywhere.
    pub fn uses_dim(&self, k: usize) -> bool {
        self.terms.iter().any(|(a, _)| atom_uses_dim(a, k))
    }

    /// The highest symbol number used plus one.
    pub fn symbol_count(&self) -> usize {
        self.terms
            .iter()
            .map(|(a, _)| atom_symbol_count(a))
            .max()
            .unwrap_or(0)
    }

    /// MLIR affine syntax: `d0 * 1024 + d1`, `(d0 * 64 + d1) floordiv 512`, `s0`.
    pub fn to_affine(&self) -> String {
        self.render(Style::Affine)
    }

    /// Inductor's (sympy) notation: `1024*d0 + d1`, `(d0//512)`, `Mod(d0, 512)`, `tmp0`.
    pub fn to_inductor(&self) -> String {
        self.render(Style::Inductor)
    }

    /// An `affine_map<(d0, ...)[s0, ...] -> (self)>` over `num_dims` dims and `num_syms` symbols.
    pub fn to_affine_map(&self, num_dims: usize, num_syms: usize) -> String {
        affine_map_of(std::slice::from_ref(self), num_dims, num_syms)
    }

    /// [`Self::to_affine_map`] as the attribute itself, built through MLIR's affine
    /// expression builders in the order its parser builds the text (terms left to right,
    /// `a - b` as `a + b * -1`, a leading `-a` as `a * -1`), so the uniqued attribute is
    /// the one parsing the text gives — without a parser per map (printing and parsing
    /// set up an assembly state that sorts every loaded dialect: 80% of
    /// `--inline-pointwise` on a 100k-node chain). Debug builds check it against the parser.
    pub fn to_affine_map_attr(
        &self,
        ctx: mlir_sys::MlirContext,
        num_dims: usize,
        num_syms: usize,
    ) -> mlir_sys::MlirAttribute {
        let attr = crate::build::affine_map(ctx, num_dims, num_syms, &[self.to_affine_expr(ctx)]);
        debug_assert_eq!(
            Some(attr.ptr),
            crate::ir::parse_attr(ctx, &self.to_affine_map(num_dims, num_syms)).map(|a| a.ptr),
            "{}",
            self.to_affine_map(num_dims, num_syms)
        );
        attr
    }

    /// The expression as MLIR's parser builds [`Self::to_affine`]'s text.
    fn to_affine_expr(&self, ctx: mlir_sys::MlirContext) -> crate::build::Affine {
        use crate::build::Affine;
        let mut acc: Option<Affine> = None;
        for (atom, k) in &self.terms {
            let a = atom_affine(atom, ctx);
            let magnitude = k.abs();
            acc = Some(match (acc, *k < 0) {
                // `-a * m`: the unary minus binds to the operand.
                (None, true) => scaled(a * -1, magnitude),
                (None, false) => scaled(a, magnitude),
                (Some(acc), true) => acc - scaled(a, magnitude),
                (Some(acc), false) => acc + scaled(a, magnitude),
            });
        }
        let c = self.constant;
        match acc {
            None => Affine::constant(ctx, c),
            Some(acc) if c > 0 => acc + Affine::constant(ctx, c),
            Some(acc) if c < 0 => acc - Affine::constant(ctx, -c),
            Some(acc) => acc,
        }
    }

    fn render(&self, style: Style) -> String {
        let mut parts: Vec<(bool, String)> = Vec::new();
        for (atom, k) in &self.terms {
            let a = render_atom(atom, style);
            let magnitude = k.abs();
            let body = match (style, magnitude) {
                (_, 1) => a,
                (Style::Affine, m) => format!("{a} * {m}"),
                (Style::Inductor, m) => format!("{m}*{a}"),
            };
            parts.push((*k < 0, body));
        }
        if self.constant != 0 || parts.is_empty() {
            parts.push((self.constant < 0, self.constant.abs().to_string()));
        }
        let mut out = String::new();
        for (i, (negative, body)) in parts.iter().enumerate() {
            match (i, negative) {
                (0, true) => out.push_str(&format!("-{body}")),
                (0, false) => out.push_str(body),
                (_, true) => out.push_str(&format!(" - {body}")),
                (_, false) => out.push_str(&format!(" + {body}")),
            }
        }
        out
    }
}

#[derive(Clone, Copy)]
enum Style {
    Affine,
    Inductor,
}

/// `a * m`, or `a` for a magnitude of 1 (as the text writes it).
fn scaled(a: crate::build::Affine, magnitude: i64) -> crate::build::Affine {
    if magnitude == 1 {
        a
    } else {
        a * magnitude
    }
}

/// An atom as MLIR's parser builds [`render_atom`]'s affine text.
fn atom_affine(atom: &Atom, ctx: mlir_sys::MlirContext) -> crate::build::Affine {
    use crate::build::Affine;
    match atom {
        Atom::Dim(d) => Affine::dim(ctx, *d),
        Atom::Sym(s) => Affine::sym(ctx, *s),
        Atom::FloorDiv(e, c) => e.to_affine_expr(ctx).floordiv(*c),
        Atom::Mod(e, c) => e.to_affine_expr(ctx).modulo(*c),
    }
}

fn render_atom(atom: &Atom, style: Style) -> String {
    match (atom, style) {
        (Atom::Dim(d), _) => format!("d{d}"),
        (Atom::Sym(s), Style::Affine) => format!("s{s}"),
        (Atom::Sym(s), Style::Inductor) => format!("tmp{s}"),
        (Atom::FloorDiv(e, c), Style::Affine) => format!("({}) floordiv {c}", e.to_affine()),
        (Atom::FloorDiv(e, c), Style::Inductor) => format!("(({})//{c})", e.to_inductor()),
        (Atom::Mod(e, c), Style::Affine) => format!("({}) mod {c}", e.to_affine()),
        (Atom::Mod(e, c), Style::Inductor) => format!("Mod({}, {c})", e.to_inductor()),
    }
}

fn atom_bounds(atom: &Atom, dims: &[i64]) -> Option<(i64, i64)> {
    match atom {
        Atom::Dim(d) => dims.get(*d).map(|&r| (0, (r - 1).max(0))),
        Atom::Sym(_) => None,
        Atom::FloorDiv(e, c) => e
            .bounds(dims)
            .map(|(lo, hi)| (lo.div_euclid(*c), hi.div_euclid(*c))),
        Atom::Mod(e, c) => Some(match e.bounds(dims) {
            Some((lo, hi)) if lo >= 0 && hi < *c => (lo, hi),
            _ => (0, c - 1),
        }),
    }
}

fn atom_has_symbols(atom: &Atom) -> bool {
    match atom {
        Atom::Dim(_) => false,
        Atom::Sym(_) => true,
        Atom::FloorDiv(e, _) | Atom::Mod(e, _) => e.has_symbols(),
    }
}

fn atom_uses_dim(atom: &Atom, k: usize) -> bool {
    match atom {
        Atom::Dim(d) => *d == k,
        Atom::Sym(_) => false,
        Atom::FloorDiv(e, _) | Atom::Mod(e, _) => e.uses_dim(k),
    }
}

fn atom_symbol_count(atom: &Atom) -> usize {
    match atom {
        Atom::Dim(_) => 0,
        Atom::Sym(s) => s + 1,
        Atom::FloorDiv(e, _) | Atom::Mod(e, _) => e.symbol_count(),
    }
}

impl fmt::Display for IndexExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_inductor())
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The flat contiguous (row-major) offset of indices `d0..d<n>` over `shape`.
pub fn contiguous_index(shape: &[i64]) -> IndexExpr {
    let mut expr = IndexExpr::constant(0);
    let mut stride = 1;
    for d in (0..shape.len()).rev() {
        expr = expr.add(&IndexExpr::dim(d).scale(stride));
        stride *= shape[d];
    }
    expr
}

/// Splits a flat offset into indices over a contiguous `shape` (`flat` ranges over
/// `[0, prod(shape))` when the variables range over `ranges`).
pub fn unravel(flat: &IndexExpr, shape: &[i64], ranges: &[i64]) -> Vec<IndexExpr> {
    let mut strides = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    (0..shape.len())
        .map(|d| {
            let q = flat.floordiv(strides[d], ranges);
            if d == 0 {
                q
            } else {
                q.modulo(shape[d], ranges)
            }
        })
        .collect()
}

/// Reads a single-result `affine_map` attribute as `(expr, num_dims, num_symbols)`;
/// `None` if it is not one or uses something outside index arithmetic.
pub fn from_affine_map_attr(attr: mlir_sys::MlirAttribute) -> Option<(IndexExpr, usize, usize)> {
    unsafe {
        if !mlir_sys::mlirAttributeIsAAffineMap(attr) {
            return None;
        }
        let map = mlir_sys::mlirAffineMapAttrGetValue(attr);
        if mlir_sys::mlirAffineMapGetNumResults(map) != 1 {
            return None;
        }
        let expr = from_affine_expr(mlir_sys::mlirAffineMapGetResult(map, 0))?;
        Some((
            expr,
            mlir_sys::mlirAffineMapGetNumDims(map) as usize,
            mlir_sys::mlirAffineMapGetNumSymbols(map) as usize,
        ))
    }
}

/// Reads an `affine_map` attribute with any number of results as `(exprs, num_dims,
/// num_symbols)`; `None` if it is not one or uses something outside index arithmetic.
pub fn from_affine_map_results(attr: mlir_sys::MlirAttribute) -> Option<(Vec<IndexExpr>, usize, usize)> {
    unsafe {
        if !mlir_sys::mlirAttributeIsAAffineMap(attr) {
            return None;
        }
        let map = mlir_sys::mlirAffineMapAttrGetValue(attr);
        let exprs = (0..mlir_sys::mlirAffineMapGetNumResults(map))
            .map(|i| from_affine_expr(mlir_sys::mlirAffineMapGetResult(map, i)))
            .collect::<Option<Vec<_>>>()?;
        Some((
            exprs,
            mlir_sys::mlirAffineMapGetNumDims(map) as usize,
            mlir_sys::mlirAffineMapGetNumSymbols(map) as usize,
        ))
    }
}

/// An `affine_map<(d0, ...)[s0, ...] -> (e0, e1, ...)>` of `exprs` over `num_dims` dims
/// and `num_syms` symbols.
pub fn affine_map_of(exprs: &[IndexExpr], num_dims: usize, num_syms: usize) -> String {
    let dims: Vec<String> = (0..num_dims).map(|d| format!("d{d}")).collect();
    let syms: Vec<String> = (0..num_syms).map(|s| format!("s{s}")).collect();
    let syms = if num_syms == 0 {
        String::new()
    } else {
        format!("[{}]", syms.join(", "))
    };
    let results: Vec<String> = exprs.iter().map(IndexExpr::to_affine).collect();
    format!(
        "affine_map<({}){} -> ({})>",
        dims.join(", "),
        syms,
        results.join(", ")
    )
}

fn from_affine_expr(e: mlir_sys::MlirAffineExpr) -> Option<IndexExpr> {
    use mlir_sys::*;
    unsafe {
        if mlirAffineExprIsADim(e) {
            return Some(IndexExpr::dim(mlirAffineDimExprGetPosition(e) as usize));
        }
        if mlirAffineExprIsASymbol(e) {
            return Some(IndexExpr::sym(mlirAffineSymbolExprGetPosition(e) as usize));
        }
        if mlirAffineExprIsAConstant(e) {
            return Some(IndexExpr::constant(mlirAffineConstantExprGetValue(e)));
        }
        let lhs = from_affine_expr(mlirAffineBinaryOpExprGetLHS(e))?;
        let rhs = from_affine_expr(mlirAffineBinaryOpExprGetRHS(e))?;
        if mlirAffineExprIsAAdd(e) {
            return Some(lhs.add(&rhs));
        }
        if mlirAffineExprIsAMul(e) {
            return match (lhs.as_constant(), rhs.as_constant()) {
                (_, Some(c)) => Some(lhs.scale(c)),
                (Some(c), _) => Some(rhs.scale(c)),
                _ => None,
            };
        }
        let c = rhs.as_constant().filter(|c| *c > 0)?;
        if mlirAffineExprIsAFloorDiv(e) {
            return Some(lhs.floordiv(c, &[]));
        }
        if mlirAffineExprIsAMod(e) {
            return Some(lhs.modulo(c, &[]));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(k: usize) -> IndexExpr {
        IndexExpr::dim(k)
    }

    /// The built attribute is the one parsing the text gives (uniqued: the same
    /// pointer), on seeded random expressions: signs, scales, constants, nested floordiv
    /// and mod, symbols.
    #[test]
    fn built_affine_maps_are_the_parsed_ones() {
        let fuse = crate::FuseContext::new().expect("context");
        let ctx = fuse.context().to_raw();
        let dims = [4, 6, 5, 8];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..400 {
            let mut e = IndexExpr::constant(next(7) as i64 - 3);
            for _ in 0..1 + next(4) {
                let atom = match next(4) {
                    0 => IndexExpr::sym(next(2) as usize),
                    _ => d(next(4) as usize),
                };
                let mut t = atom.scale(next(9) as i64 - 4);
                if next(3) == 0 {
                    t = t
                        .add(&d(next(4) as usize).scale(3))
                        .floordiv(2 + next(5) as i64, &dims);
                } else if next(4) == 0 {
                    t = t.add(&d(0)).modulo(3 + next(4) as i64, &dims);
                }
                e = e.add(&t);
            }
            let built = e.to_affine_map_attr(ctx, 4, 2);
            let parsed = crate::ir::parse_attr(ctx, &e.to_affine_map(4, 2)).expect("parses");
            assert_eq!(built.ptr, parsed.ptr, "{}", e.to_affine_map(4, 2));
        }
    }

    #[test]
    fn contiguous_prints_like_inductor_and_mlir() {
        let e = contiguous_index(&[1024, 1024]);
        assert_eq!(e.to_inductor(), "1024*d0 + d1");
        assert_eq!(e.to_affine(), "d0 * 1024 + d1");
        assert_eq!(e.to_affine_map(2, 0), "affine_map<(d0, d1) -> (d0 * 1024 + d1)>");
    }

    #[test]
    fn floordiv_and_mod_simplify_with_ranges() {
        let ranges = [1024, 1024];
        let e = contiguous_index(&ranges);
        assert_eq!(e.floordiv(1024, &ranges), d(0));
        assert_eq!(e.modulo(1024, &ranges), d(1));
        // Without enough range information the atoms stay.
        let wide = [1024, 2048];
        assert_eq!(e.floordiv(1024, &wide).to_inductor(), "d0 + ((d1)//1024)");
        assert_eq!(e.modulo(1024, &wide).to_inductor(), "Mod(d1, 1024)");
    }

    #[test]
    fn dim_coefficients_are_the_linear_strides() {
        // [96, 64, 512] read through a split of d0 into (8, 12): d0 only inside div/mod.
        let ranges = [96, 64, 512];
        let e = d(0)
            .floordiv(12, &ranges)
            .scale(1_179_648)
            .add(&d(0).modulo(12, &ranges).scale(64))
            .add(&d(1))
            .add(&d(2).scale(2304));
        assert_eq!(e.dim_coefficient(0), None);
        assert_eq!(e.dim_coefficient(1), Some(1));
        assert_eq!(e.dim_coefficient(2), Some(2304));
        assert_eq!(e.dim_coefficient(3), Some(0));
    }

    #[test]
    fn reshape_round_trip_simplifies_to_identity() {
        // View [8,16,512,512] over a contiguous [128,512,512] buffer.
        let view = [8, 16, 512, 512];
        let flat = contiguous_index(&view);
        let base = unravel(&flat, &[128, 512, 512], &view);
        assert_eq!(base, vec![d(0).scale(16).add(&d(1)), d(2), d(3)]);
        let offset = contiguous_index(&[128, 512, 512]).substitute(&base, &[], &view);
        assert_eq!(offset, flat);
    }

    #[test]
    fn merging_and_splitting_views_cancel() {
        // View [128, 512, 64] over a contiguous [8, 16, 512, 64] buffer and back.
        let view = [128, 512, 64];
        let base = unravel(&contiguous_index(&view), &[8, 16, 512, 64], &view);
        assert_eq!(base[0].to_inductor(), "((d0)//16)");
        assert_eq!(base[1].to_inductor(), "Mod(d0, 16)");
        let offset = contiguous_index(&[8, 16, 512, 64]).substitute(&base, &[], &view);
        assert_eq!(offset, contiguous_index(&view));
    }

    #[test]
    fn nested_floordivs_merge_and_negative_constants_render() {
        let ranges = [100_000];
        let e = d(0).floordiv(7, &ranges).floordiv(3, &ranges);
        assert_eq!(e, d(0).floordiv(21, &ranges));
        let shifted = d(0).add(&IndexExpr::constant(-3));
        assert_eq!(shifted.to_affine(), "d0 - 3");
        assert_eq!(shifted.modulo(5, &[8]).to_affine(), "(d0 + 2) mod 5");
    }

    #[test]
    fn symbols_block_simplification() {
        let e = d(0).scale(1000).add(&IndexExpr::sym(0));
        assert!(e.has_symbols());
        assert_eq!(e.bounds(&[4096]), None);
        assert_eq!(e.to_inductor(), "1000*d0 + tmp0");
        assert_eq!(e.to_affine_map(1, 1), "affine_map<(d0)[s0] -> (d0 * 1000 + s0)>");
    }
}
