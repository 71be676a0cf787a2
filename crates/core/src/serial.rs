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

/// Reads the history of a serialized state of game `game` made with `params`. `complete` gives
/// the full parameters a serialized set stands for (defaults filled in): a state written
/// before a parameter existed lacks it, and is this game's when the parameter is at its
/// default.
pub fn decode(
    text: &str,
    game: &str,
    params: &Params,
    complete: impl Fn(&Params) -> Option<Params>,
) -> Result<Vec<PlayerAction>, GameError> {
    let bad = |reason: String| GameError::BadSerialization { reason };
    let data: Serialized =
        serde_json::from_str(text).map_err(|e| bad(format!("not a serialized state: {e}")))?;
    if data.game != game {
        return Err(bad(format!(
            "the state is of game '{}', not '{game}'",
            data.game
        )));
    }
    if &data.params != params && complete(&data.params).as_ref() != Some(params) {
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

#[cfg(test)]
mod tests {
    use crate::registry::make_game_from_string;

    #[test]
    fn a_state_written_before_a_parameter_existed_reads_back_at_its_default() {
        // Written before Detective Poker had `observation` (its default is `cards`).
        let old = r#"{"game":"detective_poker","params":{"values":{"chips":{"Int":7},"expert":{"Bool":false},"max_bet":{"Int":3},"players":{"Int":3},"reward":{"Choice":"rank"},"rounds":{"Int":1}}},"history":[[-1,15],[-1,31],[-1,5]]}"#;
        let game = make_game_from_string("detective_poker(rounds=1)").unwrap();
        let state = game.deserialize_state(old).unwrap();
        assert_eq!(state.history().len(), 3);
        // Not with the parameter away from its default, nor with another parameter changed.
        for other in [
            "detective_poker(rounds=1,observation=odds)",
            "detective_poker(rounds=2)",
        ] {
            let game = make_game_from_string(other).unwrap();
            let err = game.deserialize_state(old).err().unwrap().to_string();
            assert!(err.contains("made with parameters"), "{err}");
        }
    }
}
