//! A diagnostic for docs/strength.md: does IS-MCTS fall short of a game's heuristic because of
//! its budget or because of what it assumes about hidden cards? The same search is run twice
//! against the heuristic, with the same budget and seeds: once as the bot plays (each
//! iteration deals the unseen cards anew, uniformly), and once with open hands (every
//! iteration searches the true state, which no real bot may see). If open hands win clearly
//! where the honest search only ties, the budget is not what limits it: its picture of the
//! hidden cards is.
//!
//! `open_hand_search GAME ITERATIONS DEALS` (e.g. `detective_poker 1000 12`); seatings as in
//! the arena (the searcher and the heuristic alternate around the table).

use std::fmt;

use checkraise_core::arena::seatings;
use checkraise_core::bots::{Bot, BotSpec, HeuristicBot, IsmctsBot};
use checkraise_core::game::{Action, GameError, ObservationEntries, Player, PlayerAction, State};
use checkraise_core::{GameRng, make_game_from_string};

/// A state whose "resample" is the true state: a search through it sees every card.
#[derive(Debug)]
struct Open(Box<dyn State>);

impl fmt::Display for Open {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl State for Open {
    fn num_players(&self) -> usize {
        self.0.num_players()
    }
    fn current_player(&self) -> Player {
        self.0.current_player()
    }
    fn legal_actions_into(&self, player: Player, out: &mut Vec<Action>) {
        self.0.legal_actions_into(player, out)
    }
    fn chance_outcomes(&self) -> Vec<(Action, f64)> {
        self.0.chance_outcomes()
    }
    fn apply_action(&mut self, action: Action) -> Result<(), GameError> {
        self.0.apply_action(action)
    }
    fn apply_actions(&mut self, actions: &[Action]) -> Result<(), GameError> {
        self.0.apply_actions(actions)
    }
    fn returns(&self) -> Vec<f64> {
        self.0.returns()
    }
    fn rewards(&self) -> Vec<f64> {
        self.0.rewards()
    }
    fn history(&self) -> &[PlayerAction] {
        self.0.history()
    }
    fn action_to_string(&self, player: Player, action: Action) -> String {
        self.0.action_to_string(player, action)
    }
    fn string_to_action(&self, player: Player, text: &str) -> Result<Action, GameError> {
        self.0.string_to_action(player, text)
    }
    fn observation_tensor(&self, player: usize, out: &mut [f32]) {
        self.0.observation_tensor(player, out)
    }
    fn observation_entries(&self, player: usize, out: &mut ObservationEntries) -> bool {
        self.0.observation_entries(player, out)
    }
    fn information_state_tensor(&self, player: usize, out: &mut [f32]) {
        self.0.information_state_tensor(player, out)
    }
    fn observation_string(&self, player: usize) -> String {
        self.0.observation_string(player)
    }
    fn information_state_string(&self, player: usize) -> String {
        self.0.information_state_string(player)
    }
    fn view(&self, viewer: Option<usize>) -> serde_json::Value {
        self.0.view(viewer)
    }
    fn resample_from_infostate(&self, _player: usize, _rng: &mut GameRng) -> Box<dyn State> {
        self.0.clone_box()
    }
    fn clone_box(&self) -> Box<dyn State> {
        Box::new(Open(self.0.clone_box()))
    }
    fn serialize(&self) -> String {
        self.0.serialize()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self.0.as_any()
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("detective_poker", String::as_str);
    let iterations: u32 = args.get(2).map_or(1000, |s| s.parse().expect("a number"));
    let deals: u64 = args.get(3).map_or(12, |s| s.parse().expect("a number"));
    let game = make_game_from_string(name).expect("a game");
    let heuristic = HeuristicBot;
    let spec = format!("ismcts(iterations={iterations},rollout=random,seed=1)");
    let BotSpec::Ismcts(config) = BotSpec::parse::<&str, &str>(&spec, []).unwrap() else {
        unreachable!()
    };
    let search = IsmctsBot::new(config);
    for open in [false, true] {
        let mut margins = Vec::new();
        for deal in 0..deals {
            let mut per_deal = 0.0;
            let seats = seatings(game.num_players());
            for (k, seating) in seats.iter().enumerate() {
                let mut chance = GameRng::new(1000 + deal);
                let mut rng = GameRng::new(deal * 100 + k as u64);
                let mut state = game.new_initial_state();
                loop {
                    match state.current_player() {
                        Player::Terminal => break,
                        Player::Chance => {
                            let a = state.sample_chance_outcome(&mut chance);
                            state.apply_action(a).unwrap();
                        }
                        Player::Seat(s) => {
                            let seen = state.resample_from_infostate(s, &mut rng);
                            let a = if seating[s] == 1 {
                                heuristic.act(seen.as_ref(), s, &mut rng)
                            } else if open {
                                search.act(&Open(state.clone_box()), s, &mut rng)
                            } else {
                                search.act(seen.as_ref(), s, &mut rng)
                            };
                            state.apply_action(a).unwrap();
                        }
                        Player::Simultaneous => panic!("sequential games only"),
                    }
                }
                let r = state.returns();
                let mean = |who: usize| {
                    let v: Vec<f64> = (0..r.len())
                        .filter(|&s| seating[s] == who)
                        .map(|s| r[s])
                        .collect();
                    v.iter().sum::<f64>() / v.len() as f64
                };
                per_deal += (mean(0) - mean(1)) / 2.0 / seats.len() as f64;
            }
            margins.push(per_deal);
        }
        let n = margins.len() as f64;
        let m = margins.iter().sum::<f64>() / n;
        let sd = (margins.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        println!(
            "{name}: {} IS-MCTS({iterations}, random rollouts) against the heuristic: margin {m:+.3} \
             (95% interval {:+.3} to {:+.3}) over {deals} deals",
            if open { "open-hand" } else { "honest" },
            m - 1.96 * sd / n.sqrt(),
            m + 1.96 * sd / n.sqrt()
        );
    }
}
