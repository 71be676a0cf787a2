//! What a seat or a spectator may see of a match, as the live match's own values: seat views
//! built from the engine's functions of that seat only, with the parts a request asks for.
//! The service turns them into the messages it sends, fitted to its largest reply, at its edge
//! (`crate::matches::wire`).

use std::sync::Arc;

use checkraise_core::{Action, Game, GameRng, Player, State};

use super::watchers::Watcher;
use super::{LiveMatch, Seat, SeatKind, Table};
use crate::auth::random_hex;

/// Which parts of a seat's view to build: a seat request's `ViewOptions` (all of them when it
/// has none; spectators always get all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewParts {
    /// `view_json`.
    pub view_json: bool,
    /// `observation`.
    pub observation: bool,
    /// `observation_text`.
    pub observation_text: bool,
    /// The texts of `legal_actions` (their ids are always sent).
    pub action_texts: bool,
    /// `sample_state`, while the seat may act (asked for; never part of the whole view).
    pub sample_state: bool,
}

impl ViewParts {
    /// The whole view: what a request without `ViewOptions` gets.
    pub const ALL: ViewParts = ViewParts {
        view_json: true,
        observation: true,
        observation_text: true,
        action_texts: true,
        sample_state: false,
    };
}

/// What one viewer (a seat, or a spectator) may know of a match at one version. A part the
/// request left out (`ViewParts`), or that the viewer never gets (a spectator's observation),
/// is `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatView {
    /// The match.
    pub match_id: String,
    /// The seat the view is for; `None`: a spectator's.
    pub seat: Option<usize>,
    /// The steps taken so far.
    pub version: u64,
    /// The engine's view of the game from this side (`State::view`), as JSON text.
    pub view_json: Option<String>,
    /// Who is to act.
    pub current_player: Player,
    /// Whether the game is over.
    pub is_terminal: bool,
    /// Whether the seat may act now.
    pub may_act: bool,
    /// At a simultaneous node, whether the seat's choice is held (hidden until every seat has
    /// chosen).
    pub action_submitted: bool,
    /// The seat's legal actions while it may act.
    pub legal_actions: Vec<LegalAction>,
    /// Every seat's return, once the game is over.
    pub returns: Vec<f64>,
    /// The seat's own return so far (0 for a spectator).
    pub seat_return: f64,
    /// The seat's observation tensor.
    pub observation: Option<Observation>,
    /// The seat's observation as text.
    pub observation_text: Option<String>,
    /// Who sits in each seat.
    pub seats: Vec<SeatStatus>,
    /// The creator chose the seed (a practice deal).
    pub chosen_seed: bool,
    /// A state consistent with everything the seat knows, as the engine serializes it, while
    /// the seat may act (asked for only).
    pub sample_state: Option<String>,
}

/// A legal action of the seat: its id, and (when asked for) its text and the game's struct
/// of it as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegalAction {
    /// The action id.
    pub id: Action,
    /// The action in the game's notation.
    pub text: Option<String>,
    /// The action as the game's struct, JSON text (games that describe their actions so).
    pub action_json: Option<String>,
}

/// A seat's observation tensor: its shape and values.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// The game's observation shape.
    pub shape: Vec<usize>,
    /// The values, row-major.
    pub values: Vec<f32>,
}

/// Who sits in a seat, as every viewer sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatStatus {
    /// The seat.
    pub seat: usize,
    /// `human`, or the bot's canonical spec.
    pub kind: String,
    /// A bot's seat, or a human seat someone joined.
    pub taken: bool,
    /// A human seat with an open watch stream.
    pub connected: bool,
}

impl SeatView {
    /// The bytes the view holds (its texts, actions and tensor): what a watcher's backlog
    /// counts.
    pub fn held_bytes(&self) -> usize {
        let text = |t: &Option<String>| t.as_ref().map_or(0, String::len);
        let actions: usize = self
            .legal_actions
            .iter()
            .map(|a| std::mem::size_of::<Action>() + text(&a.text) + text(&a.action_json))
            .sum();
        let seats: usize = self
            .seats
            .iter()
            .map(|s| std::mem::size_of::<SeatStatus>() + s.kind.len())
            .sum();
        std::mem::size_of::<SeatView>()
            + self.match_id.len()
            + text(&self.view_json)
            + text(&self.observation_text)
            + text(&self.sample_state)
            + actions
            + seats
            + self.returns.len() * std::mem::size_of::<f64>()
            + self
                .observation
                .as_ref()
                .map_or(0, |o| o.values.len() * std::mem::size_of::<f32>())
    }
}

impl LiveMatch {
    /// The seats' kinds and whether they are taken.
    pub fn seat_statuses(&self) -> Vec<SeatStatus> {
        seat_statuses(&self.table.seats)
    }

    /// What `viewer` (a seat, or `None` for a spectator) may know now. A seat's view comes
    /// only from the engine's functions of that seat.
    pub fn view(&self, viewer: Option<usize>) -> SeatView {
        self.view_parts(viewer, ViewParts::ALL)
    }

    /// `view`, with only `parts` of a seat's view filled.
    pub fn view_parts(&self, viewer: Option<usize>, parts: ViewParts) -> SeatView {
        let state = self.play.state();
        let submitted =
            viewer.is_some_and(|seat| state.is_simultaneous_node() && self.play.has_chosen(seat));
        self.table
            .viewing()
            .view(self.play.version(), state, submitted, viewer, parts)
    }

    /// Every whole view anyone may get now: each seat's, then the spectator's (a service
    /// checks that the largest fits its replies).
    pub fn every_view(&self) -> Vec<SeatView> {
        (0..self.table.seats.len())
            .map(Some)
            .chain([None])
            .map(|viewer| self.view(viewer))
            .collect()
    }
}

impl Table {
    /// What a view needs of the table.
    fn viewing(&self) -> Viewing<'_> {
        Viewing {
            id: &self.id,
            game: &self.game,
            seats: &self.seats,
            chosen_seed: self.chosen_seed,
        }
    }

    /// The table taken apart: what a view needs, borrowed beside the watchers and the step
    /// marks, so that a notification builds views while it sends them.
    #[allow(clippy::type_complexity)]
    pub(super) fn split(&mut self) -> (Viewing<'_>, &mut Vec<Watcher>, &mut Vec<(usize, u64)>) {
        let Table {
            id,
            game,
            seats,
            watchers,
            marks,
            chosen_seed,
            ..
        } = self;
        let viewing = Viewing {
            id,
            game,
            seats,
            chosen_seed: *chosen_seed,
        };
        (viewing, watchers, marks)
    }
}

fn seat_statuses(seats: &[Seat]) -> Vec<SeatStatus> {
    seats
        .iter()
        .enumerate()
        .map(|(seat, place)| SeatStatus {
            seat,
            kind: place.kind_name.clone(),
            taken: match &place.kind {
                SeatKind::Human { token_hash } => token_hash.is_some(),
                SeatKind::Bot(_) => true,
            },
            connected: place.connected,
        })
        .collect()
}

/// What every view of a match is built with besides the state: the match's id, game and seats,
/// and whether the creator chose the seed.
#[derive(Clone, Copy)]
pub(super) struct Viewing<'a> {
    id: &'a str,
    game: &'a Arc<dyn Game>,
    pub(super) seats: &'a [Seat],
    chosen_seed: bool,
}

impl Viewing<'_> {
    /// What `viewer` (a seat, or `None` for a spectator) may know at `state`, with `parts` of
    /// a seat's view; `submitted`: the seat's choice at this simultaneous node is held.
    pub(super) fn view(
        &self,
        version: u64,
        state: &dyn State,
        submitted: bool,
        viewer: Option<usize>,
        parts: ViewParts,
    ) -> SeatView {
        let current = state.current_player();
        let terminal = state.is_terminal();
        // A seat's own return is read from the same call as every seat's at the end.
        let returns = if terminal || viewer.is_some() {
            state.returns()
        } else {
            Vec::new()
        };
        let mut out = SeatView {
            match_id: self.id.to_string(),
            seat: viewer,
            version,
            view_json: parts.view_json.then(|| {
                // Straight into a byte buffer: `Value`'s `Display` goes through `fmt::Write`
                // a piece at a time, for the same text.
                serde_json::to_string(&state.view(viewer)).expect("a JSON value serializes")
            }),
            current_player: current,
            is_terminal: terminal,
            may_act: false,
            action_submitted: false,
            legal_actions: Vec::new(),
            seat_return: viewer.and_then(|s| returns.get(s).copied()).unwrap_or(0.0),
            returns: if terminal { returns } else { Vec::new() },
            observation: None,
            observation_text: None,
            seats: seat_statuses(self.seats),
            chosen_seed: self.chosen_seed,
            sample_state: None,
        };
        let Some(seat) = viewer else {
            return out;
        };
        let player = Player::Seat(seat);
        out.action_submitted = current == Player::Simultaneous && submitted;
        out.may_act =
            current == player || (current == Player::Simultaneous && !out.action_submitted);
        if out.may_act {
            out.legal_actions = state
                .legal_actions_for(player)
                .into_iter()
                .map(|id| LegalAction {
                    id,
                    text: parts
                        .action_texts
                        .then(|| state.action_to_string(player, id)),
                    action_json: parts
                        .action_texts
                        .then(|| state.action_struct(seat, id).map(|s| s.to_string()))
                        .flatten(),
                })
                .collect();
        }
        if parts.sample_state && out.may_act {
            out.sample_state = Some(sample_state(state, seat));
        }
        if parts.observation {
            let mut values = vec![0.0f32; self.game.observation_size()];
            state.observation_tensor(seat, &mut values);
            out.observation = Some(Observation {
                shape: self.game.observation_shape(),
                values,
            });
        }
        if parts.observation_text {
            out.observation_text = Some(state.observation_string(seat));
        }
        out
    }
}

/// A state consistent with everything `seat` knows, the rest drawn from a fresh seed of the
/// operating system's generator, as text (`SeatView::sample_state`): the engine's
/// `resample_from_infostate`, the determinization the server's own bots choose on.
fn sample_state(state: &dyn State, seat: usize) -> String {
    let seed = u64::from_str_radix(&random_hex(8), 16).expect("16 hex digits");
    sample_state_with(state, seat, seed)
}

/// `sample_state` with the draw's seed given.
fn sample_state_with(state: &dyn State, seat: usize, seed: u64) -> String {
    state
        .resample_from_infostate(seat, &mut GameRng::new(seed))
        .serialize()
}

#[cfg(test)]
mod tests {
    /// A seat's sample state carries nothing beyond its information: for states the seat
    /// cannot tell apart (the true one and one redrawn from its information), the same draw
    /// gives the same text; and it keeps what the seat knows.
    #[test]
    fn a_sample_state_depends_only_on_what_the_seat_knows() {
        use checkraise_core::{GameRng, Player, make_game_from_string, registry::game_names};
        for name in game_names() {
            let game = make_game_from_string(name).expect("a registered game");
            let mut rng = GameRng::new(11);
            let mut checked = 0;
            for game_seed in 0..6u64 {
                let mut state = game.new_initial_state();
                let mut rng_play = GameRng::new(game_seed);
                let mut step = 0;
                while !state.is_terminal() && step < 400 {
                    if state.is_chance_node() {
                        let outcome = state.sample_chance_outcome(&mut rng_play);
                        state.apply_action(outcome).expect("a chance outcome");
                        continue;
                    }
                    let seats: Vec<usize> = match state.current_player() {
                        Player::Seat(seat) => vec![seat],
                        _ => (0..game.num_players()).collect(),
                    };
                    if step % 5 == 0 {
                        for &seat in &seats {
                            let twin = state.resample_from_infostate(seat, &mut rng);
                            assert_eq!(
                                twin.information_state_string(seat),
                                state.information_state_string(seat),
                                "{name}: a redraw changed what seat {seat} knows"
                            );
                            let seed = 1000 + step as u64;
                            let sample = super::sample_state_with(state.as_ref(), seat, seed);
                            assert_eq!(
                                sample,
                                super::sample_state_with(twin.as_ref(), seat, seed),
                                "{name}: seat {seat}'s sample depends on what it cannot see"
                            );
                            let read = game.deserialize_state(&sample).expect("a state");
                            assert_eq!(
                                read.information_state_string(seat),
                                state.information_state_string(seat),
                            );
                            checked += 1;
                        }
                    }
                    step += 1;
                    let joint: Vec<_> = seats
                        .iter()
                        .map(|&seat| rng_play.choose(&state.legal_actions_for(Player::Seat(seat))))
                        .collect();
                    if let [action] = joint[..] {
                        state.apply_action(action).expect("a legal action");
                    } else {
                        state.apply_actions(&joint).expect("a legal joint action");
                    }
                }
            }
            assert!(checked > 5, "{name}: only {checked} positions checked");
        }
    }
}
