//! `Game`, and the catalog functions `games()` and `make()`.

use std::sync::Arc;

use checkraise_core::Game;
use checkraise_core::registry;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::convert;
use crate::errors::OrRaise;
use crate::state::PyState;

/// A game with its parameters fixed: sizes, facts, and a factory for states.
#[pyclass(module = "checkraise._core", name = "Game", frozen)]
pub struct PyGame {
    /// The engine's game.
    pub game: Arc<dyn Game>,
}

impl PyGame {
    /// Wraps an engine game.
    pub fn new(game: Arc<dyn Game>) -> Self {
        PyGame { game }
    }

    /// The engine game behind a Python `Game`, or the one a name makes.
    pub fn resolve(
        game: &Bound<'_, PyAny>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Arc<dyn Game>> {
        if let Ok(game) = game.cast::<PyGame>() {
            if kwargs.is_some_and(|k| !k.is_empty()) {
                return Err(crate::errors::ParameterError::new_err(
                    "parameters go to make(); this Game already has its parameters",
                ));
            }
            return Ok(game.get().game.clone());
        }
        let name: String = game.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("game must be a Game or a game name")
        })?;
        convert::make_game(&name, kwargs)
    }
}

#[pymethods]
impl PyGame {
    /// The registry name, e.g. `pokeros`.
    #[getter]
    fn name(&self) -> &'static str {
        self.game.info().name
    }

    /// The validated parameters (every parameter, defaults filled in), name → value.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        convert::params_to_py(py, self.game.params())
    }

    /// The game's facts and parameter schemas, as one entry of `games()`, except that
    /// `reward_model` is this instance's (`"rewards"` for a `reward="points"` variant).
    #[getter]
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let entry = registry::entry(self.game.info().name).or_raise()?;
        let dict = convert::entry_to_py(py, entry)?;
        dict.set_item(
            "reward_model",
            checkraise_core::vocabulary::fact_word(&self.game.reward_model()),
        )?;
        Ok(dict)
    }

    /// Number of seats.
    fn num_players(&self) -> usize {
        self.game.num_players()
    }

    /// Size of the seats' action space: actions are ids `0..num_distinct_actions()`.
    fn num_distinct_actions(&self) -> usize {
        self.game.num_distinct_actions()
    }

    /// Size of the chance outcome space: outcomes are ids `0..max_chance_outcomes()`.
    fn max_chance_outcomes(&self) -> usize {
        self.game.max_chance_outcomes()
    }

    /// Shape of `State.observation_tensor(p)`, as a tuple (compare it with `array.shape`).
    fn observation_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.game.observation_shape())
    }

    /// `(low, high)`: every entry of every observation (and information-state) tensor lies
    /// within them; observation spaces use them as their bounds.
    fn observation_bounds(&self) -> (f32, f32) {
        self.game.observation_bounds()
    }

    /// Where the observation has a block of `num_distinct_actions()` entries, entry `a` of
    /// which describes action `a` (Pokeros with `observation=placements`: the points each
    /// placement would score): the block's first index; `None` for the other games.
    fn action_features(&self) -> Option<usize> {
        self.game.action_features()
    }

    /// Where each observation entry goes in a compact row (`observation_encoding="compact"`;
    /// docs/observations.md): a dict of `observation_size`, `bit_bytes` (the bit part: entry
    /// `i` is bit `i % 8` of byte `i / 8`, numpy's `bitorder="little"`), `scalar_indices` (the
    /// non-binary entries, whose little-endian float32s follow the bits, in this order),
    /// `row_bytes` and `mask_bytes` (a packed legal mask's bytes).
    fn compact_layout<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let layout = checkraise_core::compact::CompactLayout::for_game(self.game.as_ref());
        let out = PyDict::new(py);
        out.set_item("observation_size", layout.observation_size())?;
        out.set_item("bit_bytes", layout.bit_bytes())?;
        out.set_item("scalar_indices", layout.scalar_indices().to_vec())?;
        out.set_item("row_bytes", layout.row_bytes())?;
        out.set_item(
            "mask_bytes",
            checkraise_core::compact::packed_mask_bytes(self.game.num_distinct_actions()),
        )?;
        Ok(out)
    }

    /// `observation_shape()` as a list, OpenSpiel's name.
    fn observation_tensor_shape(&self) -> Vec<usize> {
        self.game.observation_shape()
    }

    /// Number of floats in an observation.
    #[getter]
    fn observation_size(&self) -> usize {
        self.game.observation_size()
    }

    /// Number of floats in an observation, OpenSpiel's name.
    fn observation_tensor_size(&self) -> usize {
        self.game.observation_size()
    }

    /// Shape of `State.information_state_tensor(p)`, as a list (OpenSpiel's name).
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        self.game.information_state_tensor_shape()
    }

    /// Number of floats in an information-state tensor (OpenSpiel's name).
    fn information_state_tensor_size(&self) -> usize {
        self.game.information_state_tensor_size()
    }

    /// Smallest possible return of a seat.
    fn min_utility(&self) -> f64 {
        self.game.min_utility()
    }

    /// Largest possible return of a seat.
    fn max_utility(&self) -> f64 {
        self.game.max_utility()
    }

    /// The constant the seats' returns always sum to, or None.
    fn utility_sum(&self) -> Option<f64> {
        self.game.utility_sum()
    }

    /// An upper bound on the number of actions (chance included) in one game.
    fn max_game_length(&self) -> usize {
        self.game.max_game_length()
    }

    /// The state before anything happened; chance nodes stay explicit, as in OpenSpiel.
    fn new_initial_state(&self) -> PyState {
        PyState::new(self.game.clone(), self.game.new_initial_state())
    }

    /// Reads back a state written by `State.serialize()`.
    fn deserialize_state(&self, text: &str) -> PyResult<PyState> {
        let state = self.game.deserialize_state(text).or_raise()?;
        Ok(PyState::new(self.game.clone(), state))
    }

    /// `name(key=value,...)`: the string `checkraise.make` reads back.
    fn __str__(&self) -> String {
        convert::game_string(self.game.as_ref())
    }

    fn __repr__(&self) -> String {
        format!(
            "<checkraise.Game {}>",
            convert::game_string(self.game.as_ref())
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyGame>().is_ok_and(|o| {
            let o = &o.get().game;
            o.info().name == self.game.info().name && o.params() == self.game.params()
        })
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        convert::game_string(self.game.as_ref()).hash(&mut hasher);
        hasher.finish()
    }

    /// Pickles as the game string, made again on load.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let make = py.import("checkraise._core")?.getattr("make")?;
        Ok((make, (convert::game_string(self.game.as_ref()),)))
    }
}

/// Every registered game: a list of dicts with its facts and parameter schemas.
///
/// Each dict has `name`, `long_name`, `description`, `min_players`, `max_players`, `chance`,
/// `information`, `dynamics`, `utility`, `reward_model` and `parameters` (name → dict with
/// `name`, `kind` (`int`, `bool` or `choice`), `min`, `max`, `options`, `default`,
/// `description`).
#[pyfunction]
pub fn games(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for entry in registry::entries() {
        list.append(convert::entry_to_py(py, entry)?)?;
    }
    Ok(list)
}

/// The registered game names.
#[pyfunction]
pub fn game_names() -> Vec<&'static str> {
    registry::game_names()
}

/// Makes a game: `make("pokeros", players=3)` or `make("pokeros(players=3)")`.
///
/// Parameter values are ints, bools or strs; an unknown game or parameter, or a value that is
/// not allowed, raises a `ValueError` (a `CheckraiseError`) with the engine's message.
#[pyfunction]
#[pyo3(signature = (name, **params))]
pub fn make(name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<PyGame> {
    convert::make_game(name, params).map(PyGame::new)
}
