//! `Driver`: core's one driver, which plays chance and bot seats until a seat played from
//! Python must decide. The Gymnasium env advances its game with it.

use std::sync::Arc;

use checkraise_core::bots::Bot;
use checkraise_core::driver::{Driver, Halt, ignore_steps};
use checkraise_core::table::SeatRules;
use checkraise_core::{Action, Game};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{CheckraiseError, OrRaise, to_py_err};
use crate::game::PyGame;
use crate::state::PyState;

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

impl PyDriver {
    /// A driver of `game` with bot specs `specs` (`None`: a seat played from Python).
    fn with(game: Arc<dyn Game>, specs: Vec<Option<String>>, driver: Driver) -> PyResult<Self> {
        let n = game.num_players();
        if specs.len() != n || driver.seats() != Some(n) {
            return Err(CheckraiseError::new_err(format!(
                "bots has {} entries; {} has {n} seats (give None for a seat played from \
                 Python)",
                specs.len(),
                game.info().name
            )));
        }
        let rules = SeatRules::LOCAL;
        let seats = rules
            .seats(game.as_ref(), specs.iter().map(Option::as_deref))
            .map_err(|(_, e)| to_py_err(&e))?;
        let canonical = seats.iter().map(|s| rules.text(&s.spec)).collect();
        let bots = seats.into_iter().map(|s| s.bot).collect();
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
        let bots: Vec<Option<&dyn Bot>> = self.bots.iter().map(|b| b.as_deref()).collect();
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
