//! Bots: a uniformly random bot for every game, each game's heuristic bot, IS-MCTS
//! (`ismcts`) for every game, trained policies (`policy`), and small games' solved policies
//! (`cfr`, `solved`); `spec` turns bot spec strings into bots.

pub mod ismcts;
pub mod policy;
pub mod solved;
pub mod spec;

use crate::env::GameRng;
use crate::game::{Action, GameError, Player, State};

pub use ismcts::{Belief, IsmctsBot, IsmctsConfig, OpponentModel, Rollout, SearchResult, Target};
pub use policy::{Play, PolicyBot, PolicyNet};
pub use solved::{SolvedBot, SolvedConfig};
pub use spec::{BOT_KINDS, BotSpec, bot_params};

/// Something that picks actions for a seat.
pub trait Bot: Send + Sync {
    /// The action for `seat` at `state`. Precondition: `seat` may act there (see `try_act`,
    /// which checks it; callers with input from outside the engine use that).
    fn act(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action;
    /// The bot's kind (`random`, `heuristic`, `ismcts`, `policy`, `cfr`).
    fn name(&self) -> &'static str;
    /// The bot's full spec string (its kind and every setting), which `make_bot` reads
    /// back.
    fn spec(&self) -> String {
        self.name().to_string()
    }
    /// Whether `act` reads nothing of the state but `seat`'s legal actions and its own
    /// observation (`State::observation_tensor` for `seat`): both are functions of the seat's
    /// information state, the same on every state `State::resample_from_infostate` may give,
    /// so `try_act` may hand such a bot the true state and skip the resample (whose cost is
    /// most of a cheap bot's move: Pokeros replays the game to resample). Default `false`;
    /// a bot that reads anything else must keep it.
    fn reads_only_its_view(&self) -> bool {
        false
    }
    /// The engine's information rule: `act` on a state resampled from `seat`'s information
    /// state (`State::resample_from_infostate`, drawing from `rng`), never on the true state,
    /// so no bot can see a hidden card or another seat's pending choice. Checks first that
    /// `seat` exists and has a legal action at `state`: a seat that is not to act, or a
    /// finished game, is an error, never a panic. Every face plays bots through this. A bot
    /// that reads only its seat's view (`reads_only_its_view`) gets the true state instead:
    /// what it reads is the same on every resample.
    ///
    /// ```
    /// use checkraise_core::bots::{Bot, RandomBot};
    /// use checkraise_core::{ErrorKind, GameRng, make_game_from_string};
    ///
    /// let mut state = make_game_from_string("pokeros").unwrap().new_initial_state();
    /// let mut rng = GameRng::new(1);
    /// checkraise_core::env::resolve_chance(state.as_mut(), &mut rng);
    /// let action = RandomBot.try_act(state.as_ref(), 0, &mut rng).unwrap();
    /// assert!(state.legal_actions().contains(&action));
    /// let err = RandomBot.try_act(state.as_ref(), 1, &mut rng).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::FailedPrecondition, "seat 1 is not to act");
    /// ```
    fn try_act(
        &self,
        state: &dyn State,
        seat: usize,
        rng: &mut GameRng,
    ) -> Result<Action, GameError> {
        let n = state.num_players();
        if seat >= n {
            return Err(GameError::InvalidSeat {
                seat: seat as i64,
                num_players: n,
            });
        }
        match state.current_player() {
            Player::Terminal => {
                return Err(GameError::GameOver {
                    state: state.describe(),
                });
            }
            Player::Seat(s) if s == seat => {}
            Player::Simultaneous => {}
            to_act => {
                return Err(GameError::OutOfTurn {
                    player: Player::Seat(seat),
                    to_act,
                    state: state.describe(),
                });
            }
        }
        if state.legal_actions_for(Player::Seat(seat)).is_empty() {
            return Err(GameError::OutOfTurn {
                player: Player::Seat(seat),
                to_act: state.current_player(),
                state: state.describe(),
            });
        }
        if self.reads_only_its_view() {
            return Ok(self.act(state, seat, rng));
        }
        let seen = seen_by(state, seat, rng);
        Ok(self.act(seen.as_ref(), seat, rng))
    }
}

/// The state a bot for `seat` decides on: one resampled from the seat's information state,
/// drawing from `rng` (the engine's information rule for bots; `Bot::try_act` applies it).
pub fn seen_by(state: &dyn State, seat: usize, rng: &mut GameRng) -> Box<dyn State> {
    state.resample_from_infostate(seat, rng)
}

/// Plays a uniformly random legal action.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomBot;

impl Bot for RandomBot {
    fn act(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action {
        let actions = state.legal_actions_for(Player::Seat(seat));
        rng.choose(&actions)
    }
    fn name(&self) -> &'static str {
        "random"
    }
    /// It reads its legal actions only.
    fn reads_only_its_view(&self) -> bool {
        true
    }
}

/// Plays the game's heuristic policy (`State::heuristic_action`).
///
/// ```
/// use checkraise_core::bots::{Bot, HeuristicBot};
/// use checkraise_core::{GameRng, make_game_from_string};
///
/// let mut state = make_game_from_string("poker_chess").unwrap().new_initial_state();
/// checkraise_core::env::resolve_chance(state.as_mut(), &mut GameRng::new(2));
/// let seat = state.current_player().seat().unwrap();
/// let action = HeuristicBot.act(state.as_ref(), seat, &mut GameRng::new(3));
/// assert_eq!(action, state.heuristic_action(seat, &mut GameRng::new(3)));
/// assert!(state.legal_actions().contains(&action));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct HeuristicBot;

impl Bot for HeuristicBot {
    fn act(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action {
        state.heuristic_action(seat, rng)
    }
    fn name(&self) -> &'static str {
        "heuristic"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{entries, make_bot, make_game};

    #[test]
    fn bots_refuse_seats_that_may_not_act() {
        for entry in entries() {
            let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
            let mut state = game.new_initial_state();
            let mut rng = GameRng::new(0);
            // The `policy` bot (and `br`, whose target is the policy by default) only where
            // the game ships a policy, `cfr` where the game is small enough to solve.
            let kinds: Vec<&str> = BOT_KINDS
                .iter()
                .copied()
                .filter(|k| !matches!(*k, "policy" | "br") || entry.policy.is_some())
                .filter(|k| *k != "cfr" || make_bot(entry.info.name, "cfr").is_ok())
                .collect();
            for &kind in &kinds {
                let bot = make_bot(entry.info.name, kind).unwrap();
                let n = game.num_players();
                assert!(
                    bot.try_act(state.as_ref(), n, &mut rng).is_err(),
                    "seat out of range"
                );
                if state.is_chance_node() {
                    assert!(
                        bot.try_act(state.as_ref(), 0, &mut rng).is_err(),
                        "chance node"
                    );
                }
            }
            crate::env::resolve_chance(state.as_mut(), &mut rng);
            if let Player::Seat(s) = state.current_player() {
                let other = (s + 1) % game.num_players();
                for &kind in &kinds {
                    let bot = make_bot(entry.info.name, kind).unwrap();
                    let err = bot.try_act(state.as_ref(), other, &mut rng).unwrap_err();
                    assert_eq!(err.kind(), crate::game::ErrorKind::FailedPrecondition);
                    let a = bot.try_act(state.as_ref(), s, &mut rng).unwrap();
                    assert!(state.legal_actions().contains(&a));
                }
            }
        }
    }
}
