//! Plain-data views of the builtin types fuselab accepts: static ranked tensors of
//! f32, f16, bf16, i64, i32 or i1.

use melior::ir::{Type, TypeLike};
use std::fmt;

/// Element types fuselab supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// 32-bit IEEE float.
    F32,
    /// 16-bit IEEE float.
    F16,
    /// bfloat16.
    BF16,
    /// 64-bit signless integer (ATen's int64).
    I64,
    /// 32-bit signless integer (ATen's int32).
    I32,
    /// 1-bit signless integer (ATen's bool).
    I1,
}

impl DType {
    /// Bytes per element as stored in memory (i1 is stored as one byte, as in ATen).
    pub const fn size_bytes(self) -> u64 {
        match self {
            Self::F32 => 4,
            Self::F16 | Self::BF16 => 2,
            Self::I64 => 8,
            Self::I32 => 4,
            Self::I1 => 1,
        }
    }

    /// Whether this is a floating-point type.
    pub const fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F16 | Self::BF16)
    }

    /// Whether this is a half-precision float (f16, bf16), which kernels compute in f32.
    pub const fn is_half(self) -> bool {
        matches!(self, Self::F16 | Self::BF16)
    }

    /// The MLIR spelling (`f32`, `i1`, ...).
    pub const fn mlir_name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F16 => "f16",
            Self::BF16 => "bf16",
            Self::I64 => "i64",
            Self::I32 => "i32",
            Self::I1 => "i1",
        }
    }

    /// The DType of an MLIR element type, or `None` if fuselab does not support it.
    pub fn from_mlir(element: Type) -> Option<Self> {
        let raw = element.to_raw();
        unsafe {
            if mlir_sys::mlirTypeIsAF32(raw) {
                Some(Self::F32)
            } else if mlir_sys::mlirTypeIsAF16(raw) {
                Some(Self::F16)
            } else if mlir_sys::mlirTypeIsABF16(raw) {
                Some(Self::BF16)
            } else if mlir_sys::mlirTypeIsAInteger(raw) && mlir_sys::mlirIntegerTypeIsSignless(raw) {
                match mlir_sys::mlirIntegerTypeGetWidth(raw) {
                    64 => Some(Self::I64),
                    32 => Some(Self::I32),
                    1 => Some(Self::I1),
                    _ => None,
                }
            } else {
                None
            }
        }
    }
}

impl DType {
    /// The dtype named `name` as [`DType::mlir_name`] spells it (`f32`, `bf16`, `i64`).
    pub fn parse(name: &str) -> Option<Self> {
        [Self::F32, Self::F16, Self::BF16, Self::I64, Self::I32, Self::I1]
            .into_iter()
            .find(|d| d.mlir_name() == name)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mlir_name())
    }
}

/// Why a type is not a tensor fuselab can handle.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TensorTypeError {
    /// Not a `tensor<...>` at all.
    #[error("expected a ranked tensor type, got '{0}'")]
    NotATensor(String),
    /// `tensor<*xf32>`.
    #[error("unranked tensors are not supported: '{0}'")]
    Unranked(String),
    /// A `?` dimension.
    #[error("dynamic shapes are not supported: '{0}' has a dynamic dimension")]
    DynamicShape(String),
    /// A dimension of size 0 (empty tensors are not supported yet).
    #[error("zero-size dimensions are not supported: '{0}' has a dimension of size 0")]
    ZeroSize(String),
    /// More elements than [`MAX_ELEMENTS`] (so every shape product, index and byte count
    /// computed from a type fits in an i64).
    #[error("'{0}' has more than 2^48 elements (fuselab's limit, so that sizes, offsets and byte counts never overflow)")]
    TooLarge(String),
    /// An element type outside f32/f16/bf16/i64/i32/i1.
    #[error("unsupported element type '{element}' in '{ty}' (supported: f32, f16, bf16, i64, i32, i1)")]
    UnsupportedDType {
        /// The element type as printed.
        element: String,
        /// The whole tensor type as printed.
        ty: String,
    },
}

/// The most elements a tensor may have: 2^48 (256 Ti elements, far beyond any device),
/// so that a tensor's byte count (times 8 at most) and every product of its dimensions
/// or flat offset fit in an i64 without overflow checks downstream.
pub const MAX_ELEMENTS: i64 = 1 << 48;

/// A static ranked tensor type: shape and element type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// Dimension sizes, outermost first; empty for a rank-0 (scalar) tensor.
    pub shape: Vec<i64>,
    /// Element type.
    pub dtype: DType,
}

impl TensorType {
    /// Reads an MLIR type as a supported static tensor.
    pub fn from_mlir(ty: Type) -> Result<Self, TensorTypeError> {
        let raw = ty.to_raw();
        unsafe {
            if !mlir_sys::mlirTypeIsATensor(raw) {
                return Err(TensorTypeError::NotATensor(ty.to_string()));
            }
            if !mlir_sys::mlirTypeIsARankedTensor(raw) {
                return Err(TensorTypeError::Unranked(ty.to_string()));
            }
            if !mlir_sys::mlirShapedTypeHasStaticShape(raw) {
                return Err(TensorTypeError::DynamicShape(ty.to_string()));
            }
            let rank = mlir_sys::mlirShapedTypeGetRank(raw);
            let shape: Vec<i64> = (0..rank)
                .map(|d| mlir_sys::mlirShapedTypeGetDimSize(raw, d as isize))
                .collect();
            if shape.contains(&0) {
                return Err(TensorTypeError::ZeroSize(ty.to_string()));
            }
            let numel = shape.iter().try_fold(1i64, |n, &d| n.checked_mul(d));
            if numel.is_none_or(|n| n > MAX_ELEMENTS) {
                return Err(TensorTypeError::TooLarge(ty.to_string()));
            }
            let element = Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw));
            let dtype = DType::from_mlir(element).ok_or_else(|| TensorTypeError::UnsupportedDType {
                element: element.to_string(),
                ty: ty.to_string(),
            })?;
            Ok(Self { shape, dtype })
        }
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> i64 {
        self.shape.iter().product()
    }

    /// Bytes of contiguous storage.
    pub fn size_bytes(&self) -> u64 {
        self.numel() as u64 * self.dtype.size_bytes()
    }

    /// Row-major (contiguous) strides, in elements.
    pub fn contiguous_strides(&self) -> Vec<i64> {
        contiguous_strides(&self.shape)
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor<")?;
        for d in &self.shape {
            write!(f, "{d}x")?;
        }
        write!(f, "{}>", self.dtype)
    }
}

/// Row-major (contiguous) strides of `shape`, in elements.
pub fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// Formats a shape the way ATen prints sizes: `[1024, 1024]`.
pub fn shape_str(shape: &[i64]) -> String {
    let parts: Vec<String> = shape.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
}
