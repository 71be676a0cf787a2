//! The text form of a whole state: its game, parameters and history as JSON. Reading it back
//! (`Game::deserialize_state`) replays the history, so a deserialized state is validated by
//! the rules themselves.

use serde::{Deserialize, Serialize};

use crate::error::GameError;
use crate::params::Params;
use crate::vocabulary::{Player, PlayerAction};

#[derive(Serialize, Deserialize)]
struct Serialized {
    game: String,
    params: Params,
    history: Vec<(i64, u32)>,
}

/// Writes a state as JSON: its game, parameters and history.
pub fn serialize(game: &str, params: &Params, history: &[PlayerAction]) -> String {
    serde_json::to_string(&Serialized {
        game: game.to_string(),
        params: params.clone(),
        history: history.iter().map(|h| (h.player.id(), h.action)).collect(),
    })
    .expect("a state always serializes")
}

/// Reads the history of a serialized state of game `game` made with `params`.
pub fn decode(text: &str, game: &str, params: &Params) -> Result<Vec<PlayerAction>, GameError> {
    let bad = |reason: String| GameError::BadSerialization { reason };
    let data: Serialized =
        serde_json::from_str(text).map_err(|e| bad(format!("not a serialized state: {e}")))?;
    if data.game != game {
        return Err(bad(format!(
            "the state is of game '{}', not '{game}'",
            data.game
        )));
    }
    if &data.params != params {
        return Err(bad(format!(
            "the state was made with parameters ({}), this game has ({})",
            data.params.to_text(),
            params.to_text()
        )));
    }
    data.history
        .iter()
        .enumerate()
        .map(|(i, &(who, action))| match Player::from_id(who) {
            Some(player) => Ok(PlayerAction { player, action }),
            None => Err(bad(format!("history entry {i} names no player ({who})"))),
        })
        .collect()
}
