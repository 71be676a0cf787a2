//! One match being played: the engine state, its seeded chance and bot streams, the seats
//! (human with a secret token, or a bot), pending choices at simultaneous nodes, and the
//! watchers that receive every change. Everything here is generic over `dyn Game`/`dyn State`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use checkraise_core::bots::Bot;
use checkraise_core::env::resolve_chance;
use checkraise_core::game::check_turn;
use checkraise_core::{Action, Game, GameError, GameRng, Player, State};
use tokio::sync::mpsc;
use tonic::Status;

use crate::errors::{server_fault, status_from_game_error};
use crate::pb;
use crate::tensor::f32_tensor;

/// Events a watcher may fall behind by before its stream is cut.
pub const WATCH_BUFFER: usize = 1024;

/// Offset between the chance stream's seed and the bots' stream's seed, so a match with seed
/// s deals exactly as an `Env` with seed s whatever its bots do.
const BOT_SEED_OFFSET: u64 = 0x9E37_79B9_7F4A_7C15;

/// Who sits in a seat.
pub enum SeatKind {
    /// A person (or client program) holding the seat's token once joined.
    Human {
        /// The secret token, once the seat is joined.
        token: Option<String>,
    },
    /// A server-side bot.
    Bot(Box<dyn Bot>),
}

/// A seat of a match.
pub struct Seat {
    /// `human`, or the bot's canonical spec string (`random`, `heuristic`,
    /// `ismcts(iterations=1000,max_ms=2000,c=0.7,rollout=heuristic)`): what `SeatStatus.kind`
    /// reports.
    pub kind_name: String,
    /// Who sits there.
    pub kind: SeatKind,
}

/// The action a seat sends: an id or its text.
#[derive(Clone, Debug)]
pub enum ActionChoice {
    /// An id in the game's action space.
    Id(Action),
    /// The action's text, parsed by the engine.
    Text(String),
}

/// One subscriber of a match's changes: a seat or a spectator.
struct Watcher {
    viewer: Option<usize>,
    events: mpsc::Sender<Result<pb::MatchEvent, Status>>,
    lagged: Arc<AtomicBool>,
}

/// A match in play.
pub struct LiveMatch {
    id: String,
    game: Arc<dyn Game>,
    state: Box<dyn State>,
    chance_rng: GameRng,
    bot_rng: GameRng,
    seats: Vec<Seat>,
    pending: Vec<Option<Action>>,
    version: u64,
    watchers: Vec<Watcher>,
    last_active: Instant,
}

impl LiveMatch {
    /// A new match; chance and bots act at once up to the first human decision (in an
    /// all-bot match, to the end). Bots think on the calling thread: the service calls this on
    /// the blocking pool.
    pub fn new(
        id: String,
        game: Arc<dyn Game>,
        seed: u64,
        seats: Vec<Seat>,
    ) -> Result<Self, Status> {
        Self::new_unless(id, game, seed, seats, &AtomicBool::new(false))
    }

    /// `new`, giving up with CANCELLED before the next bot move once `stop` is set (the
    /// request creating the match was abandoned, so nobody will ever see the match).
    pub fn new_unless(
        id: String,
        game: Arc<dyn Game>,
        seed: u64,
        seats: Vec<Seat>,
        stop: &AtomicBool,
    ) -> Result<Self, Status> {
        let state = game.new_initial_state();
        let players = game.num_players();
        let mut live = LiveMatch {
            id,
            game,
            state,
            chance_rng: GameRng::new(seed),
            bot_rng: GameRng::new(seed.wrapping_add(BOT_SEED_OFFSET)),
            seats,
            pending: vec![None; players],
            version: 0,
            watchers: Vec::new(),
            last_active: Instant::now(),
        };
        resolve_chance(live.state.as_mut(), &mut live.chance_rng);
        live.run_bots(Some(stop))?;
        Ok(live)
    }

    /// The match id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The game.
    pub fn game(&self) -> &Arc<dyn Game> {
        &self.game
    }

    /// Whether any seat is a bot.
    pub fn has_bots(&self) -> bool {
        self.seats
            .iter()
            .any(|seat| matches!(seat.kind, SeatKind::Bot(_)))
    }

    /// Whether the game is over.
    pub fn is_finished(&self) -> bool {
        self.state.is_terminal()
    }

    /// When a request last touched the match.
    pub fn last_active(&self) -> Instant {
        self.last_active
    }

    /// Records a request touching the match (idle expiry counts from here).
    pub fn touch(&mut self) {
        self.last_active = Instant::now();
    }

    /// The seats' kinds and whether they are taken.
    pub fn seat_statuses(&self) -> Vec<pb::SeatStatus> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, seat)| pb::SeatStatus {
                seat: i as u32,
                kind: seat.kind_name.clone(),
                taken: match &seat.kind {
                    SeatKind::Human { token } => token.is_some(),
                    SeatKind::Bot(_) => true,
                },
            })
            .collect()
    }

    /// Claims a human seat (the first free one when `seat` is `None`) with a new token.
    pub fn join(&mut self, seat: Option<u32>, token: String) -> Result<usize, Status> {
        let seat = match seat {
            Some(s) => self.seat_index(s)?,
            None => self
                .seats
                .iter()
                .position(|s| matches!(s.kind, SeatKind::Human { token: None }))
                .ok_or_else(|| {
                    Status::failed_precondition(format!(
                        "match '{}' has no free human seat",
                        self.id
                    ))
                })?,
        };
        match &mut self.seats[seat].kind {
            SeatKind::Bot(_) => Err(Status::failed_precondition(format!(
                "seat {seat} of match '{}' is played by the {} bot; only human seats can be \
                 joined",
                self.id, self.seats[seat].kind_name
            ))),
            SeatKind::Human { token: Some(_) } => Err(Status::failed_precondition(format!(
                "seat {seat} of match '{}' is already taken",
                self.id
            ))),
            SeatKind::Human { token: slot } => {
                *slot = Some(token);
                Ok(seat)
            }
        }
    }

    /// Checks a seat number and the token presented for it.
    pub fn authorize(&self, seat: u32, presented: Option<&str>) -> Result<usize, Status> {
        let seat = self.seat_index(seat)?;
        let presented = presented.ok_or_else(|| {
            Status::permission_denied(format!(
                "seat {seat} needs its token in the `{}` metadata",
                crate::SEAT_TOKEN_METADATA
            ))
        })?;
        match &self.seats[seat].kind {
            SeatKind::Human { token: Some(token) } if tokens_equal(token, presented) => Ok(seat),
            _ => Err(Status::permission_denied(format!(
                "wrong token for seat {seat} of match '{}'",
                self.id
            ))),
        }
    }

    fn seat_index(&self, seat: u32) -> Result<usize, Status> {
        let seat = seat as usize;
        if seat < self.seats.len() {
            Ok(seat)
        } else {
            Err(status_from_game_error(&GameError::InvalidSeat {
                seat: seat as i64,
                num_players: self.seats.len(),
            }))
        }
    }

    /// Plays `seat`'s action (already authorized), then chance and bots up to the next human
    /// decision. At a simultaneous node the choice waits, hidden, until every seat has chosen.
    /// Bots think on the calling thread: the service calls this on the blocking pool.
    pub fn act(&mut self, seat: usize, choice: ActionChoice) -> Result<(), Status> {
        let player = Player::Seat(seat);
        if self.state.is_simultaneous_node() {
            if self.pending[seat].is_some() {
                return Err(Status::failed_precondition(format!(
                    "seat {seat} has already chosen at this simultaneous node ({}); it waits \
                     for the other seats",
                    self.state.describe()
                )));
            }
            let action = self.parse(player, &choice)?;
            if !self.state.legal_actions_for(player).contains(&action) {
                return Err(status_from_game_error(&GameError::IllegalAction {
                    action,
                    desc: self.state.action_to_string(player, action),
                    player,
                    state: self.state.describe(),
                    reason: "not among the seat's legal actions".to_string(),
                }));
            }
            self.pending[seat] = Some(action);
            self.apply_joint_if_complete()?;
        } else {
            check_turn(self.state.as_ref(), player).map_err(|e| status_from_game_error(&e))?;
            let action = self.parse(player, &choice)?;
            let text = self.state.action_to_string(player, action);
            self.state
                .apply_action(action)
                .map_err(|e| status_from_game_error(&e))?;
            self.after_step(player, &[(seat, action, text)]);
        }
        self.run_bots(None)
    }

    fn parse(&self, player: Player, choice: &ActionChoice) -> Result<Action, Status> {
        match choice {
            ActionChoice::Id(action) => Ok(*action),
            ActionChoice::Text(text) => self
                .state
                .string_to_action(player, text)
                .map_err(|e| status_from_game_error(&e)),
        }
    }

    /// Lets chance and bot seats act until a human must decide or the game ends (or, before a
    /// bot move, until `stop` is set: CANCELLED).
    fn run_bots(&mut self, stop: Option<&AtomicBool>) -> Result<(), Status> {
        loop {
            if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                return Err(Status::cancelled(
                    "the request was abandoned before the match's bots had played",
                ));
            }
            match self.state.current_player() {
                Player::Seat(seat) => {
                    let SeatKind::Bot(bot) = &self.seats[seat].kind else {
                        return Ok(());
                    };
                    let action = bot
                        .try_act(self.state.as_ref(), seat, &mut self.bot_rng)
                        .map_err(|e| server_fault("a bot could not act", &e))?;
                    let player = Player::Seat(seat);
                    let text = self.state.action_to_string(player, action);
                    self.state
                        .apply_action(action)
                        .map_err(|e| server_fault("a bot chose an illegal action", &e))?;
                    self.after_step(player, &[(seat, action, text)]);
                }
                Player::Simultaneous => {
                    for seat in 0..self.seats.len() {
                        if let (SeatKind::Bot(bot), None) =
                            (&self.seats[seat].kind, self.pending[seat])
                        {
                            let action = bot
                                .try_act(self.state.as_ref(), seat, &mut self.bot_rng)
                                .map_err(|e| server_fault("a bot could not act", &e))?;
                            self.pending[seat] = Some(action);
                        }
                    }
                    if !self.apply_joint_if_complete()? {
                        return Ok(());
                    }
                }
                Player::Chance => resolve_chance(self.state.as_mut(), &mut self.chance_rng),
                Player::Terminal => return Ok(()),
            }
        }
    }

    /// Applies the joint action once every seat has chosen; reports whether it did.
    fn apply_joint_if_complete(&mut self) -> Result<bool, Status> {
        let Some(joint) = self
            .pending
            .iter()
            .copied()
            .collect::<Option<Vec<Action>>>()
        else {
            return Ok(false);
        };
        let chosen: Vec<(usize, Action, String)> = joint
            .iter()
            .enumerate()
            .map(|(seat, &a)| (seat, a, self.state.action_to_string(Player::Seat(seat), a)))
            .collect();
        self.pending.iter_mut().for_each(|p| *p = None);
        self.state
            .apply_actions(&joint)
            .map_err(|e| status_from_game_error(&e))?;
        self.after_step(Player::Simultaneous, &chosen);
        Ok(true)
    }

    /// After a seat's or joint action: chance resolves, the version moves on, and every
    /// watcher receives its own view of the change.
    fn after_step(&mut self, actor: Player, chosen: &[(usize, Action, String)]) {
        resolve_chance(self.state.as_mut(), &mut self.chance_rng);
        self.version += 1;
        self.notify(actor.id(), chosen);
    }

    fn notify(&mut self, actor: i64, chosen: &[(usize, Action, String)]) {
        if self.watchers.is_empty() {
            return;
        }
        let terminal = self.state.is_terminal();
        let mut watchers = std::mem::take(&mut self.watchers);
        watchers.retain(|watcher| {
            let own_action = watcher.viewer.and_then(|seat| {
                chosen
                    .iter()
                    .find(|(s, _, _)| *s == seat)
                    .map(|(_, id, text)| pb::LegalAction {
                        id: *id,
                        text: text.clone(),
                    })
            });
            let event = pb::MatchEvent {
                actor,
                own_action,
                view: Some(self.view(watcher.viewer)),
            };
            match watcher.events.try_send(Ok(event)) {
                Ok(()) => !terminal,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    watcher.lagged.store(true, Ordering::Relaxed);
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
        self.watchers = watchers;
    }

    /// Subscribes a viewer (an authorized seat, or `None` for a spectator): the current view
    /// at once, then every change. The receiver ends after the terminal event.
    pub fn watch(
        &mut self,
        viewer: Option<usize>,
    ) -> (
        mpsc::Receiver<Result<pb::MatchEvent, Status>>,
        Arc<AtomicBool>,
    ) {
        let (events, receiver) = mpsc::channel(WATCH_BUFFER);
        let lagged = Arc::new(AtomicBool::new(false));
        let first = pb::MatchEvent {
            actor: Player::Chance.id(),
            own_action: None,
            view: Some(self.view(viewer)),
        };
        let _ = events.try_send(Ok(first));
        if !self.state.is_terminal() {
            self.watchers.push(Watcher {
                viewer,
                events,
                lagged: lagged.clone(),
            });
        }
        (receiver, lagged)
    }

    /// Tells every watcher the match is gone, and drops them.
    pub fn close_watchers(&mut self, why: &Status) {
        for watcher in self.watchers.drain(..) {
            let _ = watcher
                .events
                .try_send(Err(Status::new(why.code(), why.message().to_string())));
        }
    }

    /// What `viewer` (a seat, or `None` for a spectator) may know now. A seat's view comes
    /// only from the engine's functions of that seat.
    pub fn view(&self, viewer: Option<usize>) -> pb::SeatView {
        let state = self.state.as_ref();
        let current = state.current_player();
        let terminal = state.is_terminal();
        let mut out = pb::SeatView {
            match_id: self.id.clone(),
            seat: viewer.map(|s| s as u32),
            version: self.version,
            view_json: state.view(viewer).to_string(),
            current_player: current.id(),
            is_terminal: terminal,
            returns: if terminal {
                state.returns()
            } else {
                Vec::new()
            },
            seats: self.seat_statuses(),
            ..Default::default()
        };
        let Some(seat) = viewer else {
            return out;
        };
        let player = Player::Seat(seat);
        out.action_submitted = current == Player::Simultaneous && self.pending[seat].is_some();
        out.may_act =
            current == player || (current == Player::Simultaneous && !out.action_submitted);
        if out.may_act {
            out.legal_actions = state
                .legal_actions_for(player)
                .into_iter()
                .map(|id| pb::LegalAction {
                    id,
                    text: state.action_to_string(player, id),
                })
                .collect();
        }
        out.seat_return = state.returns().get(seat).copied().unwrap_or(0.0);
        let mut observation = vec![0.0f32; self.game.observation_size()];
        state.observation_tensor(seat, &mut observation);
        let shape = self
            .game
            .observation_shape()
            .iter()
            .map(|&d| d as u32)
            .collect();
        out.observation = Some(f32_tensor(shape, &observation));
        out.observation_text = state.observation_string(seat);
        out
    }
}

/// Compares tokens in time independent of where they differ.
fn tokens_equal(expected: &str, presented: &str) -> bool {
    let (a, b) = (expected.as_bytes(), presented.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A fresh secret: `bytes` random bytes from the operating system, as hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the operating system provides randomness");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::tokens_equal;

    #[test]
    fn tokens_compare_exactly() {
        assert!(tokens_equal("abc", "abc"));
        assert!(!tokens_equal("abc", "abd"));
        assert!(!tokens_equal("abc", "ab"));
    }
}
