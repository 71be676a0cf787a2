//! The Ladder service's RPCs over the `LadderHub`: registering bots, their event streams,
//! the standings and the games.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use checkraise_core::ladder::{LadderGame, check_bot_name, ratings};
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::{
    BOT_TOKEN_METADATA, Connection, DEFAULT_PAGE, DEFAULT_POINTS, EVENT_BUFFER, HubState, Ladder,
    LadderHub, LiveGame, MAX_GAMES_PER_BOT, MAX_PAGE, MAX_POINTS, Registered, canonical,
};
use crate::auth::{random_hex, token_hash};
use crate::connections::{StreamCap, StreamPermit};
use crate::errors::page_size;
use crate::matches::metadata_text;
use crate::pb;
use crate::store::{LadderBotRow, now_ms};

/// The Ladder service.
pub struct LadderService {
    hub: LadderHub,
    streams: StreamCap,
}

impl LadderService {
    /// The service over a hub, its Events streams counted under `streams` (`--max-streams`).
    pub fn new(hub: LadderHub, streams: StreamCap) -> Self {
        LadderService { hub, streams }
    }
}

/// A bot's event stream; when it goes, the bot is away.
struct BotStream {
    events: mpsc::Receiver<Result<pb::LadderEvent, Status>>,
    hub: LadderHub,
    name: String,
    id: u64,
    _permit: StreamPermit,
}

impl Drop for BotStream {
    fn drop(&mut self) {
        self.hub.disconnect(&self.name, self.id);
    }
}

impl Stream for BotStream {
    type Item = Result<pb::LadderEvent, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.events.poll_recv(cx)
    }
}

/// What a leaderboard needs of a ladder, copied out of the hub's lock: its game, anchor and
/// finished games, and each bot's flags (house, connected, retired).
struct BoardInputs {
    game: String,
    anchor: String,
    games: Vec<LadderGame>,
    flags: HashMap<String, (bool, bool, bool)>,
}

impl BoardInputs {
    fn of(ladder: &Ladder, bots: &BTreeMap<String, Registered>) -> Self {
        BoardInputs {
            game: ladder.game().to_string(),
            anchor: ladder.anchor().to_string(),
            games: ladder.games().to_vec(),
            flags: ladder
                .bots()
                .map(|b| {
                    let connected =
                        b.house || bots.get(&b.name).is_some_and(|r| r.connection.is_some());
                    (b.name.clone(), (b.house, connected, b.retired))
                })
                .collect(),
        }
    }

    /// The standings, highest rating first (the Bradley–Terry fit over every game).
    fn leaderboard(self) -> Result<pb::Leaderboard, Status> {
        let rated =
            ratings(&self.games, &self.anchor).map_err(|e| Status::internal(e.to_string()))?;
        let mut standings: Vec<pb::LadderStanding> = rated
            .into_iter()
            .map(|r| {
                let (house, connected, retired) = self
                    .flags
                    .get(&r.bot)
                    .copied()
                    .unwrap_or((false, false, false));
                let exploitability = if house {
                    super::bounds::bound(&self.game, &r.bot)
                } else {
                    None
                };
                pb::LadderStanding {
                    bot: r.bot,
                    house,
                    connected,
                    retired,
                    rating: r.rating,
                    rating_low: r.ci.0,
                    rating_high: r.ci.1,
                    return_rating: r.return_rating,
                    return_low: r.return_ci.0,
                    return_high: r.return_ci.1,
                    games: r.games as u64,
                    wins: r.wins,
                    forfeits: r.forfeits as u64,
                    exploitability,
                }
            })
            .collect();
        standings.sort_by(|a, b| b.rating.total_cmp(&a.rating).then(a.bot.cmp(&b.bot)));
        Ok(pb::Leaderboard {
            game: self.game,
            anchor: self.anchor,
            standings,
            games: self.games.len() as u64,
        })
    }
}

type LadderEvents = Pin<Box<dyn Stream<Item = Result<pb::LadderEvent, Status>> + Send>>;

#[tonic::async_trait]
impl pb::ladder_server::Ladder for LadderService {
    async fn register_bot(
        &self,
        request: Request<pb::RegisterBotRequest>,
    ) -> Result<Response<pb::RegisterBotResponse>, Status> {
        let peer = crate::gate::peer_of(&request);
        let request = request.into_inner();
        let name = request.name.trim().to_string();
        check_bot_name(&name).map_err(|e| Status::invalid_argument(e.to_string()))?;
        if request.games.is_empty() {
            return Err(Status::invalid_argument(
                "games is empty: name at least one game string the bot plays (\"pokeros\")",
            ));
        }
        if request.games.len() > MAX_GAMES_PER_BOT {
            return Err(Status::invalid_argument(format!(
                "{} games named; a bot plays at most {MAX_GAMES_PER_BOT}",
                request.games.len()
            )));
        }
        let mut games = Vec::new();
        for text in &request.games {
            let (_, game) = canonical(text)?;
            if !games.contains(&game) {
                games.push(game);
            }
        }
        let hub = &self.hub;
        let token = random_hex(32);
        let row = LadderBotRow {
            name: name.clone(),
            token_hash: token_hash(&token),
            games: games.clone(),
            retired: false,
            created_ms: now_ms(),
        };
        let taken = || {
            Status::already_exists(format!(
                "a bot named '{name}' is registered already: choose another name"
            ))
        };
        {
            let mut state = hub.state();
            if state.bots.contains_key(&name) {
                return Err(taken());
            }
            let settings = &hub.0.settings;
            if let Some(ip) = peer {
                let held = state.bots.values().filter(|b| b.peer == Some(ip)).count();
                if held >= settings.max_bots_per_peer {
                    return Err(Status::resource_exhausted(format!(
                        "this client address ({ip}) has registered {held} bots, its most \
                         (--ladder-max-bots-per-peer); play with the bots it registered"
                    )));
                }
            }
            let new = games
                .iter()
                .filter(|g| !state.ladders.contains_key(*g))
                .count();
            if new > 0 && state.ladders.len() + new > settings.max_ladders {
                return Err(Status::resource_exhausted(format!(
                    "the server runs its most ladders ({}, --ladder-max-ladders) and {new} of \
                     these games have none; register for games that have a ladder (ListLadders)",
                    settings.max_ladders
                )));
            }
            // The ladders first, so that a game that cannot have one refuses the bot whole.
            for game in &games {
                if !state.ladders.contains_key(game) {
                    let ladder = hub
                        .new_ladder(game, &[])
                        .map_err(|e| Status::invalid_argument(e.to_string()))?;
                    state.ladders.insert(game.clone(), ladder);
                }
            }
        }
        // Stored before it exists: a bot the server forgets at a restart was never registered.
        if let Some(store) = &hub.0.store {
            store.insert_ladder_bot(&row).await.map_err(|e| {
                if e.is_unique_violation() {
                    taken()
                } else {
                    Status::from(e)
                }
            })?;
        }
        {
            let mut state = hub.state();
            if state.bots.contains_key(&name) {
                return Err(taken());
            }
            for game in &games {
                let ladder = state.ladders.get_mut(game).expect("made above");
                ladder
                    .register(&name)
                    .map_err(|e| Status::invalid_argument(e.to_string()))?;
            }
            state.bots.insert(
                name.clone(),
                Registered::new(row.token_hash.clone(), games.clone(), false, peer),
            );
        }
        tracing::info!(bot = %name, ?games, "ladder bot registered");
        Ok(Response::new(pb::RegisterBotResponse {
            name,
            bot_token: token,
            games,
        }))
    }

    async fn retire_bot(
        &self,
        request: Request<pb::RetireBotRequest>,
    ) -> Result<Response<pb::RetireBotResponse>, Status> {
        let token = metadata_text(&request, BOT_TOKEN_METADATA);
        let name = request.into_inner().name;
        {
            let state = self.hub.state();
            LadderHub::authenticate(&state, &name, token.as_deref())?;
        }
        if let Some(store) = &self.hub.0.store {
            store.retire_ladder_bot(&name).await.map_err(Status::from)?;
        }
        let mut state = self.hub.state();
        let HubState { bots, ladders, .. } = &mut *state;
        if let Some(bot) = bots.get_mut(&name) {
            bot.retired = true;
            if let Some(connection) = bot.connection.take() {
                let _ = connection
                    .events
                    .try_send(Err(Status::failed_precondition("this bot was retired")));
            }
            for game in &bot.games {
                if let Some(ladder) = ladders.get_mut(game) {
                    let _ = ladder.retire(&name);
                }
            }
        }
        tracing::info!(bot = %name, "ladder bot retired");
        Ok(Response::new(pb::RetireBotResponse {}))
    }

    type EventsStream = LadderEvents;

    async fn events(
        &self,
        request: Request<pb::EventsRequest>,
    ) -> Result<Response<LadderEvents>, Status> {
        let token = metadata_text(&request, BOT_TOKEN_METADATA);
        let peer = crate::gate::peer_of(&request);
        let request = request.into_inner();
        let name = request.name;
        let max_games = request.max_games.map(u64::from);
        if max_games == Some(0) {
            return Err(Status::invalid_argument(
                "max_games is 0: ask for at least one game, or leave it unset",
            ));
        }
        let permit = self.streams.open(peer)?;
        let (sender, receiver) = mpsc::channel(EVENT_BUFFER);
        let id = {
            let mut state = self.hub.state();
            LadderHub::authenticate(&state, &name, token.as_deref())?;
            let id = state.next_connection;
            state.next_connection += 1;
            let HubState {
                bots,
                ladders,
                live,
                ..
            } = &mut *state;
            let bot = bots.get_mut(&name).expect("authenticated");
            if bot.retired {
                return Err(Status::failed_precondition(format!(
                    "'{name}' is retired: register a new bot"
                )));
            }
            if let Some(old) = bot.connection.take() {
                let _ = old.events.try_send(Err(Status::aborted(
                    "a newer Events stream for this bot took over",
                )));
            }
            for game in &bot.games {
                if let Some(ladder) = ladders.get_mut(game) {
                    let _ = ladder.set_connected(&name, true);
                }
            }
            let _ = sender.try_send(Ok(pb::LadderEvent {
                kind: pb::LadderEventKind::Connected as i32,
                ..Default::default()
            }));
            // The games in play are announced again, so a bot that reconnects plays on.
            for game in live.values() {
                if let Some(seats) = game.seats.get(&name) {
                    let _ = sender.try_send(Ok(pb::LadderEvent {
                        kind: pb::LadderEventKind::GameStarted as i32,
                        game: Some(game.summary.clone()),
                        seats: seats.clone(),
                        move_ms: self.hub.0.settings.move_ms,
                        ..Default::default()
                    }));
                }
            }
            // A bot paused for its forfeits stays paused on a new stream, and is told so.
            let now = Instant::now();
            if let Some(until) = bot.paused_until.filter(|&until| until > now) {
                let _ = sender.try_send(Ok(bot.pause_event(until - now)));
            }
            bot.connection = Some(Connection {
                id,
                peer,
                events: sender,
                max_games,
                placed: 0,
                ended: 0,
            });
            id
        };
        tracing::info!(bot = %name, "ladder bot connected");
        self.hub.0.wake.notify_one();
        Ok(Response::new(Box::pin(BotStream {
            events: receiver,
            hub: self.hub.clone(),
            name,
            id,
            _permit: permit,
        })))
    }

    async fn list_ladders(
        &self,
        request: Request<pb::ListLaddersRequest>,
    ) -> Result<Response<pb::ListLaddersResponse>, Status> {
        let request = request.into_inner();
        let limit = page_size(request.page_size, DEFAULT_PAGE, MAX_PAGE)? as usize;
        // The token is the last game string of the page before, in hex.
        let after = if request.page_token.is_empty() {
            None
        } else {
            Some(from_hex(&request.page_token).ok_or_else(|| {
                Status::invalid_argument(
                    "page_token is not a token of a ListLadders reply: pass next_page_token \
                     as it came, or nothing for the first page",
                )
            })?)
        };
        let state = self.hub.state();
        let range = match &after {
            Some(after) => state
                .ladders
                .range::<String, _>((Bound::Excluded(after), Bound::Unbounded)),
            None => state.ladders.range::<String, _>(..),
        };
        let mut ladders = Vec::new();
        let mut next_page_token = String::new();
        for ladder in range {
            if ladders.len() == limit {
                next_page_token = to_hex(ladders.last().map_or("", |l: &pb::LadderInfo| &l.game));
                break;
            }
            let ladder = ladder.1;
            ladders.push(pb::LadderInfo {
                game: ladder.game().to_string(),
                bots: ladder.bots().count() as u32,
                connected: ladder
                    .bots()
                    .filter(|b| {
                        !b.house
                            && state
                                .bots
                                .get(&b.name)
                                .is_some_and(|r| r.connection.is_some())
                    })
                    .count() as u32,
                games: ladder.games().len() as u64,
                live: state
                    .live
                    .values()
                    .filter(|g| g.summary.game == ladder.game())
                    .count() as u32,
            });
        }
        Ok(Response::new(pb::ListLaddersResponse {
            ladders,
            house_bots: self.hub.0.settings.house.clone(),
            next_page_token,
        }))
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::Leaderboard>, Status> {
        let (_, game) = canonical(&request.get_ref().game)?;
        let inputs = {
            let state = self.hub.state();
            let Some(ladder) = state.ladders.get(&game) else {
                let known: Vec<&String> = state.ladders.keys().collect();
                return Err(Status::not_found(format!(
                    "no ladder plays {game} (no bot registered for it); ladders: {known:?}"
                )));
            };
            BoardInputs::of(ladder, &state.bots)
        };
        // The fit grows with the ladder's games: off the hub's lock and the async workers.
        tokio::task::spawn_blocking(move || inputs.leaderboard())
            .await
            .map_err(|e| Status::internal(format!("the leaderboard's thread failed: {e}")))?
            .map(Response::new)
    }

    async fn get_rating_history(
        &self,
        request: Request<pb::GetRatingHistoryRequest>,
    ) -> Result<Response<pb::RatingHistory>, Status> {
        let request = request.into_inner();
        let (_, game) = canonical(&request.game)?;
        let points = match request.points {
            0 => DEFAULT_POINTS,
            n if (2..=MAX_POINTS).contains(&n) => n,
            n => {
                return Err(Status::invalid_argument(format!(
                    "points {n} is not 2 to {MAX_POINTS} (0: {DEFAULT_POINTS})"
                )));
            }
        } as usize;
        let bot = request.bot;
        let (games, anchor) = {
            let state = self.hub.state();
            let Some(ladder) = state.ladders.get(&game) else {
                return Err(Status::not_found(format!("no ladder plays {game}")));
            };
            if !ladder.bots().any(|b| b.name == bot) {
                return Err(Status::not_found(format!(
                    "'{bot}' is not a bot of the {game} ladder"
                )));
            }
            (ladder.games().to_vec(), ladder.anchor().to_string())
        };
        let name = bot.clone();
        // Each point rates the ladder afresh: off the async workers.
        let points = tokio::task::spawn_blocking(move || -> Result<_, Status> {
            let mut out: Vec<pb::RatingPoint> = Vec::new();
            for k in 1..=points {
                let n = games.len() * k / points;
                if n == 0 || out.last().is_some_and(|p| p.games == n as u64) {
                    continue;
                }
                let rated =
                    ratings(&games[..n], &anchor).map_err(|e| Status::internal(e.to_string()))?;
                let own = rated.iter().find(|r| r.bot == name);
                out.push(pb::RatingPoint {
                    games: n as u64,
                    rating: own.map(|r| r.rating),
                    rating_low: own.map_or(0.0, |r| r.ci.0),
                    rating_high: own.map_or(0.0, |r| r.ci.1),
                    bot_games: games[..n]
                        .iter()
                        .filter(|g| g.seats.contains(&name))
                        .count() as u64,
                });
            }
            Ok(out)
        })
        .await
        .map_err(|e| Status::internal(format!("the rating history's thread failed: {e}")))??;
        Ok(Response::new(pb::RatingHistory { game, bot, points }))
    }

    async fn list_ladder_games(
        &self,
        request: Request<pb::ListLadderGamesRequest>,
    ) -> Result<Response<pb::ListLadderGamesResponse>, Status> {
        let request = request.into_inner();
        let limit = page_size(request.page_size, DEFAULT_PAGE, MAX_PAGE)? as usize;
        let game = if request.game.trim().is_empty() {
            None
        } else {
            Some(canonical(&request.game)?.1)
        };
        // The token is how many finished games (oldest first) lie above the next page.
        let below: Option<usize> = if request.page_token.is_empty() {
            None
        } else {
            Some(request.page_token.parse().map_err(|_| {
                Status::invalid_argument(
                    "page_token is not a token of a ListLadderGames reply: pass \
                     next_page_token as it came, or nothing for the first page",
                )
            })?)
        };
        let admits = |g: &pb::LadderGameSummary| {
            (request.bot.is_empty() || g.bots.contains(&request.bot))
                && game.as_ref().is_none_or(|name| g.game == *name)
        };
        let state = self.hub.state();
        let mut games: Vec<pb::LadderGameSummary> = Vec::new();
        if below.is_none() {
            let mut live: Vec<&LiveGame> = state.live.values().collect();
            live.sort_by_key(|g| std::cmp::Reverse(g.summary.started_ms));
            games.extend(
                live.into_iter()
                    .map(|g| g.summary.clone())
                    .filter(|g| admits(g)),
            );
        }
        let mut end = below
            .unwrap_or(state.finished.len())
            .min(state.finished.len());
        let mut next_page_token = String::new();
        while end > 0 {
            if games.len() >= limit {
                next_page_token = end.to_string();
                break;
            }
            end -= 1;
            let g = &state.finished[end];
            if admits(g) {
                games.push(g.clone());
            }
        }
        Ok(Response::new(pb::ListLadderGamesResponse {
            games,
            next_page_token,
        }))
    }
}

/// `text` as hex digits (a page token that reads as no game string).
fn to_hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

/// The text `to_hex` made, or `None`.
fn from_hex(hex: &str) -> Option<String> {
    if !hex.len().is_multiple_of(2) || !hex.is_ascii() {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::{from_hex, to_hex};

    #[test]
    fn page_tokens_read_back_and_refuse_what_they_did_not_make() {
        let game = "pokeros(board_size=3,hand=2)";
        assert_eq!(from_hex(&to_hex(game)).as_deref(), Some(game));
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex("abc"), None);
        assert_eq!(from_hex("é0"), None);
    }
}
