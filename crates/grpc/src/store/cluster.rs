//! What servers sharing one PostgreSQL database (cluster mode) read and write beside the
//! matches: each server's heartbeat, which matches a server owns, taking over the matches of a
//! server whose heartbeat stopped, a match's revision, and the changes other servers announce
//! (`LISTEN`). Times are the database's clock, so servers whose clocks differ agree.

use sqlx::Row;

use super::error::query_error;
use super::{Status, Store, StoreError};

/// The database's clock, in milliseconds since the Unix epoch, as SQL.
const DB_NOW_MS: &str = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

/// A match as far as freshness goes: its revision and status as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revision {
    /// Writes the match has had, over every server.
    pub revision: u64,
    /// Its status.
    pub status: Status,
}

impl Store {
    /// Whether the store is shared with other servers (cluster mode).
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// The stored revision and status of a match, if it is stored: one round trip, what every
    /// call of a match in cluster mode reads before it trusts this server's copy.
    pub async fn revision(&self, id: &str) -> Result<Option<Revision>, StoreError> {
        let read = query_error("cannot read the match's revision");
        let Some(row) = sqlx::query("SELECT revision, status FROM matches WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
            .map_err(read)?
        else {
            return Ok(None);
        };
        let revision: i64 = row.try_get(0).map_err(read)?;
        let status: String = row.try_get(1).map_err(read)?;
        Ok(Some(Revision {
            revision: revision as u64,
            status: Status::parse(&status).ok_or(StoreError::UnknownStatus(status))?,
        }))
    }

    /// Records this server's heartbeat (`instance`, started at `started_ms`), and forgets
    /// servers silent for a day.
    pub async fn heartbeat(&self, instance: &str, started_ms: i64) -> Result<(), StoreError> {
        let write = query_error("cannot record this server's heartbeat");
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO cluster_instances (id, started_ms, heartbeat_ms) VALUES ($1, $2, \
             {DB_NOW_MS}) ON CONFLICT (id) DO UPDATE SET heartbeat_ms = EXCLUDED.heartbeat_ms"
        )))
        .bind(instance)
        .bind(started_ms)
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

    /// Takes over every live match whose owner's heartbeat is older than `lease_ms` (or that
    /// has no owner): this server becomes its owner, its epoch one higher, so that the former
    /// owner's writes are refused from now on. Returns the matches taken, with their epochs.
    /// Two servers sweeping at once take each match once (the row is locked by the first, and
    /// the second's condition no longer holds for it).
    pub async fn take_over(
        &self,
        instance: &str,
        lease_ms: i64,
    ) -> Result<Vec<(String, u64)>, StoreError> {
        let read = query_error("cannot take over the matches of stopped servers");
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE matches SET owner = $1, owner_epoch = owner_epoch + 1 WHERE status = 'live' \
             AND (owner IS NULL OR owner NOT IN (SELECT id FROM cluster_instances WHERE \
             heartbeat_ms >= {DB_NOW_MS} - $2)) RETURNING id, owner_epoch"
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
            if let Some((id, revision)) = notification.payload().rsplit_once(' ')
                && let Ok(revision) = revision.parse()
            {
                return Ok(Heard::Change(Change {
                    match_id: id.to_string(),
                    revision,
                }));
            }
            tracing::warn!(payload = %notification.payload(), "a change announcement that does not read was ignored");
        }
    }
}
