//! One store for whatever the server keeps open for its clients between calls: matches, env
//! batches, dm_env_rpc worlds. Each session is kept by id with the client address that made
//! it and what it holds against the store's limits (its `Weight`: units, such as one match or
//! a batch's envs, and bytes, such as a batch's opponent policies). The store refuses a new
//! session that would take more than the whole store's limits or one client's share, counts
//! what every session and every client holds, and drops the sessions the expiry policy
//! (`Expiry`) says are done, judged by what each session says of itself (`Activity`).
//!
//! There is no transport here: a refusal is a `Refusal` with its numbers, which each service
//! words for its own clients (its nouns, its flags, its status codes).

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// What a session holds against a store's limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Weight {
    /// Units: one match or world, or a batch's envs.
    pub units: usize,
    /// Bytes: a batch's opponent policies.
    pub bytes: usize,
}

impl Weight {
    /// `units` units and no bytes.
    pub const fn units(units: usize) -> Weight {
        Weight { units, bytes: 0 }
    }

    fn add(&mut self, other: Weight) {
        self.units += other.units;
        self.bytes += other.bytes;
    }

    fn sub(&mut self, other: Weight) {
        self.units -= other.units;
        self.bytes -= other.bytes;
    }
}

/// A store's limits: the most all sessions may hold together, and the most the sessions made
/// from one client address may (a client's share, so that one client cannot fill the store).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most all sessions hold.
    pub most: Weight,
    /// The most one client address's sessions hold.
    pub per_peer: Weight,
}

impl Limits {
    /// At most `units` units in all and no other limit.
    pub const fn units(units: usize) -> Limits {
        Limits {
            most: Weight {
                units,
                bytes: usize::MAX,
            },
            per_peer: Weight {
                units: usize::MAX,
                bytes: usize::MAX,
            },
        }
    }
}

/// What a refused session would have gone over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Over {
    /// The store's units.
    Units,
    /// The store's bytes.
    Bytes,
    /// The client's share of units.
    PeerUnits(IpAddr),
    /// The client's share of bytes.
    PeerBytes(IpAddr),
}

/// Why a new session was refused, with the numbers a message needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The limit it would have gone over.
    pub over: Over,
    /// What the store (or the client) holds already, in the limit's measure.
    pub held: usize,
    /// What the new session would add, in the limit's measure.
    pub adding: usize,
    /// The limit.
    pub most: usize,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (who, what) = match self.over {
            Over::Units => ("the store".to_string(), "units"),
            Over::Bytes => ("the store".to_string(), "bytes"),
            Over::PeerUnits(peer) => (format!("client address {peer}"), "units"),
            Over::PeerBytes(peer) => (format!("client address {peer}"), "bytes"),
        };
        write!(
            f,
            "{} more {what} would give {who} {}, over its most of {}",
            self.adding,
            self.held + self.adding,
            self.most
        )
    }
}

impl std::error::Error for Refusal {}

/// What a session says of itself when the store looks for expired ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    /// In use right now (a request or a step holds it): never expired.
    InUse,
    /// Held open by a client attached to it (a dm_env_rpc world with an agent joined):
    /// never expired while attached.
    Held,
    /// Last touched by a request at `since`; `finished`: its game is over.
    Idle {
        /// When a request last touched it.
        since: Instant,
        /// Whether its game is over (the policy's `finished` limit applies, not `idle`).
        finished: bool,
    },
}

/// The expiry policy every face's sessions follow: a session no request has touched for
/// `idle` goes, or for `finished` once its game is over; one in use or held by an attached
/// client stays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expiry {
    /// How long an idle session is kept.
    pub idle: Duration,
    /// How long a session whose game is over is kept after its last request.
    pub finished: Duration,
}

impl Expiry {
    /// Whether a session with this activity is kept at `now`.
    pub fn keeps(&self, activity: Activity, now: Instant) -> bool {
        match activity {
            Activity::InUse | Activity::Held => true,
            Activity::Idle { since, finished } => {
                let limit = if finished { self.finished } else { self.idle };
                now.saturating_duration_since(since) < limit
            }
        }
    }

    /// How often a store should look for expired sessions: a quarter of the shorter limit,
    /// from 100 ms to 30 s, so that a session goes at most a quarter late.
    pub fn sweep_period(&self) -> Duration {
        (self.finished.min(self.idle) / 4)
            .clamp(Duration::from_millis(100), Duration::from_secs(30))
    }
}

/// A session in the store, with who made it and what it holds.
struct Kept<S> {
    session: S,
    peer: Option<IpAddr>,
    weight: Weight,
}

struct Inner<S> {
    limits: Limits,
    by_id: HashMap<String, Kept<S>>,
    /// Held by every session, kept or reserved.
    held: Weight,
    /// Held by each client address's sessions, kept or reserved.
    by_peer: HashMap<IpAddr, Weight>,
}

impl<S> Inner<S> {
    fn count(&mut self, peer: Option<IpAddr>, weight: Weight) {
        self.held.add(weight);
        if let Some(peer) = peer {
            self.by_peer.entry(peer).or_default().add(weight);
        }
    }

    fn free(&mut self, peer: Option<IpAddr>, weight: Weight) {
        self.held.sub(weight);
        if let Some(peer) = peer
            && let Some(held) = self.by_peer.get_mut(&peer)
        {
            held.sub(weight);
            if *held == Weight::default() {
                self.by_peer.remove(&peer);
            }
        }
    }
}

/// The store: sessions of type `S` (usually a shared handle such as `Arc<Mutex<T>>`) by id.
/// Clones share it.
pub struct Sessions<S> {
    inner: Arc<Mutex<Inner<S>>>,
}

impl<S> Clone for Sessions<S> {
    fn clone(&self) -> Self {
        Sessions {
            inner: self.inner.clone(),
        }
    }
}

impl<S> fmt::Debug for Sessions<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sessions")
            .field("len", &self.len())
            .field("held", &self.held())
            .field("limits", &self.limits())
            .finish()
    }
}

/// Room reserved for a session being made: `keep` puts it in the store; dropped unkept, the
/// room is freed.
#[must_use = "dropping a reservation frees its room"]
pub struct Reservation<S> {
    store: Sessions<S>,
    peer: Option<IpAddr>,
    weight: Weight,
    kept: bool,
}

impl<S> fmt::Debug for Reservation<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reservation")
            .field("peer", &self.peer)
            .field("weight", &self.weight)
            .finish_non_exhaustive()
    }
}

impl<S> Reservation<S> {
    /// Keeps `session` under `id` in the reserved room (replacing a session with that id,
    /// whose room is freed).
    pub fn keep(mut self, id: String, session: S) {
        self.kept = true;
        let mut inner = self.store.lock();
        let kept = Kept {
            session,
            peer: self.peer,
            weight: self.weight,
        };
        if let Some(old) = inner.by_id.insert(id, kept) {
            inner.free(old.peer, old.weight);
        }
    }
}

impl<S> Drop for Reservation<S> {
    fn drop(&mut self) {
        if !self.kept {
            self.store.lock().free(self.peer, self.weight);
        }
    }
}

/// A session taken out of the store whose room is still held (`Sessions::take`): dropping
/// it frees the room, after whatever the caller waited for (a step in flight).
#[must_use = "dropping a taken session frees its room"]
pub struct Taken<S> {
    store: Sessions<S>,
    peer: Option<IpAddr>,
    weight: Weight,
    /// The session.
    pub session: S,
}

impl<S> Drop for Taken<S> {
    fn drop(&mut self) {
        self.store.lock().free(self.peer, self.weight);
    }
}

impl<S> Sessions<S> {
    /// An empty store with these limits.
    pub fn new(limits: Limits) -> Self {
        Sessions {
            inner: Arc::new(Mutex::new(Inner {
                limits,
                by_id: HashMap::new(),
                held: Weight::default(),
                by_peer: HashMap::new(),
            })),
        }
    }

    /// Its limits.
    pub fn limits(&self) -> Limits {
        self.lock().limits
    }

    /// Changes its limits (for every clone); what is kept stays.
    pub fn set_limits(&self, limits: Limits) {
        self.lock().limits = limits;
    }

    fn lock(&self) -> MutexGuard<'_, Inner<S>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reserves room for a session of `weight` made by the client at `peer` (none: made by
    /// the server itself, counted in the store's limits only), or says which limit it would
    /// go over: the store's units, its bytes, the client's units, the client's bytes, in that
    /// order.
    pub fn reserve(&self, peer: Option<IpAddr>, weight: Weight) -> Result<Reservation<S>, Refusal> {
        let mut inner = self.lock();
        let check = |over, held: usize, adding: usize, most: usize| {
            if held.saturating_add(adding) > most {
                Err(Refusal {
                    over,
                    held,
                    adding,
                    most,
                })
            } else {
                Ok(())
            }
        };
        let (most, held) = (inner.limits.most, inner.held);
        check(Over::Units, held.units, weight.units, most.units)?;
        check(Over::Bytes, held.bytes, weight.bytes, most.bytes)?;
        if let Some(peer) = peer {
            let held = inner.by_peer.get(&peer).copied().unwrap_or_default();
            let share = inner.limits.per_peer;
            check(Over::PeerUnits(peer), held.units, weight.units, share.units)?;
            check(Over::PeerBytes(peer), held.bytes, weight.bytes, share.bytes)?;
        }
        inner.count(peer, weight);
        drop(inner);
        Ok(Reservation {
            store: self.clone(),
            peer,
            weight,
            kept: false,
        })
    }

    /// Keeps a session the server itself brings back (a match resumed from its database),
    /// whatever the limits, unless one with that id is kept already; `make` makes it only
    /// then.
    pub fn restore(&self, id: &str, weight: Weight, make: impl FnOnce() -> S) {
        let mut inner = self.lock();
        if inner.by_id.contains_key(id) {
            return;
        }
        inner.count(None, weight);
        let session = make();
        inner.by_id.insert(
            id.to_string(),
            Kept {
                session,
                peer: None,
                weight,
            },
        );
    }

    /// The session kept under `id`.
    pub fn get(&self, id: &str) -> Option<S>
    where
        S: Clone,
    {
        self.lock().by_id.get(id).map(|k| k.session.clone())
    }

    /// Runs `f` on the session kept under `id`, with the store locked (for sessions kept by
    /// value, changed in place).
    pub fn with<R>(&self, id: &str, f: impl FnOnce(&mut S) -> R) -> Option<R> {
        self.lock().by_id.get_mut(id).map(|k| f(&mut k.session))
    }

    /// Removes the session kept under `id` and frees its room.
    pub fn remove(&self, id: &str) -> Option<S> {
        let mut inner = self.lock();
        let kept = inner.by_id.remove(id)?;
        inner.free(kept.peer, kept.weight);
        Some(kept.session)
    }

    /// Removes the session kept under `id` if `may` allows it (with the store locked), and
    /// frees its room; `Ok(None)`: no such session; `Err`: what `may` said.
    pub fn remove_if<E>(
        &self,
        id: &str,
        may: impl FnOnce(&S) -> Result<(), E>,
    ) -> Result<Option<S>, E> {
        let mut inner = self.lock();
        let Some(kept) = inner.by_id.get(id) else {
            return Ok(None);
        };
        may(&kept.session)?;
        let kept = inner.by_id.remove(id).expect("checked above");
        inner.free(kept.peer, kept.weight);
        Ok(Some(kept.session))
    }

    /// Takes the session kept under `id` out of the store, its room still held until the
    /// returned `Taken` is dropped.
    pub fn take(&self, id: &str) -> Option<Taken<S>> {
        let kept = self.lock().by_id.remove(id)?;
        Some(Taken {
            store: self.clone(),
            peer: kept.peer,
            weight: kept.weight,
            session: kept.session,
        })
    }

    /// Keeps only the sessions `keep` says to keep (called with the store locked, so it must
    /// not block: try locks); frees the others' room; returns how many went.
    pub fn retain(&self, mut keep: impl FnMut(&str, &mut S) -> bool) -> usize {
        let mut inner = self.lock();
        let mut freed = Vec::new();
        inner.by_id.retain(|id, kept| {
            let keep = keep(id, &mut kept.session);
            if !keep {
                freed.push((kept.peer, kept.weight));
            }
            keep
        });
        for (peer, weight) in &freed {
            inner.free(*peer, *weight);
        }
        freed.len()
    }

    /// Removes the sessions `expiry` does not keep, each judged by its `activity` (called with
    /// the store locked, so it must not block: try locks), and frees their room; returns the
    /// ids that went. A face whose expired sessions need more than removing (watchers told,
    /// a record stored) does that in `retain` under the same lock, asking `Expiry::keeps`.
    pub fn expire(
        &self,
        expiry: Expiry,
        mut activity: impl FnMut(&str, &mut S) -> Activity,
    ) -> Vec<String> {
        let now = Instant::now();
        let mut gone = Vec::new();
        self.retain(|id, session| {
            let keep = expiry.keeps(activity(id, session), now);
            if !keep {
                gone.push(id.to_string());
            }
            keep
        });
        gone
    }

    /// Every kept session with its id, in no order.
    pub fn entries(&self) -> Vec<(String, S)>
    where
        S: Clone,
    {
        self.lock()
            .by_id
            .iter()
            .map(|(id, k)| (id.clone(), k.session.clone()))
            .collect()
    }

    /// How many sessions are kept.
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What every session holds, kept or reserved.
    pub fn held(&self) -> Weight {
        self.lock().held
    }

    /// What the sessions of the client at `peer` hold, kept or reserved.
    pub fn held_by(&self, peer: IpAddr) -> Weight {
        self.lock().by_peer.get(&peer).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sessions expire after `idle`, finished or not.
    fn after(idle: Duration) -> Expiry {
        Expiry {
            idle,
            finished: idle,
        }
    }

    fn peer(last: u8) -> Option<IpAddr> {
        Some(IpAddr::from([10, 0, 0, last]))
    }

    fn limits() -> Limits {
        Limits {
            most: Weight {
                units: 10,
                bytes: 100,
            },
            per_peer: Weight {
                units: 4,
                bytes: 60,
            },
        }
    }

    #[test]
    fn the_store_and_each_client_are_held_to_their_limits_in_order() {
        let store: Sessions<u32> = Sessions::new(limits());
        store
            .reserve(
                peer(1),
                Weight {
                    units: 3,
                    bytes: 50,
                },
            )
            .unwrap()
            .keep("a".into(), 1);
        // The client's units first, then its bytes.
        let e = store.reserve(peer(1), Weight::units(2)).unwrap_err();
        assert_eq!(
            e,
            Refusal {
                over: Over::PeerUnits(peer(1).unwrap()),
                held: 3,
                adding: 2,
                most: 4
            }
        );
        let e = store
            .reserve(
                peer(1),
                Weight {
                    units: 1,
                    bytes: 11,
                },
            )
            .unwrap_err();
        assert_eq!(e.over, Over::PeerBytes(peer(1).unwrap()));
        assert_eq!((e.held, e.adding, e.most), (50, 11, 60));
        // Another client has its own share; the store's limits come before any share.
        let other = store.reserve(peer(2), Weight::units(4)).unwrap();
        let e = store.reserve(peer(3), Weight::units(4)).unwrap_err();
        assert_eq!((e.over, e.held, e.adding, e.most), (Over::Units, 7, 4, 10));
        let e = store
            .reserve(
                None,
                Weight {
                    units: 0,
                    bytes: 51,
                },
            )
            .unwrap_err();
        assert_eq!(e.over, Over::Bytes);
        assert_eq!(
            e.to_string(),
            "51 more bytes would give the store 101, over its most of 100"
        );
        // An unkept reservation frees its room.
        drop(other);
        assert_eq!(
            store.held(),
            Weight {
                units: 3,
                bytes: 50
            }
        );
        assert_eq!(store.held_by(peer(2).unwrap()), Weight::default());
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn removing_taking_and_expiring_free_the_room() {
        let store: Sessions<u32> = Sessions::new(limits());
        for (id, p) in [("a", 1), ("b", 1), ("c", 2)] {
            store
                .reserve(peer(p), Weight::units(2))
                .unwrap()
                .keep(id.into(), p.into());
        }
        assert_eq!(store.held().units, 6);
        assert_eq!(store.get("a"), Some(1));
        assert_eq!(store.with("c", |s| std::mem::replace(s, 7)), Some(2));
        assert_eq!(store.get("c"), Some(7));
        assert_eq!(store.remove("a"), Some(1));
        assert_eq!(store.held_by(peer(1).unwrap()).units, 2);
        assert!(store.remove("a").is_none());
        let refused: Result<_, &str> = store.remove_if("b", |_| Err("in use"));
        assert_eq!(refused, Err("in use"));
        let taken = store.take("b").unwrap();
        assert_eq!(taken.session, 1);
        assert!(store.get("b").is_none());
        assert_eq!(
            store.held().units,
            4,
            "held until the taken session is dropped"
        );
        drop(taken);
        assert_eq!(store.held().units, 2);
        assert_eq!(store.retain(|id, s| id != "c" || *s != 7), 1);
        assert!(store.is_empty());
        assert_eq!(store.held(), Weight::default());
        assert_eq!(store.held_by(peer(2).unwrap()), Weight::default());
    }

    #[test]
    fn the_expiry_policy_keeps_sessions_in_use_held_or_recently_touched() {
        let expiry = Expiry {
            idle: Duration::from_secs(60),
            finished: Duration::from_secs(10),
        };
        let start = Instant::now();
        let at = |secs| start + Duration::from_secs(secs);
        let idle = |finished| Activity::Idle {
            since: start,
            finished,
        };
        assert!(expiry.keeps(idle(false), at(59)));
        assert!(!expiry.keeps(idle(false), at(60)));
        assert!(expiry.keeps(idle(true), at(9)));
        assert!(
            !expiry.keeps(idle(true), at(10)),
            "a finished game goes sooner"
        );
        for kept in [Activity::InUse, Activity::Held] {
            assert!(expiry.keeps(kept, at(3600)), "{kept:?}");
        }
        // A touch after `now` (a request between the clock read and the sweep) keeps it.
        let later = Activity::Idle {
            since: at(5),
            finished: true,
        };
        assert!(expiry.keeps(later, start));
        assert_eq!(expiry.sweep_period(), Duration::from_millis(2500));
        assert_eq!(
            after(Duration::from_millis(1)).sweep_period(),
            Duration::from_millis(100)
        );
        assert_eq!(
            after(Duration::from_secs(3600)).sweep_period(),
            Duration::from_secs(30)
        );

        let store: Sessions<Activity> = Sessions::new(Limits::units(10));
        for (id, activity) in [
            ("busy", Activity::InUse),
            ("joined", Activity::Held),
            ("old", idle(false)),
            ("ended", idle(true)),
            (
                "fresh",
                Activity::Idle {
                    since: Instant::now(),
                    finished: true,
                },
            ),
        ] {
            store
                .reserve(None, Weight::units(1))
                .unwrap()
                .keep(id.into(), activity);
        }
        let short = after(Duration::ZERO);
        let mut gone = store.expire(short, |_, activity| *activity);
        gone.sort();
        assert_eq!(gone, ["ended", "fresh", "old"]);
        assert_eq!(store.held().units, 2);
        assert!(store.get("busy").is_some() && store.get("joined").is_some());
    }

    #[test]
    fn a_restored_session_ignores_the_limits_and_never_replaces_one() {
        let store: Sessions<u32> = Sessions::new(Limits::units(1));
        store
            .reserve(None, Weight::units(1))
            .unwrap()
            .keep("a".into(), 1);
        assert!(store.reserve(None, Weight::units(1)).is_err());
        store.restore("b", Weight::units(1), || 2);
        store.restore("a", Weight::units(1), || panic!("not made again"));
        assert_eq!((store.get("a"), store.get("b")), (Some(1), Some(2)));
        assert_eq!(store.held().units, 2);
    }
}
