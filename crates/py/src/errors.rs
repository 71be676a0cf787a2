//! The exception hierarchy and the mapping from engine errors to it.
//!
//! Every exception is a `CheckraiseError`, itself a `ValueError`, so `except ValueError` catches
//! them all; the subclasses let callers tell an illegal action from a turn mistake. The message
//! is always the engine's.

use checkraise_core::GameError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};
use pyo3::{PyErr, create_exception};

create_exception!(
    checkraise,
    CheckraiseError,
    PyValueError,
    "Base of every checkraise error (a ValueError); the message is the engine's."
);
create_exception!(
    checkraise,
    UnknownGameError,
    CheckraiseError,
    "No game of that name is registered."
);
create_exception!(
    checkraise,
    ParameterError,
    CheckraiseError,
    "A game parameter that does not exist or has a value that is not allowed."
);
create_exception!(
    checkraise,
    IllegalActionError,
    CheckraiseError,
    "An action that is not legal here; the state is unchanged."
);
create_exception!(
    checkraise,
    OutOfTurnError,
    CheckraiseError,
    "Acting when it is another player's turn (or a single action at a simultaneous node)."
);
create_exception!(
    checkraise,
    GameOverError,
    CheckraiseError,
    "Acting on a finished game."
);
create_exception!(
    checkraise,
    InvalidSeatError,
    CheckraiseError,
    "A seat number outside the game."
);
create_exception!(
    checkraise,
    ActionStringError,
    CheckraiseError,
    "A string that names no action for that player here."
);
create_exception!(
    checkraise,
    PolicyFileError,
    CheckraiseError,
    "A policy or safetensors file that cannot be read, or a policy that does not fit the game \
     it is used for."
);
create_exception!(
    checkraise,
    SolveError,
    CheckraiseError,
    "A game too large (or of the wrong kind) to solve exactly, or a policy that does not fit \
     the game it is measured on."
);
create_exception!(
    checkraise,
    DeserializationError,
    CheckraiseError,
    "A serialized state that cannot be read back."
);

/// `UnknownParameterError(ParameterError, TypeError)`: a keyword that names no parameter of
/// the game (or no setting of the bot). Also a `TypeError`, as Python raises for an
/// unexpected keyword argument, so callers that retry without an optional keyword on
/// `TypeError` (TorchRL passes `frameskip` that way) work. Made at module start (a class
/// with two built-in bases is beyond `create_exception!`).
static UNKNOWN_PARAMETER: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The `UnknownParameterError` class, made on first use.
fn unknown_parameter_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    UNKNOWN_PARAMETER
        .get_or_try_init(py, || {
            let bases = PyTuple::new(
                py,
                [
                    py.get_type::<ParameterError>(),
                    py.get_type::<pyo3::exceptions::PyTypeError>(),
                ],
            )?;
            let namespace = PyDict::new(py);
            namespace.set_item(
                "__doc__",
                "A keyword that names no parameter of the game or setting of the bot: a \
                 ParameterError and also a TypeError (as for an unexpected keyword argument).",
            )?;
            namespace.set_item("__module__", "checkraise")?;
            let class = py.import("builtins")?.getattr("type")?.call1((
                "UnknownParameterError",
                bases,
                namespace,
            ))?;
            Ok::<_, PyErr>(class.cast_into::<PyType>()?.unbind())
        })
        .map(|class| class.bind(py))
}

/// An `UnknownParameterError` with `message`.
fn unknown_parameter(message: String) -> PyErr {
    Python::attach(|py| match unknown_parameter_type(py) {
        Ok(class) => PyErr::from_type(class.clone(), message),
        Err(error) => error,
    })
}

/// The Python exception for an engine error, carrying the engine's message.
pub fn to_py_err(error: &GameError) -> PyErr {
    exception_for(error, error.to_string())
}

/// The Python exception class for an engine error, with a given message (the engine's
/// message with context, such as the env it came from).
pub fn exception_for(error: &GameError, message: String) -> PyErr {
    match error {
        GameError::UnknownGame { .. } => UnknownGameError::new_err(message),
        // Python's own words first: callers that retry without an optional keyword match
        // them (TorchRL's GymEnv retries without `frameskip` on "unexpected keyword argument
        // 'frameskip'").
        GameError::UnknownParameter { name, .. } | GameError::UnknownBotParameter { name, .. } => {
            unknown_parameter(format!("unexpected keyword argument '{name}': {message}"))
        }
        GameError::InvalidParameter { .. }
        | GameError::UnknownBot { .. }
        | GameError::InvalidBotParameter { .. }
        | GameError::InvalidSetting { .. } => ParameterError::new_err(message),
        GameError::IllegalAction { .. } => IllegalActionError::new_err(message),
        GameError::OutOfTurn { .. } => OutOfTurnError::new_err(message),
        GameError::GameOver { .. } => GameOverError::new_err(message),
        GameError::InvalidSeat { .. } => InvalidSeatError::new_err(message),
        GameError::BadActionString { .. } => ActionStringError::new_err(message),
        GameError::BadSerialization { .. } => DeserializationError::new_err(message),
        // Errors without a subclass of their own (and variants added to the engine later).
        _ => CheckraiseError::new_err(message),
    }
}

/// Converts an engine result into a Python one.
pub trait OrRaise<T> {
    /// The value, or the engine's error as a Python exception.
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, GameError> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(|e| to_py_err(&e))
    }
}

/// Registers the exception classes on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CheckraiseError", py.get_type::<CheckraiseError>())?;
    m.add("UnknownGameError", py.get_type::<UnknownGameError>())?;
    m.add("ParameterError", py.get_type::<ParameterError>())?;
    m.add("UnknownParameterError", unknown_parameter_type(py)?)?;
    m.add("IllegalActionError", py.get_type::<IllegalActionError>())?;
    m.add("OutOfTurnError", py.get_type::<OutOfTurnError>())?;
    m.add("GameOverError", py.get_type::<GameOverError>())?;
    m.add("InvalidSeatError", py.get_type::<InvalidSeatError>())?;
    m.add("ActionStringError", py.get_type::<ActionStringError>())?;
    m.add(
        "DeserializationError",
        py.get_type::<DeserializationError>(),
    )?;
    m.add("PolicyFileError", py.get_type::<PolicyFileError>())?;
    m.add("SolveError", py.get_type::<SolveError>())?;
    Ok(())
}
