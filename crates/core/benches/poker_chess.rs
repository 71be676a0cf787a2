//! Random play of Poker Chess with legal masks on one thread: at decision nodes fill the
//! mask with `legal_action_mask`, pick a uniformly random set entry, apply; at chance nodes
//! `sample_chance_outcome`; reset at the end. Throughput counts decision steps.

use std::hint::black_box;

use checkraise_core::game::Player;
use checkraise_core::{GameRng, make_game};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Decision steps per measured iteration.
const STEPS: u64 = 10_000;

/// A uniformly random set entry of a non-empty mask, in one vectorizable pass: count the
/// set entries of each 64-entry block (skipping empty blocks), draw k, walk to the k-th.
fn pick(mask: &[bool], rng: &mut GameRng) -> u32 {
    // SAFETY: `bool` is one byte holding 0 or 1, so a `[bool]` reads as a `[u8]`.
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(mask.as_ptr().cast(), mask.len()) };
    let mut counts = [(0usize, 0u32); 128];
    let mut used = 0;
    let mut total = 0u32;
    for (i, block) in bytes.chunks(64).enumerate() {
        if block.iter().fold(0u8, |a, &b| a | b) != 0 {
            let n: u32 = block.iter().map(|&b| b as u32).sum();
            counts[used] = (i, n);
            used += 1;
            total += n;
        }
    }
    let mut k = rng.below(total as u64) as u32;
    for &(i, n) in &counts[..used] {
        if k < n {
            let block = &bytes[i * 64..(i * 64 + 64).min(bytes.len())];
            let j = block
                .iter()
                .enumerate()
                .filter(|(_, b)| **b != 0)
                .nth(k as usize)
                .expect("the k-th set entry is in this block")
                .0;
            return (i * 64 + j) as u32;
        }
        k -= n;
    }
    unreachable!("k is below the number of set entries")
}

fn random_play(c: &mut Criterion) {
    let game = make_game("poker_chess", Vec::<(String, String)>::new()).unwrap();
    let num_actions = game.num_distinct_actions();
    let mut group = c.benchmark_group("poker_chess");
    group.throughput(Throughput::Elements(STEPS));
    group.bench_function("random_play_with_masks", |b| {
        let mut rng = GameRng::new(42);
        let mut mask = vec![false; num_actions];
        let initial = game.new_initial_state();
        let mut state = initial.clone();
        b.iter(|| {
            let mut steps = 0;
            while steps < STEPS {
                match state.current_player() {
                    Player::Terminal => state = initial.clone(),
                    Player::Chance => {
                        let a = state.sample_chance_outcome(&mut rng);
                        state.apply_action(a).unwrap();
                    }
                    player => {
                        state.legal_action_mask(player, &mut mask);
                        let a = pick(&mask, &mut rng);
                        state.apply_action(a).unwrap();
                        steps += 1;
                    }
                }
            }
            black_box(&state);
        });
    });
    group.finish();
}

criterion_group!(benches, random_play);
criterion_main!(benches);
