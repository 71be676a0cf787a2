//! Steps a `VectorEnv` of every game (or the named ones) with random legal actions
//! (`sample_actions`) and prints
//! env-steps per second, timing `step()` alone (observations and masks written every step):
//!
//! `cargo run --release -p checkraise-core --example vector_play -- [num_envs] [seconds] [game,...]`
//!
//! Games are game strings (`detective_poker(observation=odds)`), separated by commas outside
//! their parentheses.
//!
//! `RAYON_NUM_THREADS` sets the threads; `RETAINED=0` rewrites every mask and observation
//! entry each step; `ALTERNATE=1` switches between the two every 20 steps and prints both
//! rates. The main thread joins rayon's pool as the Python module's importing thread does
//! (`vector::join_global_pool`); `JOIN=0` leaves it outside, waiting for the pool's threads.
//! `COMPACT=1` writes compact observation rows and packed masks
//! (`ObservationEncoding::Compact`) instead of float32 rows and `bool` masks. Like the Python
//! module, it allocates with mimalloc.

use std::time::{Duration, Instant};

use checkraise_core::compact::{ObservationEncoding, packed_mask_bytes};
use checkraise_core::game::Dynamics;
use checkraise_core::registry::{self, make_game_from_string};
use checkraise_core::vector::{Observer, StepBuffers, VectorEnv};

/// The Python module's allocator (crates/py), so these rates match what Python gets.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    if std::env::var("JOIN").map_or(true, |v| v != "0") {
        checkraise_core::vector::join_global_pool();
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(1024, |a| a.parse().expect("num_envs"));
    let secs: f64 = args.get(1).map_or(2.0, |a| a.parse().expect("seconds"));
    let names: Vec<String> = match args.get(2) {
        Some(list) => split_games(list),
        None => registry::entries()
            .iter()
            .map(|e| e.info.name.to_string())
            .collect(),
    };
    // RETAINED=0 writes every entry each step (the caller's buffers are not trusted).
    let retained = std::env::var("RETAINED").map_or(true, |v| v != "0");
    let alternate = std::env::var("ALTERNATE").is_ok_and(|v| v == "1");
    let compact = std::env::var("COMPACT").is_ok_and(|v| v == "1");
    for name in names {
        let game = make_game_from_string(&name).expect("a game string");
        let observer = if game.info().dynamics == Dynamics::Simultaneous {
            Observer::AllSeats
        } else {
            Observer::CurrentPlayer
        };
        let encoding = if compact {
            ObservationEncoding::Compact
        } else {
            ObservationEncoding::Float32
        };
        let mut venv = VectorEnv::new(game.clone(), n, 0, observer, None)
            .unwrap()
            .with_observation_encoding(encoding);
        let rows = venv.rows_per_env();
        let na = game.num_distinct_actions();
        let row_bytes = venv.compact_layout().row_bytes();
        let (obs_len, mask_len) = if compact {
            (0, 0)
        } else {
            (game.observation_size(), na)
        };
        let (packed_len, packed_mask_len) = if compact {
            (row_bytes, packed_mask_bytes(na))
        } else {
            (0, 0)
        };
        let mut obs = vec![0f32; n * rows * obs_len];
        let mut masks = vec![false; n * rows * mask_len];
        let mut packed = vec![0u8; n * rows * packed_len];
        let mut packed_masks = vec![0u8; n * rows * packed_mask_len];
        let mut current = vec![0i32; n];
        let mut rewards = vec![0f32; n * game.num_players()];
        let mut term = vec![false; n];
        let mut trunc = vec![false; n];
        let mut finals = vec![0f32; n * game.num_players()];
        macro_rules! bufs {
            ($retained:expr) => {
                StepBuffers {
                    retained: $retained,
                    observations: &mut obs,
                    action_masks: &mut masks,
                    current_players: &mut current,
                    rewards: &mut rewards,
                    terminated: &mut term,
                    truncated: &mut trunc,
                    final_returns: &mut finals,
                    final_observations: None,
                    packed_observations: &mut packed,
                    packed_action_masks: &mut packed_masks,
                    packed_final_observations: None,
                }
            };
        }
        venv.reset(Some(0), bufs!(false)).unwrap();
        let per_env = venv.actions_per_env();
        let mut actions = vec![0u32; n * per_env];
        let (mut alt_time, mut alt_steps) = ([Duration::ZERO; 2], [0usize; 2]);
        let (mut steps, mut in_step) = (0usize, Duration::ZERO);
        let start = Instant::now();
        let mut round = 0u32;
        while start.elapsed().as_secs_f64() < secs {
            round += 1;
            // ALTERNATE=1 switches between full and retained writes every 20 steps.
            let retained = retained && !(alternate && (round / 20) % 2 == 1);
            // (A run of retained writes may follow full ones: full writes also record what
            // they set.)
            venv.sample_actions(&mut actions).unwrap();
            let t = Instant::now();
            venv.step(&actions, bufs!(retained)).unwrap();
            let took = t.elapsed();
            if alternate {
                let k = usize::from(retained);
                alt_time[k] += took;
                alt_steps[k] += n;
            }
            in_step += took;
            steps += n;
        }
        println!(
            "{name:18} envs {n}: {:.3} M env-steps/s in step() ({}: {} floats or {} compact bytes + {} mask entries per row, {} rows)",
            steps as f64 / in_step.as_secs_f64() / 1e6,
            if compact { "compact" } else { "float32" },
            game.observation_size(),
            row_bytes,
            na,
            rows
        );
        if alternate {
            let rate = |k: usize| alt_steps[k] as f64 / alt_time[k].as_secs_f64() / 1e6;
            println!(
                "    full writes {:.3} M/s, retained writes {:.3} M/s",
                rate(0),
                rate(1)
            );
        }
    }
}

/// Game strings separated by commas outside parentheses.
fn split_games(list: &str) -> Vec<String> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(list[start..i].to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(list[start..].to_string());
    out
}
