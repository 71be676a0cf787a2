//! The ladder's tables: its registered bots and its games, and the writes a ladder server
//! makes while it holds the ladder's role (fenced by its epoch, so a server that lost the
//! role cannot write).

use std::sync::Arc;

use sqlx::Row;

use super::Store;
use super::error::{StoreError, json_error, query_error};

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

impl Store {
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

    /// This store, its ladder writes made as the ladder role's holder `instance` at `epoch`:
    /// each is refused (`StoreError::NotLadderHolder`) once another server took the role.
    pub fn fenced_for_ladder(&self, instance: &str, epoch: u64) -> Store {
        Store {
            ladder_fence: Some(Arc::new((instance.to_string(), epoch))),
            ..self.clone()
        }
    }

    /// The condition a fenced ladder write adds, its placeholders numbered from `first`.
    fn ladder_fence_sql(&self, first: usize) -> String {
        match &self.ladder_fence {
            Some(_) => format!(
                "EXISTS (SELECT 1 FROM cluster_roles WHERE role = 'ladder' AND instance = \
                 ${first} AND epoch = ${})",
                first + 1
            ),
            None => "1 = 1".to_string(),
        }
    }

    /// Runs a ladder write (its fence's values bound last); refused when fenced and no row
    /// was written.
    async fn ladder_write(
        &self,
        query: sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments>,
        what: &'static str,
    ) -> Result<u64, StoreError> {
        let query = match &self.ladder_fence {
            Some(fence) => query.bind(fence.0.clone()).bind(fence.1 as i64),
            None => query,
        };
        let done = query
            .execute(&self.pool)
            .await
            .map_err(query_error(what))?
            .rows_affected();
        if done == 0 && self.ladder_fence.is_some() && !self.ladder_fence_holds().await? {
            return Err(StoreError::NotLadderHolder);
        }
        Ok(done)
    }

    /// This store's ladder role is still held as fenced.
    async fn ladder_fence_holds(&self) -> Result<bool, StoreError> {
        let Some(fence) = &self.ladder_fence else {
            return Ok(true);
        };
        let what = "cannot read the cluster's ladder role";
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {} AS held",
            self.ladder_fence_sql(1)
        )))
        .bind(fence.0.clone())
        .bind(fence.1 as i64)
        .fetch_one(&self.pool)
        .await
        .map_err(query_error(what))?;
        row.try_get::<bool, _>(0).map_err(query_error(what))
    }

    /// Stores a newly registered bot; refused if the name is taken.
    pub async fn insert_ladder_bot(&self, bot: &LadderBotRow) -> Result<(), StoreError> {
        let query = sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO ladder_bots (name, token_sha256, games, retired, created_ms) \
             SELECT $1, $2, $3, $4, $5 WHERE {}",
            self.ladder_fence_sql(6)
        )))
        .bind(bot.name.clone())
        .bind(bot.token_hash.clone())
        .bind(serde_json::to_string(&bot.games).expect("strings serialize"))
        .bind(i64::from(bot.retired))
        .bind(bot.created_ms);
        self.ladder_write(query, "cannot store the bot")
            .await
            .map(|_| ())
    }

    /// Marks a bot retired.
    pub async fn retire_ladder_bot(&self, name: &str) -> Result<(), StoreError> {
        let query = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE ladder_bots SET retired = 1 WHERE name = $1 AND {}",
            self.ladder_fence_sql(2)
        )))
        .bind(name.to_string());
        self.ladder_write(query, "cannot retire the bot")
            .await
            .map(|_| ())
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
        let query = sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO ladder_games (match_id, game, set_number, bots, started_ms) \
             SELECT $1, $2, $3, $4, $5 WHERE {}",
            self.ladder_fence_sql(6)
        )))
        .bind(game.match_id.clone())
        .bind(game.game.clone())
        .bind(game.set as i64)
        .bind(serde_json::to_string(&game.bots).expect("strings serialize"))
        .bind(game.started_ms);
        self.ladder_write(query, "cannot store the ladder game")
            .await
            .map(|_| ())
    }

    /// Stores how a ladder game ended.
    pub async fn finish_ladder_game(
        &self,
        match_id: &str,
        returns: &[f64],
        forfeits: &[bool],
        finished_ms: i64,
    ) -> Result<(), StoreError> {
        let query = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE ladder_games SET returns = $1, forfeits = $2, finished_ms = $3 \
             WHERE match_id = $4 AND {}",
            self.ladder_fence_sql(5)
        )))
        .bind(serde_json::to_string(returns).expect("numbers serialize"))
        .bind(serde_json::to_string(forfeits).expect("booleans serialize"))
        .bind(finished_ms)
        .bind(match_id.to_string());
        self.ladder_write(query, "cannot store the ladder game's end")
            .await
            .map(|_| ())
    }

    /// Drops the rows of ladder games that never ended (their matches were ended as expired).
    pub async fn drop_unfinished_ladder_games(&self) -> Result<u64, StoreError> {
        let query = sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM ladder_games WHERE finished_ms IS NULL AND {}",
            self.ladder_fence_sql(1)
        )));
        self.ladder_write(query, "cannot drop the unfinished ladder games")
            .await
    }
}
