//! Tabular policies: for each information state (by its key, the seat's
//! `State::information_state_string`), a probability for each legal action.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::game::Action;
use crate::solve::SolveError;
use crate::solve::tree::Tree;

/// A probability for each legal action of each information state it covers, keyed by the
/// information-state string. The solvers give one for every information state of a tree;
/// one read from outside may cover any of them, and `Tabular::on` checks it against a tree.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TabularPolicy {
    states: BTreeMap<String, Vec<(Action, f64)>>,
}

impl TabularPolicy {
    /// An empty policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// The uniform policy on every information state of `tree`.
    pub fn uniform(tree: &Tree) -> Self {
        let mut policy = Self::new();
        for infoset in &tree.infosets {
            let p = 1.0 / infoset.actions.len() as f64;
            policy.set(
                infoset.key.clone(),
                infoset.actions.iter().map(|&a| (a, p)).collect(),
            );
        }
        policy
    }

    /// The policy that plays `probs` (one entry per action of each information state, at its
    /// `Infoset::offset`) on `tree`.
    pub(crate) fn from_flat(tree: &Tree, probs: &[f64]) -> Self {
        let mut policy = Self::new();
        for infoset in &tree.infosets {
            let at = infoset.offset;
            policy.set(
                infoset.key.clone(),
                infoset
                    .actions
                    .iter()
                    .zip(&probs[at..at + infoset.actions.len()])
                    .map(|(&a, &p)| (a, p))
                    .collect(),
            );
        }
        policy
    }

    /// Sets the probabilities of information state `key` (pairs of action and probability).
    pub fn set(&mut self, key: String, probs: Vec<(Action, f64)>) {
        self.states.insert(key, probs);
    }

    /// The probabilities of information state `key`, if the policy covers it.
    pub fn get(&self, key: &str) -> Option<&[(Action, f64)]> {
        self.states.get(key).map(Vec::as_slice)
    }

    /// Information states covered.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether the policy covers no information state.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Every information state's key and probabilities, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[(Action, f64)])> {
        self.states.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    /// The policy as flat probabilities on `tree` (one per information state and action, at
    /// `Infoset::offset`). Every information state of the seats in `seats` must be covered,
    /// with a finite, non-negative probability for each legal action (a missing action counts
    /// as 0) summing to 1 within 1e-6, and no action that is not legal there; information
    /// states of other seats get the uniform policy (a best response never reads its own
    /// seat's entries).
    pub(crate) fn flat(&self, tree: &Tree, seats: &[usize]) -> Result<Vec<f64>, SolveError> {
        let mut flat = vec![0.0; tree.actions];
        for infoset in &tree.infosets {
            let row = &mut flat[infoset.offset..infoset.offset + infoset.actions.len()];
            if !seats.contains(&infoset.seat) {
                row.fill(1.0 / infoset.actions.len() as f64);
                continue;
            }
            let bad = |reason: String| SolveError::BadPolicy {
                key: infoset.key.clone(),
                reason,
            };
            let Some(probs) = self.get(&infoset.key) else {
                return Err(SolveError::MissingInfoset {
                    game: tree.game.clone(),
                    key: infoset.key.clone(),
                    seat: infoset.seat,
                });
            };
            for &(action, p) in probs {
                let Some(i) = infoset.actions.iter().position(|&a| a == action) else {
                    return Err(bad(format!(
                        "action {action} is not legal there (legal: {:?})",
                        infoset.actions
                    )));
                };
                if !(p.is_finite() && p >= 0.0) {
                    return Err(bad(format!("action {action} has probability {p}")));
                }
                row[i] += p;
            }
            let sum: f64 = row.iter().sum();
            if (sum - 1.0).abs() > 1e-6 {
                return Err(bad(format!("its probabilities sum to {sum}, not 1")));
            }
        }
        Ok(flat)
    }
}
