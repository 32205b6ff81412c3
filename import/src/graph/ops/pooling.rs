//! Pooling: `max_pool2d_with_indices` as the maximum of its window's strided slices.
//!
//! Rule (torch 2.11 `_inductor/decomposition.py` `max_pool2d_with_indices` →
//! `prims._low_memory_max_pool_with_offsets`, lowered in `lowering.py`): a window of at
//! most 25 elements, without dilation, is one pointwise node of the output that loads
//! the window's elements of the (realized) input, padding reading as `-inf`, and takes
//! their maximum. Here the same computation is spelled in the `aten` ops the rest of the
//! pipeline already has: the input padded with `-inf` (`cat` of splats), for every window
//! offset `(i, j)` the slice `x[.., i*d : .. : s, j*d : .. : s]` of the output's shape, and
//! a chain of `aten.maximum` over them (NaN propagates, as in torch's kernels). The
//! padding and the partial maximums carry `fuselab.inline` (parts of the one node, never
//! stored on their own), the ops reading the input `fuselab.realize_hint` (the
//! lowering's `x.realize_hint()`), and every op `fuselab.origin = "max_pool2d"` and
//! `fuselab.op_group` (one op for the TVM strategy, as Relax's `max_pool2d`). The indices (output 1) are not computed: reading them
//! is a located error.

use super::super::*;
use super::Rule;

/// The rows of this family.
pub(super) static RULES: &[Rule] = &[Rule {
    targets: &["aten.max_pool2d_with_indices.default"],
    import: |em, node, _| {
        em.only_outputs(node, &[0])?;
        let loc = node.loc.clone();
        let x = em.tensor(node, "self")?;
        let xt = em.ty(&x);
        let out = em.out_type(node, 0)?;
        if xt.rank() < 3 || out.rank() != xt.rank() {
            return Err(em.node_error(
                node,
                format!("max_pool2d needs a rank-3 or rank-4 input, got {:?}", xt.shape),
            ));
        }
        let pair = |arg: &str, default: [i64; 2]| -> R<[i64; 2]> {
            match em.ints_arg(node, arg)?.as_deref() {
                None | Some([]) => Ok(default),
                Some([v]) => Ok([*v, *v]),
                Some([a, b]) => Ok([*a, *b]),
                Some(other) => Err(em.node_error(
                    node,
                    format!("argument '{arg}' {other:?} is not one or two integers"),
                )),
            }
        };
        let kernel = pair("kernel_size", [0, 0])?;
        let stride = pair("stride", kernel)?;
        let padding = pair("padding", [0, 0])?;
        let dilation = pair("dilation", [1, 1])?;
        let ceil_mode = em.bool_arg(node, "ceil_mode", false)?;
        let mut windows = Vec::new();
        for axis in 0..2 {
            let dim = xt.rank() - 2 + axis;
            let window = Window {
                size: xt.shape[dim],
                kernel: kernel[axis],
                stride: stride[axis],
                padding: padding[axis],
                dilation: dilation[axis],
            };
            let outputs = window.outputs(ceil_mode).ok_or_else(|| {
                em.node_error(
                    node,
                    format!(
                        "max_pool2d window {kernel:?} stride {stride:?} padding {padding:?} dilation {dilation:?} does not fit the input {:?}",
                        xt.shape
                    ),
                )
            })?;
            if outputs != out.shape[dim] {
                return Err(em.node_error(
                    node,
                    format!(
                        "max_pool2d gives {outputs} outputs along dim {dim}, the export says {}",
                        out.shape[dim]
                    ),
                ));
            }
            windows.push((dim, window, outputs));
        }
        let lowest = if out.dtype.starts_with('f') || out.dtype == "bf16" {
            Scalar::Float(f64::NEG_INFINITY)
        } else {
            Scalar::Int(i64::MIN)
        };
        // Inductor's `_max_pool_with_offsets` starts with `x.realize_hint()`: the ops
        // reading x (the padding, or the first slices) say so.
        em.realize_hint = Some(x.clone());
        em.inline_parts = true;
        em.op_group = Some(("max_pool2d", node.name.clone()));
        let mut padded = x;
        for &(dim, w, outputs) in &windows {
            padded = em.pad(&padded, dim, w.padding, w.pad_after(outputs), lowest, &loc);
        }
        let (h, w) = ((windows[0].0, windows[0].1), (windows[1].0, windows[1].1));
        let (oh, ow) = (windows[0].2, windows[1].2);
        let mut taps = Vec::new();
        for i in 0..h.1.kernel {
            let (start, step) = (i * h.1.dilation, h.1.stride);
            let rows = em.slice(&padded, h.0, start, start + (oh - 1) * step + 1, step, &loc);
            for j in 0..w.1.kernel {
                let (start, step) = (j * w.1.dilation, w.1.stride);
                taps.push(em.slice(&rows, w.0, start, start + (ow - 1) * step + 1, step, &loc));
            }
        }
        em.realize_hint = None;
        // The last maximum (or the clone of a one-tap window) is named after the node.
        let name = em.out_ssa(node, 0);
        let Some((first, rest)) = taps.split_first() else {
            return Err(em.node_error(node, "max_pool2d of an empty window"));
        };
        let res = if rest.is_empty() {
            em.inline_parts = false;
            em.op(name.as_deref(), "clone", &[first], "", &out, &loc)
        } else {
            let mut acc = first.clone();
            for (k, tap) in rest.iter().enumerate() {
                let last = k + 1 == rest.len();
                // The pool itself is one node (Inductor's one Pointwise of the window):
                // the padding and the partial maximums are parts of it.
                em.inline_parts = !last;
                let res = if last { name.as_deref() } else { None };
                acc = em.op(res, "maximum", &[&acc, tap], "", &out, &loc);
            }
            acc
        };
        em.op_group = None;
        em.bind(node, 0, res);
        Ok(())
    },
}];

/// One spatial dimension of a pooling window.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Window {
    size: i64,
    kernel: i64,
    stride: i64,
    padding: i64,
    dilation: i64,
}

impl Window {
    /// The number of outputs (ATen's `pooling_output_shape`): `(size + 2p - d(k-1) - 1) / s
    /// + 1`, rounded up in ceil mode, less one when the last window would start in the
    /// right padding. `None` for arguments torch rejects (`pool2d_shape_check`).
    fn outputs(self, ceil_mode: bool) -> Option<i64> {
        let Window {
            size,
            kernel,
            stride,
            padding,
            dilation,
        } = self;
        if kernel < 1
            || stride < 1
            || dilation < 1
            || padding < 0
            || padding > ((kernel - 1) * dilation + 1) / 2
        {
            return None;
        }
        let span = size + 2 * padding - dilation * (kernel - 1) - 1;
        if span < 0 {
            return None;
        }
        let mut n = (span + if ceil_mode { stride - 1 } else { 0 }) / stride + 1;
        if ceil_mode && (n - 1) * stride >= size + padding {
            n -= 1;
        }
        Some(n)
    }

    /// How much `-inf` the right side needs so every window of `outputs` lies inside the
    /// padded input (negative: the last elements are never read).
    fn pad_after(self, outputs: i64) -> i64 {
        (outputs - 1) * self.stride + self.dilation * (self.kernel - 1) + 1 - (self.size + self.padding)
    }
}

#[cfg(test)]
mod tests {
    use super::Window;

    fn w(size: i64, kernel: i64, stride: i64, padding: i64) -> Window {
        Window {
            size,
            kernel,
            stride,
            padding,
            dilation: 1,
        }
    }

    /// Output sizes as torch prints them (nn.MaxPool2d on the sizes below).
    #[test]
    fn output_sizes_follow_aten() {
        // ResNet stem: 3x3, stride 2, pad 1 on 112 -> 56; on 7 -> 4.
        assert_eq!(w(112, 3, 2, 1).outputs(false), Some(56));
        assert_eq!(w(7, 3, 2, 1).outputs(false), Some(4));
        // SqueezeNet: 3x3 stride 2 ceil_mode on 13 -> 6, on 14 -> 7 (floor: 6).
        assert_eq!(w(13, 3, 2, 0).outputs(true), Some(6));
        assert_eq!(w(14, 3, 2, 0).outputs(true), Some(7));
        assert_eq!(w(14, 3, 2, 0).outputs(false), Some(6));
        // The last ceil window may not start in the right padding: 5, k2 s2 p1 -> 3.
        assert_eq!(w(5, 2, 2, 1).outputs(true), Some(3));
        assert_eq!(w(4, 2, 2, 1).outputs(true), Some(3));
        // Rejected: padding over half the window, a window larger than the input.
        assert_eq!(w(8, 2, 2, 2).outputs(false), None);
        assert_eq!(w(2, 3, 1, 0).outputs(false), None);
    }

    #[test]
    fn right_padding_covers_the_last_window() {
        // 14, k3 s2 ceil -> 7 windows, the last at 12..15: one element past the end.
        assert_eq!(w(14, 3, 2, 0).pad_after(7), 1);
        // 112, k3 s2 p1 -> 56 windows, the last at 110..113 of the padded 1 + 112.
        assert_eq!(w(112, 3, 2, 1).pad_after(56), 0);
        // 8, k2 s3 -> 3 windows at 0, 3, 6..8: nothing past the end, nothing left over.
        assert_eq!(w(8, 2, 3, 0).pad_after(3), 0);
        // 9, k2 s3 -> 3 windows, element 8 never read.
        assert_eq!(w(9, 2, 3, 0).pad_after(3), -1);
    }
}
