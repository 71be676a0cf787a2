//! A bot that plays the largest `now - a × reply + b × follow_up` of Pokeros's lookahead terms
//! (`games::pokeros::lookahead`) against the greedy heuristic, for each weight pair given:
//! duplicate deals, both seatings, the mean rank reward with a 95% interval over deals. This
//! is how the `observation=lookahead` block's weights (a = 1, b = 1/2) were chosen:
//! `cargo run --release -p checkraise-core --example pokeros_lookahead -- 300 0.5,0 1,0 1,0.5 1,0.75 1,1`.

use checkraise_core::env::GameRng;
use checkraise_core::game::{Action, Player};
use checkraise_core::games::pokeros::PokerosState;
use checkraise_core::games::pokeros::bot::greedy_action;
use checkraise_core::games::pokeros::lookahead::for_each_terms;
use checkraise_core::make_game_from_string;
use checkraise_core::rules::rules_of;

fn weighted(state: &PokerosState, reply: f64, follow_up: f64) -> Action {
    let mut best: Option<(f64, Action)> = None;
    for_each_terms(state, |action, t| {
        let v = t.now - reply * t.reply + follow_up * t.follow_up;
        if best.is_none_or(|(b, _)| v > b) {
            best = Some((v, action));
        }
    });
    best.expect("the seat to move has a legal placement").1
}

fn main() {
    let mut args = std::env::args().skip(1);
    let deals: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let game = make_game_from_string("pokeros").expect("pokeros");
    for pair in args {
        let (a, b) = pair
            .split_once(',')
            .and_then(|(a, b)| Some((a.parse::<f64>().ok()?, b.parse::<f64>().ok()?)))
            .unwrap_or_else(|| panic!("{pair}: expected REPLY,FOLLOW_UP weights"));
        let mut per_deal = Vec::new();
        let mut wins = 0;
        for deal in 0..deals {
            let mut sum = 0.0;
            for seat in 0..2 {
                let mut rng = GameRng::new(1000 + deal);
                let mut state = game.new_initial_state();
                while let Some(p) = match state.current_player() {
                    Player::Terminal => None,
                    p => Some(p),
                } {
                    let action = match p {
                        Player::Seat(s) => {
                            let pokeros: &PokerosState = rules_of(state.as_ref()).expect("pokeros");
                            if s == seat {
                                weighted(pokeros, a, b)
                            } else {
                                greedy_action(pokeros)
                            }
                        }
                        _ => state.sample_chance_outcome(&mut rng),
                    };
                    state.apply_action(action).expect("a legal action");
                }
                let r = state.returns()[seat];
                wins += usize::from(r > 0.0);
                sum += r;
            }
            per_deal.push(sum / 2.0);
        }
        let n = per_deal.len() as f64;
        let mean = per_deal.iter().sum::<f64>() / n;
        let var = per_deal.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let half = 1.96 * (var / n).sqrt();
        println!(
            "reply {a}, follow-up {b}: {mean:+.3} [{:+.3}, {:+.3}], wins {:.1}% of {} games",
            mean - half,
            mean + half,
            100.0 * wins as f64 / (2.0 * n),
            2 * deals
        );
    }
}
