//! Cluster mode: several servers on one PostgreSQL database, any of them serving any call of
//! any match (see docs/cluster.md for the design and its failure cases).
//!
//! - Every server keeps copies of the matches it is asked about. A write states the revision
//!   it was made on and is refused if another server wrote since (`store::writer`): the
//!   history never forks. Before a call uses its copy, the server reads the stored revision
//!   and catches up if another server moved the match (`freshen`).
//! - Watchers are sent a change only once it is stored (`live_match::Gate`); changes another
//!   server made reach this server's watchers through PostgreSQL's `LISTEN`/`NOTIFY`, each
//!   applied in order (`LiveMatch::follow`).
//! - One server owns each match: it plays the bots and expires the match. Owners keep a
//!   heartbeat; a match whose owner's heartbeat is older than the lease is taken over by a
//!   survivor, its ownership epoch raised, so that a former owner that was only paused cannot
//!   write past the new one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::build_seats;
use super::error::MatchStoreError;
use super::match_store::{MatchStore, SharedMatch, on_blocking_pool, with_match};
use crate::live_match::{LiveMatch, MatchError, Seat};
use crate::store::{Loaded, Status as Stored, Store, StoreError, StoredMatch, now_ms};

/// This server's place in a cluster.
#[derive(Debug)]
pub struct Cluster {
    /// This server's instance id (random at each start).
    pub instance: Arc<str>,
    /// How long an owner's heartbeat stays valid: past it, its matches are taken over.
    pub lease: Duration,
    /// Where the other servers reach this one (`--cluster-advertise`), recorded with its
    /// heartbeat.
    pub address: Arc<str>,
    started_ms: i64,
}

impl Cluster {
    /// A new member with a random instance id and `lease`, reached at `address`.
    pub fn new(lease: Duration, address: &str) -> Self {
        Cluster {
            instance: crate::auth::random_hex(8).into(),
            lease,
            address: address.into(),
            started_ms: now_ms(),
        }
    }

    /// The ownership `stored` records, if it is this server's.
    pub(super) fn ownership(&self, stored: &StoredMatch) -> Option<(Arc<str>, u64)> {
        match &stored.owner {
            Some((owner, epoch)) if **owner == *self.instance => {
                Some((self.instance.clone(), *epoch))
            }
            _ => None,
        }
    }
}

/// The default lease: an owner silent this long has its matches taken over.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(2);

/// The database cannot be read for a match: logged here with the database's text, which the
/// call is never told.
fn unreachable(match_id: &str, source: StoreError) -> MatchStoreError {
    tracing::warn!(%match_id, error = %source, "the database cannot be read for a match");
    MatchStoreError::Unreachable {
        match_id: match_id.to_string(),
        source,
    }
}

impl MatchStore {
    /// This store as a member of `cluster`: its matches are shared with the other servers.
    pub fn with_cluster(mut self, cluster: Arc<Cluster>) -> Self {
        self.cluster = Some(cluster);
        self
    }

    /// The cluster this store is a member of.
    pub fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.cluster.as_ref()
    }

    fn shared_store(&self) -> Option<(&Arc<Cluster>, &Store)> {
        self.cluster.as_ref().zip(self.store.as_ref())
    }

    /// Cluster mode: brings this server's copy of `match_id` up to the stored match if another
    /// server moved it (one read of the revision when it did not).
    pub(super) async fn freshen(
        &self,
        match_id: &str,
        shared: &SharedMatch,
    ) -> Result<(), MatchStoreError> {
        let Some((_, store)) = self.shared_store() else {
            return Ok(());
        };
        let ours = with_match(shared.clone(), |live| live.revision()).await?;
        let loaded = store
            .load_if_newer(match_id, ours)
            .await
            .map_err(|e| unreachable(match_id, e))?;
        match loaded {
            None => {
                self.forget(match_id);
                Err(MatchStoreError::unknown(match_id))
            }
            Some(Loaded::Current(stored)) if stored.status != Stored::Expired => Ok(()),
            Some(Loaded::Current(_)) => {
                self.forget(match_id);
                Err(MatchStoreError::unknown(match_id))
            }
            Some(Loaded::Newer(stored)) => self.apply(match_id, shared, *stored).await,
        }
    }

    /// Reads `match_id` from the store and brings this server's copy up to it: the steps it
    /// lacks applied in order (or, when it cannot follow, the copy reloaded under its
    /// watchers); then, on its owner, the bots move if it is their turn.
    async fn catch_up(&self, match_id: &str, shared: &SharedMatch) -> Result<(), MatchStoreError> {
        let Some((_, store)) = self.shared_store() else {
            return Ok(());
        };
        let stored = store
            .load_at_once(match_id)
            .await
            .map_err(|e| unreachable(match_id, e))?;
        match stored {
            Some(stored) => self.apply(match_id, shared, stored).await,
            None => {
                self.forget(match_id);
                Err(MatchStoreError::unknown(match_id))
            }
        }
    }

    /// Brings this server's copy up to `stored` (see `catch_up`).
    async fn apply(
        &self,
        match_id: &str,
        shared: &SharedMatch,
        stored: StoredMatch,
    ) -> Result<(), MatchStoreError> {
        let Some((cluster, _)) = self.shared_store() else {
            return Ok(());
        };
        if stored.status == Stored::Expired {
            self.forget(match_id);
            return Err(MatchStoreError::unknown(match_id));
        }
        let owner = cluster.ownership(&stored);
        metrics::counter!("checkraise_cluster_follows_total", "from" => "store").increment(1);
        tracing::debug!(%match_id, revision = stored.revision, version = stored.version, "catching up");
        let caught_up = self
            .run(shared.clone(), shared.thinking_bots, move |live| {
                if live.follow(&stored).is_err() {
                    let seats = stored_seats(live, &stored)?;
                    live.reload(&stored, seats).map_err(MatchError::from)?;
                }
                live.set_owner(owner);
                if live.owner().is_some() && !live.is_finished() {
                    live.resume_bots()?;
                }
                Ok::<_, MatchStoreError>(())
            })
            .await;
        shared.followed.notify_waiters();
        caught_up
    }

    /// After a write of this server's copy was refused (another server wrote first): the copy
    /// reloaded from the store under its watchers, who are told of what they missed and never
    /// of the refused change. Then, on the owner, the bots move if it is their turn.
    pub(super) async fn recover(&self, match_id: &str) {
        let Some((cluster, store)) = self.shared_store() else {
            return;
        };
        let Some(shared) = self.matches.get(match_id) else {
            return;
        };
        let stored = match store.load_at_once(match_id).await {
            Ok(Some(stored)) if stored.status != Stored::Expired => stored,
            Ok(_) => {
                self.forget(match_id);
                return;
            }
            Err(error) => {
                tracing::warn!(%match_id, %error, "a refused match cannot be read again; it is dropped from memory");
                self.forget(match_id);
                return;
            }
        };
        let owner = cluster.ownership(&stored);
        let reloaded = with_match(shared.clone(), move |live| {
            if live.write_failed() {
                let seats = stored_seats(live, &stored)?;
                live.reload(&stored, seats).map_err(MatchError::from)?;
            }
            live.set_owner(owner);
            Ok::<_, MatchStoreError>(live.owner().is_some())
        })
        .await
        .and_then(|reloaded| reloaded);
        match reloaded {
            Ok(true) => {
                let this = self.clone();
                let id = match_id.to_string();
                tokio::spawn(async move {
                    if let Some(shared) = this.matches.get(&id) {
                        let _ = this.catch_up(&id, &shared).await;
                    }
                });
            }
            Ok(false) => {}
            Err(error) => {
                tracing::warn!(%match_id, %error, "a refused match cannot be reloaded; it is dropped from memory");
                self.forget(match_id);
            }
        }
    }

    /// `recover`, boxed: it is awaited inside `durable`, which `recover` reaches again (a
    /// type that names itself needs a box to be known `Send`).
    pub(super) fn recover_boxed(
        &self,
        match_id: String,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>> {
        let this = self.clone();
        Box::pin(async move { this.recover(&match_id).await })
    }

    /// Drops this server's copy of a match (its watchers told it is gone).
    fn forget(&self, match_id: &str) {
        if let Some(shared) = self.matches.remove(match_id)
            && let Ok(mut live) = shared.live.try_lock()
        {
            live.close_watchers(&MatchError::NotFound {
                match_id: match_id.to_string(),
            });
        }
    }

    /// A change another server announced: this server's copy follows it, if it has one and
    /// it is behind.
    #[cfg(feature = "postgres")]
    async fn heard(&self, change: crate::store::Change) {
        let (match_id, revision) = (change.match_id.as_str(), change.revision);
        let Some(shared) = self.matches.get(match_id) else {
            return;
        };
        // A copy one revision behind follows what the announcement says was written: no read,
        // so every copy does, and a call that reaches it next finds it current.
        if let Some(written) = change.written
            && self
                .follow_announced(match_id, &shared, revision, written)
                .await
        {
            return;
        }
        // A copy locked right now is busy: it is read again below, after the lock. A copy no
        // one watches or waits on, whose bots another server plays, is left to catch up at its
        // next call (`freshen`): following it now would cost a read for nothing.
        let awaited = shared.awaited.load(std::sync::atomic::Ordering::Relaxed) > 0;
        let behind = match shared.live.try_lock() {
            Ok(live) => {
                live.revision() < revision
                    && (awaited || live.owner().is_some() || live.has_watchers())
            }
            Err(_) => true,
        };
        tracing::debug!(%match_id, revision, behind, awaited, "heard a change");
        if behind && let Err(error) = self.freshen(match_id, &shared).await {
            tracing::debug!(%match_id, %error, "a change could not be followed");
        }
    }

    /// Brings this server's copy of `match_id` to `revision` from what another server
    /// announced it wrote (`written`), without reading the store; then, on its owner, the bots
    /// move if it is their turn. `false`: the copy could not follow that way (it is not at
    /// the revision before, or is busy); it is left to be read as before.
    #[cfg(feature = "postgres")]
    async fn follow_announced(
        &self,
        match_id: &str,
        shared: &SharedMatch,
        revision: u64,
        written: Box<crate::store::Announced>,
    ) -> bool {
        let Some((cluster, _)) = self.shared_store() else {
            return false;
        };
        if written.status() == Some(Stored::Expired) {
            return false;
        }
        // Not locked here when someone holds it: a change is applied under the lock, and a
        // copy locked for long (bots thinking) is read after it instead.
        let next = match shared.live.try_lock() {
            Ok(live) => live.revision() + 1 == revision,
            Err(_) => false,
        };
        if !next {
            return false;
        }
        let owner = written.owner.as_ref().map(|(owner, epoch)| {
            (**owner == *cluster.instance).then(|| (cluster.instance.clone(), *epoch))
        });
        let followed = self
            .run(shared.clone(), shared.thinking_bots, move |live| {
                match live.follow_announced(revision, &written) {
                    Ok(true) => {}
                    // Already as new (another call caught it up meanwhile).
                    Ok(false) => return Ok(true),
                    Err(_) => return Ok(false),
                }
                if let Some(owner) = owner {
                    live.set_owner(owner);
                }
                if live.owner().is_some() && !live.is_finished() {
                    live.resume_bots()?;
                }
                Ok::<_, MatchStoreError>(true)
            })
            .await;
        shared.followed.notify_waiters();
        match followed {
            Ok(true) => {
                metrics::counter!("checkraise_cluster_follows_total", "from" => "announcement")
                    .increment(1);
                tracing::debug!(%match_id, revision, "followed an announced change");
                true
            }
            // It could not follow: the copy is brought up to the store (reloaded if it must
            // be), as when no announcement carries what was written.
            Ok(false) => {
                if let Err(error) = self.catch_up(match_id, shared).await {
                    tracing::debug!(%match_id, %error, "a change could not be followed");
                }
                true
            }
            Err(error) => {
                tracing::debug!(%match_id, %error, "an announced change could not be followed");
                false
            }
        }
    }

    /// Every copy checked against the store (after the listener lost the database for a
    /// while and may have missed changes).
    #[cfg(feature = "postgres")]
    async fn freshen_all(&self) {
        for (id, shared) in self.matches.entries() {
            let _ = self.freshen(&id, &shared).await;
        }
    }

    /// Starts the cluster's background work: the change listener and the heartbeat (with
    /// taking over the matches of stopped servers). Returns their tasks.
    pub fn start_cluster(&self) -> Vec<tokio::task::JoinHandle<()>> {
        let Some((cluster, store)) = self.shared_store() else {
            return Vec::new();
        };
        tracing::info!(instance = %cluster.instance, lease_ms = cluster.lease.as_millis() as u64, "cluster mode: sharing the database with other servers");
        vec![
            tokio::spawn(self.clone().listen(store.clone())),
            tokio::spawn(self.clone().beat(cluster.clone(), store.clone())),
        ]
    }

    /// Follows every change announced on the database, reconnecting when it is lost.
    async fn listen(self, store: Store) {
        #[cfg(feature = "postgres")]
        loop {
            let mut listener = match crate::store::ChangeListener::connect(store.url()).await {
                Ok(listener) => listener,
                Err(error) => {
                    tracing::warn!(%error, "cannot listen to the other servers' changes; retrying");
                    store.report_failure(
                        "this server cannot hear the other servers' changes".to_string(),
                    );
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            // Changes made while no one listened are caught up with at once.
            let this = self.clone();
            tokio::spawn(async move { this.freshen_all().await });
            loop {
                match listener.next().await {
                    Ok(crate::store::Heard::Change(change)) => {
                        let this = self.clone();
                        tokio::spawn(async move { this.heard(change).await });
                    }
                    Ok(crate::store::Heard::Reconnected) => {
                        let this = self.clone();
                        tokio::spawn(async move { this.freshen_all().await });
                    }
                    Err(error) => {
                        tracing::warn!(%error, "lost the other servers' changes; listening again");
                        break;
                    }
                }
            }
        }
        #[cfg(not(feature = "postgres"))]
        {
            let _ = store;
        }
    }

    /// The heartbeat: every quarter lease, this server's heartbeat recorded, the matches of
    /// stopped servers taken over, and which matches this server owns read again (a server
    /// that was paused past its lease learns it owns them no more). A server whose heartbeat
    /// cannot be recorded for a whole lease gives up playing bots: the others take over.
    async fn beat(self, cluster: Arc<Cluster>, store: Store) {
        let mut ticker = tokio::time::interval(cluster.lease / 4);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_ok = Instant::now();
        loop {
            ticker.tick().await;
            if let Err(error) = store
                .heartbeat(&cluster.instance, cluster.started_ms, &cluster.address)
                .await
            {
                tracing::warn!(%error, "cannot record this server's heartbeat");
                store.report_failure("this server cannot record its heartbeat".to_string());
                if last_ok.elapsed() > cluster.lease {
                    self.disown_all().await;
                }
                continue;
            }
            // Paused (or starved) past the lease: whatever it owned may be another's now.
            if last_ok.elapsed() > cluster.lease {
                self.disown_all().await;
            }
            last_ok = Instant::now();
            let lease_ms = cluster.lease.as_millis() as i64;
            match store.take_over(&cluster.instance, lease_ms).await {
                Ok(taken) => {
                    for (id, epoch) in taken {
                        tracing::info!(match_id = %id, epoch, "took over a match of a stopped server");
                        let this = self.clone();
                        tokio::spawn(async move { this.adopt(&id).await });
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot take over the matches of stopped servers")
                }
            }
            match store.owned(&cluster.instance).await {
                Ok(owned) => self.reconcile(&cluster, &owned),
                Err(error) => tracing::warn!(%error, "cannot read which matches this server owns"),
            }
        }
    }

    /// A match this server took over: read from the store (or caught up), its bots let move.
    async fn adopt(&self, match_id: &str) {
        let outcome = match self.matches.get(match_id) {
            Some(shared) => self.catch_up(match_id, &shared).await,
            None => self.get(match_id).await.map(|_| ()),
        };
        match outcome {
            Ok(()) => tracing::debug!(%match_id, "a match taken over is served here"),
            Err(error) => {
                tracing::warn!(%match_id, %error, "a match taken over cannot be served yet")
            }
        }
    }

    /// Sets each copy's ownership to what the store says (`owned`: this server's matches and
    /// epochs); a copy locked right now is left for the next beat.
    fn reconcile(&self, cluster: &Cluster, owned: &[(String, u64)]) {
        let owned: std::collections::HashMap<&str, u64> =
            owned.iter().map(|(id, e)| (id.as_str(), *e)).collect();
        for (id, shared) in self.matches.entries() {
            // A copy locked right now, or whose writes are not all stored (a claim may be on
            // its way), is left for the next beat.
            let Ok(mut live) = shared.live.try_lock() else {
                continue;
            };
            if live.write_pending() {
                continue;
            }
            let should = owned
                .get(id.as_str())
                .map(|&e| (cluster.instance.clone(), e));
            if live.owner().map(|(_, e)| *e) != should.as_ref().map(|(_, e)| *e) {
                let gained = should.is_some() && live.owner().is_none();
                live.set_owner(should);
                drop(live);
                if gained {
                    let this = self.clone();
                    tokio::spawn(async move {
                        if let Some(shared) = this.matches.get(&id) {
                            let _ = this.catch_up(&id, &shared).await;
                        }
                    });
                }
            }
        }
    }

    /// Stops playing the bots of every copy (this server's lease lapsed).
    async fn disown_all(&self) {
        let matches = self.matches.entries();
        let _ = on_blocking_pool(move || {
            for (_, shared) in matches {
                let mut live = shared.live.lock().unwrap_or_else(|e| e.into_inner());
                live.set_owner(None);
            }
        })
        .await;
    }
}

/// The seats of a stored match, made again (bots built from their specs) for a reload.
fn stored_seats(live: &LiveMatch, stored: &StoredMatch) -> Result<Vec<Seat>, MatchStoreError> {
    let kinds: Vec<String> = serde_json::from_str(&stored.row.seats).map_err(|source| {
        MatchStoreError::SeatsUnreadable {
            match_id: stored.id.clone(),
            source,
        }
    })?;
    Ok(build_seats(live.game().as_ref(), kinds, None)?)
}
