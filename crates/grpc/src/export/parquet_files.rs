//! `matches.parquet` and `steps.parquet` (the `parquet` feature: arrow and parquet are most of
//! the server's build time, so the quick build leaves them out).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    Float32Builder, Float64Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::{ExportError, MatchRecord, Output, Sink, WriteError};

/// Bytes of Parquet data buffered before a row group is written out.
const ROW_GROUP_BYTES: usize = 64 << 20;

/// Matches (Parquet) buffered before they are handed to the writers as a record batch.
const BATCH_MATCHES: usize = 256;

/// A list column's type, as arrow's `ListBuilder` makes it.
fn list_of(item: DataType) -> DataType {
    DataType::List(Arc::new(Field::new_list_field(item, true)))
}

/// The schema of `matches.parquet`.
pub fn matches_schema(observations: bool) -> SchemaRef {
    let mut fields = vec![
        Field::new("match_id", DataType::Utf8, false),
        Field::new("game", DataType::Utf8, false),
        Field::new("game_string", DataType::Utf8, false),
        Field::new("parameters", DataType::Utf8, false),
        Field::new("seed", DataType::UInt64, false),
        Field::new("seats", list_of(DataType::Utf8), false),
        Field::new("created_ms", DataType::Int64, false),
        Field::new("finished_ms", DataType::Int64, true),
        Field::new("version", DataType::Int64, false),
        Field::new("num_steps", DataType::Int64, false),
        Field::new("returns", list_of(DataType::Float64), false),
    ];
    if observations {
        fields.push(Field::new(
            "observation_shape",
            list_of(DataType::Int64),
            false,
        ));
    }
    Arc::new(Schema::new(fields))
}

/// The schema of `steps.parquet`.
pub fn steps_schema(observations: bool) -> SchemaRef {
    let mut fields = vec![
        Field::new("match_id", DataType::Utf8, false),
        Field::new("idx", DataType::Int64, false),
        Field::new("version", DataType::Int64, false),
        Field::new("player", DataType::Int32, false),
        Field::new("action", DataType::Int64, false),
        Field::new("action_text", DataType::Utf8, false),
        Field::new("rewards", list_of(DataType::Float64), false),
    ];
    if observations {
        fields.push(Field::new("observation", list_of(DataType::Float32), true));
    }
    Arc::new(Schema::new(fields))
}

/// The columns of `matches.parquet` being filled.
#[derive(Default)]
struct MatchColumns {
    match_id: StringBuilder,
    game: StringBuilder,
    game_string: StringBuilder,
    parameters: StringBuilder,
    seed: UInt64Builder,
    seats: ListBuilder<StringBuilder>,
    created_ms: Int64Builder,
    finished_ms: Int64Builder,
    version: Int64Builder,
    num_steps: Int64Builder,
    returns: ListBuilder<Float64Builder>,
    observation_shape: ListBuilder<Int64Builder>,
}

/// The columns of `steps.parquet` being filled.
#[derive(Default)]
struct StepColumns {
    match_id: StringBuilder,
    idx: Int64Builder,
    version: Int64Builder,
    player: Int32Builder,
    action: Int64Builder,
    action_text: StringBuilder,
    rewards: ListBuilder<Float64Builder>,
    observation: ListBuilder<Float32Builder>,
}

/// `matches.parquet` and `steps.parquet`.
pub(super) struct ParquetSink {
    observations: bool,
    matches: (Output, ArrowWriter<File>, SchemaRef),
    steps: (Output, ArrowWriter<File>, SchemaRef),
    match_columns: MatchColumns,
    step_columns: StepColumns,
    buffered: usize,
}

fn parquet_error(
    path: &Path,
    e: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> WriteError {
    WriteError::write(path, e)
}

/// A Parquet writer of `schema` into `dir/name` (snappy-compressed, as pandas and polars
/// write by default).
fn parquet_file(
    dir: &Path,
    name: &str,
    schema: SchemaRef,
) -> Result<(Output, ArrowWriter<File>, SchemaRef), ExportError> {
    let (output, file) = Output::create(dir, name)?;
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let writer = ArrowWriter::try_new(file, schema.clone(), Some(properties))
        .map_err(|e| ExportError::failed(parquet_error(&output.path, e).to_string()))?;
    Ok((output, writer, schema))
}

impl ParquetSink {
    pub(super) fn create(dir: &Path, observations: bool) -> Result<Self, ExportError> {
        Ok(ParquetSink {
            observations,
            matches: parquet_file(dir, "matches.parquet", matches_schema(observations))?,
            steps: parquet_file(dir, "steps.parquet", steps_schema(observations))?,
            match_columns: MatchColumns::default(),
            step_columns: StepColumns::default(),
            buffered: 0,
        })
    }

    /// Hands the buffered rows to the writers as one record batch per file, and writes out
    /// a row group of a file whose buffered data passed `ROW_GROUP_BYTES`.
    fn flush(&mut self) -> Result<(), WriteError> {
        if self.buffered == 0 {
            return Ok(());
        }
        self.buffered = 0;
        let m = &mut self.match_columns;
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(m.match_id.finish()),
            Arc::new(m.game.finish()),
            Arc::new(m.game_string.finish()),
            Arc::new(m.parameters.finish()),
            Arc::new(m.seed.finish()),
            Arc::new(m.seats.finish()),
            Arc::new(m.created_ms.finish()),
            Arc::new(m.finished_ms.finish()),
            Arc::new(m.version.finish()),
            Arc::new(m.num_steps.finish()),
            Arc::new(m.returns.finish()),
        ];
        if self.observations {
            columns.push(Arc::new(m.observation_shape.finish()));
        }
        write_batch(&mut self.matches, columns)?;
        let s = &mut self.step_columns;
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(s.match_id.finish()),
            Arc::new(s.idx.finish()),
            Arc::new(s.version.finish()),
            Arc::new(s.player.finish()),
            Arc::new(s.action.finish()),
            Arc::new(s.action_text.finish()),
            Arc::new(s.rewards.finish()),
        ];
        if self.observations {
            columns.push(Arc::new(s.observation.finish()));
        }
        write_batch(&mut self.steps, columns)
    }
}

/// Writes `columns` as a record batch of `file`'s schema.
fn write_batch(
    (output, writer, schema): &mut (Output, ArrowWriter<File>, SchemaRef),
    columns: Vec<ArrayRef>,
) -> Result<(), WriteError> {
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| parquet_error(&output.path, e))?;
    writer
        .write(&batch)
        .map_err(|e| parquet_error(&output.path, e))?;
    if writer.in_progress_size() >= ROW_GROUP_BYTES {
        writer.flush().map_err(|e| parquet_error(&output.path, e))?;
    }
    Ok(())
}

impl Sink for ParquetSink {
    fn write(&mut self, r: &MatchRecord) -> Result<(), WriteError> {
        let m = &mut self.match_columns;
        m.match_id.append_value(&r.match_id);
        m.game.append_value(&r.game);
        m.game_string.append_value(&r.game_string);
        m.parameters.append_value(&r.parameters);
        m.seed.append_value(r.seed);
        for seat in &r.seats {
            m.seats.values().append_value(seat);
        }
        m.seats.append(true);
        m.created_ms.append_value(r.created_ms);
        m.finished_ms.append_option(r.finished_ms);
        m.version.append_value(r.version as i64);
        m.num_steps.append_value(r.steps.len() as i64);
        m.returns.values().append_slice(&r.returns);
        m.returns.append(true);
        if self.observations {
            for &d in r.observation_shape.as_deref().unwrap_or_default() {
                m.observation_shape.values().append_value(d as i64);
            }
            m.observation_shape.append(true);
        }
        let s = &mut self.step_columns;
        for (idx, step) in r.steps.iter().enumerate() {
            s.match_id.append_value(&r.match_id);
            s.idx.append_value(idx as i64);
            s.version.append_value(step.version as i64);
            s.player.append_value(step.player as i32);
            s.action.append_value(step.action);
            s.action_text.append_value(&step.action_text);
            s.rewards.values().append_slice(&step.rewards);
            s.rewards.append(true);
            if self.observations {
                match &step.observation {
                    Some(tensor) => {
                        s.observation.values().append_slice(tensor);
                        s.observation.append(true);
                    }
                    None => s.observation.append(false),
                }
            }
        }
        self.buffered += 1;
        if self.buffered >= BATCH_MATCHES {
            self.flush()?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Vec<PathBuf>, WriteError> {
        self.flush()?;
        let ParquetSink { matches, steps, .. } = *self;
        let mut files = Vec::new();
        for (output, writer, _) in [matches, steps] {
            let file = writer
                .into_inner()
                .map_err(|e| parquet_error(&output.path, e))?;
            file.sync_all()
                .map_err(|e| parquet_error(&output.path, e))?;
            drop(file);
            files.push(output);
        }
        files.into_iter().map(Output::complete).collect()
    }
}
