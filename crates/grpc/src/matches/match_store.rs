//! Every live match of the server by id (`MatchStore`): each behind its lock, counted against
//! the server's limits (`sessions`), stored in the durable store and read back from it, and
//! run on tokio's blocking pool when its bots may think.

use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::build_seats;
use super::error::{MatchStoreError, ResumeError};
use crate::live_match::{LiveMatch, MatchError, stored_game};
use crate::sessions::{Activity, Expiry, Limits, Reservation, Sessions, Weight};
use crate::store::{
    Durability, MatchFilter, Status as Stored, Store, StoreError, StoredMatch, now_ms,
};

/// A match in the store: the match behind its lock, and whether any seat is a bot that may
/// think for long (fixed at creation, so readable without the lock).
pub(super) struct MatchEntry {
    pub(super) live: Mutex<LiveMatch>,
    /// Cluster mode: told each time this copy caught up with another server's change.
    pub(super) followed: tokio::sync::Notify,
    /// Cluster mode: calls waiting for this copy to follow the owner's bots (`after_bots`).
    pub(super) awaited: std::sync::atomic::AtomicUsize,
    pub(super) thinking_bots: bool,
}

pub(super) type SharedMatch = Arc<MatchEntry>;

/// What a reply must wait for before it is sent: the match's writes up to `seq` committed
/// (nothing with no store).
pub struct Durable(Option<(watch::Receiver<Durability>, u64)>);

/// Every live match, by id, with the server's limits (the server's `sessions` store: each match
/// counts one unit, against `--max-matches` and `--max-matches-per-peer`), and the durable store
/// behind them (none with `--database memory`).
#[derive(Clone)]
pub struct MatchStore {
    pub(super) matches: Sessions<SharedMatch>,
    pub(super) store: Option<Store>,
    finished_expiry: Duration,
    /// `--max-message-size`: views larger than it (less `wire::REPLY_SLACK`) leave parts out,
    /// and CreateMatch refuses a match whose whole views already are.
    pub(super) message_limit: usize,
    /// Finished ladder games whose duplicate set is still being played (`StoredMatch::sealed`).
    sealed: Arc<Mutex<std::collections::HashSet<String>>>,
    /// Cluster mode: the store is shared with other servers (see `cluster`).
    pub(super) cluster: Option<Arc<super::cluster::Cluster>>,
}

impl MatchStore {
    /// An empty store that holds at most `max_matches`, in memory only.
    pub fn new(max_matches: usize) -> Self {
        Self::with_store(max_matches, None, Duration::ZERO)
    }

    /// An empty store that holds at most `max_matches` and stores them in `store`; a finished
    /// match is read back from it while no request has touched it for `finished_expiry` (so a
    /// retry of the call that ended the game finds it after a restart).
    pub fn with_store(max_matches: usize, store: Option<Store>, finished_expiry: Duration) -> Self {
        MatchStore {
            matches: Sessions::new(Limits::units(max_matches)),
            store,
            finished_expiry,
            message_limit: usize::MAX,
            sealed: Arc::default(),
            cluster: None,
        }
    }

    /// This store holding at most `matches` created from one client address
    /// (`--max-matches-per-peer`), so that one client cannot fill `--max-matches` alone.
    pub fn with_peer_share(self, matches: usize) -> Self {
        let mut limits = self.matches.limits();
        limits.per_peer.units = matches;
        self.matches.set_limits(limits);
        self
    }

    /// This store with every match's views capped by `bytes` (`--max-message-size`).
    pub fn with_message_limit(mut self, bytes: usize) -> Self {
        self.message_limit = bytes;
        self
    }

    /// The match with this id: in memory, or else (with a store) a live match, or a finished
    /// one not yet expired, read back from the store and resumed.
    pub(super) async fn get(&self, match_id: &str) -> Result<SharedMatch, MatchStoreError> {
        if let Some(shared) = self.matches.get(match_id) {
            // Cluster mode: another server may have moved the match since.
            self.freshen(match_id, &shared).await?;
            return Ok(shared);
        }
        let Some(store) = &self.store else {
            return Err(MatchStoreError::unknown(match_id));
        };
        let stored = store
            .load(match_id)
            .await?
            .filter(|m| match m.status {
                Stored::Live => true,
                Stored::Finished => {
                    now_ms().saturating_sub(m.touched_ms) < self.finished_expiry.as_millis() as i64
                }
                Stored::Expired => false,
            })
            .ok_or_else(|| MatchStoreError::unknown(match_id))?;
        self.resume(stored).await.map_err(|source| {
            tracing::error!(%match_id, error = %source, "a stored match cannot be resumed");
            MatchStoreError::NotResumed {
                match_id: match_id.to_string(),
                source: Box::new(source),
            }
        })?;
        self.matches
            .get(match_id)
            .ok_or_else(|| MatchStoreError::unknown(match_id))
    }

    /// The match with this id, as `get` gives it, but in cluster mode without reading the
    /// store when this server's copy shows `expected` (the version an `Act` was chosen on):
    /// its write is fenced anyway, and a refused one is retried (see `is_conflict`).
    ///
    /// Returns the match and whether the read was skipped: a call refused on such a copy is
    /// made again after `get` (the copy may lack a token, a held choice or a new owner).
    pub(super) async fn get_current(
        &self,
        match_id: &str,
        expected: Option<u64>,
    ) -> Result<(SharedMatch, bool), MatchStoreError> {
        if self.cluster.is_some()
            && let (Some(expected), Some(shared)) = (expected, self.matches.get(match_id))
        {
            let current = with_match(shared.clone(), move |live| {
                live.version() == expected && !live.write_failed()
            })
            .await?;
            if current {
                return Ok((shared, true));
            }
        }
        Ok((self.get(match_id).await?, false))
    }

    /// Resumes every live match of the store (at start); returns how many.
    pub async fn resume_all(&self) -> Result<usize, StoreError> {
        let Some(store) = &self.store else {
            return Ok(0);
        };
        // Cluster mode: live matches are served by their owners; those of stopped servers
        // are taken over by the heartbeat.
        if self.cluster.is_some() {
            return Ok(0);
        }
        let stored = store.matches_with_status(Stored::Live).await?;
        let mut resumed = 0;
        for m in stored {
            let id = m.id.clone();
            match self.resume(m).await {
                Ok(()) => resumed += 1,
                Err(error) => {
                    tracing::error!(match_id = %id, %error, "a stored match cannot be resumed")
                }
            }
        }
        Ok(resumed)
    }

    /// Makes a stored match live again: its history replayed, then its bots let act if it is
    /// their turn (on the blocking pool), what they did stored.
    async fn resume(&self, stored: StoredMatch) -> Result<(), ResumeError> {
        let game = stored_game(&stored.row)?;
        let kinds: Vec<String> =
            serde_json::from_str(&stored.row.seats).map_err(ResumeError::Seats)?;
        let seats = build_seats(game.as_ref(), kinds, None).map_err(MatchStoreError::from)?;
        let this = self.clone();
        let owner = self.cluster.as_ref().map(|c| c.ownership(&stored));
        let (durable, id) = on_blocking_pool(move || -> Result<_, MatchStoreError> {
            let mut live = LiveMatch::restore(game, &stored, seats).map_err(MatchError::from)?;
            live.set_stored();
            // Cluster mode: only the match's owner plays its bots.
            if let Some(owner) = owner {
                live.set_owner(owner);
            }
            if live.owner().is_some() || this.cluster.is_none() {
                live.resume_bots().map_err(MatchStoreError::from)?;
            }
            let durable = this.persist(&mut live);
            let id = live.id().to_string();
            this.matches.restore(&id, Weight::units(1), || {
                Arc::new(MatchEntry {
                    thinking_bots: live.has_thinking_bots(),
                    live: Mutex::new(live),
                    followed: tokio::sync::Notify::new(),
                    awaited: std::sync::atomic::AtomicUsize::new(0),
                })
            });
            Ok((durable, id))
        })
        .await??;
        Ok(self.durable(&id, durable).await?)
    }

    /// Queues the match's change since its last write (with a store), and says what a reply
    /// showing the match now must wait for. Call it with the match locked.
    pub(super) fn persist(&self, live: &mut LiveMatch) -> Durable {
        let Some(store) = &self.store else {
            return Durable(None);
        };
        if let Some(write) = live.take_write() {
            store.send(write);
        }
        Durable(Some(live.durable_point()))
    }

    /// Waits until the writes a reply depends on are committed. If one failed, the match is
    /// dropped from memory (the next request reads it back from the store, as it was last
    /// stored) and the caller gets UNAVAILABLE.
    async fn durable(&self, match_id: &str, durable: Durable) -> Result<(), MatchStoreError> {
        let Durable(Some((mut watch, seq))) = durable else {
            return Ok(());
        };
        let (failed, conflict) = match watch
            .wait_for(|d| d.committed >= seq || d.failed.is_some())
            .await
        {
            Ok(d) if d.committed >= seq => return Ok(()),
            // The database's own text stays in the writer's log line (with the match id):
            // a reply names what failed in the service's words.
            Ok(d) => ("the store failed", d.conflict),
            Err(_) => ("the store's writer has stopped", false),
        };
        if conflict && self.cluster.is_some() {
            self.recover_boxed(match_id.to_string()).await;
            return Err(MatchStoreError::Conflict {
                match_id: match_id.to_string(),
            });
        }
        if let Some(shared) = self.matches.remove(match_id)
            && let Ok(mut live) = shared.live.try_lock()
        {
            live.close_watchers(&MatchError::NotStored);
        }
        Err(MatchStoreError::NotStored {
            match_id: match_id.to_string(),
            failed,
        })
    }

    /// Runs `f` on the match with its lock held (on the blocking pool when `blocking`, else
    /// as `with_match` does), stores what it changed, and answers once that is committed. `f`'s
    /// own refusals are its error type's, which the store's failures convert into.
    pub(super) async fn run<R, E, F>(
        &self,
        shared: SharedMatch,
        blocking: bool,
        f: F,
    ) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<MatchStoreError> + Send + 'static,
        F: FnOnce(&mut LiveMatch) -> Result<R, E> + Send + 'static,
    {
        let this = self.clone();
        let work = move |live: &mut LiveMatch| {
            let result = f(live);
            let id = live.id().to_string();
            (result, this.persist(live), id)
        };
        let (result, durable, id) = if blocking {
            on_blocking_pool(move || work(&mut lock(&shared))).await?
        } else {
            with_match(shared, work).await?
        };
        self.durable(&id, durable).await?;
        result
    }

    /// Adds a new match in the room reserved for it (`reserve_new`), stored before anyone can
    /// know its id, and answers once it is committed.
    pub async fn store_new(
        &self,
        mut live: LiveMatch,
        room: MatchRoom,
    ) -> Result<(), MatchStoreError> {
        let MatchRoom(room) = room;
        if self.store.is_some() {
            live.set_stored();
        }
        // Cluster mode: the server that creates a match owns it first.
        if let Some(cluster) = &self.cluster {
            live.set_owner(Some((cluster.instance.clone(), 1)));
        }
        let id = live.id().to_string();
        let durable = self.persist(&mut live);
        let entry = MatchEntry {
            thinking_bots: live.has_thinking_bots(),
            live: Mutex::new(live),
            followed: tokio::sync::Notify::new(),
            awaited: std::sync::atomic::AtomicUsize::new(0),
        };
        room.keep(id.clone(), Arc::new(entry));
        self.durable(&id, durable).await
    }

    /// Room for a new match made by the client at `peer`, held until the match is stored or
    /// the reservation dropped; RESOURCE_EXHAUSTED when the store is full, or the client has
    /// its share.
    pub fn reserve_new(&self, peer: Option<IpAddr>) -> Result<MatchRoom, MatchStoreError> {
        self.matches
            .reserve(peer, Weight::units(1))
            .map(MatchRoom)
            .map_err(MatchStoreError::Full)
    }

    /// Keeps a match's seed and cards hidden after its end, as a live match's are, until
    /// `unseal` (a ladder game whose deal a game still to be played shares).
    pub fn seal(&self, match_id: &str) {
        self.sealed_ids().insert(match_id.to_string());
    }

    /// Undoes `seal`: the finished match is revealed as any other.
    pub fn unseal(&self, match_id: &str) {
        self.sealed_ids().remove(match_id);
    }

    fn sealed_ids(&self) -> MutexGuard<'_, std::collections::HashSet<String>> {
        self.sealed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `m` marked sealed if it is.
    fn marked(&self, mut m: StoredMatch) -> StoredMatch {
        m.sealed = self.sealed_ids().contains(&m.id);
        m
    }

    /// Runs `f` on the match `match_id` with its lock held (on the blocking pool when
    /// `blocking`: the bots may think), stores what it changed, and answers once that is
    /// committed: how the server itself plays a match (the ladder).
    pub async fn with_live<R, E, F>(&self, match_id: &str, blocking: bool, f: F) -> Result<R, E>
    where
        R: Send + 'static,
        E: From<MatchStoreError> + Send + 'static,
        F: FnOnce(&mut LiveMatch) -> Result<R, E> + Send + 'static,
    {
        let shared = self.get(match_id).await?;
        self.run(shared, blocking, f).await
    }

    /// Ends a match that will not be played on (a ladder game left unfinished by a restart):
    /// stored as expired and removed from memory. A match not in memory is left as it is
    /// (in cluster mode it is read from the store first: another server may have played it).
    pub async fn expire_now(&self, match_id: &str) -> Result<(), MatchStoreError> {
        if self.matches.get(match_id).is_none() && self.cluster().is_some() {
            // Cluster mode: the match may live in the store only (another server played it).
            self.get(match_id).await?;
        }
        let Some(shared) = self.matches.remove(match_id) else {
            return Ok(());
        };
        let this = self.clone();
        let id = match_id.to_string();
        let durable = on_blocking_pool(move || {
            let mut live = lock(&shared);
            live.close_watchers(&MatchError::NotFound { match_id: id });
            if !live.is_finished() {
                live.expire();
            }
            this.persist(&mut live)
        })
        .await?;
        self.durable(match_id, durable).await
    }

    /// Number of live matches.
    pub fn len(&self) -> usize {
        self.matches.len()
    }

    /// Whether no match is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes the matches the expiry policy does not keep (no request for `expiry.idle`, or
    /// `expiry.finished` once the game is over); returns how many. With a store, an unfinished
    /// match removed is stored as expired. (The time of a match's last request is not stored,
    /// since a request such as a hidden choice must leave no trace anyone can read: after a
    /// restart, idle expiry counts from the match's last public change.)
    pub fn expire_idle(&self, expiry: Expiry) -> usize {
        let now = Instant::now();
        self.matches.retain(|id, shared| {
            // A match locked right now is in use, so not idle.
            let Ok(mut live) = shared.live.try_lock() else {
                return true;
            };
            let activity = Activity::Idle {
                since: live.last_active(),
                finished: live.is_finished(),
            };
            let keep = expiry.keeps(activity, now);
            // Cluster mode: a match another server owns is only this server's copy; it is
            // dropped from memory, not expired (its owner decides that), unless it is watched.
            if self.cluster.is_some() && live.owner().is_none() {
                return keep || live.has_watchers();
            }
            if !keep {
                tracing::info!(match_id = %id, "match expired after being idle");
                live.close_watchers(&MatchError::NotFound {
                    match_id: id.to_string(),
                });
                if !live.is_finished() {
                    live.expire();
                }
                let _ = self.persist(&mut live);
            }
            keep
        })
    }

    /// Ends every watch stream (at shutdown, so that graceful shutdown is not held open by
    /// streams of unfinished matches). It waits for each match's lock, which bots may hold
    /// while they think: call it on the blocking pool.
    pub fn close_all_watchers(&self, why: &MatchError) {
        for (_, shared) in self.matches.entries() {
            lock(&shared).close_watchers(why);
        }
    }

    /// Stores whatever each match has not stored yet and waits until every write is committed
    /// (at shutdown, before the store closes).
    pub async fn store_all(&self) {
        let matches = self.matches.entries();
        let this = self.clone();
        let pending = on_blocking_pool(move || {
            matches
                .into_iter()
                .map(|(id, shared)| (id, this.persist(&mut lock(&shared))))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        for (id, durable) in pending {
            let _ = self.durable(&id, durable).await;
        }
    }
}

/// Room reserved in the store for a match being made (`MatchStore::reserve_new`); dropped
/// unused, it is freed.
#[must_use = "dropping the room frees it"]
pub struct MatchRoom(Reservation<SharedMatch>);

fn lock(shared: &SharedMatch) -> MutexGuard<'_, LiveMatch> {
    shared.live.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on tokio's blocking pool: bots thinking, or waiting for a match's lock while they
/// think, never occupy an async worker.
pub(super) async fn on_blocking_pool<R, F>(f: F) -> Result<R, MatchStoreError>
where
    R: Send + 'static,
    F: FnOnce() -> R + Send + 'static,
{
    tokio::task::spawn_blocking(f).await.map_err(|error| {
        tracing::error!(%error, "a blocking task of the Matches service failed");
        MatchStoreError::TaskFailed(error.to_string())
    })
}

/// Runs `f` on the match with its lock held, never blocking an async worker on the lock: at
/// once when the match is free (the common case, with no thread hop), else on the blocking
/// pool, where the request waits for the bots holding the lock to finish.
pub(super) async fn with_match<R, F>(shared: SharedMatch, f: F) -> Result<R, MatchStoreError>
where
    R: Send + 'static,
    F: FnOnce(&mut LiveMatch) -> R + Send + 'static,
{
    let f = match try_with_match(&shared, f) {
        Ok(done) => return Ok(done),
        Err(f) => f,
    };
    on_blocking_pool(move || f(&mut lock(&shared))).await
}

/// `f` on the match if its lock is free now; `f` back if bots hold it.
fn try_with_match<R, F>(shared: &SharedMatch, f: F) -> Result<R, F>
where
    F: FnOnce(&mut LiveMatch) -> R,
{
    match shared.live.try_lock() {
        Ok(mut live) => Ok(f(&mut live)),
        Err(TryLockError::Poisoned(poisoned)) => Ok(f(&mut poisoned.into_inner())),
        Err(TryLockError::WouldBlock) => Err(f),
    }
}

impl MatchStore {
    /// The matches `filter` admits, in the listing's order: from the store, or without one
    /// from memory.
    pub(super) async fn list(
        &self,
        filter: MatchFilter,
    ) -> Result<Vec<StoredMatch>, MatchStoreError> {
        if let Some(store) = &self.store {
            return Ok(store
                .list(&filter)
                .await?
                .into_iter()
                .map(|m| self.marked(m))
                .collect());
        }
        let shared: Vec<SharedMatch> = self.matches.entries().into_iter().map(|(_, m)| m).collect();
        on_blocking_pool(move || {
            let mut listed: Vec<StoredMatch> = shared
                .iter()
                .map(|m| lock(m).snapshot())
                .filter(|m| filter.admits(m))
                .collect();
            listed.sort_by(|a, b| (a.row.created_ms, &a.id).cmp(&(b.row.created_ms, &b.id)));
            listed.truncate(filter.limit);
            listed
        })
        .await
        .map(|listed| listed.into_iter().map(|m| self.marked(m)).collect())
    }

    /// A match as stored (from memory when it is there, which is newer), for a replay.
    pub(super) async fn stored(&self, match_id: &str) -> Result<StoredMatch, MatchStoreError> {
        let in_memory = self.matches.get(match_id);
        if let Some(shared) = in_memory {
            // Cluster mode: this server's copy may be behind the store.
            self.freshen(match_id, &shared).await?;
            return with_match(shared, |live| {
                // Reading a replay is a request like any other: the match stays while it is read.
                live.touch();
                live.snapshot()
            })
            .await
            .map(|m| self.marked(m));
        }
        match &self.store {
            Some(store) => store
                .load(match_id)
                .await?
                .map(|m| self.marked(m))
                .ok_or_else(|| MatchStoreError::unknown(match_id)),
            None => Err(MatchStoreError::unknown(match_id)),
        }
    }
}
