//! Safetensors files read whole and written (`SafetensorsFile`), on the `safetensors` crate's
//! parser: every tensor's values decoded (float32, float64 or int64), a header over 1 MiB
//! refused before it is parsed, and each way a file can be wrong said in words.

use std::collections::HashMap;

use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensorError, SafeTensors};

/// The values of one tensor of a safetensors file, by type.
#[derive(Debug, Clone, PartialEq)]
pub enum TensorValues {
    /// float32 (`F32`): every policy tensor.
    F32(Vec<f32>),
    /// float64 (`F64`).
    F64(Vec<f64>),
    /// int64 (`I64`).
    I64(Vec<i64>),
}

/// One tensor of a safetensors file: its shape (row-major) and values.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor<T> {
    /// Its dimensions.
    pub shape: Vec<usize>,
    /// Its values, row-major.
    pub values: T,
}

/// A safetensors file read whole: every tensor (float32, float64 or int64) by name, in file
/// order, and the header's string metadata. The one reader and writer of the format in the
/// project: the engine's `policy` bot, the Python package's `checkraise.policy` and the
/// trainer's exports all go through it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SafetensorsFile {
    /// Each tensor with its name.
    pub tensors: Vec<(String, Tensor<TensorValues>)>,
    /// The header's `__metadata__`.
    pub metadata: HashMap<String, String>,
}

/// A header larger than this is not a policy file, and is refused before it is parsed.
const MAX_HEADER: usize = 1 << 20;

/// What is wrong with a safetensors file's bytes, or with tensors to write as one. Bytes that
/// are not the format say `not a safetensors file: ...`.
#[derive(Debug, thiserror::Error)]
pub enum SafetensorsError {
    /// Fewer bytes than the 8 that give the header's length.
    #[error("not a safetensors file: shorter than its 8-byte header length")]
    TooShort,
    /// A header length over 1 MiB or past the end of the bytes.
    #[error("not a safetensors file: header length {length} out of range")]
    HeaderLength {
        /// The length the first 8 bytes give.
        length: u64,
    },
    /// A header that is not the format's JSON.
    #[error("not a safetensors file: header is not JSON ({0})")]
    NotJson(SafeTensorError),
    /// A header length the `safetensors` crate refuses.
    #[error("not a safetensors file: {0}")]
    Header(SafeTensorError),
    /// Tensor data that do not fit their shapes (or anything else the crate refuses).
    #[error("tensor data do not fit their shapes: {0}")]
    Data(SafeTensorError),
    /// A tensor of a type other than float32, float64 and int64.
    #[error("tensor {name:?} is {dtype:?}; only float32, float64 and int64 are read")]
    Dtype {
        /// The tensor.
        name: String,
        /// Its type.
        dtype: Dtype,
    },
    /// A tensor to write whose values do not fill its shape.
    #[error("tensor {name:?}: {values} values do not fit shape {shape:?}")]
    Shape {
        /// The tensor.
        name: String,
        /// How many values it has.
        values: usize,
        /// The shape they do not fit.
        shape: Vec<usize>,
    },
}

impl SafetensorsFile {
    /// Reads a file's bytes; `Err` says what is wrong (`not a safetensors file: ...` for bytes
    /// that are not the format, or the tensor that does not fit).
    pub fn read(bytes: &[u8]) -> Result<SafetensorsFile, SafetensorsError> {
        let Some(length) = bytes.get(..8) else {
            return Err(SafetensorsError::TooShort);
        };
        let length = u64::from_le_bytes(length.try_into().expect("8 bytes"));
        if length > MAX_HEADER as u64 || length > (bytes.len() - 8) as u64 {
            return Err(SafetensorsError::HeaderLength { length });
        }
        let (_, header) = SafeTensors::read_metadata(bytes).map_err(describe)?;
        let metadata = header.metadata().clone().unwrap_or_default();
        let file = SafeTensors::deserialize(bytes).map_err(describe)?;
        let mut tensors = Vec::new();
        // In the file's data order.
        for name in header.offset_keys() {
            let view = file.tensor(&name).map_err(describe)?;
            let data = view.data();
            let values = match view.dtype() {
                Dtype::F32 => TensorValues::F32(
                    data.chunks_exact(4)
                        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                        .collect(),
                ),
                Dtype::F64 => TensorValues::F64(
                    data.chunks_exact(8)
                        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                        .collect(),
                ),
                Dtype::I64 => TensorValues::I64(
                    data.chunks_exact(8)
                        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
                        .collect(),
                ),
                other => {
                    return Err(SafetensorsError::Dtype { name, dtype: other });
                }
            };
            tensors.push((
                name,
                Tensor {
                    shape: view.shape().to_vec(),
                    values,
                },
            ));
        }
        Ok(SafetensorsFile { tensors, metadata })
    }

    /// The file's bytes, the same for the same contents in any order (the safetensors
    /// library orders tensors by alignment, then name).
    pub fn to_bytes(&self) -> Result<Vec<u8>, SafetensorsError> {
        let mut sorted: Vec<&(String, Tensor<TensorValues>)> = self.tensors.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let raw: Vec<(&str, Dtype, &[usize], Vec<u8>)> = sorted
            .iter()
            .map(|(name, t)| {
                let (dtype, bytes) = match &t.values {
                    TensorValues::F32(v) => {
                        (Dtype::F32, v.iter().flat_map(|x| x.to_le_bytes()).collect())
                    }
                    TensorValues::F64(v) => {
                        (Dtype::F64, v.iter().flat_map(|x| x.to_le_bytes()).collect())
                    }
                    TensorValues::I64(v) => {
                        (Dtype::I64, v.iter().flat_map(|x| x.to_le_bytes()).collect())
                    }
                };
                (name.as_str(), dtype, t.shape.as_slice(), bytes)
            })
            .collect();
        let mut views = Vec::with_capacity(raw.len());
        for (name, dtype, shape, bytes) in &raw {
            let view = TensorView::new(*dtype, shape.to_vec(), bytes).map_err(|_| {
                SafetensorsError::Shape {
                    name: name.to_string(),
                    values: bytes.len() * 8 / dtype.bitsize(),
                    shape: shape.to_vec(),
                }
            })?;
            views.push((*name, view));
        }
        let metadata = (!self.metadata.is_empty()).then(|| self.metadata.clone());
        safetensors::serialize(views, metadata).map_err(describe)
    }

    /// The tensor called `name`.
    pub fn get(&self, name: &str) -> Option<&Tensor<TensorValues>> {
        self.tensors.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
}

/// A safetensors error as what it says about the file.
fn describe(error: SafeTensorError) -> SafetensorsError {
    match error {
        SafeTensorError::InvalidHeader(_) | SafeTensorError::InvalidHeaderDeserialization(_) => {
            SafetensorsError::NotJson(error)
        }
        SafeTensorError::HeaderTooSmall
        | SafeTensorError::HeaderTooLarge
        | SafeTensorError::InvalidHeaderLength => SafetensorsError::Header(error),
        other => SafetensorsError::Data(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safetensors_files_round_trip_and_bad_bytes_say_why() {
        let file = SafetensorsFile {
            tensors: vec![
                (
                    "b".to_string(),
                    Tensor {
                        shape: vec![2],
                        values: TensorValues::I64(vec![-1, 7]),
                    },
                ),
                (
                    "a".to_string(),
                    Tensor {
                        shape: vec![1, 2],
                        values: TensorValues::F64(vec![0.5, 2.0]),
                    },
                ),
            ],
            metadata: HashMap::from([("k".to_string(), "v".to_string())]),
        };
        let bytes = file.to_bytes().unwrap();
        let mut again = SafetensorsFile::read(&bytes).unwrap();
        again.tensors.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(again.tensors[0], file.tensors[1]);
        assert_eq!(again.tensors[1], file.tensors[0]);
        assert_eq!(again.metadata, file.metadata);
        // The same contents give the same bytes, whatever order they were given in.
        let mut reversed = file.clone();
        reversed.tensors.reverse();
        assert_eq!(reversed.to_bytes().unwrap(), bytes);
        let bad = SafetensorsFile {
            tensors: vec![(
                "x".to_string(),
                Tensor {
                    shape: vec![3],
                    values: TensorValues::F32(vec![1.0]),
                },
            )],
            metadata: HashMap::new(),
        };
        let e = bad.to_bytes().unwrap_err().to_string();
        assert!(e.contains("1 values do not fit shape [3]"), "{e}");
        for (bytes, says) in [
            (&b"\x01"[..], "shorter than its 8-byte header length"),
            (&[0xff; 16][..], "out of range"),
            (
                &b"\x04\x00\x00\x00\x00\x00\x00\x00nope"[..],
                "header is not JSON",
            ),
        ] {
            let e = SafetensorsFile::read(bytes).unwrap_err().to_string();
            assert!(
                e.starts_with("not a safetensors file") && e.contains(says),
                "{e}"
            );
        }
    }
}
