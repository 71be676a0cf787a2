//! Best 5 of 7 cards: checkraise's `best_of` next to rs_poker's `Rankable` over the same
//! pre-generated random 7-card hands, throughput in hands per second.

use std::hint::black_box;
use std::time::{Duration, Instant};

use checkraise_core::GameRng;
use checkraise_core::cards::CardSet;
use checkraise_core::poker::eval::best_of;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rs_poker::core::{Card as RsCard, Rankable, Suit as RsSuit, Value as RsValue};

/// Hands per iteration.
const HANDS: usize = 4096;

/// `HANDS` random 7-card hands (uniform without replacement within a hand), fixed seed.
fn random_hands() -> Vec<CardSet> {
    let mut rng = GameRng::new(2026);
    (0..HANDS)
        .map(|_| {
            let mut set = CardSet::EMPTY;
            while set.len() < 7 {
                set.0 |= 1 << rng.below(52);
            }
            set
        })
        .collect()
}

/// The same hands as rs_poker cards.
fn to_rs_poker(hand: CardSet) -> [RsCard; 7] {
    let cards: Vec<RsCard> = hand
        .iter()
        .map(|c| RsCard::new(RsValue::from_u8(c.rank().0), RsSuit::from_u8(c.suit().0)))
        .collect();
    cards.try_into().expect("seven cards")
}

/// `iters` batches timed one by one, reported as `iters` times the fastest.
fn min_batch<T>(iters: u64, mut batch: impl FnMut() -> T) -> Duration {
    let mut fastest = Duration::MAX;
    for _ in 0..iters {
        let start = Instant::now();
        black_box(batch());
        fastest = fastest.min(start.elapsed());
    }
    fastest.mul_f64(iters as f64)
}

fn bench(c: &mut Criterion) {
    let hands = random_hands();
    let rs_hands: Vec<[RsCard; 7]> = hands.iter().map(|&h| to_rs_poker(h)).collect();
    // Both evaluators must agree on the category before their speeds mean anything.
    for (&hand, rs_hand) in hands.iter().zip(&rs_hands) {
        let ours = best_of(hand).category() as u8;
        let theirs = rs_hand[..].rank().category() as u8;
        assert_eq!(ours, theirs, "{hand:?}");
    }
    let ours = || {
        let mut acc = 0u32;
        for &hand in black_box(&hands) {
            acc = acc.wrapping_add(best_of(hand).0);
        }
        acc
    };
    let theirs = || {
        let mut acc = 0u16;
        for hand in black_box(&rs_hands) {
            acc = acc.wrapping_add(hand[..].rank().value_bits());
        }
        acc
    };
    let mut group = c.benchmark_group("best_5_of_7");
    group.throughput(Throughput::Elements(HANDS as u64));
    group.bench_function("checkraise_best_of", |b| b.iter(ours));
    group.bench_function("rs_poker_rank", |b| b.iter(theirs));
    // The same work timed batch by batch, keeping the fastest batch: on a shared machine the
    // mean above includes time the thread was not running.
    group.bench_function("checkraise_best_of_min_batch", |b| {
        b.iter_custom(|iters| min_batch(iters, &ours))
    });
    group.bench_function("rs_poker_rank_min_batch", |b| {
        b.iter_custom(|iters| min_batch(iters, &theirs))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
