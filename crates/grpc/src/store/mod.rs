//! Durable matches: SQLite (the default) or PostgreSQL through sqlx's `Any` driver, one code
//! path and one portable schema (`migrations/`, embedded by `migrator`).
//!
//! A match is stored as what it is, never as engine internals: its game and parameters, its
//! seed, its seats' kinds, its history (every seat action and chance outcome, as the engine
//! recorded it), the choices held at a simultaneous node, its version and times, and each
//! joined seat's token as a SHA-256 hash. Recovery replays the history through the engine.
//!
//! Writes go through one writer task that commits them in order, many at once (group commit);
//! each match has a `Durability` watch that says how far its writes are committed, so a reply
//! waits until the state it shows is stored.
//!
//! Here: what is stored of a match (its row, its steps) and the queries
//! that read it. Beside it: `open` (opening and checking a database, the migrations),
//! `writer` (the writer task and its group commits), `ladder` (the ladder's bots and games)
//! and `error` (why the store refuses).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::{AnyPool, Row};
use tokio::sync::{mpsc, watch};

mod cluster;
mod error;
mod ladder;
mod open;
mod writer;

#[cfg(feature = "postgres")]
pub use cluster::ChangeListener;
pub use cluster::{Announced, Change, Heard, Loaded, Revision, RoleHolder};
pub use error::{DatabaseUrlError, FileError, OpenError, ProbeError, SqliteError, StoreError};
pub use ladder::{LadderBotRow, LadderGameRow};

use error::{json_error, query_error};
use open::probe;

/// The `--database` value that keeps matches in memory only.
pub const MEMORY: &str = "memory";

/// How long opening a PostgreSQL database may wait for its first connection.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// How far a match's writes are stored: every write up to `committed` (a per-match count), or
/// a write failed (`failed`, why), after which the match is reloaded from the store.
#[derive(Clone, Debug, Default)]
pub struct Durability {
    /// Writes of the match committed so far.
    pub committed: u64,
    /// The match's version as of its last committed write.
    pub version: u64,
    /// Why a write of the match could not be committed, if one could not.
    pub failed: Option<String>,
    /// The write that failed was refused because another server wrote the match first (cluster
    /// mode): the store is fine, this server's copy of the match was behind.
    pub conflict: bool,
}

/// A match's committed-writes watch, shared by the match and the writer.
pub type DurabilityWatch = Arc<watch::Sender<Durability>>;

/// A match as created: what never changes.
#[derive(Clone, Debug)]
pub struct MatchRow {
    /// Registry name of the game.
    pub game: String,
    /// Every parameter (defaults filled in) as text, a JSON object.
    pub parameters: String,
    /// The seed.
    pub seed: u64,
    /// Whether the creator chose the seed (a practice deal) rather than the server drawing a
    /// secret one.
    pub chosen_seed: bool,
    /// Each seat's kind (`human` or a bot's canonical spec), a JSON array.
    pub seats: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// One history entry: who (a seat, or -1 for chance), the action or outcome, and the version
/// the match reached with the step it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepRow {
    /// A seat, or -1 for chance.
    pub player: i64,
    /// The action id or chance outcome.
    pub action: i64,
    /// The match's version after the step that holds this entry.
    pub version: u64,
}

/// A match's status as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Being played: reloaded at start.
    Live,
    /// Over: kept for replays and export.
    Finished,
    /// Removed after being idle before its end.
    Expired,
}

impl Status {
    /// The stored text.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Live => "live",
            Status::Finished => "finished",
            Status::Expired => "expired",
        }
    }

    /// The status stored as `text`.
    pub fn parse(text: &str) -> Option<Self> {
        [Status::Live, Status::Finished, Status::Expired]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// One change of a match to store: its creation (once), new history entries, a new seat
/// token, and the match's summary as it is now.
#[derive(Debug)]
pub struct MatchWrite {
    /// The match id.
    pub id: String,
    /// Set on the match's first write.
    pub create: Option<MatchRow>,
    /// Index in the history of `steps[0]`.
    pub first_step: usize,
    /// History entries new since the last write.
    pub steps: Vec<StepRow>,
    /// A seat joined: the seat and its token's SHA-256 (hex).
    pub token: Option<(usize, String)>,
    /// The version now.
    pub version: u64,
    /// The status now.
    pub status: Status,
    /// The choices held at the current simultaneous node, `[[seat, action], ...]`.
    pub held: String,
    /// Every seat's return, a JSON array, once the game is over.
    pub returns: Option<String>,
    /// When a request last touched the match (ms since the epoch).
    pub touched_ms: i64,
    /// When the game ended (ms since the epoch).
    pub finished_ms: Option<i64>,
    /// This write's number among the match's writes (from 1).
    pub seq: u64,
    /// The match's revision after this write (its writes counted over every server): in
    /// cluster mode the write is refused unless the stored revision is one less.
    pub revision: u64,
    /// The server that owns the match as this server believes (its instance id) and the
    /// ownership epoch: stored at creation; in cluster mode a later write is refused unless
    /// the stored owner and epoch are still these (a former owner cannot write past a
    /// takeover).
    pub owner: Option<(Arc<str>, u64)>,
    /// Cluster mode: this write claims the match for `owner` (its epoch one above the stored
    /// one), fenced by the revision alone (see `LiveMatch::claim`).
    pub claim: bool,
    /// Told when this write is committed or failed.
    pub durability: DurabilityWatch,
}

/// A match read back from the store.
#[derive(Clone, Debug)]
pub struct StoredMatch {
    /// The match id.
    pub id: String,
    /// What never changes.
    pub row: MatchRow,
    /// The status.
    pub status: Status,
    /// The version.
    pub version: u64,
    /// The whole history.
    pub steps: Vec<StepRow>,
    /// Choices held at the current simultaneous node.
    pub held: Vec<(usize, u32)>,
    /// Joined seats' token hashes (hex).
    pub tokens: HashMap<usize, String>,
    /// When a request last touched it (ms since the epoch).
    pub touched_ms: i64,
    /// When it ended.
    pub finished_ms: Option<i64>,
    /// Every seat's return (a JSON array) once it ended.
    pub returns: Option<String>,
    /// A finished ladder game whose duplicate set is still being played: its deal is the
    /// deal of a game in play, so its seed and its cards stay hidden as a live match's do.
    /// Never stored (a restart ends every set in play).
    pub sealed: bool,
    /// Writes the match has had, over every server.
    pub revision: u64,
    /// The server that owns it (cluster mode) and the ownership epoch.
    pub owner: Option<(String, u64)>,
}

/// Which matches `Store::list` reads: each filter `None` matches everything.
#[derive(Clone, Debug, Default)]
pub struct MatchFilter {
    /// Registry name of the game.
    pub game: Option<String>,
    /// Status.
    pub status: Option<Status>,
    /// Created at or after (ms since the epoch).
    pub created_after_ms: Option<i64>,
    /// Created before (ms since the epoch).
    pub created_before_ms: Option<i64>,
    /// Only matches after this one in the listing's order (creation time, then id).
    pub after: Option<(i64, String)>,
    /// Most matches read.
    pub limit: usize,
}

impl MatchFilter {
    /// Whether `m` passes the filter (for matches listed from memory).
    pub fn admits(&self, m: &StoredMatch) -> bool {
        self.game.as_ref().is_none_or(|g| *g == m.row.game)
            && self.status.is_none_or(|s| s == m.status)
            && self.created_after_ms.is_none_or(|t| m.row.created_ms >= t)
            && self.created_before_ms.is_none_or(|t| m.row.created_ms < t)
            && self
                .after
                .as_ref()
                .is_none_or(|(t, id)| (m.row.created_ms, m.id.as_str()) > (*t, id.as_str()))
    }
}

/// `SELECT` of the columns `stored_match` reads, in its order, and the rest of the query.
macro_rules! select_matches {
    ($rest:literal) => {
        concat!(
            "SELECT id, game, parameters, seed, seats, status, version, held, created_ms, \
             touched_ms, finished_ms, final_returns, chosen_seed, revision, owner, owner_epoch \
             FROM matches ",
            $rest
        )
    };
}

/// The store: a connection pool and the writer task's queue.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    writes: mpsc::UnboundedSender<MatchWrite>,
    url: Arc<str>,
    /// Why the last commit failed, while commits fail.
    failing: Arc<watch::Sender<Option<String>>>,
    /// Cluster mode: the ladder role's holder and epoch this store's ladder writes are made
    /// under (each is refused once another server took the role).
    ladder_fence: Option<Arc<(String, u64)>>,
}

/// What `--database` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// No storage: matches live in memory only.
    Memory,
    /// A sqlx URL: `sqlite://PATH` or `postgres://...`.
    Url(String),
}

impl Database {
    /// Reads a `--database` value: `memory`, `sqlite://PATH` (a file, created if missing, its
    /// directory too), or `postgres://...` / `postgresql://...`.
    pub fn parse(text: &str) -> Result<Self, DatabaseUrlError> {
        let text = text.trim();
        if text == MEMORY {
            return Ok(Database::Memory);
        }
        if text.starts_with("sqlite:") {
            return Ok(Database::Url(text.to_string()));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            if cfg!(feature = "postgres") {
                return Ok(Database::Url(text.to_string()));
            }
            return Err(DatabaseUrlError::NoPostgres {
                url: redacted(text),
            });
        }
        Err(DatabaseUrlError::Unknown(text.to_string()))
    }

    /// The default: a SQLite file in `./checkraise-data`.
    pub fn default_url() -> String {
        format!("sqlite://{DEFAULT_DATA_DIR}/checkraise.sqlite3")
    }
}

/// Where the default SQLite database lives (relative to the working directory).
pub const DEFAULT_DATA_DIR: &str = "checkraise-data";

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A database URL without its password, for logs and messages.
pub fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = &url[scheme + 3..at];
            match user.split_once(':') {
                Some((name, _)) => format!("{}{name}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

impl Store {
    /// Why the store's last commit failed, while it is failing (`None` once a commit or a
    /// probe succeeds again): the server is NOT_SERVING meanwhile.
    pub fn failing(&self) -> watch::Receiver<Option<String>> {
        self.failing.subscribe()
    }

    /// Writes the probe row: `Ok` once the store takes writes again (the writer's next
    /// commit would too). Clears `failing` when it succeeds.
    pub async fn probe(&self) -> Result<(), ProbeError> {
        let outcome = probe(&self.pool).await;
        if outcome.is_ok() {
            self.failing.send_if_modified(|f| f.take().is_some());
        }
        outcome
    }

    /// Marks the store as failing (`why`) until a commit or a probe succeeds: the server is
    /// NOT_SERVING meanwhile (cluster mode: the heartbeat or the change listener lost the
    /// database).
    pub fn report_failure(&self, why: String) {
        self.failing.send_replace(Some(why));
    }

    /// The database URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Queues a write; its match's durability watch says when it is committed.
    pub fn send(&self, write: MatchWrite) {
        if let Err(mpsc::error::SendError(write)) = self.writes.send(write) {
            write.durability.send_modify(|d| {
                d.failed = Some("the store's writer has stopped".to_string());
            });
        }
    }

    /// Every match with `status`, history and tokens included (`Live` at start: the matches to
    /// resume).
    pub async fn matches_with_status(
        &self,
        status: Status,
    ) -> Result<Vec<StoredMatch>, StoreError> {
        let read = query_error("cannot read the stored matches");
        let rows = sqlx::query(select_matches!("WHERE status = $1 ORDER BY id"))
            .bind(status.as_str())
            .fetch_all(&self.pool)
            .await
            .map_err(read)?;
        let mut matches: Vec<StoredMatch> =
            rows.iter().map(stored_match).collect::<Result<_, _>>()?;
        let index: HashMap<String, usize> = matches
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.clone(), i))
            .collect();
        let steps = sqlx::query(
            "SELECT s.match_id, s.player, s.action, s.version FROM steps s JOIN matches m ON \
             m.id = s.match_id WHERE m.status = $1 ORDER BY s.match_id, s.idx",
        )
        .bind(status.as_str())
        .fetch_all(&self.pool)
        .await
        .map_err(read)?;
        for row in &steps {
            let id: String = row.try_get(0).map_err(read)?;
            if let Some(&i) = index.get(&id) {
                matches[i].steps.push(step_row(row, 1).map_err(read)?);
            }
        }
        let tokens = sqlx::query(
            "SELECT t.match_id, t.seat, t.token_sha256 FROM seat_tokens t JOIN matches m ON \
             m.id = t.match_id WHERE m.status = $1",
        )
        .bind(status.as_str())
        .fetch_all(&self.pool)
        .await
        .map_err(read)?;
        for row in &tokens {
            let id: String = row.try_get(0).map_err(read)?;
            let seat: i64 = row.try_get(1).map_err(read)?;
            if let Some(&i) = index.get(&id) {
                matches[i]
                    .tokens
                    .insert(seat as usize, row.try_get(2).map_err(read)?);
            }
        }
        Ok(matches)
    }

    /// One match, history and tokens included, if the store has it: read in one transaction,
    /// a snapshot (on PostgreSQL `REPEATABLE READ`; SQLite's read transaction is one), so that
    /// a write committed meanwhile shows in all of it or none.
    pub async fn load(&self, id: &str) -> Result<Option<StoredMatch>, StoreError> {
        let read = query_error("cannot read the stored match");
        let mut tx = self.pool.begin().await.map_err(read)?;
        if self.url.starts_with("postgres") {
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                .execute(&mut *tx)
                .await
                .map_err(read)?;
        }
        let Some(row) = sqlx::query(select_matches!("WHERE id = $1"))
            .bind(id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(read)?
        else {
            return Ok(None);
        };
        let mut stored = stored_match(&row)?;
        for row in sqlx::query(
            "SELECT player, action, version FROM steps WHERE match_id = $1 ORDER BY idx",
        )
        .bind(id)
        .fetch_all(&mut *tx)
        .await
        .map_err(read)?
        {
            stored.steps.push(step_row(&row, 0).map_err(read)?);
        }
        for row in sqlx::query("SELECT seat, token_sha256 FROM seat_tokens WHERE match_id = $1")
            .bind(id)
            .fetch_all(&mut *tx)
            .await
            .map_err(read)?
        {
            let seat: i64 = row.try_get(0).map_err(read)?;
            stored
                .tokens
                .insert(seat as usize, row.try_get(1).map_err(read)?);
        }
        tx.commit().await.map_err(read)?;
        Ok(Some(stored))
    }

    /// The histories of the matches `ids` (each in order; a match without entries, or not
    /// stored, is absent), read in one query: `list` a page of matches, then this for their
    /// histories (export reads the whole store that way, a page at a time).
    pub async fn histories(
        &self,
        ids: &[String],
    ) -> Result<HashMap<String, Vec<StepRow>>, StoreError> {
        let read = query_error("cannot read the stored histories");
        let mut histories: HashMap<String, Vec<StepRow>> = HashMap::new();
        if ids.is_empty() {
            return Ok(histories);
        }
        let placeholders: Vec<String> = (1..=ids.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT match_id, player, action, version FROM steps WHERE match_id IN ({}) ORDER \
             BY match_id, idx",
            placeholders.join(", ")
        );
        // Safe: the text holds only placeholders; every id is bound.
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for id in ids {
            query = query.bind(id);
        }
        for row in query.fetch_all(&self.pool).await.map_err(read)? {
            let id: String = row.try_get(0).map_err(read)?;
            histories
                .entry(id)
                .or_default()
                .push(step_row(&row, 1).map_err(read)?);
        }
        Ok(histories)
    }

    /// The matches `filter` admits, without their histories, in the listing's order
    /// (creation time, then id).
    pub async fn list(&self, filter: &MatchFilter) -> Result<Vec<StoredMatch>, StoreError> {
        enum Bind {
            Text(String),
            Int(i64),
        }
        let mut conditions = Vec::new();
        let mut binds = Vec::new();
        let mut add = |condition: &str, values: Vec<Bind>| {
            let mut condition = condition.to_string();
            for value in values {
                binds.push(value);
                condition = condition.replacen('?', &format!("${}", binds.len()), 1);
            }
            conditions.push(condition);
        };
        if let Some(game) = &filter.game {
            add("game = ?", vec![Bind::Text(game.clone())]);
        }
        if let Some(status) = filter.status {
            add("status = ?", vec![Bind::Text(status.as_str().to_string())]);
        }
        if let Some(t) = filter.created_after_ms {
            add("created_ms >= ?", vec![Bind::Int(t)]);
        }
        if let Some(t) = filter.created_before_ms {
            add("created_ms < ?", vec![Bind::Int(t)]);
        }
        if let Some((t, id)) = &filter.after {
            add(
                "(created_ms > ? OR (created_ms = ? AND id > ?))",
                vec![Bind::Int(*t), Bind::Int(*t), Bind::Text(id.clone())],
            );
        }
        let filter_sql = if conditions.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", conditions.join(" AND "))
        };
        let sql = format!(
            "{} {filter_sql} ORDER BY created_ms, id LIMIT {}",
            select_matches!(""),
            filter.limit
        );
        // Safe: every value is bound; the text holds only placeholders and a number.
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for bind in binds {
            query = match bind {
                Bind::Text(text) => query.bind(text),
                Bind::Int(n) => query.bind(n),
            };
        }
        let rows = query
            .fetch_all(&self.pool)
            .await
            .map_err(query_error("cannot list the stored matches"))?;
        rows.iter().map(stored_match).collect()
    }

    /// Closes the pool (the writer ends once every queued write is done).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

pub(super) fn stored_match(row: &sqlx::any::AnyRow) -> Result<StoredMatch, StoreError> {
    let read = query_error("cannot read a stored match");
    let status: String = row.try_get(5).map_err(read)?;
    let held: String = row.try_get(7).map_err(read)?;
    let seed: i64 = row.try_get(3).map_err(read)?;
    let version: i64 = row.try_get(6).map_err(read)?;
    let chosen_seed: i64 = row.try_get(12).map_err(read)?;
    let revision: i64 = row.try_get(13).map_err(read)?;
    let owner: Option<String> = row.try_get(14).map_err(read)?;
    let owner_epoch: i64 = row.try_get(15).map_err(read)?;
    Ok(StoredMatch {
        id: row.try_get(0).map_err(read)?,
        row: MatchRow {
            game: row.try_get(1).map_err(read)?,
            parameters: row.try_get(2).map_err(read)?,
            seed: seed as u64,
            chosen_seed: chosen_seed != 0,
            seats: row.try_get(4).map_err(read)?,
            created_ms: row.try_get(8).map_err(read)?,
        },
        status: Status::parse(&status).ok_or_else(|| StoreError::UnknownStatus(status.clone()))?,
        version: version as u64,
        steps: Vec::new(),
        held: serde_json::from_str(&held)
            .map_err(json_error("a stored match's held choices do not read"))?,
        tokens: HashMap::new(),
        touched_ms: row.try_get(9).map_err(read)?,
        finished_ms: row.try_get(10).map_err(read)?,
        returns: row.try_get(11).map_err(read)?,
        sealed: false,
        revision: revision as u64,
        owner: owner.map(|owner| (owner, owner_epoch as u64)),
    })
}

fn step_row(row: &sqlx::any::AnyRow, first: usize) -> Result<StepRow, sqlx::Error> {
    let version: i64 = row.try_get(first + 2)?;
    Ok(StepRow {
        player: row.try_get(first)?,
        action: row.try_get(first + 1)?,
        version: version as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::{Database, redacted};

    #[test]
    fn passwords_are_hidden_and_databases_are_read() {
        assert_eq!(
            redacted("postgres://user:secret@host:5432/db"),
            "postgres://user:***@host:5432/db"
        );
        assert_eq!(
            redacted("postgres://user@host/db"),
            "postgres://user@host/db"
        );
        assert_eq!(
            redacted("sqlite://data/x.sqlite3"),
            "sqlite://data/x.sqlite3"
        );
        assert_eq!(Database::parse("memory"), Ok(Database::Memory));
        assert!(Database::parse("mysql://x").is_err());
    }

    /// A PostgreSQL URL is a store only in a build with the `postgres` feature; without it
    /// the refusal says how to get one, and never echoes the password.
    #[test]
    fn a_postgres_url_needs_the_postgres_feature() {
        for url in ["postgres://u:secret@h/db", "postgresql://u:secret@h/db"] {
            let parsed = Database::parse(url);
            if cfg!(feature = "postgres") {
                assert!(matches!(parsed, Ok(Database::Url(ref u)) if u == url));
            } else {
                let error = parsed.unwrap_err().to_string();
                assert!(error.contains("--features postgres"), "{error}");
                assert!(!error.contains("secret"), "{error}");
            }
        }
    }
}
