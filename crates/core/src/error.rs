//! Every error the engine reports, and what kind of mistake each is.

use crate::vocabulary::{Action, Player};

/// What kind of mistake an error reports, so each face can map it to its own status code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request itself is invalid (bad game, parameter, action, string, tensor shape).
    InvalidArgument,
    /// The request is well formed but the state does not allow it now (out of turn, over).
    FailedPrecondition,
    /// Something named does not exist (a game).
    NotFound,
}

/// Every error the engine reports; messages say what was wrong and what is allowed.
///
/// ```
/// use checkraise_core::{ErrorKind, GameError, make_game_from_string};
///
/// let err = make_game_from_string("pokeros(players=9)").unwrap_err();
/// assert!(matches!(err, GameError::InvalidParameter { .. }));
/// assert_eq!(err.kind(), ErrorKind::InvalidArgument);
/// assert_eq!(
///     err.to_string(),
///     "parameter 'players' of game 'pokeros' cannot be '9': an integer from 2 to 4"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// No game of that name is registered.
    #[error("unknown game '{name}'; registered games: {known}")]
    UnknownGame {
        /// The requested name.
        name: String,
        /// Comma-separated registered names.
        known: String,
    },
    /// A parameter name the game does not have.
    #[error("game '{game}' has no parameter '{name}'; its parameters are: {known}")]
    UnknownParameter {
        /// The game.
        game: String,
        /// The unknown parameter.
        name: String,
        /// Comma-separated known parameters.
        known: String,
    },
    /// A parameter value outside what is allowed.
    #[error("parameter '{name}' of game '{game}' cannot be '{value}': {allowed}")]
    InvalidParameter {
        /// The game.
        game: String,
        /// The parameter.
        name: String,
        /// The rejected value, as given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// No bot of that kind exists.
    #[error("unknown bot '{name}'; bots: {known}")]
    UnknownBot {
        /// The requested kind.
        name: String,
        /// Comma-separated bot kinds.
        known: String,
    },
    /// A bot setting the bot kind does not have.
    #[error("bot '{bot}' has no setting '{name}'; its settings are: {known}")]
    UnknownBotParameter {
        /// The bot kind.
        bot: String,
        /// The unknown setting.
        name: String,
        /// Comma-separated known settings.
        known: String,
    },
    /// A bot setting's value outside what is allowed.
    #[error("setting '{name}' of bot '{bot}' cannot be '{value}': {allowed}")]
    InvalidBotParameter {
        /// The bot kind.
        bot: String,
        /// The setting.
        name: String,
        /// The rejected value, as given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// A setting of a tool built on the engine (the arena) outside what is allowed.
    #[error("'{name}' cannot be '{value}': {allowed}")]
    InvalidSetting {
        /// The setting.
        name: String,
        /// The rejected value, as given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// An action that is not legal for this player here.
    #[error("illegal action {action} ({desc}) for {player} at {state}: {reason}")]
    IllegalAction {
        /// The action id.
        action: Action,
        /// A rendering of the action, when one exists.
        desc: String,
        /// Who tried it.
        player: Player,
        /// A short description of the state.
        state: String,
        /// Why it is illegal.
        reason: String,
    },
    /// Acting when it is not this player's turn, or applying a single action at a
    /// simultaneous node (or a joint action at a sequential one).
    #[error("out of turn: {player} tried to act at {state}, where {to_act} is to act")]
    OutOfTurn {
        /// Who tried to act.
        player: Player,
        /// Who is to act.
        to_act: Player,
        /// A short description of the state.
        state: String,
    },
    /// A second choice by one seat at the same simultaneous node (the first one is held
    /// until every seat has chosen).
    #[error(
        "seat {seat} has already chosen at this simultaneous node ({state}); it waits for the \
         other seats"
    )]
    AlreadyChosen {
        /// The seat.
        seat: usize,
        /// A short description of the state.
        state: String,
    },
    /// Acting on a finished game.
    #[error("the game is over ({state}); no action can be applied")]
    GameOver {
        /// A short description of the state.
        state: String,
    },
    /// A seat number outside the game.
    #[error("seat {seat} does not exist; this game has seats 0 to {}", num_players.saturating_sub(1))]
    InvalidSeat {
        /// The seat asked for.
        seat: i64,
        /// How many seats the game has.
        num_players: usize,
    },
    /// A string that names no action.
    #[error("'{text}' is not an action for {player} here: {reason}")]
    BadActionString {
        /// The text given.
        text: String,
        /// For whom it was parsed.
        player: Player,
        /// Why it did not parse.
        reason: String,
    },
    /// A serialized state that cannot be read back.
    #[error("cannot deserialize state: {reason}")]
    BadSerialization {
        /// Why.
        reason: String,
    },
    /// A caller's buffer of the wrong size.
    #[error("{what} buffer has length {got}, expected {expected}")]
    BadBuffer {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The required length.
        expected: usize,
    },
}

impl GameError {
    /// An `InvalidParameter`: game `game` refuses `value` for its parameter `name`; `allowed`
    /// says what it takes.
    pub fn invalid_parameter(
        game: &str,
        name: &str,
        value: impl ToString,
        allowed: impl Into<String>,
    ) -> Self {
        GameError::InvalidParameter {
            game: game.to_string(),
            name: name.to_string(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// A `BadActionString`: `text` names no action of `player` here, because of `reason`.
    pub fn bad_action_string(text: &str, player: Player, reason: impl Into<String>) -> Self {
        GameError::BadActionString {
            text: text.to_string(),
            player,
            reason: reason.into(),
        }
    }

    /// Which kind of mistake this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            GameError::UnknownGame { .. } => ErrorKind::NotFound,
            GameError::OutOfTurn { .. }
            | GameError::AlreadyChosen { .. }
            | GameError::GameOver { .. } => ErrorKind::FailedPrecondition,
            _ => ErrorKind::InvalidArgument,
        }
    }
}

/// A text in one of the games' own notations (a move, a bet, a FEN, a grid window, piece
/// values) that does not read: what was wrong and what was expected, in words. The games'
/// parsers return it; the caller wraps it in the `GameError` that names the action string or
/// the parameter it came from.
///
/// ```
/// use checkraise_core::games::detective_poker::rules::Bet;
///
/// let err = Bet::parse("bet 0 on s1").unwrap_err();
/// assert_eq!(err.reason(), "'0' is not a chip count (1 or more)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct NotationError {
    reason: String,
}

impl NotationError {
    /// The error for `reason`, a sentence saying what was wrong and what is allowed.
    pub fn new(reason: impl Into<String>) -> Self {
        NotationError {
            reason: reason.into(),
        }
    }

    /// What was wrong and what is allowed.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl From<NotationError> for String {
    fn from(e: NotationError) -> String {
        e.reason
    }
}
