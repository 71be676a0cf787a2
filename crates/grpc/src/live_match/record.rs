//! What a match stores: its creation row, its history as step rows, its held choices, tokens
//! and times (`take_write`), the match as the store would hold it (`snapshot`), and a stored
//! match resumed (`restore`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use checkraise_core::driver::{BOT_SEED_OFFSET, Driver};
use checkraise_core::{Action, Game, GameRng, Player};
use tokio::sync::watch;

use super::{LiveMatch, MatchSeed, RestoreError, Seat, SeatKind, StoredGameError, Table};
use crate::store::{
    Durability, DurabilityWatch, MatchRow, MatchWrite, Status as Stored, StepRow, StoredMatch,
    now_ms,
};

/// What the match has written to the store, and what it has yet to write.
pub(super) struct Record {
    pub(super) seed: u64,
    pub(super) created_ms: i64,
    /// History entries written (the rest are new).
    pub(super) written: usize,
    /// The match's first write (its creation) is not made yet.
    pub(super) created: bool,
    /// A seat joined since the last write: its seat and token hash.
    pub(super) token: Option<(usize, String)>,
    /// The choices held at this simultaneous node by human seats (bots choose again after a
    /// restart: their choices were never shown to anyone).
    pub(super) held: Vec<(usize, Action)>,
    pub(super) held_written: Vec<(usize, Action)>,
    pub(super) status_written: Option<Stored>,
    /// Set once the match expired while unfinished.
    pub(super) expired: bool,
    /// When the match last changed in a way everyone sees (created, a seat joined, a step,
    /// the end): never on a read or on a choice held at a simultaneous node, which would tell
    /// that a seat chose.
    pub(super) touched_ms: i64,
    pub(super) touched_written: i64,
    pub(super) finished_ms: Option<i64>,
    /// Writes made so far; the durability watch counts them as committed.
    pub(super) seq: u64,
    pub(super) durability: DurabilityWatch,
}

impl LiveMatch {
    /// A stored match, resumed: its history replayed through the engine (the chance stream
    /// re-drawn from the seed must give the stored outcomes), its held choices held again and
    /// its tokens' hashes back in their seats. Bots do not move here: `resume_bots` lets them.
    /// The bots' streams after a restart are drawn from the seed and the history's length.
    pub fn restore(
        game: Arc<dyn Game>,
        stored: &StoredMatch,
        mut seats: Vec<Seat>,
    ) -> Result<Self, RestoreError> {
        let players = game.num_players();
        if seats.len() != players {
            return Err(RestoreError::SeatCount {
                seats: seats.len(),
                players,
            });
        }
        for (seat, hash) in &stored.tokens {
            match seats.get_mut(*seat).map(|s| &mut s.kind) {
                Some(SeatKind::Human { token_hash }) => *token_hash = Some(hash.clone()),
                _ => return Err(RestoreError::TokenForBot { seat: *seat }),
            }
        }
        let seed = stored.row.seed;
        let resumed = (stored.steps.len() as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let bots = (0..players as u64)
            .map(|k| GameRng::new(seed.wrapping_add(BOT_SEED_OFFSET).wrapping_add(k) ^ resumed))
            .collect();
        let driver = Driver::new(GameRng::new(seed), bots).describing();
        let mut live = Self::fresh(
            stored.id.clone(),
            game,
            MatchSeed {
                seed,
                chosen: stored.row.chosen_seed,
            },
            seats,
            driver,
            stored.row.created_ms,
        );
        live.play.deal();
        let decisions = stored
            .steps
            .iter()
            .filter(|s| s.player >= 0)
            .map(|s| (s.player as usize, s.action))
            .chain(stored.held.iter().map(|&(seat, a)| (seat, i64::from(a))));
        for (seat, action) in decisions {
            let action =
                Action::try_from(action).map_err(|_| RestoreError::ActionOutOfRange { action })?;
            live.decide(seat, action)
                .map_err(RestoreError::DoesNotReplay)?;
        }
        let replayed: Vec<(i64, i64)> = live
            .play
            .state()
            .history()
            .iter()
            .map(|h| (h.player.id(), i64::from(h.action)))
            .collect();
        let stored_history: Vec<(i64, i64)> =
            stored.steps.iter().map(|s| (s.player, s.action)).collect();
        if replayed != stored_history || live.play.version() != stored.version {
            return Err(RestoreError::Diverges {
                replayed: replayed.len(),
                version: live.play.version(),
                stored: stored_history.len(),
                stored_version: stored.version,
            });
        }
        let r = &mut live.record;
        r.written = stored_history.len();
        r.created = false;
        r.held_written = r.held.clone();
        r.status_written = Some(stored.status);
        r.touched_ms = stored.touched_ms;
        r.touched_written = stored.touched_ms;
        r.finished_ms = stored.finished_ms;
        live.table.marks.clear();
        // Idle expiry counts from the stored time of the last request.
        let idle = Duration::from_millis(now_ms().saturating_sub(stored.touched_ms).max(0) as u64);
        live.last_active = Instant::now()
            .checked_sub(idle)
            .unwrap_or_else(Instant::now);
        Ok(live)
    }

    /// The change to store since the last write, if anything changed. Call it with the match
    /// locked, and send it before unlocking, so that a match's writes are queued in order.
    pub fn take_write(&mut self) -> Option<MatchWrite> {
        let status = self.status();
        let returns = self.returns_json();
        let history = self.play.state().history();
        let r = &mut self.record;
        if status == Stored::Finished && r.finished_ms.is_none() {
            r.finished_ms = Some(now_ms());
        }
        let changed = r.created
            || r.written < history.len()
            || r.token.is_some()
            || r.held != r.held_written
            || r.status_written != Some(status)
            || r.touched_ms > r.touched_written;
        if !changed {
            return None;
        }
        let steps = step_rows(
            &history[r.written..],
            r.written,
            &self.table.marks,
            self.play.version(),
        );
        self.table.marks.clear();
        let create = r.created.then(|| match_row(&self.table, r));
        let write = MatchWrite {
            id: self.table.id.clone(),
            create,
            first_step: r.written,
            steps,
            token: r.token.take(),
            version: self.play.version(),
            status,
            held: serde_json::to_string(&r.held).expect("pairs serialize"),
            returns,
            touched_ms: r.touched_ms,
            finished_ms: r.finished_ms,
            seq: r.seq + 1,
            durability: r.durability.clone(),
        };
        r.seq += 1;
        r.created = false;
        r.written = history.len();
        r.held_written = r.held.clone();
        r.status_written = Some(status);
        r.touched_written = r.touched_ms;
        Some(write)
    }

    /// The match as the store would hold it (history, status, times), for listing and
    /// replays without a store. Token hashes and held choices are left out.
    pub fn snapshot(&self) -> StoredMatch {
        let history = self.play.state().history();
        StoredMatch {
            id: self.table.id.clone(),
            row: match_row(&self.table, &self.record),
            status: self.status(),
            version: self.play.version(),
            // Versions of entries are not kept in memory; replays count the steps themselves.
            steps: step_rows(history, 0, &[], self.play.version()),
            held: Vec::new(),
            tokens: std::collections::HashMap::new(),
            touched_ms: self.record.touched_ms,
            finished_ms: self.record.finished_ms,
            returns: self.returns_json(),
            sealed: false,
        }
    }

    /// The status to store.
    fn status(&self) -> Stored {
        if self.play.state().is_terminal() {
            Stored::Finished
        } else if self.record.expired {
            Stored::Expired
        } else {
            Stored::Live
        }
    }

    /// Every seat's return as JSON, once the game is over.
    fn returns_json(&self) -> Option<String> {
        let state = self.play.state();
        state
            .is_terminal()
            .then(|| serde_json::to_string(&state.returns()).expect("numbers serialize"))
    }

    /// What a reply showing the match as it is now must wait for: every write made so far.
    pub fn durable_point(&self) -> (watch::Receiver<Durability>, u64) {
        (self.record.durability.subscribe(), self.record.seq)
    }
}

/// The history entries `entries` (from index `first`) as stored, each with the version of
/// the step it belongs to (`marks`: the history's length after each step since the last write
/// and the version it made). The deal before the first decision is at version 0; nothing
/// follows the last step, but for safety later entries take the current version.
fn step_rows(
    entries: &[checkraise_core::PlayerAction],
    first: usize,
    marks: &[(usize, u64)],
    current: u64,
) -> Vec<StepRow> {
    let mut marks = marks.iter().peekable();
    entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let index = first + i;
            while marks.next_if(|(end, _)| *end <= index).is_some() {}
            let version = match marks.peek() {
                Some((_, v)) => *v,
                None => current,
            };
            // Chance before any decision (the deal at creation) is at version 0.
            let before_any = first == 0 && entries[..=i].iter().all(|e| e.player == Player::Chance);
            StepRow {
                player: entry.player.id(),
                action: i64::from(entry.action),
                version: if before_any { 0 } else { version },
            }
        })
        .collect()
}

/// What never changes of a match, as stored.
fn match_row(table: &Table, record: &Record) -> MatchRow {
    MatchRow {
        game: table.game.info().name.to_string(),
        parameters: parameters_json(table.game.as_ref()),
        seed: record.seed,
        chosen_seed: table.chosen_seed,
        seats: serde_json::to_string(
            &table
                .seats
                .iter()
                .map(|s| s.kind_name.as_str())
                .collect::<Vec<_>>(),
        )
        .expect("strings serialize"),
        created_ms: record.created_ms,
    }
}

/// Every parameter of `game` as text, a JSON object (what the store keeps to make the game
/// again).
pub fn parameters_json(game: &dyn Game) -> String {
    let values: std::collections::BTreeMap<&str, String> = game
        .params()
        .values()
        .iter()
        .map(|(k, v)| (k.as_str(), v.to_string()))
        .collect();
    serde_json::to_string(&values).expect("strings serialize")
}

/// The game a stored match is of: its name and its parameters as `parameters_json` wrote them.
pub fn stored_game(row: &MatchRow) -> Result<Arc<dyn Game>, StoredGameError> {
    let parameters: std::collections::BTreeMap<String, String> =
        serde_json::from_str(&row.parameters).map_err(StoredGameError::Parameters)?;
    Ok(checkraise_core::make_game(&row.game, &parameters)?)
}
