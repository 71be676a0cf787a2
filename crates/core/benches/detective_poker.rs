//! Detective Poker random play with legal masks, one thread: at decision nodes fill the mask
//! with `legal_action_mask`, pick a uniformly random set entry and apply it; at chance nodes
//! `sample_chance_outcome`; count decision steps; start a new game at the end.
//!
//! Run: `cargo bench -p checkraise-core --bench detective_poker`.

use std::hint::black_box;

use checkraise_core::game::Player;
use checkraise_core::{GameRng, make_game_from_string};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Decision steps per measured iteration.
const STEPS: u64 = 100_000;

fn random_play(c: &mut Criterion) {
    let mut group = c.benchmark_group("detective_poker");
    group.throughput(Throughput::Elements(STEPS));
    for spec in ["detective_poker", "detective_poker(players=4,expert=true)"] {
        let game = make_game_from_string(spec).unwrap();
        group.bench_function(format!("random_play_masks/{spec}"), |b| {
            let mut rng = GameRng::new(1);
            let mut state = game.new_initial_state();
            let mut mask = vec![false; game.num_distinct_actions()];
            b.iter(|| {
                let mut steps = 0;
                while steps < STEPS {
                    match state.current_player() {
                        Player::Terminal => state = game.new_initial_state(),
                        Player::Chance => {
                            let a = state.sample_chance_outcome(&mut rng);
                            state.apply_action(a).unwrap();
                        }
                        player => {
                            state.legal_action_mask(player, &mut mask);
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
                            steps += 1;
                        }
                    }
                }
                black_box(state.history().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, random_play);
criterion_main!(benches);
