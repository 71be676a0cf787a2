//! The one driver: plays chance and bot seats until a seat played from outside (a person over
//! gRPC, an agent in a Gymnasium env) must decide, or the game ends.
//!
//! One information rule holds for every bot it runs: a bot acts on a state resampled from its
//! own seat's information (`Bot::try_act`), never on the true state, so a bot cannot see a
//! hidden card or another seat's pending choice. At a simultaneous node each seat's choice is
//! held, hidden, until every seat has chosen; then the joint action is applied.
//!
//! The gRPC live matches, the Python Gymnasium env and the arena all advance their games with
//! it.
//!
//! ```
//! use checkraise_core::bots::{Bot, HeuristicBot};
//! use checkraise_core::driver::{Driver, Halt, ignore_steps};
//! use checkraise_core::{Player, make_game_from_string};
//!
//! let game = make_game_from_string("poker_chess").unwrap();
//! let mut state = game.new_initial_state();
//! let mut driver = Driver::from_seed(42, 2);
//! // Seat 0 is played from outside; the heuristic bot plays seat 1.
//! let bots: [Option<&dyn Bot>; 2] = [None, Some(&HeuristicBot)];
//! loop {
//!     match driver.advance(state.as_mut(), &bots, None, &mut ignore_steps).unwrap() {
//!         Halt::Over => break,
//!         _ => {
//!             assert_eq!(state.current_player(), Player::Seat(0));
//!             let action = state.legal_actions()[0];
//!             driver.play(state.as_mut(), 0, action, &mut ignore_steps).unwrap();
//!         }
//!     }
//! }
//! assert!(state.is_terminal());
//! ```

use std::sync::atomic::{AtomicBool, Ordering};

use crate::bots::Bot;
use crate::env::resolve_chance;
use crate::game::{Action, GameError, Player, State};
use crate::rng::GameRng;

/// The offset between a driver's chance seed and its first bot stream's seed
/// (`Driver::from_seed`).
pub const BOT_SEED_OFFSET: u64 = 0x9E37_79B9_7F4A_7C15;

/// One decision step the driver applied: a seat's action or a joint action, with the chance
/// outcomes that followed it already resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The actor: a seat, or `Simultaneous` for a joint action.
    pub actor: Player,
    /// Each acting seat's action and, when the driver is `describing`, its text as
    /// `State::action_to_string` gave it before the action was applied (else empty).
    pub chosen: Vec<(usize, Action, String)>,
}

/// Why `Driver::advance` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A seat played from outside must decide (its turn, or a simultaneous node where it has
    /// not chosen yet).
    Decide,
    /// The game is over.
    Over,
    /// `stop` was set before a bot's move.
    Stopped,
}

/// Drives one game: its chance stream, one bot stream per seat, and the choices held at the
/// current simultaneous node. It serializes (`serde`), so a saved driver continues exactly.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Driver {
    chance: GameRng,
    bot_rngs: Vec<GameRng>,
    pending: Vec<Option<Action>>,
    describe: bool,
}

impl Driver {
    /// A driver for a game of `bot_rngs.len()` seats: chance draws from `chance`, seat `s`'s
    /// bot from `bot_rngs[s]`.
    pub fn new(chance: GameRng, bot_rngs: Vec<GameRng>) -> Self {
        Driver {
            pending: vec![None; bot_rngs.len()],
            chance,
            bot_rngs,
            describe: false,
        }
    }

    /// The driver every face uses for a game of `players` seats with seed `seed`: chance
    /// draws from `GameRng::new(seed)` (so the game deals as an `Env` with that seed, whatever
    /// its bots do), seat `k`'s bot from `GameRng::new(seed + BOT_SEED_OFFSET + k)`.
    pub fn from_seed(seed: u64, players: usize) -> Self {
        let bots = (0..players as u64)
            .map(|k| GameRng::new(seed.wrapping_add(BOT_SEED_OFFSET).wrapping_add(k)))
            .collect();
        Driver::new(GameRng::new(seed), bots)
    }

    /// The same driver, with each `Step` carrying its actions' texts.
    pub fn describing(mut self) -> Self {
        self.describe = true;
        self
    }

    /// The number of seats it drives (`None` for an inconsistent deserialized driver).
    pub fn seats(&self) -> Option<usize> {
        (self.pending.len() == self.bot_rngs.len()).then_some(self.bot_rngs.len())
    }

    /// The chance stream.
    pub fn chance_rng(&mut self) -> &mut GameRng {
        &mut self.chance
    }

    /// Whether `seat` has chosen at the current simultaneous node.
    pub fn has_chosen(&self, seat: usize) -> bool {
        self.pending.get(seat).is_some_and(Option::is_some)
    }

    /// Resolves chance at `state` (before the first decision).
    pub fn resolve_chance(&mut self, state: &mut dyn State) {
        resolve_chance(state, &mut self.chance);
    }

    /// Plays `seat`'s decision `action`: applied at once at the seat's turn; at a
    /// simultaneous node held, hidden, and the joint action applied once every seat has
    /// chosen. Chance is resolved after an applied step, and `on_step` is told of it. Errors:
    /// a seat out of range, out of turn, a second choice at the same node, an illegal action.
    pub fn play(
        &mut self,
        state: &mut dyn State,
        seat: usize,
        action: Action,
        on_step: &mut dyn FnMut(&dyn State, &Step),
    ) -> Result<(), GameError> {
        let n = state.num_players();
        if seat >= n {
            return Err(GameError::InvalidSeat {
                seat: seat as i64,
                num_players: n,
            });
        }
        let player = Player::Seat(seat);
        if state.is_simultaneous_node() {
            if self.pending[seat].is_some() {
                return Err(GameError::AlreadyChosen {
                    seat,
                    state: state.describe(),
                });
            }
            if !state.legal_actions_for(player).contains(&action) {
                return Err(GameError::IllegalAction {
                    action,
                    desc: state.action_to_string(player, action),
                    player,
                    state: state.describe(),
                    reason: "not among the seat's legal actions".to_string(),
                });
            }
            self.pending[seat] = Some(action);
            self.apply_joint_if_complete(state, on_step)?;
            return Ok(());
        }
        crate::game::check_turn(state, player)?;
        self.apply_seat(state, seat, action, on_step)
    }

    /// Lets chance and the bot seats (`bots[s]` is `Some` for a bot seat) act until a seat
    /// played from outside must decide or the game ends; before each bot move, stops if
    /// `stop` is set. Errors only if a bot fails, which is an engine fault.
    pub fn advance(
        &mut self,
        state: &mut dyn State,
        bots: &[Option<&dyn Bot>],
        stop: Option<&AtomicBool>,
        on_step: &mut dyn FnMut(&dyn State, &Step),
    ) -> Result<Halt, GameError> {
        let stopped = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
        loop {
            match state.current_player() {
                Player::Terminal => return Ok(Halt::Over),
                Player::Chance => resolve_chance(state, &mut self.chance),
                Player::Seat(seat) => {
                    let Some(bot) = bots[seat] else {
                        return Ok(Halt::Decide);
                    };
                    if stopped() {
                        return Ok(Halt::Stopped);
                    }
                    let action = bot.try_act(state, seat, &mut self.bot_rngs[seat])?;
                    self.apply_seat(state, seat, action, on_step)?;
                }
                Player::Simultaneous => {
                    for (seat, bot) in bots.iter().enumerate() {
                        if let (Some(bot), None) = (bot, self.pending[seat]) {
                            if stopped() {
                                return Ok(Halt::Stopped);
                            }
                            let action = bot.try_act(state, seat, &mut self.bot_rngs[seat])?;
                            self.pending[seat] = Some(action);
                        }
                    }
                    if !self.apply_joint_if_complete(state, on_step)? {
                        return Ok(Halt::Decide);
                    }
                }
            }
        }
    }

    /// Applies `seat`'s action at its turn, then resolves chance and tells `on_step`.
    fn apply_seat(
        &mut self,
        state: &mut dyn State,
        seat: usize,
        action: Action,
        on_step: &mut dyn FnMut(&dyn State, &Step),
    ) -> Result<(), GameError> {
        let player = Player::Seat(seat);
        let text = self.text(state, player, action);
        state.apply_action(action)?;
        self.after_step(
            state,
            Step {
                actor: player,
                chosen: vec![(seat, action, text)],
            },
            on_step,
        );
        Ok(())
    }

    fn text(&self, state: &dyn State, player: Player, action: Action) -> String {
        if self.describe {
            state.action_to_string(player, action)
        } else {
            String::new()
        }
    }

    /// Applies the joint action once every seat has chosen; reports whether it did.
    fn apply_joint_if_complete(
        &mut self,
        state: &mut dyn State,
        on_step: &mut dyn FnMut(&dyn State, &Step),
    ) -> Result<bool, GameError> {
        let Some(joint) = self
            .pending
            .iter()
            .copied()
            .collect::<Option<Vec<Action>>>()
        else {
            return Ok(false);
        };
        let chosen = joint
            .iter()
            .enumerate()
            .map(|(seat, &a)| (seat, a, self.text(state, Player::Seat(seat), a)))
            .collect();
        self.pending.fill(None);
        state.apply_actions(&joint)?;
        self.after_step(
            state,
            Step {
                actor: Player::Simultaneous,
                chosen,
            },
            on_step,
        );
        Ok(true)
    }

    fn after_step(
        &mut self,
        state: &mut dyn State,
        step: Step,
        on_step: &mut dyn FnMut(&dyn State, &Step),
    ) {
        resolve_chance(state, &mut self.chance);
        on_step(state, &step);
    }
}

/// A callback for `Driver::play` and `Driver::advance` that ignores the steps.
pub fn ignore_steps(_: &dyn State, _: &Step) {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::{HeuristicBot, RandomBot};
    use crate::registry::make_game;

    #[test]
    fn an_all_bot_game_runs_to_the_end_and_reports_each_step() {
        for entry in crate::registry::entries() {
            let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
            let n = game.num_players();
            let mut state = game.new_initial_state();
            let mut driver =
                Driver::new(GameRng::new(1), (0..n as u64).map(GameRng::new).collect())
                    .describing();
            let bots: Vec<Option<&dyn Bot>> = (0..n)
                .map(|s| {
                    Some(if s == 0 {
                        &HeuristicBot as &dyn Bot
                    } else {
                        &RandomBot
                    })
                })
                .collect();
            let mut steps = 0;
            let halt = driver
                .advance(state.as_mut(), &bots, None, &mut |s, step| {
                    steps += 1;
                    assert!(
                        !s.is_chance_node(),
                        "chance is resolved before a step is told"
                    );
                    assert!(step.chosen.iter().all(|c| !c.2.is_empty()));
                })
                .unwrap();
            assert_eq!(halt, Halt::Over);
            assert!(state.is_terminal() && steps > 0, "{}", entry.info.name);
        }
    }

    #[test]
    fn an_outside_seat_halts_the_driver_and_its_choice_is_held_at_simultaneous_nodes() {
        let game = make_game::<&str, &str>("prediction_chess", []).unwrap();
        let mut state = game.new_initial_state();
        let mut driver = Driver::new(GameRng::new(1), vec![GameRng::new(2), GameRng::new(3)]);
        let bots: [Option<&dyn Bot>; 2] = [None, Some(&RandomBot)];
        let halt = driver
            .advance(state.as_mut(), &bots, None, &mut ignore_steps)
            .unwrap();
        assert_eq!(halt, Halt::Decide);
        assert!(driver.has_chosen(1) && !driver.has_chosen(0));
        assert!(
            state.history().is_empty(),
            "the bot's choice waits for seat 0"
        );
        let action = state.legal_actions_for(Player::Seat(0))[0];
        let err = driver
            .play(state.as_mut(), 0, 9999, &mut ignore_steps)
            .unwrap_err();
        assert!(matches!(err, GameError::IllegalAction { .. }), "{err}");
        driver
            .play(state.as_mut(), 0, action, &mut ignore_steps)
            .unwrap();
        assert_eq!(state.history().len(), 2, "the joint action is applied");
        assert!(!driver.has_chosen(1));
    }

    #[test]
    fn a_second_choice_at_one_node_and_a_seat_out_of_turn_are_refused() {
        let game = make_game::<&str, &str>("prediction_chess", []).unwrap();
        let mut state = game.new_initial_state();
        let mut driver = Driver::new(GameRng::new(1), vec![GameRng::new(2), GameRng::new(3)]);
        let action = state.legal_actions_for(Player::Seat(0))[0];
        driver
            .play(state.as_mut(), 0, action, &mut ignore_steps)
            .unwrap();
        let err = driver
            .play(state.as_mut(), 0, action, &mut ignore_steps)
            .unwrap_err();
        assert!(
            matches!(err, GameError::AlreadyChosen { seat: 0, .. }),
            "{err}"
        );
        let err = driver
            .play(state.as_mut(), 2, action, &mut ignore_steps)
            .unwrap_err();
        assert!(matches!(err, GameError::InvalidSeat { .. }), "{err}");

        let game = make_game::<&str, &str>("poker_chess", []).unwrap();
        let mut state = game.new_initial_state();
        let mut driver = Driver::new(GameRng::new(1), vec![GameRng::new(2), GameRng::new(3)]);
        driver.resolve_chance(state.as_mut());
        let Player::Seat(s) = state.current_player() else {
            panic!("a seat acts after the deal")
        };
        let other = 1 - s;
        let err = driver
            .play(state.as_mut(), other, 0, &mut ignore_steps)
            .unwrap_err();
        assert!(matches!(err, GameError::OutOfTurn { .. }), "{err}");
    }

    #[test]
    fn stop_halts_before_a_bot_moves() {
        let game = make_game::<&str, &str>("pokeros", []).unwrap();
        let mut state = game.new_initial_state();
        let mut driver = Driver::new(GameRng::new(1), vec![GameRng::new(2), GameRng::new(3)]);
        let bots: [Option<&dyn Bot>; 2] = [Some(&RandomBot), Some(&RandomBot)];
        let stop = AtomicBool::new(true);
        let halt = driver
            .advance(state.as_mut(), &bots, Some(&stop), &mut ignore_steps)
            .unwrap();
        assert_eq!(halt, Halt::Stopped);
        assert!(state.history().iter().all(|h| h.player == Player::Chance));
    }
}
