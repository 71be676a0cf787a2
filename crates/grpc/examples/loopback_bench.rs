//! Loopback figures for docs/benchmarks.md: one seat's Act round trip (the reply is the seat's
//! view) and batched env stepping, against a server started in-process on a free port, or the
//! one at `CHECKRAISE_ADDRESS` (e.g. `127.0.0.1:50051`, a `checkraise-server` in its own
//! process).
//!
//! `cargo run --release -p checkraise-grpc --example loopback_bench [-- ROUNDS ENVS STEPS]`
//! (`ACT_GAME=detective_poker` times another game's Act; `ACT_LEAN=1` asks for the lean reply
//! an agent needs: the observation tensor and the legal action ids, without the view JSON,
//! the observation text and the actions' texts; `AUTORESET_MODE=same_step` steps the envs in
//! same-step auto-reset mode instead of the default next-step; `COMPACT=1` asks for compact
//! observations and packed masks, `OBSERVATION_ENCODING_COMPACT`)

use std::collections::HashMap;
use std::time::{Duration, Instant};

use checkraise_grpc::config::Config;
use checkraise_grpc::pb;
use checkraise_grpc::pb::envs_client::EnvsClient;
use checkraise_grpc::pb::matches_client::MatchesClient;
use checkraise_grpc::tensor::i32_tensor;
use tokio::net::TcpListener;
use tonic::Request;
use tonic::transport::Channel;

fn with_token<T>(token: &str, message: T) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("x-seat-token", token.parse().expect("tokens are hex"));
    request
}

fn arg(n: usize, default: usize) -> usize {
    std::env::args()
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (rounds, env_count, env_steps) = (arg(1, 20), arg(2, 256), arg(3, 200));
    // CHECKRAISE_ADDRESS=host:port measures a server running in its own process (as
    // deployed); otherwise one is started in this process on a free port.
    let address = match std::env::var("CHECKRAISE_ADDRESS") {
        Ok(address) => address,
        Err(_) => {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let address = listener.local_addr()?;
            tokio::spawn(checkraise_grpc::server::serve(
                Config::in_memory(),
                listener,
                std::future::pending(),
            ));
            address.to_string()
        }
    };
    let channel = Channel::from_shared(format!("http://{address}"))?
        .connect()
        .await?;

    // ACT_GAME picks the game of the Act figure (default pokeros): seat 0 is the client,
    // every other seat the random bot.
    let act_game = std::env::var("ACT_GAME").unwrap_or_else(|_| "pokeros".into());
    let players = checkraise_core::make_game::<&str, &str>(&act_game, [])
        .map_err(|e| e.to_string())?
        .num_players();
    let lean = std::env::var("ACT_LEAN").is_ok_and(|v| v == "1");
    let view_options = lean.then_some(pb::ViewOptions {
        omit_view_json: true,
        omit_observation: false,
        omit_observation_text: true,
        omit_action_texts: true,
        ..Default::default()
    });
    let act_seats: Vec<String> = (0..players)
        .map(|s| if s == 0 { "human" } else { "random" }.to_string())
        .collect();
    let mut latencies = Vec::new();
    let mut matches = MatchesClient::new(channel.clone());
    for seed in 0..rounds as u64 {
        let id = matches
            .create_match(pb::CreateMatchRequest {
                game: act_game.clone(),
                parameters: HashMap::new(),
                seed: Some(seed),
                seats: act_seats.clone(),
            })
            .await?
            .into_inner()
            .match_id;
        let token = matches
            .join_seat(pb::JoinSeatRequest {
                match_id: id.clone(),
                seat: Some(0),
                ..Default::default()
            })
            .await?
            .into_inner()
            .seat_token;
        let mut view = matches
            .get_view(with_token(
                &token,
                pb::GetViewRequest {
                    match_id: id.clone(),
                    seat: 0,
                    view_options: None,
                },
            ))
            .await?
            .into_inner();
        while !view.is_terminal {
            let action = view.legal_actions[0].id;
            let started = Instant::now();
            view = matches
                .act(with_token(
                    &token,
                    pb::ActRequest {
                        match_id: id.clone(),
                        seat: 0,
                        action: Some(pb::act_request::Action::ActionId(action)),
                        view_options,
                        ..Default::default()
                    },
                ))
                .await?
                .into_inner();
            latencies.push(started.elapsed());
        }
    }
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    println!(
        "{act_game} Act (+ {} view reply, + random bots' replies): n={} p50={:?} p90={:?} p99={:?}",
        if lean { "lean" } else { "full" },
        latencies.len(),
        pct(0.5),
        pct(0.9),
        pct(0.99)
    );

    let mut envs = EnvsClient::new(channel)
        .max_decoding_message_size(usize::MAX)
        .max_encoding_message_size(usize::MAX);
    // Every registered game with its defaults, and Pokeros on a small board (its default
    // 15×15 observation is 4,177 floats, 4.3 MB per reply of 256 envs).
    let mut configs: Vec<(String, HashMap<String, String>)> = checkraise_core::registry::entries()
        .iter()
        .map(|e| (e.info.name.to_string(), HashMap::new()))
        .collect();
    configs.push((
        "pokeros".into(),
        HashMap::from([("board_size".into(), "5".into())]),
    ));
    // AUTORESET_MODE=same_step times same-step auto-reset (the default is next-step).
    let autoreset_mode = match std::env::var("AUTORESET_MODE").as_deref() {
        Ok("same_step") => pb::AutoresetMode::SameStep,
        _ => pb::AutoresetMode::NextStep,
    };
    // COMPACT=1: compact observation rows and packed masks (the default is float32).
    let compact = std::env::var("COMPACT").is_ok_and(|v| v == "1");
    let observation_encoding = if compact {
        pb::ObservationEncoding::Compact
    } else {
        pb::ObservationEncoding::Float32
    };
    for (game, parameters) in configs {
        let simultaneous = game == "prediction_chess";
        let created = envs
            .create_envs(pb::CreateEnvsRequest {
                game: game.clone(),
                parameters: parameters.clone(),
                num_envs: env_count as u32,
                seed: 0,
                all_seats: simultaneous,
                autoreset_mode: autoreset_mode as i32,
                max_episode_steps: None,
                observation_encoding: observation_encoding as i32,
                ..Default::default()
            })
            .await?
            .into_inner();
        let sizes = created.sizes.as_ref().unwrap();
        let (actions_per_env, players) = (
            sizes.num_distinct_actions as usize,
            sizes.num_players as usize,
        );
        let mask_bytes = created.compact_layout.as_ref().unwrap().mask_bytes as usize;
        let mut batch = created.batch.unwrap();
        let mut busy = Duration::ZERO;
        for _ in 0..env_steps {
            // The first legal action of each mask row (-1 for a seat with none).
            let actions: Vec<i32> = if compact {
                let masks = &batch.packed_action_masks.as_ref().unwrap().data;
                masks
                    .chunks_exact(mask_bytes)
                    .map(|row| {
                        row.iter()
                            .position(|&b| b != 0)
                            .map_or(-1, |i| (8 * i) as i32 + row[i].trailing_zeros() as i32)
                    })
                    .collect()
            } else {
                let masks = &batch.action_masks.as_ref().unwrap().data;
                masks
                    .chunks_exact(actions_per_env)
                    .map(|row| row.iter().position(|&m| m == 1).map_or(-1, |a| a as i32))
                    .collect()
            };
            let shape = if simultaneous {
                vec![env_count as u32, players as u32]
            } else {
                vec![env_count as u32]
            };
            let started = Instant::now();
            batch = envs
                .step(pb::StepRequest {
                    envs_id: created.envs_id.clone(),
                    actions: Some(i32_tensor(shape, &actions)),
                })
                .await?
                .into_inner();
            busy += started.elapsed();
        }
        let reply_bytes = [
            &batch.observations,
            &batch.action_masks,
            &batch.packed_observations,
            &batch.packed_action_masks,
        ]
        .iter()
        .map(|t| t.as_ref().map_or(0, |t| t.data.len()))
        .sum::<usize>();
        let mut params: Vec<String> = parameters.iter().map(|(k, v)| format!("{k}={v}")).collect();
        params.sort();
        println!(
            "{game}({}): {env_count} envs x {env_steps} steps: {:.0} env-steps/s \
             ({:?} per step, {} observation + mask bytes per reply)",
            params.join(","),
            (env_count * env_steps) as f64 / busy.as_secs_f64(),
            busy / env_steps as u32,
            reply_bytes
        );
    }
    Ok(())
}
