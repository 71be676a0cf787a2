//! Bots: the engine's random and heuristic players, for any game.

use checkraise_core::bots::{self, Bot};
use checkraise_core::game::check_turn;
use checkraise_core::{Action, GameRng, Player, State};
use pyo3::prelude::*;

use crate::convert;
use crate::errors::OrRaise;
use crate::state::PyState;

/// The seat a bot plays: the given one, or the current player; it must be allowed to act.
fn acting_seat(state: &dyn State, seat: Option<i64>) -> PyResult<usize> {
    let seat = match seat {
        Some(s) => convert::seat(state, s)?,
        None => match state.current_player() {
            Player::Seat(s) => s,
            Player::Simultaneous => {
                return Err(crate::errors::CheckraiseError::new_err(
                    "every seat acts at a simultaneous node: give the seat",
                ));
            }
            // Chance or terminal: the engine's out-of-turn or game-over error.
            _ => return check_turn(state, Player::Seat(0)).or_raise().map(|_| 0),
        },
    };
    if !state.is_simultaneous_node() {
        check_turn(state, Player::Seat(seat)).or_raise()?;
    }
    Ok(seat)
}

/// A bot for one game: `kind` is `heuristic` (the game's baseline bot) or `random`.
///
/// The bot keeps its own seeded generator, so a sequence of `act` calls is reproducible.
#[pyclass(module = "checkraise._core", name = "Bot")]
pub struct PyBot {
    bot: Box<dyn Bot>,
    game: &'static str,
    rng: GameRng,
}

#[pymethods]
impl PyBot {
    #[new]
    #[pyo3(signature = (game, kind="heuristic", seed=0))]
    fn new(game: &Bound<'_, PyAny>, kind: &str, seed: u64) -> PyResult<Self> {
        let game = crate::game::PyGame::resolve(game, None)?;
        let name = game.info().name;
        Ok(PyBot {
            bot: bots::make_bot(name, kind).or_raise()?,
            game: name,
            rng: GameRng::new(seed),
        })
    }

    /// The bot's kind (`heuristic` or `random`).
    #[getter]
    fn kind(&self) -> &'static str {
        self.bot.name()
    }

    /// The action the bot takes for `seat` (default: the current player) at `state`.
    ///
    /// At a simultaneous node it gives that seat's part of the joint action.
    #[pyo3(signature = (state, seat=None))]
    fn act(&mut self, py: Python<'_>, state: &PyState, seat: Option<i64>) -> PyResult<Action> {
        if state.game.info().name != self.game {
            return Err(crate::errors::CheckraiseError::new_err(format!(
                "this bot plays {}, not {}",
                self.game,
                state.game.info().name
            )));
        }
        let engine_state = state.state.as_ref();
        let seat = acting_seat(engine_state, seat)?;
        let (bot, rng) = (&self.bot, &mut self.rng);
        py.detach(|| bot.try_act(engine_state, seat, rng))
            .or_raise()
    }

    fn __repr__(&self) -> String {
        format!("<checkraise.Bot {} for {}>", self.bot.name(), self.game)
    }
}

/// The action a bot of `kind` (`heuristic` or `random`) seeded with `seed` takes for `seat`
/// (default: the current player) at `state`.
#[pyfunction]
#[pyo3(signature = (state, seat=None, kind="heuristic", seed=0))]
pub fn bot_action(
    py: Python<'_>,
    state: &PyState,
    seat: Option<i64>,
    kind: &str,
    seed: u64,
) -> PyResult<Action> {
    let bot = bots::make_bot(state.game.info().name, kind).or_raise()?;
    let engine_state = state.state.as_ref();
    let seat = acting_seat(engine_state, seat)?;
    let mut rng = GameRng::new(seed);
    py.detach(|| bot.try_act(engine_state, seat, &mut rng))
        .or_raise()
}
