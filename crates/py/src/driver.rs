//! `Driver`: core's one driver, which plays chance and bot seats until a seat played from
//! Python must decide, on a `State` the caller holds. `Match`: core's game in play
//! (`table::Match`), which holds its state with the driver, its version, each seat's latest
//! decision and each seat's reward since it last took it; the Gymnasium env and the trainer
//! play through it.

use std::sync::Arc;

use checkraise_core::bots::Bot;
use checkraise_core::driver::{Driver, Halt, ignore_steps};
use checkraise_core::table::{ActError, Acted, Choice, Match, Progress, SeatRules};
use checkraise_core::{Action, Game};
use numpy::{PyArray1, PyArrayDyn};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{CheckraiseError, OrRaise, to_py_err};
use crate::game::PyGame;
use crate::state::{PyState, legal_mask_of, observation_of};

/// Plays chance and bot seats of one game until a seat played from Python must decide: the
/// engine's one driver (the gRPC matches and the arena use it too). Every bot acts on a state
/// resampled from its own seat's information; at a simultaneous node each seat's choice is
/// held, hidden, until every seat has chosen.
///
/// ``bots[s]`` is a bot spec (``"heuristic"``, ``"ismcts(iterations=200)"``) for a bot seat,
/// or ``None`` for a seat played from Python. Chance draws from ``seed``; seat ``k``'s bot from
/// its own stream derived from ``seed``, as in a gRPC match with that seed.
#[pyclass(module = "checkraise._core", name = "Driver")]
pub struct PyDriver {
    game: Arc<dyn Game>,
    specs: Vec<Option<String>>,
    bots: Vec<Option<Box<dyn Bot>>>,
    driver: Driver,
}

/// The seats' bot specs as the engine writes them and their bots, from specs given in Python
/// (`None`: a seat played from Python, one entry per seat), seated by the rules of a local
/// face.
#[allow(clippy::type_complexity)]
fn seat_bots(
    game: &dyn Game,
    specs: &[Option<String>],
) -> PyResult<(Vec<Option<String>>, Vec<Option<Box<dyn Bot>>>)> {
    check_seat_count(game, specs.len())?;
    let rules = SeatRules::LOCAL;
    let seats = rules
        .seats(game, specs.iter().map(Option::as_deref))
        .map_err(|(_, e)| to_py_err(&e))?;
    let canonical = seats.iter().map(|s| rules.text(&s.spec)).collect();
    Ok((canonical, seats.into_iter().map(|s| s.bot).collect()))
}

/// The seats' bots as the driver takes them (`Some` for a seat the engine plays).
fn borrowed(bots: &[Option<Box<dyn Bot>>]) -> Vec<Option<&dyn Bot>> {
    bots.iter().map(|b| b.as_deref()).collect()
}

/// The error for `entries` bot specs given for `game`'s seats, unless there is one per seat.
fn check_seat_count(game: &dyn Game, entries: usize) -> PyResult<()> {
    let n = game.num_players();
    if entries == n {
        return Ok(());
    }
    Err(CheckraiseError::new_err(format!(
        "bots has {entries} entries; {} has {n} seats (give None for a seat played from \
         Python)",
        game.info().name
    )))
}

impl PyDriver {
    /// A driver of `game` with bot specs `specs` (`None`: a seat played from Python).
    fn with(game: Arc<dyn Game>, specs: Vec<Option<String>>, driver: Driver) -> PyResult<Self> {
        let (canonical, bots) = seat_bots(game.as_ref(), &specs)?;
        let n = game.num_players();
        if driver.seats() != Some(n) {
            // Only a driver read back from a pickle can disagree.
            return Err(CheckraiseError::new_err(format!(
                "not a driver of {}'s {n} seats",
                game.info().name
            )));
        }
        Ok(PyDriver {
            game,
            specs: canonical,
            bots,
            driver,
        })
    }

    fn check_state(&self, state: &PyState) -> PyResult<()> {
        let (mine, theirs) = (self.game.as_ref(), state.game.as_ref());
        if mine.info().name != theirs.info().name || mine.params() != theirs.params() {
            return Err(CheckraiseError::new_err(format!(
                "this driver plays {}({}), not {}({})",
                mine.info().name,
                mine.params().to_text(),
                theirs.info().name,
                theirs.params().to_text()
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl PyDriver {
    #[new]
    #[pyo3(signature = (game, bots, seed=0))]
    fn new(game: &Bound<'_, PyAny>, bots: Vec<Option<String>>, seed: u64) -> PyResult<Self> {
        let game = PyGame::resolve(game, None)?;
        let n = game.num_players();
        PyDriver::with(game, bots, Driver::from_seed(seed, n))
    }

    /// Plays chance and the bot seats until a seat played from Python must decide
    /// (``"decide"``) or the game ends (``"over"``). The GIL is released while bots think.
    fn advance(&mut self, py: Python<'_>, state: &mut PyState) -> PyResult<&'static str> {
        self.check_state(state)?;
        let bots = borrowed(&self.bots);
        let (driver, engine) = (&mut self.driver, &mut state.state);
        let halt = py
            .detach(|| driver.advance(engine.as_mut(), &bots, None, &mut ignore_steps))
            .or_raise()?;
        Ok(match halt {
            Halt::Over => "over",
            _ => "decide",
        })
    }

    /// Plays ``seat``'s decision: applied at once at its turn; at a simultaneous node held
    /// until every seat has chosen. Chance after it is resolved. Raises for a seat out of
    /// turn, a second choice at one node, or an illegal action.
    fn play(&mut self, state: &mut PyState, seat: usize, action: Action) -> PyResult<()> {
        self.check_state(state)?;
        self.driver
            .play(state.state.as_mut(), seat, action, &mut ignore_steps)
            .or_raise()
    }

    /// Whether ``seat`` has chosen at the current simultaneous node.
    fn has_chosen(&self, seat: usize) -> bool {
        self.driver.has_chosen(seat)
    }

    /// Pickles (and copies) as the game, the seats' bot specs and the driver's streams and
    /// held choices: the copy continues exactly as this driver would.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let restore = py.import("checkraise._core")?.getattr("_restore_driver")?;
        let game = Bound::new(py, PyGame::new(self.game.clone()))?;
        let state = serde_json::to_string(&self.driver).expect("a driver serializes");
        let args = (game, self.specs.clone(), state).into_pyobject(py)?;
        Ok((restore, args))
    }

    fn __repr__(&self) -> String {
        let seats: Vec<String> = self
            .bots
            .iter()
            .map(|b| b.as_ref().map_or("None".to_string(), |b| b.spec()))
            .collect();
        format!(
            "<checkraise.Driver for {} seats=[{}]>",
            self.game.info().name,
            seats.join(", ")
        )
    }
}

/// Unpickles a `Driver` from its game, bot specs and state.
#[pyfunction]
pub fn _restore_driver(
    game: &Bound<'_, PyAny>,
    bots: Vec<Option<String>>,
    state: &str,
) -> PyResult<PyDriver> {
    let game = PyGame::resolve(game, None)?;
    let driver: Driver = serde_json::from_str(state)
        .map_err(|e| CheckraiseError::new_err(format!("not a driver's state: {e}")))?;
    PyDriver::with(game, bots, driver)
}

/// A game in play against the engine's bots, as every face plays one (core's `table::Match`):
/// its state, the driver that plays chance and the bot seats, a version counting the decision
/// steps applied, each seat's latest decision, and each seat's reward since it last took it.
///
/// ``bots[s]`` is a bot spec for a seat the engine plays, or ``None`` for a seat played from
/// Python. Chance draws from ``seed``; seat ``k``'s bot from its own stream derived from
/// ``seed``, as in a gRPC match with that seed. ``start()`` deals and lets the bots play up
/// to the first decision from Python; ``act`` plays a seat's action and lets the bots play
/// again. The GIL is released while bots think.
#[pyclass(module = "checkraise._core", name = "Match")]
pub struct PyMatch {
    game: Arc<dyn Game>,
    specs: Vec<Option<String>>,
    bots: Vec<Option<Box<dyn Bot>>>,
    play: Match,
    started: bool,
}

/// What `start` and `advance` say: a seat played from Python must decide, or the game is over.
fn halt_word(halt: Halt) -> &'static str {
    match halt {
        Halt::Over => "over",
        _ => "decide",
    }
}

/// An `ActError` as the Python exception a caller expects: the game's refusals as
/// `State.apply_action` raises them, a stale or conflicting retry as `CheckraiseError`, a
/// bot's failure (an engine fault) as `RuntimeError`.
fn act_error(e: ActError) -> PyErr {
    match e {
        ActError::Game(e) => to_py_err(&e),
        ActError::Bot(e) => PyRuntimeError::new_err(format!("a bot could not act: {e}")),
        e => CheckraiseError::new_err(e.to_string()),
    }
}

impl PyMatch {
    fn check_started(&self) -> PyResult<()> {
        if self.started {
            Ok(())
        } else {
            Err(CheckraiseError::new_err(
                "the match has not started: call start() first",
            ))
        }
    }

    fn check_seat(&self, seat: usize) -> PyResult<()> {
        let n = self.game.num_players();
        if seat >= n {
            return Err(crate::errors::InvalidSeatError::new_err(format!(
                "seat {seat} is out of range: {} has seats 0 to {}",
                self.game.info().name,
                n - 1
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl PyMatch {
    #[new]
    #[pyo3(signature = (game, bots, seed=0))]
    fn new(game: &Bound<'_, PyAny>, bots: Vec<Option<String>>, seed: u64) -> PyResult<Self> {
        let game = PyGame::resolve(game, None)?;
        let (specs, seated) = seat_bots(game.as_ref(), &bots)?;
        let n = game.num_players();
        let play = Match::new(game.new_initial_state(), Driver::from_seed(seed, n));
        Ok(PyMatch {
            game,
            specs,
            bots: seated,
            play,
            started: false,
        })
    }

    /// Deals, then lets the bots play up to the first decision of a seat played from Python
    /// (``"decide"``) or the end (``"over"``, a game that ended before any such decision).
    /// Each seat's reward counts from here.
    fn start(&mut self, py: Python<'_>) -> PyResult<&'static str> {
        if self.started {
            return Err(CheckraiseError::new_err("the match has started already"));
        }
        self.started = true;
        let bots = borrowed(&self.bots);
        let play = &mut self.play;
        let halt = py
            .detach(|| play.start(&bots, None, &mut |_, _, _| {}))
            .map_err(act_error)?;
        Ok(halt_word(halt))
    }

    /// Lets chance and the bots act until a seat played from Python must decide
    /// (``"decide"``) or the game ends (``"over"``): after ``decide``.
    fn advance(&mut self, py: Python<'_>) -> PyResult<&'static str> {
        self.check_started()?;
        let bots = borrowed(&self.bots);
        let play = &mut self.play;
        let halt = py
            .detach(|| play.advance(&bots, None, &mut |_, _, _| {}))
            .map_err(act_error)?;
        Ok(halt_word(halt))
    }

    /// Plays ``seat``'s action (an id, or its text), then lets chance and the bots act up to
    /// the next decision from Python. With ``expected_version`` (the version the action was
    /// chosen at) it is retry-safe: the same decision again is ``"already_applied"``, not
    /// applied twice; another action at that version, or a version the match has moved past
    /// without this seat, raises. Returns ``"applied"`` or ``"already_applied"``.
    #[pyo3(signature = (seat, action, expected_version=None))]
    fn act(
        &mut self,
        py: Python<'_>,
        seat: usize,
        action: &Bound<'_, PyAny>,
        expected_version: Option<u64>,
    ) -> PyResult<&'static str> {
        self.check_started()?;
        self.check_seat(seat)?;
        let choice = if let Ok(text) = action.extract::<String>() {
            Choice::Text(text)
        } else {
            Choice::Id(action.extract::<Action>()?)
        };
        let bots = borrowed(&self.bots);
        let play = &mut self.play;
        let acted = py
            .detach(|| {
                play.act(
                    seat,
                    &choice,
                    expected_version,
                    &bots,
                    None,
                    &mut |_, _, _| {},
                )
            })
            .map_err(act_error)?;
        Ok(match acted {
            Acted::Applied => "applied",
            Acted::AlreadyApplied => "already_applied",
        })
    }

    /// Plays ``seat``'s decision without letting the bots act (``advance`` does): applied at
    /// once at its turn; at a simultaneous node held, hidden, until every seat has chosen.
    /// Returns whether the choice is held. Raises for a seat out of turn, a second choice at
    /// one node, or an illegal action.
    fn decide(&mut self, seat: usize, action: Action) -> PyResult<bool> {
        self.check_started()?;
        self.check_seat(seat)?;
        self.play
            .decide(seat, action, &mut |_, _, _| {})
            .map_err(|e| to_py_err(&e))
    }

    /// The change of ``seat``'s return since it last took its reward (since ``start``, at
    /// first), and takes it: what a learner is paid for its last decision and everything
    /// the bots and chance did after it.
    fn take_reward(&mut self, seat: usize) -> PyResult<f64> {
        self.check_seat(seat)?;
        Ok(self.play.take_reward(seat))
    }

    /// The seats played from Python that must decide now: the player to move, or at a
    /// simultaneous node each such seat that has not chosen; empty once the game is over.
    fn waiting(&self) -> Vec<usize> {
        if !self.started {
            return Vec::new();
        }
        self.play.waiting(&borrowed(&self.bots))
    }

    /// Whether ``seat`` has chosen at the current simultaneous node.
    fn has_chosen(&self, seat: usize) -> bool {
        self.play.has_chosen(seat)
    }

    /// The number of decision steps applied (a seat's action, or a joint action).
    #[getter]
    fn version(&self) -> u64 {
        self.play.version()
    }

    /// ``seat``'s latest decision as ``(version, action, text)``, or ``None``.
    fn decision(&self, seat: usize) -> Option<(u64, Action, String)> {
        self.play
            .decision(seat)
            .map(|d| (d.version, d.action, d.text.clone()))
    }

    /// The game.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame::new(self.game.clone())
    }

    /// The seats' bot specs as the engine writes them (``None``: played from Python).
    #[getter]
    fn bot_specs(&self) -> Vec<Option<String>> {
        self.specs.clone()
    }

    /// A copy of the state (everything, hidden cards included: for tests, rendering and
    /// spectators, not for agents). Changing the copy does not change the match.
    fn state(&self) -> PyState {
        PyState::new(self.game.clone(), self.play.state().clone_box())
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.play.state().is_terminal()
    }

    /// Each seat's return so far.
    fn returns(&self) -> Vec<f64> {
        self.play.state().returns()
    }

    /// ``seat``'s observation (float32, ``game.observation_shape()``), without copying the
    /// state.
    fn observation<'py>(
        &self,
        py: Python<'py>,
        seat: usize,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.check_seat(seat)?;
        observation_of(py, self.game.as_ref(), self.play.state(), Some(seat as i64))
    }

    /// ``seat``'s legal actions as a bool mask of ``num_distinct_actions``.
    fn action_mask<'py>(
        &self,
        py: Python<'py>,
        seat: usize,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        self.check_seat(seat)?;
        legal_mask_of(py, self.game.as_ref(), self.play.state(), Some(seat as i64))
    }

    /// Pickles (and copies) as the game, the bot specs, the state and the match's progress
    /// (driver streams, held choices, version, decisions, rewards taken): the copy continues
    /// exactly as this match would.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let restore = py.import("checkraise._core")?.getattr("_restore_match")?;
        let game = Bound::new(py, PyGame::new(self.game.clone()))?;
        let progress = serde_json::to_string(&self.play.progress()).expect("progress serializes");
        let args = (
            game,
            self.specs.clone(),
            self.play.state().serialize(),
            progress,
            self.started,
        )
            .into_pyobject(py)?;
        Ok((restore, args))
    }

    fn __repr__(&self) -> String {
        let seats: Vec<String> = self
            .specs
            .iter()
            .map(|s| s.clone().unwrap_or_else(|| "None".to_string()))
            .collect();
        format!(
            "<checkraise.Match of {} seats=[{}] version={}>",
            self.game.info().name,
            seats.join(", "),
            self.play.version()
        )
    }
}

/// Unpickles a `Match` from its game, bot specs, state and progress.
#[pyfunction]
pub fn _restore_match(
    game: &Bound<'_, PyAny>,
    bots: Vec<Option<String>>,
    state: &str,
    progress: &str,
    started: bool,
) -> PyResult<PyMatch> {
    let game = PyGame::resolve(game, None)?;
    let (specs, seated) = seat_bots(game.as_ref(), &bots)?;
    let state = game.deserialize_state(state).or_raise()?;
    let progress: Progress = serde_json::from_str(progress)
        .map_err(|e| CheckraiseError::new_err(format!("not a match's progress: {e}")))?;
    let play =
        Match::resume(state, progress).map_err(|e| CheckraiseError::new_err(e.to_string()))?;
    Ok(PyMatch {
        game,
        specs,
        bots: seated,
        play,
        started,
    })
}
