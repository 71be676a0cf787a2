//! Every registered game is served with no service change: matches against bots, a human seat
//! played to the end through the service, and env batches, all driven only by what the
//! service reports (legal actions, masks), never by knowledge of a game.

use std::collections::HashMap;
use std::sync::Arc;

use checkraise_core::Game;
use checkraise_core::registry;
use checkraise_grpc::envs::EnvBatch;
use checkraise_grpc::live_match::{ActionChoice, LiveMatch, Seat, SeatKind};
use checkraise_grpc::tensor::i32_tensor;

fn seats(kinds: &[&str], game: &str) -> Vec<Seat> {
    kinds
        .iter()
        .map(|&kind| Seat {
            connected: false,
            kind_name: kind.to_string(),
            kind: if kind == "human" {
                SeatKind::Human { token_hash: None }
            } else {
                SeatKind::Bot(checkraise_core::make_bot(game, kind).unwrap())
            },
        })
        .collect()
}

/// Every registered game with its default parameters, and its name.
fn every_game() -> impl Iterator<Item = (&'static str, Arc<dyn Game>)> {
    registry::entries().iter().map(|entry| {
        let name = entry.info.name;
        let none: HashMap<String, String> = HashMap::new();
        (name, checkraise_core::make_game(name, &none).unwrap())
    })
}

#[test]
fn every_game_plays_through_matches_with_a_human_seat_and_bots() {
    for (name, game) in every_game() {
        let players = game.num_players();

        let bots = LiveMatch::new(
            "b".into(),
            game.clone(),
            3,
            seats(&vec!["random"; players], name),
        )
        .unwrap();
        assert!(
            bots.view(None).is_terminal,
            "{name}: an all-bot match ends on creation"
        );

        let mut kinds = vec!["random"; players];
        kinds[0] = "human";
        let mut live = LiveMatch::new("h".into(), game.clone(), 7, seats(&kinds, name)).unwrap();
        live.join(Some(0), "t".into()).unwrap();
        let mut steps = 0;
        loop {
            let view = live.view(Some(0));
            let json: serde_json::Value =
                serde_json::from_str(view.view_json.as_deref().expect("a whole view")).unwrap();
            assert!(json.is_object(), "{name}: view is a JSON object");
            if view.is_terminal {
                assert_eq!(view.returns.len(), players, "{name}");
                assert!(steps > 0, "{name}: the human seat played");
                break;
            }
            assert!(view.may_act, "{name}: only the human seat waits");
            assert!(
                !view.legal_actions.is_empty(),
                "{name}: a seat that may act has actions"
            );
            // Alternate ids and texts, so every game's action strings round-trip here.
            let pick = &view.legal_actions[steps % view.legal_actions.len()];
            let choice = if steps % 2 == 0 {
                ActionChoice::Id(pick.id)
            } else {
                ActionChoice::Text(pick.text.clone().expect("a whole view has texts"))
            };
            live.act(0, choice)
                .unwrap_or_else(|e| panic!("{name}: {pick:?} refused: {e}"));
            steps += 1;
            assert!(steps <= game.max_game_length(), "{name}: match too long");
        }
    }
}

#[test]
fn every_game_steps_as_a_batch_of_envs() {
    for (name, game) in every_game() {
        let (players, actions) = (game.num_players(), game.num_distinct_actions());
        let count = 4;
        let mut batch = EnvBatch::new(game, count, 11, true).unwrap();
        let mut reply = batch.fresh_reply();
        for _ in 0..30 {
            let masks = reply.action_masks.as_ref().unwrap();
            assert_eq!(
                masks.shape,
                vec![count as u32, players as u32, actions as u32]
            );
            let chosen: Vec<i32> = masks
                .data
                .chunks_exact(actions)
                .map(|row| row.iter().position(|&m| m == 1).map_or(-1, |a| a as i32))
                .collect();
            reply = batch
                .step(&i32_tensor(vec![count as u32, players as u32], &chosen))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
