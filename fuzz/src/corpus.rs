//! The seed corpus: a handful of small valid inputs per target, written to
//! `fuzz/corpus/<target>/` by the `write_corpus` binary.

/// A game string per registered game and a few variants.
const GAMES: &[&str] = &[
    "pokeros",
    "pokeros(players=3,hand_size=0)",
    "prediction_chess(max_turns=12)",
    "poker_chess(hand_size=2)",
    "holdem_chess(players=3,stack=10)",
    "detective_poker(players=3,rounds=1)",
];

/// The seed inputs of target `target`, named.
pub fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let text = |items: Vec<String>| -> Vec<(String, Vec<u8>)> {
        items
            .into_iter()
            .enumerate()
            .map(|(i, t)| (format!("seed-{i:02}"), t.into_bytes()))
            .collect()
    };
    match target {
        "game_params" => text(
            GAMES
                .iter()
                .map(|g| g.to_string())
                .chain([
                    "pokeros\nplayers=4\nwildcards=1".to_string(),
                    "holdem_chess\ngrid=-1..5:-1..1\nhands=2".to_string(),
                    "prediction_chess(fen=4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1)".to_string(),
                ])
                .collect(),
        ),
        "action_strings" => text(
            GAMES
                .iter()
                .zip([4, 1, 9, 6, 8, 5])
                .map(|(g, steps)| format!("{g}\n7 {steps}\n0\nfold\ncall\ne2e4\nKd@1,0\nAs"))
                .collect(),
        ),
        "bot_specs" => text(
            [
                "random",
                "heuristic",
                "ismcts(iterations=8)",
                "policy",
                "ismcts(rollout=heuristic)",
                "policy(play=sample)",
            ]
            .iter()
            .zip(GAMES)
            .map(|(bot, g)| format!("{g}\n{bot}\n3 5"))
            .collect(),
        ),
        "serialized_states" => text(
            GAMES
                .iter()
                .map(|g| {
                    let game = checkraise_core::make_game_from_string(g).expect("a seed game");
                    let (state, _) = crate::seeded_state(game.as_ref(), 5, 6);
                    format!("{g}\n{}", state.serialize())
                })
                .collect(),
        ),
        "view_requests" => text(
            GAMES
                .iter()
                .map(|g| format!("{g}\n11 7\n\x00\x01\x02\x03\x05\x7f\u{ff}"))
                .collect(),
        ),
        #[cfg(feature = "grpc")]
        "grpc_requests" => grpc_seeds(),
        _ => Vec::new(),
    }
}

#[cfg(feature = "grpc")]
fn grpc_seeds() -> Vec<(String, Vec<u8>)> {
    use checkraise_grpc::dm_env_pb::dm_env_rpc::v1 as dm;
    use checkraise_grpc::pb;

    use crate::grpc_requests::record;

    let create = |game: &str, seats: &[&str]| pb::CreateMatchRequest {
        game: game.to_string(),
        seed: Some(3),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let join = pb::JoinSeatRequest::default();
    let view = pb::GetViewRequest::default();
    let act = |id: u32| pb::ActRequest {
        action: Some(pb::act_request::Action::ActionId(id)),
        ..Default::default()
    };
    let matches = [
        record(
            1,
            0,
            &pb::GetGameRequest {
                name: "pokeros".into(),
                ..Default::default()
            },
        ),
        record(0, 0, &pb::ListGamesRequest {}),
    ]
    .concat();
    let human_vs_bot = [
        record(2, 0, &create("pokeros", &["human", "random"])),
        record(3, 2, &join),
        record(4, 7, &view),
        record(5, 7, &act(0)),
        record(5, 7, &act(1)),
        record(6, 2, &pb::GetSpectatorViewRequest::default()),
        record(7, 7, &pb::WatchSeatRequest::default()),
        record(8, 2, &pb::WatchSpectatorRequest::default()),
        record(10, 2, &pb::GetReplayRequest::default()),
        record(9, 0, &pb::ListMatchesRequest::default()),
    ]
    .concat();
    let chess = [
        record(2, 0, &create("prediction_chess", &[])),
        record(3, 2, &join),
        record(
            3,
            2,
            &pb::JoinSeatRequest {
                seat: Some(1),
                ..Default::default()
            },
        ),
        record(
            5,
            0x17,
            &pb::ActRequest {
                action: Some(pb::act_request::Action::ActionText("e2e4".into())),
                ..Default::default()
            },
        ),
        record(4, 0x17, &view),
    ]
    .concat();
    let envs = [
        record(
            11,
            0,
            &pb::CreateEnvsRequest {
                game: "pokeros".into(),
                num_envs: 2,
                seed: 1,
                ..Default::default()
            },
        ),
        record(12, 2, &pb::ResetRequest::default()),
        record(
            13,
            2,
            &pb::StepRequest {
                actions: Some(pb::Tensor {
                    shape: vec![2],
                    data: [0i32.to_le_bytes(), 0i32.to_le_bytes()].concat(),
                    ..Default::default()
                }),
                ..Default::default()
            },
        ),
        record(14, 2, &pb::CloseEnvsRequest::default()),
    ]
    .concat();
    let string = |s: &str| dm::Tensor {
        payload: Some(dm::tensor::Payload::Strings(dm::tensor::StringArray {
            array: vec![s.to_string()],
        })),
        shape: vec![],
    };
    let int = |v: i32| dm::Tensor {
        payload: Some(dm::tensor::Payload::Int32s(dm::tensor::Int32Array {
            array: vec![v],
        })),
        shape: vec![],
    };
    use dm::environment_request::Payload;
    let env = |payload| dm::EnvironmentRequest {
        payload: Some(payload),
    };
    let dm_env = [
        record(
            15,
            0,
            &env(Payload::CreateWorld(dm::CreateWorldRequest {
                // One setting a message: prost writes a map in hash order.
                settings: [("game".to_string(), string("pokeros(players=3)"))].into(),
            })),
        ),
        record(
            15,
            2,
            &env(Payload::JoinWorld(dm::JoinWorldRequest {
                settings: [("seat".to_string(), int(0))].into(),
                ..Default::default()
            })),
        ),
        record(
            15,
            0,
            &env(Payload::Step(dm::StepRequest {
                actions: [(1, int(0))].into(),
                ..Default::default()
            })),
        ),
        record(
            15,
            0,
            &env(Payload::Reset(dm::ResetRequest {
                settings: [("seed".to_string(), int(1))].into(),
            })),
        ),
        record(15, 0, &env(Payload::LeaveWorld(dm::LeaveWorldRequest {}))),
        record(
            15,
            2,
            &env(Payload::DestroyWorld(dm::DestroyWorldRequest::default())),
        ),
    ]
    .concat();
    [
        ("catalog", matches),
        ("match", human_vs_bot),
        ("chess", chess),
        ("envs", envs),
        ("dm-env", dm_env),
    ]
    .into_iter()
    .map(|(name, bytes)| (format!("seed-{name}"), bytes))
    .collect()
}
