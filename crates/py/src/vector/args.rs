//! Reading `VectorEnv`'s Python arguments (observer, autoreset mode, opponent pools, the
//! learner's seat, encodings, seeds) into the engine's types, with errors that name the
//! argument.

use checkraise_core::GameError;
use checkraise_core::compact::ObservationEncoding;
use checkraise_core::vector::{
    AutoresetMode, LearnerSeat, Observer, Opponent, Opponents, VectorError,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

use crate::bots::PyBot;
use crate::errors::{CheckraiseError, OrRaise, ParameterError, exception_for};

/// A batch error as a Python exception: the engine's class and message, with the env index.
pub(super) fn vector_err(error: &VectorError) -> PyErr {
    exception_for(error.game_error(), error.to_string())
}

/// Reads the `observer` argument: `"current"`, `"all"` or a seat number.
pub(super) fn observer_from_py(
    observer: &Bound<'_, PyAny>,
    num_players: usize,
) -> PyResult<Observer> {
    if observer.is_instance_of::<PyInt>() {
        let seat: i64 = observer.extract()?;
        // The engine checks the seat against the game; a negative one never reaches it.
        return usize::try_from(seat)
            .map(Observer::Seat)
            .map_err(|_| GameError::InvalidSeat { seat, num_players })
            .or_raise();
    }
    if let Ok(word) = observer.cast::<PyString>() {
        match word.to_cow()?.as_ref() {
            "current" | "current_player" => return Ok(Observer::CurrentPlayer),
            "all" | "all_seats" => return Ok(Observer::AllSeats),
            _ => {}
        }
    }
    Err(CheckraiseError::new_err(format!(
        "observer must be 'current', 'all' or a seat number, not {}",
        observer.repr()?
    )))
}

/// Reads the `autoreset_mode` argument: `"next_step"` or `"same_step"`, or Gymnasium's
/// `AutoresetMode.NEXT_STEP` / `AutoresetMode.SAME_STEP` (or their values).
pub(super) fn autoreset_mode_from_py(mode: &Bound<'_, PyAny>) -> PyResult<AutoresetMode> {
    let word = if mode.is_instance_of::<PyString>() {
        mode.clone()
    } else {
        // An enum member (gymnasium.vector.AutoresetMode): its value.
        mode.getattr("value").unwrap_or_else(|_| mode.clone())
    };
    if let Ok(word) = word.cast::<PyString>() {
        match word.to_cow()?.as_ref() {
            "next_step" | "NextStep" => return Ok(AutoresetMode::NextStep),
            "same_step" | "SameStep" => return Ok(AutoresetMode::SameStep),
            _ => {}
        }
    }
    Err(CheckraiseError::new_err(format!(
        "autoreset_mode must be 'next_step' or 'same_step', not {}",
        mode.repr()?
    )))
}

/// A whole number argument (a Python or numpy integer) from `min` to `u64::MAX`; anything
/// else is an error naming the argument (`TypeError` for a non-integer, `ParameterError` for
/// one out of range), never a bare `OverflowError`.
pub(crate) fn whole_number(value: &Bound<'_, PyAny>, name: &str, min: u64) -> PyResult<u64> {
    let py = value.py();
    let not_integer = || {
        Ok::<_, PyErr>(pyo3::exceptions::PyTypeError::new_err(format!(
            "{name} must be an integer, not {}",
            value.get_type().name()?
        )))
    };
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(not_integer()?);
    }
    let Ok(index) = py.import("operator")?.call_method1("index", (value,)) else {
        return Err(not_integer()?);
    };
    match index.extract::<u64>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(ParameterError::new_err(format!(
            "{name} must be an integer from {min} to {}, not {}",
            u64::MAX,
            index.repr()?
        ))),
    }
}

/// Reads one opponent pool entry: a bot spec string, a `Bot` (its spec), or a policy file's
/// bytes (`bytes`, `bytearray` or `memoryview`), labelled by its position in the pool.
pub(super) fn opponent_entry(entry: &Bound<'_, PyAny>, position: usize) -> PyResult<Opponent> {
    if let Ok(spec) = entry.cast::<PyString>() {
        return Ok(Opponent::spec(spec.to_cow()?.into_owned()));
    }
    if let Ok(bot) = entry.cast::<PyBot>() {
        return Ok(Opponent::spec(bot.borrow().spec_string()));
    }
    if entry.is_instance_of::<PyBytes>()
        || entry.is_instance_of::<PyByteArray>()
        || entry.is_instance_of::<pyo3::types::PyMemoryView>()
    {
        let bytes: Vec<u8> = entry
            .py()
            .import("builtins")?
            .getattr("bytes")?
            .call1((entry,))?
            .extract()?;
        return Ok(Opponent::policy_bytes(format!("#{position}"), bytes));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "opponent entry {position} must be a bot spec (str), a Bot or a policy file's bytes, \
         not {}",
        entry.get_type().name()?
    )))
}

/// Reads a pool weight: a finite number above 0 (the engine checks the value).
pub(super) fn opponent_weight(weight: &Bound<'_, PyAny>, position: usize) -> PyResult<f64> {
    if weight.is_instance_of::<pyo3::types::PyBool>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "the weight of opponent entry {position} must be a number, not bool"
        )));
    }
    weight.extract::<f64>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "the weight of opponent entry {position} must be a number, not {}",
            weight
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })
}

/// Reads the `opponent` argument: one entry (weight 1), a list of entries or of
/// `(entry, weight)` pairs, or a dict entry → weight.
pub(super) fn opponent_pool(opponent: &Bound<'_, PyAny>) -> PyResult<Vec<(Opponent, f64)>> {
    let single = opponent.is_instance_of::<PyString>()
        || opponent.is_instance_of::<PyBytes>()
        || opponent.is_instance_of::<PyByteArray>()
        || opponent.is_instance_of::<pyo3::types::PyMemoryView>()
        || opponent.cast::<PyBot>().is_ok();
    if single {
        return Ok(vec![(opponent_entry(opponent, 0)?, 1.0)]);
    }
    if let Ok(dict) = opponent.cast::<PyDict>() {
        return dict
            .iter()
            .enumerate()
            .map(|(i, (entry, weight))| {
                Ok((opponent_entry(&entry, i)?, opponent_weight(&weight, i)?))
            })
            .collect();
    }
    if opponent.is_instance_of::<PyList>() || opponent.is_instance_of::<PyTuple>() {
        let mut pool = Vec::new();
        for (i, item) in opponent.try_iter()?.enumerate() {
            let item = item?;
            let pair = (item.is_instance_of::<PyTuple>() || item.is_instance_of::<PyList>())
                && item.len()? == 2;
            if pair {
                pool.push((
                    opponent_entry(&item.get_item(0)?, i)?,
                    opponent_weight(&item.get_item(1)?, i)?,
                ));
            } else {
                pool.push((opponent_entry(&item, i)?, 1.0));
            }
        }
        return Ok(pool);
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "opponent must be a bot spec (str), a Bot, a policy file's bytes, a list of these or of \
         (entry, weight) pairs, or a dict entry -> weight; not {}",
        opponent.get_type().name()?
    )))
}

/// The `opponent` argument read as `VectorEnv` reads it, as `[(spec or policy bytes, weight)]`:
/// the one parser of pools, which the remote client (`checkraise.client`) calls too.
#[pyfunction]
pub fn _parse_opponent_pool<'py>(
    py: Python<'py>,
    opponent: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (entry, weight) in opponent_pool(opponent)? {
        let value = match entry {
            Opponent::Spec(spec) => PyString::new(py, &spec).into_any(),
            Opponent::PolicyBytes { bytes, .. } => PyBytes::new(py, &bytes).into_any(),
            Opponent::Bot(bot) => PyString::new(py, &bot.spec()).into_any(),
        };
        list.append((value, weight))?;
    }
    Ok(list)
}

/// Reads the `seat` argument: a seat number (Python or numpy integer) or `"random"` (a seat
/// drawn for every game).
pub(super) fn learner_seat(seat: &Bound<'_, PyAny>, num_players: usize) -> PyResult<LearnerSeat> {
    if let Ok(word) = seat.cast::<PyString>() {
        if word.to_cow()? == "random" {
            return Ok(LearnerSeat::Drawn);
        }
        return Err(CheckraiseError::new_err(format!(
            "seat must be a seat number or 'random', not {}",
            seat.repr()?
        )));
    }
    if seat.is_instance_of::<pyo3::types::PyBool>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "seat must be a seat number or 'random', not bool",
        ));
    }
    let Ok(index) = seat.py().import("operator")?.call_method1("index", (seat,)) else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "seat must be a seat number or 'random', not {}",
            seat.get_type().name()?
        )));
    };
    let number: i64 = index.extract().unwrap_or(i64::MAX);
    match usize::try_from(number) {
        Ok(s) if s < num_players => Ok(LearnerSeat::Fixed(s)),
        _ => Err(GameError::InvalidSeat {
            seat: number,
            num_players,
        })
        .or_raise(),
    }
}

/// The pool as Python values for `opponent_pool` and pickling: `[(spec or bytes, weight)]`.
pub(super) fn pool_to_py<'py>(
    py: Python<'py>,
    opponents: &Opponents,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for (entry, weight) in &opponents.pool {
        let value = match entry {
            Opponent::Spec(spec) => PyString::new(py, spec).into_any(),
            Opponent::PolicyBytes { bytes, .. } => PyBytes::new(py, bytes).into_any(),
            Opponent::Bot(bot) => PyString::new(py, &bot.spec()).into_any(),
        };
        list.append((value, *weight))?;
    }
    Ok(list)
}

/// Reads the `observation_encoding` argument: `"float32"` or `"compact"`.
pub(super) fn encoding_from_py(encoding: &str) -> PyResult<ObservationEncoding> {
    match encoding {
        "float32" => Ok(ObservationEncoding::Float32),
        "compact" => Ok(ObservationEncoding::Compact),
        other => Err(CheckraiseError::new_err(format!(
            "observation_encoding must be 'float32' or 'compact', not {other:?}"
        ))),
    }
}

/// The `opponent` and `seat` arguments as the engine's pool (`seat` defaults to 0).
pub(super) fn opponents_from_py(
    opponent: &Bound<'_, PyAny>,
    seat: Option<&Bound<'_, PyAny>>,
    num_players: usize,
) -> PyResult<Opponents> {
    let learner = match seat {
        Some(seat) => learner_seat(seat, num_players)?,
        None => LearnerSeat::Fixed(0),
    };
    Ok(Opponents {
        learner,
        pool: opponent_pool(opponent)?,
    })
}

/// Reads `reset`'s seed: one integer (env `i` gets `seed + i`) or one per env (an integer
/// or `None`, which continues that env's stream).
pub(super) enum Seeds {
    One(u64),
    Each(Vec<Option<u64>>),
}

pub(super) fn seeds_from_py(seed: &Bound<'_, PyAny>, num_envs: usize) -> PyResult<Seeds> {
    if seed.is_instance_of::<PyString>() || seed.is_instance_of::<PyBytes>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "seed must be an integer, a sequence of {num_envs} integers (or None), or None; \
             not {}",
            seed.get_type().name()?
        )));
    }
    let Ok(items) = seed.try_iter() else {
        return whole_number(seed, "seed", 0).map(Seeds::One);
    };
    let mut seeds = Vec::with_capacity(num_envs);
    for (i, item) in items.enumerate() {
        let item = item?;
        seeds.push(if item.is_none() {
            None
        } else {
            Some(whole_number(&item, &format!("seed[{i}]"), 0)?)
        });
    }
    if seeds.len() != num_envs {
        return Err(CheckraiseError::new_err(format!(
            "seed must give one seed per env: {num_envs} seeds, not {}",
            seeds.len()
        )));
    }
    Ok(Seeds::Each(seeds))
}
