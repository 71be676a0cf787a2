//! `checkraise-server export`: every finished match of a store as trajectories, in JSON lines
//! (`matches.jsonl`, one object per match) or Parquet (`matches.parquet`, one row per match,
//! and `steps.parquet`, one row per history entry). docs/storage.md ("Export") gives every
//! field.
//!
//! Each match's stored history is replayed through the engine, as `GetReplay` replays it: the
//! stored chance outcomes and seat actions are applied in order (a joint action as one
//! `apply_actions` of its entries), so every action text, reward and observation comes from
//! the engine. A history that does not replay, or that does not end the game with the stored
//! returns, stops the export with an error naming the match.
//!
//! The store is read a page of matches at a time (`Store::list`, then `Store::histories`), and
//! each page is written before the next is read, so an export holds one page in memory
//! whatever the store's size. Files are written under temporary names and renamed when
//! complete: a failed export leaves no partial file behind.

use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use checkraise_core::{Action, Player};
use serde::Serialize;

use crate::live_match::{StoredGameError, stored_game};
use crate::store::{Database, MatchFilter, Status, Store, StoredMatch};

/// Matches read from the store (and written) at a time.
pub const PAGE: usize = 200;

#[cfg(feature = "parquet")]
pub use parquet_files::{matches_schema, steps_schema};

/// Why a build without the `parquet` feature refuses `--format parquet`.
#[cfg(not(feature = "parquet"))]
const NO_PARQUET: &str = "this checkraise-server was built without Parquet export (the \
     `parquet` feature): use --format jsonl, the release tarball's server, or a server built \
     with `cargo build --release -p checkraise-grpc --bin checkraise-server --features parquet`";

/// `checkraise-server export`'s flags.
#[derive(Clone, Debug, clap::Args)]
pub struct ExportArgs {
    /// The store to read, as the server's `--database`: `sqlite://PATH` (an existing file) or
    /// `postgres://USER@HOST/DB`.
    #[arg(long, value_name = "URL", default_value_t = Database::default_url())]
    pub database: String,
    /// `jsonl` (DIR/matches.jsonl, one JSON object per match) or `parquet`
    /// (DIR/matches.parquet, one row per match, and DIR/steps.parquet, one row per history
    /// entry).
    #[arg(long, value_name = "FORMAT")]
    pub format: String,
    /// The directory to write into (created if missing; files of the same names are
    /// replaced).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also write each seat's observation tensor (float32, flat) at each of its decisions,
    /// and each match's observation shape.
    #[arg(long)]
    pub observations: bool,
    /// Only the matches of this game (a registry name such as `pokeros`).
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
}

/// The file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON lines: `matches.jsonl`, one object per match.
    Jsonl,
    /// Parquet: `matches.parquet` and `steps.parquet` (the `parquet` feature).
    #[cfg(feature = "parquet")]
    Parquet,
}

impl Format {
    /// The format named `text` (`jsonl` or `parquet`).
    pub fn parse(text: &str) -> Result<Self, FormatError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "jsonl" => Ok(Format::Jsonl),
            #[cfg(feature = "parquet")]
            "parquet" => Ok(Format::Parquet),
            #[cfg(not(feature = "parquet"))]
            "parquet" => Err(FormatError::NoParquet),
            _ => Err(FormatError::Unknown(text.to_string())),
        }
    }
}

/// Why `--format` is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// Parquet, in a build without it.
    #[cfg(not(feature = "parquet"))]
    #[error("{}", NO_PARQUET)]
    NoParquet,
    /// No format of that name.
    #[error("unknown format '{0}': use --format jsonl or --format parquet")]
    Unknown(String),
}

/// What to export, and where.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The file format.
    pub format: Format,
    /// The directory written into (created if missing).
    pub out: PathBuf,
    /// Whether to write observation tensors.
    pub observations: bool,
    /// Only the matches of this game.
    pub game: Option<String>,
}

/// What an export wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportSummary {
    /// Matches written.
    pub matches: usize,
    /// History entries written, over all matches.
    pub steps: usize,
    /// The files written.
    pub files: Vec<PathBuf>,
}

impl fmt::Display for ExportSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let files: Vec<String> = self.files.iter().map(|p| p.display().to_string()).collect();
        write!(
            f,
            "exported {} finished matches ({} history entries) to {}",
            self.matches,
            self.steps,
            files.join(" and ")
        )
    }
}

/// Why an export failed: bad input (a flag, the database, the output directory; exit code 2)
/// or a failure while exporting (a match that does not replay, a write error; exit code 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportError {
    /// Whether the input was at fault.
    pub bad_input: bool,
    /// One line saying what went wrong.
    pub message: String,
}

impl ExportError {
    fn input(message: impl Into<String>) -> Self {
        ExportError {
            bad_input: true,
            message: message.into(),
        }
    }

    fn failed(message: impl Into<String>) -> Self {
        ExportError {
            bad_input: false,
            message: message.into(),
        }
    }

    /// The process's exit code for this error: 2 for bad input, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        if self.bad_input { 2 } else { 1 }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExportError {}

impl ExportArgs {
    /// The options these flags ask for (format and game checked).
    pub fn options(&self) -> Result<ExportOptions, ExportError> {
        let format = Format::parse(&self.format).map_err(|e| ExportError::input(e.to_string()))?;
        if let Some(game) = &self.game {
            checkraise_core::registry::entry(game)
                .map_err(|e| ExportError::input(format!("--game: {e}")))?;
        }
        Ok(ExportOptions {
            format,
            out: self.out.clone(),
            observations: self.observations,
            game: self.game.clone(),
        })
    }
}

/// `checkraise-server export`: checks the flags, opens the store and exports it.
pub async fn run(args: &ExportArgs) -> Result<ExportSummary, ExportError> {
    let options = args.options()?;
    let store = open_store(&args.database).await?;
    let exported = export(&store, &options).await;
    store.close().await;
    exported
}

/// Opens the store at `url` for export: an existing SQLite file or a PostgreSQL database
/// (`memory` holds nothing to export, and a SQLite file that does not exist is not created).
pub async fn open_store(url: &str) -> Result<Store, ExportError> {
    let url = match Database::parse(url).map_err(|e| ExportError::input(e.to_string()))? {
        Database::Memory => {
            return Err(ExportError::input(
                "--database memory holds no stored matches: name the database the server \
                 stored them in (sqlite://PATH or postgres://...)",
            ));
        }
        Database::Url(url) => url,
    };
    if let Some(path) = url.strip_prefix("sqlite://") {
        let path = path.split('?').next().unwrap_or(path);
        if !path.is_empty() && !path.starts_with(":memory:") && !Path::new(path).is_file() {
            return Err(ExportError::input(format!(
                "cannot open the database {url}: there is no file {path}"
            )));
        }
    }
    let one_line =
        |e: crate::store::StoreError| ExportError::input(e.to_string().replace('\n', " "));
    Store::open(&url).await.map_err(one_line)
}

/// Writes every finished match of `store` (of `options.game` only, if set) into
/// `options.out` in `options.format`; an empty store gives valid files without rows.
pub async fn export(store: &Store, options: &ExportOptions) -> Result<ExportSummary, ExportError> {
    std::fs::create_dir_all(&options.out).map_err(|e| {
        ExportError::input(format!(
            "cannot create the output directory {}: {e}",
            options.out.display()
        ))
    })?;
    let mut sink: Box<dyn Sink> = match options.format {
        Format::Jsonl => Box::new(JsonlSink::create(&options.out, options.observations)?),
        #[cfg(feature = "parquet")]
        Format::Parquet => Box::new(parquet_files::ParquetSink::create(
            &options.out,
            options.observations,
        )?),
    };
    let mut summary = ExportSummary {
        matches: 0,
        steps: 0,
        files: Vec::new(),
    };
    let mut filter = MatchFilter {
        game: options.game.clone(),
        status: Some(Status::Finished),
        limit: PAGE,
        ..MatchFilter::default()
    };
    loop {
        let failed = |e: crate::store::StoreError| ExportError::failed(e.to_string());
        let mut page = store.list(&filter).await.map_err(failed)?;
        let ids: Vec<String> = page.iter().map(|m| m.id.clone()).collect();
        let mut histories = store.histories(&ids).await.map_err(failed)?;
        for m in &mut page {
            m.steps = histories.remove(&m.id).unwrap_or_default();
            let record = record(m, options.observations).map_err(|e| {
                ExportError::failed(format!("match '{}' cannot be exported: {e}", m.id))
            })?;
            sink.write(&record)
                .map_err(|e| ExportError::failed(e.to_string()))?;
            summary.matches += 1;
            summary.steps += record.steps.len();
        }
        match page.last() {
            Some(last) if page.len() == PAGE => {
                filter.after = Some((last.row.created_ms, last.id.clone()));
            }
            _ => break,
        }
    }
    summary.files = sink
        .finish()
        .map_err(|e| ExportError::failed(e.to_string()))?;
    Ok(summary)
}

/// A finished match as exported: its facts and its history replayed through the engine.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRecord {
    /// The match id.
    pub match_id: String,
    /// Registry name of the game.
    pub game: String,
    /// The game with every parameter, as one string: `pokeros(board_size=5,...)`.
    pub game_string: String,
    /// Every parameter (defaults filled in) as stored: a JSON object of texts.
    pub parameters: String,
    /// The match's seed.
    pub seed: u64,
    /// Each seat's kind (`human` or a bot's canonical spec).
    pub seats: Vec<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// When the game ended, milliseconds since the Unix epoch.
    pub finished_ms: Option<i64>,
    /// Steps taken (the match's final `SeatView.version`).
    pub version: u64,
    /// Every seat's final return.
    pub returns: Vec<f64>,
    /// The observation tensor's shape, when observations are exported.
    pub observation_shape: Option<Vec<usize>>,
    /// The history, entry by entry.
    pub steps: Vec<StepRecord>,
}

/// One history entry as exported.
#[derive(Clone, Debug, PartialEq)]
pub struct StepRecord {
    /// A seat, or -1 for chance.
    pub player: i64,
    /// The action id, or the chance outcome.
    pub action: i64,
    /// The version the match reached with the step this entry belongs to.
    pub version: u64,
    /// The engine's text for the action (`action_to_string` at the state it was taken in).
    pub action_text: String,
    /// Every seat's reward from this entry: the engine's rewards after it (a joint action's
    /// rewards on its last entry, zeros on the others). They add up to the returns.
    pub rewards: Vec<f64>,
    /// The acting seat's observation before the action (flat, float32), when observations are
    /// exported; `None` for chance.
    pub observation: Option<Vec<f32>>,
}

/// A finished match's record: its history replayed through the engine from the initial
/// state, entry by entry, as `GetReplay` replays it, checked to end the game with the stored
/// returns.
pub fn record(m: &StoredMatch, observations: bool) -> Result<MatchRecord, RecordError> {
    let game = stored_game(&m.row).map_err(RecordError::Game)?;
    let seats: Vec<String> = serde_json::from_str(&m.row.seats).map_err(RecordError::Seats)?;
    let n = game.num_players();
    let observation_size = game.observation_size();
    let mut state = game.new_initial_state();
    let mut steps: Vec<StepRecord> = Vec::with_capacity(m.steps.len());
    let mut actions: Vec<Action> = Vec::with_capacity(n);
    let mut i = 0;
    while i < m.steps.len() {
        if state.is_terminal() {
            return Err(RecordError::AfterTheEnd { entry: i });
        }
        // A joint action is one entry per seat, in seat order, applied at once.
        let joint = state.is_simultaneous_node();
        let group = if joint { n } else { 1 };
        let entries = m
            .steps
            .get(i..i + group)
            .ok_or(RecordError::InsideJointAction)?;
        actions.clear();
        for (k, entry) in entries.iter().enumerate() {
            let expected = if joint {
                Player::Seat(k)
            } else {
                state.current_player()
            };
            if Player::from_id(entry.player) != Some(expected) {
                return Err(RecordError::OutOfTurn {
                    entry: i + k,
                    player: entry.player,
                    expected,
                });
            }
            let action =
                Action::try_from(entry.action).map_err(|_| RecordError::ActionOutOfRange {
                    entry: i + k,
                    action: entry.action,
                })?;
            let observation = match expected {
                Player::Seat(seat) if observations => {
                    let mut tensor = vec![0.0; observation_size];
                    state.observation_tensor(seat, &mut tensor);
                    Some(tensor)
                }
                _ => None,
            };
            steps.push(StepRecord {
                player: entry.player,
                action: entry.action,
                version: entry.version,
                action_text: state.action_to_string(expected, action),
                rewards: vec![0.0; n],
                observation,
            });
            actions.push(action);
        }
        let applied = if joint {
            state.apply_actions(&actions)
        } else {
            state.apply_action(actions[0])
        };
        applied.map_err(|source| RecordError::DoesNotReplay { entry: i, source })?;
        let rewards = state.rewards();
        if rewards.len() != n {
            return Err(RecordError::Rewards {
                rewards: rewards.len(),
                seats: n,
            });
        }
        steps.last_mut().expect("a step was pushed").rewards = rewards;
        i += group;
    }
    if !state.is_terminal() {
        return Err(RecordError::EndsEarly {
            entries: m.steps.len(),
        });
    }
    let returns = state.returns();
    let stored: Vec<f64> = m
        .returns
        .as_deref()
        .ok_or(RecordError::NoReturns)
        .and_then(|r| serde_json::from_str(r).map_err(|_| RecordError::ReturnsUnreadable))?;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
    if returns.len() != stored.len() || !returns.iter().zip(&stored).all(|(&a, &b)| close(a, b)) {
        return Err(RecordError::Returns {
            replayed: returns,
            stored,
        });
    }
    Ok(MatchRecord {
        match_id: m.id.clone(),
        game: m.row.game.clone(),
        game_string: format!("{}({})", game.info().name, game.params().to_text()),
        parameters: m.row.parameters.clone(),
        seed: m.row.seed,
        seats,
        created_ms: m.row.created_ms,
        finished_ms: m.finished_ms,
        version: m.version,
        returns: stored,
        observation_shape: observations.then(|| game.observation_shape()),
        steps,
    })
}

/// Why a finished match cannot be exported: its stored history does not replay as the engine
/// plays it, or does not end with the stored returns.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Its game cannot be made again.
    #[error("its game does not load: {0}")]
    Game(#[source] StoredGameError),
    /// Its seats are not the JSON array the store writes.
    #[error("its seats do not read: {0}")]
    Seats(#[source] serde_json::Error),
    /// An entry after the game ended.
    #[error("history entry {entry} comes after the end of the game")]
    AfterTheEnd {
        /// The entry's index.
        entry: usize,
    },
    /// The history stops between the entries of one joint action.
    #[error("the stored history ends inside a joint action")]
    InsideJointAction,
    /// An entry by a player who is not to act.
    #[error("history entry {entry} is by {player}, but {expected} is to act")]
    OutOfTurn {
        /// The entry's index.
        entry: usize,
        /// The stored player.
        player: i64,
        /// The player to act.
        expected: Player,
    },
    /// An action id that no action can have.
    #[error("history entry {entry}: the action {action} is out of range")]
    ActionOutOfRange {
        /// The entry's index.
        entry: usize,
        /// The stored action.
        action: i64,
    },
    /// The engine refuses an entry.
    #[error("history entry {entry} does not replay: {source}")]
    DoesNotReplay {
        /// The entry's index.
        entry: usize,
        /// Why.
        #[source]
        source: checkraise_core::GameError,
    },
    /// Not one reward per seat.
    #[error("the engine gives {rewards} rewards for {seats} seats")]
    Rewards {
        /// Rewards given.
        rewards: usize,
        /// Seats.
        seats: usize,
    },
    /// The history ends before the game does.
    #[error("its stored history ({entries} entries) ends before the game does")]
    EndsEarly {
        /// Entries stored.
        entries: usize,
    },
    /// No returns stored.
    #[error("no final returns are stored")]
    NoReturns,
    /// Stored returns that are not a JSON array of numbers.
    #[error("its stored returns do not read")]
    ReturnsUnreadable,
    /// The replay ends with other returns than the stored ones.
    #[error("replaying gives the returns {replayed:?}, the store has {stored:?}")]
    Returns {
        /// The returns replayed.
        replayed: Vec<f64>,
        /// The returns stored.
        stored: Vec<f64>,
    },
}

/// Why an export's file cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Writing the file failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why (an I/O, JSON, Arrow or Parquet error).
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The complete file cannot be given its name.
    #[error("cannot rename {} to {}: {source}", from.display(), to.display())]
    Rename {
        /// The temporary file.
        from: PathBuf,
        /// Its name.
        to: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A match's stored parameters are not a JSON object.
    #[error("match '{match_id}': its parameters do not read: {source}")]
    Parameters {
        /// The match.
        match_id: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
}

impl WriteError {
    /// A failed write of `path`.
    fn write(path: &Path, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        WriteError::Write {
            path: path.to_path_buf(),
            source: source.into(),
        }
    }
}

/// Where records go: a format's files, written under temporary names until `finish`.
trait Sink {
    /// Writes one match.
    fn write(&mut self, record: &MatchRecord) -> Result<(), WriteError>;
    /// Completes the files and gives them their names; returns them.
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>, WriteError>;
}

/// An output file: written at `partial`, renamed to `path` when complete, removed if the
/// export fails (dropped before `complete`).
struct Output {
    path: PathBuf,
    partial: PathBuf,
    done: bool,
}

impl Output {
    /// Creates `dir/name`'s temporary file.
    fn create(dir: &Path, name: &str) -> Result<(Self, File), ExportError> {
        let path = dir.join(name);
        let partial = dir.join(format!(".{name}.partial"));
        let file = File::create(&partial)
            .map_err(|e| ExportError::input(format!("cannot write in {}: {e}", dir.display())))?;
        Ok((
            Output {
                path,
                partial,
                done: false,
            },
            file,
        ))
    }

    /// Gives the complete file its name.
    fn complete(mut self) -> Result<PathBuf, WriteError> {
        std::fs::rename(&self.partial, &self.path).map_err(|source| WriteError::Rename {
            from: self.partial.clone(),
            to: self.path.clone(),
            source,
        })?;
        self.done = true;
        Ok(self.path.clone())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// `matches.jsonl`.
struct JsonlSink {
    output: Output,
    file: BufWriter<File>,
    observations: bool,
}

/// A match as a JSON line.
#[derive(Serialize)]
struct JsonMatch<'a> {
    match_id: &'a str,
    game: &'a str,
    game_string: &'a str,
    parameters: serde_json::Value,
    seed: u64,
    seats: &'a [String],
    created_ms: i64,
    finished_ms: Option<i64>,
    version: u64,
    num_steps: usize,
    returns: &'a [f64],
    #[serde(skip_serializing_if = "Option::is_none")]
    observation_shape: Option<&'a [usize]>,
    steps: Vec<JsonStep<'a>>,
}

/// A history entry in a JSON line.
#[derive(Serialize)]
struct JsonStep<'a> {
    idx: usize,
    version: u64,
    player: i64,
    action: i64,
    action_text: &'a str,
    rewards: &'a [f64],
    /// Absent without observations; `null` for chance.
    #[serde(skip_serializing_if = "Option::is_none")]
    observation: Option<Option<&'a [f32]>>,
}

impl JsonlSink {
    fn create(dir: &Path, observations: bool) -> Result<Self, ExportError> {
        let (output, file) = Output::create(dir, "matches.jsonl")?;
        Ok(JsonlSink {
            output,
            file: BufWriter::new(file),
            observations,
        })
    }
}

impl Sink for JsonlSink {
    fn write(&mut self, r: &MatchRecord) -> Result<(), WriteError> {
        let line = JsonMatch {
            match_id: &r.match_id,
            game: &r.game,
            game_string: &r.game_string,
            parameters: serde_json::from_str(&r.parameters).map_err(|source| {
                WriteError::Parameters {
                    match_id: r.match_id.clone(),
                    source,
                }
            })?,
            seed: r.seed,
            seats: &r.seats,
            created_ms: r.created_ms,
            finished_ms: r.finished_ms,
            version: r.version,
            num_steps: r.steps.len(),
            returns: &r.returns,
            observation_shape: r.observation_shape.as_deref(),
            steps: r
                .steps
                .iter()
                .enumerate()
                .map(|(idx, s)| JsonStep {
                    idx,
                    version: s.version,
                    player: s.player,
                    action: s.action,
                    action_text: &s.action_text,
                    rewards: &s.rewards,
                    observation: self.observations.then_some(s.observation.as_deref()),
                })
                .collect(),
        };
        let path = &self.output.path;
        serde_json::to_writer(&mut self.file, &line).map_err(|e| WriteError::write(path, e))?;
        self.file
            .write_all(b"\n")
            .map_err(|e| WriteError::write(path, e))
    }

    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>, WriteError> {
        let JsonlSink {
            output, mut file, ..
        } = *self;
        file.flush()
            .and_then(|()| file.get_ref().sync_all())
            .map_err(|e| WriteError::write(&output.path, e))?;
        drop(file);
        Ok(vec![output.complete()?])
    }
}

/// `matches.parquet` and `steps.parquet` (the `parquet` feature: arrow and parquet are most of
/// the server's build time, so the quick build leaves them out).
#[cfg(feature = "parquet")]
mod parquet_files;
