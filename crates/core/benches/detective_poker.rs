//! Detective Poker random play with legal masks, one thread: at decision nodes fill the mask
//! with `action_mask`, pick a uniformly random set entry and apply it; at chance nodes
//! `sample_chance_outcome`; count decision steps; start a new game at the end.
//!
//! Run: `cargo bench -p checkraise-core --bench detective_poker`.
//!
//! Criterion measures wall-clock time, which on a machine shared with other jobs understates
//! one thread's speed; before the criterion runs the bench also prints the same loop's rate per
//! second of this thread's CPU time (Linux `/proc/thread-self/stat`, 10 ms ticks).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use checkraise_core::game::{Game, Player, State};
use checkraise_core::{GameRng, make_game_from_string};
use criterion::{Criterion, Throughput, criterion_group};

/// Decision steps per measured iteration.
const STEPS: u64 = 100_000;
/// Decision steps of the CPU-time run.
const CPU_STEPS: u64 = 10_000_000;
/// The variants measured.
const SPECS: [&str; 2] = ["detective_poker", "detective_poker(players=4,expert=true)"];

/// Plays `steps` random decision steps with legal masks, starting new games as needed.
fn play(
    game: &Arc<dyn Game>,
    state: &mut Box<dyn State>,
    rng: &mut GameRng,
    mask: &mut [bool],
    steps: u64,
) {
    let mut done = 0;
    while done < steps {
        match state.current_player() {
            Player::Terminal => *state = game.new_initial_state(),
            Player::Chance => {
                let a = state.sample_chance_outcome(rng);
                state.apply_action(a).unwrap();
            }
            player => {
                state.action_mask(player, mask);
                let count = mask.iter().filter(|&&m| m).count();
                let k = rng.below(count as u64) as usize;
                let a = mask
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| **m)
                    .nth(k)
                    .unwrap()
                    .0;
                state.apply_action(a as u32).unwrap();
                done += 1;
            }
        }
    }
}

/// This thread's CPU time in seconds, where the platform reports it.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn cpu_time_report() {
    for spec in SPECS {
        let game = make_game_from_string(spec).unwrap();
        let mut rng = GameRng::new(1);
        let mut state = game.new_initial_state();
        let mut mask = vec![false; game.num_distinct_actions()];
        let (cpu0, wall0) = (thread_cpu_seconds(), Instant::now());
        play(&game, &mut state, &mut rng, &mut mask, CPU_STEPS);
        let wall = wall0.elapsed().as_secs_f64();
        match (cpu0, thread_cpu_seconds()) {
            (Some(a), Some(b)) if b > a => println!(
                "{spec}: {CPU_STEPS} steps, {:.2} M steps per CPU second ({:.2} M per wall second)",
                CPU_STEPS as f64 / (b - a) / 1e6,
                CPU_STEPS as f64 / wall / 1e6
            ),
            _ => println!(
                "{spec}: {:.2} M steps per wall second",
                CPU_STEPS as f64 / wall / 1e6
            ),
        }
    }
}

fn random_play(c: &mut Criterion) {
    let mut group = c.benchmark_group("detective_poker");
    group.throughput(Throughput::Elements(STEPS));
    for spec in SPECS {
        let game = make_game_from_string(spec).unwrap();
        group.bench_function(format!("random_play_masks/{spec}"), |b| {
            let mut rng = GameRng::new(1);
            let mut state = game.new_initial_state();
            let mut mask = vec![false; game.num_distinct_actions()];
            b.iter(|| {
                play(&game, &mut state, &mut rng, &mut mask, STEPS);
                black_box(state.history().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, random_play);

fn main() {
    cpu_time_report();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
