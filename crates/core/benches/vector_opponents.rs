//! Learner steps per second of a `VectorEnv` of 1,024 envs with the engine playing the
//! opponents (`VectorEnv::with_opponents`), against `heuristic` and `random` opponents, the
//! learner's seat drawn per game, in every game. Each iteration is one batched step (the
//! learner's action in every env, then every opponent move and chance event until each env's
//! learner decides again); throughput counts learner steps. The learner's actions are drawn
//! with `sample_actions`, as a random learner would play. Stepping runs on rayon's threads.

use std::hint::black_box;
use std::time::Duration;

use checkraise_core::make_game_from_string;
use checkraise_core::registry::entries;
use checkraise_core::vector::{
    AutoresetMode, LearnerSeat, Observer, Opponent, Opponents, OwnedBuffers, VectorEnv,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const ENVS: usize = 1024;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("vector_opponents");
    group.throughput(Throughput::Elements(ENVS as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for e in entries() {
        let name = e.info.name;
        let game = make_game_from_string(name).unwrap();
        for spec in ["heuristic", "random"] {
            let opponents = Opponents::new(LearnerSeat::Drawn).with(Opponent::spec(spec), 1.0);
            let mut venv = VectorEnv::new(
                game.clone(),
                ENVS,
                1,
                Observer::default_for(game.as_ref()),
                None,
            )
            .unwrap()
            .with_autoreset_mode(AutoresetMode::SameStep)
            .with_opponents(opponents)
            .unwrap();
            let mut out = OwnedBuffers::for_venv(&venv, false);
            venv.reset(None, out.view(false)).unwrap();
            let mut actions = vec![0; ENVS];
            group.bench_function(format!("{name}/{spec}"), |b| {
                b.iter(|| {
                    venv.sample_actions(&mut actions).unwrap();
                    venv.step(&actions, out.view(true)).unwrap();
                    black_box(&out.rewards);
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
