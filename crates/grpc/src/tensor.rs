//! Packing tensors as little-endian bytes with shape and dtype.

use crate::pb::{DataType, Tensor};

/// Packs 4-byte values little-endian (a loop the compiler turns into plain copies).
fn pack_le<T: Copy>(values: &[T], to_le: impl Fn(T) -> [u8; 4]) -> Vec<u8> {
    let mut data = vec![0u8; values.len() * 4];
    for (bytes, &value) in data.chunks_exact_mut(4).zip(values) {
        bytes.copy_from_slice(&to_le(value));
    }
    data
}

/// A tensor of `dtype` and `shape` holding `data`.
fn tensor(dtype: DataType, shape: Vec<u32>, data: Vec<u8>) -> Tensor {
    Tensor {
        dtype: dtype as i32,
        shape,
        data,
    }
}

/// A float32 tensor.
pub fn f32_tensor(shape: Vec<u32>, values: &[f32]) -> Tensor {
    tensor(DataType::Float32, shape, pack_le(values, f32::to_le_bytes))
}

/// A float32 tensor from f64 values.
pub fn f32_tensor_from_f64(shape: Vec<u32>, values: &[f64]) -> Tensor {
    let data = pack_le(values, |v| (v as f32).to_le_bytes());
    tensor(DataType::Float32, shape, data)
}

/// An int32 tensor.
pub fn i32_tensor(shape: Vec<u32>, values: &[i32]) -> Tensor {
    tensor(DataType::Int32, shape, pack_le(values, i32::to_le_bytes))
}

/// A bool tensor, one byte (0 or 1) per element.
pub fn bool_tensor(shape: Vec<u32>, values: &[bool]) -> Tensor {
    let data = values.iter().map(|&b| u8::from(b)).collect();
    tensor(DataType::Bool, shape, data)
}

/// A uint8 tensor (compact observations, packed masks).
pub fn u8_tensor(shape: Vec<u32>, values: &[u8]) -> Tensor {
    tensor(DataType::Uint8, shape, values.to_vec())
}

/// Why a tensor of actions is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TensorError {
    /// Not int32 (the type's name, or `dtype N` for one the contract does not name).
    #[error("actions must be DATA_TYPE_INT32, got {0}")]
    NotInt32(String),
    /// None of the accepted shapes.
    #[error("actions have shape {shape:?}; expected {}", either(.accepted))]
    Shape {
        /// Its shape.
        shape: Vec<u32>,
        /// The shapes accepted.
        accepted: Vec<Vec<u32>>,
    },
    /// Not as many bytes as its shape needs.
    #[error("actions hold {bytes} bytes; shape {shape:?} of int32 needs {needed}")]
    Size {
        /// Its bytes.
        bytes: usize,
        /// Its shape.
        shape: Vec<u32>,
        /// The bytes its shape needs.
        needed: usize,
    },
}

/// `shapes` as a refusal lists them: `[2] or [1, 2]`.
fn either(shapes: &[Vec<u32>]) -> String {
    let shapes: Vec<String> = shapes.iter().map(|s| format!("{s:?}")).collect();
    shapes.join(" or ")
}

/// Reads an int32 tensor of one of the accepted shapes; the error says what was wrong.
pub fn read_i32(tensor: &Tensor, accepted: &[Vec<u32>]) -> Result<Vec<i32>, TensorError> {
    if tensor.dtype != DataType::Int32 as i32 {
        return Err(TensorError::NotInt32(
            DataType::try_from(tensor.dtype)
                .map(|d| d.as_str_name().to_string())
                .unwrap_or_else(|_| format!("dtype {}", tensor.dtype)),
        ));
    }
    if !accepted.contains(&tensor.shape) {
        return Err(TensorError::Shape {
            shape: tensor.shape.clone(),
            accepted: accepted.to_vec(),
        });
    }
    let count: usize = tensor.shape.iter().map(|&d| d as usize).product();
    if tensor.data.len() != count * 4 {
        return Err(TensorError::Size {
            bytes: tensor.data.len(),
            shape: tensor.shape.clone(),
            needed: count * 4,
        });
    }
    Ok(tensor
        .data
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensors_pack_little_endian_and_read_back() {
        let t = f32_tensor(vec![2], &[1.0, -2.5]);
        assert_eq!(
            t.data,
            [1.0f32.to_le_bytes(), (-2.5f32).to_le_bytes()].concat()
        );
        let a = i32_tensor(vec![3], &[7, -1, 300]);
        assert_eq!(read_i32(&a, &[vec![3]]).unwrap(), vec![7, -1, 300]);
        assert_eq!(
            read_i32(&a, &[vec![2], vec![1, 2]])
                .unwrap_err()
                .to_string(),
            "actions have shape [3]; expected [2] or [1, 2]"
        );
        assert!(
            read_i32(&t, &[vec![2]])
                .unwrap_err()
                .to_string()
                .contains("INT32")
        );
        let short = Tensor {
            data: vec![0; 11],
            ..a
        };
        assert_eq!(
            read_i32(&short, &[vec![3]]).unwrap_err().to_string(),
            "actions hold 11 bytes; shape [3] of int32 needs 12"
        );
    }
}
