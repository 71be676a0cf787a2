//! Why the store refuses or fails: its own errors, each a line of text with the database's
//! error (when there is one) as its source.

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
    /// A stored match's history or tokens, as read in one statement, do not read.
    #[error("match '{0}' has a stored history entry or token that does not read")]
    Unreadable(String),
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
    /// A ladder write of a server that no longer holds the cluster's ladder role.
    #[error("this server no longer runs the cluster's ladder: another server took it over")]
    NotLadderHolder,
    /// A SQLite file refused before it is opened.
    #[error(transparent)]
    File(#[from] FileError),
}

impl StoreError {
    /// Whether the database refused a row because its key is taken (a unique constraint).
    pub fn is_unique_violation(&self) -> bool {
        matches!(self, StoreError::Query { source: sqlx::Error::Database(db), .. }
            if db.is_unique_violation())
    }
}

/// `StoreError::Query` for `what`, as a `map_err` argument.
pub(super) fn query_error(what: &'static str) -> impl Fn(sqlx::Error) -> StoreError + Copy {
    move |source| StoreError::Query { what, source }
}

/// `StoreError::Json` for `what`, as a `map_err` argument.
pub(super) fn json_error(what: &'static str) -> impl Fn(serde_json::Error) -> StoreError + Copy {
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
    /// It, a file SQLite keeps beside it, or its directory, cannot be written.
    #[error(
        "the database file {path} cannot be written: {why}; make it writable by the server's \
         user, or point --database at a store it can write: {source}"
    )]
    NotWritable {
        /// The file.
        path: String,
        /// What cannot be written.
        why: NotWritable,
        /// The operating system's refusal.
        #[source]
        source: std::io::Error,
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

/// What of a SQLite store cannot be written (`FileError::NotWritable`).
#[derive(Debug, thiserror::Error)]
pub enum NotWritable {
    /// The database file itself.
    #[error("the file is read-only")]
    File,
    /// The write-ahead log or shared-memory file beside it.
    #[error("{} is read-only", .0.display())]
    Beside(std::path::PathBuf),
    /// The directory, where SQLite makes its write-ahead log (`-wal`) and shared-memory
    /// (`-shm`) files, or the file itself when it is new.
    #[error(
        "its directory {} is read-only, and SQLite makes the store's write-ahead log (-wal) and \
         shared-memory (-shm) files there",
        .0.display()
    )]
    Directory(std::path::PathBuf),
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
