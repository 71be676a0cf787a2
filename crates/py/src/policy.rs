//! Policy networks and safetensors files: the engine's reader, writer and inference, which
//! `checkraise.policy` (and through it the trainer) use, so Python and the engine's `policy`
//! bot run one forward pass and read files one way.

use std::collections::HashMap;
use std::sync::Arc;

use checkraise_core::bots::policy::{self, PolicyNet, SafetensorsFile, Tensor, TensorValues};
use numpy::ndarray::{Array1, Array2, ArrayView2, Axis};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{OrRaise, PolicyFileError};
use crate::state::PyState;

/// One layer's weight and bias as numpy arrays.
type Layer<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<f32>>);

/// A policy network read from a policy file's bytes (the format ``checkraise.policy``
/// describes), run by the engine: the same reader and forward pass as the bot spec
/// ``policy``. ``checkraise.policy.Policy`` wraps it.
#[pyclass(module = "checkraise._core", name = "PolicyNet", frozen)]
pub struct PyPolicyNet {
    net: Arc<PolicyNet>,
}

#[pymethods]
impl PyPolicyNet {
    /// Reads a policy file's bytes; :class:`PolicyFileError` says what is wrong.
    #[new]
    fn new(data: &[u8]) -> PyResult<Self> {
        PolicyNet::from_bytes(data)
            .map(|net| PyPolicyNet { net: Arc::new(net) })
            .map_err(|e| PolicyFileError::new_err(e.to_string()))
    }

    /// The policy shipped for game ``name`` (the bot spec ``policy``).
    #[staticmethod]
    fn shipped(name: &str) -> PyResult<Self> {
        let game = checkraise_core::registry::make_game::<&str, &str>(name, []).or_raise()?;
        let net = policy::shipped(game.as_ref()).ok_or_else(|| {
            PolicyFileError::new_err(format!("no policy is shipped for {}", game.info().name))
        })?;
        Ok(PyPolicyNet { net })
    }

    /// The game string it was trained on, parameters included.
    #[getter]
    fn game(&self) -> &str {
        self.net.game()
    }

    /// The file's metadata.
    #[getter]
    fn metadata(&self) -> HashMap<String, String> {
        self.net.metadata().clone()
    }

    /// Entries of the observation it reads.
    #[getter]
    fn observation_size(&self) -> usize {
        self.net.observation_size()
    }

    /// Logits it writes (the game's distinct actions).
    #[getter]
    fn num_actions(&self) -> usize {
        self.net.num_actions()
    }

    /// The hidden layers' ``(weight, bias)`` (weights ``[inputs, outputs]``), copies.
    fn layers<'py>(&self, py: Python<'py>) -> Vec<Layer<'py>> {
        self.net
            .layers()
            .iter()
            .map(|(w, b)| (w.clone().into_pyarray(py), b.clone().into_pyarray(py)))
            .collect()
    }

    /// The logits layer's ``(weight, bias)``, copies.
    fn head<'py>(&self, py: Python<'py>) -> Layer<'py> {
        let (w, b) = self.net.head();
        (w.clone().into_pyarray(py), b.clone().into_pyarray(py))
    }

    /// The action-features link ``(offset, weight)``: ``weight * observation[offset + a]`` is
    /// added to action ``a``'s logit; ``None`` for a plain network.
    #[getter]
    fn action_features(&self) -> Option<(usize, f32)> {
        self.net.action_features()
    }

    /// The observation row it reads for ``seat`` at ``state``: the seat's own, or for a policy
    /// trained with another ``observation`` parameter (Pokeros's ``placements``) the seat's
    /// observation of the same history in that variant. :class:`PolicyFileError` when it does
    /// not play the state's game or the seat does not exist.
    fn observation<'py>(
        &self,
        py: Python<'py>,
        state: &PyState,
        seat: usize,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let observer = self
            .net
            .observer(state.game.as_ref())
            .map_err(|e| PolicyFileError::new_err(format!("this policy does not fit: {e}")))?;
        let players = state.state.num_players();
        if seat >= players {
            return Err(PolicyFileError::new_err(format!(
                "seat {seat} does not exist; the game has seats 0 to {}",
                players - 1
            )));
        }
        let mut row = vec![0.0; self.net.observation_size()];
        policy::observe_through(observer.as_deref(), state.state.as_ref(), seat, &mut row);
        Ok(Array1::from_vec(row).into_pyarray(py))
    }

    /// Raises :class:`PolicyFileError` unless it was trained on ``game`` (the same game
    /// string) and fits its observation and action sizes.
    fn check_game(&self, game: &Bound<'_, PyAny>) -> PyResult<()> {
        let game = crate::game::PyGame::resolve(game, None)?;
        self.net
            .check_game(game.as_ref())
            .map_err(|e| PolicyFileError::new_err(format!("this policy does not fit: {e}")))
    }

    /// The logits of each row of ``observations`` (``[rows, observation_size]``, float32).
    fn logits<'py>(
        &self,
        py: Python<'py>,
        observations: PyReadonlyArray2<'py, f32>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let obs = self.rows(&observations)?;
        let net = &self.net;
        let out = py.detach(|| {
            let mut out = Array2::zeros((obs.nrows(), net.num_actions()));
            for (row, mut logits) in obs.outer_iter().zip(out.outer_iter_mut()) {
                logits.assign(&net.logits(&row.to_vec()));
            }
            out
        });
        Ok(out.into_pyarray(py))
    }

    /// The legal action (``masks[i]``, bool, one entry per action) of highest logit for each
    /// row, ties to the lowest action; a row with no legal action is an error.
    fn actions<'py>(
        &self,
        py: Python<'py>,
        observations: PyReadonlyArray2<'py, f32>,
        masks: PyReadonlyArray2<'py, bool>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let obs = self.rows(&observations)?;
        let masks = masks.as_array();
        if masks.nrows() != obs.nrows() {
            return Err(PolicyFileError::new_err(format!(
                "{} rows of observations and {} rows of masks",
                obs.nrows(),
                masks.nrows()
            )));
        }
        let net = &self.net;
        let best: Vec<Option<i64>> = py.detach(|| {
            obs.outer_iter()
                .zip(masks.outer_iter())
                .map(|(row, mask)| net.best(&row.to_vec(), &mask.to_vec()).map(|a| a as i64))
                .collect()
        });
        let mut out = Array1::zeros(best.len());
        for (i, action) in best.into_iter().enumerate() {
            out[i] = action.ok_or_else(|| {
                PolicyFileError::new_err(format!("row {i} of masks has no legal action"))
            })?;
        }
        Ok(out.into_pyarray(py))
    }

    fn __repr__(&self) -> String {
        format!(
            "<PolicyNet for {} ({} inputs, {} hidden layers, {} actions)>",
            self.net.game(),
            self.net.observation_size(),
            self.net.layers().len(),
            self.net.num_actions()
        )
    }
}

impl PyPolicyNet {
    /// The observations as rows of the width the network reads.
    fn rows<'a>(
        &self,
        observations: &'a PyReadonlyArray2<'_, f32>,
    ) -> PyResult<ArrayView2<'a, f32>> {
        let obs = observations.as_array();
        if obs.len_of(Axis(1)) != self.net.observation_size() {
            return Err(PolicyFileError::new_err(format!(
                "observations have {} entries; the policy reads {}",
                obs.len_of(Axis(1)),
                self.net.observation_size()
            )));
        }
        Ok(obs)
    }
}

/// The tensors (numpy arrays: float32, float64 or int64) and string metadata of a
/// safetensors file's bytes; a malformed file raises :class:`PolicyFileError`.
#[pyfunction]
pub fn read_safetensors<'py>(
    py: Python<'py>,
    data: &[u8],
) -> PyResult<(Bound<'py, PyDict>, HashMap<String, String>)> {
    let file = SafetensorsFile::read(data).map_err(|e| PolicyFileError::new_err(e.to_string()))?;
    let tensors = PyDict::new(py);
    for (name, tensor) in file.tensors {
        let shape = tensor.shape;
        let array = match tensor.values {
            TensorValues::F32(v) => v.into_pyarray(py).reshape(shape)?.into_any(),
            TensorValues::F64(v) => v.into_pyarray(py).reshape(shape)?.into_any(),
            TensorValues::I64(v) => v.into_pyarray(py).reshape(shape)?.into_any(),
        };
        tensors.set_item(name, array)?;
    }
    Ok((tensors, file.metadata))
}

/// The bytes of a safetensors file holding ``tensors`` (name to a float32, float64 or int64
/// array) and string ``metadata``.
#[pyfunction]
#[pyo3(signature = (tensors, metadata=None))]
pub fn safetensors_bytes<'py>(
    py: Python<'py>,
    tensors: &Bound<'py, PyDict>,
    metadata: Option<HashMap<String, String>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut file = SafetensorsFile {
        tensors: Vec::new(),
        metadata: metadata.unwrap_or_default(),
    };
    for (name, array) in tensors.iter() {
        let name: String = name.extract()?;
        let untyped = array.cast::<numpy::PyUntypedArray>().map_err(|_| {
            PolicyFileError::new_err(format!("tensor {name:?} is not a numpy array"))
        })?;
        let shape = untyped.shape().to_vec();
        let values = if let Ok(a) = array.cast::<PyArrayDyn<f32>>() {
            TensorValues::F32(a.readonly().as_array().iter().copied().collect())
        } else if let Ok(a) = array.cast::<PyArrayDyn<f64>>() {
            TensorValues::F64(a.readonly().as_array().iter().copied().collect())
        } else if let Ok(a) = array.cast::<PyArrayDyn<i64>>() {
            TensorValues::I64(a.readonly().as_array().iter().copied().collect())
        } else {
            return Err(PolicyFileError::new_err(format!(
                "tensor {name:?} has dtype {}; use float32",
                untyped.dtype()
            )));
        };
        file.tensors.push((name, Tensor { shape, values }));
    }
    let bytes = file
        .to_bytes()
        .map_err(|e| PolicyFileError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &bytes))
}
