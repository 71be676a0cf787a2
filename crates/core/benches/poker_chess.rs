//! Random play of Poker Chess with legal masks on one thread: at decision nodes fill the
//! mask with `action_mask`, pick a uniformly random set entry, apply; at chance nodes
//! `sample_chance_outcome`; reset at the end. Throughput counts decision steps.
//!
//! Two measurements of the same loop: wall time (criterion's default) and this thread's CPU
//! time (from `/proc/thread-self/schedstat`, Linux), which stays meaningful when the machine
//! is shared and the thread waits for a core.

use std::hint::black_box;

use checkraise_core::game::Player;
use checkraise_core::{GameRng, make_game};
use criterion::measurement::{Measurement, ValueFormatter};
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

/// Nanoseconds this thread has run on a CPU (0 where the kernel does not say).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// This thread's CPU time, as a criterion measurement.
struct CpuTime;

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// Formats CPU nanoseconds, and elements per CPU second.
struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if ns < 1e3 {
            (1.0, "ns cpu")
        } else if ns < 1e6 {
            (1e-3, "µs cpu")
        } else if ns < 1e9 {
            (1e-6, "ms cpu")
        } else {
            (1e-9, "s cpu")
        };
        for v in values {
            *v *= factor;
        }
        unit
    }
    fn scale_throughputs(
        &self,
        ns: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let elements = match *throughput {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => n,
            Throughput::Bits(n) => n,
        } as f64;
        let per_sec = elements * 1e9 / ns.max(1.0);
        let (factor, unit) = if per_sec < 1e3 {
            (1.0, "elem/cpu-s")
        } else if per_sec < 1e6 {
            (1e-3, "Kelem/cpu-s")
        } else {
            (1e-6, "Melem/cpu-s")
        };
        for v in values {
            *v = elements * 1e9 / v.max(1.0) * factor;
        }
        unit
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn random_play(c: &mut Criterion) {
    random_play_with(c);
}

fn random_play_cpu(c: &mut Criterion<CpuTime>) {
    random_play_with(c);
}

fn random_play_with<M: Measurement>(c: &mut Criterion<M>) {
    let game = make_game("poker_chess", Vec::<(String, String)>::new()).unwrap();
    let num_actions = game.num_distinct_actions();
    let mut group = c.benchmark_group(if std::any::type_name::<M>().ends_with("CpuTime") {
        "poker_chess_cpu_time"
    } else {
        "poker_chess"
    });
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
                        state.action_mask(player, &mut mask);
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
criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = random_play_cpu
}
criterion_main!(benches, cpu_benches);
