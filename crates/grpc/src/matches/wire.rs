//! The live match's values as the messages the service sends: its `SeatView`, `MatchEvent`
//! and `SeatStatus` turned into their protobuf messages, each view fitted to the largest reply
//! (`fit_view`: the largest parts left out first, and named in `omitted_parts`). The one place
//! that builds those messages, as `crate::errors` is the one place that builds statuses.

use prost::Message;

use crate::live_match::{LegalAction, LiveMatch, MatchEvent, Observation, SeatStatus, SeatView};
use crate::pb;
use crate::tensor::f32_tensor;

/// Bytes a reply or event may carry beside its view: a watch event's actor and own action,
/// and room to spare.
pub const REPLY_SLACK: usize = 1024;

/// The largest view a reply or event of at most `message_bytes` (`--max-message-size`) may
/// carry.
pub fn view_limit(message_bytes: usize) -> usize {
    message_bytes.saturating_sub(REPLY_SLACK)
}

/// `view` as the message it is sent as, at most `limit` bytes encoded: a larger one leaves
/// parts out and names them (`fit_view`), so that a reply can always be sent.
pub fn seat_view(view: SeatView, limit: usize) -> pb::SeatView {
    let SeatView {
        match_id,
        seat,
        version,
        view_json,
        current_player,
        is_terminal,
        may_act,
        action_submitted,
        legal_actions,
        returns,
        seat_return,
        observation,
        observation_text,
        seats,
        chosen_seed,
        sample_state,
    } = view;
    let mut out = pb::SeatView {
        match_id,
        seat: seat.map(|s| s as u32),
        version,
        view_json: view_json.unwrap_or_default(),
        current_player: current_player.id(),
        is_terminal,
        may_act,
        action_submitted,
        legal_actions: legal_actions.into_iter().map(legal_action).collect(),
        returns,
        seat_return,
        observation: observation.map(tensor),
        observation_text: observation_text.unwrap_or_default(),
        seats: seat_statuses(seats),
        act_status: pb::ActStatus::Unspecified as i32,
        omitted_parts: Vec::new(),
        chosen_seed,
        sample_state: sample_state.unwrap_or_default(),
    };
    fit_view(&mut out, limit);
    out
}

/// `event` as the message a watcher is sent, its view at most `limit` bytes encoded.
pub fn match_event(event: MatchEvent, limit: usize) -> pb::MatchEvent {
    pb::MatchEvent {
        // Not a step: -1, as chance (the contract's word for both).
        actor: event.actor.unwrap_or(checkraise_core::Player::Chance).id(),
        own_action: event.own_action.map(legal_action),
        view: Some(seat_view(event.view, limit)),
    }
}

/// The seats as `SeatStatus` messages.
pub fn seat_statuses(seats: Vec<SeatStatus>) -> Vec<pb::SeatStatus> {
    seats
        .into_iter()
        .map(|s| pb::SeatStatus {
            seat: s.seat as u32,
            kind: s.kind,
            taken: s.taken,
            connected: s.connected,
        })
        .collect()
}

/// The encoded size of the largest whole view anyone may get of `live` now (every seat's and
/// the spectator's), whatever the limit.
pub fn largest_view_bytes(live: &LiveMatch) -> usize {
    live.every_view()
        .into_iter()
        .map(|view| seat_view(view, usize::MAX).encoded_len())
        .max()
        .unwrap_or(0)
}

fn legal_action(action: LegalAction) -> pb::LegalAction {
    pb::LegalAction {
        id: action.id,
        text: action.text.unwrap_or_default(),
        action_json: action.action_json.unwrap_or_default(),
    }
}

fn tensor(observation: Observation) -> pb::Tensor {
    let shape = observation.shape.iter().map(|&d| d as u32).collect();
    f32_tensor(shape, &observation.values)
}

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

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::{largest_view_bytes, seat_view};
    use crate::live_match::{LiveMatch, Seat, SeatKind, ViewParts};

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
        let live = pokeros(4);
        let whole = seat_view(live.view(Some(0)), usize::MAX);
        assert!(whole.omitted_parts.is_empty());
        let whole_bytes = whole.encoded_len();
        assert!(largest_view_bytes(&live) >= whole_bytes);

        // Room for everything but the observation tensor.
        let tensor = whole
            .observation
            .as_ref()
            .expect("a seat's view has one")
            .encoded_len();
        // (Naming the part left out costs a few bytes.)
        let fitted = seat_view(live.view(Some(0)), whole_bytes - tensor + 16);
        assert_eq!(fitted.omitted_parts, ["observation"]);
        assert!(fitted.observation.is_none());
        assert_eq!(fitted.view_json, whole.view_json);
        assert_eq!(fitted.legal_actions, whole.legal_actions);

        // Room for almost nothing: every part goes, in order, and the rest still fits.
        let lean = seat_view(live.view(Some(0)), 50);
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
        let asked = live.view_parts(
            Some(0),
            ViewParts {
                observation: false,
                ..ViewParts::ALL
            },
        );
        assert!(seat_view(asked, usize::MAX).omitted_parts.is_empty());
    }

    /// Every field of the live match's view reaches its message: a seat's whole view, a
    /// spectator's, and an event with the seat's own action.
    #[test]
    fn a_view_and_an_event_reach_their_messages_whole() {
        use checkraise_core::Player;

        use super::match_event;
        use crate::live_match::{LegalAction, MatchEvent};

        let live = pokeros(2);
        let view = live.view(Some(1));
        let sent = seat_view(view.clone(), usize::MAX);
        assert_eq!(sent.match_id, "m");
        assert_eq!(sent.seat, Some(1));
        assert_eq!(sent.version, view.version);
        assert_eq!(Some(sent.view_json.clone()), view.view_json);
        assert_eq!(sent.current_player, view.current_player.id());
        assert_eq!(sent.may_act, view.may_act);
        assert_eq!(sent.legal_actions.len(), view.legal_actions.len());
        for (sent, action) in sent.legal_actions.iter().zip(&view.legal_actions) {
            assert_eq!(sent.id, action.id);
            assert_eq!(Some(&sent.text), action.text.as_ref());
            assert_eq!(
                sent.action_json,
                action.action_json.clone().unwrap_or_default()
            );
        }
        let observation = view.observation.as_ref().expect("a seat's view has one");
        let tensor = sent.observation.as_ref().expect("sent");
        let shape: Vec<usize> = tensor.shape.iter().map(|&d| d as usize).collect();
        assert_eq!(shape, observation.shape);
        assert_eq!(tensor.data.len(), observation.values.len() * 4);
        assert_eq!(Some(sent.observation_text.clone()), view.observation_text);
        assert_eq!(sent.seats.len(), 2);
        assert_eq!(sent.seats[1].kind, "human");
        assert!(
            sent.chosen_seed,
            "a seed given as a number is the creator's"
        );

        let spectator = seat_view(live.view(None), usize::MAX);
        assert_eq!(spectator.seat, None);
        assert!(spectator.observation.is_none() && spectator.legal_actions.is_empty());

        let event = match_event(
            MatchEvent {
                actor: Some(Player::Simultaneous),
                own_action: Some(LegalAction {
                    id: 3,
                    text: Some("pick3".into()),
                    action_json: None,
                }),
                view,
            },
            usize::MAX,
        );
        assert_eq!(event.actor, -2);
        let own = event.own_action.expect("the seat's own action");
        assert_eq!((own.id, own.text.as_str()), (3, "pick3"));
        assert_eq!(event.view, Some(sent));
        // Not a step: actor -1, as chance.
        let first = match_event(
            MatchEvent {
                actor: None,
                own_action: None,
                view: live.view(None),
            },
            usize::MAX,
        );
        assert_eq!(first.actor, -1);
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
}
