//! The caller's buffers that a step or reset writes: `StepBuffers`, borrowed for one call,
//! and `OwnedBuffers`, owned ones of the right sizes that lend themselves as `StepBuffers`.

use crate::compact::{ObservationEncoding, packed_mask_bytes};

use super::VectorEnv;

/// The flat, row-major buffers a step or reset writes, one row per env.
///
/// Lengths (`rows` is 1, or `num_players` with `Observer::AllSeats`; 1 with opponents):
/// observations `num_envs × rows × observation_size`; legal masks
/// `num_envs × rows × num_distinct_actions`; current players (OpenSpiel ids: a seat, −2
/// simultaneous, −4 terminal), terminated and truncated `num_envs`; rewards and final returns
/// `num_envs × num_players` (`num_envs` with opponents: the learner's; see
/// `VectorEnv::rewards_per_env`); final observations, when given, as long as the
/// observations.
///
/// With `ObservationEncoding::Compact` the observation, mask and final observation buffers are
/// empty, and the packed ones take their place: `num_envs × rows × row_bytes` bytes of compact
/// observation rows (`CompactLayout::row_bytes`, the same for final observations) and
/// `num_envs × rows × ⌈num_distinct_actions / 8⌉` bytes of packed masks. With
/// `ObservationEncoding::Float32` (the default) the packed buffers are empty (their `Default`).
#[derive(Debug, Default)]
pub struct StepBuffers<'a> {
    /// Observations, float32.
    pub observations: &'a mut [f32],
    /// Legal-action masks.
    pub action_masks: &'a mut [bool],
    /// Who acts in each env.
    pub current_players: &'a mut [i32],
    /// Each seat's reward from the step.
    pub rewards: &'a mut [f32],
    /// Whether the step ended the env's game.
    pub terminated: &'a mut [bool],
    /// Whether the step hit `max_episode_steps` without ending the game.
    pub truncated: &'a mut [bool],
    /// Each seat's return over the game that this step ended (terminated or truncated), in
    /// either mode; zeros for the other envs.
    pub final_returns: &'a mut [f32],
    /// The final observation rows of the games that this step ended (what next-step mode
    /// writes into `observations` on that step), in either mode; zeros for the other envs.
    /// Same-step mode reports them only here. `None`: not wanted.
    pub final_observations: Option<&'a mut [f32]>,
    /// Compact observation rows (`ObservationEncoding::Compact`; empty otherwise).
    pub packed_observations: &'a mut [u8],
    /// Packed legal masks (`ObservationEncoding::Compact`; empty otherwise): action `a` of a
    /// row is bit `a % 8` of its byte `a / 8`.
    pub packed_action_masks: &'a mut [u8],
    /// Compact final observation rows (`ObservationEncoding::Compact`), as
    /// `final_observations` are for float32. `None`: not wanted.
    pub packed_final_observations: Option<&'a mut [u8]>,
    /// `true` when these are the buffers the previous `reset` or `step` of this `VectorEnv`
    /// wrote, unchanged since: only the legal-mask entries that may have changed are written,
    /// and for games with sparse observations only the observation entries the last write
    /// set are cleared. With `false` every entry is written.
    pub retained: bool,
}

/// Owned, zeroed buffers of the right sizes for a `VectorEnv` (in its observation encoding),
/// kept and reused across steps: `view` lends them to `reset` and `step` as `StepBuffers`.
#[derive(Clone, Debug)]
pub struct OwnedBuffers {
    /// Observations, float32 (empty in the compact encoding).
    pub observations: Vec<f32>,
    /// Legal-action masks (empty in the compact encoding).
    pub action_masks: Vec<bool>,
    /// Who acts in each env.
    pub current_players: Vec<i32>,
    /// Each seat's reward from the last step.
    pub rewards: Vec<f32>,
    /// Whether the last step ended each env's game.
    pub terminated: Vec<bool>,
    /// Whether the last step truncated each env's game.
    pub truncated: Vec<bool>,
    /// Returns of the games the last step ended.
    pub final_returns: Vec<f32>,
    /// Final observation rows of the games the last step ended (float32 encoding, when
    /// asked for).
    pub final_observations: Option<Vec<f32>>,
    /// Compact observation rows (compact encoding only; the float32 and bool buffers are then
    /// empty).
    pub packed_observations: Vec<u8>,
    /// Packed legal masks (compact encoding only).
    pub packed_action_masks: Vec<u8>,
    /// Compact final observation rows (compact encoding, with final observations).
    pub packed_final_observations: Option<Vec<u8>>,
}

impl OwnedBuffers {
    /// Zeroed buffers for `venv`, with final-observation buffers if `final_observations`
    /// (same-step mode reports the final observations only there).
    pub fn for_venv(venv: &VectorEnv, final_observations: bool) -> Self {
        let game = venv.game();
        let n = venv.num_envs();
        let rows = n * venv.rows_per_env();
        let compact = venv.observation_encoding() == ObservationEncoding::Compact;
        let (obs_len, mask_len, packed_len, packed_mask_len) = if compact {
            let na = game.num_distinct_actions();
            let row_bytes = venv.compact_layout().row_bytes();
            (0, 0, rows * row_bytes, rows * packed_mask_bytes(na))
        } else {
            let mask_len = rows * game.num_distinct_actions();
            (rows * game.observation_size(), mask_len, 0, 0)
        };
        OwnedBuffers {
            observations: vec![0.0; obs_len],
            action_masks: vec![false; mask_len],
            current_players: vec![0; n],
            rewards: vec![0.0; n * venv.rewards_per_env()],
            terminated: vec![false; n],
            truncated: vec![false; n],
            final_returns: vec![0.0; n * venv.rewards_per_env()],
            final_observations: (final_observations && !compact).then(|| vec![0.0; obs_len]),
            packed_observations: vec![0; packed_len],
            packed_action_masks: vec![0; packed_mask_len],
            packed_final_observations: (final_observations && compact).then(|| vec![0; packed_len]),
        }
    }

    /// The buffers for the engine's next write. `retained`: see `StepBuffers::retained` (fresh
    /// buffers are zeroed, which agrees with a batch that has written nothing, so buffers that
    /// only the engine writes may always be lent as retained).
    pub fn view(&mut self, retained: bool) -> StepBuffers<'_> {
        StepBuffers {
            observations: &mut self.observations,
            action_masks: &mut self.action_masks,
            current_players: &mut self.current_players,
            rewards: &mut self.rewards,
            terminated: &mut self.terminated,
            truncated: &mut self.truncated,
            final_returns: &mut self.final_returns,
            final_observations: self.final_observations.as_deref_mut(),
            packed_observations: &mut self.packed_observations,
            packed_action_masks: &mut self.packed_action_masks,
            packed_final_observations: self.packed_final_observations.as_deref_mut(),
            retained,
        }
    }
}
