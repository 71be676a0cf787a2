//! Conversions between engine values and Python objects: JSON views, parameters, game facts,
//! seats and action ids.

use checkraise_core::registry::{self, GameEntry, ParamValue, Params};
use checkraise_core::vocabulary::fact_word;
use checkraise_core::{Action, Game, GameError, GameInfo, Player, State};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};

use crate::errors::{IllegalActionError, OrRaise, ParameterError};

/// A Python value (dicts, lists, strings, numbers, booleans, `None`) as JSON, through
/// Python's own `json` module.
pub fn py_to_json(value: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let text: String = value
        .py()
        .import("json")?
        .call_method1("dumps", (value,))?
        .extract()?;
    serde_json::from_str(&text)
        .map_err(|e| crate::errors::CheckraiseError::new_err(format!("not JSON data: {e}")))
}

/// A JSON value as the matching Python object (dict, list, str, int, float, bool, None).
pub fn json_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)
            } else if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)
            }
        }
        Value::String(s) => s.into_bound_py_any(py),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            Ok(list.into_any())
        }
        Value::Object(fields) => {
            let dict = PyDict::new(py);
            for (key, item) in fields {
                dict.set_item(key, json_to_py(py, item)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

/// A validated parameter value as a Python int, bool or str (generic over the engine's value
/// kinds: the serialized value is `{"Kind": value}`).
pub fn param_value_to_py<'py>(py: Python<'py>, value: &ParamValue) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
    match json {
        serde_json::Value::Object(fields) if fields.len() == 1 => {
            json_to_py(py, fields.values().next().expect("one field"))
        }
        other => json_to_py(py, &other),
    }
}

/// A game's validated parameters as a dict of Python values.
pub fn params_to_py<'py>(py: Python<'py>, params: &Params) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, value) in params.values() {
        dict.set_item(name, param_value_to_py(py, value)?)?;
    }
    Ok(dict)
}

/// Keyword parameters (Python int, bool or str) as the strings the registry parses.
pub fn params_from_py(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, String)>> {
    let Some(kwargs) = kwargs else {
        return Ok(Vec::new());
    };
    let mut pairs = Vec::with_capacity(kwargs.len());
    for (key, value) in kwargs.iter() {
        let name: String = key.extract()?;
        // bool first: a Python bool is also an int. numpy's integers and bools count as
        // ints and bools (`operator.index` reads any integer type; pyo3 reads `numpy.bool_`).
        let text = if value.is_instance_of::<PyBool>() {
            value.extract::<bool>()?.to_string()
        } else if value.is_instance_of::<PyInt>() {
            value.str()?.to_string()
        } else if value.is_instance_of::<PyString>() {
            value.extract::<String>()?
        } else if let Ok(flag) = value.extract::<bool>() {
            flag.to_string()
        } else if let Ok(number) = value
            .py()
            .import("operator")?
            .call_method1("index", (&value,))
        {
            number.str()?.to_string()
        } else {
            return Err(ParameterError::new_err(format!(
                "parameter '{name}' must be an int, bool or str, not {}",
                value.get_type().name()?
            )));
        };
        pairs.push((name, text));
    }
    Ok(pairs)
}

/// Makes a game from a name (or a `name(key=value,...)` string) and keyword parameters.
pub fn make_game(
    name: &str,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<std::sync::Arc<dyn Game>> {
    let pairs = params_from_py(kwargs)?;
    if name.contains('(') {
        if !pairs.is_empty() {
            return Err(ParameterError::new_err(format!(
                "give parameters either in the game string '{name}' or as keywords, not both"
            )));
        }
        return registry::make_game_from_string(name).or_raise();
    }
    registry::make_game(name, pairs).or_raise()
}

/// A game as the string `make` reads back: `name(key=value,...)`.
pub fn game_string(game: &dyn Game) -> String {
    format!("{}({})", game.info().name, game.params().to_text())
}

/// A game's facts (name, players, chance, information, dynamics, utility, reward model).
pub fn info_to_py<'py>(py: Python<'py>, info: &GameInfo) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("name", info.name)?;
    dict.set_item("long_name", info.long_name)?;
    dict.set_item("description", info.description)?;
    dict.set_item("min_players", info.min_players)?;
    dict.set_item("max_players", info.max_players)?;
    dict.set_item("chance", fact_word(&info.chance))?;
    dict.set_item("information", fact_word(&info.information))?;
    dict.set_item("dynamics", fact_word(&info.dynamics))?;
    dict.set_item("utility", fact_word(&info.utility))?;
    dict.set_item("reward_model", fact_word(&info.reward_model))?;
    Ok(dict)
}

/// A registry entry as a dict: the game's facts plus `parameters`, name → schema.
pub fn entry_to_py<'py>(py: Python<'py>, entry: &GameEntry) -> PyResult<Bound<'py, PyDict>> {
    let dict = info_to_py(py, entry.info)?;
    let defaults = registry::parse_params(entry, std::iter::empty::<(&str, &str)>()).or_raise()?;
    let schemas = PyDict::new(py);
    for spec in entry.params {
        let schema = PyDict::new(py);
        schema.set_item("name", spec.name)?;
        // The kind serializes as {"type": "int", "min": .., "max": ..}, {"type": "choice",
        // "options": [..]}, ...: read it generically so new kinds need no binding change.
        let kind = serde_json::to_value(&spec.kind).unwrap_or(serde_json::Value::Null);
        schema.set_item(
            "kind",
            kind.get("type").and_then(|t| t.as_str()).unwrap_or("text"),
        )?;
        for key in ["min", "max", "options"] {
            schema.set_item(
                key,
                json_to_py(py, kind.get(key).unwrap_or(&serde_json::Value::Null))?,
            )?;
        }
        let default = match defaults.values().get(spec.name) {
            Some(value) => param_value_to_py(py, value)?,
            None => spec.default.into_bound_py_any(py)?,
        };
        schema.set_item("default", default)?;
        schema.set_item("description", spec.description)?;
        schemas.set_item(spec.name, schema)?;
    }
    dict.set_item("parameters", schemas)?;
    Ok(dict)
}

/// A seat number checked against the game: `0..num_players`.
pub fn seat(state: &dyn State, seat: i64) -> PyResult<usize> {
    let num_players = state.num_players();
    if seat >= 0 && (seat as u64) < num_players as u64 {
        Ok(seat as usize)
    } else {
        Err(GameError::InvalidSeat { seat, num_players }).or_raise()
    }
}

/// The seat a per-seat query is about: the given one, or the current player when it is a seat.
pub fn observer(state: &dyn State, given: Option<i64>) -> PyResult<usize> {
    seat(state, given.unwrap_or_else(|| state.current_player().id()))
}

/// A player id (a seat, −1 chance, −2 simultaneous, −4 terminal) checked against the game;
/// `None` is the current player.
pub fn player(state: &dyn State, given: Option<i64>) -> PyResult<Player> {
    let Some(id) = given else {
        return Ok(state.current_player());
    };
    match Player::from_id(id) {
        Some(Player::Seat(s)) if s < state.num_players() => Ok(Player::Seat(s)),
        Some(Player::Seat(_)) | None => seat(state, id).map(Player::Seat),
        Some(other) => Ok(other),
    }
}

/// A Python integer as an action id; ids outside `u32` are illegal everywhere.
pub fn action_id(state: &dyn State, game: &dyn Game, action: i64) -> PyResult<Action> {
    Action::try_from(action).map_err(|_| {
        IllegalActionError::new_err(format!(
            "illegal action {action} for {} at {}: action ids run from 0 to {}",
            state.current_player(),
            state.describe(),
            game.num_distinct_actions().max(game.max_chance_outcomes()) - 1
        ))
    })
}
