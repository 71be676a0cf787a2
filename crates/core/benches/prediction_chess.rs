//! Random play with legal masks on one thread: at each simultaneous node both seats fill the
//! mask with `action_mask` and pick a uniformly random set entry; the joint action is
//! applied (one step); a finished game is replaced by a new one.

use std::hint::black_box;

use checkraise_core::env::GameRng;
use checkraise_core::game::Player;
use checkraise_core::registry::make_game;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const STEPS: u64 = 10_000;

/// A uniformly random set entry of `mask`: count set entries in 64-wide blocks (byte sums,
/// which vectorize), then find the chosen one inside its block.
fn pick(mask: &[bool], rng: &mut GameRng) -> u32 {
    let mut blocks = [0u8; 64];
    let mut count = 0usize;
    let full = mask.chunks_exact(64);
    let tail = full.remainder();
    let mut i = 0;
    for block in full {
        let block: &[bool; 64] = block.try_into().expect("64 entries");
        let n = block.iter().map(|&b| b as u8).sum::<u8>();
        blocks[i] = n;
        count += n as usize;
        i += 1;
    }
    let n = tail.iter().map(|&b| b as u8).sum::<u8>();
    blocks[i] = n;
    count += n as usize;
    let mut k = rng.below(count as u64) as usize;
    for (i, &n) in blocks.iter().enumerate() {
        let n = n as usize;
        if k < n {
            let mut bits = 0u64;
            for (j, &b) in mask[i * 64..].iter().take(64).enumerate() {
                bits |= (b as u64) << j;
            }
            for _ in 0..k {
                bits &= bits - 1;
            }
            return (i * 64) as u32 + bits.trailing_zeros();
        }
        k -= n;
    }
    unreachable!("count covers the mask")
}

fn random_play(c: &mut Criterion) {
    let game = make_game::<&str, &str>("prediction_chess", []).unwrap();
    let mut mask = vec![false; game.num_distinct_actions()];
    let mut rng = GameRng::new(1);
    let mut state = game.new_initial_state();
    let mut total_steps = 0u64;
    let mut group = c.benchmark_group("prediction_chess");
    group.throughput(Throughput::Elements(STEPS));
    group.bench_function("random_play_steps", |b| {
        b.iter(|| {
            for _ in 0..STEPS {
                if state.is_terminal() {
                    state = game.new_initial_state();
                }
                let mut joint = [0u32; 2];
                for (seat, slot) in joint.iter_mut().enumerate() {
                    state.action_mask(Player::Seat(seat), &mut mask);
                    *slot = pick(&mask, &mut rng);
                }
                state.apply_actions(&joint).unwrap();
            }
            total_steps += STEPS;
            black_box(state.history().len())
        })
    });
    group.finish();
    // For CPU-time figures on a shared machine: divide by the process's task-clock.
    eprintln!("prediction_chess: {total_steps} steps played in all");
}

criterion_group!(benches, random_play);
criterion_main!(benches);
