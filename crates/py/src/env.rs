//! `Env`: one game played from a seed, chance sampled, so callers see only decision points.

use checkraise_core::{Action, Env, Player};
use numpy::{PyArray1, PyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert;
use crate::errors::OrRaise;
use crate::game::PyGame;
use crate::state::{
    PyState, legal_actions_of, legal_mask_of, observation_compact_of, observation_of,
};

/// One game from a seed with chance resolved by the engine's portable generator.
///
/// `Env("pokeros", seed=0, players=3)` or `Env(game, seed=0)`. The same game, parameters,
/// seed and actions always give the same trajectory.
#[pyclass(module = "checkraise._core", name = "Env")]
pub struct PyEnv {
    env: Env,
}

#[pymethods]
impl PyEnv {
    #[new]
    #[pyo3(signature = (game, seed=0, **params))]
    fn new(
        game: &Bound<'_, PyAny>,
        seed: u64,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let game = PyGame::resolve(game, params)?;
        Ok(PyEnv {
            env: Env::new(game, seed),
        })
    }

    /// Pickles (and copies) as the game and a snapshot of the state and the random stream:
    /// the copy continues exactly as this env would.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (PyGame, String))> {
        let restore = py.import("checkraise._core")?.getattr("_restore_env")?;
        Ok((
            restore,
            (PyGame::new(self.env.game().clone()), self.env.snapshot()),
        ))
    }

    /// The game.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame::new(self.env.game().clone())
    }

    /// Starts a new game: continuing the random stream, or from `seed` when given.
    #[pyo3(signature = (seed=None))]
    fn reset(&mut self, seed: Option<u64>) {
        match seed {
            Some(seed) => self.env.reset_with_seed(seed),
            None => self.env.reset(),
        }
    }

    /// Applies the current seat's action, then resolves chance; returns each seat's reward.
    ///
    /// An illegal action raises and leaves the env unchanged.
    fn step(&mut self, action: i64) -> PyResult<Vec<f64>> {
        let action = convert::action_id(self.env.state(), self.env.game().as_ref(), action)?;
        self.env.step(action).or_raise()
    }

    /// Applies a joint action (one per seat) at a simultaneous node; returns the rewards.
    fn step_joint(&mut self, actions: Vec<i64>) -> PyResult<Vec<f64>> {
        let actions = actions
            .into_iter()
            .map(|a| convert::action_id(self.env.state(), self.env.game().as_ref(), a))
            .collect::<PyResult<Vec<Action>>>()?;
        self.env.step_joint(&actions).or_raise()
    }

    /// A copy of the current state.
    fn state(&self) -> PyState {
        PyState::new(self.env.game().clone(), self.env.state().clone_box())
    }

    /// Who acts now: a seat, −2 simultaneous or −4 terminal (never chance).
    fn current_player(&self) -> i64 {
        self.env.current_player().id()
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.env.current_player() == Player::Terminal
    }

    /// The legal actions of `player` (default: the current player), sorted.
    #[pyo3(signature = (player=None))]
    fn legal_actions(&self, player: Option<i64>) -> PyResult<Vec<Action>> {
        legal_actions_of(self.env.state(), player)
    }

    /// The action mask of `player` (default: the current player): its legal actions as a bool
    /// mask over the game's actions.
    #[pyo3(signature = (player=None))]
    fn action_mask<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        legal_mask_of(py, self.env.game().as_ref(), self.env.state(), player)
    }

    /// Seat `player`'s observation (default: the current player), float32 of the game's shape.
    #[pyo3(signature = (player=None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        observation_of(py, self.env.game().as_ref(), self.env.state(), player)
    }

    /// Seat `player`'s observation (default: the current player) as a compact uint8 row
    /// (`checkraise.unpack_observations` unpacks it exactly).
    #[pyo3(signature = (player=None))]
    fn observation_compact<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, numpy::PyArray1<u8>>> {
        observation_compact_of(py, self.env.game().as_ref(), self.env.state(), player)
    }

    /// Each seat's total return so far.
    fn returns(&self) -> Vec<f64> {
        self.env.state().returns()
    }

    fn __str__(&self) -> String {
        self.env.state().to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "<checkraise.Env {}: {}>",
            self.env.game().info().name,
            self.env.state().describe()
        )
    }
}

/// Unpickles an `Env` from its game and snapshot.
#[pyfunction]
pub fn _restore_env(game: &Bound<'_, PyAny>, snapshot: &str) -> PyResult<PyEnv> {
    let game = PyGame::resolve(game, None)?;
    Ok(PyEnv {
        env: Env::restore(game, snapshot).or_raise()?,
    })
}
