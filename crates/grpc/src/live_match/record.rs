//! What a match stores: its creation row, its history as step rows, its held choices, tokens
//! and times (`take_write`), the match as the store would hold it (`snapshot`), and a stored
//! match resumed (`restore`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use checkraise_core::driver::{BOT_SEED_OFFSET, Driver};
use checkraise_core::{Action, Game, GameRng, Player};
use tokio::sync::watch;

use super::watchers::{Gate, Watcher};
use super::{LiveMatch, MatchSeed, RestoreError, Seat, SeatKind, StoredGameError, Table};
use crate::store::{
    Announced, Durability, DurabilityWatch, MatchRow, MatchWrite, Status as Stored, StepRow,
    StoredMatch, now_ms,
};

/// What a copy takes over of the match it follows, besides the new history entries.
struct Followed<'a> {
    revision: u64,
    version: u64,
    status: Stored,
    held: &'a [(usize, u32)],
    tokens: &'a [(usize, &'a str)],
    touched_ms: i64,
    finished_ms: Option<i64>,
    /// The ownership epoch stored with the revision, when known.
    epoch: Option<u64>,
}

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
    /// Writes go to a store: what watchers are sent waits for them to be committed.
    pub(super) stored: bool,
    /// Replaying what is stored already (a restore, or changes another server made): the
    /// events this makes wait for nothing.
    pub(super) replaying: bool,
    /// The match's revision after the last write (its writes over every server).
    pub(super) revision: u64,
    /// The version of the match as last read from the store (restored or followed): with the
    /// committed writes' version, how far watchers have been shown the match.
    pub(super) base_version: u64,
    /// Cluster mode: this server owns the match (it plays the bots and expires the match),
    /// with the ownership epoch its writes are fenced by.
    pub(super) owner: Option<(Arc<str>, u64)>,
    /// Cluster mode: the ownership epoch stored with the revision this copy is at.
    pub(super) stored_epoch: u64,
    /// Cluster mode: the next write claims the match for this server (`claim`).
    pub(super) claiming: bool,
}

impl Record {
    /// What an event must wait for before it is sent: the next write (`step`: the event shows
    /// a change not written yet) or the writes made so far; nothing without a store or while
    /// replaying what is stored.
    pub(super) fn gate(&self, step: bool) -> Option<Gate> {
        (self.stored && !self.replaying).then(|| Gate {
            durability: self.durability.subscribe(),
            seq: self.seq + u64::from(step),
        })
    }
}

impl LiveMatch {
    /// A stored match, resumed: its history replayed through the engine (the chance stream
    /// re-drawn from the seed must give the stored outcomes), its held choices held again and
    /// its tokens' hashes back in their seats. Bots do not move here: `resume_bots` lets them.
    /// The bots' streams after a restart are drawn from the seed and the history's length.
    pub fn restore(
        game: Arc<dyn Game>,
        stored: &StoredMatch,
        seats: Vec<Seat>,
    ) -> Result<Self, RestoreError> {
        Self::restore_watched(game, stored, seats, Vec::new(), 0)
    }

    /// `restore`, with `watchers` kept: they are told of every step replayed past version
    /// `shown` (what they were last sent), in order.
    fn restore_watched(
        game: Arc<dyn Game>,
        stored: &StoredMatch,
        mut seats: Vec<Seat>,
        watchers: Vec<Watcher>,
        shown: u64,
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
        for watcher in &watchers {
            if let Some(seat) = watcher.viewer.and_then(|s| live.table.seats.get_mut(s))
                && matches!(seat.kind, SeatKind::Human { .. })
            {
                seat.connected = true;
            }
        }
        live.table.watchers = watchers;
        live.table.shown = shown;
        live.record.replaying = true;
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
        live.table.shown = 0;
        let r = &mut live.record;
        r.replaying = false;
        r.revision = stored.revision;
        r.base_version = stored.version;
        r.stored_epoch = stored.owner.as_ref().map_or(0, |(_, e)| *e);
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

    /// Brings this copy of the match up to `stored`, a newer state that another server wrote
    /// (cluster mode): the steps it lacks are applied as a restore applies them, its watchers
    /// told of each in order, the seats' tokens and the held choices taken over. `Ok(false)`:
    /// this copy is as new already. An error: this copy cannot follow (it holds changes not
    /// stored, or its history is not a beginning of the stored one); `reload` it instead.
    pub fn follow(&mut self, stored: &StoredMatch) -> Result<bool, RestoreError> {
        if stored.revision <= self.record.revision {
            return Ok(false);
        }
        let history = self.play.state().history();
        let mine = history.len();
        let prefix = stored.steps.len() >= mine
            && history
                .iter()
                .zip(&stored.steps)
                .all(|(h, s)| h.player.id() == s.player && i64::from(h.action) == s.action);
        if !prefix {
            return Err(self.diverges(stored.steps.len(), stored.version));
        }
        let tokens: Vec<(usize, &str)> = stored
            .tokens
            .iter()
            .map(|(seat, hash)| (*seat, hash.as_str()))
            .collect();
        self.follow_with(
            &stored.steps[mine..],
            &Followed {
                revision: stored.revision,
                version: stored.version,
                status: stored.status,
                held: &stored.held,
                tokens: &tokens,
                touched_ms: stored.touched_ms,
                finished_ms: stored.finished_ms,
                epoch: Some(stored.owner.as_ref().map_or(0, |(_, e)| *e)),
            },
        )
    }

    /// `follow` for one write another server announced with what it wrote (cluster mode):
    /// this copy, at the revision before it, follows without reading the store. `Ok(false)`:
    /// this copy is as new already. An error: it is not at the revision before, or cannot
    /// follow (as `follow`); read the store instead.
    pub fn follow_announced(
        &mut self,
        revision: u64,
        written: &Announced,
    ) -> Result<bool, RestoreError> {
        if revision <= self.record.revision {
            return Ok(false);
        }
        let mine = self.play.state().history().len();
        let total = written.first_step + written.steps.len();
        let status = written.status();
        let (Some(status), true) = (
            status,
            revision == self.record.revision + 1 && written.first_step == mine,
        ) else {
            return Err(self.diverges(total, written.version));
        };
        let steps: Vec<StepRow> = written
            .steps
            .iter()
            .map(|&(player, action, version)| StepRow {
                player,
                action,
                version,
            })
            .collect();
        let tokens: Vec<(usize, &str)> = written
            .token
            .iter()
            .map(|(seat, hash)| (*seat, hash.as_str()))
            .collect();
        self.follow_with(
            &steps,
            &Followed {
                revision,
                version: written.version,
                status,
                held: &written.held,
                tokens: &tokens,
                touched_ms: written.touched_ms,
                finished_ms: written.finished_ms,
                epoch: written.owner.as_ref().map(|(_, e)| *e),
            },
        )
    }

    fn diverges(&self, stored: usize, stored_version: u64) -> RestoreError {
        RestoreError::Diverges {
            replayed: self.play.state().history().len(),
            version: self.play.version(),
            stored,
            stored_version,
        }
    }

    /// Applies `new`, the history entries after this copy's, and takes over the rest of
    /// `followed` (see `follow`).
    fn follow_with(&mut self, new: &[StepRow], followed: &Followed) -> Result<bool, RestoreError> {
        let mine = self.play.state().history().len();
        let total = mine + new.len();
        let pending = self.record.seq != self.record.durability.borrow().committed;
        if pending || !self.record.held.is_empty() || !self.table.marks.is_empty() {
            return Err(self.diverges(total, followed.version));
        }
        self.record.replaying = true;
        let applied = self.apply_stored(new, followed.held);
        self.record.replaying = false;
        self.table.marks.clear();
        applied?;
        let now = self.play.state().history();
        let same = now.len() == total
            && now[mine..]
                .iter()
                .zip(new)
                .all(|(h, s)| h.player.id() == s.player && i64::from(h.action) == s.action);
        if !same || self.play.version() != followed.version {
            return Err(self.diverges(total, followed.version));
        }
        for &(seat, hash) in followed.tokens {
            if let Some(SeatKind::Human { token_hash }) =
                self.table.seats.get_mut(seat).map(|s| &mut s.kind)
            {
                *token_hash = Some(hash.to_string());
            }
        }
        self.stamp_finished();
        let r = &mut self.record;
        r.written = total;
        r.held_written = r.held.clone();
        r.status_written = Some(followed.status);
        r.touched_ms = followed.touched_ms;
        r.touched_written = followed.touched_ms;
        if followed.finished_ms.is_some() {
            r.finished_ms = followed.finished_ms;
        }
        r.revision = followed.revision;
        r.base_version = followed.version;
        if let Some(epoch) = followed.epoch {
            r.stored_epoch = epoch;
        }
        if followed.status == Stored::Expired {
            r.expired = true;
        }
        Ok(true)
    }

    /// Applies stored decisions (`steps`, chance drawn again) and then `held` choices not
    /// made here yet.
    fn apply_stored(
        &mut self,
        steps: &[StepRow],
        held: &[(usize, u32)],
    ) -> Result<(), RestoreError> {
        for step in steps.iter().filter(|s| s.player >= 0) {
            let action =
                Action::try_from(step.action).map_err(|_| RestoreError::ActionOutOfRange {
                    action: step.action,
                })?;
            self.decide(step.player as usize, action)
                .map_err(RestoreError::DoesNotReplay)?;
        }
        for &(seat, action) in held {
            if !self.play.has_chosen(seat) {
                let action = Action::try_from(i64::from(action)).map_err(|_| {
                    RestoreError::ActionOutOfRange {
                        action: i64::from(action),
                    }
                })?;
                self.decide(seat, action)
                    .map_err(RestoreError::DoesNotReplay)?;
            }
        }
        Ok(())
    }

    /// Replaces this copy by `stored` replayed (cluster mode: a write of this copy was refused
    /// because another server wrote first, or it cannot `follow`), with `seats` as the match
    /// makes them. Its watchers stay, and are told of every stored step they were not sent yet;
    /// who owns it and its idle time stay too.
    pub fn reload(&mut self, stored: &StoredMatch, seats: Vec<Seat>) -> Result<(), RestoreError> {
        let shown = self
            .record
            .base_version
            .max(self.record.durability.borrow().version);
        let watchers = std::mem::take(&mut self.table.watchers);
        let mut fresh =
            Self::restore_watched(self.table.game.clone(), stored, seats, watchers, shown)?;
        fresh.table.plays_bots = self.table.plays_bots;
        fresh.record.owner = self.record.owner.clone();
        fresh.record.stored = self.record.stored;
        fresh.last_active = fresh.last_active.max(self.last_active);
        *self = fresh;
        Ok(())
    }

    /// The match's revision as this copy knows it (its own writes included, committed or not).
    pub fn revision(&self) -> u64 {
        self.record.revision
    }

    /// Whether a write of this copy is not committed yet.
    pub fn write_pending(&self) -> bool {
        self.record.seq != self.record.durability.borrow().committed || self.record.claiming
    }

    /// Whether a write of this copy failed: it is to be reloaded.
    pub fn write_failed(&self) -> bool {
        self.record.durability.borrow().failed.is_some()
    }

    /// Marks the match's writes as going to a store (what watchers are sent then waits for
    /// them to be committed).
    pub fn set_stored(&mut self) {
        self.record.stored = true;
    }

    /// Cluster mode: whether this server owns the match (with the epoch its writes are fenced
    /// by). Only the owner plays the bots.
    pub fn set_owner(&mut self, owner: Option<(Arc<str>, u64)>) {
        self.table.plays_bots = owner.is_some();
        self.record.owner = owner;
        self.record.claiming = false;
    }

    /// Cluster mode: makes this server the match's owner from its next write on, if the match
    /// waits only for human seats at a turn-based node (no bot is thinking anywhere then, and
    /// no bot holds a hidden choice): the write claims it (fenced by the revision alone, which
    /// pins the epoch it raises), so that the bots answer inside this server's `Act`, stored
    /// in the same commit. `false`: not claimable now (another server keeps playing the bots).
    pub fn claim(&mut self, instance: Arc<str>) -> bool {
        if self.owner().is_some() {
            return true;
        }
        let state = self.play.state();
        let humans_only = !state.is_terminal()
            && !state.is_simultaneous_node()
            && !self.waiting_on().is_empty()
            && !self.awaits_bot();
        if !humans_only {
            return false;
        }
        self.set_owner(Some((instance, self.record.stored_epoch + 1)));
        self.record.claiming = true;
        true
    }

    /// Undoes a `claim` no write carried (the call it was made for was refused).
    pub fn unclaim(&mut self) {
        if std::mem::take(&mut self.record.claiming) {
            self.set_owner(None);
        }
    }

    /// Cluster mode: this server's ownership of the match, if it owns it.
    pub fn owner(&self) -> Option<&(Arc<str>, u64)> {
        self.record.owner.as_ref()
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
            revision: r.revision + 1,
            owner: r.owner.clone(),
            claim: std::mem::take(&mut r.claiming),
            durability: r.durability.clone(),
        };
        if write.claim {
            r.stored_epoch += 1;
        }
        if write.create.is_some() {
            r.stored_epoch = write.owner.as_ref().map_or(0, |(_, e)| *e);
        }
        r.seq += 1;
        r.revision += 1;
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
            revision: self.record.revision,
            owner: self
                .record
                .owner
                .as_ref()
                .map(|(owner, epoch)| (owner.to_string(), *epoch)),
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

#[cfg(test)]
mod tests {
    use super::super::{ActionChoice, LiveMatch, Seat, SeatKind};
    use crate::store::Announced;

    fn pokeros() -> (LiveMatch, Vec<Seat>) {
        let game = checkraise_core::make_game("pokeros", [("players", "2".to_string())])
            .expect("valid parameters");
        let seats = || {
            (0..2)
                .map(|_| Seat {
                    connected: false,
                    kind_name: "human".into(),
                    kind: SeatKind::Human { token_hash: None },
                })
                .collect::<Vec<_>>()
        };
        let live = LiveMatch::new("m".into(), game, 7, seats()).expect("a match");
        (live, seats())
    }

    /// Seat `seat` of `live` takes its first legal action; the write it makes, announced and
    /// read back.
    fn act_and_announce(live: &mut LiveMatch, seat: usize) -> (u64, Announced) {
        let id = live.view(Some(seat)).legal_actions[0].id;
        live.act(seat, ActionChoice::Id(id))
            .expect("a legal action");
        let write = live.take_write().expect("a change to write");
        // Committed, as the store's writer tells a match.
        write.durability.send_modify(|d| {
            d.committed = write.seq;
            d.version = write.version;
        });
        let change = Announced::parse(&Announced::payload(&write)).expect("an announcement");
        (change.revision, *change.written.expect("what was written"))
    }

    #[test]
    fn a_copy_follows_another_servers_announced_write_to_the_same_match() {
        let (mut first, seats) = pokeros();
        first.take_write().expect("the creation");
        let mut second =
            LiveMatch::restore(first.game().clone(), &first.snapshot(), seats).expect("a copy");
        assert_eq!(second.revision(), first.revision());

        let (revision, written) = act_and_announce(&mut first, 0);
        // One revision ahead of the copy, several ahead, and the same one again.
        assert!(second.follow_announced(revision + 1, &written).is_err());
        assert_eq!(second.revision(), revision - 1);
        assert_eq!(second.follow_announced(revision, &written).ok(), Some(true));
        assert_eq!(
            second.follow_announced(revision, &written).ok(),
            Some(false)
        );
        for seat in [None, Some(0), Some(1)] {
            assert_eq!(second.view(seat).view_json, first.view(seat).view_json);
        }
        assert_eq!(
            (second.revision(), second.version()),
            (first.revision(), first.version())
        );

        // And back: the copy that followed acts, the first follows it.
        let seat = (0..2)
            .find(|&s| !second.view(Some(s)).legal_actions.is_empty())
            .expect("a seat to act");
        let (revision, written) = act_and_announce(&mut second, seat);
        assert_eq!(first.follow_announced(revision, &written).ok(), Some(true));
        assert_eq!(first.view(None).view_json, second.view(None).view_json);
    }

    #[test]
    fn a_copy_with_its_own_write_not_stored_does_not_follow_an_announcement() {
        let (mut first, seats) = pokeros();
        first.take_write().expect("the creation");
        let mut second =
            LiveMatch::restore(first.game().clone(), &first.snapshot(), seats).expect("a copy");
        let (revision, written) = act_and_announce(&mut first, 0);
        // The copy's own history moved on (not written yet): it cannot follow.
        let seat = (0..2)
            .find(|&s| !second.view(Some(s)).legal_actions.is_empty())
            .expect("a seat to act");
        let id = second.view(Some(seat)).legal_actions[0].id;
        second
            .act(seat, ActionChoice::Id(id))
            .expect("a legal action");
        assert!(second.follow_announced(revision, &written).is_err());
    }
}
