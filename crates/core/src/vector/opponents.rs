//! Seats played by the engine in a `VectorEnv` (`VectorEnv::with_opponents`): the learner's
//! seat, a weighted pool of opponents, and how an env plays the opponents' moves until its
//! learner must decide.
//!
//! Every opponent move goes through `Bot::try_act`, so an opponent sees only what its seat may
//! know: it acts on a state resampled from its own information state, never on the true one
//! (the learner's hidden cards and its pending choice at a simultaneous node stay hidden).
//!
//! Seeding and the per-env evaluation of policies: see the `vector` module docs.

use std::fmt;
use std::sync::Arc;

use crate::bots::Bot;
use crate::bots::policy::PolicyBot;
use crate::bots::spec::BotSpec;
use crate::env::{Env, GameRng};
use crate::game::{Action, Game, GameError, Player};

/// Mixed into env seeds for the stream that draws learner seats and opponents.
const DRAW_SALT: u64 = 0x0dd5_eed5_0f5e_a75e;
/// Mixed into env seeds for the stream the opponents decide with.
const BOT_SALT: u64 = 0xb07_5eed_0b07_5eed;

/// Games in a row that may end before the learner's first decision before an env gives up
/// (such games are played out and skipped: see `VectorEnv::with_opponents`).
pub const MAX_SKIPPED_GAMES: u64 = 1000;

/// Which seat the learner plays in each env of a batch with opponents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LearnerSeat {
    /// Always this seat.
    Fixed(usize),
    /// A seat drawn uniformly for each game, from the env's own seeded stream.
    Drawn,
}

/// One entry of an opponent pool.
#[derive(Clone)]
pub enum Opponent {
    /// A bot spec string, as every face accepts it: `random`, `heuristic`,
    /// `ismcts(iterations=200)`, `policy`, `policy(path=FILE)`.
    Spec(String),
    /// A policy file's bytes held in memory (safetensors, as `python -m checkraise.train`
    /// writes them): a trainer's snapshot of its network, passed without a file. `name`
    /// labels it in errors and snapshots.
    PolicyBytes {
        /// A label for errors and snapshots.
        name: String,
        /// The policy file's bytes.
        bytes: Arc<[u8]>,
    },
    /// A bot object (for Rust callers). It plays through `Bot::try_act` like every other.
    Bot(Arc<dyn Bot>),
}

impl Opponent {
    /// The opponent a spec string names (checked when the pool is built).
    pub fn spec(text: impl Into<String>) -> Self {
        Opponent::Spec(text.into())
    }

    /// A policy given as the bytes of its file, labelled `name`.
    pub fn policy_bytes(name: impl Into<String>, bytes: impl Into<Arc<[u8]>>) -> Self {
        Opponent::PolicyBytes {
            name: name.into(),
            bytes: bytes.into(),
        }
    }

    /// How errors name this entry.
    fn describe(&self) -> String {
        match self {
            Opponent::Spec(text) => text.clone(),
            Opponent::PolicyBytes { name, bytes } => {
                format!("policy bytes {name} ({} bytes)", bytes.len())
            }
            Opponent::Bot(bot) => format!("bot object {}", bot.spec()),
        }
    }
}

impl fmt::Debug for Opponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// The seats the engine plays in a `VectorEnv`: the learner's seat and a weighted pool of
/// opponents. Each non-learner seat of each env draws its opponent from the pool by weight
/// at the start of every game.
///
/// ```
/// use checkraise_core::vector::{LearnerSeat, Opponent, Opponents};
///
/// let opponents = Opponents::new(LearnerSeat::Drawn)
///     .with(Opponent::spec("heuristic"), 3.0)
///     .with(Opponent::spec("random"), 1.0);
/// assert_eq!(opponents.pool.len(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Opponents {
    /// The learner's seat.
    pub learner: LearnerSeat,
    /// The pool: each opponent with its weight (finite, above 0).
    pub pool: Vec<(Opponent, f64)>,
}

impl Opponents {
    /// No opponents yet, the learner at `learner`.
    pub fn new(learner: LearnerSeat) -> Self {
        Opponents {
            learner,
            pool: Vec::new(),
        }
    }

    /// The same, with `opponent` added to the pool at `weight`.
    pub fn with(mut self, opponent: Opponent, weight: f64) -> Self {
        self.pool.push((opponent, weight));
        self
    }
}

/// What a snapshot keeps of a pool entry: a spec string rebuilds the entry; in-memory
/// entries are kept by a fingerprint only, and a restore must be handed them again.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) enum SavedOpponent {
    Spec(String),
    PolicyBytes {
        name: String,
        len: usize,
        fingerprint: u64,
    },
    Bot(String),
}

/// What a snapshot keeps of a pool.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct SavedPool {
    learner: LearnerSeat,
    /// Each entry with its weight's bits (exact through JSON).
    entries: Vec<(SavedOpponent, u64)>,
}

/// A built pool: every entry's bot, ready to play.
pub(super) struct Pool {
    learner: LearnerSeat,
    bots: Vec<Arc<dyn Bot>>,
    /// Running sums of the weights.
    cumulative: Vec<f64>,
    saved: SavedPool,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool").field("saved", &self.saved).finish()
    }
}

/// FNV-1a over `bytes`: how a snapshot recognizes an in-memory policy.
fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn invalid(
    name: impl Into<String>,
    value: impl Into<String>,
    allowed: impl Into<String>,
) -> GameError {
    GameError::InvalidSetting {
        name: name.into(),
        value: value.into(),
        allowed: allowed.into(),
    }
}

impl Pool {
    /// Checks and builds `opponents` for `game`; the errors name the entry and the problem.
    pub(super) fn build(game: &dyn Game, opponents: &Opponents) -> Result<Pool, GameError> {
        let n = game.num_players();
        if let LearnerSeat::Fixed(seat) = opponents.learner
            && seat >= n
        {
            return Err(invalid(
                "learner seat",
                seat.to_string(),
                format!("a seat of {} from 0 to {}", game.info().name, n - 1),
            ));
        }
        if opponents.pool.is_empty() {
            return Err(invalid(
                "opponents",
                "an empty pool",
                "at least one opponent with a weight above 0",
            ));
        }
        let mut bots = Vec::new();
        let mut cumulative = Vec::new();
        let mut entries = Vec::new();
        let mut total = 0.0;
        let name = game.info().name;
        for (k, (opponent, weight)) in opponents.pool.iter().enumerate() {
            if !(weight.is_finite() && *weight > 0.0) {
                return Err(invalid(
                    format!("weight of opponent {k} ({})", opponent.describe()),
                    weight.to_string(),
                    "a finite number above 0",
                ));
            }
            let (bot, saved): (Arc<dyn Bot>, SavedOpponent) = match opponent {
                Opponent::Spec(text) => {
                    let bot = BotSpec::parse::<&str, &str>(text, [])
                        .and_then(|spec| spec.build(game))
                        .map_err(|e| {
                            invalid(
                                format!("opponent {k}"),
                                text.clone(),
                                format!("a bot spec that plays {name} ({e})"),
                            )
                        })?;
                    (Arc::from(bot), SavedOpponent::Spec(text.clone()))
                }
                Opponent::PolicyBytes { name: label, bytes } => {
                    let bot = PolicyBot::from_bytes(bytes, game, label).map_err(|e| {
                        invalid(
                            format!("opponent {k}"),
                            opponent.describe(),
                            format!("a policy that plays {name} ({e})"),
                        )
                    })?;
                    let saved = SavedOpponent::PolicyBytes {
                        name: label.clone(),
                        len: bytes.len(),
                        fingerprint: fingerprint(bytes),
                    };
                    (Arc::new(bot), saved)
                }
                Opponent::Bot(bot) => (bot.clone(), SavedOpponent::Bot(bot.spec())),
            };
            total += weight;
            bots.push(bot);
            cumulative.push(total);
            entries.push((saved, weight.to_bits()));
        }
        if !total.is_finite() {
            return Err(invalid(
                "opponents",
                format!("weights summing to {total}"),
                "weights with a finite sum",
            ));
        }
        Ok(Pool {
            learner: opponents.learner,
            bots,
            cumulative,
            saved: SavedPool {
                learner: opponents.learner,
                entries,
            },
        })
    }

    /// Rebuilds a saved pool of spec strings only; a pool with in-memory entries is refused,
    /// naming the first such entry.
    pub(super) fn rebuild(game: &dyn Game, saved: &SavedPool) -> Result<Pool, GameError> {
        let mut opponents = Opponents::new(saved.learner);
        for (k, (entry, bits)) in saved.entries.iter().enumerate() {
            let opponent = match entry {
                SavedOpponent::Spec(text) => Opponent::Spec(text.clone()),
                SavedOpponent::PolicyBytes { name, .. } => {
                    return Err(in_memory(k, &format!("policy bytes {name}")));
                }
                SavedOpponent::Bot(spec) => {
                    return Err(in_memory(k, &format!("bot object {spec}")));
                }
            };
            opponents.pool.push((opponent, f64::from_bits(*bits)));
        }
        Pool::build(game, &opponents)
    }

    /// `opponents` built for `game`, if they are the pool `saved` describes (same learner
    /// seat, entries, weights and policy bytes); else the error names the first difference.
    pub(super) fn matching(
        game: &dyn Game,
        opponents: &Opponents,
        saved: &SavedPool,
    ) -> Result<Pool, GameError> {
        let pool = Pool::build(game, opponents)?;
        let differ = |what: String| GameError::BadSerialization {
            reason: format!(
                "the opponents given are not the pool this snapshot was taken with: {what}"
            ),
        };
        if pool.saved.learner != saved.learner {
            return Err(differ(format!(
                "learner seat {:?}, the snapshot's {:?}",
                pool.saved.learner, saved.learner
            )));
        }
        if pool.saved.entries.len() != saved.entries.len() {
            return Err(differ(format!(
                "{} entries, the snapshot's {}",
                pool.saved.entries.len(),
                saved.entries.len()
            )));
        }
        for (k, (given, kept)) in pool.saved.entries.iter().zip(&saved.entries).enumerate() {
            if given != kept {
                return Err(differ(format!(
                    "entry {k} is {:?} at weight {}, the snapshot's {:?} at weight {}",
                    given.0,
                    f64::from_bits(given.1),
                    kept.0,
                    f64::from_bits(kept.1)
                )));
            }
        }
        Ok(pool)
    }

    /// The number of entries.
    pub(super) fn len(&self) -> usize {
        self.bots.len()
    }

    /// What a snapshot keeps of this pool.
    pub(super) fn saved(&self) -> &SavedPool {
        &self.saved
    }

    /// Whether a snapshot alone can rebuild this pool (its entries are all spec strings).
    pub(super) fn rebuildable(&self) -> bool {
        self.saved
            .entries
            .iter()
            .all(|(e, _)| matches!(e, SavedOpponent::Spec(_)))
    }

    /// An entry drawn by weight.
    fn pick(&self, rng: &mut GameRng) -> usize {
        if self.cumulative.len() == 1 {
            return 0;
        }
        let total = self.cumulative[self.cumulative.len() - 1];
        let u = rng.unit_f64() * total;
        self.cumulative
            .iter()
            .position(|&c| u < c)
            .unwrap_or(self.cumulative.len() - 1)
    }
}

fn in_memory(k: usize, what: &str) -> GameError {
    GameError::BadSerialization {
        reason: format!(
            "this snapshot's opponent pool holds an in-memory entry (opponent {k}: {what}) that \
             a snapshot does not store; restore it with VectorEnv::restore_with_opponents, \
             handing it the same pool"
        ),
    }
}

/// One env's seating in a batch with opponents: the learner's seat, each seat's opponent,
/// and the env's streams for drawing them and for their decisions.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Seating {
    /// The learner's seat in the current game.
    pub(super) learner: usize,
    /// Each seat's opponent (an index into the pool; the learner's entry is unused).
    pub(super) opponents: Vec<usize>,
    draws: GameRng,
    bots: GameRng,
    /// The learner's rewards from moves not yet reported (those before its first decision
    /// of a game are reported with its first step).
    pending: f64,
    /// Games ended before the learner's first decision, skipped.
    pub(super) skipped: u64,
    /// Scratch: a joint action.
    #[serde(skip)]
    joint: Vec<Action>,
    /// Scratch: each seat's rewards from one move.
    #[serde(skip)]
    rewards: Vec<f64>,
}

impl Seating {
    /// The seating of env seeded with `seed` in a game of `players` seats (seats drawn by
    /// `begin`).
    pub(super) fn new(seed: u64, players: usize) -> Self {
        Seating {
            learner: 0,
            opponents: vec![0; players],
            draws: GameRng::new(seed ^ DRAW_SALT),
            bots: GameRng::new(seed ^ BOT_SALT),
            pending: 0.0,
            skipped: 0,
            joint: Vec::new(),
            rewards: vec![0.0; players],
        }
    }

    /// Restarts the streams from `seed` (a reset with a seed).
    pub(super) fn reseed(&mut self, seed: u64) {
        let players = self.opponents.len();
        let skipped = self.skipped;
        *self = Seating::new(seed, players);
        self.skipped = skipped;
    }

    /// Scratch buffers a deserialized seating lacks.
    pub(super) fn fix_scratch(&mut self) {
        self.rewards = vec![0.0; self.opponents.len()];
    }

    /// Draws the learner's seat and the opponents for a new game in `env`, and plays until
    /// the learner must decide. A game that ends before the learner's first decision is
    /// played out and skipped (a new game starts with new draws), up to
    /// `MAX_SKIPPED_GAMES` in a row.
    pub(super) fn begin(&mut self, env: &mut Env, pool: &Pool) -> Result<(), GameError> {
        let players = self.opponents.len();
        for attempt in 1.. {
            self.learner = match pool.learner {
                LearnerSeat::Fixed(seat) => seat,
                LearnerSeat::Drawn => self.draws.below(players as u64) as usize,
            };
            for seat in 0..players {
                self.opponents[seat] = if seat == self.learner {
                    0
                } else {
                    pool.pick(&mut self.draws)
                };
            }
            self.pending = 0.0;
            self.advance(env, pool)?;
            if env.current_player() != Player::Terminal {
                return Ok(());
            }
            self.skipped += 1;
            if attempt >= MAX_SKIPPED_GAMES {
                return Err(invalid(
                    "opponents",
                    "this pool",
                    format!(
                        "a pool against which the learner gets to decide: {attempt} games in a \
                         row ended before seat {} decided",
                        self.learner
                    ),
                ));
            }
            env.reset();
        }
        unreachable!("the loop returns")
    }

    /// Whether the learner decides at the env's current state: its turn, or a simultaneous
    /// node where it has a legal action.
    fn learner_decides(&self, env: &Env) -> bool {
        match env.current_player() {
            Player::Seat(seat) => seat == self.learner,
            Player::Simultaneous => !env
                .state()
                .legal_actions_for(Player::Seat(self.learner))
                .is_empty(),
            Player::Chance | Player::Terminal => false,
        }
    }

    /// Plays the opponents' moves (chance is resolved by the env after each) until the
    /// learner must decide or the game ends, adding the learner's rewards to `pending`.
    fn advance(&mut self, env: &mut Env, pool: &Pool) -> Result<(), GameError> {
        loop {
            match env.current_player() {
                Player::Terminal => return Ok(()),
                _ if self.learner_decides(env) => return Ok(()),
                Player::Seat(seat) => {
                    let bot = &pool.bots[self.opponents[seat]];
                    let action = bot.try_act(env.state(), seat, &mut self.bots)?;
                    env.step_into(action, &mut self.rewards)?;
                }
                Player::Simultaneous => {
                    // The learner has no legal action here: its entry is 0.
                    self.fill_joint(env, pool, 0)?;
                    env.step_joint_into(&self.joint, &mut self.rewards)?;
                }
                Player::Chance => unreachable!("an env resolves chance after every move"),
            }
            self.pending += self.rewards[self.learner];
        }
    }

    /// The joint action at the env's simultaneous node: `learner_action` for the learner,
    /// each opponent's choice (made on the state before anyone's choice is applied, so no
    /// opponent sees the learner's), 0 for a seat with no legal action.
    fn fill_joint(
        &mut self,
        env: &Env,
        pool: &Pool,
        learner_action: Action,
    ) -> Result<(), GameError> {
        let state = env.state();
        self.joint.clear();
        for seat in 0..self.opponents.len() {
            let action = if seat == self.learner {
                learner_action
            } else if state.legal_actions_for(Player::Seat(seat)).is_empty() {
                0
            } else {
                pool.bots[self.opponents[seat]].try_act(state, seat, &mut self.bots)?
            };
            self.joint.push(action);
        }
        Ok(())
    }

    /// Applies the learner's `action` (with the opponents' entries at a simultaneous node),
    /// then plays until the learner must decide again or the game ends. Returns the learner's
    /// reward since its last decision (with a game's opening moves for its first).
    pub(super) fn learner_step(
        &mut self,
        env: &mut Env,
        pool: &Pool,
        action: Action,
    ) -> Result<f64, GameError> {
        match env.current_player() {
            Player::Simultaneous => {
                self.fill_joint(env, pool, action)?;
                env.step_joint_into(&self.joint, &mut self.rewards)?;
            }
            _ => env.step_into(action, &mut self.rewards)?,
        }
        self.pending += self.rewards[self.learner];
        self.advance(env, pool)?;
        Ok(std::mem::take(&mut self.pending))
    }

    /// A joint action with the learner's `action` and a legal (or 0) entry for every other
    /// seat: for asking the engine why the learner's action is illegal.
    pub(super) fn probe_joint(&self, env: &Env, action: Action) -> Vec<Action> {
        let state = env.state();
        (0..self.opponents.len())
            .map(|seat| {
                if seat == self.learner {
                    action
                } else {
                    state
                        .legal_actions_for(Player::Seat(seat))
                        .first()
                        .copied()
                        .unwrap_or(0)
                }
            })
            .collect()
    }
}
