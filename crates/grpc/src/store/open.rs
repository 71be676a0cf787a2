//! Opening a store: a SQLite file made and checked before and after SQLite opens it, or a
//! PostgreSQL database; the schema's migrations; the probe row that says the store takes
//! writes.

use std::sync::Arc;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Row, SqlSafeStr};
use tokio::sync::{mpsc, watch};

use super::writer::write_loop;
use super::{
    CONNECT_TIMEOUT, FileError, OpenError, ProbeError, SqliteError, Store, StoreError, now_ms,
    redacted,
};

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
        migration(
            1,
            "matches",
            include_str!("../../migrations/0001_matches.sql"),
        ),
        migration(
            2,
            "chosen seed",
            include_str!("../../migrations/0002_chosen_seed.sql"),
        ),
        migration(
            3,
            "ladder",
            include_str!("../../migrations/0003_ladder.sql"),
        ),
        migration(
            4,
            "cluster",
            include_str!("../../migrations/0004_cluster.sql"),
        ),
        migration(
            5,
            "cluster roles",
            include_str!("../../migrations/0005_cluster_roles.sql"),
        ),
    ])
}

impl Store {
    /// Connects to `url` (creating a SQLite file and its directory if missing), checks it
    /// (`check_sqlite_file`, `check_sqlite`; a store that cannot be written is refused), runs
    /// the migrations, and starts the writer task. Every refusal is one line naming the
    /// database and the cause.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, false).await
    }

    /// `open`, the store `shared` with other servers (cluster mode: a PostgreSQL database,
    /// which the caller has checked): every write is fenced by the match's revision and owner
    /// and announced when committed (see `writer`).
    pub async fn open_with(url: &str, shared: bool) -> Result<Self, StoreError> {
        install_default_drivers();
        let connect_url = if let Some(path) = url.strip_prefix("sqlite://") {
            sqlite_file(path)?;
            check_sqlite_file(path)?;
            check_sqlite_writable(path)?;
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
        tokio::spawn(write_loop(pool.clone(), queue, failing.clone(), shared));
        Ok(Store {
            pool,
            writes,
            url: url.into(),
            failing,
            ladder_fence: None,
        })
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

/// Refuses, before SQLite opens it, a store SQLite could not write: a read-only file (or
/// `-wal`, `-shm` file beside it), or a read-only directory where those files (or the file,
/// when new) must be made. SQLite itself says only that the file cannot be opened, or that it
/// is a read-only database, after its checks, which read as damage. The test is a write, not
/// the permission bits, so that it holds for root too (whom `chmod` does not stop, but an
/// immutable file or a read-only mount does); nothing is written to the store.
fn check_sqlite_writable(path: &str) -> Result<(), FileError> {
    use std::path::{Path, PathBuf};
    let path = path.split('?').next().unwrap_or(path);
    if path.is_empty() || path.starts_with(":memory:") {
        return Ok(());
    }
    let refused = |e: &std::io::Error| {
        e.kind() == std::io::ErrorKind::PermissionDenied
            || matches!(e.raw_os_error(), Some(1 | 13 | 30))
    };
    let not_writable = |why, source| FileError::NotWritable {
        path: path.to_string(),
        why,
        source,
    };
    let file = Path::new(path);
    let beside = |suffix: &str| PathBuf::from(format!("{path}{suffix}"));
    for (candidate, main) in [
        (file.to_path_buf(), true),
        (beside("-wal"), false),
        (beside("-shm"), false),
    ] {
        match std::fs::OpenOptions::new().write(true).open(&candidate) {
            Err(e) if refused(&e) => {
                let why = if main {
                    super::error::NotWritable::File
                } else {
                    super::error::NotWritable::Beside(candidate)
                };
                return Err(not_writable(why, e));
            }
            // Missing (made by SQLite when needed, in the directory tried below), or written.
            _ => {}
        }
    }
    // SQLite makes and removes the files beside the store in its directory, even when they
    // exist now (the log is removed at the last close, and made again at the next open).
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let probe = dir.join(format!(
        ".{}.checkraise-probe-{}",
        file.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        std::process::id()
    ));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if refused(&e) => Err(not_writable(super::error::NotWritable::Directory(dir), e)),
        Err(_) => Ok(()),
    }
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
pub(super) async fn probe(pool: &AnyPool) -> Result<(), ProbeError> {
    let done = sqlx::query("UPDATE store_probe SET probed_ms = $1 WHERE id = 1")
        .bind(now_ms())
        .execute(pool)
        .await?;
    if done.rows_affected() != 1 {
        return Err(ProbeError::RowMissing);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use sqlx::migrate::{Migration, Migrator};

    use super::migrator;

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
        assert_eq!(embedded.len(), 5);
        assert_eq!(embedded, read);
    }
}
