//! Random play with legal masks, one thread: at each decision node the legal-action mask is
//! filled, a uniformly random legal action is drawn from it and applied; chance nodes are
//! sampled with the seeded RNG; a finished game starts again. Throughput counts decision
//! steps (a joint action at a simultaneous node is one step).

use std::hint::black_box;
use std::time::{Duration, Instant};

use checkraise_core::env::GameRng;
use checkraise_core::game::{Player, State};
use checkraise_core::make_game_from_string;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Specs benchmarked here; other games have their own bench files.
const SPECS: &[&str] = &["pokeros", "pokeros(players=4)", "pokeros(wildcards=2)"];

fn random_step(
    game: &dyn checkraise_core::Game,
    state: &mut Box<dyn State>,
    rng: &mut GameRng,
    mask: &mut [bool],
    joint: &mut Vec<u32>,
) {
    loop {
        match state.current_player() {
            Player::Chance => {
                let a = state.sample_chance_outcome(rng);
                state.apply_action(a).unwrap();
            }
            Player::Terminal => *state = game.new_initial_state(),
            _ => break,
        }
    }
    let pick = |state: &dyn State, seat: usize, mask: &mut [bool], rng: &mut GameRng| {
        state.action_mask(Player::Seat(seat), mask);
        checkraise_core::env::choose_in_mask(mask, rng).expect("a legal action") as u32
    };
    match state.current_player() {
        Player::Seat(s) => {
            let a = pick(state.as_ref(), s, mask, rng);
            state.apply_action(a).unwrap();
        }
        Player::Simultaneous => {
            joint.clear();
            for s in 0..game.num_players() {
                joint.push(pick(state.as_ref(), s, mask, rng));
            }
            state.apply_actions(joint).unwrap();
        }
        _ => unreachable!(),
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_play");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(4));
    for spec in SPECS {
        let game = make_game_from_string(spec).unwrap();
        group.bench_function(*spec, |b| {
            let mut rng = GameRng::new(1);
            let mut state = game.new_initial_state();
            let mut mask = vec![false; game.num_distinct_actions()];
            let mut joint = Vec::new();
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    random_step(game.as_ref(), &mut state, &mut rng, &mut mask, &mut joint);
                }
                black_box(&state);
                start.elapsed()
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
