//! What an env writes into its rows of the caller's buffers: the buffers split into one
//! `Rows` per env (their lengths checked), and a slot's observations, legal masks, current
//! player and final rows written into them, in full or (retained buffers) only where they
//! changed, as float32 or compact rows.

use rayon::prelude::*;

use crate::compact::{CompactLayout, ObservationEncoding};
use crate::game::{Action, GameError, Player};

use super::row_chunks::{par_optional_rows, par_rows};
use super::slot::{Shape, Slot};
use super::{Observer, StepBuffers, VectorEnv, VectorError};

/// One env's rows of the caller's buffers.
pub(super) struct Rows<'a> {
    pub(super) observations: &'a mut [f32],
    pub(super) action_masks: &'a mut [bool],
    pub(super) current_player: &'a mut i32,
    pub(super) rewards: &'a mut [f32],
    pub(super) terminated: &'a mut bool,
    pub(super) truncated: &'a mut bool,
    pub(super) final_returns: &'a mut [f32],
    pub(super) final_observations: Option<&'a mut [f32]>,
    pub(super) packed_observations: &'a mut [u8],
    pub(super) packed_action_masks: &'a mut [u8],
    pub(super) packed_final_observations: Option<&'a mut [u8]>,
    /// The rows hold what this slot wrote last (see `StepBuffers::retained`).
    pub(super) retained: bool,
}

impl VectorEnv {
    /// Splits the caller's buffers into one `Rows` per env, after checking their lengths.
    pub(super) fn rows<'a>(
        &self,
        out: StepBuffers<'a>,
    ) -> Result<impl IndexedParallelIterator<Item = Rows<'a>> + use<'a>, VectorError> {
        let n = self.slots.len();
        let shape = &self.shape;
        let compact = shape.encoding == ObservationEncoding::Compact;
        let (obs_len, mask_len, packed_len, packed_mask_len) = if compact {
            (
                0,
                0,
                shape.rows() * shape.row_bytes,
                shape.rows() * shape.mask_bytes,
            )
        } else {
            (
                shape.rows() * shape.observation_size,
                shape.rows() * shape.num_actions,
                0,
                0,
            )
        };
        let bad = |what: &'static str, got: usize, expected: usize| {
            VectorError::Batch(GameError::BadBuffer {
                what,
                got,
                expected,
            })
        };
        let check = |what: &'static str, got: usize, expected: usize| {
            if got == expected {
                Ok(())
            } else {
                Err(bad(what, got, expected))
            }
        };
        check("observations", out.observations.len(), n * obs_len)?;
        check("action_masks", out.action_masks.len(), n * mask_len)?;
        check("current_players", out.current_players.len(), n)?;
        check("rewards", out.rewards.len(), n * shape.reward_width())?;
        check("terminated", out.terminated.len(), n)?;
        check("truncated", out.truncated.len(), n)?;
        check(
            "final_returns",
            out.final_returns.len(),
            n * shape.reward_width(),
        )?;
        check(
            "final_observations",
            out.final_observations
                .as_ref()
                .map_or(n * obs_len, |b| b.len()),
            n * obs_len,
        )?;
        check(
            "packed_observations",
            out.packed_observations.len(),
            n * packed_len,
        )?;
        check(
            "packed_action_masks",
            out.packed_action_masks.len(),
            n * packed_mask_len,
        )?;
        check(
            "packed_final_observations",
            out.packed_final_observations
                .as_ref()
                .map_or(n * packed_len, |b| b.len()),
            n * packed_len,
        )?;
        let retained = out.retained;
        // Split inside rayon's tasks (no per-step list of rows): every iterator has `n` items,
        // the lengths having been checked above.
        Ok((
            par_rows(out.observations, n, obs_len),
            par_rows(out.action_masks, n, mask_len),
            out.current_players.par_iter_mut(),
            par_rows(out.rewards, n, shape.reward_width()),
            out.terminated.par_iter_mut(),
            out.truncated.par_iter_mut(),
            par_rows(out.final_returns, n, shape.reward_width()),
            par_optional_rows(out.final_observations, n, obs_len),
            par_rows(out.packed_observations, n, packed_len),
            par_rows(out.packed_action_masks, n, packed_mask_len),
            par_optional_rows(out.packed_final_observations, n, packed_len),
        )
            .into_par_iter()
            .map(
                move |(
                    observations,
                    action_masks,
                    current_player,
                    rewards,
                    terminated,
                    truncated,
                    final_returns,
                    final_observations,
                    packed_observations,
                    packed_action_masks,
                    packed_final_observations,
                )| Rows {
                    observations,
                    action_masks,
                    current_player,
                    rewards,
                    terminated,
                    truncated,
                    final_returns,
                    final_observations,
                    packed_observations,
                    packed_action_masks,
                    packed_final_observations,
                    retained,
                },
            ))
    }
}

/// Writes one legal-mask row from `legal`: all of it, or (retained) clearing only what
/// `written` says was set last time. Records `legal` in `written`.
fn write_mask(out: &mut [bool], legal: &[Action], written: &mut Vec<Action>, retained: bool) {
    if retained {
        for &a in written.iter() {
            out[a as usize] = false;
        }
    } else {
        out.fill(false);
    }
    for &a in legal {
        out[a as usize] = true;
    }
    written.clear();
    written.extend_from_slice(legal);
}

/// `write_mask` for a packed mask row (action `a` is bit `a % 8` of byte `a / 8`).
fn write_packed_mask(out: &mut [u8], legal: &[Action], written: &mut Vec<Action>, retained: bool) {
    if retained {
        for &a in written.iter() {
            out[a as usize / 8] &= !(1 << (a % 8));
        }
    } else {
        out.fill(0);
    }
    for &a in legal {
        out[a as usize / 8] |= 1 << (a % 8);
    }
    written.clear();
    written.extend_from_slice(legal);
}

impl Slot {
    /// Zeroes this env's final returns and (where written last) final observation rows.
    pub(super) fn clear_final(&mut self, rows: &mut Rows<'_>) {
        rows.final_returns.fill(0.0);
        if let Some(out) = rows.final_observations.as_deref_mut()
            && (self.final_written || !rows.retained)
        {
            out.fill(0.0);
            self.final_written = false;
        }
        if let Some(out) = rows.packed_final_observations.as_deref_mut()
            && (self.final_written || !rows.retained)
        {
            out.fill(0);
            self.final_written = false;
        }
    }

    /// Writes the returns and final observations of the game that just ended (before any
    /// reset).
    pub(super) fn write_final(
        &mut self,
        shape: &Shape,
        layout: &CompactLayout,
        rows: &mut Rows<'_>,
    ) {
        let state = self.env.state();
        match &self.seating {
            Some(seating) => rows.final_returns[0] = state.returns()[seating.learner] as f32,
            None => {
                for (out, r) in rows.final_returns.iter_mut().zip(state.returns()) {
                    *out = r as f32;
                }
            }
        }
        if let Some(out) = rows.final_observations.as_deref_mut() {
            out.fill(0.0);
            let obs = shape.observation_size;
            let seats = self.observed_seats(shape, state.current_player());
            for (row, seat) in seats.enumerate() {
                state.observation_tensor(seat, &mut out[row * obs..(row + 1) * obs]);
            }
            self.final_written = true;
        }
        if let Some(out) = rows.packed_final_observations.as_deref_mut() {
            out.fill(0);
            let rb = shape.row_bytes;
            let seats = self.observed_seats(shape, state.current_player());
            for (row, seat) in seats.enumerate() {
                let out = &mut out[row * rb..(row + 1) * rb];
                layout.write(state, seat, &mut self.scratch, out);
            }
            self.final_written = true;
        }
    }

    /// The seats whose observations and masks fill this env's rows when `current` acts.
    fn observed_seats(&self, shape: &Shape, current: Player) -> std::ops::Range<usize> {
        if let Some(seating) = &self.seating {
            return seating.learner..seating.learner + 1;
        }
        match shape.observer {
            Observer::AllSeats => 0..shape.num_players,
            Observer::Seat(seat) => seat..seat + 1,
            Observer::CurrentPlayer => {
                let seat = current.seat().unwrap_or(self.last_seat);
                seat..seat + 1
            }
        }
    }

    /// Writes the current player, observations and masks of this env.
    pub(super) fn write(&mut self, shape: &Shape, layout: &CompactLayout, rows: &mut Rows<'_>) {
        let state = self.env.state();
        let current = state.current_player();
        *rows.current_player = current.id() as i32;
        let (obs, na) = (shape.observation_size, shape.num_actions);
        let seats = self.observed_seats(shape, current);
        if shape.encoding == ObservationEncoding::Compact {
            let (rb, mb) = (shape.row_bytes, shape.mask_bytes);
            for (row, seat) in seats.enumerate() {
                let out = &mut rows.packed_observations[row * rb..(row + 1) * rb];
                layout.write(state, seat, &mut self.scratch, out);
                write_packed_mask(
                    &mut rows.packed_action_masks[row * mb..(row + 1) * mb],
                    &self.legal[seat],
                    &mut self.mask_written[row],
                    rows.retained,
                );
            }
            return;
        }
        for (row, seat) in seats.enumerate() {
            let out = &mut rows.observations[row * obs..(row + 1) * obs];
            if shape.sparse_observations {
                let [previous, next] = &mut self.obs_written[row];
                next.clear();
                state.observation_entries(seat, next);
                if rows.retained {
                    next.update(previous, out);
                } else {
                    out.fill(0.0);
                    next.write_into(out);
                }
                std::mem::swap(previous, next);
            } else {
                state.observation_tensor(seat, out);
            }
            write_mask(
                &mut rows.action_masks[row * na..(row + 1) * na],
                &self.legal[seat],
                &mut self.mask_written[row],
                rows.retained,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Dynamics;
    use crate::registry::make_game;
    use crate::vector::AutoresetMode;
    use crate::vector::tests::Buffers;

    /// A compact batch and a float32 batch of the same game, seed and actions write rows
    /// that agree: every compact row (observations and final observations) unpacks to the
    /// float32 row bit for bit, packed masks to the masks, the rest equal; in every game,
    /// both auto-reset modes, with truncation.
    #[test]
    fn compact_rows_unpack_to_the_float32_rows() {
        use crate::compact::{ObservationEncoding, packed_mask_bytes, unpack_mask};
        for entry in crate::registry::entries() {
            let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
            for (observer, mode) in [
                (
                    Observer::default_for(game.as_ref()),
                    AutoresetMode::NextStep,
                ),
                (Observer::AllSeats, AutoresetMode::SameStep),
            ] {
                let n = 8;
                let make = |encoding| {
                    VectorEnv::new(game.clone(), n, 11, observer, Some(60))
                        .unwrap()
                        .with_autoreset_mode(mode)
                        .with_observation_encoding(encoding)
                };
                let (mut float, mut compact) = (
                    make(ObservationEncoding::Float32),
                    make(ObservationEncoding::Compact),
                );
                let layout = compact.compact_layout().clone();
                let rows = n * float.rows_per_env();
                let (size, na) = (game.observation_size(), game.num_distinct_actions());
                let (rb, mb) = (layout.row_bytes(), packed_mask_bytes(na));
                let mut a = Buffers::for_env(&float);
                let mut packed = vec![0u8; rows * rb];
                let mut packed_masks = vec![0u8; rows * mb];
                let mut packed_final = vec![0u8; rows * rb];
                let mut b = Buffers::for_env(&float);
                let mut retained = false;
                let mut actions = vec![0; n * float.actions_per_env()];
                for step in 0..300 {
                    let out = StepBuffers {
                        observations: &mut [],
                        action_masks: &mut [],
                        current_players: &mut b.current_players,
                        rewards: &mut b.rewards,
                        terminated: &mut b.terminated,
                        truncated: &mut b.truncated,
                        final_returns: &mut b.final_returns,
                        final_observations: None,
                        packed_observations: &mut packed,
                        packed_action_masks: &mut packed_masks,
                        packed_final_observations: Some(&mut packed_final),
                        retained,
                    };
                    if step == 0 {
                        float.reset(None, a.view()).unwrap();
                        compact.reset(None, out).unwrap();
                    } else {
                        float.sample_actions(&mut actions).unwrap();
                        float.step(&actions, a.view()).unwrap();
                        compact.step(&actions, out).unwrap();
                    }
                    retained = true;
                    let mut row = vec![0f32; size];
                    let mut mask = vec![false; na];
                    let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                    for r in 0..rows {
                        layout.unpack(&packed[r * rb..(r + 1) * rb], &mut row);
                        assert_eq!(bits(&row), bits(&a.observations[r * size..(r + 1) * size]));
                        layout.unpack(&packed_final[r * rb..(r + 1) * rb], &mut row);
                        let fin = &a.final_observations[r * size..(r + 1) * size];
                        assert_eq!(bits(&row), bits(fin), "{} step {step}", entry.info.name);
                        unpack_mask(&packed_masks[r * mb..(r + 1) * mb], &mut mask);
                        assert_eq!(mask, &a.action_masks[r * na..(r + 1) * na]);
                    }
                    assert_eq!(a.current_players, b.current_players);
                    assert_eq!(a.rewards, b.rewards);
                    assert_eq!(a.terminated, b.terminated);
                    assert_eq!(a.truncated, b.truncated);
                    assert_eq!(a.final_returns, b.final_returns);
                }
                // Float32 buffers are refused by a compact batch.
                assert!(compact.step(&actions, a.view()).is_err());
            }
        }
    }

    /// Writing only what changed into retained masks and observations leaves the buffers exactly as writing every
    /// entry does, in every registered game, across resets and auto-resets.
    #[test]
    fn retained_writes_equal_full_writes() {
        for entry in crate::registry::entries() {
            let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
            let observers = if entry.info.dynamics == Dynamics::Simultaneous {
                vec![Observer::AllSeats, Observer::Seat(1)]
            } else {
                vec![
                    Observer::CurrentPlayer,
                    Observer::AllSeats,
                    Observer::Seat(0),
                ]
            };
            for (observer, mode) in observers.into_iter().flat_map(|observer| {
                [AutoresetMode::NextStep, AutoresetMode::SameStep].map(|mode| (observer, mode))
            }) {
                let make = || {
                    VectorEnv::new(game.clone(), 4, 7, observer, Some(40))
                        .unwrap()
                        .with_autoreset_mode(mode)
                };
                let (mut sparse, mut dense) = (make(), make());
                let mut a = Buffers::for_env(&sparse);
                let mut b = Buffers::for_env(&dense);
                sparse.reset(None, a.view()).unwrap();
                dense.reset(None, b.view()).unwrap();
                let per_env = sparse.actions_per_env();
                let mut rng = crate::env::GameRng::new(3);
                for step in 0..120 {
                    // Random legal actions of each env's seat(s) to act (any id once ended).
                    let actions: Vec<Action> = (0..4 * per_env)
                        .map(|k| {
                            let state = sparse.state(k / per_env).unwrap();
                            let legal = match (per_env, state.current_player()) {
                                (1, Player::Seat(seat)) => {
                                    state.legal_actions_for(Player::Seat(seat))
                                }
                                (1, _) => Vec::new(),
                                (_, _) => state.legal_actions_for(Player::Seat(k % per_env)),
                            };
                            if legal.is_empty() {
                                0
                            } else {
                                rng.choose(&legal)
                            }
                        })
                        .collect();
                    if step == 60 {
                        sparse.reset(Some(11), a.view()).unwrap();
                        dense.reset(Some(11), b.view()).unwrap();
                    } else {
                        sparse.step(&actions, a.view()).unwrap();
                        b.retained = false;
                        dense.step(&actions, b.view()).unwrap();
                    }
                    let name = entry.info.name;
                    assert_eq!(
                        a.observations, b.observations,
                        "{name} {observer:?} {mode:?} step {step}"
                    );
                    assert_eq!(
                        a.action_masks, b.action_masks,
                        "{name} {observer:?} step {step}"
                    );
                    assert_eq!(a.current_players, b.current_players);
                    assert_eq!(a.rewards, b.rewards);
                    assert_eq!(a.terminated, b.terminated);
                    assert_eq!(a.truncated, b.truncated);
                    assert_eq!(a.final_returns, b.final_returns);
                    assert_eq!(
                        a.final_observations, b.final_observations,
                        "{name} {observer:?} {mode:?} step {step}"
                    );
                }
            }
        }
    }
}
