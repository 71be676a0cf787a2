//! One env of the batch (`Slot`) and the sizes every env shares (`Shape`): starting a game,
//! checking an env's actions and stepping it. What a slot writes into its rows is in
//! `rows.rs`.

use crate::compact::{CompactLayout, ObservationEncoding};
use crate::env::{Env, GameRng};
use crate::game::{Action, GameError, ObservationEntries, Player};

use super::opponents::{Pool, Seating};
use super::rows::Rows;
use super::{AutoresetMode, Observer};

/// One env of the batch and what the batch remembers about it.
#[derive(Debug)]
pub(super) struct Slot {
    pub(super) env: Env,
    /// The last step ended the game: the next step starts a new one.
    pub(super) needs_reset: bool,
    /// Steps since the game started.
    pub(super) steps: usize,
    /// The seat that made the last move (the observer at a terminal state).
    pub(super) last_seat: usize,
    /// Who acts at the current state (kept here so that checking a batch of actions does
    /// not visit every state).
    pub(super) current: Player,
    /// Each seat's legal actions at the current state, sorted.
    pub(super) legal: Vec<Vec<Action>>,
    /// The last step's rewards (scratch, so stepping does not allocate).
    pub(super) rewards: Vec<f64>,
    /// The stream `sample_actions` draws from (seeded apart from the env's chance stream).
    pub(super) sampler: GameRng,
    /// Per mask row: the actions marked legal by the last write.
    pub(super) mask_written: Vec<Vec<Action>>,
    /// Per observation row, for games that give observation entries: the entries the last
    /// write put in the row, and scratch for the next.
    pub(super) obs_written: Vec<[ObservationEntries; 2]>,
    /// A float32 row to pack from, for compact rows of games without observation entries.
    pub(super) scratch: Vec<f32>,
    /// The last write may have left non-zero final observation rows.
    pub(super) final_written: bool,
    /// With opponents: the learner's seat, the opponents and their streams.
    pub(super) seating: Option<Seating>,
}

/// The sizes every slot shares.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    pub(super) num_players: usize,
    pub(super) num_actions: usize,
    pub(super) observation_size: usize,
    pub(super) observer: Observer,
    pub(super) joint: bool,
    pub(super) max_episode_steps: Option<usize>,
    pub(super) autoreset_mode: AutoresetMode,
    /// Float32 rows are written from entries (`State::observation_entries`), retained ones
    /// rewriting only what changed.
    pub(super) sparse_observations: bool,
    /// The game gives its observations as entries (compact rows are packed from them).
    pub(super) entries: bool,
    pub(super) encoding: ObservationEncoding,
    /// Bytes of a compact observation row and of a packed mask row.
    pub(super) row_bytes: usize,
    pub(super) mask_bytes: usize,
    /// The engine plays opponents: every env writes its learner's row, reward and return.
    pub(super) learner_only: bool,
}

impl Shape {
    pub(super) fn rows(&self) -> usize {
        match self.observer {
            _ if self.learner_only => 1,
            Observer::AllSeats => self.num_players,
            _ => 1,
        }
    }

    /// Rewards (and final returns) per env.
    pub(super) fn reward_width(&self) -> usize {
        if self.learner_only {
            1
        } else {
            self.num_players
        }
    }
}

impl Slot {
    /// Bookkeeping for a game that just started; with opponents (`pool`), draws the seats and
    /// plays to the learner's first decision.
    pub(super) fn start(&mut self, pool: Option<&Pool>) -> Result<(), GameError> {
        if let (Some(pool), Some(seating)) = (pool, &mut self.seating) {
            seating.begin(&mut self.env, pool)?;
            self.start_learner();
            return Ok(());
        }
        self.steps = 0;
        self.needs_reset = self.env.current_player() == Player::Terminal;
        self.refresh_legal();
        Ok(())
    }

    /// Bookkeeping for a game with opponents at its learner's first decision.
    pub(super) fn start_learner(&mut self) {
        self.steps = 0;
        self.needs_reset = false;
        self.refresh_legal();
    }

    /// Recomputes every seat's legal actions.
    pub(super) fn refresh_legal(&mut self) {
        let state = self.env.state();
        self.current = state.current_player();
        for (seat, legal) in self.legal.iter_mut().enumerate() {
            state.legal_actions_into(Player::Seat(seat), legal);
        }
    }

    fn is_legal(&self, seat: usize, action: Action) -> bool {
        self.legal[seat].binary_search(&action).is_ok()
    }

    /// Checks this env's action(s) without changing anything; the error is the engine's.
    pub(super) fn check(&self, shape: &Shape, actions: &[Action]) -> Result<(), GameError> {
        if self.needs_reset {
            return Ok(());
        }
        if let Some(seating) = &self.seating {
            let (learner, action) = (seating.learner, actions[0]);
            if self.is_legal(learner, action) {
                return Ok(());
            }
            let mut probe = self.env.state().clone_box();
            let result = match probe.current_player() {
                Player::Simultaneous => {
                    probe.apply_actions(&seating.probe_joint(&self.env, action))
                }
                _ => probe.apply_action(action),
            };
            let state = self.env.state();
            return Err(result.err().unwrap_or_else(|| GameError::IllegalAction {
                action,
                desc: String::new(),
                player: Player::Seat(learner),
                state: state.describe(),
                reason: "not among the learner's legal actions".to_string(),
            }));
        }
        let legal = match self.current {
            Player::Seat(seat) => {
                let action = actions[if shape.joint { seat } else { 0 }];
                self.is_legal(seat, action)
            }
            Player::Simultaneous => actions
                .iter()
                .enumerate()
                .all(|(seat, &action)| self.is_legal(seat, action)),
            Player::Chance | Player::Terminal => false,
        };
        if legal {
            return Ok(());
        }
        // Ask the engine why, on a copy.
        let state = self.env.state();
        let mut probe = state.clone_box();
        let result = match probe.current_player() {
            Player::Simultaneous => probe.apply_actions(actions),
            Player::Seat(seat) if shape.joint => probe.apply_action(actions[seat]),
            _ => probe.apply_action(actions[0]),
        };
        Err(result.err().unwrap_or_else(|| GameError::IllegalAction {
            action: actions[0],
            desc: state.action_to_string(state.current_player(), actions[0]),
            player: state.current_player(),
            state: state.describe(),
            reason: "not among the legal actions".to_string(),
        }))
    }

    /// One step of this env (a new game if the last one ended), written into `rows`.
    pub(super) fn step(
        &mut self,
        shape: &Shape,
        layout: &CompactLayout,
        pool: Option<&Pool>,
        actions: &[Action],
        rows: &mut Rows<'_>,
    ) -> Result<(), GameError> {
        if self.needs_reset {
            self.env.reset();
            self.start(pool)?;
            rows.rewards.fill(0.0);
            *rows.terminated = false;
            *rows.truncated = false;
            self.clear_final(rows);
        } else if let (Some(pool), Some(seating)) = (pool, &mut self.seating) {
            let reward = seating.learner_step(&mut self.env, pool, actions[0])?;
            rows.rewards[0] = reward as f32;
            self.steps += 1;
            self.finish_step(shape, layout, Some(pool), rows)?;
        } else {
            let rewards = &mut self.rewards;
            match self.env.current_player() {
                Player::Seat(seat) => {
                    self.last_seat = seat;
                    self.env
                        .step_into(actions[if shape.joint { seat } else { 0 }], rewards)?
                }
                _ => self.env.step_joint_into(actions, rewards)?,
            };
            for (out, &r) in rows.rewards.iter_mut().zip(rewards.iter()) {
                *out = r as f32;
            }
            self.steps += 1;
            self.finish_step(shape, layout, None, rows)?;
        }
        self.write(shape, layout, rows);
        Ok(())
    }

    /// After a step's moves (and `steps` counted): the flags, the final rows of a game that
    /// ended, and the next game in same-step mode.
    fn finish_step(
        &mut self,
        shape: &Shape,
        layout: &CompactLayout,
        pool: Option<&Pool>,
        rows: &mut Rows<'_>,
    ) -> Result<(), GameError> {
        let terminated = self.env.current_player() == Player::Terminal;
        let truncated = !terminated && shape.max_episode_steps.is_some_and(|cap| self.steps >= cap);
        *rows.terminated = terminated;
        *rows.truncated = truncated;
        if terminated || truncated {
            self.write_final(shape, layout, rows);
            if shape.autoreset_mode == AutoresetMode::SameStep {
                self.env.reset();
                self.start(pool)?;
            } else {
                self.needs_reset = true;
                self.refresh_legal();
            }
        } else {
            self.clear_final(rows);
            self.refresh_legal();
        }
        Ok(())
    }
}
