//! Plays random games with legal masks for a fixed number of decision steps; used with
//! `perf stat` to count cycles per step independently of machine load:
//! `cargo run --release -p checkraise-core --example random_play -- pokeros 2000000`.

use checkraise_core::env::GameRng;
use checkraise_core::game::Player;
use checkraise_core::make_game_from_string;

fn main() {
    let mut args = std::env::args().skip(1);
    let spec = args.next().unwrap_or_else(|| "pokeros".to_string());
    let steps: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let game = make_game_from_string(&spec).unwrap_or_else(|e| panic!("{e}"));
    let mut rng = GameRng::new(1);
    let mut state = game.new_initial_state();
    let mut mask = vec![false; game.num_distinct_actions()];
    let mut joint = Vec::new();
    let mut games = 0u64;
    let start = std::time::Instant::now();
    for _ in 0..steps {
        loop {
            match state.current_player() {
                Player::Chance => {
                    let a = state.sample_chance_outcome(&mut rng);
                    state.apply_action(a).unwrap();
                }
                Player::Terminal => {
                    games += 1;
                    state = game.new_initial_state();
                }
                _ => break,
            }
        }
        let mut pick = |seat: usize, state: &dyn checkraise_core::State| {
            state.action_mask(Player::Seat(seat), &mut mask);
            checkraise_core::env::choose_in_mask(&mask, &mut rng).expect("a legal action") as u32
        };
        match state.current_player() {
            Player::Seat(s) => {
                let a = pick(s, state.as_ref());
                state.apply_action(a).unwrap();
            }
            _ => {
                joint.clear();
                for s in 0..game.num_players() {
                    joint.push(pick(s, state.as_ref()));
                }
                state.apply_actions(&joint).unwrap();
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{spec}: {steps} steps, {games} games, {:.0} steps/s (wall clock)",
        steps as f64 / secs
    );
}
