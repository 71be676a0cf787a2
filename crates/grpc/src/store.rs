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

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Row, SqlSafeStr};
use tokio::sync::{mpsc, watch};

/// The schema's migrations (`migrations/NNNN_description.sql`), embedded in the binary. Built
/// as `sqlx::migrate!` builds them (version, description with spaces, checksum of the SQL) so
/// databases made by earlier builds stay valid, without sqlx's macros, which compiled sqlx and
/// SQLite a second time for the build host.
fn migrator() -> Migrator {
    let migration = |version, description: &'static str, sql: &'static str| {
        Migration::new(
            version,
            description.into(),
            MigrationType::Simple,
            sql.into_sql_str(),
            false,
        )
    };
    Migrator::with_migrations(vec![
        migration(1, "matches", include_str!("../migrations/0001_matches.sql")),
        migration(
            2,
            "chosen seed",
            include_str!("../migrations/0002_chosen_seed.sql"),
        ),
        migration(3, "ladder", include_str!("../migrations/0003_ladder.sql")),
    ])
}

/// The `--database` value that keeps matches in memory only.
pub const MEMORY: &str = "memory";

/// How long opening a PostgreSQL database may wait for its first connection.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Most writes committed in one transaction.
const GROUP_COMMIT: usize = 512;

/// How far a match's writes are stored: every write up to `committed` (a per-match count), or
/// a write failed (`failed`, why), after which the match is reloaded from the store.
#[derive(Clone, Debug, Default)]
pub struct Durability {
    /// Writes of the match committed so far.
    pub committed: u64,
    /// Why a write of the match could not be committed, if one could not.
    pub failed: Option<String>,
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
}

/// A registered ladder bot, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderBotRow {
    /// Its unique name.
    pub name: String,
    /// The SHA-256 of its token (hex).
    pub token_hash: String,
    /// Its game strings, every parameter spelled out.
    pub games: Vec<String>,
    /// Retired: never placed again.
    pub retired: bool,
    /// When it registered (ms since the epoch).
    pub created_ms: i64,
}

/// A ladder game, as stored: `returns`, `forfeits` and `finished_ms` are set once it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderGameRow {
    /// Its match.
    pub match_id: String,
    /// The game string, every parameter spelled out.
    pub game: String,
    /// Its duplicate set's number, in its ladder.
    pub set: u64,
    /// The bot at each seat.
    pub bots: Vec<String>,
    /// Each seat's return.
    pub returns: Option<Vec<f64>>,
    /// The seats whose bot forfeited.
    pub forfeits: Option<Vec<bool>>,
    /// When it started (ms since the epoch).
    pub started_ms: i64,
    /// When it ended.
    pub finished_ms: Option<i64>,
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
             touched_ms, finished_ms, final_returns, chosen_seed FROM matches ",
            $rest
        )
    };
}

/// Why the store refused or failed: each text is one line naming what could not be done and
/// why, the database's own error last (carried as the `source` too).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A query failed.
    #[error("{what}: {source}")]
    Query {
        /// What could not be done.
        what: &'static str,
        /// The database's error.
        #[source]
        source: sqlx::Error,
    },
    /// Stored JSON does not read.
    #[error("{what}: {source}")]
    Json {
        /// What does not read.
        what: &'static str,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A stored match's status is none the store writes.
    #[error("a stored match has an unknown status '{0}'")]
    UnknownStatus(String),
    /// The database cannot be opened.
    #[error("cannot open the database {url}: {cause}")]
    Open {
        /// The database, its password hidden.
        url: String,
        /// Why.
        #[source]
        cause: OpenError,
    },
    /// The schema's migrations failed.
    #[error("cannot migrate the database {url}: {source}")]
    Migrate {
        /// The database, its password hidden.
        url: String,
        /// Why.
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    /// The database takes no writes.
    #[error("the database {url} cannot be written: {cause}")]
    NotWritable {
        /// The database, its password hidden.
        url: String,
        /// Why.
        #[source]
        cause: ProbeError,
    },
    /// A SQLite file refused before it is opened.
    #[error(transparent)]
    File(#[from] FileError),
}

/// `StoreError::Query` for `what`, as a `map_err` argument.
fn query_error(what: &'static str) -> impl Fn(sqlx::Error) -> StoreError + Copy {
    move |source| StoreError::Query { what, source }
}

/// `StoreError::Json` for `what`, as a `map_err` argument.
fn json_error(what: &'static str) -> impl Fn(serde_json::Error) -> StoreError + Copy {
    move |source| StoreError::Json { what, source }
}

/// Why a database cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The connection was refused or failed.
    #[error(transparent)]
    Connect(sqlx::Error),
    /// No answer in time.
    #[error("no answer in {} s", .0.as_secs())]
    NoAnswer(std::time::Duration),
    /// An open SQLite database that is damaged, read-only or not a store.
    #[error(transparent)]
    Sqlite(SqliteError),
}

/// Why an open SQLite database is refused (`check_sqlite`).
#[derive(Debug, thiserror::Error)]
pub enum SqliteError {
    /// SQLite cannot check it.
    #[error("the file is damaged: {0}")]
    Unreadable(#[source] sqlx::Error),
    /// SQLite's `quick_check` found problems.
    #[error(
        "the file is damaged: SQLite's quick_check found {problems} problem(s), first: {first}; \
         restore it from a backup"
    )]
    Damaged {
        /// How many.
        problems: usize,
        /// The first three, `; `-separated.
        first: String,
    },
    /// Its header does not read.
    #[error("cannot read its header: {0}")]
    Header(#[source] sqlx::Error),
    /// It can only be read.
    #[error("the file cannot be written: {0}")]
    ReadOnly(#[source] sqlx::Error),
    /// Its tables do not read.
    #[error("cannot read its tables: {0}")]
    Tables(#[source] sqlx::Error),
    /// It holds another program's tables.
    #[error(
        "it holds another program's tables ({}), not a checkraise store; point --database at \
         another file",
        .0.join(", ")
    )]
    Foreign(Vec<String>),
}

/// Why a SQLite file is refused before SQLite opens it.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Its directory cannot be made.
    #[error("cannot create the data directory {}: {source}", dir.display())]
    CreateDir {
        /// The directory.
        dir: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It cannot be opened.
    #[error("cannot open the database file {path}: {source}")]
    Open {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It cannot be read.
    #[error("cannot read the database file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It is empty.
    #[error(
        "the database file {path} is empty (0 bytes), not a checkraise store: its matches are \
         gone or it was never one; restore it from a backup, or remove it to start an empty store"
    )]
    Empty {
        /// The file.
        path: String,
    },
    /// It is not a SQLite database.
    #[error(
        "the database file {path} is not a SQLite database (it does not start with SQLite's \
         header): point --database at the store's file, or remove this one to start an empty \
         store"
    )]
    NotSqlite {
        /// The file.
        path: String,
    },
}

/// Why the probe row cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The write failed.
    #[error(transparent)]
    Write(#[from] sqlx::Error),
    /// The row is gone.
    #[error("its probe row is missing")]
    RowMissing,
}

/// Why a `--database` value is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DatabaseUrlError {
    /// A PostgreSQL URL, in a build without PostgreSQL.
    #[error(
        "this checkraise-server was built without PostgreSQL (the `postgres` feature): use \
         'memory' or 'sqlite://PATH', the release tarball's server, or a server built with \
         `cargo build --release -p checkraise-grpc --bin checkraise-server --features postgres` \
         (refused: '{url}')"
    )]
    NoPostgres {
        /// The URL, its password hidden.
        url: String,
    },
    /// Not a database URL.
    #[error("'{0}' is not a database: use 'memory', 'sqlite://PATH' or 'postgres://USER@HOST/DB'")]
    Unknown(String),
}

/// The store: a connection pool and the writer task's queue.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    writes: mpsc::UnboundedSender<MatchWrite>,
    url: Arc<str>,
    /// Why the last commit failed, while commits fail.
    failing: Arc<watch::Sender<Option<String>>>,
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
    /// Connects to `url` (creating a SQLite file and its directory if missing), checks it
    /// (`check_sqlite_file`, `check_sqlite`; a store that cannot be written is refused), runs
    /// the migrations, and starts the writer task. Every refusal is one line naming the
    /// database and the cause.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        install_default_drivers();
        let connect_url = if let Some(path) = url.strip_prefix("sqlite://") {
            sqlite_file(path)?;
            check_sqlite_file(path)?;
            if path.contains('?') {
                url.to_string()
            } else {
                format!("{url}?mode=rwc")
            }
        } else {
            url.to_string()
        };
        // One connection first: the pool would retry a refused one (or, with SQLite, one whose
        // file is damaged) until its timeout and then say only that it timed out, not why.
        let connected = tokio::time::timeout(
            CONNECT_TIMEOUT,
            <sqlx::AnyConnection as sqlx::Connection>::connect(&connect_url),
        )
        .await;
        let why = match connected {
            Ok(Ok(mut connection)) => {
                let checked = if connect_url.starts_with("sqlite:") {
                    check_sqlite(&mut connection)
                        .await
                        .err()
                        .map(OpenError::Sqlite)
                } else {
                    None
                };
                let _ = sqlx::Connection::close(connection).await;
                checked
            }
            Ok(Err(e)) => Some(OpenError::Connect(e)),
            Err(_) => Some(OpenError::NoAnswer(CONNECT_TIMEOUT)),
        };
        if let Some(cause) = why {
            return Err(StoreError::Open {
                url: redacted(url),
                cause,
            });
        }
        let pool = AnyPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(CONNECT_TIMEOUT)
            // A ping before every commit would cost a round trip each: a connection that
            // broke fails its transaction, which is retried on a new one (see `write_loop`).
            .test_before_acquire(false)
            .after_connect(|connection, _| {
                Box::pin(async move {
                    if connection.backend_name().eq_ignore_ascii_case("sqlite") {
                        // WAL: a commit is in the log file before it returns, so it survives
                        // the process being killed; `NORMAL` syncs the log at checkpoints,
                        // not on every commit (see docs/storage.md for power loss).
                        for pragma in [
                            "PRAGMA journal_mode = WAL",
                            "PRAGMA synchronous = NORMAL",
                            "PRAGMA busy_timeout = 10000",
                            "PRAGMA foreign_keys = ON",
                        ] {
                            sqlx::query(pragma).execute(&mut *connection).await?;
                        }
                    }
                    Ok(())
                })
            })
            .connect(&connect_url)
            .await
            .map_err(|e| StoreError::Open {
                url: redacted(url),
                cause: OpenError::Connect(e),
            })?;
        migrator()
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                url: redacted(url),
                source,
            })?;
        probe(&pool)
            .await
            .map_err(|cause| StoreError::NotWritable {
                url: redacted(url),
                cause,
            })?;
        let (writes, queue) = mpsc::unbounded_channel();
        let (failing, _) = watch::channel(None);
        let failing = Arc::new(failing);
        tokio::spawn(write_loop(pool.clone(), queue, failing.clone()));
        Ok(Store {
            pool,
            writes,
            url: url.into(),
            failing,
        })
    }

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

    /// One match, history and tokens included, if the store has it.
    pub async fn load(&self, id: &str) -> Result<Option<StoredMatch>, StoreError> {
        let read = query_error("cannot read the stored match");
        let Some(row) = sqlx::query(select_matches!("WHERE id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
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
        .fetch_all(&self.pool)
        .await
        .map_err(read)?
        {
            stored.steps.push(step_row(&row, 0).map_err(read)?);
        }
        for row in sqlx::query("SELECT seat, token_sha256 FROM seat_tokens WHERE match_id = $1")
            .bind(id)
            .fetch_all(&self.pool)
            .await
            .map_err(read)?
        {
            let seat: i64 = row.try_get(0).map_err(read)?;
            stored
                .tokens
                .insert(seat as usize, row.try_get(1).map_err(read)?);
        }
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

    /// Every registered ladder bot.
    pub async fn ladder_bots(&self) -> Result<Vec<LadderBotRow>, StoreError> {
        let read = query_error("cannot read the ladder's bots");
        let rows = sqlx::query(
            "SELECT name, token_sha256, games, retired, created_ms FROM ladder_bots ORDER BY name",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(read)?;
        rows.iter()
            .map(|row| {
                let games: String = row.try_get(2).map_err(read)?;
                let retired: i64 = row.try_get(3).map_err(read)?;
                Ok(LadderBotRow {
                    name: row.try_get(0).map_err(read)?,
                    token_hash: row.try_get(1).map_err(read)?,
                    games: serde_json::from_str(&games)
                        .map_err(json_error("a ladder bot's games do not read"))?,
                    retired: retired != 0,
                    created_ms: row.try_get(4).map_err(read)?,
                })
            })
            .collect()
    }

    /// Stores a newly registered bot; refused if the name is taken.
    pub async fn insert_ladder_bot(&self, bot: &LadderBotRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO ladder_bots (name, token_sha256, games, retired, created_ms) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&bot.name)
        .bind(&bot.token_hash)
        .bind(serde_json::to_string(&bot.games).expect("strings serialize"))
        .bind(i64::from(bot.retired))
        .bind(bot.created_ms)
        .execute(&self.pool)
        .await
        .map(|_| ())
        .map_err(query_error("cannot store the bot"))
    }

    /// Marks a bot retired.
    pub async fn retire_ladder_bot(&self, name: &str) -> Result<(), StoreError> {
        sqlx::query("UPDATE ladder_bots SET retired = 1 WHERE name = $1")
            .bind(name)
            .execute(&self.pool)
            .await
            .map(|_| ())
            .map_err(query_error("cannot retire the bot"))
    }

    /// Every ladder game, in the order they started (finished or not).
    pub async fn ladder_games(&self) -> Result<Vec<LadderGameRow>, StoreError> {
        let read = query_error("cannot read the ladder's games");
        let rows = sqlx::query(
            "SELECT match_id, game, set_number, bots, returns, forfeits, started_ms, \
             finished_ms FROM ladder_games ORDER BY started_ms, match_id",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(read)?;
        let json = json_error("a ladder game does not read");
        rows.iter()
            .map(|row| {
                let set: i64 = row.try_get(2).map_err(read)?;
                let bots: String = row.try_get(3).map_err(read)?;
                let returns: Option<String> = row.try_get(4).map_err(read)?;
                let forfeits: Option<String> = row.try_get(5).map_err(read)?;
                Ok(LadderGameRow {
                    match_id: row.try_get(0).map_err(read)?,
                    game: row.try_get(1).map_err(read)?,
                    set: set as u64,
                    bots: serde_json::from_str(&bots).map_err(json)?,
                    returns: returns
                        .map(|r| serde_json::from_str(&r))
                        .transpose()
                        .map_err(json)?,
                    forfeits: forfeits
                        .map(|f| serde_json::from_str(&f))
                        .transpose()
                        .map_err(json)?,
                    started_ms: row.try_get(6).map_err(read)?,
                    finished_ms: row.try_get(7).map_err(read)?,
                })
            })
            .collect()
    }

    /// Stores a ladder game as it starts (its match is stored already).
    pub async fn insert_ladder_game(&self, game: &LadderGameRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO ladder_games (match_id, game, set_number, bots, started_ms) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&game.match_id)
        .bind(&game.game)
        .bind(game.set as i64)
        .bind(serde_json::to_string(&game.bots).expect("strings serialize"))
        .bind(game.started_ms)
        .execute(&self.pool)
        .await
        .map(|_| ())
        .map_err(query_error("cannot store the ladder game"))
    }

    /// Stores how a ladder game ended.
    pub async fn finish_ladder_game(
        &self,
        match_id: &str,
        returns: &[f64],
        forfeits: &[bool],
        finished_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE ladder_games SET returns = $1, forfeits = $2, finished_ms = $3 \
             WHERE match_id = $4",
        )
        .bind(serde_json::to_string(returns).expect("numbers serialize"))
        .bind(serde_json::to_string(forfeits).expect("booleans serialize"))
        .bind(finished_ms)
        .bind(match_id)
        .execute(&self.pool)
        .await
        .map(|_| ())
        .map_err(query_error("cannot store the ladder game's end"))
    }

    /// Drops the rows of ladder games that never ended (their matches were ended as expired).
    pub async fn drop_unfinished_ladder_games(&self) -> Result<u64, StoreError> {
        sqlx::query("DELETE FROM ladder_games WHERE finished_ms IS NULL")
            .execute(&self.pool)
            .await
            .map(|done| done.rows_affected())
            .map_err(query_error("cannot drop the unfinished ladder games"))
    }

    /// Closes the pool (the writer ends once every queued write is done).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Makes sure the directory of a SQLite file exists (a clear error if it cannot).
fn sqlite_file(path: &str) -> Result<(), FileError> {
    let path = path.split('?').next().unwrap_or(path);
    if path.is_empty() || path.starts_with(":memory:") {
        return Ok(());
    }
    if let Some(dir) = std::path::Path::new(path).parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir).map_err(|source| FileError::CreateDir {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    Ok(())
}

/// The first bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// Refuses, before SQLite opens it, a database file that is not one: an empty file (SQLite
/// would silently start an empty store in it) or a file of another kind.
fn check_sqlite_file(path: &str) -> Result<(), FileError> {
    use std::io::Read;
    let path = path.split('?').next().unwrap_or(path);
    if path.is_empty() || path.starts_with(":memory:") {
        return Ok(());
    }
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(FileError::Open {
                path: path.to_string(),
                source,
            });
        }
    };
    let mut header = Vec::with_capacity(SQLITE_HEADER.len());
    file.by_ref()
        .take(SQLITE_HEADER.len() as u64)
        .read_to_end(&mut header)
        .map_err(|source| FileError::Read {
            path: path.to_string(),
            source,
        })?;
    if header.is_empty() {
        return Err(FileError::Empty {
            path: path.to_string(),
        });
    }
    if header != SQLITE_HEADER {
        return Err(FileError::NotSqlite {
            path: path.to_string(),
        });
    }
    Ok(())
}

/// Checks an open SQLite database: SQLite's `quick_check` (a damaged file is refused with
/// what SQLite found), and that it is a checkraise store or an empty database (a file of
/// another program's tables is refused rather than written into).
async fn check_sqlite(connection: &mut sqlx::AnyConnection) -> Result<(), SqliteError> {
    let rows = sqlx::query("PRAGMA quick_check")
        .fetch_all(&mut *connection)
        .await
        .map_err(SqliteError::Unreadable)?;
    let found: Vec<String> = rows
        .iter()
        .filter_map(|row| row.try_get::<String, _>(0).ok())
        .collect();
    if found.first().map(String::as_str) != Some("ok") {
        let first: Vec<&str> = found.iter().take(3).map(String::as_str).collect();
        return Err(SqliteError::Damaged {
            problems: found.len(),
            first: first.join("; "),
        });
    }
    // Rewriting the header's user version (unchanged) is a write SQLite refuses at once on a
    // file it could open only for reading (read-only, immutable), where the pool would retry
    // until its timeout.
    let version: i64 = sqlx::query("PRAGMA user_version")
        .fetch_one(&mut *connection)
        .await
        .and_then(|row| row.try_get(0))
        .map_err(SqliteError::Header)?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "PRAGMA user_version = {version}"
    )))
    .execute(&mut *connection)
    .await
    .map_err(SqliteError::ReadOnly)?;
    let tables = sqlx::query("SELECT name FROM sqlite_master WHERE type = 'table'")
        .fetch_all(&mut *connection)
        .await
        .map_err(SqliteError::Tables)?;
    let names: Vec<String> = tables
        .iter()
        .filter_map(|row| row.try_get::<String, _>(0).ok())
        .collect();
    if !names.is_empty() && !names.iter().any(|n| n == "_sqlx_migrations") {
        return Err(SqliteError::Foreign(names));
    }
    Ok(())
}

/// Rewrites the probe row (`store_probe`): fails when the store cannot be written.
async fn probe(pool: &AnyPool) -> Result<(), ProbeError> {
    let done = sqlx::query("UPDATE store_probe SET probed_ms = $1 WHERE id = 1")
        .bind(now_ms())
        .execute(pool)
        .await?;
    if done.rows_affected() != 1 {
        return Err(ProbeError::RowMissing);
    }
    Ok(())
}

fn stored_match(row: &sqlx::any::AnyRow) -> Result<StoredMatch, StoreError> {
    let read = query_error("cannot read a stored match");
    let status: String = row.try_get(5).map_err(read)?;
    let held: String = row.try_get(7).map_err(read)?;
    let seed: i64 = row.try_get(3).map_err(read)?;
    let version: i64 = row.try_get(6).map_err(read)?;
    let chosen_seed: i64 = row.try_get(12).map_err(read)?;
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

/// Commits queued writes in order, as many as are waiting in one transaction; then tells each
/// match how far it is committed. If a group fails, its writes are retried one by one, and a
/// match whose write fails has its later writes of the group failed too.
async fn write_loop(
    pool: AnyPool,
    mut queue: mpsc::UnboundedReceiver<MatchWrite>,
    failing: Arc<watch::Sender<Option<String>>>,
) {
    let mut writer = Writer {
        pool,
        connection: None,
    };
    let mut group = Vec::with_capacity(GROUP_COMMIT);
    while queue.recv_many(&mut group, GROUP_COMMIT).await > 0 {
        let started = std::time::Instant::now();
        let outcome = writer.commit(&group).await;
        metrics::histogram!("checkraise_store_commit_seconds")
            .record(started.elapsed().as_secs_f64());
        match outcome {
            Ok(()) => {
                failing.send_if_modified(|f| f.take().is_some());
                for write in group.drain(..) {
                    committed(&write);
                }
            }
            Err(error) => {
                tracing::warn!(%error, writes = group.len(), "a group commit failed; retrying its writes one by one");
                let mut failed: HashMap<String, String> = HashMap::new();
                for write in group.drain(..) {
                    let outcome = match failed.get(&write.id) {
                        Some(why) => Err(why.clone()),
                        None => writer
                            .commit(std::slice::from_ref(&write))
                            .await
                            .map_err(|e| e.to_string()),
                    };
                    match outcome {
                        Ok(()) => committed(&write),
                        Err(why) => {
                            tracing::error!(match_id = %write.id, error = %why, "a match's change could not be stored");
                            failing.send_replace(Some(why.clone()));
                            failed.insert(write.id.clone(), why.clone());
                            write.durability.send_modify(|d| d.failed = Some(why));
                        }
                    }
                }
            }
        }
    }
}

fn committed(write: &MatchWrite) {
    write.durability.send_if_modified(|d| {
        let moved = write.seq > d.committed;
        d.committed = d.committed.max(write.seq);
        moved
    });
}

/// Most history entries inserted by one statement (five values each).
const STEPS_PER_INSERT: usize = 100;

/// The writer task's connection: one connection kept for every commit (taken out of the pool,
/// so that SQLite's page cache stays warm and no other connection's writes invalidate it),
/// replaced by a new one after any error.
struct Writer {
    pool: AnyPool,
    connection: Option<sqlx::AnyConnection>,
}

impl Writer {
    /// Stores `writes` in one transaction. A group of changes to existing matches (what every
    /// `Act` and bot move sends) goes as one text, one round trip to the database
    /// (`commit_text`); a group that creates a match or stores a token binds its values,
    /// statement by statement (`commit_bound`). A connection that failed is dropped (which
    /// rolls back what it had begun), so the next commit starts clean on a new one.
    async fn commit(&mut self, writes: &[MatchWrite]) -> Result<(), sqlx::Error> {
        let mut connection = match self.connection.take() {
            Some(connection) => connection,
            None => self.pool.acquire().await?.detach(),
        };
        let outcome = match commit_text(writes) {
            // Safe: `commit_text` writes only numbers and quoted literals (see `sql_text`).
            Some(text) => sqlx::raw_sql(sqlx::AssertSqlSafe(text))
                .execute(&mut connection)
                .await
                .map(|_| ()),
            None => commit_bound(&mut connection, writes).await,
        };
        if outcome.is_ok() {
            self.connection = Some(connection);
        }
        outcome
    }
}

/// A SQL string literal of `text`, or `None` for text a literal cannot carry (a NUL).
fn sql_text(text: &str) -> Option<String> {
    if text.contains('\0') {
        return None;
    }
    Some(format!("'{}'", text.replace('\'', "''")))
}

/// `writes` as one transaction's text (`BEGIN`, each match's `UPDATE`, the new history
/// entries' `INSERT`s, `COMMIT`), or `None` when a write creates a match or stores a token
/// (those bind their values instead) or holds text a literal cannot carry.
fn commit_text(writes: &[MatchWrite]) -> Option<String> {
    use std::fmt::Write as _;
    if writes
        .iter()
        .any(|w| w.create.is_some() || w.token.is_some())
    {
        return None;
    }
    let mut text = String::with_capacity(256 * writes.len());
    text.push_str("BEGIN;\n");
    let mut ids = Vec::with_capacity(writes.len());
    for w in writes {
        let id = sql_text(&w.id)?;
        let returns = match &w.returns {
            Some(returns) => sql_text(returns)?,
            None => "NULL".to_string(),
        };
        let finished = w
            .finished_ms
            .map_or_else(|| "NULL".to_string(), |t| t.to_string());
        writeln!(
            text,
            "UPDATE matches SET status = {}, version = {}, held = {}, final_returns = {returns}, \
             touched_ms = {}, finished_ms = {finished} WHERE id = {id};",
            sql_text(w.status.as_str())?,
            w.version as i64,
            sql_text(&w.held)?,
            w.touched_ms,
        )
        .ok()?;
        ids.push(id);
    }
    let steps: Vec<(&str, usize, &StepRow)> = writes
        .iter()
        .zip(&ids)
        .flat_map(|(w, id)| {
            w.steps
                .iter()
                .enumerate()
                .map(move |(i, step)| (id.as_str(), w.first_step + i, step))
        })
        .collect();
    for chunk in steps.chunks(STEPS_PER_INSERT) {
        text.push_str("INSERT INTO steps (match_id, idx, version, player, action) VALUES ");
        for (k, (id, idx, step)) in chunk.iter().enumerate() {
            let comma = if k == 0 { "" } else { ", " };
            write!(
                text,
                "{comma}({id}, {idx}, {}, {}, {})",
                step.version as i64, step.player, step.action
            )
            .ok()?;
        }
        text.push_str(";\n");
    }
    text.push_str("COMMIT;");
    Some(text)
}

/// Stores `writes` in one transaction: each match's row, then every new history entry of the
/// group in as few statements as `STEPS_PER_INSERT` allows.
async fn commit_bound(
    connection: &mut sqlx::AnyConnection,
    writes: &[MatchWrite],
) -> Result<(), sqlx::Error> {
    let mut tx = sqlx::Connection::begin(connection).await?;
    for w in writes {
        if let Some(row) = &w.create {
            sqlx::query(
                "INSERT INTO matches (id, game, parameters, seed, seats, status, version, held, \
                 final_returns, created_ms, touched_ms, finished_ms, chosen_seed) VALUES ($1, $2, \
                 $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
            .bind(&w.id)
            .bind(&row.game)
            .bind(&row.parameters)
            .bind(row.seed as i64)
            .bind(&row.seats)
            .bind(w.status.as_str())
            .bind(w.version as i64)
            .bind(&w.held)
            .bind(w.returns.as_deref())
            .bind(row.created_ms)
            .bind(w.touched_ms)
            .bind(w.finished_ms)
            .bind(i64::from(row.chosen_seed))
            .execute(&mut *tx)
            .await?;
        } else {
            sqlx::query(
                "UPDATE matches SET status = $2, version = $3, held = $4, final_returns = $5, \
                 touched_ms = $6, finished_ms = $7 WHERE id = $1",
            )
            .bind(&w.id)
            .bind(w.status.as_str())
            .bind(w.version as i64)
            .bind(&w.held)
            .bind(w.returns.as_deref())
            .bind(w.touched_ms)
            .bind(w.finished_ms)
            .execute(&mut *tx)
            .await?;
        }
        if let Some((seat, hash)) = &w.token {
            sqlx::query(
                "INSERT INTO seat_tokens (match_id, seat, token_sha256, joined_ms) VALUES ($1, \
                 $2, $3, $4)",
            )
            .bind(&w.id)
            .bind(*seat as i64)
            .bind(hash)
            .bind(w.touched_ms)
            .execute(&mut *tx)
            .await?;
        }
    }
    let steps: Vec<(&str, usize, &StepRow)> = writes
        .iter()
        .flat_map(|w| {
            w.steps
                .iter()
                .enumerate()
                .map(move |(i, step)| (w.id.as_str(), w.first_step + i, step))
        })
        .collect();
    for chunk in steps.chunks(STEPS_PER_INSERT) {
        let values: Vec<String> = (0..chunk.len())
            .map(|r| {
                let p = 5 * r;
                format!(
                    "(${}, ${}, ${}, ${}, ${})",
                    p + 1,
                    p + 2,
                    p + 3,
                    p + 4,
                    p + 5
                )
            })
            .collect();
        let sql = format!(
            "INSERT INTO steps (match_id, idx, version, player, action) VALUES {}",
            values.join(", ")
        );
        // Safe: the text holds only placeholders; every value is bound.
        let mut insert = sqlx::query(sqlx::AssertSqlSafe(sql));
        for &(id, idx, step) in chunk {
            insert = insert
                .bind(id)
                .bind(idx as i64)
                .bind(step.version as i64)
                .bind(step.player)
                .bind(step.action);
        }
        insert.execute(&mut *tx).await?;
    }
    tx.commit().await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::watch;

    use sqlx::migrate::{Migration, Migrator};

    use super::{
        Database, Durability, MatchRow, MatchWrite, Status, StepRow, commit_text, migrator,
        redacted, sql_text,
    };

    fn write(id: &str, held: &str) -> MatchWrite {
        MatchWrite {
            id: id.into(),
            create: None,
            first_step: 4,
            steps: vec![
                StepRow {
                    player: 0,
                    action: 12,
                    version: 3,
                },
                StepRow {
                    player: -1,
                    action: 40,
                    version: 3,
                },
            ],
            token: None,
            version: 3,
            status: Status::Live,
            held: held.into(),
            returns: None,
            touched_ms: 1_700_000_000_000,
            finished_ms: None,
            seq: 1,
            durability: Arc::new(watch::channel(Durability::default()).0),
        }
    }

    #[test]
    fn a_group_of_changes_is_one_transaction_of_quoted_literals() {
        assert_eq!(sql_text("it's"), Some("'it''s'".to_string()));
        assert_eq!(sql_text("a\0b"), None);
        let text = commit_text(&[
            write("m1", "[[0,1]]"),
            write("x'; DROP TABLE matches; --", "[]"),
        ])
        .expect("plain changes are written as text");
        assert!(
            text.starts_with("BEGIN;\n") && text.ends_with("COMMIT;"),
            "{text}"
        );
        assert!(
            text.contains("WHERE id = 'x''; DROP TABLE matches; --';"),
            "{text}"
        );
        assert!(
            text.contains("('m1', 4, 3, 0, 12), ('m1', 5, 3, -1, 40)"),
            "{text}"
        );
        assert_eq!(text.matches("UPDATE matches").count(), 2);
        assert_eq!(text.matches("INSERT INTO steps").count(), 1);
    }

    #[test]
    fn creations_tokens_and_unquotable_text_are_bound_instead() {
        let mut created = write("m1", "[]");
        created.create = Some(MatchRow {
            game: "pokeros".into(),
            parameters: "{}".into(),
            seed: 1,
            chosen_seed: true,
            seats: "[]".into(),
            created_ms: 0,
        });
        assert!(commit_text(&[write("m0", "[]"), created]).is_none());
        let mut joined = write("m1", "[]");
        joined.token = Some((0, "ab".into()));
        assert!(commit_text(&[joined]).is_none());
        assert!(commit_text(&[write("m\0", "[]")]).is_none());
    }

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

    /// The embedded migrations are every file of `migrations/`, as sqlx reads that folder:
    /// same versions, descriptions, transaction mode and checksums (which databases made by
    /// earlier builds, migrated by `sqlx::migrate!`, have stored).
    #[tokio::test]
    async fn the_embedded_migrations_are_the_folder_as_sqlx_reads_it() {
        let folder = Migrator::new(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/migrations"
        )))
        .await
        .unwrap();
        let key = |m: &Migration| {
            (
                m.version,
                m.description.to_string(),
                m.migration_type,
                m.checksum.to_vec(),
                m.no_tx,
                m.sql.as_str().to_owned(),
            )
        };
        let embedded: Vec<_> = migrator().iter().map(key).collect();
        let read: Vec<_> = folder.iter().map(key).collect();
        assert_eq!(embedded.len(), 3);
        assert_eq!(embedded, read);
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
