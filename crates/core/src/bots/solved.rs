//! The `cfr` bot: a small game solved exactly (`crate::solve`), playing the average policy
//! that the solver reaches after a fixed number of iterations. Solving happens when the bot is
//! built; the same game and settings reuse one solution (a few are kept per process).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::bots::Bot;
use crate::game::{Action, Game, GameError, Player, State};
use crate::rng::GameRng;
use crate::solve::{Algorithm, Solver, TabularPolicy, game_string};

/// Solutions kept per process before the cache is emptied.
const CACHED: usize = 16;

/// The settings of a `cfr` bot.
#[derive(Clone, Debug, PartialEq)]
pub struct SolvedConfig {
    /// The solving algorithm (its seed for `mccfr`).
    pub algorithm: Algorithm,
    /// Iterations the solver runs.
    pub iterations: u32,
}

impl Default for SolvedConfig {
    /// CFR+ for 1,000 iterations.
    fn default() -> Self {
        SolvedConfig {
            algorithm: Algorithm::CfrPlus,
            iterations: 1000,
        }
    }
}

impl SolvedConfig {
    /// The canonical spec string.
    pub fn spec(&self) -> String {
        match self.algorithm {
            Algorithm::ExternalSampling { seed } => format!(
                "cfr(iterations={},algorithm=mccfr,seed={seed})",
                self.iterations
            ),
            other => format!(
                "cfr(iterations={},algorithm={})",
                self.iterations,
                other.name()
            ),
        }
    }
}

/// Plays a solved policy: at each decision, the action drawn from the policy's probabilities
/// at the seat's information state.
#[derive(Clone, Debug)]
pub struct SolvedBot {
    config: SolvedConfig,
    policy: Arc<TabularPolicy>,
}

/// Solutions by game string and spec.
type Solutions = HashMap<(String, String), Arc<TabularPolicy>>;

/// The solutions made so far.
static SOLUTIONS: Mutex<Option<Solutions>> = Mutex::new(None);

impl SolvedBot {
    /// Solves `game` with `config` (or reuses the solution made before); a game too large to
    /// solve, or of a kind that cannot be, is refused with the reason.
    pub fn for_game(config: SolvedConfig, game: &dyn Game) -> Result<SolvedBot, GameError> {
        let key = (game_string(game), config.spec());
        if let Some(policy) = SOLUTIONS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .and_then(|m| m.get(&key).cloned())
        {
            return Ok(SolvedBot { config, policy });
        }
        let mut solver = Solver::new(game, config.algorithm).map_err(|e| match e {
            crate::solve::SolveError::Game(e) => e,
            other => GameError::InvalidBotParameter {
                bot: "cfr".to_string(),
                name: "(game)".to_string(),
                value: key.0.clone(),
                allowed: format!("a game small enough to solve exactly ({other})"),
            },
        })?;
        solver.run(config.iterations as u64);
        let policy = Arc::new(solver.average_policy());
        let mut cache = SOLUTIONS.lock().unwrap_or_else(|e| e.into_inner());
        let map = cache.get_or_insert_with(HashMap::new);
        if map.len() >= CACHED {
            map.clear();
        }
        map.insert(key, policy.clone());
        Ok(SolvedBot { config, policy })
    }

    /// The solved policy it plays.
    pub fn policy(&self) -> &TabularPolicy {
        &self.policy
    }
}

impl Bot for SolvedBot {
    fn act(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action {
        let legal = state.legal_actions_for(Player::Seat(seat));
        let key = state.information_state_string(seat);
        let Some(probs) = self.policy.get(&key) else {
            // Not in the solved tree (cannot happen for the game it was solved on).
            return rng.choose(&legal);
        };
        let mut u = rng.unit_f64();
        for &(action, p) in probs {
            if u < p && legal.contains(&action) {
                return action;
            }
            u -= p;
        }
        // Rounding: the most likely legal action.
        probs
            .iter()
            .filter(|(a, _)| legal.contains(a))
            .max_by(|x, y| x.1.total_cmp(&y.1))
            .map(|&(a, _)| a)
            .unwrap_or_else(|| rng.choose(&legal))
    }

    fn name(&self) -> &'static str {
        "cfr"
    }

    fn spec(&self) -> String {
        self.config.spec()
    }

    /// It reads its legal actions and its information-state string, both functions of what
    /// the seat knows.
    fn reads_only_its_view(&self) -> bool {
        true
    }
}
