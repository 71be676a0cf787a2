//! `VectorEnv`: the engine's batched env, stepping with the GIL released and writing straight
//! into numpy arrays that live as long as the env (no Python object per env).

use checkraise_core::Action;
use checkraise_core::compact::ObservationEncoding;
use checkraise_core::vector::{
    AutoresetMode, LearnerSeat, Observer, Opponents, StepBuffers, VectorEnv, VectorError,
};
use numpy::ndarray::Dimension;
use numpy::{
    Element, IntoPyArray, PyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayDyn,
    PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::errors::{CheckraiseError, IllegalActionError, OrRaise, ParameterError};
use crate::game::PyGame;
use crate::state::PyState;

mod args;

pub use args::_parse_opponent_pool;
pub(crate) use args::whole_number;
use args::{
    Seeds, autoreset_mode_from_py, encoding_from_py, observer_from_py, opponents_from_py,
    pool_to_py, seeds_from_py, vector_err,
};

/// Many envs of one game stepped together across threads, Gymnasium-style.
///
/// `VectorEnv("pokeros", num_envs=1024, seed=0, observer="current", players=2)`. Env `i` is
/// seeded with `seed + i`. `step(actions)` takes an integer array of shape `(num_envs,)`, or
/// `(num_envs, num_players)` for games with simultaneous moves, and returns
/// `(observations, rewards, terminated, truncated, info)` with Gymnasium's next-step
/// auto-reset, or same-step auto-reset with `autoreset_mode="same_step"` (the ended games'
/// final observations then in `info["final_obs"]`); `info["final_returns"]` holds the returns
/// of the games a step ended, in both modes. The arrays are read-only views of the env's own buffers, overwritten by every
/// `reset` and `step` (which writes only what changed): copy what you keep, or make the env
/// with `copy=True` to get fresh, writable arrays from every call. `observer` defaults to
/// `"current"` for sequential games and `"all"` for games with simultaneous moves. With
/// `observation_encoding="compact"` observations are uint8 compact rows and masks packed bits
/// (`checkraise.unpack_observations`, `checkraise.unpack_action_masks`; docs/observations.md).
///
/// With `opponent=` the engine plays every seat but a learner's, on its worker threads:
/// `opponent` is a bot spec (`"heuristic"`, `"random"`, `"ismcts(iterations=200)"`,
/// `"policy"`, `"policy(path=FILE)"`), a `Bot`, a policy file's bytes (a trainer's snapshot,
/// no file needed), or a weighted pool of these (a list of entries or of `(entry, weight)`
/// pairs, or a dict entry -> weight), drawn for each opponent seat of each env at every game.
/// `seat` is the learner's seat: a seat number (default 0) or `"random"` (drawn for every
/// game). Every env then stops only at its learner's decisions: one observation row, one
/// action (also in simultaneous games) and one reward per env, `rewards` `(num_envs, 1)`.
/// Opponents decide on states resampled from their own seat's information, never the true
/// one.
#[pyclass(module = "checkraise._core", name = "VectorEnv")]
pub struct PyVectorEnv {
    venv: VectorEnv,
    observations: Py<PyArrayDyn<f32>>,
    action_masks: Py<PyArrayDyn<bool>>,
    current_players: Py<PyArray1<i32>>,
    rewards: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    final_returns: Py<PyArray2<f32>>,
    /// Same-step mode only (in next-step mode the observations hold the final ones).
    final_observations: Option<Py<PyArrayDyn<f32>>>,
    /// The compact encoding's buffers (the float32 ones are then empty).
    packed: Option<Packed>,
    actions: Vec<Action>,
    /// Read-only views of the six buffers, in the order above, as handed out.
    views: Views,
    /// Return copies instead of the env's own arrays.
    copy: bool,
    /// `close()` was called: stepping, resetting and sampling raise.
    closed: bool,
    /// The opponent pool the batch was made with (kept for pickling: in-memory policies are
    /// not in the snapshot).
    opponents: Option<Opponents>,
}

/// The buffers of a compact `PyVectorEnv`: compact observation rows and packed masks.
struct Packed {
    observations: Py<PyArrayDyn<u8>>,
    action_masks: Py<PyArrayDyn<u8>>,
    final_observations: Option<Py<PyArrayDyn<u8>>>,
}

/// Read-only views of a `PyVectorEnv`'s buffers: callers cannot change what the next step
/// relies on (it rewrites only the mask entries that changed). The observation, mask and
/// final observation views are of the encoding's arrays (float32 and bool, or uint8).
struct Views {
    observations: Py<PyAny>,
    action_masks: Py<PyAny>,
    current_players: Py<PyArray1<i32>>,
    rewards: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    final_returns: Py<PyArray2<f32>>,
    final_observations: Option<Py<PyAny>>,
}

/// A zeroed array of `shape` whose memory Rust allocated (numpy frees it through Rust).
///
/// The observation and mask buffers are written all over at every step; from the engine's
/// allocator (mimalloc, which backs large blocks with huge pages where the kernel allows)
/// stepping 1,024 Prediction Chess envs was 5–10% faster than with numpy's own allocation
/// (docs/benchmarks/python_throughput.md).
fn zeroed<'py, T: Element + Default + Clone>(
    py: Python<'py>,
    shape: Vec<usize>,
) -> PyResult<Bound<'py, PyArrayDyn<T>>> {
    let len = shape.iter().product();
    numpy::ndarray::ArrayD::from_shape_vec(shape, vec![T::default(); len])
        .map(|array| array.into_pyarray(py))
        .map_err(|e| CheckraiseError::new_err(e.to_string()))
}

/// A read-only view of `array`.
fn read_only<'py, T: Element, D: Dimension>(
    array: &Bound<'py, PyArray<T, D>>,
) -> PyResult<Py<PyArray<T, D>>> {
    let view = array.call_method0("view")?;
    view.getattr("flags")?.setattr("writeable", false)?;
    Ok(view.cast_into::<PyArray<T, D>>()?.unbind())
}

impl PyVectorEnv {
    /// The shape `step` expects its actions in.
    fn actions_shape(&self) -> Vec<usize> {
        match self.venv.actions_per_env() {
            1 => vec![self.venv.num_envs()],
            k => vec![self.venv.num_envs(), k],
        }
    }

    /// Copies the caller's actions into the scratch buffer, checking dtype and shape.
    fn read_actions(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let numpy = py.import("numpy")?;
        let array = numpy.call_method1("asarray", (actions,))?;
        let array = array.cast::<PyUntypedArray>()?;
        let kind = array.dtype().kind();
        if kind != b'i' && kind != b'u' {
            return Err(CheckraiseError::new_err(format!(
                "actions must be an integer array, not dtype {}",
                array.dtype().str()?
            )));
        }
        let expected = self.actions_shape();
        if array.shape() != expected.as_slice() {
            return Err(CheckraiseError::new_err(format!(
                "actions must have shape {:?}, not {:?}",
                PyTuple::new(py, &expected)?,
                PyTuple::new(py, array.shape())?
            )));
        }
        let wide = array.call_method1("astype", ("int64",))?;
        let wide = wide.cast::<PyArrayDyn<i64>>()?.readonly();
        self.actions.clear();
        let per_env = self.venv.actions_per_env();
        let last = self.venv.game().num_distinct_actions().saturating_sub(1);
        for (i, &a) in wide.as_array().iter().enumerate() {
            let Ok(action) = Action::try_from(a) else {
                return Err(IllegalActionError::new_err(format!(
                    "env {}: illegal action {a}: action ids run from 0 to {last}",
                    i / per_env
                )));
            };
            self.actions.push(action);
        }
        Ok(())
    }

    /// An error when the env was closed.
    fn check_open(&self, what: &str) -> PyResult<()> {
        if self.closed {
            return Err(CheckraiseError::new_err(format!(
                "cannot {what}: this VectorEnv was closed; make a new one"
            )));
        }
        Ok(())
    }

    /// Runs `f` on the engine batch and the numpy buffers with the GIL released.
    fn with_buffers<F>(&mut self, py: Python<'_>, f: F) -> PyResult<()>
    where
        F: FnOnce(&mut VectorEnv, &[Action], StepBuffers<'_>) -> Result<(), VectorError> + Send,
    {
        let borrowed = |e: numpy::BorrowError| {
            CheckraiseError::new_err(format!("the env's arrays are in use elsewhere: {e}"))
        };
        let not_contiguous =
            |e: numpy::AsSliceError| CheckraiseError::new_err(format!("the env's arrays: {e}"));
        let mut observations = self
            .observations
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut action_masks = self
            .action_masks
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut current_players = self
            .current_players
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut rewards = self.rewards.bind(py).try_readwrite().map_err(borrowed)?;
        let mut terminated = self.terminated.bind(py).try_readwrite().map_err(borrowed)?;
        let mut truncated = self.truncated.bind(py).try_readwrite().map_err(borrowed)?;
        let mut final_returns = self
            .final_returns
            .bind(py)
            .try_readwrite()
            .map_err(borrowed)?;
        let mut final_observations = self
            .final_observations
            .as_ref()
            .map(|array| array.bind(py).try_readwrite())
            .transpose()
            .map_err(borrowed)?;
        let final_observations = match final_observations.as_mut() {
            Some(array) => Some(array.as_slice_mut().map_err(not_contiguous)?),
            None => None,
        };
        let mut packed = self
            .packed
            .as_ref()
            .map(|p| {
                Ok::<_, numpy::BorrowError>((
                    p.observations.bind(py).try_readwrite()?,
                    p.action_masks.bind(py).try_readwrite()?,
                    p.final_observations
                        .as_ref()
                        .map(|a| a.bind(py).try_readwrite())
                        .transpose()?,
                ))
            })
            .transpose()
            .map_err(borrowed)?;
        let (packed_observations, packed_action_masks, packed_final_observations) =
            match packed.as_mut() {
                Some((obs, masks, finals)) => (
                    obs.as_slice_mut().map_err(not_contiguous)?,
                    masks.as_slice_mut().map_err(not_contiguous)?,
                    match finals.as_mut() {
                        Some(a) => Some(a.as_slice_mut().map_err(not_contiguous)?),
                        None => None,
                    },
                ),
                None => (&mut [][..], &mut [][..], None),
            };
        let buffers = StepBuffers {
            retained: true,
            observations: observations.as_slice_mut().map_err(not_contiguous)?,
            action_masks: action_masks.as_slice_mut().map_err(not_contiguous)?,
            current_players: current_players.as_slice_mut().map_err(not_contiguous)?,
            rewards: rewards.as_slice_mut().map_err(not_contiguous)?,
            terminated: terminated.as_slice_mut().map_err(not_contiguous)?,
            truncated: truncated.as_slice_mut().map_err(not_contiguous)?,
            final_returns: final_returns.as_slice_mut().map_err(not_contiguous)?,
            final_observations,
            packed_observations,
            packed_action_masks,
            packed_final_observations,
        };
        let (venv, actions) = (&mut self.venv, self.actions.as_slice());
        py.detach(|| f(venv, actions, buffers))
            .map_err(|e| vector_err(&e))
    }

    /// One of the env's arrays as returned by `reset` and `step`: its read-only view, or a
    /// writable copy when the env was made with `copy=True`.
    fn out<'py, T: Element, D: Dimension>(
        &self,
        py: Python<'py>,
        array: &Py<PyArray<T, D>>,
    ) -> PyResult<Bound<'py, PyArray<T, D>>> {
        let array = array.bind(py).clone();
        if self.copy {
            Ok(array.call_method0("copy")?.cast_into::<PyArray<T, D>>()?)
        } else {
            Ok(array)
        }
    }

    /// `out` for the encoding's arrays (untyped views).
    fn out_any<'py>(&self, py: Python<'py>, array: &Py<PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let array = array.bind(py).clone();
        if self.copy {
            array.call_method0("copy")
        } else {
            Ok(array)
        }
    }

    /// The `info` dict of `reset` and `step`: action masks, current players and the final
    /// returns; in same-step mode also the final observations (`"final_obs"`) and which envs
    /// have one (`"_final_obs"`, Gymnasium's mask key).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let info = PyDict::new(py);
        let masks = self.out_any(py, &self.views.action_masks)?;
        info.set_item("action_mask", masks)?;
        info.set_item("current_player", self.out(py, &self.views.current_players)?)?;
        info.set_item("final_returns", self.out(py, &self.views.final_returns)?)?;
        if let Some(finals) = &self.views.final_observations {
            info.set_item("final_obs", self.out_any(py, finals)?)?;
            let ended = self
                .terminated
                .bind(py)
                .call_method1("__or__", (self.truncated.bind(py),))?;
            info.set_item("_final_obs", ended)?;
        }
        Ok(info)
    }
}

impl PyVectorEnv {
    /// A Python batch around `venv`, with fresh (zeroed) output arrays.
    fn from_venv(
        py: Python<'_>,
        venv: VectorEnv,
        copy: bool,
        opponents: Option<Opponents>,
    ) -> PyResult<Self> {
        let game = venv.game().clone();
        let num_envs = venv.num_envs();
        let rows = match venv.rows_per_env() {
            1 => vec![num_envs],
            k => vec![num_envs, k],
        };
        let reward_width = venv.rewards_per_env();
        let with = |tail: Vec<usize>| rows.iter().copied().chain(tail).collect::<Vec<_>>();
        // Zeroed buffers agree with a batch that has written nothing yet, so every call may
        // treat them as retained (see `StepBuffers::retained`).
        let compact = venv.observation_encoding() == ObservationEncoding::Compact;
        let same_step = venv.autoreset_mode() == AutoresetMode::SameStep;
        // With the compact encoding the float32 buffers are empty and these take their place.
        let packed = if compact {
            let row = with(vec![venv.compact_layout().row_bytes()]);
            let mask = with(vec![checkraise_core::compact::packed_mask_bytes(
                game.num_distinct_actions(),
            )]);
            Some(Packed {
                observations: zeroed::<u8>(py, row.clone())?.unbind(),
                action_masks: zeroed::<u8>(py, mask)?.unbind(),
                final_observations: if same_step {
                    Some(zeroed::<u8>(py, row)?.unbind())
                } else {
                    None
                },
            })
        } else {
            None
        };
        let (obs_shape, mask_shape) = if compact {
            (vec![0], vec![0])
        } else {
            (
                with(game.observation_shape()),
                with(vec![game.num_distinct_actions()]),
            )
        };
        let observations = zeroed::<f32>(py, obs_shape.clone())?;
        let action_masks = zeroed::<bool>(py, mask_shape)?;
        let current_players = PyArray1::zeros(py, num_envs, false);
        let rewards = PyArray2::zeros(py, [num_envs, reward_width], false);
        let terminated = PyArray1::zeros(py, num_envs, false);
        let truncated = PyArray1::zeros(py, num_envs, false);
        let final_returns = PyArray2::zeros(py, [num_envs, reward_width], false);
        let final_observations = if same_step && !compact {
            Some(zeroed::<f32>(py, obs_shape)?)
        } else {
            None
        };
        let untyped = |a: Py<PyArrayDyn<u8>>| a.into_any();
        let views = Views {
            final_returns: read_only(&final_returns)?,
            final_observations: match &packed {
                Some(p) => p
                    .final_observations
                    .as_ref()
                    .map(|a| read_only(a.bind(py)).map(untyped))
                    .transpose()?,
                None => final_observations
                    .as_ref()
                    .map(|a| read_only(a).map(|v| v.into_any()))
                    .transpose()?,
            },
            observations: match &packed {
                Some(p) => read_only(p.observations.bind(py)).map(untyped)?,
                None => read_only(&observations)?.into_any(),
            },
            action_masks: match &packed {
                Some(p) => read_only(p.action_masks.bind(py)).map(untyped)?,
                None => read_only(&action_masks)?.into_any(),
            },
            current_players: read_only(&current_players)?,
            rewards: read_only(&rewards)?,
            terminated: read_only(&terminated)?,
            truncated: read_only(&truncated)?,
        };
        Ok(PyVectorEnv {
            observations: observations.unbind(),
            action_masks: action_masks.unbind(),
            current_players: current_players.unbind(),
            rewards: rewards.unbind(),
            terminated: terminated.unbind(),
            truncated: truncated.unbind(),
            final_returns: final_returns.unbind(),
            final_observations: final_observations.map(Bound::unbind),
            packed,
            actions: Vec::with_capacity(num_envs * game.num_players()),
            views,
            copy,
            closed: false,
            opponents,
            venv,
        })
    }
}

/// Unpickles a `VectorEnv`: the batch from its snapshot, its rows written afresh, and the last
/// call's rewards, terminated, truncated, final returns and (same-step mode) final
/// observation arrays as they were (pickles made before the final arrays existed hold only
/// the first three).
#[pyfunction]
#[pyo3(signature = (game, snapshot, copy, last, opponent=None, seat=None))]
pub fn _restore_vector_env(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    snapshot: &str,
    copy: bool,
    last: &Bound<'_, PyTuple>,
    opponent: Option<&Bound<'_, PyAny>>,
    seat: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyVectorEnv> {
    let game = PyGame::resolve(game, None)?;
    let (venv, opponents) = match opponent {
        Some(opponent) => {
            let opponents = opponents_from_py(opponent, seat, game.num_players())?;
            let venv =
                VectorEnv::restore_with_opponents(game, snapshot, opponents.clone()).or_raise()?;
            (venv, Some(opponents))
        }
        None => (VectorEnv::restore(game, snapshot).or_raise()?, None),
    };
    let mut out = PyVectorEnv::from_venv(py, venv, copy, opponents)?;
    let mut arrays = vec![
        out.rewards.bind(py).as_any().clone(),
        out.terminated.bind(py).as_any().clone(),
        out.truncated.bind(py).as_any().clone(),
        out.final_returns.bind(py).as_any().clone(),
    ];
    if let Some(finals) = &out.final_observations {
        arrays.push(finals.bind(py).as_any().clone());
    }
    if let Some(finals) = out
        .packed
        .as_ref()
        .and_then(|p| p.final_observations.as_ref())
    {
        arrays.push(finals.bind(py).as_any().clone());
    }
    for (saved, array) in last.iter().zip(arrays) {
        if !saved.is_none() {
            numpy_copyto(py, &array, &saved)?;
        }
    }
    out.with_buffers(py, |venv, _, buffers| venv.write_rows(buffers))?;
    Ok(out)
}

/// `numpy.copyto(dst, src)` (shapes and dtypes checked by numpy).
fn numpy_copyto(py: Python<'_>, dst: &Bound<'_, PyAny>, src: &Bound<'_, PyAny>) -> PyResult<()> {
    py.import("numpy")?.call_method1("copyto", (dst, src))?;
    Ok(())
}

#[pymethods]
impl PyVectorEnv {
    #[new]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, not a Rust API
    #[pyo3(signature = (game, num_envs, seed=None, *, observer=None, max_episode_steps=None, autoreset_mode=None, copy=false, observation_encoding="float32", opponent=None, seat=None, **params))]
    fn new(
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        num_envs: &Bound<'_, PyAny>,
        seed: Option<&Bound<'_, PyAny>>,
        observer: Option<&Bound<'_, PyAny>>,
        max_episode_steps: Option<&Bound<'_, PyAny>>,
        autoreset_mode: Option<&Bound<'_, PyAny>>,
        copy: bool,
        observation_encoding: &str,
        opponent: Option<&Bound<'_, PyAny>>,
        seat: Option<&Bound<'_, PyAny>>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let encoding = encoding_from_py(observation_encoding)?;
        let num_envs = usize::try_from(whole_number(num_envs, "num_envs", 1)?)
            .map_err(|_| CheckraiseError::new_err("num_envs is too large"))?;
        let seed = match seed {
            Some(seed) => whole_number(seed, "seed", 0)?,
            None => 0,
        };
        let max_episode_steps = match max_episode_steps {
            Some(steps) => Some(
                usize::try_from(whole_number(steps, "max_episode_steps", 1)?)
                    .map_err(|_| CheckraiseError::new_err("max_episode_steps is too large"))?,
            ),
            None => None,
        };
        let game = PyGame::resolve(game, params)?;
        let opponents = match opponent {
            Some(opponent) => Some(opponents_from_py(opponent, seat, game.num_players())?),
            None if seat.is_some() => {
                return Err(ParameterError::new_err(
                    "seat is the learner's seat in a batch with opponents: give opponent too \
                     (without opponents Python plays every seat)",
                ));
            }
            None => None,
        };
        let observer = match observer {
            Some(o) => observer_from_py(o, game.num_players())?,
            None => Observer::default_for(game.as_ref()),
        };
        let mode = match autoreset_mode {
            Some(mode) => autoreset_mode_from_py(mode)?,
            None => AutoresetMode::default(),
        };
        let venv = py
            .detach(|| VectorEnv::new(game.clone(), num_envs, seed, observer, max_episode_steps))
            .or_raise()?
            .with_autoreset_mode(mode)
            .with_observation_encoding(encoding);
        let venv = match &opponents {
            Some(opponents) => {
                let opponents = opponents.clone();
                py.detach(|| venv.with_opponents(opponents)).or_raise()?
            }
            None => venv,
        };
        PyVectorEnv::from_venv(py, venv, copy, opponents)
    }

    /// Starts a new game in every env: from `seed + i` when `seed` is an integer, from
    /// `seed[i]` when it is a sequence of one seed (or `None`) per env, else continuing each
    /// env's stream (the first reset keeps the games made at construction). Reseeding covers
    /// chance, `sample_actions` and, with opponents, the learner's seat and the opponents.
    /// Returns `(observations, info)`.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let mut this = exclusive(slf)?;
        this.check_open("reset")?;
        let seeds = seed
            .map(|seed| seeds_from_py(seed, this.venv.num_envs()))
            .transpose()?;
        this.with_buffers(py, |venv, _, buffers| match seeds {
            None => venv.reset(None, buffers),
            Some(Seeds::One(seed)) => venv.reset(Some(seed), buffers),
            Some(Seeds::Each(seeds)) => venv.reset_each(&seeds, buffers),
        })?;
        Ok((this.out_any(py, &this.views.observations)?, this.info(py)?))
    }

    /// Applies one action per env (a joint action per env for simultaneous games) and
    /// returns `(observations, rewards, terminated, truncated, info)`.
    ///
    /// An illegal action raises `IllegalActionError` naming the env, and no env changes.
    /// In next-step mode, actions of envs that ended on the previous step are ignored (they
    /// start new games); in same-step mode an env whose game ends is reset within the step,
    /// its final observation in `info["final_obs"]`.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyAny>,
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyDict>,
    )> {
        let mut this = exclusive(slf)?;
        this.check_open("step")?;
        this.read_actions(py, actions)?;
        this.with_buffers(py, |venv, actions, buffers| venv.step(actions, buffers))?;
        Ok((
            this.out_any(py, &this.views.observations)?,
            this.out(py, &this.views.rewards)?,
            this.out(py, &this.views.terminated)?,
            this.out(py, &this.views.truncated)?,
            this.info(py)?,
        ))
    }

    /// Uniformly random legal actions for the next `step`, as an int64 array of
    /// `action_shape`: the seat to act's in each env, or every seat's in a joint action (0
    /// where a seat has none, and for envs that just ended, whose actions `step` ignores).
    /// Drawn in Rust with the GIL released, env `i` from its own stream seeded from
    /// `seed + i`, so a random baseline costs no Python work per env.
    fn sample_actions<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<Bound<'py, PyArrayDyn<i64>>> {
        let mut this = exclusive(slf)?;
        this.check_open("sample actions")?;
        let mut actions = vec![0 as Action; this.venv.num_envs() * this.venv.actions_per_env()];
        let venv = &mut this.venv;
        py.detach(|| venv.sample_actions(&mut actions))
            .map_err(|e| vector_err(&e))?;
        let wide: Vec<i64> = actions.into_iter().map(i64::from).collect();
        let shape = this.actions_shape();
        Ok(numpy::ndarray::ArrayD::from_shape_vec(shape, wide)
            .map_err(|e| CheckraiseError::new_err(e.to_string()))?
            .into_pyarray(py))
    }

    /// A copy of env `index`'s state (for inspection and rendering).
    fn state(&self, index: usize) -> PyResult<PyState> {
        self.check_open("read a state")?;
        let game = self.venv.game().clone();
        let state = self.venv.state(index).ok_or_else(|| {
            CheckraiseError::new_err(format!(
                "env {index} does not exist; this batch has envs 0 to {}",
                self.venv.num_envs() - 1
            ))
        })?;
        Ok(PyState::new(game, state.clone_box()))
    }

    /// The game.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame::new(self.venv.game().clone())
    }

    /// Number of envs.
    #[getter]
    fn num_envs(&self) -> usize {
        self.venv.num_envs()
    }

    /// Number of seats.
    #[getter]
    fn num_players(&self) -> usize {
        self.venv.game().num_players()
    }

    /// Whose observations are written: `"current"`, `"all"` or a seat number.
    #[getter]
    fn observer<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        use pyo3::IntoPyObjectExt;
        match self.venv.observer() {
            Observer::CurrentPlayer => "current".into_bound_py_any(py),
            Observer::AllSeats => "all".into_bound_py_any(py),
            Observer::Seat(seat) => seat.into_bound_py_any(py),
        }
    }

    /// The shape `step` expects: `(num_envs,)`, or `(num_envs, num_players)` for games
    /// with simultaneous moves.
    #[getter]
    fn action_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.actions_shape())
    }

    /// Observations, float32: `(num_envs, *observation_shape)`, or
    /// `(num_envs, num_players, *observation_shape)` with `observer="all"`; with
    /// `observation_encoding="compact"`, uint8 compact rows, `row_bytes` last.
    #[getter]
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.views.observations.bind(py).clone()
    }

    /// Action masks (the legal actions), bool, shaped like the observations with
    /// `num_distinct_actions` last; with `observation_encoding="compact"`, packed bits
    /// (uint8, `⌈num_distinct_actions / 8⌉` last, action `a` in bit `a % 8` of byte `a // 8`).
    #[getter]
    fn action_masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyAny> {
        self.views.action_masks.bind(py).clone()
    }

    /// How observations and masks are written: `"float32"` or `"compact"`.
    #[getter]
    fn observation_encoding(&self) -> &'static str {
        match self.venv.observation_encoding() {
            ObservationEncoding::Float32 => "float32",
            ObservationEncoding::Compact => "compact",
        }
    }

    /// Who acts in each env (int32): a seat, −2 simultaneous, −4 terminal.
    #[getter]
    fn current_players<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        self.views.current_players.bind(py).clone()
    }

    /// Each seat's reward from the last step, float32 `(num_envs, num_players)`; with
    /// opponents the learner's, `(num_envs, 1)`, including the opponents' moves and chance
    /// up to its next decision.
    #[getter]
    fn rewards<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.views.rewards.bind(py).clone()
    }

    /// Whether the last step ended each env's game.
    #[getter]
    fn terminated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.views.terminated.bind(py).clone()
    }

    /// Whether the last step hit `max_episode_steps` without ending each env's game.
    #[getter]
    fn truncated<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        self.views.truncated.bind(py).clone()
    }

    /// Each seat's return over the game that the last step ended (terminated or truncated),
    /// float32 `(num_envs, num_players)` (the learner's, `(num_envs, 1)`, with opponents);
    /// zeros for the other envs. Both modes.
    #[getter]
    fn final_returns<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f32>> {
        self.views.final_returns.bind(py).clone()
    }

    /// Same-step mode: the final observations of the games the last step ended, shaped as
    /// `observations` (zeros for the other envs). `None` in next-step mode, where the
    /// observations of the ending step are the final ones.
    #[getter]
    fn final_observations<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        self.views
            .final_observations
            .as_ref()
            .map(|array| array.bind(py).clone())
    }

    /// When an env whose game ended starts the next: `"next_step"` or `"same_step"`.
    #[getter]
    fn autoreset_mode(&self) -> &'static str {
        match self.venv.autoreset_mode() {
            AutoresetMode::NextStep => "next_step",
            AutoresetMode::SameStep => "same_step",
        }
    }

    /// Ends the env: later `reset`, `step`, `sample_actions` and `state` calls raise
    /// `CheckraiseError`. Closing twice is fine. Arrays already returned stay readable.
    fn close(&mut self) {
        self.closed = true;
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.closed
    }

    /// Whether the engine plays every seat but the learner's (`opponent=` was given).
    #[getter]
    fn has_opponents(&self) -> bool {
        self.venv.has_opponents()
    }

    /// The opponent pool as `[(entry, weight)]`, each entry a bot spec or a policy file's
    /// bytes; `None` without opponents.
    #[getter]
    fn opponent_pool<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.opponents
            .as_ref()
            .map(|opponents| pool_to_py(py, opponents))
            .transpose()
    }

    /// The learner's seat as given: a seat number, or `"random"` (drawn for every game);
    /// `None` without opponents.
    #[getter]
    fn seat<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        use pyo3::IntoPyObjectExt;
        match self.opponents.as_ref().map(|o| o.learner) {
            Some(LearnerSeat::Fixed(seat)) => seat.into_bound_py_any(py),
            Some(LearnerSeat::Drawn) => "random".into_bound_py_any(py),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// Each env's learner seat in its current game, int64 `(num_envs,)`; −1 everywhere
    /// without opponents.
    #[getter]
    fn learner_seats<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let seats: Vec<i64> = (0..self.venv.num_envs())
            .map(|i| self.venv.learner_seat(i).map_or(-1, |s| s as i64))
            .collect();
        seats.into_pyarray(py)
    }

    /// Which pool entry plays each seat of each env in its current game, int64
    /// `(num_envs, num_players)`: the entry's index in `opponent_pool`, −1 for the learner's
    /// seat (and everywhere without opponents).
    #[getter]
    fn opponent_indices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let (n, players) = (self.venv.num_envs(), self.venv.game().num_players());
        let mut indices = Vec::with_capacity(n * players);
        for i in 0..n {
            for seat in 0..players {
                indices.push(self.venv.opponent_index(i, seat).map_or(-1, |p| p as i64));
            }
        }
        numpy::ndarray::Array2::from_shape_vec((n, players), indices)
            .map(|a| a.into_pyarray(py))
            .map_err(|e| CheckraiseError::new_err(e.to_string()))
    }

    /// Games skipped over every env because they ended before the learner's first decision
    /// (0 without opponents).
    #[getter]
    fn skipped_games(&self) -> u64 {
        self.venv.skipped_games()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Pickles (and copies) as the game, a snapshot of every env and its streams, and the
    /// last call's rewards, terminated and truncated arrays: the copy continues exactly as
    /// this batch would.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        self.check_open("pickle")?;
        let restore = py
            .import("checkraise._core")?
            .getattr("_restore_vector_env")?;
        let game = Bound::new(py, PyGame::new(self.venv.game().clone()))?;
        let mut last = vec![
            self.rewards.bind(py).as_any().clone(),
            self.terminated.bind(py).as_any().clone(),
            self.truncated.bind(py).as_any().clone(),
            self.final_returns.bind(py).as_any().clone(),
        ];
        if let Some(finals) = &self.final_observations {
            last.push(finals.bind(py).as_any().clone());
        }
        if let Some(finals) = self
            .packed
            .as_ref()
            .and_then(|p| p.final_observations.as_ref())
        {
            last.push(finals.bind(py).as_any().clone());
        }
        let last = PyTuple::new(py, last)?;
        let (pool, seat) = match &self.opponents {
            Some(opponents) => (pool_to_py(py, opponents)?.into_any(), self.seat(py)?),
            None => (py.None().into_bound(py), py.None().into_bound(py)),
        };
        let args = (game, self.venv.snapshot(), self.copy, last, pool, seat).into_pyobject(py)?;
        Ok((restore, args))
    }

    /// Closes the env at the end of a `with` block.
    fn __exit__(
        &mut self,
        _kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close();
        false
    }

    fn __len__(&self) -> usize {
        self.venv.num_envs()
    }

    fn __repr__(&self) -> String {
        format!(
            "<checkraise.VectorEnv {} x {}>",
            self.venv.num_envs(),
            crate::convert::game_string(self.venv.game().as_ref())
        )
    }
}

/// The batch for a call that steps it; a batch another thread is stepping is a clear error, not
/// pyo3's "Already borrowed".
fn exclusive<'py>(slf: &Bound<'py, PyVectorEnv>) -> PyResult<PyRefMut<'py, PyVectorEnv>> {
    slf.try_borrow_mut().map_err(|_| {
        CheckraiseError::new_err(
            "this VectorEnv is in use by another thread (a reset, step or sample_actions is \
             running); a VectorEnv serves one thread at a time: give each thread its own, or \
             guard it with a lock",
        )
    })
}
