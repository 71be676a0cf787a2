//! What a seat or a spectator may see of a match: seat views built from the engine's
//! functions of that seat, the parts a request asks for, and views fitted to the largest
//! reply (`fit_view`: the largest parts left out first, and named).

use std::sync::Arc;

use checkraise_core::{Game, GameRng, Player, State};
use prost::Message;

use super::watchers::Watcher;
use super::{LiveMatch, Seat, SeatKind, Table};
use crate::auth::random_hex;
use crate::pb;
use crate::tensor::f32_tensor;

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

impl LiveMatch {
    /// The seats' kinds and whether they are taken.
    pub fn seat_statuses(&self) -> Vec<pb::SeatStatus> {
        self.table.seat_statuses()
    }

    /// What `viewer` (a seat, or `None` for a spectator) may know now. A seat's view comes
    /// only from the engine's functions of that seat.
    pub fn view(&self, viewer: Option<usize>) -> pb::SeatView {
        self.view_parts(viewer, ViewParts::ALL)
    }

    /// `view`, with only `parts` of a seat's view filled.
    pub fn view_parts(&self, viewer: Option<usize>, parts: ViewParts) -> pb::SeatView {
        self.view_within(viewer, parts, self.table.view_limit)
    }

    fn view_within(&self, viewer: Option<usize>, parts: ViewParts, limit: usize) -> pb::SeatView {
        let state = self.play.state();
        let submitted =
            viewer.is_some_and(|seat| state.is_simultaneous_node() && self.play.has_chosen(seat));
        let viewing = Viewing {
            limit,
            ..self.table.viewing()
        };
        viewing.view(self.play.version(), state, submitted, viewer, parts)
    }

    /// Caps the views this match sends at `message_bytes` (`--max-message-size`) less
    /// `REPLY_SLACK`: a view that would be larger leaves parts out and names them in
    /// `omitted_parts`, so that a reply can always be sent.
    pub fn limit_views(&mut self, message_bytes: usize) {
        self.table.view_limit = message_bytes.saturating_sub(REPLY_SLACK);
    }

    /// The encoded size of the largest whole view anyone may get now (every seat's and the
    /// spectator's), whatever the limit.
    pub fn largest_view_bytes(&self) -> usize {
        (0..self.table.seats.len())
            .map(Some)
            .chain([None])
            .map(|viewer| {
                self.view_within(viewer, ViewParts::ALL, usize::MAX)
                    .encoded_len()
            })
            .max()
            .unwrap_or(0)
    }
}

/// Bytes a reply or event may carry beside its view: a watch event's actor and own action,
/// and room to spare.
pub const REPLY_SLACK: usize = 1024;

/// Leaves parts out of `view` until it is at most `limit` bytes encoded (the largest first:
/// the observation tensor, its text, the oldest entries of the JSON view's longest list, the
/// JSON view, the legal actions' texts), naming each in `omitted_parts`.
fn fit_view(view: &mut pb::SeatView, limit: usize) {
    if limit == usize::MAX || view.encoded_len() <= limit {
        return;
    }
    type LeaveOut = fn(&mut pb::SeatView, usize);
    let steps: [(&str, LeaveOut); 6] = [
        ("sample_state", |v, _| v.sample_state.clear()),
        ("observation", |v, _| v.observation = None),
        ("observation_text", |v, _| v.observation_text.clear()),
        ("view_json_entries", trim_view_json),
        ("view_json", |v, _| v.view_json.clear()),
        ("action_texts", |v, _| {
            for action in &mut v.legal_actions {
                action.text.clear();
                action.action_json.clear();
            }
        }),
    ];
    for (name, leave_out) in steps {
        // Named first, so that what is left out makes room for its name too.
        view.omitted_parts.push(name.to_string());
        let before = view.encoded_len();
        leave_out(view, limit);
        if view.encoded_len() == before {
            view.omitted_parts.pop();
        }
        if view.encoded_len() <= limit {
            return;
        }
    }
}

/// Leaves out the fewest oldest entries of the longest list (by its JSON text) in the view's
/// JSON that make the view fit `limit`, keeping the JSON's shape; or, if no number of them
/// does, the whole list's entries (the view then loses its JSON next).
fn trim_view_json(view: &mut pb::SeatView, limit: usize) {
    use serde_json::Value;
    let Ok(value) = serde_json::from_str::<Value>(&view.view_json) else {
        return;
    };
    let Some(path) = longest_list(&value, String::new()).map(|(path, _)| path) else {
        return;
    };
    let entries = value
        .pointer(&path)
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let without = |oldest: usize| {
        let mut trimmed = value.clone();
        if let Some(list) = trimmed.pointer_mut(&path).and_then(Value::as_array_mut) {
            list.drain(..oldest.min(list.len()));
        }
        serde_json::to_string(&trimmed).expect("a JSON value serializes")
    };
    let fits = |view: &mut pb::SeatView, oldest: usize| {
        view.view_json = without(oldest);
        view.encoded_len() <= limit
    };
    // The fewest entries to leave out, by bisection: leaving out more never makes it larger.
    let (mut low, mut high) = (1, entries);
    let whole = view.view_json.clone();
    if entries == 0 || !fits(view, high) {
        view.view_json = whole;
        return;
    }
    while low < high {
        let middle = low + (high - low) / 2;
        if fits(view, middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    view.view_json = without(low);
}

/// The JSON Pointer and text length of the longest non-empty list in `value` (by its JSON
/// text), if it holds one.
fn longest_list(value: &serde_json::Value, at: String) -> Option<(String, usize)> {
    use serde_json::Value;
    let children: Box<dyn Iterator<Item = (String, &Value)>> = match value {
        Value::Array(items) => Box::new(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| (format!("{at}/{i}"), item)),
        ),
        Value::Object(fields) => Box::new(fields.iter().map(|(key, item)| {
            let key = key.replace('~', "~0").replace('/', "~1");
            (format!("{at}/{key}"), item)
        })),
        _ => return None,
    };
    let own = match value {
        Value::Array(items) if !items.is_empty() => Some((
            at.clone(),
            serde_json::to_string(value).map_or(0, |t| t.len()),
        )),
        _ => None,
    };
    children
        .filter_map(|(path, child)| longest_list(child, path))
        .chain(own)
        .max_by_key(|(_, length)| *length)
}

impl Table {
    fn seat_statuses(&self) -> Vec<pb::SeatStatus> {
        seat_statuses(&self.seats)
    }

    /// What a view needs of the table.
    fn viewing(&self) -> Viewing<'_> {
        Viewing {
            id: &self.id,
            game: &self.game,
            seats: &self.seats,
            limit: self.view_limit,
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
            view_limit,
            chosen_seed,
            ..
        } = self;
        let viewing = Viewing {
            id,
            game,
            seats,
            limit: *view_limit,
            chosen_seed: *chosen_seed,
        };
        (viewing, watchers, marks)
    }
}

fn seat_statuses(seats: &[Seat]) -> Vec<pb::SeatStatus> {
    seats
        .iter()
        .enumerate()
        .map(|(i, seat)| pb::SeatStatus {
            seat: i as u32,
            kind: seat.kind_name.clone(),
            taken: match &seat.kind {
                SeatKind::Human { token_hash } => token_hash.is_some(),
                SeatKind::Bot(_) => true,
            },
            connected: seat.connected,
        })
        .collect()
}

/// What every view of a match is built with besides the state: the match's id, game and seats,
/// the largest view a message may carry, and whether the creator chose the seed.
#[derive(Clone, Copy)]
pub(super) struct Viewing<'a> {
    id: &'a str,
    game: &'a Arc<dyn Game>,
    pub(super) seats: &'a [Seat],
    limit: usize,
    chosen_seed: bool,
}

impl Viewing<'_> {
    /// What `viewer` may know at `state` (`seat_view`).
    pub(super) fn view(
        &self,
        version: u64,
        state: &dyn State,
        submitted: bool,
        viewer: Option<usize>,
        parts: ViewParts,
    ) -> pb::SeatView {
        seat_view(
            self.id,
            self.game,
            self.seats,
            version,
            state,
            submitted,
            viewer,
            parts,
            self.limit,
            self.chosen_seed,
        )
    }
}

/// What `viewer` (a seat, or `None` for a spectator) may know at `state`, with `parts` of a
/// seat's view; `submitted`: the seat's choice at this simultaneous node is held.
#[allow(clippy::too_many_arguments)]
fn seat_view(
    id: &str,
    game: &Arc<dyn Game>,
    seats: &[Seat],
    version: u64,
    state: &dyn State,
    submitted: bool,
    viewer: Option<usize>,
    parts: ViewParts,
    limit: usize,
    chosen_seed: bool,
) -> pb::SeatView {
    let current = state.current_player();
    let terminal = state.is_terminal();
    // A seat's own return is read from the same call as every seat's at the end.
    let returns = if terminal || viewer.is_some() {
        state.returns()
    } else {
        Vec::new()
    };
    let mut out = pb::SeatView {
        match_id: id.to_string(),
        seat: viewer.map(|s| s as u32),
        version,
        view_json: if parts.view_json {
            // Straight into a byte buffer: `Value`'s `Display` goes through `fmt::Write` a
            // piece at a time, for the same text.
            serde_json::to_string(&state.view(viewer)).expect("a JSON value serializes")
        } else {
            String::new()
        },
        current_player: current.id(),
        is_terminal: terminal,
        seat_return: viewer.and_then(|s| returns.get(s).copied()).unwrap_or(0.0),
        returns: if terminal { returns } else { Vec::new() },
        seats: seat_statuses(seats),
        chosen_seed,
        ..Default::default()
    };
    let Some(seat) = viewer else {
        fit_view(&mut out, limit);
        return out;
    };
    let player = Player::Seat(seat);
    out.action_submitted = current == Player::Simultaneous && submitted;
    out.may_act = current == player || (current == Player::Simultaneous && !out.action_submitted);
    if out.may_act {
        out.legal_actions = state
            .legal_actions_for(player)
            .into_iter()
            .map(|id| {
                if !parts.action_texts {
                    return pb::LegalAction {
                        id,
                        ..Default::default()
                    };
                }
                pb::LegalAction {
                    id,
                    text: state.action_to_string(player, id),
                    action_json: state
                        .action_struct(seat, id)
                        .map(|s| s.to_string())
                        .unwrap_or_default(),
                }
            })
            .collect();
    }
    if parts.sample_state && out.may_act {
        out.sample_state = sample_state(state, seat);
    }
    if parts.observation {
        let mut observation = vec![0.0f32; game.observation_size()];
        state.observation_tensor(seat, &mut observation);
        let shape = game.observation_shape().iter().map(|&d| d as u32).collect();
        out.observation = Some(f32_tensor(shape, &observation));
    }
    if parts.observation_text {
        out.observation_text = state.observation_string(seat);
    }
    fit_view(&mut out, limit);
    out
}

/// A state consistent with everything `seat` knows, the rest drawn from a fresh seed of the
/// operating system's generator, as text (`SeatView.sample_state`): the engine's
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
    use prost::Message;

    use super::super::{LiveMatch, Seat, SeatKind};
    use super::{REPLY_SLACK, ViewParts};

    fn pokeros(players: usize) -> LiveMatch {
        let game = checkraise_core::make_game(
            "pokeros",
            [
                ("players", players.to_string()),
                ("board_size", "31".to_string()),
            ],
        )
        .expect("valid parameters");
        let seats = (0..players)
            .map(|_| Seat {
                connected: false,
                kind_name: "human".into(),
                kind: SeatKind::Human { token_hash: None },
            })
            .collect();
        LiveMatch::new("m".into(), game, 7, seats).expect("a match")
    }

    #[test]
    fn views_over_the_limit_leave_their_largest_parts_out_and_say_so() {
        let mut live = pokeros(4);
        let whole = live.view(Some(0));
        assert!(whole.omitted_parts.is_empty());
        let whole_bytes = whole.encoded_len();
        assert!(live.largest_view_bytes() >= whole_bytes);

        // Room for everything but the observation tensor.
        let tensor = whole
            .observation
            .as_ref()
            .expect("a seat's view has one")
            .encoded_len();
        // (Naming the part left out costs a few bytes.)
        live.limit_views(whole_bytes - tensor + 16 + REPLY_SLACK);
        let fitted = live.view(Some(0));
        assert_eq!(fitted.omitted_parts, ["observation"]);
        assert!(fitted.observation.is_none());
        assert_eq!(fitted.view_json, whole.view_json);
        assert_eq!(fitted.legal_actions, whole.legal_actions);

        // Room for almost nothing: every part goes, in order, and the rest still fits.
        live.limit_views(REPLY_SLACK + 50);
        let lean = live.view(Some(0));
        assert_eq!(
            lean.omitted_parts,
            [
                "observation",
                "observation_text",
                "view_json",
                "action_texts"
            ]
        );
        assert_eq!(lean.legal_actions.len(), whole.legal_actions.len());
        assert!(lean.legal_actions.iter().all(|a| a.text.is_empty()));

        // Parts a client left out itself are not reported as omitted.
        live.limit_views(usize::MAX);
        let asked = live.view_parts(
            Some(0),
            ViewParts {
                observation: false,
                ..ViewParts::ALL
            },
        );
        assert!(asked.omitted_parts.is_empty());
    }

    #[test]
    fn a_view_over_the_limit_loses_its_oldest_entries_before_its_json() {
        let history: Vec<String> = (0..1000).map(|i| format!("move {i}")).collect();
        let json = serde_json::json!({"board": "k7/8/8/8/8/8/8/K7", "history": history});
        let mut view = checkraise_grpc_view(json.to_string());
        let whole = view.encoded_len();
        super::fit_view(&mut view, whole / 2);
        assert_eq!(view.omitted_parts, ["view_json_entries"]);
        assert!(view.encoded_len() <= whole / 2);
        let kept: serde_json::Value = serde_json::from_str(&view.view_json).unwrap();
        assert_eq!(kept["board"], "k7/8/8/8/8/8/8/K7", "the shape is kept");
        let kept = kept["history"].as_array().unwrap();
        assert!(kept.len() > 100 && kept.len() < 1000, "{}", kept.len());
        assert_eq!(
            kept.last().unwrap(),
            "move 999",
            "the newest entries are kept"
        );
        // The fewest entries go: one more would fit too.
        let mut one_more = checkraise_grpc_view(json.to_string());
        let longer: Vec<&str> = history[1000 - kept.len() - 1..]
            .iter()
            .map(String::as_str)
            .collect();
        one_more.view_json =
            serde_json::json!({"board": "k7/8/8/8/8/8/8/K7", "history": longer}).to_string();
        one_more.omitted_parts = view.omitted_parts.clone();
        assert!(one_more.encoded_len() > whole / 2);

        // Too small for any entry to help: the JSON goes whole, as before.
        let mut view = checkraise_grpc_view(json.to_string());
        super::fit_view(&mut view, 40);
        assert_eq!(view.omitted_parts, ["view_json"]);
        assert!(view.view_json.is_empty());
    }

    fn checkraise_grpc_view(view_json: String) -> crate::pb::SeatView {
        crate::pb::SeatView {
            match_id: "m".into(),
            view_json,
            ..Default::default()
        }
    }

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
