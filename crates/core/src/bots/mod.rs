//! Bots: a uniformly random bot for every game, and each game's heuristic bot.

use crate::env::GameRng;
use crate::game::{Action, GameError, Player, State};
use crate::registry;

/// A game's heuristic policy: the action seat `seat` takes at `state` (a state where that
/// seat may act: its turn, or a simultaneous node).
pub type HeuristicFn = fn(&dyn State, usize, &mut GameRng) -> Action;

/// Something that picks actions for a seat.
pub trait Bot: Send + Sync {
    /// The action for `seat` at `state`, where `seat` may act.
    fn act(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action;
    /// The bot's name (`random`, `heuristic`).
    fn name(&self) -> &'static str;
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
}

/// Plays a game's heuristic policy.
#[derive(Clone, Copy, Debug)]
pub struct HeuristicBot(pub HeuristicFn);

impl Bot for HeuristicBot {
    fn act(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action {
        (self.0)(state, seat, rng)
    }
    fn name(&self) -> &'static str {
        "heuristic"
    }
}

/// The bot kinds every game offers.
pub const BOT_KINDS: &[&str] = &["random", "heuristic"];

/// A bot of a kind (`random` or `heuristic`) for a game.
pub fn make_bot(game: &str, kind: &str) -> Result<Box<dyn Bot>, GameError> {
    let entry = registry::entry(game)?;
    match kind {
        "random" => Ok(Box::new(RandomBot)),
        "heuristic" => Ok(Box::new(HeuristicBot(entry.heuristic))),
        other => Err(GameError::InvalidParameter {
            game: game.to_string(),
            name: "bot".to_string(),
            value: other.to_string(),
            allowed: format!("one of: {}", BOT_KINDS.join(", ")),
        }),
    }
}
