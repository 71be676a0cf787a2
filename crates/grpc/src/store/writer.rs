//! The writer task: queued writes committed in order, many at once (group commit), each
//! match told how far its writes are committed.

use std::collections::HashMap;
use std::sync::Arc;

use sqlx::AnyPool;
use tokio::sync::{mpsc, watch};

use super::{Announced, MatchWrite, StepRow};

/// Most writes committed in one transaction.
const GROUP_COMMIT: usize = 512;

/// Commits queued writes in order, as many as are waiting in one transaction; then tells each
/// match how far it is committed. If a group fails, its writes are retried one by one, and a
/// match whose write fails has its later writes of the group failed too.
pub(super) async fn write_loop(
    pool: AnyPool,
    mut queue: mpsc::UnboundedReceiver<MatchWrite>,
    failing: Arc<watch::Sender<Option<String>>>,
    shared: bool,
) {
    let mut writer = Writer {
        pool,
        connection: None,
        shared,
    };
    let mut group = Vec::with_capacity(GROUP_COMMIT);
    while queue.recv_many(&mut group, GROUP_COMMIT).await > 0 {
        // A write made on top of one that failed was made on a state that is undone: it is
        // refused too, whatever its fence says (a later write of the same copy could otherwise
        // pass the revision check against another server's write of the same revision).
        group.retain(|write| write.durability.borrow().failed.is_none());
        if group.is_empty() {
            continue;
        }
        let started = std::time::Instant::now();
        let outcome = writer.commit(&group, false).await;
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
                // Shared (cluster mode), a refused fence fails a commit too: retried one by
                // one, the refused write is told apart.
                if writer.shared {
                    tracing::debug!(%error, writes = group.len(), "a commit failed; retrying its writes one by one");
                } else {
                    tracing::warn!(%error, writes = group.len(), "a group commit failed; retrying its writes one by one");
                }
                let mut failed: HashMap<String, (String, bool)> = HashMap::new();
                for write in group.drain(..) {
                    let outcome = match failed.get(&write.id) {
                        Some(why) => Err(why.clone()),
                        None => writer
                            .commit(std::slice::from_ref(&write), true)
                            .await
                            .map_err(|e| (e.to_string(), matches!(e, CommitError::Conflict))),
                    };
                    match outcome {
                        Ok(()) => committed(&write),
                        Err((why, conflict)) => {
                            if conflict {
                                tracing::info!(match_id = %write.id, "a change was refused: another server wrote the match first");
                            } else {
                                tracing::error!(match_id = %write.id, error = %why, "a match's change could not be stored");
                                failing.send_replace(Some(why.clone()));
                            }
                            failed.insert(write.id.clone(), (why.clone(), conflict));
                            write.durability.send_modify(|d| {
                                d.failed = Some(why);
                                d.conflict = conflict;
                            });
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
        if moved {
            d.committed = write.seq;
            d.version = write.version;
        }
        moved
    });
}

/// Why a commit failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum CommitError {
    /// The database refused or failed.
    #[error(transparent)]
    Sql(#[from] sqlx::Error),
    /// Cluster mode: another server wrote the match since this server's copy of it was read
    /// (its revision moved), or took it over (its owner or epoch moved).
    #[error("another server changed the match first")]
    Conflict,
}

/// The channel every commit of a shared store is announced on (`NOTIFY`), with the payload
/// `"<match id> <revision> <what was written>"` (see `Announced`).
pub const CHANGES_CHANNEL: &str = "checkraise_matches";

/// Most history entries inserted by one statement (five values each).
const STEPS_PER_INSERT: usize = 100;

/// The writer task's connection: one connection kept for every commit (taken out of the pool,
/// so that SQLite's page cache stays warm and no other connection's writes invalidate it),
/// replaced by a new one after any error.
struct Writer {
    pool: AnyPool,
    connection: Option<sqlx::AnyConnection>,
    /// Cluster mode: writes are fenced and announced.
    shared: bool,
}

impl Writer {
    /// Stores `writes` in one transaction. A group of changes to existing matches (what every
    /// `Act` and bot move sends) goes as one text, one round trip to the database
    /// (`commit_text`); a group that creates a match or stores a token binds its values,
    /// statement by statement (`commit_bound`). A connection that failed is dropped (which
    /// rolls back what it had begun), so the next commit starts clean on a new one.
    async fn commit(&mut self, writes: &[MatchWrite], bound: bool) -> Result<(), CommitError> {
        let mut connection = match self.connection.take() {
            Some(connection) => connection,
            None => self.pool.acquire().await?.detach(),
        };
        // Sent as text (one round trip) unless `bound`: the retry of a write that failed, so
        // that a refused fence is told apart from a failure (the text aborts on it by dividing
        // by zero, which reads as any other error).
        let text = if bound {
            None
        } else {
            commit_text(writes, self.shared)
        };
        let outcome = match text {
            // Safe: `commit_text` writes only numbers and quoted literals (see `sql_text`).
            Some(text) => sqlx::raw_sql(sqlx::AssertSqlSafe(text))
                .execute(&mut connection)
                .await
                .map(|_| ())
                .map_err(CommitError::from),
            None => commit_bound(&mut connection, writes, self.shared).await,
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
/// (those bind their values instead) or holds text a literal cannot carry. With `shared`, each
/// `UPDATE` is fenced (see `fence_text`) and each write announced on `CHANGES_CHANNEL`.
fn commit_text(writes: &[MatchWrite], shared: bool) -> Option<String> {
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
        let claim = match (&w.owner, shared && w.claim) {
            (Some((owner, epoch)), true) => format!(
                ", owner = {}, owner_epoch = {}",
                sql_text(owner)?,
                *epoch as i64
            ),
            _ => String::new(),
        };
        let update = format!(
            "UPDATE matches SET status = {}, version = {}, held = {}, final_returns = {returns}, \
             touched_ms = {}, finished_ms = {finished}, revision = {}{claim} WHERE id = {id}",
            sql_text(w.status.as_str())?,
            w.version as i64,
            sql_text(&w.held)?,
            w.touched_ms,
            w.revision as i64,
        );
        if shared {
            // The statement fails (division by zero) unless exactly the fenced row was
            // updated: the whole group is then retried write by write (`commit_bound`),
            // which tells which write was refused.
            let fence = fence_text(w)?;
            writeln!(
                text,
                "WITH fenced AS ({update} AND {fence} RETURNING 1) SELECT 1 / (SELECT count(*) \
                 FROM fenced);"
            )
            .ok()?;
        } else {
            writeln!(text, "{update};").ok()?;
        }
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
    if shared {
        for w in writes {
            let payload = sql_text(&Announced::payload(w))?;
            writeln!(text, "SELECT pg_notify('{CHANGES_CHANNEL}', {payload});").ok()?;
        }
    }
    text.push_str("COMMIT;");
    Some(text)
}

/// The condition a shared store's write is fenced by, as SQL text: the stored revision is the
/// one this write was made on, and the owner and epoch are still the ones it believes.
fn fence_text(w: &MatchWrite) -> Option<String> {
    let before = w.revision.saturating_sub(1) as i64;
    // A claim is fenced by the revision alone: it pins the epoch the claim raises.
    if w.claim {
        return Some(format!("revision = {before}"));
    }
    Some(match &w.owner {
        Some((owner, epoch)) => format!(
            "revision = {before} AND owner = {} AND owner_epoch = {}",
            sql_text(owner)?,
            *epoch as i64
        ),
        None => format!("revision = {before}"),
    })
}

/// Stores `writes` in one transaction: each match's row, then every new history entry of the
/// group in as few statements as `STEPS_PER_INSERT` allows.
async fn commit_bound(
    connection: &mut sqlx::AnyConnection,
    writes: &[MatchWrite],
    shared: bool,
) -> Result<(), CommitError> {
    let mut tx = sqlx::Connection::begin(connection).await?;
    for w in writes {
        if let Some(row) = &w.create {
            sqlx::query(
                "INSERT INTO matches (id, game, parameters, seed, seats, status, version, held, \
                 final_returns, created_ms, touched_ms, finished_ms, chosen_seed, revision, \
                 owner, owner_epoch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
                 $13, $14, $15, $16)",
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
            .bind(w.revision as i64)
            .bind(w.owner.as_ref().map(|(owner, _)| owner.to_string()))
            .bind(w.owner.as_ref().map_or(0, |(_, epoch)| *epoch as i64))
            .execute(&mut *tx)
            .await?;
        } else {
            let claim = shared && w.claim && w.owner.is_some();
            let fence = match (shared, &w.owner) {
                (false, _) => " WHERE id = $1",
                (true, Some(_)) if claim => {
                    ", owner = $10, owner_epoch = $11 WHERE id = $1 AND revision = $9"
                }
                (true, Some(_)) => {
                    " WHERE id = $1 AND revision = $9 AND owner = $10 AND owner_epoch = $11"
                }
                (true, None) => " WHERE id = $1 AND revision = $9",
            };
            let sql = format!(
                "UPDATE matches SET status = $2, version = $3, held = $4, final_returns = $5, \
                 touched_ms = $6, finished_ms = $7, revision = $8{fence}"
            );
            // Safe: the text holds only placeholders; every value is bound.
            let mut update = sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(&w.id)
                .bind(w.status.as_str())
                .bind(w.version as i64)
                .bind(&w.held)
                .bind(w.returns.as_deref())
                .bind(w.touched_ms)
                .bind(w.finished_ms)
                .bind(w.revision as i64);
            if shared {
                update = update.bind(w.revision.saturating_sub(1) as i64);
                if let Some((owner, epoch)) = &w.owner {
                    update = update.bind(owner.to_string()).bind(*epoch as i64);
                }
            }
            let done = update.execute(&mut *tx).await?;
            if shared && done.rows_affected() != 1 {
                // Dropping the transaction rolls it back.
                return Err(CommitError::Conflict);
            }
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
    if shared {
        for w in writes {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANGES_CHANNEL)
                .bind(Announced::payload(w))
                .execute(&mut *tx)
                .await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::sync::watch;

    use super::super::{Announced, Durability, MatchRow, MatchWrite, Status, StepRow};
    use super::{commit_text, sql_text};

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
            revision: 3,
            owner: None,
            claim: false,
            durability: Arc::new(watch::channel(Durability::default()).0),
        }
    }

    #[test]
    fn a_group_of_changes_is_one_transaction_of_quoted_literals() {
        assert_eq!(sql_text("it's"), Some("'it''s'".to_string()));
        assert_eq!(sql_text("a\0b"), None);
        let text = commit_text(
            &[
                write("m1", "[[0,1]]"),
                write("x'; DROP TABLE matches; --", "[]"),
            ],
            false,
        )
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
    fn a_shared_store_fences_every_change_and_announces_it() {
        let mut owned = write("m2", "[]");
        owned.owner = Some(("inst'1".into(), 4));
        let text = commit_text(&[write("m1", "[]"), owned], true).expect("plain changes");
        assert!(
            text.contains("revision = 3 WHERE id = 'm1' AND revision = 2 RETURNING 1) SELECT 1 / (SELECT count(*) FROM fenced);"),
            "{text}"
        );
        assert!(
            text.contains("AND revision = 2 AND owner = 'inst''1' AND owner_epoch = 4 RETURNING 1"),
            "{text}"
        );
        assert!(
            text.contains("SELECT pg_notify('checkraise_matches', 'm1 3 {\"f\":4,"),
            "{text}"
        );
        assert_eq!(text.matches("pg_notify").count(), 2);
        let alone = commit_text(&[write("m1", "[]")], false).expect("plain changes");
        assert!(
            !alone.contains("fenced") && !alone.contains("pg_notify"),
            "{alone}"
        );
    }

    /// `write(id)` as a match's first write (its creation).
    fn created(id: &str) -> MatchWrite {
        let mut created = write(id, "[]");
        created.create = Some(MatchRow {
            game: "pokeros".into(),
            parameters: "{}".into(),
            seed: 1,
            chosen_seed: true,
            seats: "[]".into(),
            created_ms: 0,
        });
        created
    }

    #[test]
    fn an_announcement_carries_what_was_written_and_reads_back() {
        let mut w = write("m1", "[[1,7]]");
        w.owner = Some(("inst1".into(), 4));
        w.token = Some((1, "ab".into()));
        w.finished_ms = Some(5);
        let payload = Announced::payload(&w);
        let change = Announced::parse(&payload).expect("an announcement");
        assert_eq!((change.match_id.as_str(), change.revision), ("m1", 3));
        let written = change.written.expect("what was written");
        assert_eq!(written.first_step, 4);
        assert_eq!(written.steps, vec![(0, 12, 3), (-1, 40, 3)]);
        assert_eq!((written.version, &written.held), (3, &vec![(1, 7)]));
        assert_eq!(written.status(), Some(Status::Live));
        assert_eq!(written.token, Some((1, "ab".to_string())));
        assert_eq!(
            (written.touched_ms, written.finished_ms),
            (1_700_000_000_000, Some(5))
        );
        assert_eq!(written.owner, Some(("inst1".to_string(), 4)));
    }

    #[test]
    fn creations_and_long_writes_are_announced_without_what_was_written() {
        let created = created("m1");
        assert_eq!(Announced::payload(&created), "m1 3");
        let mut long = write("m1", "[]");
        long.steps = vec![long.steps[0]; 2_000];
        assert_eq!(Announced::payload(&long), "m1 3");
        // The form servers announced with before, and a payload that does not read.
        let short = Announced::parse("m1 3").expect("an announcement");
        assert_eq!((short.revision, short.written), (3, None));
        assert_eq!(Announced::parse("m1 3 {not json").unwrap().written, None);
        assert!(Announced::parse("m1 x").is_none() && Announced::parse("").is_none());
    }

    #[test]
    fn creations_tokens_and_unquotable_text_are_bound_instead() {
        let created = created("m1");
        assert!(commit_text(&[write("m0", "[]"), created], false).is_none());
        let mut joined = write("m1", "[]");
        joined.token = Some((0, "ab".into()));
        assert!(commit_text(&[joined], false).is_none());
        assert!(commit_text(&[write("m\0", "[]")], false).is_none());
    }
}
