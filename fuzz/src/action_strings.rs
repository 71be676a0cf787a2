//! Action strings: the first line is a game string, the second `seed steps` (a state reached
//! by that many seeded random moves), and every further line a text given to
//! `string_to_action` for each seat, chance and the other players. A text that parses is
//! applied (in a joint action with legal entries for the others at a simultaneous node); ids
//! from the input's bytes go through `action_to_string`.

use checkraise_core::game::{Player, State};

use crate::{game_from, players, random_joint, seed_and_steps, seeded_state};

/// Feeds one input.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let Some(game) = lines.next().and_then(game_from) else {
        return;
    };
    let (seed, steps) = seed_and_steps(lines.next().unwrap_or(""));
    let (state, mut rng) = seeded_state(game.as_ref(), seed, steps);
    for line in lines {
        for player in players(state.as_ref()) {
            if let Ok(action) = state.string_to_action(player, line) {
                apply(state.as_ref(), player, action, &mut rng);
            }
        }
    }
    // Arbitrary ids through action_to_string, for every player.
    for chunk in data.chunks(4).take(16) {
        let mut id = [0u8; 4];
        id[..chunk.len()].copy_from_slice(chunk);
        let id = u32::from_le_bytes(id);
        for player in players(state.as_ref()) {
            let _ = state.action_to_string(player, id);
            let _ = state.action_to_string(player, id % 4096);
        }
    }
}

/// Applies `action` parsed for `player` to a copy of `state` when `player` is to act: a legal
/// one must apply, an illegal one must be refused and leave the state as it was.
fn apply(state: &dyn State, player: Player, action: u32, rng: &mut checkraise_core::GameRng) {
    // `apply_action` applies for whoever is to act: a text parsed for another player is only
    // parsed.
    let to_act = state.current_player() == player
        || (state.is_simultaneous_node() && matches!(player, Player::Seat(_)));
    if !to_act {
        return;
    }
    let legal = state.legal_actions_for(player).contains(&action);
    let mut copy = state.clone_box();
    let result = match (state.current_player(), player) {
        (Player::Simultaneous, Player::Seat(seat)) => {
            let mut joint = random_joint(state, rng);
            joint[seat] = action;
            copy.apply_actions(&joint)
        }
        _ => copy.apply_action(action),
    };
    match result {
        Ok(()) => assert!(
            legal,
            "{player} applied illegal action {action} ({}) at {}, legal {:?}\n{state}",
            state.action_to_string(player, action),
            state.describe(),
            state.legal_actions_for(player)
        ),
        Err(e) => {
            assert!(!legal, "legal {action} of {player} refused: {e}");
            assert_eq!(
                copy.serialize(),
                state.serialize(),
                "a refused action changed the state"
            );
        }
    }
}
