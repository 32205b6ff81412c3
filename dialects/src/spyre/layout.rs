//! Stick layouts: how a host tensor lies in Spyre's device memory (torch-spyre's
//! `SpyreTensorLayout`; `../shared/research/spyre_ascend.md`, "Stick layouts").
//!
//! Spyre moves data in 128-byte *sticks* ([`STICK_BYTES`]): 64 fp16 / 32 fp32 elements of
//! one host dimension, the *stick dim*. A layout is a permutation `dim_order` of the
//! host dims whose last entry `s` is the stick dim; the device tensor is
//! `device_size = [size[d1..d_{n-2}], ceil(size[s]/E), size[d0], E]` with
//! `stride_map = [stride[d1..d_{n-2}], E*stride[s], stride[d0], stride[s]]` (host strides
//! per device dim): device coordinates `c` hold host element `dot(c, stride_map)` when the
//! stick element `c[stick block]*E + c[last]` is inside `size[s]`, padding otherwise.
//! Size-1 host dims are canonicalized away first (they move no data); a rank-1 tensor is
//! `[ceil(n/E), E]`. The rule is re-derived from torch-spyre's documented examples (all
//! of them are tests below), not copied.

use crate::types::DType;

/// Bytes per stick.
pub const STICK_BYTES: i64 = 128;

/// Elements of `dtype` per stick (fp16: 64, fp32: 32, i64: 16, i32: 32, bool: 128).
pub fn stick_elements(dtype: DType) -> i64 {
    STICK_BYTES / element_bytes(dtype)
}

/// Bytes of one element as Spyre stores it (bools: one byte).
pub fn element_bytes(dtype: DType) -> i64 {
    match dtype {
        DType::F32 => 4,
        DType::F16 | DType::BF16 => 2,
        DType::I64 => 8,
        DType::I32 => 4,
        DType::I1 => 1,
    }
}

/// A tensor's layout in device memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StickLayout {
    /// Device dims, the last being the elements of one stick.
    pub device_size: Vec<i64>,
    /// Host stride of each device dim.
    pub stride_map: Vec<i64>,
    /// The host dim laid along sticks (an index into the host shape; 0 for a tensor of
    /// size-1 dims only).
    pub stick_dim: usize,
    /// Host size of the stick dim (elements past it in the last stick are padding).
    pub stick_size: i64,
    /// Element type.
    pub dtype: DType,
    /// The host dims in device order, size-1 dims left out (the stick dim last).
    pub dim_order: Vec<usize>,
}

/// Row-major strides of `shape`.
pub fn row_major_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1].max(1);
    }
    strides
}

impl StickLayout {
    /// The layout of a host tensor of `size` / `stride` with `dim_order` (a permutation
    /// of the host dims, stick dim last). Size-1 dims are dropped from the order. `None`
    /// when `dim_order` is not a permutation of the dims or the stick dim has size 1
    /// while a larger dim exists.
    pub fn new(size: &[i64], stride: &[i64], dim_order: &[usize], dtype: DType) -> Option<Self> {
        let mut seen = vec![false; size.len()];
        if dim_order.len() != size.len() || stride.len() != size.len() {
            return None;
        }
        for &d in dim_order {
            if d >= size.len() || std::mem::replace(&mut seen[d], true) {
                return None;
            }
        }
        let order: Vec<usize> = dim_order.iter().copied().filter(|&d| size[d] != 1).collect();
        let e = stick_elements(dtype);
        let Some((&s, rest)) = order.split_last() else {
            // Only size-1 dims: one stick holding one element.
            let stick_dim = dim_order.last().copied().unwrap_or(0);
            return Some(Self {
                device_size: vec![1, e],
                stride_map: vec![e, 1],
                stick_dim,
                stick_size: 1,
                dtype,
                dim_order: Vec::new(),
            });
        };
        if dim_order.last() != Some(&s) {
            return None;
        }
        let blocks = (size[s] + e - 1) / e;
        let (device_size, stride_map) = match rest.split_first() {
            None => (vec![blocks, e], vec![e * stride[s], stride[s]]),
            Some((&d0, middle)) => {
                let mut sizes: Vec<i64> = middle.iter().map(|&d| size[d]).collect();
                let mut strides: Vec<i64> = middle.iter().map(|&d| stride[d]).collect();
                sizes.extend([blocks, size[d0], e]);
                strides.extend([e * stride[s], stride[d0], stride[s]]);
                (sizes, strides)
            }
        };
        Some(Self {
            device_size,
            stride_map,
            stick_dim: s,
            stick_size: size[s],
            dtype,
            dim_order: order,
        })
    }

    /// The layout of a contiguous host tensor of `shape` whose stick dim is `stick`, the
    /// other dims in host order (`None`: no such dim).
    pub fn with_stick(shape: &[i64], stick: usize, dtype: DType) -> Option<Self> {
        if stick >= shape.len().max(1) {
            return None;
        }
        let mut order: Vec<usize> = (0..shape.len()).filter(|&d| d != stick).collect();
        order.push(stick);
        if shape.is_empty() {
            return Self::new(&[], &[], &[], dtype);
        }
        Self::new(shape, &row_major_strides(shape), &order, dtype)
    }

    /// The generic layout of a contiguous host tensor: sticks along its last dim of size
    /// more than one (torch-spyre's default for host tensors).
    pub fn generic(shape: &[i64], dtype: DType) -> Self {
        let stick = (0..shape.len()).rev().find(|&d| shape[d] != 1).unwrap_or(0);
        Self::with_stick(shape, stick, dtype).unwrap_or_else(|| Self {
            device_size: vec![1, stick_elements(dtype)],
            stride_map: vec![stick_elements(dtype), 1],
            stick_dim: 0,
            stick_size: 1,
            dtype,
            dim_order: Vec::new(),
        })
    }

    /// The device element (row-major over `device_size`) holding the host element at
    /// `coords` (host coordinates, one per host dim).
    pub fn device_index(&self, coords: &[i64]) -> i64 {
        let Some((&s, rest)) = self.dim_order.split_last() else {
            return 0;
        };
        let n = self.device_size.len();
        let e = self.device_size[n - 1];
        // Row-major over device_size = [middle dims.., blocks, d0, E] (rank 1: [blocks, E]).
        let mut flat = 0;
        let mut k = 0;
        if let Some((_, middle)) = rest.split_first() {
            for &d in middle {
                flat = flat * self.device_size[k] + coords[d];
                k += 1;
            }
        }
        flat = flat * self.device_size[k] + coords[s] / e;
        k += 1;
        if let Some(&d0) = rest.first() {
            flat = flat * self.device_size[k] + coords[d0];
        }
        flat * e + coords[s] % e
    }

    /// Elements the device tensor holds, padding included.
    pub fn device_elements(&self) -> i64 {
        self.device_size.iter().product()
    }

    /// Bytes the device tensor takes.
    pub fn device_bytes(&self) -> i64 {
        self.device_elements() * element_bytes(self.dtype)
    }

    /// The host element (flat storage offset) at device element `flat` (row-major over
    /// `device_size`), `None` for padding.
    pub fn host_offset(&self, flat: i64) -> Option<i64> {
        let n = self.device_size.len();
        let mut rest = flat;
        let mut offset = 0;
        let mut coords = vec![0; n];
        for d in (0..n).rev() {
            coords[d] = rest % self.device_size[d];
            rest /= self.device_size[d];
            offset += coords[d] * self.stride_map[d];
        }
        let e = self.device_size[n - 1];
        // The stick block is the second device dim from the end for rank 1, third else.
        let block = if n == 2 { coords[0] } else { coords[n - 3] };
        (block * e + coords[n - 1] < self.stick_size).then_some(offset)
    }

    /// Whether two layouts keep the same host dim along sticks (no restickify needed
    /// between them).
    pub fn stick_compatible(&self, other: &StickLayout) -> bool {
        self.stick_dim == other.stick_dim
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// torch-spyre's documented examples (`../shared/research/spyre_ascend.md`).
    #[test]
    fn documented_layouts() {
        let l = StickLayout::new(&[5, 100, 150], &[15000, 150, 1], &[0, 1, 2], DType::F16).unwrap();
        assert_eq!(l.device_size, vec![100, 3, 5, 64]);
        assert_eq!(l.stride_map, vec![150, 64, 15000, 1]);
        assert_eq!(l.device_elements(), 96_000);
        let l = StickLayout::new(&[5, 100, 150], &[15000, 150, 1], &[1, 0, 2], DType::F16).unwrap();
        assert_eq!(l.device_size, vec![5, 3, 100, 64]);
        assert_eq!(l.stride_map, vec![15000, 64, 150, 1]);
        let l = StickLayout::generic(&[1000, 200], DType::F16);
        assert_eq!(l.device_size, vec![4, 1000, 64]);
        assert_eq!(l.stride_map, vec![64, 200, 1]);
    }

    #[test]
    fn size_one_dims_are_canonical_and_fp32_sticks_hold_32() {
        assert_eq!(
            StickLayout::generic(&[1, 1000, 1, 200], DType::F16).device_size,
            StickLayout::generic(&[1000, 200], DType::F16).device_size
        );
        let l = StickLayout::generic(&[96], DType::F32);
        assert_eq!((l.device_size, l.stride_map), (vec![3, 32], vec![32, 1]));
        assert_eq!(StickLayout::with_stick(&[4, 8], 2, DType::F16), None);
        assert_eq!(StickLayout::new(&[4, 8], &[8, 1], &[0, 0], DType::F16), None);
    }

    /// Every host element appears exactly once among the device elements; the others
    /// are padding.
    #[test]
    fn device_elements_cover_the_host_tensor_once() {
        for (shape, stick) in [
            (vec![5, 100, 150], 2),
            (vec![5, 100, 150], 1),
            (vec![3, 70], 0),
            (vec![130], 0),
        ] {
            let l = StickLayout::with_stick(&shape, stick, DType::F16).unwrap();
            let host: i64 = shape.iter().product();
            let mut seen = vec![0u8; host as usize];
            for flat in 0..l.device_elements() {
                if let Some(h) = l.host_offset(flat) {
                    seen[h as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{shape:?} stick {stick}");
            // device_index inverts host_offset.
            let strides = row_major_strides(&shape);
            for flat in 0..l.device_elements() {
                if let Some(h) = l.host_offset(flat) {
                    let coords: Vec<i64> = strides.iter().zip(&shape).map(|(&st, &n)| h / st % n).collect();
                    assert_eq!(l.device_index(&coords), flat);
                }
            }
        }
    }
}
