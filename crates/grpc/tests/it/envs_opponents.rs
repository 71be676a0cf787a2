//! The Envs service with opponents played inside the engine (`CreateEnvsRequest.opponents`):
//! batches hold the learner's side only and play exactly as the engine's batched env with the
//! same pool (`VectorEnv::with_opponents`); bad pools, seats and options are refused naming the
//! problem, a policy file is never read on a client's word, and policy bytes count against the
//! server's policy memory.

use std::collections::BTreeSet;

use checkraise_core::compact::{CompactLayout, packed_mask_bytes};
use checkraise_core::env::GameRng;
use checkraise_core::make_game;
use checkraise_core::vector::{
    AutoresetMode, LearnerSeat, Observer, Opponent, Opponents, OwnedBuffers, VectorEnv,
};
use checkraise_grpc::config::Config;
use checkraise_grpc::envs::{EnvBatch, EnvOptions, EnvStore, EnvsService};
use checkraise_grpc::pb;
use checkraise_grpc::pb::env_opponent::Kind;
use checkraise_grpc::pb::envs_client::EnvsClient;
use checkraise_grpc::pb::envs_server::Envs;
use checkraise_grpc::tensor::i32_tensor;
use prost::Message;
use tonic::transport::Channel;
use tonic::{Code, Request};

use crate::common::TestServer;
use crate::envs::{Step, i32s};

const SMALL: [(&str, &str); 2] = [("board_size", "3"), ("hand_size", "1")];

fn bot(spec: &str, weight: Option<f64>) -> pb::EnvOpponent {
    pb::EnvOpponent {
        kind: Some(Kind::Bot(spec.to_string())),
        weight,
    }
}

fn policy(bytes: &[u8], weight: Option<f64>) -> pb::EnvOpponent {
    pb::EnvOpponent {
        kind: Some(Kind::Policy(bytes.to_vec())),
        weight,
    }
}

/// The policy the engine ships for Detective Poker (default parameters), as a file's bytes.
fn detective_policy() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../core/policies/detective_poker.safetensors"
    );
    std::fs::read(path).unwrap()
}

fn request(
    game: &str,
    params: &[(&str, &str)],
    num_envs: u32,
    opponents: Vec<pb::EnvOpponent>,
) -> pb::CreateEnvsRequest {
    pb::CreateEnvsRequest {
        game: game.into(),
        parameters: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        num_envs,
        opponents,
        ..Default::default()
    }
}

/// The engine's pool for the entries a request sends.
fn engine_pool(request: &pb::CreateEnvsRequest) -> Opponents {
    let learner = if request.random_learner_seat {
        LearnerSeat::Drawn
    } else {
        LearnerSeat::Fixed(request.learner_seat.unwrap_or(0) as usize)
    };
    let mut opponents = Opponents::new(learner);
    for (k, entry) in request.opponents.iter().enumerate() {
        let opponent = match entry.kind.as_ref().unwrap() {
            Kind::Bot(spec) => Opponent::spec(spec.clone()),
            Kind::Policy(bytes) => Opponent::policy_bytes(format!("#{k}"), bytes.clone()),
        };
        opponents = opponents.with(opponent, entry.weight.unwrap_or(1.0));
    }
    opponents
}

/// Each env's learner seat in the engine's batch.
fn engine_seats(venv: &VectorEnv) -> Vec<i32> {
    (0..venv.num_envs())
        .map(|i| venv.learner_seat(i).unwrap() as i32)
        .collect()
}

async fn step(
    envs: &mut EnvsClient<Channel>,
    id: &str,
    shape: Vec<u32>,
    actions: &[i32],
) -> Result<pb::EnvBatch, tonic::Status> {
    envs.step(pb::StepRequest {
        envs_id: id.to_string(),
        actions: Some(i32_tensor(shape, actions)),
    })
    .await
    .map(|reply| reply.into_inner())
}

/// Checks a reply's tensors have the learner-only shapes.
fn assert_learner_shapes(reply: &pb::EnvBatch, num_envs: u32, obs: &[u32], actions: u32) {
    let shape = |t: &Option<pb::Tensor>| t.as_ref().expect("a tensor").shape.clone();
    assert_eq!(shape(&reply.observations), [&[num_envs][..], obs].concat());
    assert_eq!(shape(&reply.action_masks), [num_envs, actions]);
    assert_eq!(shape(&reply.rewards), [num_envs, 1]);
    assert_eq!(shape(&reply.final_returns), [num_envs, 1]);
    assert_eq!(shape(&reply.current_players), [num_envs]);
    assert_eq!(shape(&reply.learner_seats), [num_envs]);
}

/// Over the wire, batches with opponents (bot specs, weights, policy bytes; fixed and drawn
/// learner seats; both auto-reset modes, truncation, a simultaneous game) report the learner's
/// side only and exactly what the engine's batch with the same pool and seed reports, step by
/// step, with the same learner seats; steps of the wrong shape or with a bad learner action
/// are refused and change nothing.
#[tokio::test]
async fn opponents_play_inside_the_engine_as_its_vector_env_does() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut envs = EnvsClient::new(server.channel.clone());
    struct Case {
        request: pb::CreateEnvsRequest,
        mode: AutoresetMode,
        steps: usize,
    }
    let with = |mut request: pb::CreateEnvsRequest,
                seed: u64,
                learner_seat: Option<u32>,
                mode: AutoresetMode,
                cap: Option<u32>| {
        request.seed = seed;
        request.learner_seat = learner_seat;
        request.random_learner_seat = learner_seat.is_none();
        request.autoreset_mode = match mode {
            AutoresetMode::NextStep => pb::AutoresetMode::NextStep,
            AutoresetMode::SameStep => pb::AutoresetMode::SameStep,
        } as i32;
        request.max_episode_steps = cap;
        request
    };
    let cases = [
        Case {
            request: with(
                request(
                    "pokeros",
                    &SMALL,
                    4,
                    vec![bot("heuristic", Some(3.0)), bot("random", None)],
                ),
                7,
                None,
                AutoresetMode::NextStep,
                None,
            ),
            mode: AutoresetMode::NextStep,
            steps: 40,
        },
        Case {
            request: with(
                request("pokeros", &SMALL, 3, vec![bot("random", None)]),
                11,
                Some(1),
                AutoresetMode::SameStep,
                Some(2),
            ),
            mode: AutoresetMode::SameStep,
            steps: 20,
        },
        Case {
            request: with(
                request(
                    "detective_poker",
                    &[],
                    2,
                    vec![
                        policy(&detective_policy(), Some(2.0)),
                        bot("heuristic", None),
                    ],
                ),
                3,
                None,
                AutoresetMode::NextStep,
                None,
            ),
            mode: AutoresetMode::NextStep,
            steps: 30,
        },
        Case {
            request: with(
                request("prediction_chess", &[], 2, vec![bot("random", None)]),
                5,
                Some(1),
                AutoresetMode::NextStep,
                Some(3),
            ),
            mode: AutoresetMode::NextStep,
            steps: 12,
        },
    ];
    for (n, case) in cases.into_iter().enumerate() {
        let request = case.request;
        let game = make_game(&request.game, &request.parameters).unwrap();
        let num_envs = request.num_envs;
        let na = game.num_distinct_actions();
        let obs: Vec<u32> = game
            .observation_shape()
            .into_iter()
            .map(|d| d as u32)
            .collect();
        let cap = request.max_episode_steps.map(|steps| steps as usize);
        let mut venv = VectorEnv::new(
            game.clone(),
            num_envs as usize,
            request.seed,
            Observer::default_for(game.as_ref()),
            cap,
        )
        .unwrap()
        .with_autoreset_mode(case.mode)
        .with_opponents(engine_pool(&request))
        .unwrap();
        let mut local = OwnedBuffers::for_venv(&venv, case.mode == AutoresetMode::SameStep);
        venv.reset(None, local.view(true)).unwrap();

        let created = envs
            .create_envs(request.clone())
            .await
            .unwrap()
            .into_inner();
        let id = created.envs_id;
        let reply = created.batch.unwrap();
        assert_learner_shapes(&reply, num_envs, &obs, na as u32);
        let mut remote = Step::from_reply(&reply);
        assert_eq!(remote, Step::of(&local), "case {n} after creation");
        assert_eq!(i32s(&reply.learner_seats), engine_seats(&venv));

        if n == 0 {
            // One action per env, the learner's: a seat axis is refused.
            let joint = vec![0; 2 * num_envs as usize];
            let err = step(&mut envs, &id, vec![num_envs, 2], &joint)
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
            // Every env's learner acts now: -1 is no action, and an id out of range is illegal.
            let mut actions = remote.random_actions(na, &mut GameRng::new(0));
            actions[1] = -1;
            let err = step(&mut envs, &id, vec![num_envs], &actions)
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
            assert!(err.message().contains("env 1: the learner"), "{err:?}");
            actions[1] = na as i32;
            let err = step(&mut envs, &id, vec![num_envs], &actions)
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
            assert!(err.message().contains("env 1"), "{err:?}");
        }

        let mut rng = GameRng::new(n as u64);
        let (mut ended, mut seats) = (0, BTreeSet::new());
        for s in 0..case.steps {
            let actions = remote.random_actions(na, &mut rng);
            let reply = step(&mut envs, &id, vec![num_envs], &actions)
                .await
                .unwrap();
            let engine_actions: Vec<u32> = actions.iter().map(|&a| a.max(0) as u32).collect();
            venv.step(&engine_actions, local.view(true)).unwrap();
            assert_learner_shapes(&reply, num_envs, &obs, na as u32);
            remote = Step::from_reply(&reply);
            assert_eq!(remote, Step::of(&local), "case {n} step {s}");
            let learner_seats = i32s(&reply.learner_seats);
            assert_eq!(learner_seats, engine_seats(&venv), "case {n} step {s}");
            seats.extend(learner_seats);
            ended += remote
                .terminated
                .iter()
                .zip(&remote.truncated)
                .filter(|(a, b)| **a || **b)
                .count();
        }
        assert!(ended > 0, "case {n}: no game ended");
        if request.random_learner_seat {
            assert!(seats.len() > 1, "case {n}: only seats {seats:?} were drawn");
        } else {
            assert_eq!(
                seats,
                BTreeSet::from([request.learner_seat.unwrap() as i32])
            );
        }
        envs.close_envs(pb::CloseEnvsRequest { envs_id: id })
            .await
            .unwrap();
    }
    // The compact encoding sends the learner's rows packed.
    let mut compact = request("pokeros", &SMALL, 3, vec![bot("random", None)]);
    compact.observation_encoding = pb::ObservationEncoding::Compact as i32;
    let reply = envs.create_envs(compact).await.unwrap().into_inner();
    let batch = reply.batch.unwrap();
    let game = make_game("pokeros", SMALL).unwrap();
    let row_bytes = CompactLayout::for_game(game.as_ref()).row_bytes() as u32;
    let mask_bytes = packed_mask_bytes(game.num_distinct_actions()) as u32;
    assert_eq!(batch.packed_observations.unwrap().shape, [3, row_bytes]);
    assert_eq!(batch.packed_action_masks.unwrap().shape, [3, mask_bytes]);
    assert_eq!(batch.rewards.unwrap().shape, [3, 1]);
    assert_eq!(i32s(&batch.learner_seats), [0, 0, 0]);
    // Without opponents no learner seats are sent.
    let plain = envs
        .create_envs(request("pokeros", &SMALL, 2, vec![]))
        .await
        .unwrap()
        .into_inner();
    assert!(plain.batch.unwrap().learner_seats.is_none());
    server.shutdown().await;
}

/// Bad pools, weights, seats and options are INVALID_ARGUMENT naming the problem (the entry,
/// the field); `policy(path=...)` is refused as matches refuse it; and a refused creation
/// leaves nothing counted against the server's limits.
#[tokio::test]
async fn bad_opponents_and_seats_are_refused_naming_the_problem() {
    let mut config = Config::in_memory();
    config.max_envs = 2;
    config.max_envs_per_peer = Some(2);
    let server = TestServer::start(config).await;
    let mut envs = EnvsClient::new(server.channel.clone());
    let random = || vec![bot("random", None)];
    let plain = |opponents| request("pokeros", &SMALL, 2, opponents);
    let seated = |seat: Option<u32>, drawn: bool, opponents| pb::CreateEnvsRequest {
        learner_seat: seat,
        random_learner_seat: drawn,
        ..plain(opponents)
    };
    let cases: Vec<(pb::CreateEnvsRequest, &[&str])> = vec![
        (
            pb::CreateEnvsRequest {
                all_seats: true,
                ..plain(random())
            },
            &["all_seats", "opponents"],
        ),
        (
            seated(Some(1), false, vec![]),
            &["learner_seat", "opponents"],
        ),
        (
            seated(None, true, vec![]),
            &["random_learner_seat", "opponents"],
        ),
        (
            seated(Some(1), true, random()),
            &["learner_seat", "random_learner_seat"],
        ),
        (
            seated(Some(2), false, random()),
            &["learner seat", "2", "from 0 to 1"],
        ),
        (
            plain(vec![bot("perfect", None)]),
            &["opponent 0", "perfect"],
        ),
        (
            plain(vec![
                bot("random", None),
                bot("policy(path=/etc/passwd)", None),
            ]),
            &["opponent 1", "policy files (path=...) are not served"],
        ),
        (
            plain(vec![bot("ismcts(max_ms=999999)", None)]),
            &["opponent 0", "max_ms", "--max-bot-ms"],
        ),
        // The shipped policy is trained on the default parameters.
        (plain(vec![bot("policy", None)]), &["opponent 0", "policy"]),
        (
            plain(vec![bot("random", Some(0.0))]),
            &["weight of opponent 0"],
        ),
        (
            plain(vec![bot("random", None), bot("heuristic", Some(-1.0))]),
            &["weight of opponent 1 (heuristic)", "-1"],
        ),
        (
            plain(vec![bot("random", Some(f64::NAN))]),
            &["weight of opponent 0"],
        ),
        (
            plain(vec![bot("random", Some(f64::INFINITY))]),
            &["weight of opponent 0"],
        ),
        (
            plain(vec![bot("random", None); 257]),
            &["257 entries", "256"],
        ),
        (
            plain(vec![pb::EnvOpponent::default()]),
            &["opponent 0", "neither bot nor policy"],
        ),
        (
            plain(vec![policy(b"not a policy", None)]),
            &["opponent 0", "policy bytes #0 (12 bytes)"],
        ),
        (
            plain(vec![policy(&detective_policy(), None)]),
            &["opponent 0", "trained on"],
        ),
    ];
    for (request, needles) in cases {
        let err = envs.create_envs(request.clone()).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{request:?}: {err:?}");
        for needle in needles {
            assert!(err.message().contains(needle), "{needle:?} in {err:?}");
        }
    }
    // Nothing was left counted: the server's whole limit is still free.
    let made = envs
        .create_envs(plain(vec![
            bot("heuristic", None),
            bot("random", Some(0.5)),
        ]))
        .await
        .unwrap()
        .into_inner();
    envs.close_envs(pb::CloseEnvsRequest {
        envs_id: made.envs_id,
    })
    .await
    .unwrap();
    server.shutdown().await;
}

/// Policy bytes count against the server's policy memory while their batch lives: past it,
/// RESOURCE_EXHAUSTED, and closing the batch frees them.
#[tokio::test]
async fn policy_bytes_count_against_the_servers_policy_memory() {
    let bytes = detective_policy();
    let store = EnvStore::new(100, 64 << 20).with_policy_share(bytes.len() * 3 / 2, usize::MAX);
    let service = EnvsService::new(store.clone());
    let create = || {
        Request::new(request(
            "detective_poker",
            &[],
            1,
            vec![policy(&bytes, None)],
        ))
    };
    let first = service.create_envs(create()).await.unwrap().into_inner();
    assert_eq!(store.policy_bytes(), bytes.len());
    let err = service.create_envs(create()).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert!(err.message().contains("policies"), "{err:?}");
    // Bot specs hold no policy bytes.
    let specs = request("detective_poker", &[], 1, vec![bot("policy", None)]);
    service.create_envs(Request::new(specs)).await.unwrap();
    service
        .close_envs(Request::new(pb::CloseEnvsRequest {
            envs_id: first.envs_id,
        }))
        .await
        .unwrap();
    assert_eq!(store.policy_bytes(), 0);
    service.create_envs(create()).await.unwrap();
    assert_eq!(store.live_envs(), 2);
}

/// The reply size the server checks against its message limit is the learner-only reply's:
/// never below the encoded reply, and smaller than the every-seat one.
#[test]
fn reply_sizes_are_the_learner_only_replies() {
    for (name, params) in [
        ("pokeros", &SMALL[..]),
        ("prediction_chess", &[][..]),
        ("detective_poker", &[][..]),
    ] {
        let game = make_game(name, params.iter().copied()).unwrap();
        let num_envs = 5;
        let options = EnvOptions {
            opponents: Some(Opponents::new(LearnerSeat::Drawn).with(Opponent::spec("random"), 1.0)),
            ..EnvOptions::default()
        };
        let estimate = EnvBatch::reply_bytes(game.as_ref(), num_envs, &options);
        let batch = EnvBatch::with_options(game.clone(), num_envs, 1, options).unwrap();
        let encoded = batch.fresh_reply().encoded_len();
        assert!(estimate >= encoded, "{name}: {estimate} < {encoded}");
        assert!(
            estimate <= encoded + 512 + num_envs * 64,
            "{name}: {estimate} vs {encoded}"
        );
        let every_seat =
            EnvBatch::reply_bytes(game.as_ref(), num_envs, &EnvOptions::all_seats(true));
        assert!(estimate < every_seat, "{name}");
    }
}
