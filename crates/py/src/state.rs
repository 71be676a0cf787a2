//! `State`: one position of a game, with pyspiel's method names and conventions.

use std::sync::Arc;

use checkraise_core::env::{GameRng, resolve_chance};
use checkraise_core::game::check_turn;
use checkraise_core::{Action, Game, GameError, Player, State};
use numpy::{IntoPyArray, PyArray1, PyArrayDyn, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::convert;
use crate::errors::OrRaise;
use crate::game::PyGame;

/// A position of a game. Methods follow OpenSpiel's `pyspiel.State`.
#[pyclass(module = "checkraise._core", name = "State")]
pub struct PyState {
    /// The game the state belongs to.
    pub game: Arc<dyn Game>,
    /// The engine's state.
    pub state: Box<dyn State>,
}

impl PyState {
    /// Wraps an engine state of `game`.
    pub fn new(game: Arc<dyn Game>, state: Box<dyn State>) -> Self {
        PyState { game, state }
    }

    fn action_id(&self, action: i64) -> PyResult<Action> {
        convert::action_id(self.state.as_ref(), self.game.as_ref(), action)
    }

    /// The player and action of a call written `f(player, x)` or `f(x)` (current player).
    fn player_and<'a, 'py>(
        &self,
        first: &'a Bound<'py, PyAny>,
        second: Option<&'a Bound<'py, PyAny>>,
    ) -> PyResult<(Player, &'a Bound<'py, PyAny>)> {
        match second {
            Some(second) => {
                let id: i64 = first.extract()?;
                Ok((convert::player(self.state.as_ref(), Some(id))?, second))
            }
            None => Ok((self.state.current_player(), first)),
        }
    }
}

#[pymethods]
impl PyState {
    /// Who acts now: a seat, or −1 chance, −2 simultaneous, −4 terminal.
    fn current_player(&self) -> i64 {
        self.state.current_player().id()
    }

    /// Number of seats.
    fn num_players(&self) -> usize {
        self.state.num_players()
    }

    /// The game this state belongs to.
    fn get_game(&self) -> PyGame {
        PyGame::new(self.game.clone())
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.state.is_terminal()
    }

    /// Whether nature acts now.
    fn is_chance_node(&self) -> bool {
        self.state.is_chance_node()
    }

    /// Whether all seats choose at once now (use `apply_actions`).
    fn is_simultaneous_node(&self) -> bool {
        self.state.is_simultaneous_node()
    }

    /// Whether a single seat acts now.
    fn is_player_node(&self) -> bool {
        matches!(self.state.current_player(), Player::Seat(_))
    }

    /// The chance outcomes here and their probabilities (summing to 1), as (action, prob).
    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        self.state.chance_outcomes()
    }

    /// Legal actions, sorted: of `player` (a seat or −1 for chance), or of the current player.
    ///
    /// A seat that is not to act has none; so does everyone at a terminal state.
    #[pyo3(signature = (player=None))]
    fn legal_actions(&self, player: Option<i64>) -> PyResult<Vec<Action>> {
        legal_actions_of(self.state.as_ref(), player)
    }

    /// The legal actions as a numpy bool mask of length `num_distinct_actions()` (chance:
    /// `max_chance_outcomes()`), of `player` or of the current player.
    #[pyo3(signature = (player=None))]
    fn legal_actions_mask<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        legal_mask_of(py, self.game.as_ref(), self.state.as_ref(), player)
    }

    /// The action mask (the mask's one name in every face): the same as
    /// `legal_actions_mask`, OpenSpiel's name for it.
    #[pyo3(signature = (player=None))]
    fn action_mask<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        legal_mask_of(py, self.game.as_ref(), self.state.as_ref(), player)
    }

    /// Applies the current player's action (or a chance outcome at a chance node).
    ///
    /// With `player`, first checks that it is that seat's turn. An illegal or out-of-turn
    /// action raises and leaves the state unchanged.
    #[pyo3(signature = (action, player=None))]
    fn apply_action(&mut self, action: i64, player: Option<i64>) -> PyResult<()> {
        if let Some(player) = player {
            let player = convert::player(self.state.as_ref(), Some(player))?;
            check_turn(self.state.as_ref(), player).or_raise()?;
        }
        let action = self.action_id(action)?;
        self.state.apply_action(action).or_raise()
    }

    /// Applies a joint action (one action per seat, seat order) at a simultaneous node.
    fn apply_actions(&mut self, actions: Vec<i64>) -> PyResult<()> {
        let expected = self.state.num_players();
        if actions.len() != expected {
            return Err(GameError::BadBuffer {
                what: "joint action",
                got: actions.len(),
                expected,
            })
            .or_raise();
        }
        let actions = actions
            .into_iter()
            .map(|a| self.action_id(a))
            .collect::<PyResult<Vec<_>>>()?;
        self.state.apply_actions(&actions).or_raise()
    }

    /// Each seat's total return so far (final at a terminal state).
    fn returns(&self) -> Vec<f64> {
        self.state.returns()
    }

    /// Seat `player`'s return so far.
    fn player_return(&self, player: i64) -> PyResult<f64> {
        let seat = convert::seat(self.state.as_ref(), player)?;
        Ok(self.state.returns()[seat])
    }

    /// Each seat's reward from the last action.
    fn rewards(&self) -> Vec<f64> {
        self.state.rewards()
    }

    /// Every action applied so far, chance outcomes included, as a list of ids (as pyspiel).
    fn history(&self) -> Vec<Action> {
        self.state.history().iter().map(|h| h.action).collect()
    }

    /// Every action applied so far as (player, action) pairs; chance is −1.
    fn full_history(&self) -> Vec<(i64, Action)> {
        self.state
            .history()
            .iter()
            .map(|h| (h.player.id(), h.action))
            .collect()
    }

    /// Number of actions applied so far, chance included.
    fn move_number(&self) -> usize {
        self.state.history().len()
    }

    /// A readable name for an action: `action_to_string(player, action)`, or
    /// `action_to_string(action)` for the current player.
    #[pyo3(signature = (player_or_action, action=None, /))]
    fn action_to_string(
        &self,
        player_or_action: &Bound<'_, PyAny>,
        action: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let (player, action) = self.player_and(player_or_action, action)?;
        let action = self.action_id(action.extract()?)?;
        Ok(self.state.action_to_string(player, action))
    }

    /// The action a string names: `string_to_action(player, text)`, or
    /// `string_to_action(text)` for the current player.
    #[pyo3(signature = (player_or_text, text=None, /))]
    fn string_to_action(
        &self,
        player_or_text: &Bound<'_, PyAny>,
        text: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Action> {
        let (player, text) = self.player_and(player_or_text, text)?;
        let text = text.cast::<PyString>()?.to_cow()?;
        self.state.string_to_action(player, &text).or_raise()
    }

    /// Seat `player`'s observation (default: the current player) as a float32 array of
    /// `game.observation_shape()`.
    #[pyo3(signature = (player=None))]
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        observation_of(py, self.game.as_ref(), self.state.as_ref(), player)
    }

    /// Seat `player`'s observation (default: the current player) as a compact row: uint8,
    /// `game.compact_layout()["row_bytes"]` long (`checkraise.unpack_observations` gives the
    /// float32 observation back exactly; docs/observations.md).
    #[pyo3(signature = (player=None))]
    fn observation_compact<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        observation_compact_of(py, self.game.as_ref(), self.state.as_ref(), player)
    }

    /// The same as `observation_tensor(player)`.
    #[pyo3(signature = (player=None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        self.observation_tensor(py, player)
    }

    /// Seat `player`'s current observation (default: the current player) as text.
    #[pyo3(signature = (player=None))]
    fn observation_string(&self, player: Option<i64>) -> PyResult<String> {
        let seat = convert::observer(self.state.as_ref(), player)?;
        Ok(self.state.observation_string(seat))
    }

    /// Seat `player`'s information state (everything it has observed, in order) as text.
    #[pyo3(signature = (player=None))]
    fn information_state_string(&self, player: Option<i64>) -> PyResult<String> {
        let seat = convert::observer(self.state.as_ref(), player)?;
        Ok(self.state.information_state_string(seat))
    }

    /// Seat `player`'s information state (default: the current player) as a float32 array
    /// of `game.information_state_tensor_shape()`: a fixed-size tensor with perfect recall —
    /// the current observation, then one row per history entry (who acted and what this seat
    /// saw of it), zeros past the end. It depends on nothing the seat may not see.
    #[pyo3(signature = (player=None))]
    fn information_state_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let seat = convert::observer(self.state.as_ref(), player)?;
        let mut tensor = vec![0.0f32; self.game.information_state_tensor_size()];
        self.state.information_state_tensor(seat, &mut tensor);
        tensor
            .into_pyarray(py)
            .reshape(self.game.information_state_tensor_shape())
    }

    /// A structured view as a dict: what seat `player` may know, or public information only
    /// when `player` is None (a spectator).
    #[pyo3(signature = (player=None))]
    fn view<'py>(&self, py: Python<'py>, player: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        let viewer = match player {
            Some(p) => Some(convert::seat(self.state.as_ref(), p)?),
            None => None,
        };
        convert::json_to_py(py, &self.state.view(viewer))
    }

    /// The view of everyone as a dict: every seat's information together (every card a seat
    /// holds face up, `"everyone": True`), what a finished match's replay shows. For after
    /// the end: during a game it gives each seat the others' cards.
    fn everyone_view<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::json_to_py(py, &self.state.everyone_view())
    }

    /// Seat `player`'s `action` (default: the current player's) as the game's action struct,
    /// a dict (`docs/actions/<game>.schema.json`): the card, the cell, the squares, the
    /// amount, with no parsing of the action's text. `None` for an id outside the seat's
    /// action space.
    #[pyo3(signature = (action, player=None))]
    fn action_struct<'py>(
        &self,
        py: Python<'py>,
        action: Action,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let seat = convert::observer(self.state.as_ref(), player)?;
        match self.state.action_struct(seat, action) {
            Some(value) => convert::json_to_py(py, &value),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// The legal action of seat `player` (default: the current player) whose action struct has
    /// every field of `fields` (a dict) with the same value: `{"card": "Kd", "x": 1, "y": 0}`.
    /// Raises ``ActionStringError`` when it matches no legal action, or several.
    #[pyo3(signature = (fields, player=None))]
    fn action_from_struct(
        &self,
        fields: &Bound<'_, PyAny>,
        player: Option<i64>,
    ) -> PyResult<Action> {
        let seat = convert::observer(self.state.as_ref(), player)?;
        let value = convert::py_to_json(fields)?;
        checkraise_core::game::action_from_struct(self.state.as_ref(), seat, &value).or_raise()
    }

    /// A state consistent with everything seat `player` knows, the rest resampled from `seed`.
    fn resample_from_infostate(&self, player: i64, seed: u64) -> PyResult<PyState> {
        let seat = convert::seat(self.state.as_ref(), player)?;
        let mut rng = GameRng::new(seed);
        let state = self.state.resample_from_infostate(seat, &mut rng);
        Ok(PyState::new(self.game.clone(), state))
    }

    /// Applies chance outcomes sampled from `seed` until a decision point or the end, and
    /// returns the outcomes applied (none if this is not a chance node).
    fn sample_chance(&mut self, seed: u64) -> Vec<Action> {
        let before = self.state.history().len();
        let mut rng = GameRng::new(seed);
        resolve_chance(self.state.as_mut(), &mut rng);
        self.state.history()[before..]
            .iter()
            .map(|h| h.action)
            .collect()
    }

    /// An independent copy.
    fn clone(&self) -> PyState {
        PyState::new(self.game.clone(), self.state.clone_box())
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyDict>) -> PyState {
        self.clone()
    }

    /// The whole state as text; `game.deserialize_state(text)` reads it back.
    fn serialize(&self) -> String {
        self.state.serialize()
    }

    /// Pickles as the game and the serialized state.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let game = Bound::new(py, PyGame::new(self.game.clone()))?;
        Ok((
            game.getattr("deserialize_state")?,
            (self.state.serialize(),),
        ))
    }

    /// The board and hands as text.
    fn __str__(&self) -> String {
        self.state.to_string()
    }

    /// Jupyter's picture of the state from the spectator's side (public information only;
    /// hidden cards face down), drawn by `checkraise.render.svg`. Use
    /// `checkraise.render.picture(state, seat)` for a seat's side.
    fn _repr_svg_(slf: &Bound<'_, Self>) -> PyResult<String> {
        picture(slf, "svg")
    }

    /// The spectator's picture as an HTML fragment with a caption (`checkraise.render.html`).
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        picture(slf, "html")
    }

    fn __repr__(&self) -> String {
        format!(
            "<checkraise.State {}: {}>",
            self.game.info().name,
            self.state.describe()
        )
    }
}

/// The spectator's picture of `state` drawn by `checkraise.render.<kind>` (Python draws it
/// from the view; the binding only calls it).
fn picture(state: &Bound<'_, PyState>, kind: &str) -> PyResult<String> {
    state
        .py()
        .import("checkraise.render")?
        .call_method1(kind, (state,))?
        .extract()
}

/// The legal actions of `player` (default: the current player) at `state`; shared by `State`
/// and `Env`.
pub(crate) fn legal_actions_of(state: &dyn State, player: Option<i64>) -> PyResult<Vec<Action>> {
    Ok(match player {
        None => state.legal_actions(),
        Some(_) => state.legal_actions_for(convert::player(state, player)?),
    })
}

/// The legal-action mask of `player` (default: the current player) at `state` as a numpy bool
/// array: `num_distinct_actions` long, or `max_chance_outcomes` for chance.
pub(crate) fn legal_mask_of<'py>(
    py: Python<'py>,
    game: &dyn Game,
    state: &dyn State,
    player: Option<i64>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let player = convert::player(state, player)?;
    let len = match player {
        Player::Chance => game.max_chance_outcomes(),
        _ => game.num_distinct_actions(),
    };
    let mut mask = vec![false; len];
    if matches!(player, Player::Seat(_) | Player::Chance) {
        state.action_mask(player, &mut mask);
    }
    Ok(mask.into_pyarray(py))
}

/// Seat `player`'s observation (default: the current player) at `state`, float32 of the
/// game's shape.
/// Seat `player`'s compact observation row (default: the current player).
pub(crate) fn observation_compact_of<'py>(
    py: Python<'py>,
    game: &dyn Game,
    state: &dyn State,
    player: Option<i64>,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let seat = convert::observer(state, player)?;
    let layout = checkraise_core::compact::CompactLayout::for_game(game);
    let mut row = vec![0u8; layout.row_bytes()];
    layout.write(state, seat, &mut Vec::new(), &mut row);
    Ok(row.into_pyarray(py))
}

pub(crate) fn observation_of<'py>(
    py: Python<'py>,
    game: &dyn Game,
    state: &dyn State,
    player: Option<i64>,
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let seat = convert::observer(state, player)?;
    let mut tensor = vec![0.0f32; game.observation_size()];
    state.observation_tensor(seat, &mut tensor);
    tensor.into_pyarray(py).reshape(game.observation_shape())
}
