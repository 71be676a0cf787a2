//! IS-MCTS iterations per second, one thread, for every game and both rollout policies, at
//! each game's first decision point (seat 0 searching, 1000 iterations a search). Throughput
//! counts iterations. `benchmarks/ismcts_openspiel.py` times OpenSpiel's Python IS-MCTS on
//! the same positions for the comparison in docs/benchmarks.md.

use std::hint::black_box;
use std::time::Duration;

use checkraise_core::bots::{BotSpec, IsmctsBot};
use checkraise_core::env::{GameRng, advance_to_choice};
use checkraise_core::game::Player;
use checkraise_core::make_game_from_string;
use checkraise_core::registry::entries;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const ITERATIONS: u32 = 1000;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("ismcts");
    group.throughput(Throughput::Elements(ITERATIONS as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for e in entries() {
        let name = e.info.name;
        let game = make_game_from_string(name).unwrap();
        // The first decision with a choice (forced moves are not searched).
        let mut state = game.new_initial_state();
        let mut rng = GameRng::new(1);
        advance_to_choice(state.as_mut(), &mut rng);
        let seat = match state.current_player() {
            Player::Seat(s) => s,
            _ => 0,
        };
        for rollout in ["random", "heuristic"] {
            let spec = format!("ismcts(iterations={ITERATIONS},rollout={rollout},seed=1)");
            let BotSpec::Ismcts(config) = BotSpec::parse::<&str, &str>(&spec, []).unwrap() else {
                unreachable!()
            };
            let bot = IsmctsBot::new(config);
            let probe = bot.search(state.as_ref(), seat, &mut GameRng::new(0));
            assert_eq!(probe.iterations, ITERATIONS, "{name}: a searched position");
            group.bench_function(format!("{name}/{rollout}"), |b| {
                b.iter(|| black_box(bot.search(state.as_ref(), seat, &mut GameRng::new(0))))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
