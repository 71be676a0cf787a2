//! dm_env_rpc end to end: a tonic client of `dm_env_rpc.v1.Environment` against the server
//! started in-process on a free port creates a world of every game, joins it, plays whole
//! games from what the server reports (the action mask), and destroys the world.

use std::collections::HashMap;

use crate::common::TestServer;
use checkraise_core::registry;
use checkraise_grpc::config::Config;
use checkraise_grpc::dm_env::{
    ACTION_MASK_UID, ACTION_UID, DISCOUNT_UID, OBSERVATION_UID, REWARD_UID,
};
use checkraise_grpc::dm_env_pb::dm_env_rpc::v1 as pb;
use checkraise_grpc::dm_env_pb::dm_env_rpc::v1::environment_client::EnvironmentClient;
use pb::environment_request::Payload as Req;
use pb::environment_response::Payload as Resp;
use pb::tensor::Payload as Data;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Code;

/// One `Process` stream.
struct Connection {
    tx: mpsc::Sender<pb::EnvironmentRequest>,
    responses: tonic::Streaming<pb::EnvironmentResponse>,
}

impl Connection {
    /// A new `Process` stream to `server`.
    async fn open(server: &TestServer) -> Self {
        let (tx, rx) = mpsc::channel(4);
        let responses = EnvironmentClient::new(server.channel.clone())
            .process(ReceiverStream::new(rx))
            .await
            .unwrap()
            .into_inner();
        Connection { tx, responses }
    }

    /// Sends a request; its response, or the `google.rpc.Status` of its error.
    async fn send(&mut self, request: Req) -> Result<Resp, (Code, String)> {
        self.tx
            .send(pb::EnvironmentRequest {
                payload: Some(request),
            })
            .await
            .unwrap();
        let response = self.responses.message().await.unwrap().unwrap();
        match response.payload.unwrap() {
            Resp::Error(status) => Err((Code::from_i32(status.code), status.message)),
            other => Ok(other),
        }
    }

    async fn step(
        &mut self,
        action: Option<i32>,
    ) -> Result<(pb::EnvironmentStateType, HashMap<u64, pb::Tensor>), (Code, String)> {
        let actions = action
            .map(|a| HashMap::from([(ACTION_UID, int32(a))]))
            .unwrap_or_default();
        let request = pb::StepRequest {
            actions,
            requested_observations: vec![
                OBSERVATION_UID,
                ACTION_MASK_UID,
                REWARD_UID,
                DISCOUNT_UID,
            ],
        };
        match self.send(Req::Step(request)).await? {
            Resp::Step(step) => Ok((step.state(), step.observations)),
            other => panic!("a step answered {other:?}"),
        }
    }
}

fn int32(v: i32) -> pb::Tensor {
    pb::Tensor {
        payload: Some(Data::Int32s(pb::tensor::Int32Array { array: vec![v] })),
        shape: vec![],
    }
}

fn text(s: &str) -> pb::Tensor {
    pb::Tensor {
        payload: Some(Data::Strings(pb::tensor::StringArray {
            array: vec![s.to_string()],
        })),
        shape: vec![],
    }
}

fn mask(observations: &HashMap<u64, pb::Tensor>) -> Vec<bool> {
    match &observations[&ACTION_MASK_UID].payload {
        Some(Data::Bools(b)) => b.array.clone(),
        other => panic!("the mask is bools, not {other:?}"),
    }
}

fn double(observations: &HashMap<u64, pb::Tensor>, uid: u64) -> f64 {
    match &observations[&uid].payload {
        Some(Data::Doubles(d)) => d.array[0],
        other => panic!("uid {uid} is a double, not {other:?}"),
    }
}

async fn create(conn: &mut Connection, game: &str, seed: i32) -> String {
    let settings = HashMap::from([
        ("game".to_string(), text(game)),
        ("seed".to_string(), int32(seed)),
        ("opponent".to_string(), text("random")),
    ]);
    match conn
        .send(Req::CreateWorld(pb::CreateWorldRequest { settings }))
        .await
        .unwrap()
    {
        Resp::CreateWorld(r) => r.world_name,
        other => panic!("{other:?}"),
    }
}

async fn join(conn: &mut Connection, world: &str, seat: i32) -> Result<Resp, (Code, String)> {
    conn.send(Req::JoinWorld(pb::JoinWorldRequest {
        world_name: world.to_string(),
        settings: HashMap::from([("seat".to_string(), int32(seat))]),
    }))
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_is_a_world_played_to_the_end_from_the_mask() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut conn = Connection::open(&server).await;
    for entry in registry::entries() {
        let name = entry.info.name;
        let game = checkraise_core::make_game_from_string(name).unwrap();
        let world = create(&mut conn, name, 5).await;
        let last_seat = game.num_players() as i32 - 1;
        let Resp::JoinWorld(joined) = join(&mut conn, &world, last_seat).await.unwrap() else {
            panic!("{name}: join answers JoinWorld");
        };
        let specs = joined.specs.unwrap();
        let action = &specs.actions[&ACTION_UID];
        assert_eq!(action.name, "action");
        assert_eq!(action.dtype, pb::DataType::Int32 as i32);
        let obs = &specs.observations[&OBSERVATION_UID];
        let shape: Vec<i32> = game.observation_shape().iter().map(|&d| d as i32).collect();
        assert_eq!((obs.name.as_str(), &obs.shape), ("observation", &shape));

        // The first step starts the game; its actions are ignored.
        let (state, mut seen) = conn.step(Some(-5)).await.unwrap();
        assert_eq!(state, pb::EnvironmentStateType::Running, "{name}");
        assert_eq!(double(&seen, REWARD_UID), 0.0);
        let mut total = 0.0;
        let mut steps = 0usize;
        let mut refused_illegal = false;
        loop {
            let legal: Vec<i32> = mask(&seen)
                .iter()
                .enumerate()
                .filter(|(_, m)| **m)
                .map(|(a, _)| a as i32)
                .collect();
            if let (false, Some(illegal)) = (
                refused_illegal,
                (0..game.num_distinct_actions() as i32).find(|a| !legal.contains(a)),
            ) {
                let (code, message) = conn.step(Some(illegal)).await.unwrap_err();
                assert_eq!(code, Code::InvalidArgument, "{name}: {message}");
                assert!(message.contains("not legal"), "{name}: {message}");
                refused_illegal = true;
            }
            // The game may end before the seat acts (everyone else folded): any action
            // then is ignored.
            let choice = legal.get(steps % legal.len().max(1)).copied().unwrap_or(0);
            let (state, observations) = conn.step(Some(choice)).await.unwrap();
            total += double(&observations, REWARD_UID);
            steps += 1;
            if state == pb::EnvironmentStateType::Terminated {
                assert_eq!(double(&observations, DISCOUNT_UID), 0.0, "{name}");
                assert!(mask(&observations).iter().all(|&m| !m), "{name}");
                break;
            }
            assert_eq!(state, pb::EnvironmentStateType::Running, "{name}");
            assert_eq!(double(&observations, DISCOUNT_UID), 1.0, "{name}");
            seen = observations;
            assert!(steps < 10_000, "{name}: the game ends");
        }
        assert!(
            (game.min_utility()..=game.max_utility()).contains(&total),
            "{name}: the rewards sum to the seat's return, {total}"
        );

        // The next step begins the next game of the world.
        let (state, _) = conn.step(None).await.unwrap();
        assert_eq!(state, pb::EnvironmentStateType::Running, "{name}");

        let (code, message) = conn
            .send(Req::DestroyWorld(pb::DestroyWorldRequest {
                world_name: world.clone(),
            }))
            .await
            .unwrap_err();
        assert_eq!(code, Code::FailedPrecondition, "{message}");
        conn.send(Req::LeaveWorld(pb::LeaveWorldRequest {}))
            .await
            .unwrap();
        conn.send(Req::DestroyWorld(pb::DestroyWorldRequest {
            world_name: world.clone(),
        }))
        .await
        .unwrap();
        let (code, message) = join(&mut conn, &world, 0).await.unwrap_err();
        assert_eq!(code, Code::NotFound, "{message}");
    }
    drop(conn);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_world_replays_its_seeds_and_bad_requests_are_errors_in_the_stream() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut conn = Connection::open(&server).await;
    let (code, message) = conn
        .send(Req::CreateWorld(pb::CreateWorldRequest {
            settings: HashMap::from([("game".to_string(), text("no_such_game"))]),
        }))
        .await
        .unwrap_err();
    assert_eq!(code, Code::InvalidArgument, "{message}");
    let (code, message) = conn
        .send(Req::CreateWorld(pb::CreateWorldRequest {
            settings: HashMap::new(),
        }))
        .await
        .unwrap_err();
    assert!(
        code == Code::InvalidArgument && message.contains("`game`"),
        "{message}"
    );
    let (code, _) = conn.step(None).await.unwrap_err();
    assert_eq!(code, Code::FailedPrecondition, "a step before joining");

    let world = create(&mut conn, "pokeros(players=3)", 11).await;
    let (code, message) = join(&mut conn, &world, 3).await.unwrap_err();
    assert!(
        code == Code::InvalidArgument && message.contains("seat"),
        "{message}"
    );
    join(&mut conn, &world, 1).await.unwrap();
    let (_, first) = conn.step(None).await.unwrap();
    let (code, message) = join(&mut conn, &world, 1).await.unwrap_err();
    assert_eq!(code, Code::FailedPrecondition, "{message}");

    // A second connection cannot join a world with its agent joined.
    let mut other = Connection::open(&server).await;
    let (code, message) = join(&mut other, &world, 0).await.unwrap_err();
    assert_eq!(code, Code::FailedPrecondition, "{message}");

    // ResetWorld from elsewhere interrupts the game; the world deals its seeds again.
    other
        .send(Req::ResetWorld(pb::ResetWorldRequest {
            world_name: world.clone(),
            settings: HashMap::new(),
        }))
        .await
        .unwrap();
    let (state, _) = conn.step(Some(0)).await.unwrap();
    assert_eq!(state, pb::EnvironmentStateType::Interrupted);
    let (state, again) = conn.step(Some(0)).await.unwrap();
    assert_eq!(state, pb::EnvironmentStateType::Running);
    assert_eq!(
        again[&OBSERVATION_UID], first[&OBSERVATION_UID],
        "the world's first seed again"
    );

    // Reset: the agent's next step begins a new game (the world's next seed).
    let Resp::Reset(reset) = conn
        .send(Req::Reset(pb::ResetRequest {
            settings: HashMap::new(),
        }))
        .await
        .unwrap()
    else {
        panic!("reset answers Reset")
    };
    assert!(reset.specs.is_some());
    let (state, _) = conn.step(None).await.unwrap();
    assert_eq!(state, pb::EnvironmentStateType::Running);

    let (code, message) = conn
        .step(Some(i32::from(u16::MAX)))
        .await
        .map(|_| ())
        .unwrap_err();
    assert!(
        code == Code::InvalidArgument && message.contains("out of bounds"),
        "{message}"
    );
    drop(other);
    drop(conn);
    server.shutdown().await;
}
