//! `checkraise-server export`: finished matches played by a real server on SQLite, exported
//! as JSON lines and Parquet by the library function and by the binary, and read back: one
//! record per finished match (live ones left out), the stored history, the stored returns,
//! per-entry rewards that add up to them, observations of the acting seat, and the same rows
//! in every format. Bad input is refused with exit code 2, a history that does not replay
//! fails naming its match, and an empty store gives valid empty files.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{TestServer, create, temp_dir};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type, UInt64Type};
use arrow_array::{Array, RecordBatch};
use checkraise_grpc::config::Config;
use checkraise_grpc::export::{
    self, ExportOptions, Format, MatchRecord, StepRecord, matches_schema, steps_schema,
};
use checkraise_grpc::store::{Status, Store, StoredMatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn config(database: &str) -> Config {
    Config {
        database: database.to_string(),
        ..Config::in_memory()
    }
}

/// Games with short parameters: every game, a simultaneous one (Prediction Chess) included.
const CASES: &[(&str, &[(&str, &str)])] = &[
    ("pokeros", &[("board_size", "5")]),
    ("prediction_chess", &[("max_turns", "30")]),
    ("poker_chess", &[]),
    ("holdem_chess", &[]),
    ("detective_poker", &[("rounds", "1")]),
];

/// A SQLite store with two finished all-bot matches of every game in `CASES` and two live
/// matches (a human seat that never acts); returns its URL and the live matches' ids.
async fn played_store(dir: &Path) -> (String, Vec<String>) {
    let database = format!("sqlite://{}/matches.sqlite3", dir.display());
    let server = TestServer::start(config(&database)).await;
    let mut matches = server.matches();
    for (game, params) in CASES {
        // Bots in every seat (Hold'em Chess and Detective Poker have three by default).
        let players = checkraise_core::make_game(game, params.iter().copied())
            .unwrap()
            .num_players();
        let seats: Vec<&str> = (0..players)
            .map(|seat| ["random", "heuristic"][seat % 2])
            .collect();
        for seed in [1, 2] {
            let created = matches
                .create_match(create(game, params, &seats, seed))
                .await
                .unwrap()
                .into_inner();
            assert!(!created.match_id.is_empty());
        }
    }
    let mut live = Vec::new();
    for (game, params) in [CASES[0], CASES[1]] {
        live.push(
            matches
                .create_match(create(game, params, &["human", "random"], 9))
                .await
                .unwrap()
                .into_inner()
                .match_id,
        );
    }
    server.shutdown().await;
    (database, live)
}

fn options(format: Format, out: &Path, observations: bool) -> ExportOptions {
    ExportOptions {
        format,
        out: out.to_path_buf(),
        observations,
        game: None,
    }
}

/// The matches of `matches.jsonl`, as records.
fn read_jsonl(path: &Path) -> Vec<MatchRecord> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let floats = |v: &serde_json::Value| -> Vec<f64> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            };
            let observations = v.get("observation_shape").is_some();
            let steps: Vec<StepRecord> = v["steps"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    assert_eq!(s["idx"].as_u64().unwrap(), i as u64);
                    assert_eq!(s.get("observation").is_some(), observations);
                    StepRecord {
                        player: s["player"].as_i64().unwrap(),
                        action: s["action"].as_i64().unwrap(),
                        version: s["version"].as_u64().unwrap(),
                        action_text: s["action_text"].as_str().unwrap().to_string(),
                        rewards: floats(&s["rewards"]),
                        observation: s.get("observation").and_then(|o| {
                            o.as_array()
                                .map(|a| a.iter().map(|x| x.as_f64().unwrap() as f32).collect())
                        }),
                    }
                })
                .collect();
            assert_eq!(v["num_steps"].as_u64().unwrap(), steps.len() as u64);
            MatchRecord {
                match_id: v["match_id"].as_str().unwrap().to_string(),
                game: v["game"].as_str().unwrap().to_string(),
                game_string: v["game_string"].as_str().unwrap().to_string(),
                // The object, written back as the store writes it (keys sorted, compact).
                parameters: serde_json::to_string(&v["parameters"]).unwrap(),
                seed: v["seed"].as_u64().unwrap(),
                seats: v["seats"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap().to_string())
                    .collect(),
                created_ms: v["created_ms"].as_i64().unwrap(),
                finished_ms: v["finished_ms"].as_i64(),
                version: v["version"].as_u64().unwrap(),
                returns: floats(&v["returns"]),
                observation_shape: v.get("observation_shape").map(|s| {
                    s.as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_u64().unwrap() as usize)
                        .collect()
                }),
                steps,
            }
        })
        .collect()
}

/// Every batch of a Parquet file, checked to have `schema`.
fn read_parquet(path: &Path, schema: &arrow_schema::SchemaRef) -> Vec<RecordBatch> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    for batch in &batches {
        assert_eq!(batch.schema().fields(), schema.fields());
    }
    batches
}

fn strings(batch: &RecordBatch, name: &str) -> Vec<String> {
    let column = batch.column_by_name(name).unwrap().as_string::<i32>();
    (0..column.len())
        .map(|i| column.value(i).to_string())
        .collect()
}

fn int64s(batch: &RecordBatch, name: &str) -> Vec<Option<i64>> {
    batch
        .column_by_name(name)
        .unwrap()
        .as_primitive::<Int64Type>()
        .iter()
        .collect()
}

/// A list column's rows, each read by `item` (`None` for a null row).
fn lists<T>(
    batch: &RecordBatch,
    name: &str,
    item: impl Fn(&dyn Array) -> Vec<T>,
) -> Vec<Option<Vec<T>>> {
    let column = batch.column_by_name(name).unwrap().as_list::<i32>();
    (0..column.len())
        .map(|i| (!column.is_null(i)).then(|| item(column.value(i).as_ref())))
        .collect()
}

fn f64s(a: &dyn Array) -> Vec<f64> {
    a.as_primitive::<Float64Type>().values().to_vec()
}

/// The matches of `matches.parquet` and `steps.parquet`, as records.
fn read_parquet_records(dir: &Path, observations: bool) -> Vec<MatchRecord> {
    let mut steps: HashMap<String, Vec<(i64, StepRecord)>> = HashMap::new();
    for batch in read_parquet(&dir.join("steps.parquet"), &steps_schema(observations)) {
        let ids = strings(&batch, "match_id");
        let idx = int64s(&batch, "idx");
        let version = int64s(&batch, "version");
        let player: Vec<i32> = batch
            .column_by_name("player")
            .unwrap()
            .as_primitive::<Int32Type>()
            .values()
            .to_vec();
        let action = int64s(&batch, "action");
        let text = strings(&batch, "action_text");
        let rewards = lists(&batch, "rewards", f64s);
        let observation = if observations {
            lists(&batch, "observation", |a| {
                a.as_primitive::<Float32Type>().values().to_vec()
            })
        } else {
            vec![None; ids.len()]
        };
        for i in 0..ids.len() {
            steps.entry(ids[i].clone()).or_default().push((
                idx[i].unwrap(),
                StepRecord {
                    player: i64::from(player[i]),
                    action: action[i].unwrap(),
                    version: version[i].unwrap() as u64,
                    action_text: text[i].clone(),
                    rewards: rewards[i].clone().unwrap(),
                    observation: observation[i].clone(),
                },
            ));
        }
    }
    let mut records = Vec::new();
    for batch in read_parquet(&dir.join("matches.parquet"), &matches_schema(observations)) {
        let ids = strings(&batch, "match_id");
        let seeds: Vec<u64> = batch
            .column_by_name("seed")
            .unwrap()
            .as_primitive::<UInt64Type>()
            .values()
            .to_vec();
        let seats = lists(&batch, "seats", |a| {
            let s = a.as_string::<i32>();
            (0..s.len()).map(|i| s.value(i).to_string()).collect()
        });
        let returns = lists(&batch, "returns", f64s);
        let shapes = if observations {
            lists(&batch, "observation_shape", |a| {
                a.as_primitive::<Int64Type>()
                    .values()
                    .iter()
                    .map(|&d| d as usize)
                    .collect()
            })
        } else {
            vec![None; ids.len()]
        };
        let (game, game_string, parameters) = (
            strings(&batch, "game"),
            strings(&batch, "game_string"),
            strings(&batch, "parameters"),
        );
        let (created, finished, version, num_steps) = (
            int64s(&batch, "created_ms"),
            int64s(&batch, "finished_ms"),
            int64s(&batch, "version"),
            int64s(&batch, "num_steps"),
        );
        for i in 0..ids.len() {
            let mut entries = steps.remove(&ids[i]).unwrap_or_default();
            entries.sort_by_key(|(idx, _)| *idx);
            assert!(
                entries
                    .iter()
                    .enumerate()
                    .all(|(k, (idx, _))| *idx == k as i64)
            );
            assert_eq!(num_steps[i].unwrap(), entries.len() as i64);
            records.push(MatchRecord {
                match_id: ids[i].clone(),
                game: game[i].clone(),
                game_string: game_string[i].clone(),
                parameters: parameters[i].clone(),
                seed: seeds[i],
                seats: seats[i].clone().unwrap(),
                created_ms: created[i].unwrap(),
                finished_ms: finished[i],
                version: version[i].unwrap() as u64,
                returns: returns[i].clone().unwrap(),
                observation_shape: shapes[i].clone(),
                steps: entries.into_iter().map(|(_, s)| s).collect(),
            });
        }
    }
    assert!(steps.is_empty(), "steps of no match: {:?}", steps.keys());
    records
}

/// `a` and `b` equal, floats within a rounding of a decimal text.
fn assert_same(a: &[MatchRecord], b: &[MatchRecord]) {
    assert_eq!(a.len(), b.len());
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * x.abs().max(1.0);
    for (x, y) in a.iter().zip(b) {
        let strip = |m: &MatchRecord| MatchRecord {
            returns: Vec::new(),
            steps: m
                .steps
                .iter()
                .map(|s| StepRecord {
                    rewards: Vec::new(),
                    ..s.clone()
                })
                .collect(),
            ..m.clone()
        };
        assert_eq!(strip(x), strip(y), "match {}", x.match_id);
        let floats = |m: &MatchRecord| -> Vec<f64> {
            m.returns
                .iter()
                .chain(m.steps.iter().flat_map(|s| &s.rewards))
                .copied()
                .collect()
        };
        let (fx, fy) = (floats(x), floats(y));
        assert_eq!(fx.len(), fy.len());
        assert!(
            fx.iter().zip(&fy).all(|(&p, &q)| close(p, q)),
            "match {}",
            x.match_id
        );
    }
}

/// What every export must say of the stored finished matches `stored`.
fn check_against_store(records: &[MatchRecord], stored: &[StoredMatch], observations: bool) {
    let by_id: BTreeMap<&str, &StoredMatch> = stored.iter().map(|m| (m.id.as_str(), m)).collect();
    let ids: Vec<&str> = records.iter().map(|r| r.match_id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        sorted,
        by_id.keys().copied().collect::<Vec<_>>(),
        "every finished match, once"
    );
    for r in records {
        let m = by_id[r.match_id.as_str()];
        assert_eq!(r.game, m.row.game);
        assert_eq!(r.parameters, m.row.parameters);
        assert_eq!(r.seed, m.row.seed);
        assert_eq!(serde_json::to_string(&r.seats).unwrap(), m.row.seats);
        assert_eq!(
            (r.created_ms, r.finished_ms),
            (m.row.created_ms, m.finished_ms)
        );
        assert!(r.finished_ms.is_some());
        assert_eq!(r.version, m.version);
        // The game string makes the same game.
        let game = checkraise_core::make_game_from_string(&r.game_string).unwrap();
        assert_eq!(game.info().name, r.game);
        assert_eq!(
            checkraise_grpc::live_match::parameters_json(game.as_ref()),
            r.parameters
        );
        // The history as stored.
        let history: Vec<(i64, i64, u64)> = r
            .steps
            .iter()
            .map(|s| (s.player, s.action, s.version))
            .collect();
        let stored_history: Vec<(i64, i64, u64)> = m
            .steps
            .iter()
            .map(|s| (s.player, s.action, s.version))
            .collect();
        assert_eq!(history, stored_history, "match {}", r.match_id);
        // The stored returns, and rewards that add up to them.
        let stored_returns: Vec<f64> = serde_json::from_str(m.returns.as_deref().unwrap()).unwrap();
        assert_eq!(r.returns.len(), stored_returns.len());
        let n = r.returns.len();
        let mut summed = vec![0.0; n];
        for s in &r.steps {
            assert_eq!(s.rewards.len(), n);
            for (t, x) in summed.iter_mut().zip(&s.rewards) {
                *t += x;
            }
            assert!(!s.action_text.is_empty());
        }
        for seat in 0..n {
            assert!((r.returns[seat] - stored_returns[seat]).abs() < 1e-9);
            assert!(
                (summed[seat] - r.returns[seat]).abs() < 1e-6,
                "match {} ({}): rewards add up to {summed:?}, returns {:?}",
                r.match_id,
                r.game,
                r.returns
            );
        }
        // Observations: the acting seat's, before its action; none for chance.
        assert_eq!(r.observation_shape.is_some(), observations);
        if observations {
            let shape = r.observation_shape.as_ref().unwrap();
            assert_eq!(shape, &game.observation_shape());
            let size: usize = shape.iter().product();
            for s in &r.steps {
                match &s.observation {
                    Some(o) => {
                        assert!(s.player >= 0);
                        assert_eq!(o.len(), size);
                    }
                    None => assert_eq!(s.player, -1),
                }
            }
        } else {
            assert!(r.steps.iter().all(|s| s.observation.is_none()));
        }
    }
}

/// `checkraise-server ARGS`: exit code, stdout, stderr.
fn binary(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_checkraise-server"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The files of `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_matches_export_as_jsonl_and_parquet_with_the_stored_history() {
    let dir = temp_dir("export");
    let (database, live) = played_store(&dir).await;
    let store = Store::open(&database).await.unwrap();
    let stored = store.matches_with_status(Status::Finished).await.unwrap();
    assert_eq!(
        stored.len(),
        2 * CASES.len(),
        "every all-bot match finished"
    );
    let lives = store.matches_with_status(Status::Live).await.unwrap();
    assert_eq!(lives.len(), live.len());

    // What the engine says of each stored match, straight from `record`.
    let mut expected: Vec<MatchRecord> = stored
        .iter()
        .map(|m| export::record(m, true).unwrap())
        .collect();
    let order = |v: &mut Vec<MatchRecord>| {
        v.sort_by(|a, b| (a.created_ms, &a.match_id).cmp(&(b.created_ms, &b.match_id)))
    };
    order(&mut expected);

    for observations in [false, true] {
        let out = dir.join(format!("out-{observations}"));
        let jsonl = export::export(&store, &options(Format::Jsonl, &out, observations))
            .await
            .unwrap();
        assert_eq!(jsonl.matches, stored.len());
        assert_eq!(jsonl.files, vec![out.join("matches.jsonl")]);
        let parquet = export::export(&store, &options(Format::Parquet, &out, observations))
            .await
            .unwrap();
        assert_eq!(
            parquet.files,
            vec![out.join("matches.parquet"), out.join("steps.parquet")]
        );
        assert_eq!(
            (parquet.matches, parquet.steps),
            (jsonl.matches, jsonl.steps)
        );
        assert_eq!(
            files(&out),
            ["matches.jsonl", "matches.parquet", "steps.parquet"],
            "no temporary file left"
        );

        let from_jsonl = read_jsonl(&out.join("matches.jsonl"));
        let from_parquet = read_parquet_records(&out, observations);
        check_against_store(&from_jsonl, &stored, observations);
        check_against_store(&from_parquet, &stored, observations);
        assert!(
            from_jsonl
                .iter()
                .chain(&from_parquet)
                .all(|r| !live.contains(&r.match_id)),
            "live matches are left out"
        );
        // Same rows, in the listing's order (creation time, then id), in both formats.
        let mut want = expected.clone();
        if !observations {
            for r in &mut want {
                r.observation_shape = None;
                for s in &mut r.steps {
                    s.observation = None;
                }
            }
        }
        assert_eq!(
            from_parquet, want,
            "Parquet gives exactly the engine's records"
        );
        assert_same(&from_jsonl, &want);
        assert_eq!(
            jsonl.steps,
            want.iter().map(|r| r.steps.len()).sum::<usize>()
        );
    }
    let joint = expected
        .iter()
        .find(|r| r.game == "prediction_chess")
        .unwrap();
    assert!(
        joint.steps.windows(2).any(|w| w[0].player == 0
            && w[1].player == 1
            && w[0].version == w[1].version
            && w[0].rewards.iter().all(|&x| x == 0.0)),
        "a joint action's entries share a version, its rewards on its last entry"
    );

    // Only one game.
    let out = dir.join("pokeros-only");
    let only = export::export(
        &store,
        &ExportOptions {
            game: Some("pokeros".into()),
            ..options(Format::Parquet, &out, false)
        },
    )
    .await
    .unwrap();
    assert_eq!(only.matches, 2);
    assert!(
        read_parquet_records(&out, false)
            .iter()
            .all(|r| r.game == "pokeros")
    );

    // The binary, as a person runs it: the same rows.
    let cli = dir.join("cli");
    let (code, stdout, stderr) = binary(&[
        "export",
        "--database",
        &database,
        "--format",
        "parquet",
        "--out",
        cli.to_str().unwrap(),
        "--observations",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(&format!("exported {} finished matches", stored.len())),
        "{stdout}"
    );
    assert_eq!(read_parquet_records(&cli, true), expected);
    let (code, _, stderr) = binary(&[
        "export",
        "--database",
        &database,
        "--format",
        "jsonl",
        "--out",
        cli.to_str().unwrap(),
        "--game",
        "prediction_chess",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let chess = read_jsonl(&cli.join("matches.jsonl"));
    assert_eq!(chess.len(), 2);
    assert!(chess.iter().all(|r| r.game == "prediction_chess"));

    // A history that does not replay: the export fails naming the match, and leaves no file.
    store.close().await;
    let broken = &stored[0].id;
    {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&database).await.unwrap();
        sqlx::query("UPDATE steps SET action = 999999 WHERE match_id = $1 AND player >= 0")
            .bind(broken)
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
    let store = Store::open(&database).await.unwrap();
    let failed_out = dir.join("failed");
    let error = export::export(&store, &options(Format::Parquet, &failed_out, false))
        .await
        .unwrap_err();
    assert_eq!(error.exit_code(), 1);
    assert!(
        error.message.contains(&format!("match '{broken}'")),
        "{error}"
    );
    assert!(files(&failed_out).is_empty(), "{:?}", files(&failed_out));
    let (code, _, stderr) = binary(&[
        "export",
        "--database",
        &database,
        "--format",
        "jsonl",
        "--out",
        failed_out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(broken) && stderr.lines().count() == 1,
        "{stderr}"
    );
    store.close().await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_of_many_pages_is_exported_whole_and_once() {
    let dir = temp_dir("export-pages");
    let database = format!("sqlite://{}/matches.sqlite3", dir.display());
    let server = TestServer::start(config(&database)).await;
    let mut matches = server.matches();
    // Many matches created in the same millisecond: the pages' cursor (creation time, then
    // id) must neither skip nor repeat any.
    let count = 2 * export::PAGE + 7;
    let mut ids = Vec::with_capacity(count);
    for seed in 0..count as u64 {
        ids.push(
            matches
                .create_match(create(
                    "pokeros",
                    &[("board_size", "5")],
                    &["random", "random"],
                    seed,
                ))
                .await
                .unwrap()
                .into_inner()
                .match_id,
        );
    }
    server.shutdown().await;
    let store = Store::open(&database).await.unwrap();
    let out = dir.join("out");
    let summary = export::export(&store, &options(Format::Jsonl, &out, false))
        .await
        .unwrap();
    assert_eq!(summary.matches, count);
    let records = read_jsonl(&out.join("matches.jsonl"));
    let mut exported: Vec<String> = records.iter().map(|r| r.match_id.clone()).collect();
    let created: Vec<(i64, &str)> = records
        .iter()
        .map(|r| (r.created_ms, r.match_id.as_str()))
        .collect();
    assert!(
        created.windows(2).all(|w| w[0] < w[1]),
        "in the listing's order"
    );
    exported.sort();
    ids.sort();
    assert_eq!(exported, ids);
    store.close().await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn an_empty_store_exports_valid_empty_files() {
    let dir = temp_dir("export-empty");
    let database = format!("sqlite://{}/empty.sqlite3", dir.display());
    let store = Store::open(&database).await.unwrap();
    for observations in [false, true] {
        let out = dir.join(format!("out-{observations}"));
        for format in [Format::Jsonl, Format::Parquet] {
            let summary = export::export(&store, &options(format, &out, observations))
                .await
                .unwrap();
            assert_eq!((summary.matches, summary.steps), (0, 0));
        }
        assert_eq!(
            std::fs::read_to_string(out.join("matches.jsonl")).unwrap(),
            ""
        );
        assert!(read_parquet_records(&out, observations).is_empty());
        for (name, schema) in [
            ("matches.parquet", matches_schema(observations)),
            ("steps.parquet", steps_schema(observations)),
        ] {
            let builder = ParquetRecordBatchReaderBuilder::try_new(
                std::fs::File::open(out.join(name)).unwrap(),
            )
            .unwrap();
            assert_eq!(builder.schema().fields(), schema.fields(), "{name}");
            assert_eq!(builder.metadata().file_metadata().num_rows(), 0);
        }
    }
    store.close().await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn bad_input_is_refused_with_exit_code_2_and_one_line() {
    let dir = temp_dir("export-bad");
    let database = format!("sqlite://{}/m.sqlite3", dir.display());
    // A store to export from (empty), made by the server's own code.
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        Store::open(&database).await.unwrap().close().await;
    });
    let out = dir.join("out");
    let out_text = out.to_str().unwrap().to_string();
    let a_file = dir.join("a-file");
    std::fs::write(&a_file, "not a directory").unwrap();
    let missing = format!("sqlite://{}/missing.sqlite3", dir.display());
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "--database",
                &database,
                "--format",
                "csv",
                "--out",
                &out_text,
            ],
            "unknown format 'csv'",
        ),
        (
            vec![
                "--database",
                &missing,
                "--format",
                "jsonl",
                "--out",
                &out_text,
            ],
            "there is no file",
        ),
        (
            vec![
                "--database",
                "memory",
                "--format",
                "jsonl",
                "--out",
                &out_text,
            ],
            "memory holds no stored matches",
        ),
        (
            vec![
                "--database",
                "mysql://x",
                "--format",
                "jsonl",
                "--out",
                &out_text,
            ],
            "is not a database",
        ),
        (
            vec![
                "--database",
                &database,
                "--format",
                "parquet",
                "--out",
                a_file.to_str().unwrap(),
            ],
            "cannot create the output directory",
        ),
        (
            vec![
                "--database",
                &database,
                "--format",
                "jsonl",
                "--out",
                &out_text,
                "--game",
                "chess",
            ],
            "unknown game 'chess'",
        ),
    ];
    for (args, message) in cases {
        let mut argv = vec!["export"];
        argv.extend(&args);
        let (code, stdout, stderr) = binary(&argv);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("checkraise-server export: ") && stderr.contains(message),
            "{args:?}: {stderr}"
        );
        assert!(stdout.is_empty());
    }
    assert!(!out.exists(), "nothing written for bad input");
    assert!(!dir.join("missing.sqlite3").exists(), "no database created");
    // Serving flags do not mix with the subcommand; a missing --out is clap's usage error.
    let (code, _, stderr) = binary(&["--address", "127.0.0.1:0", "export", "--format", "jsonl"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = binary(&["export", "--format", "jsonl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--out"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_server_still_serves_with_its_flags_and_documents_export() {
    let (code, stdout, _) = binary(&["--help"]);
    assert_eq!(code, 0);
    for expected in [
        "export",
        "--address",
        "--database",
        "--max-matches",
        "--no-web",
    ] {
        assert!(stdout.contains(expected), "{expected} in\n{stdout}");
    }
    let (code, stdout, _) = binary(&["export", "--help"]);
    assert_eq!(code, 0);
    for expected in [
        "--format",
        "--out",
        "--observations",
        "--game",
        "--database",
    ] {
        assert!(stdout.contains(expected), "{expected} in\n{stdout}");
    }
    // `checkraise-server --address ... --database memory` serves, as before.
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkraise-server"))
        .args([
            "--address",
            "127.0.0.1:0",
            "--database",
            "memory",
            "--log-json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut listening = None;
    for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
        let line = line.unwrap();
        if line.contains("listening") {
            listening = Some(line);
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let line = listening.expect("the server logs the address it listens on");
    let record: serde_json::Value = serde_json::from_str(&line).unwrap();
    let address: std::net::SocketAddr = record["fields"]["address"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_ne!(address.port(), 0);
}
