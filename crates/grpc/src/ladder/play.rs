//! The ladder's games: matchmaking (which sets start, within each address's share), playing a
//! set's games as live matches, driving each bot's turns over its event stream, and forfeits.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use checkraise_core::bots::BotSpec;
use checkraise_core::ladder::{LadderGame, StartedSet, set_seed};
use tonic::Status;

use crate::auth::random_hex;
use crate::live_match::{EventQueue, LiveMatch, MatchSeed};
use crate::matches::{HUMAN, MatchStoreError, build_seats};
use crate::pb;
use crate::store::{LadderGameRow, now_ms};

use super::{
    HubState, LadderHub, LiveGame, Owner, announce_start, canonical, finish_stream_if_done, owners,
    send,
};

impl LadderHub {
    /// Starts every set the ladders allow now: a ladder plays while a registered bot of it is
    /// connected, at most `max_games` ladder games are in play at once, and each client
    /// address of a bot that can be placed (and the house, for sets of two house bots) has an
    /// equal share of them: at most `max_games` divided by their number, rounded up, before
    /// the places left are filled by anyone. A bot paused for its forfeits is not placed.
    pub(super) fn schedule(&self) {
        if !self.may_act() {
            return;
        }
        let mut started = Vec::new();
        {
            let mut state = self.state();
            let max_games = self.0.settings.max_games;
            let mut in_play: usize = state.ladders.values().map(|l| l.in_play().len()).sum();
            let now = Instant::now();
            let HubState {
                bots,
                ladders,
                sets,
                ..
            } = &mut *state;
            // Placeable: connected, not placed in all the games it asked for, not paused.
            let mut active: BTreeSet<Owner> = BTreeSet::new();
            for ladder in ladders.values_mut() {
                let names: Vec<String> = ladder
                    .bots()
                    .filter(|b| !b.house && !b.retired)
                    .map(|b| b.name.clone())
                    .collect();
                for name in names {
                    let placeable = bots.get(&name).and_then(|b| {
                        let connection = b.connection.as_ref()?;
                        (!connection.placed_enough() && !b.paused(now)).then_some(connection.peer)
                    });
                    if let Some(peer) = placeable {
                        active.insert(Owner::Peer(peer));
                    }
                    let _ = ladder.set_connected(&name, placeable.is_some());
                }
            }
            if !active.is_empty() {
                active.insert(Owner::House);
            }
            let share = max_games.div_ceil(active.len().max(1));
            let mut held: HashMap<Owner, usize> = HashMap::new();
            for owners in sets.values() {
                for owner in owners {
                    *held.entry(owner.clone()).or_default() += 1;
                }
            }
            // First every owner within its share; then, so that no place stays empty while a
            // set could be played, anyone in the places left (a place freed later goes to an
            // owner within its share first again).
            for within_shares in [true, false] {
                for (game, ladder) in ladders.iter_mut() {
                    let someone = ladder.bots().any(|b| !b.house && b.connected);
                    if !someone {
                        continue;
                    }
                    while in_play < max_games {
                        let chosen = {
                            let admits = |a: &str, b: &str| {
                                !within_shares
                                    || owners(bots, a, b)
                                        .iter()
                                        .all(|o| held.get(o).copied().unwrap_or(0) < share)
                            };
                            ladder.start_set_where(&admits)
                        };
                        match chosen {
                            Ok(Some(set)) => {
                                in_play += 1;
                                let games = set.games.len() as u64;
                                let mut pair: Vec<String> = set.games[0].seats.clone();
                                pair.sort();
                                pair.dedup();
                                let owners = match pair.as_slice() {
                                    [a, b] => owners(bots, a, b),
                                    _ => vec![Owner::House],
                                };
                                for owner in &owners {
                                    *held.entry(owner.clone()).or_default() += 1;
                                }
                                sets.insert((game.clone(), set.set), owners);
                                for name in &pair {
                                    let Some(connection) =
                                        bots.get_mut(name).and_then(|b| b.connection.as_mut())
                                    else {
                                        continue;
                                    };
                                    connection.placed += games;
                                    if connection.placed_enough() {
                                        // Placed in enough: no new set on this stream.
                                        let _ = ladder.set_connected(name, false);
                                    }
                                }
                                started.push((game.clone(), set));
                            }
                            Ok(None) => break,
                            Err(e) => {
                                tracing::error!(%game, error = %e, "the ladder cannot start a set");
                                break;
                            }
                        }
                    }
                }
            }
        }
        for (game, set) in started {
            let hub = self.clone();
            tokio::spawn(async move { hub.play_set(game, set).await });
        }
    }

    /// Plays a set's games one after another, recording each; a game that cannot be played
    /// ends the set.
    pub(super) async fn play_set(self, game: String, set: StartedSet) {
        let mut ids = Vec::new();
        let sealed = self.0.settings.duplicate && set.games.len() > 1;
        for (i, play) in set.games.iter().enumerate() {
            if self.is_closed() {
                return;
            }
            let seed = if self.0.settings.duplicate {
                play.chance_seed
            } else {
                set_seed(play.chance_seed, i as u64 + 1)
            };
            match self
                .play_game(&game, set.set, &play.seats, seed, sealed)
                .await
            {
                Ok(id) => ids.push(id),
                Err(e) => {
                    tracing::warn!(%game, set = set.set, error = %e.message(), "a ladder set was abandoned");
                    if let Some(ladder) = self.state().ladders.get_mut(&game) {
                        let _ = ladder.abandon(set.set);
                    }
                    break;
                }
            }
        }
        for id in &ids {
            self.0.matches.unseal(id);
        }
        self.state().sets.remove(&(game, set.set));
        self.0.wake.notify_one();
    }

    /// Plays one ladder game to its end and records it; returns its match id.
    pub(super) async fn play_game(
        &self,
        game_name: &str,
        set: u64,
        bots: &[String],
        seed: u64,
        sealed: bool,
    ) -> Result<String, Status> {
        let (game, _) = canonical(game_name)?;
        let house: Vec<bool> = {
            let state = self.state();
            bots.iter().map(|b| !state.bots.contains_key(b)).collect()
        };
        let kinds: Vec<String> = bots
            .iter()
            .zip(&house)
            .map(|(bot, &house)| {
                if house {
                    bot.clone()
                } else {
                    HUMAN.to_string()
                }
            })
            .collect();
        let seats = build_seats(game.as_ref(), kinds, Some(self.0.max_bot_ms))
            .map_err(MatchStoreError::from)?;
        let room = self.0.matches.reserve_new(None)?;
        let id = random_hex(16);
        let mut tokens: BTreeMap<String, Vec<pb::LadderSeat>> = BTreeMap::new();
        for (seat, bot) in bots.iter().enumerate() {
            if !house[seat] {
                tokens.entry(bot.clone()).or_default().push(pb::LadderSeat {
                    seat: seat as u32,
                    seat_token: random_hex(32),
                });
            }
        }
        let (live, events) = {
            let (id, game, tokens) = (id.clone(), game.clone(), tokens.clone());
            tokio::task::spawn_blocking(move || -> Result<_, Status> {
                let seed = MatchSeed {
                    seed,
                    chosen: false,
                };
                let mut live = LiveMatch::new(id, game, seed, seats)?;
                for seat in tokens.values().flatten() {
                    live.join(Some(seat.seat), seat.seat_token.clone())?;
                }
                let (events, _) = live.watch(None);
                Ok((live, events))
            })
            .await
            .map_err(|e| Status::internal(format!("a ladder game's thread failed: {e}")))??
        };
        let started_ms = now_ms();
        if sealed {
            self.0.matches.seal(&id);
        }
        self.0.matches.store_new(live, room).await?;
        let summary = pb::LadderGameSummary {
            match_id: id.clone(),
            game: game_name.to_string(),
            set,
            bots: bots.to_vec(),
            live: true,
            started_ms,
            ..Default::default()
        };
        if let Some(store) = &self.0.store {
            store
                .insert_ladder_game(&LadderGameRow {
                    match_id: id.clone(),
                    game: game_name.to_string(),
                    set,
                    bots: bots.to_vec(),
                    returns: None,
                    forfeits: None,
                    started_ms,
                    finished_ms: None,
                })
                .await
                .map_err(Status::from)?;
        }
        {
            let mut state = self.state();
            for (bot, seats) in &tokens {
                announce_start(&mut state, bot, &summary, seats, self.0.settings.move_ms);
            }
            state.live.insert(
                id.clone(),
                LiveGame {
                    summary,
                    seats: tokens,
                },
            );
        }
        tracing::info!(match_id = %id, game = %game_name, set, ?bots, "ladder game started");
        let result = self.drive(&id, bots, events).await;
        let removed = self.state().live.remove(&id);
        let Some(live) = removed else {
            return Err(Status::internal("a ladder game vanished"));
        };
        let (returns, forfeits) = result?;
        let finished_ms = now_ms();
        if let Some(store) = &self.0.store {
            store
                .finish_ladder_game(&id, &returns, &forfeits, finished_ms)
                .await
                .map_err(Status::from)?;
        }
        let mut summary = live.summary;
        summary.live = false;
        summary.returns = returns.clone();
        summary.forfeits = forfeits.clone();
        summary.finished_ms = Some(finished_ms);
        let mut state = self.state();
        if let Some(ladder) = state.ladders.get_mut(game_name) {
            ladder
                .record(LadderGame {
                    set,
                    seats: bots.to_vec(),
                    returns,
                    forfeits,
                })
                .map_err(|e| Status::internal(e.to_string()))?;
        }
        for (bot, seats) in &live.seats {
            send(
                &mut state,
                bot,
                pb::LadderEvent {
                    kind: pb::LadderEventKind::GameFinished as i32,
                    game: Some(summary.clone()),
                    ..Default::default()
                },
            );
            let forfeited = seats
                .iter()
                .any(|s| summary.forfeits.get(s.seat as usize) == Some(&true));
            let paused = state
                .bots
                .get_mut(bot)
                .and_then(|b| b.count_game(forfeited, self.0.settings.move_ms));
            if let Some(event) = paused {
                tracing::info!(%bot, paused_ms = event.paused_ms, forfeits_in_a_row = event.forfeits_in_a_row, "a ladder bot that keeps forfeiting is paused");
                send(&mut state, bot, event);
            }
            finish_stream_if_done(&mut state, bot);
        }
        state.finished.push(summary);
        tracing::info!(match_id = %id, "ladder game finished");
        Ok(id)
    }

    /// Follows a ladder game to its end, forfeiting a registered bot that runs out of time;
    /// returns every seat's return and which seats forfeited.
    pub(super) async fn drive(
        &self,
        id: &str,
        bots: &[String],
        mut events: EventQueue,
    ) -> Result<(Vec<f64>, Vec<bool>), Status> {
        let move_time = Duration::from_millis(self.0.settings.move_ms);
        let grace = Duration::from_millis(self.0.settings.grace_ms);
        let mut forfeits = vec![false; bots.len()];
        let mut version = None;
        let mut since = Instant::now();
        loop {
            if self.is_closed() {
                return Err(Status::unavailable(
                    "the ladder moved to another server of the cluster",
                ));
            }
            let (returns, now_version, waiting) = self
                .0
                .matches
                .with_live(id, false, |live| {
                    Ok::<_, Status>((live.final_returns(), live.version(), live.waiting_on()))
                })
                .await?;
            if let Some(returns) = returns {
                return Ok((returns, forfeits));
            }
            if version != Some(now_version) {
                version = Some(now_version);
                since = Instant::now();
            }
            // The earliest deadline of a registered bot the game waits for.
            let deadline = {
                let state = self.state();
                waiting
                    .iter()
                    .filter(|&&seat| !forfeits[seat])
                    .filter_map(|&seat| {
                        let bot = state.bots.get(&bots[seat])?;
                        let mut until = since + move_time;
                        if bot.connection.is_none() {
                            until = until.max(bot.away_since + grace);
                        }
                        Some((until, bots[seat].clone()))
                    })
                    .min()
            };
            let now = Instant::now();
            if let Some((until, bot)) = &deadline
                && *until <= now
                && self.may_act()
            {
                self.forfeit(id, bots, bot, &mut forfeits).await?;
                continue;
            }
            // (A deadline passed while the cluster lease is not fresh waits for the lease.)
            let wait = deadline
                .map(|(until, _)| until.saturating_duration_since(now))
                .unwrap_or(Duration::from_secs(1))
                .clamp(Duration::from_millis(20), Duration::from_secs(1));
            match tokio::time::timeout(wait, events.recv()).await {
                Ok(Some(Err(error))) => return Err(error.into()),
                // The queue ends after the terminal event (the next read finds the returns);
                // if it ended otherwise, the match is read again after a wait.
                Ok(None) => tokio::time::sleep(wait).await,
                Ok(Some(Ok(_))) | Err(_) => {}
            }
        }
    }

    /// Hands every seat of `bot` in the game to `random` for the rest of the game.
    pub(super) async fn forfeit(
        &self,
        id: &str,
        bots: &[String],
        bot: &str,
        forfeits: &mut [bool],
    ) -> Result<(), Status> {
        let seats: Vec<usize> = (0..bots.len())
            .filter(|&s| bots[s] == bot && !forfeits[s])
            .collect();
        tracing::info!(match_id = %id, %bot, ?seats, "a ladder bot ran out of time and forfeits");
        for &seat in &seats {
            forfeits[seat] = true;
        }
        self.0
            .matches
            .with_live(id, true, move |live| {
                for seat in seats {
                    let random = BotSpec::parse::<&str, &str>("random", [])
                        .and_then(|s| s.build(live.game().as_ref()))
                        .map_err(|e| Status::internal(e.to_string()))?;
                    live.hand_to_bot(seat, random, "random".to_string())?;
                }
                Ok(())
            })
            .await
    }
}
