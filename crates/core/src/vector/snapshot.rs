//! A batch as text and back: `VectorEnv::snapshot`, `restore` and `restore_with_opponents`,
//! and the shape of the text (`VectorSnapshot`, one `SlotSnapshot` per env).

use std::sync::Arc;

use crate::compact::ObservationEncoding;
use crate::env::{Env, GameRng};
use crate::game::{Game, GameError};

use super::opponents::{Pool, SavedPool, Seating};
use super::{AutoresetMode, Observer, Opponents, VectorEnv};

/// What `VectorEnv::snapshot` writes.
#[derive(serde::Serialize, serde::Deserialize)]
struct VectorSnapshot {
    observer: Observer,
    max_episode_steps: Option<usize>,
    /// Absent from snapshots written before the mode existed (next-step then).
    #[serde(default)]
    autoreset_mode: AutoresetMode,
    /// Absent from snapshots written before the encoding existed (float32 then).
    #[serde(default)]
    observation_encoding: ObservationEncoding,
    started: bool,
    /// The batch's seed (absent from older snapshots: 0).
    #[serde(default)]
    seed: u64,
    /// The opponent pool, if any (absent from older snapshots: none).
    #[serde(default)]
    opponents: Option<SavedPool>,
    slots: Vec<SlotSnapshot>,
}

impl VectorSnapshot {
    fn read(text: &str) -> Result<Self, GameError> {
        serde_json::from_str(text).map_err(|e| GameError::BadSerialization {
            reason: format!("not a VectorEnv snapshot: {e}"),
        })
    }
}

/// One env of a `VectorSnapshot`.
#[derive(serde::Serialize, serde::Deserialize)]
struct SlotSnapshot {
    env: String,
    needs_reset: bool,
    steps: usize,
    last_seat: usize,
    sampler: GameRng,
    /// With opponents: the env's seating.
    #[serde(default)]
    seating: Option<Seating>,
}

impl VectorEnv {
    /// The batch as text, for pickling and copies: every env's state and streams, its step
    /// count and whether it resets on the next step. `VectorEnv::restore` reads it back, and
    /// the copy steps exactly as this batch would.
    pub fn snapshot(&self) -> String {
        let slots = self
            .slots
            .iter()
            .map(|slot| SlotSnapshot {
                env: slot.env.snapshot(),
                needs_reset: slot.needs_reset,
                steps: slot.steps,
                last_seat: slot.last_seat,
                sampler: slot.sampler.clone(),
                seating: slot.seating.clone(),
            })
            .collect();
        serde_json::to_string(&VectorSnapshot {
            observer: self.shape.observer,
            max_episode_steps: self.shape.max_episode_steps,
            autoreset_mode: self.shape.autoreset_mode,
            observation_encoding: self.shape.encoding,
            started: self.started,
            seed: self.seed,
            opponents: self.pool.as_ref().map(|p| p.saved().clone()),
            slots,
        })
        .expect("a batch always serializes")
    }

    /// Whether `restore` alone can rebuild this batch from its `snapshot`: false when its
    /// opponent pool holds in-memory entries (`Opponent::PolicyBytes`, `Opponent::Bot`),
    /// which a snapshot keeps by fingerprint only (`restore_with_opponents` takes them).
    pub fn snapshot_restorable(&self) -> bool {
        self.pool.as_ref().is_none_or(|p| p.rebuildable())
    }

    /// The batch of `game` that `snapshot` wrote. Write its rows into fresh buffers with
    /// `write_rows` before stepping with them. A batch with opponents comes back with its
    /// pool rebuilt from the spec strings; a pool with in-memory entries is refused (the
    /// error names the entry): use `restore_with_opponents`.
    pub fn restore(game: Arc<dyn Game>, text: &str) -> Result<Self, GameError> {
        let snap = VectorSnapshot::read(text)?;
        let pool = match &snap.opponents {
            Some(saved) => Some(Pool::rebuild(game.as_ref(), saved)?),
            None => None,
        };
        VectorEnv::from_snapshot(game, snap, pool)
    }

    /// The batch with opponents of `game` that `snapshot` wrote, its pool built from
    /// `opponents`, which must be the pool it was taken with (the same learner seat, entries
    /// in the same order, weights, spec strings and policy bytes, checked by fingerprint;
    /// bot objects by their spec): for pools with in-memory entries, which `restore` refuses.
    pub fn restore_with_opponents(
        game: Arc<dyn Game>,
        text: &str,
        opponents: Opponents,
    ) -> Result<Self, GameError> {
        let snap = VectorSnapshot::read(text)?;
        let Some(saved) = &snap.opponents else {
            return Err(GameError::BadSerialization {
                reason: "this snapshot is of a batch without opponents: use VectorEnv::restore"
                    .to_string(),
            });
        };
        let pool = Pool::matching(game.as_ref(), &opponents, saved)?;
        VectorEnv::from_snapshot(game, snap, Some(pool))
    }

    fn from_snapshot(
        game: Arc<dyn Game>,
        snap: VectorSnapshot,
        pool: Option<Pool>,
    ) -> Result<Self, GameError> {
        let mut venv = VectorEnv::new(
            game.clone(),
            snap.slots.len(),
            snap.seed,
            snap.observer,
            snap.max_episode_steps,
        )?
        .with_autoreset_mode(snap.autoreset_mode)
        .with_observation_encoding(snap.observation_encoding);
        venv.started = snap.started;
        if pool.is_some() {
            venv.shape.learner_only = true;
        }
        let rows = venv.shape.rows();
        let players = game.num_players();
        for (index, (slot, saved)) in venv.slots.iter_mut().zip(snap.slots).enumerate() {
            slot.env = Env::restore(game.clone(), &saved.env)?;
            slot.refresh_legal();
            slot.needs_reset = saved.needs_reset;
            slot.steps = saved.steps;
            slot.last_seat = saved.last_seat;
            slot.sampler = saved.sampler;
            slot.mask_written.truncate(rows);
            slot.obs_written.truncate(rows);
            slot.seating = match (&pool, saved.seating) {
                (Some(pool), Some(mut seating))
                    if seating.opponents.len() == players
                        && seating.learner < players
                        && seating.opponents.iter().all(|&o| o < pool.len()) =>
                {
                    seating.fix_scratch();
                    Some(seating)
                }
                (None, None) => None,
                _ => {
                    return Err(GameError::BadSerialization {
                        reason: format!(
                            "env {index} of the snapshot does not fit its opponent pool"
                        ),
                    });
                }
            };
        }
        venv.pool = pool.map(Arc::new);
        Ok(venv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::make_game;
    use crate::vector::tests::Buffers;

    #[test]
    fn a_restored_batch_writes_the_same_rows_and_steps_identically() {
        for entry in crate::registry::entries() {
            let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
            let observer = Observer::default_for(game.as_ref());
            let mode = if entry.info.name.len() % 2 == 0 {
                AutoresetMode::SameStep
            } else {
                AutoresetMode::NextStep
            };
            let mut venv = VectorEnv::new(game.clone(), 6, 3, observer, Some(40))
                .unwrap()
                .with_autoreset_mode(mode);
            let mut buffers = Buffers::for_env(&venv);
            venv.reset(None, buffers.view()).unwrap();
            let mut actions = vec![0; venv.num_envs() * venv.actions_per_env()];
            for _ in 0..25 {
                venv.sample_actions(&mut actions).unwrap();
                venv.step(&actions, buffers.view()).unwrap();
            }
            let mut copy = VectorEnv::restore(game.clone(), &venv.snapshot()).unwrap();
            assert_eq!(copy.autoreset_mode(), mode);
            let mut fresh = Buffers::for_env(&copy);
            copy.write_rows(fresh.view()).unwrap();
            assert_eq!(
                fresh.observations, buffers.observations,
                "{}",
                entry.info.name
            );
            assert_eq!(fresh.action_masks, buffers.action_masks);
            assert_eq!(fresh.current_players, buffers.current_players);
            let mut copied_actions = actions.clone();
            for _ in 0..60 {
                venv.sample_actions(&mut actions).unwrap();
                copy.sample_actions(&mut copied_actions).unwrap();
                assert_eq!(actions, copied_actions, "the samplers continue alike");
                venv.step(&actions, buffers.view()).unwrap();
                copy.step(&actions, fresh.view()).unwrap();
                assert_eq!(fresh.observations, buffers.observations);
                assert_eq!(fresh.action_masks, buffers.action_masks);
                assert_eq!(fresh.rewards, buffers.rewards);
                assert_eq!(fresh.terminated, buffers.terminated);
                assert_eq!(fresh.truncated, buffers.truncated);
                assert_eq!(fresh.final_returns, buffers.final_returns);
                assert_eq!(fresh.final_observations, buffers.final_observations);
            }
            assert!(VectorEnv::restore(game, "{}").is_err());
        }
    }
}
