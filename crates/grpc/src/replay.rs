//! Matches as listed (`MatchSummary`) and replayed step by step (`Replay`), from a match as
//! the store holds it: the history is replayed through the engine, so every text and public
//! view comes from the engine.

use checkraise_core::{Action, Player};
use prost::Message;
use tonic::Status;

use crate::errors::{page_size, unreadable_match};
use crate::live_match::stored_game;
use crate::pb;
use crate::store::{Status as Stored, StepRow, StoredMatch};

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

/// A match as listed, or what of its stored row does not read (a listing never makes up a
/// game, seats or returns for a row it cannot read).
pub fn summary(m: &StoredMatch) -> Result<pb::MatchSummary, UnreadableRow> {
    let parameters: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&m.row.parameters).map_err(UnreadableRow::Parameters)?;
    let parameters: Vec<String> = parameters.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let returns = match m.returns.as_deref() {
        Some(r) => serde_json::from_str(r).map_err(UnreadableRow::Returns)?,
        None => Vec::new(),
    };
    Ok(pb::MatchSummary {
        match_id: m.id.clone(),
        game: format!("{}({})", m.row.game, parameters.join(",")),
        // The seed gives away every hidden card: shown only once the match cannot be played.
        seed: if m.status == Stored::Live || m.sealed {
            0
        } else {
            m.row.seed
        },
        chosen_seed: m.row.chosen_seed,
        seats: serde_json::from_str(&m.row.seats).map_err(UnreadableRow::Seats)?,
        status: match_status(m.status) as i32,
        version: m.version,
        created_ms: m.row.created_ms,
        touched_ms: m.touched_ms,
        finished_ms: m.finished_ms,
        returns,
    })
}

/// What of a stored match's row does not read.
#[derive(Debug, thiserror::Error)]
pub enum UnreadableRow {
    /// Its parameters are not the JSON object the store writes.
    #[error("its parameters do not read: {0}")]
    Parameters(#[source] serde_json::Error),
    /// Its seats are not the JSON array of seat kinds the store writes.
    #[error("its seats do not read: {0}")]
    Seats(#[source] serde_json::Error),
    /// Its returns are not the JSON array of numbers the store writes.
    #[error("its returns do not read: {0}")]
    Returns(#[source] serde_json::Error),
}

/// Most steps in one GetReplay page, and the number when the request names none.
pub const MAX_REPLAY_PAGE: u32 = 1000;
/// Steps in a GetReplay page when the request names no number.
pub const DEFAULT_REPLAY_PAGE: u32 = 100;

/// Which steps of a replay to send: from the step that made `from_version`, at most `steps`
/// of them, in at most `bytes` encoded.
#[derive(Clone, Copy, Debug)]
pub struct ReplayPage {
    /// The version of the page's first step (0: the deal).
    pub from_version: u64,
    /// Most steps.
    pub steps: usize,
    /// Most bytes of the encoded reply.
    pub bytes: usize,
}

impl ReplayPage {
    /// The page a request asks for, within a reply of at most `bytes`.
    pub fn from_request(request: &pb::GetReplayRequest, bytes: usize) -> Result<Self, Status> {
        let steps = page_size(request.page_size, DEFAULT_REPLAY_PAGE, MAX_REPLAY_PAGE)?;
        Ok(ReplayPage {
            from_version: request.from_version,
            steps: steps as usize,
            bytes,
        })
    }
}

/// One page of a match step by step: the deal (version 0), then each decision (a seat's
/// action or a joint action) with the chance after it. The page's first step carries the
/// view after it, each later step the change of that view as a JSON Patch: for a finished
/// match the view of every seat's information together (`State::everyone_view`) and the
/// history entries themselves (every card), for a live match the public view only. The history is
/// replayed through the engine from the start, and only the page's views are built, so a
/// page costs memory for its own steps whatever the match's length.
pub fn replay(m: &StoredMatch, page: ReplayPage) -> Result<pb::Replay, Status> {
    if page.from_version > m.version {
        return Err(Status::invalid_argument(format!(
            "from_version {} is past match '{}', which is at version {}",
            page.from_version, m.id, m.version
        )));
    }
    let game = stored_game(&m.row).map_err(|e| unreadable_match(&m.id, &e))?;
    let listed = summary(m).map_err(|e| unreadable_match(&m.id, &e))?;
    // A sealed ladder game shares its deal with a game still in play: shown as a live one.
    let revealed = m.status == Stored::Finished && !m.sealed;
    let mut walk = Walk {
        state: game.new_initial_state(),
        steps: &m.steps,
        next: 0,
        version: None,
        players: game.num_players(),
    };
    let mut out = pb::Replay {
        r#match: Some(listed),
        revealed,
        steps: Vec::new(),
        next_version: None,
    };
    let mut bytes = out.encoded_len();
    let mut previous: Option<serde_json::Value> = None;
    loop {
        let in_page = walk.next_version() >= page.from_version;
        let Some((version, actor, entries)) = walk
            .step(revealed && in_page)
            .map_err(|e| unreadable_match(&m.id, &e))?
        else {
            break;
        };
        if !in_page {
            continue;
        }
        if out.steps.len() == page.steps {
            out.next_version = Some(version);
            break;
        }
        // A finished match's steps show every seat's cards (the rules revealed nothing more
        // to anyone that could still matter); a live match's, public information only.
        let view = if revealed {
            walk.state.everyone_view()
        } else {
            walk.state.view(None)
        };
        let mut step = pb::ReplayStep {
            version,
            actor,
            entries,
            ..Default::default()
        };
        match &previous {
            None => step.spectator_view_json = view.to_string(),
            Some(before) => step.spectator_view_patch = json_patch(before, &view).to_string(),
        }
        let step_bytes = 1 + prost::length_delimiter_len(step.encoded_len()) + step.encoded_len();
        if bytes + step_bytes > page.bytes {
            if out.steps.is_empty() {
                return Err(Status::resource_exhausted(format!(
                    "step {version} of match '{}' with its public view is {step_bytes} bytes, \
                     over what this server sends in a message (--max-message-size)",
                    m.id
                )));
            }
            out.next_version = Some(version);
            break;
        }
        bytes += step_bytes;
        previous = Some(view);
        out.steps.push(step);
    }
    Ok(out)
}

/// A stored history replayed through the engine a step at a time.
struct Walk<'a> {
    state: Box<dyn checkraise_core::State>,
    steps: &'a [StepRow],
    /// The next history entry to apply.
    next: usize,
    /// The version of the last step taken (`None` before the deal).
    version: Option<u64>,
    players: usize,
}

impl Walk<'_> {
    /// The version the next step will make.
    fn next_version(&self) -> u64 {
        self.version.map_or(0, |v| v + 1)
    }

    /// Applies the next step: the deal first (the chance before the first decision), then a
    /// decision with the chance after it. Returns the version it made, who acted, and (with
    /// `texts`) its history entries with their texts; `None` after the last step.
    #[allow(clippy::type_complexity)]
    fn step(
        &mut self,
        texts: bool,
    ) -> Result<Option<(u64, i64, Vec<pb::ReplayEntry>)>, ReplayError> {
        let mut entries = Vec::new();
        let actor = match self.version {
            None => Player::Chance.id(),
            Some(_) if self.next >= self.steps.len() => return Ok(None),
            Some(_) if self.state.is_simultaneous_node() => {
                let joint = self
                    .steps
                    .get(self.next..self.next + self.players)
                    .ok_or(ReplayError::InsideJointAction)?;
                let mut actions = Vec::with_capacity(self.players);
                for (seat, e) in joint.iter().enumerate() {
                    let action = stored_action(e)?;
                    if texts {
                        entries.push(replay_entry(
                            self.state.as_ref(),
                            Player::Seat(seat),
                            action,
                        ));
                    }
                    actions.push(action);
                }
                self.state.apply_actions(&actions).map_err(not_replayed)?;
                self.next += self.players;
                Player::Simultaneous.id()
            }
            Some(_) => {
                let entry = self.steps[self.next];
                let player = stored_player(&entry);
                let action = stored_action(&entry)?;
                if texts {
                    entries.push(replay_entry(self.state.as_ref(), player, action));
                }
                self.state.apply_action(action).map_err(not_replayed)?;
                self.next += 1;
                player.id()
            }
        };
        while let Some(entry) = self.steps.get(self.next).filter(|e| e.player < 0) {
            let action = stored_action(entry)?;
            if texts {
                entries.push(replay_entry(self.state.as_ref(), Player::Chance, action));
            }
            self.state.apply_action(action).map_err(not_replayed)?;
            self.next += 1;
        }
        let version = self.next_version();
        self.version = Some(version);
        Ok(Some((version, actor, entries)))
    }
}

fn stored_player(entry: &StepRow) -> Player {
    if entry.player < 0 {
        Player::Chance
    } else {
        Player::Seat(entry.player as usize)
    }
}

fn stored_action(entry: &StepRow) -> Result<Action, ReplayError> {
    Action::try_from(entry.action).map_err(|_| ReplayError::ActionOutOfRange {
        action: entry.action,
    })
}

fn not_replayed(e: checkraise_core::GameError) -> ReplayError {
    ReplayError::DoesNotReplay(e)
}

/// Why a stored history does not replay (DATA_LOSS).
#[derive(Debug, thiserror::Error)]
enum ReplayError {
    /// It stops between the entries of one joint action.
    #[error("the stored history ends inside a joint action")]
    InsideJointAction,
    /// An action id that no action can have.
    #[error("a stored action ({action}) is out of range")]
    ActionOutOfRange {
        /// The stored action.
        action: i64,
    },
    /// The engine refuses an entry.
    #[error("the stored history does not replay: {0}")]
    DoesNotReplay(#[source] checkraise_core::GameError),
}

/// The JSON Patch (RFC 6902) that turns `before` into `after`, as the `json-patch` crate
/// computes it.
pub fn json_patch(before: &serde_json::Value, after: &serde_json::Value) -> serde_json::Value {
    serde_json::to_value(json_patch::diff(before, after)).expect("a patch serializes")
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

#[cfg(test)]
mod tests {
    use super::json_patch;
    use serde_json::json;

    #[test]
    fn a_patch_turns_one_view_into_the_next_naming_only_what_changed() {
        let before = json!({
            "a/b": 1,
            "t~": [1, 2, 3],
            "keep": {"x": [{"y": 1}, {"y": 2}], "same": "text"},
            "gone": true,
            "list": [1],
        });
        let after = json!({
            "a/b": 2,
            "t~": [1],
            "keep": {"x": [{"y": 1}, {"y": 3}], "same": "text"},
            "new": null,
            "list": [1, {"z": 0}, 2],
        });
        for (from, to) in [(&before, &after), (&after, &before)] {
            let patch = json_patch(from, to);
            let mut applied = from.clone();
            json_patch::patch(
                &mut applied,
                &serde_json::from_value::<json_patch::Patch>(patch.clone()).unwrap(),
            )
            .unwrap();
            assert_eq!(&applied, to, "{patch}");
            // Fields that did not change are not in the patch.
            assert!(!patch.to_string().contains("text"), "{patch}");
        }
        let one = json_patch(
            &before,
            &json!({"a/b": 1, "t~": [1, 2, 3],
            "keep": {"x": [{"y": 1}, {"y": 5}], "same": "text"}, "gone": true, "list": [1]}),
        );
        assert_eq!(
            one,
            json!([{"op": "replace", "path": "/keep/x/1/y", "value": 5}])
        );
        assert_eq!(json_patch(&after, &after), json!([]));
    }
}
