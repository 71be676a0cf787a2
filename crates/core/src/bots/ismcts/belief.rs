//! The belief of a belief-weighted search (`belief=heuristic|policy`): the opponent model
//! and the Metropolis-Hastings chain that draws determinizations in proportion to how likely
//! the other seats' actions were under it (see the parent module's documentation).

use std::collections::HashMap;
use std::sync::Arc;

use crate::bots::policy::PolicyNet;
use crate::compact::CompactLayout;
use crate::env::GameRng;
use crate::game::{Action, Game, GameError, Player, PlayerAction, State};

/// The heuristic opponent model's chance of a uniformly random action instead of the
/// heuristic's own (its actions are not a distribution; without a tremble one action the
/// heuristic would not have taken rules a determinization out entirely).
pub const HEURISTIC_TREMBLE: f64 = 0.2;
/// The weight of uniform play mixed into the policy opponent model, so that a confident but
/// wrong policy lowers a determinization's weight rather than ruling it out.
pub const POLICY_FLOOR: f64 = 0.1;
/// Most model answers a belief-weighted search keeps (about 8 MB); past it the cache starts
/// again, so a long search's memory stays bounded.
pub const BELIEF_CACHE_ENTRIES: usize = 1 << 18;
/// Chain steps (proposals, each accepted or refused) per search iteration. After a few bets in
/// a Detective Poker hand a uniform proposal is accepted a few times in a hundred, so with one
/// step per iteration a search of 1,000 iterations kept 14 to 190 deals; more steps keep more
/// (each costs the opponent model's answers for one proposal).
pub const CHAIN_STEPS: usize = 8;
/// Of an iteration's `CHAIN_STEPS`, the local moves: one hidden card of the current deal dealt
/// again (swapped with another hidden card, or replaced by a card not dealt), a proposal that
/// keeps the rest of a plausible deal, so it is accepted far more often than a whole new deal.
/// The others are uniform deals: one of the chain's own first, the iteration's own last.
pub const LOCAL_STEPS: usize = 6;
/// The chance outcomes, latest first, that a belief-weighted search tries once per search to
/// find the ones its seat has not seen (the cards its local moves deal again).
pub const HIDDEN_TRIED: usize = 64;

/// The opponent model of a belief-weighted search.
#[derive(Clone, Debug)]
pub enum OpponentModel {
    /// The game's heuristic, trembling (`Belief::Heuristic`).
    Heuristic,
    /// A policy network's softmax over the legal actions, floored (`Belief::Policy`).
    Policy(Arc<PolicyNet>),
}

/// What a belief-weighted search needs besides its settings: the game's initial state (to
/// replay a determinization's history) and the opponent model.
#[derive(Clone, Debug)]
pub(super) struct BeliefSetup {
    initial: Box<dyn State>,
    model: OpponentModel,
    /// The game's compact observation rows: the chain's cache keys hash a seat's observation
    /// as its compact row (a few dozen words where the float32 row has thousands of entries).
    layout: CompactLayout,
}

impl BeliefSetup {
    pub(super) fn new(game: &dyn Game, model: OpponentModel) -> Self {
        BeliefSetup {
            initial: game.new_initial_state(),
            model,
            layout: CompactLayout::for_game(game),
        }
    }
}

/// The Metropolis-Hastings chain of a belief-weighted search's determinizations.
pub(super) struct Chain<'a> {
    setup: &'a BeliefSetup,
    /// The chain's own generator (acceptance draws, the heuristic model's moves), so the
    /// search's generator draws exactly what plain IS-MCTS draws.
    pub(super) rng: GameRng,
    /// The accepted determinization, its log weight and (once a local move needed it) its
    /// log prior.
    pub(super) current: Option<(Box<dyn State>, f64, Option<f64>)>,
    /// The history indices of the chance outcomes the searcher has not seen (after the settled
    /// prefix), found on the chain's first deal; the local moves deal these again.
    pub(super) hidden: Option<Vec<usize>>,
    /// The searcher's information state string, the same in every deal the chain may hold.
    info: String,
    /// Log likelihood ratios already computed, by (seat, observation, legal actions, action).
    cache: HashMap<u64, f64>,
    observation: Vec<f32>,
    /// The deciding seat's compact observation row (`BeliefSetup::layout`).
    row: Vec<u8>,
    legal: Vec<Action>,
}

impl<'a> Chain<'a> {
    /// A chain with no deal yet, drawing from its own generator seeded with `seed`.
    pub(super) fn new(setup: &'a BeliefSetup, seed: u64) -> Self {
        Chain {
            setup,
            rng: GameRng::new(seed),
            current: None,
            hidden: None,
            info: String::new(),
            cache: HashMap::new(),
            observation: Vec::new(),
            row: vec![0; setup.layout.row_bytes()],
            legal: Vec::new(),
        }
    }

    /// One step of the chain: `proposal` (a uniform draw) becomes the current deal if
    /// accepted; whether it was.
    pub(super) fn step(&mut self, proposal: Box<dyn State>, searcher: usize) -> bool {
        let weight = self.log_weight(proposal.as_ref(), searcher);
        let accept = match &self.current {
            None => true,
            Some((_, current, _)) => {
                weight >= *current || self.rng.unit_f64().ln() < weight - current
            }
        };
        if accept {
            self.current = Some((proposal, weight, None));
        }
        accept
    }

    /// One local move of the chain (a symmetric proposal, accepted by the ratio of prior times
    /// weight): one of the current deal's hidden chance outcomes swapped with another hidden
    /// one, or replaced by an outcome drawn uniformly from those legal at its node and not
    /// dealt after it. A proposal that does not replay, or that the searcher could tell from
    /// the current deal (its information state string differs), is refused. Whether the deal
    /// changed. Precondition: a step was taken.
    pub(super) fn local_step(&mut self, searcher: usize) -> bool {
        if !self.moves_locally(searcher) {
            return false;
        }
        let hidden = self.hidden.as_ref().expect("found by moves_locally");
        let (deal, weight, prior) = self.current.as_ref().expect("a chain has a state");
        let mut history = deal.history().to_vec();
        let i = hidden[self.rng.below(hidden.len() as u64) as usize];
        if hidden.len() > 1 && self.rng.below(2) == 0 {
            let mut j = hidden[self.rng.below(hidden.len() as u64 - 1) as usize];
            if j == i {
                j = *hidden.last().expect("two or more");
            }
            let (a, b) = (history[i].action, history[j].action);
            if a == b {
                return false;
            }
            history[i].action = b;
            history[j].action = a;
        } else {
            let Some(outcomes) = self.undealt_at(deal.as_ref(), i) else {
                return false;
            };
            let c = outcomes[self.rng.below(outcomes.len() as u64) as usize];
            if c == history[i].action {
                return false;
            }
            history[i].action = c;
        }
        let (weight, prior) = (*weight, *prior);
        let Some((proposal, new_prior)) = self.redeal(&history) else {
            return false;
        };
        if proposal.information_state_string(searcher) != self.info {
            return false;
        }
        let prior = match prior {
            Some(p) => p,
            None => {
                let (deal, _, _) = self.current.as_ref().expect("a chain has a state");
                match self.redeal(deal.history()) {
                    Some((_, p)) => p,
                    None => return false,
                }
            }
        };
        let new_weight = self.log_weight(proposal.as_ref(), searcher);
        let log_ratio = new_weight + new_prior - weight - prior;
        if log_ratio >= 0.0 || self.rng.unit_f64().ln() < log_ratio {
            self.current = Some((proposal, new_weight, Some(new_prior)));
            true
        } else {
            if let Some(current) = self.current.as_mut() {
                current.2 = Some(prior);
            }
            false
        }
    }

    /// Whether the chain has local moves: chance outcomes the searcher has not seen (found on
    /// the current deal the first time). Precondition: a step was taken.
    pub(super) fn moves_locally(&mut self, searcher: usize) -> bool {
        if self.hidden.is_none() {
            let (deal, _, _) = self.current.as_ref().expect("a chain has a state");
            let deal = deal.clone();
            self.info = deal.information_state_string(searcher);
            self.hidden = Some(self.find_hidden(deal.as_ref(), searcher));
        }
        self.hidden.as_ref().is_some_and(|h| !h.is_empty())
    }

    /// The history indices of `deal`'s chance outcomes after its settled prefix that the
    /// searcher has not seen: those where another outcome (the first one legal there and not
    /// dealt after it) replays to a state with the searcher's information string. The latest
    /// `HIDDEN_TRIED` chance outcomes are tried (each try replays the history), so a game
    /// thousands of entries long costs a bounded number of replays a search.
    fn find_hidden(&self, deal: &dyn State, searcher: usize) -> Vec<usize> {
        let history = deal.history();
        let mut hidden = Vec::new();
        let chance = (deal.settled_prefix()..history.len())
            .rev()
            .filter(|&i| history[i].player == Player::Chance)
            .take(HIDDEN_TRIED);
        for i in chance {
            let Some(outcomes) = self.undealt_at(deal, i) else {
                continue;
            };
            let Some(&other) = outcomes.iter().find(|&&c| c != history[i].action) else {
                continue;
            };
            let mut changed = history.to_vec();
            changed[i].action = other;
            if self
                .redeal(&changed)
                .is_some_and(|(s, _)| s.information_state_string(searcher) == self.info)
            {
                hidden.push(i);
            }
        }
        hidden.reverse();
        hidden
    }

    /// The chance outcomes legal at `deal`'s history entry `i` (a chance entry) that no
    /// chance entry after it deals, or `None` if it is not a chance node.
    fn undealt_at(&self, deal: &dyn State, i: usize) -> Option<Vec<Action>> {
        let history = deal.history();
        let mut state = self.setup.initial.clone();
        crate::game::replay(state.as_mut(), &history[..i]).ok()?;
        if !state.is_chance_node() {
            return None;
        }
        let later: Vec<Action> = history[i + 1..]
            .iter()
            .filter(|e| e.player == Player::Chance)
            .map(|e| e.action)
            .collect();
        let outcomes: Vec<Action> = state
            .chance_outcomes()
            .into_iter()
            .filter(|&(c, p)| p > 0.0 && !later.contains(&c))
            .map(|(c, _)| c)
            .collect();
        (!outcomes.is_empty()).then_some(outcomes)
    }

    /// The state `history` replays to from the game's initial state, with the log of the
    /// probability of its chance outcomes after the settled prefix (the deal's prior, up to a
    /// constant); `None` if it does not replay (an outcome or action is illegal there).
    fn redeal(&self, history: &[PlayerAction]) -> Option<(Box<dyn State>, f64)> {
        let mut state = self.setup.initial.clone();
        let settled = self
            .current
            .as_ref()
            .map_or(0, |(deal, _, _)| deal.settled_prefix())
            .min(history.len());
        crate::game::replay(state.as_mut(), &history[..settled]).ok()?;
        let mut prior = 0.0;
        crate::game::replay_with(state.as_mut(), &history[settled..], |state, entry| {
            if entry.player == Player::Chance {
                let p = state
                    .chance_outcomes()
                    .into_iter()
                    .find(|&(c, _)| c == entry.action)
                    .map_or(0.0, |(_, p)| p);
                if p <= 0.0 {
                    return Err(GameError::BadSerialization {
                        reason: "a chance outcome that cannot happen there".to_string(),
                    });
                }
                prior += p.ln();
            }
            Ok(())
        })
        .ok()?;
        Some((state, prior))
    }

    /// A copy of the current deal. Precondition: a step was taken.
    pub(super) fn current(&self) -> Box<dyn State> {
        self.current
            .as_ref()
            .expect("a chain has a state")
            .0
            .clone()
    }

    /// The log of the product, over the other seats' decisions in `state`'s history, of the
    /// model's probability of the action taken over the uniform one. Replays the history from
    /// the initial state, reading each deciding seat's observation where it decided. Decisions
    /// in the state's settled prefix (`State::settled_prefix`) weigh the same in every
    /// determinization, and are left out.
    pub(super) fn log_weight(&mut self, state: &dyn State, searcher: usize) -> f64 {
        let history = state.history();
        let settled = state.settled_prefix();
        let mut replay = self.setup.initial.clone();
        crate::game::replay(replay.as_mut(), &history[..settled])
            .expect("a determinization's history replays");
        let mut total = 0.0;
        crate::game::replay_with(replay.as_mut(), &history[settled..], |state, entry| {
            if let Player::Seat(seat) = entry.player
                && seat != searcher
            {
                total += self.log_ratio(state, seat, entry.action);
            }
            Ok(())
        })
        .expect("a determinization's history replays");
        total
    }

    /// The log of the model's probability that `seat` plays `action` at `state`, over
    /// uniform play's; 0 where the seat had one legal action.
    fn log_ratio(&mut self, state: &dyn State, seat: usize, action: Action) -> f64 {
        state.legal_actions_into(Player::Seat(seat), &mut self.legal);
        if self.legal.len() < 2 {
            return 0.0;
        }
        // The compact row says exactly what the float32 row says (`crate::compact`), so the
        // cache keeps the same answers; the float32 row is written only when one is missing.
        self.setup
            .layout
            .write(state, seat, &mut self.observation, &mut self.row);
        let mut key = Mix::new(seat as u64);
        key.add(action as u64);
        for &a in &self.legal {
            key.add(a as u64);
        }
        for word in self.row.chunks(8) {
            let mut bytes = [0u8; 8];
            bytes[..word.len()].copy_from_slice(word);
            key.add(u64::from_le_bytes(bytes));
        }
        let key = key.finish();
        if let Some(&ratio) = self.cache.get(&key) {
            return ratio;
        }
        let n = self.legal.len() as f64;
        let ratio = match &self.setup.model {
            OpponentModel::Heuristic => {
                // The heuristic decides on a state drawn from the seat's own information,
                // as it does in play.
                let seen = state.resample_from_infostate(seat, &mut self.rng);
                if seen.heuristic_action(seat, &mut self.rng) == action {
                    (1.0 - HEURISTIC_TREMBLE) * n + HEURISTIC_TREMBLE
                } else {
                    HEURISTIC_TREMBLE
                }
            }
            OpponentModel::Policy(net) => {
                self.observation.clear();
                self.observation
                    .resize(self.setup.layout.observation_size(), 0.0);
                state.observation_tensor(seat, &mut self.observation);
                let r = net.likelihood_ratio(&self.observation, &self.legal, action);
                // Exactly 1 where the policy finds every action equally likely.
                1.0 + (1.0 - POLICY_FLOOR) * (r - 1.0)
            }
        };
        let log = ratio.ln();
        if self.cache.len() >= BELIEF_CACHE_ENTRIES {
            self.cache.clear();
        }
        self.cache.insert(key, log);
        log
    }
}

/// A 64-bit mix of a sequence of numbers (the chain's cache keys).
struct Mix(u64);

impl Mix {
    pub(super) fn new(seed: u64) -> Self {
        Mix(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    }
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 31;
        h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
        h ^ (h >> 29)
    }
}
