//! Bots: the engine's random, heuristic, IS-MCTS and policy players, for any game, from bot
//! specs.

use std::sync::Arc;

use checkraise_core::Game;
use checkraise_core::bots::{self, Bot, BotSpec, IsmctsBot};
use checkraise_core::game::check_turn;
use checkraise_core::{Action, GameError, GameRng, Player, State};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::convert;
use crate::errors::{CheckraiseError, OrRaise, ParameterError};
use crate::state::PyState;

/// The seat a bot plays: the given one, or the current player; it must be allowed to act.
fn acting_seat(state: &dyn State, seat: Option<i64>) -> PyResult<usize> {
    let seat = match seat {
        Some(s) => convert::seat(state, s)?,
        None => match state.current_player() {
            Player::Seat(s) => s,
            Player::Simultaneous => {
                return Err(CheckraiseError::new_err(
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

/// Keyword bot settings as the (name, value) strings `BotSpec::parse` reads: ints, floats and
/// strs (and numpy scalars, which convert to them); `None` leaves a setting as it is.
fn settings_from_py(
    kind: &str,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<(String, String)>> {
    let Some(kwargs) = kwargs else {
        return Ok(Vec::new());
    };
    let bot = kind.split('(').next().unwrap_or(kind).trim();
    let mut pairs = Vec::with_capacity(kwargs.len());
    for (key, value) in kwargs.iter() {
        let name: String = key.extract()?;
        if value.is_none() {
            continue;
        }
        // bool first: a Python bool is also an int, and no setting is a bool.
        let text = if value.is_instance_of::<PyBool>() {
            None
        } else if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
            Some(value.str()?.to_string())
        } else if value.is_instance_of::<PyString>() {
            Some(value.extract::<String>()?)
        } else if let Ok(index) = value.call_method0("__index__") {
            // numpy integers
            Some(index.str()?.to_string())
        } else if let Ok(number) = value.call_method0("__float__") {
            // numpy floats
            Some(number.str()?.to_string())
        } else {
            None
        };
        let Some(text) = text else {
            return Err(ParameterError::new_err(format!(
                "setting '{name}' of bot '{bot}' must be an int, float or str, not {}",
                value.get_type().name()?
            )));
        };
        pairs.push((name, text));
    }
    Ok(pairs)
}

/// A validated spec from a kind or spec string and keyword settings.
fn parse_spec(kind: &str, settings: Option<&Bound<'_, PyDict>>) -> PyResult<BotSpec> {
    let pairs = settings_from_py(kind, settings)?;
    BotSpec::parse(kind, pairs).or_raise()
}

/// Checks that `seat` has a legal action at `state` (what `Bot::try_act` checks before it
/// acts), so a search never starts where the seat may not act.
fn check_can_act(state: &dyn State, seat: usize) -> PyResult<()> {
    if state.is_terminal() {
        return Err(GameError::GameOver {
            state: state.describe(),
        })
        .or_raise();
    }
    if state.legal_actions_for(Player::Seat(seat)).is_empty() {
        return Err(GameError::OutOfTurn {
            player: Player::Seat(seat),
            to_act: state.current_player(),
            state: state.describe(),
        })
        .or_raise();
    }
    Ok(())
}

/// A bot for one game, from a bot spec: `random`, `heuristic` (the game's baseline bot),
/// `ismcts`, or `ismcts(iterations=2000,rollout=random)`; keyword settings override the
/// string's (`Bot(game, "ismcts", iterations=2000)`).
///
/// The bot keeps its own generator seeded with `seed`, so a sequence of `act` calls is
/// reproducible. (An IS-MCTS bot with a `seed` setting in its spec searches every move from
/// that seed instead of drawing one from the generator.)
#[pyclass(module = "checkraise._core", name = "Bot")]
pub struct PyBot {
    bot: Box<dyn Bot>,
    spec: BotSpec,
    /// The same bot again when it searches (for `search`).
    ismcts: Option<IsmctsBot>,
    game: &'static str,
    /// The game it was made for, parameters included (a policy plays only that one).
    full_game: Arc<dyn Game>,
    rng: GameRng,
}

impl PyBot {
    /// The bot's spec, every setting written out (as the `spec` property gives it).
    pub(crate) fn spec_string(&self) -> String {
        self.spec.to_string()
    }

    fn check_game(&self, state: &PyState) -> PyResult<()> {
        if state.game.info().name != self.game {
            return Err(CheckraiseError::new_err(format!(
                "this bot plays {}, not {}",
                self.game,
                state.game.info().name
            )));
        }
        if matches!(self.spec, BotSpec::Policy { .. } | BotSpec::Solved(_))
            && state.game.params() != self.full_game.params()
        {
            return Err(CheckraiseError::new_err(format!(
                "this {} bot plays {}, not {}",
                self.spec.kind(),
                convert::game_string(self.full_game.as_ref()),
                convert::game_string(state.game.as_ref())
            )));
        }
        Ok(())
    }

    /// The bot of `spec` for game `game`, drawing from `rng`.
    fn from_spec(game: Arc<dyn Game>, spec: BotSpec, rng: GameRng) -> PyResult<Self> {
        let ismcts = match &spec {
            BotSpec::Ismcts(config) => {
                Some(IsmctsBot::for_game(config.clone(), game.as_ref()).or_raise()?)
            }
            BotSpec::BestResponse { target, config } => {
                Some(IsmctsBot::best_response(config.clone(), *target, game.as_ref()).or_raise()?)
            }
            _ => None,
        };
        Ok(PyBot {
            bot: spec.build(game.as_ref()).or_raise()?,
            spec,
            ismcts,
            game: game.info().name,
            full_game: game,
            rng,
        })
    }
}

#[pymethods]
impl PyBot {
    #[new]
    #[pyo3(signature = (game, kind="heuristic", seed=0, **settings))]
    fn new(
        game: &Bound<'_, PyAny>,
        kind: &str,
        seed: u64,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let game = crate::game::PyGame::resolve(game, None)?;
        let spec = parse_spec(kind, settings)?;
        PyBot::from_spec(game, spec, GameRng::new(seed))
    }

    /// The bot's kind (`random`, `heuristic` or `ismcts`).
    #[getter]
    fn kind(&self) -> &'static str {
        self.bot.name()
    }

    /// The bot's canonical spec string, every setting included
    /// (`ismcts(iterations=2000,c=0.7,rollout=heuristic)`): `Bot(game, bot.spec)` is the
    /// same bot.
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    /// The action the bot takes for `seat` (default: the current player) at `state`. The bot
    /// decides on a state resampled from the seat's information state (drawing from its own
    /// generator), never on the true one, so it sees only what the seat may know.
    ///
    /// At a simultaneous node it gives that seat's part of the joint action. The GIL is
    /// released while the bot thinks.
    #[pyo3(signature = (state, seat=None))]
    fn act(&mut self, py: Python<'_>, state: &PyState, seat: Option<i64>) -> PyResult<Action> {
        self.check_game(state)?;
        let engine_state = state.state.as_ref();
        let seat = acting_seat(engine_state, seat)?;
        let (bot, rng) = (&self.bot, &mut self.rng);
        py.detach(|| bot.try_act(engine_state, seat, rng))
            .or_raise()
    }

    /// An IS-MCTS bot's search for `seat` (default: the current player) at `state`: a dict
    /// with the chosen `action`, the `iterations` run, the `nodes` of the tree and `root`, a
    /// list of `(action, visits, mean return)` for each of the seat's legal actions.
    ///
    /// Draws from the bot's generator exactly as `act` does, so `search(...)["action"]` is the
    /// action `act` would have taken. The GIL is released while searching.
    #[pyo3(signature = (state, seat=None))]
    fn search<'py>(
        &mut self,
        py: Python<'py>,
        state: &PyState,
        seat: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let Some(ismcts) = &self.ismcts else {
            return Err(CheckraiseError::new_err(format!(
                "search() needs an IS-MCTS bot (kind 'ismcts'); this bot is '{}'",
                self.bot.name()
            )));
        };
        self.check_game(state)?;
        let engine_state = state.state.as_ref();
        let seat = acting_seat(engine_state, seat)?;
        check_can_act(engine_state, seat)?;
        let rng = &mut self.rng;
        // As `act` does: the search starts from what the seat may know.
        let result = py.detach(|| {
            let seen = bots::seen_by(engine_state, seat, rng);
            ismcts.search(seen.as_ref(), seat, rng)
        });
        let dict = PyDict::new(py);
        dict.set_item("action", result.action)?;
        dict.set_item("iterations", result.iterations)?;
        dict.set_item("nodes", result.nodes)?;
        dict.set_item("deals", result.deals)?;
        let root = PyList::empty(py);
        for (action, visits, mean) in result.root {
            root.append(PyTuple::new(
                py,
                [
                    action.into_pyobject(py)?.into_any(),
                    visits.into_pyobject(py)?.into_any(),
                    mean.into_pyobject(py)?.into_any(),
                ],
            )?)?;
        }
        dict.set_item("root", root)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!("<checkraise.Bot {} for {}>", self.spec, self.game)
    }

    /// Pickles (and copies) as the game, the canonical spec and the generator's state: the
    /// copy decides exactly as this bot would.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let restore = py.import("checkraise._core")?.getattr("_restore_bot")?;
        let rng = serde_json::to_string(&self.rng).expect("a generator serializes");
        let game = convert::game_string(self.full_game.as_ref());
        let args = (game, self.spec.to_string(), rng).into_pyobject(py)?;
        Ok((restore, args))
    }
}

/// The action a bot of `kind` (a bot spec: `heuristic`, `random`, `ismcts(iterations=200)`;
/// keyword settings override the string's) seeded with `seed` takes for `seat` (default: the
/// current player) at `state`.
#[pyfunction]
#[pyo3(signature = (state, seat=None, kind="heuristic", seed=0, **settings))]
pub fn bot_action(
    py: Python<'_>,
    state: &PyState,
    seat: Option<i64>,
    kind: &str,
    seed: u64,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Action> {
    let bot = parse_spec(kind, settings)?
        .build(state.game.as_ref())
        .or_raise()?;
    let engine_state = state.state.as_ref();
    let seat = acting_seat(engine_state, seat)?;
    let mut rng = GameRng::new(seed);
    py.detach(|| bot.try_act(engine_state, seat, &mut rng))
        .or_raise()
}

/// The bot kinds and their settings: one dict per kind, `{"kind": ..., "settings": [{"name",
/// "allowed", "default", "description"}, ...]}` (`default` is text; `none`: not set).
#[pyfunction(name = "bots")]
pub fn bot_catalog(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for kind in bots::BOT_KINDS {
        let entry = PyDict::new(py);
        entry.set_item("kind", kind)?;
        let settings = PyList::empty(py);
        for param in bots::bot_params(kind) {
            let setting = PyDict::new(py);
            setting.set_item("name", param.name)?;
            setting.set_item("allowed", param.allowed)?;
            setting.set_item("default", param.default)?;
            setting.set_item("description", param.description)?;
            settings.append(setting)?;
        }
        entry.set_item("settings", settings)?;
        list.append(entry)?;
    }
    Ok(list)
}

/// Unpickles a `Bot` from its game (a name or game string), spec and generator state.
#[pyfunction]
pub fn _restore_bot(game: &str, spec: &str, rng: &str) -> PyResult<PyBot> {
    let game = checkraise_core::registry::make_game_from_string(game).or_raise()?;
    let spec = BotSpec::parse::<&str, &str>(spec, []).or_raise()?;
    let rng: GameRng = serde_json::from_str(rng)
        .map_err(|e| CheckraiseError::new_err(format!("not a bot's generator state: {e}")))?;
    PyBot::from_spec(game, spec, rng)
}

/// The bytes of the policy file the engine ships for game `name` (the bot spec `policy`);
/// `checkraise.policy.Policy.shipped` reads them with numpy.
#[pyfunction]
pub fn shipped_policy<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyBytes>> {
    let entry = checkraise_core::registry::entry(name).or_raise()?;
    let bytes = entry.policy.ok_or_else(|| {
        CheckraiseError::new_err(format!("no policy is shipped for {}", entry.info.name))
    })?;
    Ok(PyBytes::new(py, bytes))
}
