//! What servers sharing one PostgreSQL database (cluster mode) read and write beside the
//! matches: each server's heartbeat, which matches a server owns, taking over the matches of a
//! server whose heartbeat stopped, a match's revision, and the changes other servers announce
//! (`LISTEN`). Times are the database's clock, so servers whose clocks differ agree.

use sqlx::Row;

use super::error::query_error;
use super::{Status, Store, StoreError, StoredMatch};

/// The database's clock, in milliseconds since the Unix epoch, as SQL.
const DB_NOW_MS: &str = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

/// Who holds a cluster role (`Store::take_role`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleHolder {
    /// The holding server's instance id.
    pub instance: String,
    /// How many times the role changed hands.
    pub epoch: u64,
    /// Where the other servers reach it (`--cluster-advertise`), once it recorded a heartbeat.
    pub address: Option<String>,
}

/// What `load_if_newer` read.
#[derive(Debug)]
pub enum Loaded {
    /// The stored match is no newer than the copy: its revision and status.
    Current(Revision),
    /// The stored match, newer than the copy.
    Newer(Box<StoredMatch>),
}

/// A match as far as freshness goes: its revision and status as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revision {
    /// Writes the match has had, over every server.
    pub revision: u64,
    /// Its status.
    pub status: Status,
}

impl Store {
    /// One match, history and tokens included, read in one statement (one round trip, and
    /// one snapshot: PostgreSQL reads a statement as of its start): what a server reads to
    /// catch its copy up with another server's change. PostgreSQL only (cluster mode).
    pub async fn load_at_once(&self, id: &str) -> Result<Option<StoredMatch>, StoreError> {
        Ok(match self.load_newer(id, None).await? {
            Some(Loaded::Newer(stored)) => Some(*stored),
            Some(Loaded::Current(_)) | None => None,
        })
    }

    /// The match if its stored revision is above `known` (`Loaded::Newer`, read as
    /// `load_at_once` reads it), else only its revision and status (`Loaded::Current`): one
    /// round trip either way, what every call of a match in cluster mode makes before it
    /// trusts this server's copy.
    pub async fn load_if_newer(&self, id: &str, known: u64) -> Result<Option<Loaded>, StoreError> {
        self.load_newer(id, Some(known)).await
    }

    async fn load_newer(&self, id: &str, known: Option<u64>) -> Result<Option<Loaded>, StoreError> {
        let read = query_error("cannot read the stored match");
        let Some(row) = sqlx::query(
            "SELECT id, game, parameters, seed, seats, status, version, held, created_ms, \
             touched_ms, finished_ms, final_returns, chosen_seed, revision, owner, owner_epoch, \
             CASE WHEN revision > $2 THEN (SELECT string_agg(player::text || ',' || \
             action::text || ',' || version::text, ';' ORDER BY idx) FROM steps WHERE match_id \
             = $1) END, CASE WHEN revision > $2 THEN (SELECT string_agg(seat::text || ',' || \
             token_sha256, ';') FROM seat_tokens WHERE match_id = $1) END FROM matches WHERE id \
             = $1",
        )
        .bind(id)
        .bind(known.map_or(-1, |k| k as i64))
        .fetch_optional(&self.pool)
        .await
        .map_err(read)?
        else {
            return Ok(None);
        };
        let revision: i64 = row.try_get(13).map_err(read)?;
        if let Some(known) = known
            && revision as u64 <= known
        {
            let status: String = row.try_get(5).map_err(read)?;
            return Ok(Some(Loaded::Current(Revision {
                revision: revision as u64,
                status: Status::parse(&status).ok_or(StoreError::UnknownStatus(status))?,
            })));
        }
        let mut stored = super::stored_match(&row)?;
        let steps: Option<String> = row.try_get(16).map_err(read)?;
        let tokens: Option<String> = row.try_get(17).map_err(read)?;
        let unreadable = || StoreError::Unreadable(id.to_string());
        for entry in steps
            .as_deref()
            .unwrap_or("")
            .split(';')
            .filter(|e| !e.is_empty())
        {
            let mut parts = entry.split(',').map(str::parse::<i64>);
            match (parts.next(), parts.next(), parts.next()) {
                (Some(Ok(player)), Some(Ok(action)), Some(Ok(version))) => {
                    stored.steps.push(super::StepRow {
                        player,
                        action,
                        version: version as u64,
                    })
                }
                _ => return Err(unreadable()),
            }
        }
        for token in tokens
            .as_deref()
            .unwrap_or("")
            .split(';')
            .filter(|t| !t.is_empty())
        {
            match token.split_once(',') {
                Some((seat, hash)) if seat.parse::<usize>().is_ok() => {
                    stored
                        .tokens
                        .insert(seat.parse().expect("checked"), hash.to_string());
                }
                _ => return Err(unreadable()),
            }
        }
        Ok(Some(Loaded::Newer(Box::new(stored))))
    }

    /// Records this server's heartbeat (`instance`, started at `started_ms`, reached at
    /// `address` by the other servers), and forgets servers silent for a day.
    pub async fn heartbeat(
        &self,
        instance: &str,
        started_ms: i64,
        address: &str,
    ) -> Result<(), StoreError> {
        let write = query_error("cannot record this server's heartbeat");
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO cluster_instances (id, started_ms, heartbeat_ms, address) VALUES ($1, \
             $2, {DB_NOW_MS}, $3) ON CONFLICT (id) DO UPDATE SET heartbeat_ms = \
             EXCLUDED.heartbeat_ms, address = EXCLUDED.address"
        )))
        .bind(instance)
        .bind(started_ms)
        .bind(address)
        .execute(&self.pool)
        .await
        .map_err(write)?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM cluster_instances WHERE heartbeat_ms < {DB_NOW_MS} - 86400000"
        )))
        .execute(&self.pool)
        .await
        .map_err(write)?;
        Ok(())
    }

    /// Takes `role` for `instance` if nobody holds it or its holder's heartbeat is older than
    /// `lease_ms` (its epoch raised), then reads who holds it: the holder, its epoch and the
    /// address it is reached at. The row is locked by the update, so two servers taking a
    /// role at once take it once.
    pub async fn take_role(
        &self,
        role: &str,
        instance: &str,
        lease_ms: i64,
    ) -> Result<Option<RoleHolder>, StoreError> {
        let what = "cannot read or take the cluster's ladder role";
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE cluster_roles SET instance = $1, epoch = epoch + 1 WHERE role = $2 AND \
             (instance IS NULL OR instance NOT IN (SELECT id FROM cluster_instances WHERE \
             heartbeat_ms >= {DB_NOW_MS} - $3))"
        )))
        .bind(instance)
        .bind(role)
        .bind(lease_ms)
        .execute(&self.pool)
        .await
        .map_err(query_error(what))?;
        self.role_holder(role).await
    }

    /// Who holds `role` (nobody: `None`), its epoch and the address it is reached at.
    pub async fn role_holder(&self, role: &str) -> Result<Option<RoleHolder>, StoreError> {
        let what = "cannot read who holds a cluster role";
        let row = sqlx::query(
            "SELECT r.instance, r.epoch, i.address FROM cluster_roles r LEFT JOIN \
             cluster_instances i ON i.id = r.instance WHERE r.role = $1",
        )
        .bind(role.to_string())
        .fetch_optional(&self.pool)
        .await
        .map_err(query_error(what))?;
        let Some(row) = row else {
            return Ok(None);
        };
        let read = query_error(what);
        let holder: Option<String> = row.try_get(0).map_err(read)?;
        let epoch: i64 = row.try_get(1).map_err(read)?;
        let address: Option<String> = row.try_get(2).map_err(read)?;
        Ok(holder.map(|instance| RoleHolder {
            instance,
            epoch: epoch as u64,
            address,
        }))
    }

    /// Where server `instance` is reached (`--cluster-advertise`), if its heartbeat is at
    /// most `lease_ms` old.
    pub async fn instance_address(
        &self,
        instance: &str,
        lease_ms: i64,
    ) -> Result<Option<String>, StoreError> {
        let what = "cannot read where a server of the cluster is reached";
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT address FROM cluster_instances WHERE id = $1 AND heartbeat_ms >= \
             {DB_NOW_MS} - $2"
        )))
        .bind(instance.to_string())
        .bind(lease_ms)
        .fetch_optional(&self.pool)
        .await
        .map_err(query_error(what))?;
        match row {
            Some(row) => row.try_get(0).map_err(query_error(what)),
            None => Ok(None),
        }
    }

    /// The secret the servers of this database share (made by the first server that asks).
    pub async fn cluster_secret(&self) -> Result<String, StoreError> {
        let what = "cannot read the cluster's shared secret";
        sqlx::query(
            "INSERT INTO cluster_secrets (name, value) VALUES ('forwarding', $1) ON CONFLICT \
             (name) DO NOTHING",
        )
        .bind(crate::auth::random_hex(32))
        .execute(&self.pool)
        .await
        .map_err(query_error(what))?;
        let row = sqlx::query("SELECT value FROM cluster_secrets WHERE name = 'forwarding'")
            .fetch_one(&self.pool)
            .await
            .map_err(query_error(what))?;
        row.try_get(0).map_err(query_error(what))
    }

    /// Takes over every live match whose owner's heartbeat is older than `lease_ms` (or that
    /// has no owner): this server becomes its owner, its epoch one higher and its revision too
    /// (announced), so that the former owner's writes are refused from now on and every copy
    /// knows the new epoch. Returns the matches taken, with their epochs.
    /// Two servers sweeping at once take each match once (the row is locked by the first, and
    /// the second's condition no longer holds for it).
    pub async fn take_over(
        &self,
        instance: &str,
        lease_ms: i64,
    ) -> Result<Vec<(String, u64)>, StoreError> {
        let read = query_error("cannot take over the matches of stopped servers");
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "WITH taken AS (UPDATE matches SET owner = $1, owner_epoch = owner_epoch + 1, \
             revision = revision + 1 WHERE status = 'live' AND (owner IS NULL OR owner NOT IN \
             (SELECT id FROM cluster_instances WHERE heartbeat_ms >= {DB_NOW_MS} - $2)) \
             RETURNING id, owner_epoch, revision) SELECT id, owner_epoch, pg_notify('{}', id || \
             ' ' || revision::text) FROM taken",
            super::writer::CHANGES_CHANNEL
        )))
        .bind(instance)
        .bind(lease_ms)
        .fetch_all(&self.pool)
        .await
        .map_err(read)?;
        owned_rows(&rows)
    }

    /// The live matches `instance` owns, with their epochs.
    pub async fn owned(&self, instance: &str) -> Result<Vec<(String, u64)>, StoreError> {
        let rows =
            sqlx::query("SELECT id, owner_epoch FROM matches WHERE owner = $1 AND status = 'live'")
                .bind(instance)
                .fetch_all(&self.pool)
                .await
                .map_err(query_error("cannot read which matches this server owns"))?;
        owned_rows(&rows)
    }
}

fn owned_rows(rows: &[sqlx::any::AnyRow]) -> Result<Vec<(String, u64)>, StoreError> {
    let read = query_error("cannot read which matches this server owns");
    rows.iter()
        .map(|row| {
            let id: String = row.try_get(0).map_err(read)?;
            let epoch: i64 = row.try_get(1).map_err(read)?;
            Ok((id, epoch as u64))
        })
        .collect()
}

/// A change another server (or this one) committed: the match and its revision after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The match.
    pub match_id: String,
    /// Its revision after the change.
    pub revision: u64,
    /// What the change wrote, when the announcement carries it (a copy one revision behind
    /// follows it without reading the store); `None`: read the store to follow it.
    pub written: Option<Box<Announced>>,
}

/// What one committed write of an existing match stored, as its announcement carries it
/// (JSON after `"<match id> <revision> "`): enough for a copy at the revision before it to
/// follow without reading the store back.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Announced {
    /// Index in the history of the first new entry.
    #[serde(rename = "f")]
    pub first_step: usize,
    /// The new history entries, `[player, action, version]` each.
    #[serde(rename = "s")]
    pub steps: Vec<(i64, i64, u64)>,
    /// The match's version after the write.
    #[serde(rename = "v")]
    pub version: u64,
    /// Its status after the write.
    #[serde(rename = "st")]
    pub status: String,
    /// The choices held at the current simultaneous node.
    #[serde(rename = "h")]
    pub held: Vec<(usize, u32)>,
    /// A seat that joined with this write, and its token's SHA-256 (hex).
    #[serde(rename = "tk", default, skip_serializing_if = "Option::is_none")]
    pub token: Option<(usize, String)>,
    /// When a request last touched the match.
    #[serde(rename = "tm")]
    pub touched_ms: i64,
    /// When it ended.
    #[serde(rename = "fm", default, skip_serializing_if = "Option::is_none")]
    pub finished_ms: Option<i64>,
    /// The owner and epoch stored with the write, when the write was fenced by them or
    /// claimed the match (otherwise the stored owner is whatever it was).
    #[serde(rename = "o", default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<(String, u64)>,
}

/// The most bytes of an announcement (PostgreSQL refuses a `NOTIFY` payload of 8,000 bytes or
/// more): a write whose announcement would be longer is announced without what it wrote.
const MAX_ANNOUNCEMENT: usize = 7_900;

impl Announced {
    /// The announcement of `w` on a shared store: `"<match id> <revision> <what it wrote>"`,
    /// or `"<match id> <revision>"` for a match's creation and for a write too long to carry.
    pub fn payload(w: &super::MatchWrite) -> String {
        let short = format!("{} {}", w.id, w.revision);
        if w.create.is_some() {
            return short;
        }
        let Ok(held) = serde_json::from_str::<Vec<(usize, u32)>>(&w.held) else {
            return short;
        };
        let written = Announced {
            first_step: w.first_step,
            steps: w
                .steps
                .iter()
                .map(|s| (s.player, s.action, s.version))
                .collect(),
            version: w.version,
            status: w.status.as_str().to_string(),
            held,
            token: w.token.clone(),
            touched_ms: w.touched_ms,
            finished_ms: w.finished_ms,
            owner: w.owner.as_ref().map(|(o, e)| (o.to_string(), *e)),
        };
        match serde_json::to_string(&written) {
            Ok(json) if short.len() + 1 + json.len() <= MAX_ANNOUNCEMENT => {
                format!("{short} {json}")
            }
            _ => short,
        }
    }

    /// An announcement read back: the match, its revision and, when it carries it, what was
    /// written. `None`: not an announcement.
    pub fn parse(payload: &str) -> Option<Change> {
        let mut parts = payload.splitn(3, ' ');
        let match_id = parts.next().filter(|id| !id.is_empty())?.to_string();
        let revision = parts.next()?.parse().ok()?;
        // What cannot be read is read from the store instead.
        let written = parts
            .next()
            .and_then(|json| serde_json::from_str(json).ok());
        Some(Change {
            match_id,
            revision,
            written,
        })
    }

    /// The stored status it names.
    pub fn status(&self) -> Option<super::Status> {
        super::Status::parse(&self.status)
    }
}

/// What the change listener hears: a change, or that it lost the database for a while (and
/// may have missed changes meanwhile).
#[derive(Debug)]
pub enum Heard {
    /// A committed change.
    Change(Change),
    /// The listening connection was lost and made again: changes may have been missed.
    Reconnected,
}

/// Listens to the changes every server announces (`CHANGES_CHANNEL`).
#[cfg(feature = "postgres")]
pub struct ChangeListener {
    listener: sqlx::postgres::PgListener,
}

#[cfg(feature = "postgres")]
impl ChangeListener {
    /// Connects to `url` and listens.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let connect = query_error("cannot listen to the other servers' changes");
        let mut listener = sqlx::postgres::PgListener::connect(url)
            .await
            .map_err(connect)?;
        listener
            .listen(super::writer::CHANGES_CHANNEL)
            .await
            .map_err(connect)?;
        Ok(ChangeListener { listener })
    }

    /// The next change heard (or that the connection was lost; it is made again on the next
    /// call). An error: the database cannot be reached now.
    pub async fn next(&mut self) -> Result<Heard, StoreError> {
        loop {
            let heard = self
                .listener
                .try_recv()
                .await
                .map_err(query_error("cannot listen to the other servers' changes"))?;
            let Some(notification) = heard else {
                return Ok(Heard::Reconnected);
            };
            if let Some(change) = Announced::parse(notification.payload()) {
                return Ok(Heard::Change(change));
            }
            tracing::warn!(payload = %notification.payload(), "a change announcement that does not read was ignored");
        }
    }
}
