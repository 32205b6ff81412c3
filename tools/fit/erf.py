#!/usr/bin/env python3
"""Fits the polynomials of the GPU target's f32 erf (`Math::erf_gpu`, targets/src/math.rs)
and prints their coefficients and the largest error of the f32 evaluation.

    erf(x) = x P(x^2)                  for |x| < C     (P degree 5: relative error)
    erf(x) = sign(x) (1 - exp(Q(t)))   for C <= t = min(|x|, 4)   (Q degree 8)

Q approximates log(erfc(t)), weighted by erfc(t) (the absolute error of erf it
causes). Minimax by iteratively reweighted least squares (Lawson's algorithm) on a
dense grid; scipy's erf/erfc (double precision) is the reference. No other system's
coefficients are used. Needs numpy and scipy.
"""
import numpy as np
from scipy.special import erf, erfc

C = 0.875


def lawson(x, f, w, deg, basis, iters=200):
    """Weighted minimax fit of f on x: coefficients c with sum c_k basis(x)^k."""
    A = np.vander(basis(x), deg + 1, increasing=True)
    u = np.ones_like(x) / len(x)
    for _ in range(iters):
        sw = np.sqrt(u)
        c, *_ = np.linalg.lstsq(A * sw[:, None], f * sw, rcond=None)
        e = np.abs(A @ c - f) * w
        u = u * e
        u /= u.sum()
    return c


def horner32(cs, z):
    acc = np.float32(cs[-1])
    for c in cs[-2::-1]:
        acc = (acc * z + np.float32(c)).astype(np.float32)
    return acc


def main():
    xs = np.linspace(1e-4, C, 20000)
    small = lawson(xs, erf(xs) / xs, np.ones_like(xs), 5, lambda x: x * x)
    ts = np.linspace(C, 4.0, 40000)
    large = lawson(ts, np.log(erfc(ts)), erfc(ts), 8, lambda t: t)
    # f32 evaluation, as the generated code does it (no FMA contraction here).
    x32 = np.linspace(0, 6, 600001).astype(np.float32)
    t = np.minimum(x32, np.float32(4.0))
    ps = (x32 * horner32(small, (x32 * x32).astype(np.float32))).astype(np.float32)
    pl = (np.float32(1) - np.exp(horner32(large, t).astype(np.float64)).astype(np.float32)).astype(np.float32)
    got = np.where(x32 < C, ps, pl).astype(np.float64)
    want = erf(x32.astype(np.float64))
    ulp = np.spacing(want.astype(np.float32)).astype(np.float64)
    err = np.abs(got - want) / ulp
    print("P (x^2 powers 0..5):", ", ".join(f"{c:.9e}" for c in small))
    print("Q (t powers 0..8):  ", ", ".join(f"{c:.9e}" for c in large))
    i = int(np.argmax(err))
    print(f"largest error {err[i]:.2f} ulp at x = {x32[i]:.6f} (erf {want[i]:.9f})")


if __name__ == "__main__":
    main()
