//! Information-set Monte Carlo tree search (single-observer IS-MCTS, Cowling, Powley and
//! Whitehouse 2012) for every game, with decoupled UCT at simultaneous nodes (SM-MCTS,
//! Lanctot et al. 2013).
//!
//! One search decides one move of one seat (the *searcher*). Each iteration:
//! 1. **determinizes**: draws a state the searcher cannot tell from the real one with
//!    `resample_from_infostate` (the search never reads the real state otherwise, so its move
//!    depends only on what the searcher may know);
//! 2. **selects** down the tree: chance outcomes are sampled (they are not nodes: a node is
//!    the decision point reached by a sequence of seat actions); at a seat's node the seat
//!    picks by UCB1 among the actions legal *in this determinization* (a subset-armed bandit:
//!    an action's exploration term counts the iterations in which it was available); at a
//!    simultaneous node every seat picks by its own UCB1 over its own actions, and the child
//!    is the joint action, so no seat's choice depends on another's pending one;
//! 3. **expands** one node: the first time an action (or joint action) is tried below a node;
//! 4. **plays out** to the end with the rollout policy (uniformly random, or the game's
//!    heuristic bot for every seat), sampling chance;
//! 5. **backs up** every seat's return: each arm on the path adds the return of the seat that
//!    chose it.
//!
//! **Belief** (`belief=heuristic|policy`): plain IS-MCTS draws its determinizations uniformly
//! among the states the searcher cannot tell apart, as if the other seats' actions said
//! nothing about their hidden cards. With a belief, the determinizations are instead drawn in
//! proportion to how likely every other seat's actions so far were under an opponent model
//! (the game's heuristic, or the game's shipped policy), by an independence Metropolis-Hastings
//! chain: each iteration's uniform draw is the proposal, accepted with probability
//! `min(1, w(new) / w(current))`, where `w` is the product, over every decision of another seat
//! in the determinization's history, of the model's probability of the action taken relative to
//! uniform (so a model that finds every action equally likely has `w = 1` everywhere: every
//! proposal is accepted without drawing a number, and the search is plain IS-MCTS move for
//! move). The model reads the other seat's observation in the determinization (what that seat
//! would have seen had the hidden cards been these), so the search still reads nothing the
//! searcher may not know: only its own resampled state and the game's initial state.
//!
//! The move is the searcher's most visited root action (ties: the better mean, then the
//! lower id). Returns are scaled into `[0, 1]` by the smallest and largest return seen so
//! far in the search, so the exploration constant `c` means the same in every game.
//!
//! Memory: an iteration adds at most one node and at most one arm per seat, so a search of
//! `n` iterations holds at most `n + 1` nodes (`NODE_BYTES`, 48: two vectors), `n × players`
//! arms (`ARM_BYTES`, 24) and `n` joint children at simultaneous nodes (16 bytes each), plus
//! vector slack of at most a factor 2. `iterations` is capped at 1,000,000 (about 100 MB for a
//! two-seat game at the cap).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bots::Bot;
use crate::env::GameRng;
use crate::game::{Action, Game, GameError, Player, State};

mod belief;

pub use belief::{
    BELIEF_CACHE_ENTRIES, CHAIN_STEPS, HEURISTIC_TREMBLE, HIDDEN_TRIED, LOCAL_STEPS, OpponentModel,
    POLICY_FLOOR,
};
use belief::{BeliefSetup, Chain};

/// Bytes of one arm (per-action statistics) in the tree.
pub const ARM_BYTES: usize = std::mem::size_of::<Arm>();
/// Bytes of one node in the tree, not counting its arms and joint children.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// How playouts choose actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// Uniformly random legal actions.
    Random,
    /// The game's heuristic bot, for every seat.
    Heuristic,
}

impl Rollout {
    /// The policy's name in bot specs.
    pub fn name(self) -> &'static str {
        match self {
            Rollout::Random => "random",
            Rollout::Heuristic => "heuristic",
        }
    }
}

/// How an IS-MCTS bot weights its determinizations (see the module's documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Belief {
    /// Uniformly among the states the searcher cannot tell apart (plain IS-MCTS).
    #[default]
    None,
    /// By the game's heuristic bot, trembling: it takes the heuristic's action with
    /// probability `1 - HEURISTIC_TREMBLE`, else a uniformly random legal one.
    Heuristic,
    /// By the game's shipped policy (its softmax over the legal actions), mixed with uniform
    /// play at `POLICY_FLOOR`.
    Policy,
}

impl Belief {
    /// The belief's name in bot specs.
    pub fn name(self) -> &'static str {
        match self {
            Belief::None => "none",
            Belief::Heuristic => "heuristic",
            Belief::Policy => "policy",
        }
    }
}

/// The bot a best-response search (`br`) plays against, known to it: at the target's seats
/// the search plays the target's own actions instead of searching them, and it weights its
/// determinizations by the target's likelihood of the actions taken so far (uniformly for
/// `random`, by the trembling heuristic for `heuristic`, by the shipped policy for `policy`).
/// What the search reads of its target is the target's policy, never a hidden card: the
/// target decides on states resampled from its own seat's information.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The uniformly random bot.
    Random,
    /// The game's heuristic bot.
    Heuristic,
    /// The game's shipped policy (the `policy` bot).
    Policy,
}

impl Target {
    /// The target's bot spec (`random`, `heuristic`, `policy`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Random => "random",
            Target::Heuristic => "heuristic",
            Target::Policy => "policy",
        }
    }

    /// How the search weights its determinizations against this target.
    pub fn belief(self) -> Belief {
        match self {
            Target::Random => Belief::None,
            Target::Heuristic => Belief::Heuristic,
            Target::Policy => Belief::Policy,
        }
    }
}

/// The settings of one IS-MCTS bot (validated by `bots::spec`).
#[derive(Clone, Debug, PartialEq)]
pub struct IsmctsConfig {
    /// Iterations per move.
    pub iterations: u32,
    /// A time budget per move in milliseconds; the search stops at whichever of the two
    /// budgets ends first. `None`: iterations only (then the move is reproducible).
    pub max_ms: Option<u64>,
    /// The UCB1 exploration constant, on returns scaled into `[0, 1]`.
    pub c: f64,
    /// The playout policy.
    pub rollout: Rollout,
    /// A fixed seed: every move is searched from this seed (mixed with nothing else), so a
    /// move depends only on the seat's information. `None`: one draw from the caller's
    /// generator per move.
    pub seed: Option<u64>,
    /// How determinizations are weighted (`None`: uniformly, plain IS-MCTS).
    pub belief: Belief,
    /// The policy file read as the opponent model of `belief=policy` (or as a `br` search's
    /// `policy` target) instead of the game's shipped policy. `None`: the shipped one.
    pub path: Option<String>,
}

impl Default for IsmctsConfig {
    fn default() -> Self {
        IsmctsConfig {
            iterations: 1000,
            max_ms: None,
            c: 0.7,
            rollout: Rollout::Heuristic,
            seed: None,
            belief: Belief::None,
            path: None,
        }
    }
}

/// What one search found: the move and the root statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The chosen action.
    pub action: Action,
    /// Iterations run.
    pub iterations: u32,
    /// Nodes in the tree at the end.
    pub nodes: usize,
    /// Determinizations the iterations searched, counting each once: every iteration's in a
    /// plain search; with a belief, the iterations whose deal the chain changed (by a new deal
    /// or a local move that dealt one card again; an iteration whose every proposal is refused
    /// searches the current deal again).
    pub deals: u32,
    /// For each of the searcher's root actions: (action, visits, mean return of the seat).
    pub root: Vec<(Action, u32, f64)>,
}

const NO_CHILD: u32 = u32::MAX;

/// Statistics of one (seat, action) at a node.
#[derive(Clone, Copy, Debug)]
struct Arm {
    /// `seat << 32 | action`: arms sort by seat, then action.
    key: u64,
    /// The node reached (sequential nodes), or `NO_CHILD` (simultaneous nodes keep their
    /// children by joint action).
    child: u32,
    visits: u32,
    /// Iterations in which this action was legal when its node was selected through.
    avail: u32,
    /// Sum of the seat's returns over the visits.
    total: f32,
}

/// A decision point: the arms of the seats that acted here, and (at simultaneous nodes) the
/// children by joint action.
#[derive(Debug, Default)]
struct Node {
    arms: Vec<Arm>,
    joint: Vec<(u64, u32)>,
}

fn arm_key(seat: usize, action: Action) -> u64 {
    (seat as u64) << 32 | action as u64
}

/// A joint action as one key: exact for two seats with 32-bit actions, a 64-bit mix above.
fn joint_key(actions: &[Action]) -> u64 {
    if let [a, b] = actions {
        return (*a as u64) << 32 | *b as u64;
    }
    let mut h = 0x9E37_79B9_7F4A_7C15u64;
    for &a in actions {
        h = (h ^ a as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 31;
    }
    h
}

/// The running range of backed-up returns, for scaling into `[0, 1]`.
struct Scale {
    lo: f64,
    hi: f64,
}

impl Scale {
    fn see(&mut self, returns: &[f64]) {
        for &r in returns {
            self.lo = self.lo.min(r);
            self.hi = self.hi.max(r);
        }
    }
    fn unit(&self, mean: f64) -> f64 {
        if self.hi > self.lo {
            (mean - self.lo) / (self.hi - self.lo)
        } else {
            0.5
        }
    }
}

/// One search's tree and scratch buffers.
struct Search<'a> {
    config: &'a IsmctsConfig,
    /// The seat searching.
    searcher: usize,
    /// A best-response search's target, which plays every other seat.
    target: Option<&'a dyn Bot>,
    nodes: Vec<Node>,
    scale: Scale,
    legal: Vec<Action>,
    joint: Vec<Action>,
    /// (node, arm index) pairs selected in this iteration.
    path: Vec<(u32, u32)>,
    /// For each legal action at the node being chosen at: its arm's index (or where its arm
    /// would go) and whether it has one.
    slots: Vec<(usize, bool)>,
}

impl Search<'_> {
    /// Chooses among `seat`'s `legal` actions at `node`: an untried one at random (expanding),
    /// else by UCB1. Returns the arm's index (after any insertion) and whether it is new.
    fn choose(&mut self, node: u32, seat: usize, rng: &mut GameRng) -> (usize, bool) {
        let arms = &mut self.nodes[node as usize].arms;
        let hi = arms.partition_point(|a| a.key < arm_key(seat + 1, 0));
        // One merge walk of the sorted legal actions with this seat's sorted arms: where each
        // action's arm is, or would be inserted, and how many have none yet.
        self.slots.clear();
        let mut i = arms.partition_point(|a| a.key < arm_key(seat, 0));
        let mut untried = 0usize;
        for &a in &self.legal {
            let key = arm_key(seat, a);
            while i < hi && arms[i].key < key {
                i += 1;
            }
            let tried = i < hi && arms[i].key == key;
            untried += usize::from(!tried);
            self.slots.push((i, tried));
        }
        if untried > 0 {
            let k = rng.below(untried as u64) as usize;
            let (at, action) = self
                .slots
                .iter()
                .zip(&self.legal)
                .filter(|(slot, _)| !slot.1)
                .map(|(slot, &a)| (slot.0, a))
                .nth(k)
                .expect("an untried action was counted");
            let arm = Arm {
                key: arm_key(seat, action),
                child: NO_CHILD,
                visits: 0,
                avail: 1,
                total: 0.0,
            };
            arms.insert(at, arm);
            return (at, true);
        }
        let mut best = (f64::NEG_INFINITY, 0usize);
        for &(i, _) in &self.slots {
            let arm = &mut arms[i];
            arm.avail += 1;
            let mean = arm.total as f64 / arm.visits.max(1) as f64;
            let ucb = self.scale.unit(mean)
                + self.config.c * ((arm.avail as f64).ln() / arm.visits.max(1) as f64).sqrt();
            if ucb > best.0 {
                best = (ucb, i);
            }
        }
        (best.1, false)
    }

    /// The arm of `seat`'s `action` at `node` (a target's move, not chosen by the search),
    /// inserted if missing. Returns the arm's index and whether it is new.
    fn follow(&mut self, node: u32, seat: usize, action: Action) -> (usize, bool) {
        let arms = &mut self.nodes[node as usize].arms;
        let key = arm_key(seat, action);
        match arms.binary_search_by_key(&key, |a| a.key) {
            Ok(i) => (i, false),
            Err(at) => {
                arms.insert(
                    at,
                    Arm {
                        key,
                        child: NO_CHILD,
                        visits: 0,
                        avail: 1,
                        total: 0.0,
                    },
                );
                (at, true)
            }
        }
    }

    /// The target's move for `seat`, where the search has a target and `seat` is not the
    /// searcher's.
    fn target_move(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Option<Action> {
        let target = self.target.filter(|_| seat != self.searcher)?;
        Some(
            target
                .try_act(state, seat, rng)
                .expect("the target may act where its seat is to act"),
        )
    }

    fn new_node(&mut self) -> u32 {
        self.nodes.push(Node::default());
        (self.nodes.len() - 1) as u32
    }

    /// One iteration from a determinization.
    fn iterate(&mut self, mut state: Box<dyn State>, rng: &mut GameRng) {
        self.path.clear();
        let mut node = 0u32;
        let mut expanded = false;
        while !expanded {
            crate::env::resolve_chance(state.as_mut(), rng);
            match state.current_player() {
                Player::Terminal | Player::Chance => break,
                Player::Seat(seat) => {
                    let (i, new) = match self.target_move(state.as_ref(), seat, rng) {
                        Some(action) => self.follow(node, seat, action),
                        None => {
                            state.legal_actions_into(Player::Seat(seat), &mut self.legal);
                            self.choose(node, seat, rng)
                        }
                    };
                    let arm = self.nodes[node as usize].arms[i];
                    self.path.push((node, i as u32));
                    state
                        .apply_action(arm.key as u32)
                        .expect("a legal action applies");
                    if new {
                        let child = self.new_node();
                        self.nodes[node as usize].arms[i].child = child;
                        expanded = true;
                    } else {
                        node = arm.child;
                    }
                }
                Player::Simultaneous => {
                    // Decoupled: every seat picks by its own statistics. A later seat's
                    // arms sort after an earlier seat's, so an insertion for seat k leaves
                    // the indices recorded for seats below k valid.
                    self.joint.clear();
                    for seat in 0..state.num_players() {
                        let (i, new) = match self.target_move(state.as_ref(), seat, rng) {
                            Some(action) => self.follow(node, seat, action),
                            None => {
                                state.legal_actions_into(Player::Seat(seat), &mut self.legal);
                                assert!(
                                    !self.legal.is_empty(),
                                    "every seat has an action at a simultaneous node"
                                );
                                self.choose(node, seat, rng)
                            }
                        };
                        expanded |= new;
                        self.path.push((node, i as u32));
                        self.joint
                            .push(self.nodes[node as usize].arms[i].key as u32);
                    }
                    let key = joint_key(&self.joint);
                    let found = self.nodes[node as usize]
                        .joint
                        .iter()
                        .find(|j| j.0 == key)
                        .map(|j| j.1);
                    state
                        .apply_actions(&self.joint)
                        .expect("a legal joint action applies");
                    match found {
                        Some(child) if !expanded => node = child,
                        _ => {
                            if found.is_none() {
                                let child = self.new_node();
                                self.nodes[node as usize].joint.push((key, child));
                            }
                            expanded = true;
                        }
                    }
                }
            }
        }
        self.play_out(state.as_mut(), rng);
        let returns = state.returns();
        self.scale.see(&returns);
        for &(node, i) in &self.path {
            let arm = &mut self.nodes[node as usize].arms[i as usize];
            arm.visits += 1;
            arm.total += returns[(arm.key >> 32) as usize] as f32;
        }
    }

    /// Plays to the end with the rollout policy.
    fn play_out(&mut self, state: &mut dyn State, rng: &mut GameRng) {
        loop {
            match state.current_player() {
                Player::Terminal => return,
                Player::Chance => crate::env::resolve_chance(state, rng),
                Player::Seat(seat) => {
                    let action = self.policy(state, seat, rng);
                    state.apply_action(action).expect("a legal action applies");
                }
                Player::Simultaneous => {
                    self.joint.clear();
                    for seat in 0..state.num_players() {
                        let action = self.policy(state, seat, rng);
                        self.joint.push(action);
                    }
                    state
                        .apply_actions(&self.joint)
                        .expect("a legal joint action applies");
                }
            }
        }
    }

    fn policy(&mut self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action {
        if let Some(action) = self.target_move(state, seat, rng) {
            return action;
        }
        match self.config.rollout {
            Rollout::Heuristic => state.heuristic_action(seat, rng),
            Rollout::Random => {
                state.legal_actions_into(Player::Seat(seat), &mut self.legal);
                rng.choose(&self.legal)
            }
        }
    }
}

/// An IS-MCTS bot: `act` runs one search.
#[derive(Clone, Debug)]
pub struct IsmctsBot {
    config: IsmctsConfig,
    belief: Option<Arc<BeliefSetup>>,
    /// A best-response search's target (`br`): its kind and its bot.
    target: Option<(Target, TargetBot)>,
}

/// The error of a `path=` file that a search cannot read as its policy model (`why`: what it
/// must be).
fn bad_file(bot: &str, file: &str, why: String) -> GameError {
    GameError::InvalidBotParameter {
        bot: bot.to_string(),
        name: "path".to_string(),
        value: file.to_string(),
        allowed: why,
    }
}

/// What a `path=` file trained on another game is told it must be.
fn trained_elsewhere(game: &dyn Game, e: impl std::fmt::Display) -> String {
    format!(
        "a policy trained on {}, and this one is not ({e})",
        game.info().name
    )
}

/// A target's bot, shown by its spec.
#[derive(Clone)]
struct TargetBot(Arc<dyn Bot>);

impl std::fmt::Debug for TargetBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TargetBot({})", self.0.spec())
    }
}

impl IsmctsBot {
    /// A plain IS-MCTS bot with `config` (heuristic rollouts play the game's heuristic).
    /// Precondition: `config.belief` is `Belief::None`; a belief needs the game
    /// (`IsmctsBot::for_game`), and this panics without it.
    pub fn new(config: IsmctsConfig) -> Self {
        assert_eq!(
            config.belief,
            Belief::None,
            "a belief-weighted IS-MCTS bot is built with IsmctsBot::for_game"
        );
        IsmctsBot {
            config,
            belief: None,
            target: None,
        }
    }

    /// The bot of `config` for `game`: with `belief=policy`, the game's shipped policy is the
    /// opponent model, and a game that ships none is an error naming the setting.
    pub fn for_game(config: IsmctsConfig, game: &dyn Game) -> Result<Self, GameError> {
        let model = match config.belief {
            Belief::None => return Ok(IsmctsBot::new(config)),
            Belief::Heuristic => OpponentModel::Heuristic,
            Belief::Policy => {
                let refuse = |why: String| GameError::InvalidBotParameter {
                    bot: "ismcts".to_string(),
                    name: "belief".to_string(),
                    value: "policy".to_string(),
                    allowed: format!("none or heuristic: {why}"),
                };
                let net = crate::bots::policy::shipped_or_file(game, config.path.as_deref())
                    .map_err(|why| match &config.path {
                        Some(file) => bad_file("ismcts", file, why),
                        None => refuse(why),
                    })?;
                // A policy trained with another observation (`PolicyNet::observer`) weighs
                // the histories replayed in the variant it observes: the rules are the same.
                let observer = net.observer(game).map_err(|e| match &config.path {
                    Some(file) => bad_file("ismcts", file, trained_elsewhere(game, e)),
                    None => refuse(format!(
                        "the policy shipped for {} does not play it ({e})",
                        game.info().name
                    )),
                })?;
                let model = OpponentModel::Policy(net);
                return Ok(match observer {
                    Some(observed) => IsmctsBot::with_model(config, observed.as_ref(), model),
                    None => IsmctsBot::with_model(config, game, model),
                });
            }
        };
        Ok(IsmctsBot::with_model(config, game, model))
    }

    /// A belief-weighted bot with its own opponent `model` (any policy network for `game`,
    /// or the heuristic); `config.belief` names the model's kind in the bot's spec. The
    /// histories it weighs are replayed in `game`, which may be a variant of the game played
    /// with the same rules (the one a policy observes: `PolicyNet::observer`).
    /// Precondition: a policy fits `game` (`PolicyNet::check_game`).
    pub fn with_model(config: IsmctsConfig, game: &dyn Game, model: OpponentModel) -> Self {
        IsmctsBot {
            config,
            belief: Some(Arc::new(BeliefSetup::new(game, model))),
            target: None,
        }
    }

    /// A best-response search against `target` for `game` (the `br` bot): `config`'s belief
    /// is replaced by the target's (`Target::belief`). A `policy` target needs a policy shipped
    /// for the game, else the error names the setting.
    pub fn best_response(
        mut config: IsmctsConfig,
        target: Target,
        game: &dyn Game,
    ) -> Result<Self, GameError> {
        let refuse = |why: String| GameError::InvalidBotParameter {
            bot: "br".to_string(),
            name: "target".to_string(),
            value: target.name().to_string(),
            allowed: why,
        };
        let bot: Arc<dyn Bot> = match target {
            Target::Random => Arc::new(crate::bots::RandomBot),
            Target::Heuristic => Arc::new(crate::bots::HeuristicBot),
            Target::Policy => {
                // A file's faults name `path`; without one, the game ships no policy.
                let fault = |why: String| match &config.path {
                    Some(file) => bad_file("br", file, why),
                    None => refuse(format!("random or heuristic: {why}")),
                };
                let net = crate::bots::policy::shipped_or_file(game, config.path.as_deref())
                    .map_err(fault)?;
                Arc::new(
                    crate::bots::policy::PolicyBot::for_game(net, config.path.clone(), game)
                        .map_err(|e| fault(trained_elsewhere(game, e)))?,
                )
            }
        };
        config.belief = target.belief();
        let mut searcher = IsmctsBot::for_game(config, game)?;
        searcher.target = Some((target, TargetBot(bot)));
        Ok(searcher)
    }

    /// A best-response search's target, if the bot is one.
    pub fn target(&self) -> Option<Target> {
        self.target.as_ref().map(|t| t.0)
    }

    /// The bot's settings.
    pub fn config(&self) -> &IsmctsConfig {
        &self.config
    }

    /// Searches `seat`'s move at `state` (a state where `seat` may act). Draws one number
    /// from `rng` when the bot has no fixed seed.
    pub fn search(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> SearchResult {
        let mut rng = GameRng::new(match self.config.seed {
            Some(seed) => seed,
            None => rng.next_u64(),
        });
        let legal = state.legal_actions_for(Player::Seat(seat));
        assert!(
            !legal.is_empty(),
            "IS-MCTS searched for a seat that may not act"
        );
        if legal.len() == 1 {
            return SearchResult {
                action: legal[0],
                iterations: 0,
                nodes: 1,
                deals: 0,
                root: vec![(legal[0], 0, 0.0)],
            };
        }
        let start = Instant::now();
        let budget = self.config.max_ms.map(Duration::from_millis);
        let mut search = Search {
            config: &self.config,
            searcher: seat,
            target: self.target.as_ref().map(|t| t.1.0.as_ref()),
            nodes: vec![Node::default()],
            scale: Scale {
                lo: f64::INFINITY,
                hi: f64::NEG_INFINITY,
            },
            legal: Vec::new(),
            joint: Vec::new(),
            path: Vec::new(),
            slots: Vec::new(),
        };
        let mut chain = self
            .belief
            .as_deref()
            .map(|setup| Chain::new(setup, rng.clone().next_u64() ^ 0xB5AD_4ECE_DA1C_E2A9));
        let mut iterations = 0;
        let mut deals = 0;
        while iterations < self.config.iterations {
            if iterations > 0 && budget.is_some_and(|b| start.elapsed() >= b) {
                break;
            }
            let mut determinization = state.resample_from_infostate(seat, &mut rng);
            let mut fresh = true;
            if let Some(chain) = chain.as_mut() {
                // A uniform proposal and `LOCAL_STEPS` local moves of the chain's own, then
                // the search's uniform draw: with equal weights every deal is accepted, and the
                // deal searched is the search's own draw, as in plain IS-MCTS.
                // A game whose hidden information is no chance outcome (Prediction Chess's
                // predictions are the seats' own) takes uniform proposals instead.
                let mut moved = false;
                for k in 1..CHAIN_STEPS {
                    if k > CHAIN_STEPS - 1 - LOCAL_STEPS && chain.moves_locally(seat) {
                        moved |= chain.local_step(seat);
                    } else {
                        let extra = state.resample_from_infostate(seat, &mut chain.rng);
                        moved |= chain.step(extra, seat);
                    }
                }
                fresh = chain.step(determinization, seat) || moved;
                determinization = chain.current();
            }
            deals += u32::from(fresh);
            search.iterate(determinization, &mut rng);
            iterations += 1;
        }
        let arms = &search.nodes[0].arms;
        let root: Vec<(Action, u32, f64)> = legal
            .iter()
            .map(
                |&a| match arms.binary_search_by_key(&arm_key(seat, a), |arm| arm.key) {
                    Ok(i) => {
                        let arm = &arms[i];
                        (a, arm.visits, arm.total as f64 / arm.visits.max(1) as f64)
                    }
                    Err(_) => (a, 0, 0.0),
                },
            )
            .collect();
        let mut best = root[0];
        for &r in &root[1..] {
            if r.1 > best.1 || (r.1 == best.1 && r.2 > best.2) {
                best = r;
            }
        }
        SearchResult {
            action: best.0,
            iterations,
            nodes: search.nodes.len(),
            deals,
            root,
        }
    }
}

impl Bot for IsmctsBot {
    fn act(&self, state: &dyn State, seat: usize, rng: &mut GameRng) -> Action {
        self.search(state, seat, rng).action
    }
    fn name(&self) -> &'static str {
        if self.target.is_some() {
            "br"
        } else {
            "ismcts"
        }
    }
    fn spec(&self) -> String {
        match &self.target {
            Some((target, _)) => crate::bots::BotSpec::BestResponse {
                target: *target,
                config: self.config.clone(),
            }
            .to_string(),
            None => crate::bots::BotSpec::Ismcts(self.config.clone()).to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
