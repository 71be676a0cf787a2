//! The Envs service over the wire in both auto-reset modes: its trajectories are the engine's
//! batched env's (`VectorEnv`, which Python's `VectorEnv` runs on) for the same game, seed,
//! mode and actions, and the two modes play the same games.

use crate::common::TestServer;
use checkraise_core::env::GameRng;
use checkraise_core::make_game;
use checkraise_core::vector::{AutoresetMode, Observer, OwnedBuffers, VectorEnv};
use checkraise_grpc::config::Config;
use checkraise_grpc::pb;
use checkraise_grpc::pb::envs_client::EnvsClient;
use checkraise_grpc::tensor::i32_tensor;
use tonic::Code;
use tonic::transport::Channel;

pub(crate) fn f32s(tensor: &Option<pb::Tensor>) -> Vec<f32> {
    let data = &tensor.as_ref().expect("a tensor").data;
    data.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

pub(crate) fn i32s(tensor: &Option<pb::Tensor>) -> Vec<i32> {
    let data = &tensor.as_ref().expect("a tensor").data;
    data.chunks_exact(4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

pub(crate) fn bools(tensor: &Option<pb::Tensor>) -> Vec<bool> {
    tensor
        .as_ref()
        .expect("a tensor")
        .data
        .iter()
        .map(|&b| b == 1)
        .collect()
}

/// What a step reports, decoded (the final observations are empty when not sent).
#[derive(Debug, PartialEq)]
pub(crate) struct Step {
    pub(crate) observations: Vec<f32>,
    pub(crate) action_masks: Vec<bool>,
    pub(crate) current_players: Vec<i32>,
    pub(crate) rewards: Vec<f32>,
    pub(crate) terminated: Vec<bool>,
    pub(crate) truncated: Vec<bool>,
    pub(crate) final_returns: Vec<f32>,
    pub(crate) final_observations: Vec<f32>,
}

impl Step {
    /// What the engine wrote into `buffers`, in the same form.
    pub(crate) fn of(buffers: &OwnedBuffers) -> Self {
        Step {
            observations: buffers.observations.clone(),
            action_masks: buffers.action_masks.clone(),
            current_players: buffers.current_players.clone(),
            rewards: buffers.rewards.clone(),
            terminated: buffers.terminated.clone(),
            truncated: buffers.truncated.clone(),
            final_returns: buffers.final_returns.clone(),
            final_observations: buffers.final_observations.clone().unwrap_or_default(),
        }
    }

    pub(crate) fn from_reply(reply: &pb::EnvBatch) -> Self {
        Step {
            observations: f32s(&reply.observations),
            action_masks: bools(&reply.action_masks),
            current_players: i32s(&reply.current_players),
            rewards: f32s(&reply.rewards),
            terminated: bools(&reply.terminated),
            truncated: bools(&reply.truncated),
            final_returns: f32s(&reply.final_returns),
            final_observations: reply
                .final_observations
                .as_ref()
                .map(|_| f32s(&reply.final_observations))
                .unwrap_or_default(),
        }
    }

    /// A random legal action per env from its mask row (-1 where it has none).
    pub(crate) fn random_actions(&self, num_actions: usize, rng: &mut GameRng) -> Vec<i32> {
        self.action_masks
            .chunks_exact(num_actions)
            .map(|row| {
                let legal: Vec<u32> = (0..num_actions as u32)
                    .filter(|&a| row[a as usize])
                    .collect();
                if legal.is_empty() {
                    -1
                } else {
                    rng.choose(&legal) as i32
                }
            })
            .collect()
    }
}

const GAME: &str = "pokeros";
const PARAMS: [(&str, &str); 2] = [("board_size", "3"), ("hand_size", "1")];

async fn create(
    envs: &mut EnvsClient<Channel>,
    num_envs: u32,
    mode: pb::AutoresetMode,
    max_episode_steps: Option<u32>,
) -> (String, pb::EnvBatch) {
    let reply = envs
        .create_envs(pb::CreateEnvsRequest {
            game: GAME.into(),
            parameters: PARAMS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            num_envs,
            seed: 7,
            all_seats: false,
            autoreset_mode: mode as i32,
            max_episode_steps,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    (reply.envs_id, reply.batch.unwrap())
}

async fn step(envs: &mut EnvsClient<Channel>, id: &str, actions: &[i32]) -> pb::EnvBatch {
    envs.step(pb::StepRequest {
        envs_id: id.to_string(),
        actions: Some(i32_tensor(vec![actions.len() as u32], actions)),
    })
    .await
    .unwrap()
    .into_inner()
}

/// The gRPC batch and the engine's batch, stepped with the same random legal actions, report
/// the same thing at every step, in both modes; and the modes differ as documented.
#[tokio::test]
async fn envs_are_the_engines_vector_env_in_both_modes() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut envs = EnvsClient::new(server.channel.clone());
    let game = make_game(GAME, PARAMS).unwrap();
    let (na, np) = (game.num_distinct_actions(), game.num_players());
    let num_envs = 4;
    // Games of this size last 9 steps: a cap of 5 truncates them.
    for (wire, mode, cap) in [
        (
            pb::AutoresetMode::Unspecified,
            AutoresetMode::NextStep,
            None,
        ),
        (
            pb::AutoresetMode::NextStep,
            AutoresetMode::NextStep,
            Some(5),
        ),
        (pb::AutoresetMode::SameStep, AutoresetMode::SameStep, None),
        (
            pb::AutoresetMode::SameStep,
            AutoresetMode::SameStep,
            Some(5),
        ),
    ] {
        let (id, first) = create(&mut envs, num_envs as u32, wire, cap).await;
        let cap = cap.map(|steps| steps as usize);
        let mut venv = VectorEnv::new(game.clone(), num_envs, 7, Observer::CurrentPlayer, cap)
            .unwrap()
            .with_autoreset_mode(mode);
        let same_step = mode == AutoresetMode::SameStep;
        let mut local = OwnedBuffers::for_venv(&venv, same_step);
        venv.reset(None, local.view(true)).unwrap();
        let mut remote = Step::from_reply(&first);
        assert_eq!(remote, Step::of(&local), "{mode:?} after creation");
        let mut rng = GameRng::new(1);
        let (mut terminated, mut truncated) = (0, 0);
        for n in 0..60 {
            let actions = remote.random_actions(na, &mut rng);
            let before = remote.current_players.clone();
            remote = Step::from_reply(&step(&mut envs, &id, &actions).await);
            let engine_actions: Vec<u32> = actions.iter().map(|&a| a.max(0) as u32).collect();
            venv.step(&engine_actions, local.view(true)).unwrap();
            assert_eq!(remote, Step::of(&local), "{mode:?} step {n}");
            for (i, &was) in before.iter().enumerate() {
                let ended = remote.terminated[i] || remote.truncated[i];
                terminated += usize::from(remote.terminated[i]);
                truncated += usize::from(remote.truncated[i]);
                let finals = &remote.final_returns[i * np..(i + 1) * np];
                if !ended {
                    assert!(finals.iter().all(|&r| r == 0.0));
                }
                if remote.terminated[i] {
                    assert_eq!(finals, &remote.rewards[i * np..(i + 1) * np]);
                    // Next-step: still over; same-step: the next game started.
                    assert_eq!(remote.current_players[i] == -4, !same_step);
                }
                if was == -4 {
                    // The reset step of next-step mode: no rewards, nothing ended.
                    assert!(!same_step && !ended);
                    assert!(
                        remote.rewards[i * np..(i + 1) * np]
                            .iter()
                            .all(|&r| r == 0.0)
                    );
                }
            }
        }
        let ended = if cap.is_some() { truncated } else { terminated };
        assert!(
            ended > 0 && terminated * truncated == 0,
            "{mode:?} {cap:?}: {terminated} terminated, {truncated} truncated"
        );
        envs.close_envs(pb::CloseEnvsRequest { envs_id: id })
            .await
            .unwrap();
    }
    server.shutdown().await;
}

#[tokio::test]
async fn bad_modes_and_step_limits_are_refused() {
    let server = TestServer::start(Config::in_memory()).await;
    let mut envs = EnvsClient::new(server.channel.clone());
    for (mode, steps) in [(99, None), (1, Some(0))] {
        let err = envs
            .create_envs(pb::CreateEnvsRequest {
                game: GAME.into(),
                num_envs: 2,
                autoreset_mode: mode,
                max_episode_steps: steps,
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    }
    // Nothing was left counted against the server's env limit.
    let (id, _) = create(&mut envs, 2, pb::AutoresetMode::SameStep, None).await;
    envs.close_envs(pb::CloseEnvsRequest { envs_id: id })
        .await
        .unwrap();
    server.shutdown().await;
}

/// Over the wire, a compact batch (OBSERVATION_ENCODING_COMPACT) and a float32 batch of every
/// game, stepped with the same random legal actions in same-step mode with truncation, report
/// the same thing: the packed observations, final observations and masks unpack (with the
/// layout CreateEnvs returns) to exactly the float32 and bool tensors, and the float32 fields
/// are unset.
#[tokio::test]
async fn compact_batches_unpack_to_the_float32_batches() {
    use checkraise_core::compact::{CompactLayout, unpack_mask};
    let server = TestServer::start(Config::in_memory()).await;
    let mut envs = EnvsClient::new(server.channel.clone());
    for entry in checkraise_core::registry::entries() {
        let name = entry.info.name;
        let game = make_game::<&str, &str>(name, []).unwrap();
        let all_seats = name == "prediction_chess";
        let (num_envs, np, na) = (3usize, game.num_players(), game.num_distinct_actions());
        let rows = num_envs * if all_seats { np } else { 1 };
        let mut made = Vec::new();
        for encoding in [
            pb::ObservationEncoding::Float32,
            pb::ObservationEncoding::Compact,
        ] {
            let reply = envs
                .create_envs(pb::CreateEnvsRequest {
                    game: name.into(),
                    num_envs: num_envs as u32,
                    seed: 3,
                    all_seats,
                    autoreset_mode: pb::AutoresetMode::SameStep as i32,
                    max_episode_steps: Some(30),
                    observation_encoding: encoding as i32,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            made.push(reply);
        }
        let layout = CompactLayout::for_game(game.as_ref());
        let wire = made[1].compact_layout.clone().unwrap();
        assert_eq!(wire.row_bytes as usize, layout.row_bytes());
        assert_eq!(wire.scalar_indices, layout.scalar_indices());
        assert_eq!(wire.bit_bytes as usize, layout.bit_bytes());
        let (rb, mb) = (layout.row_bytes(), wire.mask_bytes as usize);
        let size = game.observation_size();
        let (mut float, mut compact) = (
            made[0].batch.clone().unwrap(),
            made[1].batch.clone().unwrap(),
        );
        let mut rng = GameRng::new(1);
        for step in 0..80 {
            assert!(compact.observations.is_none() && compact.action_masks.is_none());
            let packed = compact.packed_observations.as_ref().unwrap();
            assert_eq!(packed.dtype, pb::DataType::Uint8 as i32);
            let lead: Vec<u32> = if all_seats {
                vec![num_envs as u32, np as u32]
            } else {
                vec![num_envs as u32]
            };
            assert_eq!(packed.shape, [&lead[..], &[rb as u32]].concat());
            let finals = compact.packed_final_observations.as_ref().unwrap();
            let (obs, fin) = (f32s(&float.observations), f32s(&float.final_observations));
            let masks = bools(&float.action_masks);
            let (mut row, mut mask) = (vec![0f32; size], vec![false; na]);
            let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            for r in 0..rows {
                layout.unpack(&packed.data[r * rb..(r + 1) * rb], &mut row);
                assert_eq!(bits(&row), bits(&obs[r * size..(r + 1) * size]), "{name}");
                layout.unpack(&finals.data[r * rb..(r + 1) * rb], &mut row);
                assert_eq!(bits(&row), bits(&fin[r * size..(r + 1) * size]), "{name}");
                let packed_masks = &compact.packed_action_masks.as_ref().unwrap().data;
                unpack_mask(&packed_masks[r * mb..(r + 1) * mb], &mut mask);
                assert_eq!(mask, &masks[r * na..(r + 1) * na], "{name} step {step}");
            }
            assert_eq!(f32s(&compact.rewards), f32s(&float.rewards));
            assert_eq!(bools(&compact.terminated), bools(&float.terminated));
            assert_eq!(bools(&compact.truncated), bools(&float.truncated));
            assert_eq!(i32s(&compact.current_players), i32s(&float.current_players));
            assert_eq!(f32s(&compact.final_returns), f32s(&float.final_returns));
            let actions: Vec<i32> = masks
                .chunks_exact(na)
                .map(|row| {
                    let legal: Vec<u32> = (0..na as u32).filter(|&a| row[a as usize]).collect();
                    if legal.is_empty() {
                        -1
                    } else {
                        rng.choose(&legal) as i32
                    }
                })
                .collect();
            let mut next = Vec::new();
            for made in &made {
                next.push(
                    envs.step(pb::StepRequest {
                        envs_id: made.envs_id.clone(),
                        actions: Some(i32_tensor(lead.clone(), &actions)),
                    })
                    .await
                    .unwrap()
                    .into_inner(),
                );
            }
            compact = next.pop().unwrap();
            float = next.pop().unwrap();
        }
    }
}
