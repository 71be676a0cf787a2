//! Matches as listed (`MatchSummary`) and replayed step by step (`Replay`), from a match as
//! the store holds it: the history is replayed through the engine, so every text and public
//! view comes from the engine.

use checkraise_core::{Action, Player};

use crate::live_match::stored_game;
use crate::pb;
use crate::store::{Status as Stored, StoredMatch};

/// The contract's status of a stored status.
pub fn match_status(status: Stored) -> pb::MatchStatus {
    match status {
        Stored::Live => pb::MatchStatus::Live,
        Stored::Finished => pb::MatchStatus::Finished,
        Stored::Expired => pb::MatchStatus::Expired,
    }
}

/// The stored status a contract's status filters on (`None`: any).
pub fn stored_status(status: pb::MatchStatus) -> Option<Stored> {
    match status {
        pb::MatchStatus::Unspecified => None,
        pb::MatchStatus::Live => Some(Stored::Live),
        pb::MatchStatus::Finished => Some(Stored::Finished),
        pb::MatchStatus::Expired => Some(Stored::Expired),
    }
}

/// A match as listed.
pub fn summary(m: &StoredMatch) -> pb::MatchSummary {
    let parameters: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&m.row.parameters).unwrap_or_default();
    let parameters: Vec<String> = parameters.iter().map(|(k, v)| format!("{k}={v}")).collect();
    pb::MatchSummary {
        match_id: m.id.clone(),
        game: format!("{}({})", m.row.game, parameters.join(",")),
        seed: m.row.seed,
        seats: serde_json::from_str(&m.row.seats).unwrap_or_default(),
        status: match_status(m.status) as i32,
        version: m.version,
        created_ms: m.row.created_ms,
        touched_ms: m.touched_ms,
        finished_ms: m.finished_ms,
        returns: m
            .returns
            .as_deref()
            .and_then(|r| serde_json::from_str(r).ok())
            .unwrap_or_default(),
    }
}

/// A match step by step: the deal (version 0), then each decision (a seat's action or a
/// joint action) with the chance after it, and the public view after each. The history
/// entries themselves (every card) only for a finished match.
pub fn replay(m: &StoredMatch) -> Result<pb::Replay, String> {
    let game = stored_game(&m.row)?;
    let revealed = m.status == Stored::Finished;
    let players = game.num_players();
    let mut state = game.new_initial_state();
    let mut steps = Vec::new();
    let mut step = pb::ReplayStep {
        version: 0,
        actor: Player::Chance.id(),
        ..Default::default()
    };
    let mut i = 0;
    while i < m.steps.len() {
        let entry = m.steps[i];
        let action = Action::try_from(entry.action)
            .map_err(|_| format!("a stored action ({}) is out of range", entry.action))?;
        let player = if entry.player < 0 {
            Player::Chance
        } else {
            Player::Seat(entry.player as usize)
        };
        let bad =
            |e: checkraise_core::GameError| format!("the stored history does not replay: {e}");
        if player == Player::Chance {
            step.entries
                .push(replay_entry(state.as_ref(), player, action));
            state.apply_action(action).map_err(bad)?;
            i += 1;
            continue;
        }
        // A decision: the step before it is complete.
        step.spectator_view_json = state.view(None).to_string();
        let version = step.version + 1;
        steps.push(std::mem::take(&mut step));
        step.version = version;
        if state.is_simultaneous_node() {
            let joint = m
                .steps
                .get(i..i + players)
                .ok_or("the stored history ends inside a joint action")?;
            let mut actions = Vec::with_capacity(players);
            for (seat, e) in joint.iter().enumerate() {
                let a =
                    Action::try_from(e.action).map_err(|_| "a stored action is out of range")?;
                step.entries
                    .push(replay_entry(state.as_ref(), Player::Seat(seat), a));
                actions.push(a);
            }
            state.apply_actions(&actions).map_err(bad)?;
            step.actor = Player::Simultaneous.id();
            i += players;
        } else {
            step.entries
                .push(replay_entry(state.as_ref(), player, action));
            state.apply_action(action).map_err(bad)?;
            step.actor = player.id();
            i += 1;
        }
    }
    step.spectator_view_json = state.view(None).to_string();
    steps.push(step);
    if !revealed {
        for step in &mut steps {
            step.entries.clear();
        }
    }
    Ok(pb::Replay {
        r#match: Some(summary(m)),
        revealed,
        steps,
    })
}

fn replay_entry(
    state: &dyn checkraise_core::State,
    player: Player,
    action: Action,
) -> pb::ReplayEntry {
    pb::ReplayEntry {
        player: player.id(),
        action,
        text: state.action_to_string(player, action),
    }
}
