//! Hold'em Poker Chess random play with legal masks on one thread: at decision nodes fill the
//! mask with `action_mask`, pick a uniformly random set entry and apply it; at chance
//! nodes `sample_chance_outcome`; reset at the end. Throughput counts decision steps.

use std::hint::black_box;

use checkraise_core::game::{Game, Player, State};
use checkraise_core::{GameRng, make_game_from_string};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Decision steps per iteration.
const STEPS: u64 = 10_000;

fn run(
    game: &dyn Game,
    state: &mut Box<dyn State>,
    rng: &mut GameRng,
    mask: &mut [bool],
    picks: &mut Vec<u32>,
) {
    let mut steps = 0;
    while steps < STEPS {
        match state.current_player() {
            Player::Terminal => *state = game.new_initial_state(),
            Player::Chance => {
                let a = state.sample_chance_outcome(rng);
                state.apply_action(a).unwrap();
            }
            player => {
                state.action_mask(player, mask);
                // A uniform set entry: rejection sampling over the mask, falling back to a
                // scan when the mask is sparse.
                let n = mask.len() as u64;
                let mut a = None;
                for _ in 0..16 {
                    let i = rng.below(n) as usize;
                    if mask[i] {
                        a = Some(i as u32);
                        break;
                    }
                }
                let a = a.unwrap_or_else(|| {
                    picks.clear();
                    picks.extend((0..mask.len() as u32).filter(|&i| mask[i as usize]));
                    picks[rng.below(picks.len() as u64) as usize]
                });
                state.apply_action(a).unwrap();
                steps += 1;
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("holdem_chess_random_play");
    group.throughput(Throughput::Elements(STEPS));
    for spec in ["holdem_chess", "holdem_chess(players=6)"] {
        let game = make_game_from_string(spec).unwrap();
        let mut state = game.new_initial_state();
        let mut rng = GameRng::new(1);
        let mut mask = vec![false; game.num_distinct_actions()];
        let mut picks = Vec::with_capacity(mask.len());
        group.bench_function(spec, |b| {
            b.iter(|| {
                run(game.as_ref(), &mut state, &mut rng, &mut mask, &mut picks);
                black_box(state.history().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
