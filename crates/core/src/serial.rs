//! Serialization of whole states as (game, parameters, history), read back by replaying the
//! history, so a deserialized state is validated by the rules themselves.

use serde::{Deserialize, Serialize};

use crate::game::{GameError, Player, PlayerAction, State};
use crate::registry::Params;

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

/// Replays a serialized history onto `state` (a fresh initial state of the same game).
pub fn replay(
    state: &mut dyn State,
    params: &Params,
    game: &str,
    text: &str,
) -> Result<(), GameError> {
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
    let mut i = 0;
    let n = state.num_players();
    while i < data.history.len() {
        let result = if state.is_simultaneous_node() {
            let end = i + n;
            if end > data.history.len() {
                return Err(bad("the history ends inside a joint action".to_string()));
            }
            let joint: Vec<u32> = data.history[i..end].iter().map(|h| h.1).collect();
            i = end;
            state.apply_actions(&joint)
        } else {
            let (who, action) = data.history[i];
            i += 1;
            if Player::from_id(who) != Some(state.current_player()) {
                return Err(bad(format!(
                    "history entry {} is by player {who}, but {} is to act",
                    i - 1,
                    state.current_player()
                )));
            }
            state.apply_action(action)
        };
        result.map_err(|e| bad(format!("history does not replay: {e}")))?;
    }
    Ok(())
}
