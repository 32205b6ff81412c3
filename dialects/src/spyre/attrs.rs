//! The `spyre.*` attributes the Spyre passes write on loop IR and read back (one place
//! for their names and encodings; docs/dialects/spyre.md):
//!
//! - `spyre.stick = k : i64` on a node: the op dim along sticks;
//! - `spyre.layout = {stick_dim, device_size, stride_map}` (or `{sparse = true,
//!   device_size}`) on a node, constant or `spyre.restickify`: its result's layout;
//!   `spyre.input_layouts = [...]` on the function for its arguments;
//! - `spyre.core_split = array<i64: ...>` on a node: parts per op dim;
//! - `spyre.lx = array<i64: address, bytes, start, end>` on a node whose result lives in
//!   LX, or `spyre.hbm = "reason"` where it stays in device memory; `spyre.input_lx =
//!   [array<i64: ...>, ...]` on the function for the arguments cloned into LX.

use super::layout::{element_bytes, stick_elements, StickLayout};
use crate::{attrs, ir, types::DType};
use melior::ir::Attribute;
use mlir_sys::{MlirAttribute, MlirContext, MlirOperation};

/// Attribute names.
pub mod names {
    /// The op dim along sticks.
    pub const STICK: &str = "spyre.stick";
    /// A result's layout.
    pub const LAYOUT: &str = "spyre.layout";
    /// The function arguments' layouts.
    pub const INPUT_LAYOUTS: &str = "spyre.input_layouts";
    /// Parts per op dim.
    pub const CORE_SPLIT: &str = "spyre.core_split";
    /// LX placement.
    pub const LX: &str = "spyre.lx";
    /// Why a result stays in device memory.
    pub const HBM: &str = "spyre.hbm";
    /// The LX placement of each argument's clone (empty: none).
    pub const INPUT_LX: &str = "spyre.input_lx";
    /// The restickify op.
    pub const RESTICKIFY: &str = "spyre.restickify";
}

/// A buffer's layout in device memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceLayout {
    /// Sticks along one host dim.
    Dense(StickLayout),
    /// Sticks along the merged trailing dims of a reshaped view (`view`: the host shape
    /// with dims `from..` merged into one; `inner`: the view's layout, sticked on that
    /// dim): what a restickify into a reshaped read makes.
    View {
        /// The first merged host dim.
        from: usize,
        /// The view's shape.
        view: Vec<i64>,
        /// Its layout.
        inner: StickLayout,
    },
    /// One value per stick (`elements` host elements, `stick` lanes each, lane 0 valid).
    Sparse {
        /// Host elements.
        elements: i64,
        /// Lanes per stick.
        stick: i64,
        /// Element type.
        dtype: DType,
    },
}

impl DeviceLayout {
    /// Device elements (padding included).
    pub fn device_elements(&self) -> i64 {
        match self {
            DeviceLayout::Dense(l) | DeviceLayout::View { inner: l, .. } => l.device_elements(),
            DeviceLayout::Sparse { elements, stick, .. } => elements * stick,
        }
    }

    /// Device bytes.
    pub fn device_bytes(&self) -> i64 {
        match self {
            DeviceLayout::Dense(l) | DeviceLayout::View { inner: l, .. } => l.device_bytes(),
            DeviceLayout::Sparse { dtype, .. } => self.device_elements() * element_bytes(*dtype),
        }
    }

    /// The device element of the host element at `coords` (row-major `shape`).
    pub fn device_index(&self, coords: &[i64], shape: &[i64]) -> i64 {
        match self {
            DeviceLayout::Dense(l) => l.device_index(coords),
            DeviceLayout::View { view, inner, .. } => {
                let flat = coords.iter().zip(shape).fold(0, |f, (&c, &n)| f * n + c);
                let mut rest = flat;
                let mut at = vec![0; view.len()];
                for d in (0..view.len()).rev() {
                    at[d] = rest % view[d].max(1);
                    rest /= view[d].max(1);
                }
                inner.device_index(&at)
            }
            DeviceLayout::Sparse { stick, .. } => {
                coords.iter().zip(shape).fold(0, |flat, (&c, &n)| flat * n + c) * stick
            }
        }
    }

    /// The layout of a buffer of `shape` viewed with its dims `from..` merged, sticked on
    /// the merged dim.
    pub fn merged(shape: &[i64], dtype: DType, from: usize) -> Option<Self> {
        if from >= shape.len() {
            return None;
        }
        let mut view = shape[..from].to_vec();
        view.push(shape[from..].iter().product());
        let inner = StickLayout::with_stick(&view, from, dtype)?;
        Some(DeviceLayout::View { from, view, inner })
    }

    /// The layout of a buffer of `shape` sticked on `stick` (`None`: sparse).
    pub fn of(shape: &[i64], dtype: DType, stick: Option<usize>) -> Option<Self> {
        match stick {
            Some(k) => StickLayout::with_stick(shape, k, dtype).map(DeviceLayout::Dense),
            None => Some(DeviceLayout::Sparse {
                elements: shape.iter().product(),
                stick: stick_elements(dtype),
                dtype,
            }),
        }
    }
}

/// The dictionary of a layout.
pub fn layout_attr(ctx: MlirContext, layout: &DeviceLayout) -> MlirAttribute {
    match layout {
        DeviceLayout::Dense(l) => ir::dictionary_attr(
            ctx,
            &[
                ("stick_dim", ir::i64_attr(ctx, l.stick_dim as i64)),
                ("device_size", ir::i64_array_attr(ctx, &l.device_size)),
                ("stride_map", ir::i64_array_attr(ctx, &l.stride_map)),
            ],
        ),
        DeviceLayout::View { from, inner, .. } => ir::dictionary_attr(
            ctx,
            &[
                ("stick_dim", ir::i64_attr(ctx, *from as i64)),
                ("merged", ir::bool_attr(ctx, true)),
                ("device_size", ir::i64_array_attr(ctx, &inner.device_size)),
                ("stride_map", ir::i64_array_attr(ctx, &inner.stride_map)),
            ],
        ),
        DeviceLayout::Sparse { elements, stick, .. } => ir::dictionary_attr(
            ctx,
            &[
                ("sparse", ir::bool_attr(ctx, true)),
                ("device_size", ir::i64_array_attr(ctx, &[*elements, *stick])),
            ],
        ),
    }
}

fn entry(dict: MlirAttribute, name: &str) -> Option<MlirAttribute> {
    unsafe {
        if !mlir_sys::mlirAttributeIsADictionary(dict) {
            return None;
        }
        let a = mlir_sys::mlirDictionaryAttrGetElementByName(
            dict,
            mlir_sys::MlirStringRef {
                data: name.as_ptr() as *const _,
                length: name.len(),
            },
        );
        (!a.ptr.is_null()).then_some(a)
    }
}

/// The layout a dictionary names for a buffer of `shape` / `dtype` (recomputed from its
/// stick dim; `None`: not a layout dictionary).
pub fn read_layout(dict: MlirAttribute, shape: &[i64], dtype: DType) -> Option<DeviceLayout> {
    if entry(dict, "sparse").is_some() {
        return DeviceLayout::of(shape, dtype, None);
    }
    let stick = entry(dict, "stick_dim").and_then(|a| attrs::integer(unsafe { Attribute::from_raw(a) }))?;
    if entry(dict, "merged").is_some() {
        return DeviceLayout::merged(shape, dtype, stick as usize);
    }
    DeviceLayout::of(shape, dtype, Some(stick as usize))
}

/// An `i64` array attribute of `op` (`None`: absent).
pub fn i64s(op: MlirOperation, name: &str) -> Option<Vec<i64>> {
    ir::attr(op, name).and_then(|a| attrs::i64_array(unsafe { Attribute::from_raw(a) }))
}

/// The `i`-th element of an array attribute.
pub fn array_element(array: MlirAttribute, i: usize) -> Option<MlirAttribute> {
    unsafe {
        (mlir_sys::mlirAttributeIsAArray(array)
            && (i as isize) < mlir_sys::mlirArrayAttrGetNumElements(array))
        .then(|| mlir_sys::mlirArrayAttrGetElement(array, i as isize))
    }
}

/// How a core lays out its piece `bx` (half-open ranges per host dim) of a buffer in
/// `layout` with elements of `dtype` in LX: the extent of each dim (the stick dim in
/// whole sticks) row-major, and the bytes each element takes (a sparse layout's element
/// fills a stick). The scratchpad planner's sizes and the simulator's addresses both come
/// from here.
pub fn piece_extents(layout: &DeviceLayout, dtype: DType, bx: &[(i64, i64)]) -> (Vec<i64>, i64) {
    let e = stick_elements(dtype);
    let extents = bx
        .iter()
        .enumerate()
        .map(|(h, &(lo, hi))| match layout {
            DeviceLayout::Dense(l) if l.stick_dim == h => (hi - lo + e - 1) / e * e,
            _ => hi - lo,
        })
        .collect();
    let lanes = if matches!(layout, DeviceLayout::Sparse { .. }) {
        e
    } else {
        1
    };
    (extents, lanes * element_bytes(dtype))
}
