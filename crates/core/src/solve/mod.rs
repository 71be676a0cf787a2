//! Solving small games exactly: tabular CFR (vanilla, CFR+, discounted), external-sampling
//! Monte Carlo CFR, exact best responses, NashConv and exploitability, over the generic
//! `State` API and information-state strings, so they need no code per game.
//!
//! The game tree is enumerated once (`Tree`); a game whose tree is too large to enumerate is
//! refused before anything is built, with an estimate of its size. The numbers follow
//! OpenSpiel's definitions (and its solvers' update order), so they can be checked against it:
//! NashConv is the sum over seats of what a best response gains over the policy's own value;
//! exploitability, for games whose returns always sum to one number `c`, is
//! `(Σ best-response values − c) / seats`.
//!
//! ```
//! use checkraise_core::make_game_from_string;
//! use checkraise_core::solve::{Algorithm, Solver};
//!
//! # #[cfg(feature = "kuhn_poker")] {
//! let game = make_game_from_string("kuhn_poker").unwrap();
//! let mut solver = Solver::new(game.as_ref(), Algorithm::CfrPlus).unwrap();
//! solver.run(200);
//! // Kuhn poker's value for the first seat is -1/18; CFR+ gets close in 200 iterations.
//! assert!(solver.exploitability().unwrap() < 1e-2);
//! # }
//! ```

mod best_response;
mod cfr;
mod mccfr;
mod policy;
mod tree;

use crate::game::{Action, ErrorKind, Game, GameError};
use crate::rng::GameRng;

pub use best_response::BestResponse;
pub use cfr::Variant;
pub use policy::TabularPolicy;
pub use tree::{DEFAULT_MAX_NODES, Infoset, MAX_SEATS, Tree, game_string};

/// Why a game or a policy cannot be solved or measured.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The tree has, or is estimated to have, more nodes than allowed.
    #[error(
        "{game} is too large to solve exactly: its tree has {estimate} nodes ({how}), over \
         the limit of {limit}; exact solving is for small games such as kuhn_poker"
    )]
    TooLarge {
        /// The game string.
        game: String,
        /// The size (estimated or counted), as text.
        estimate: String,
        /// How the size was found.
        how: String,
        /// The limit.
        limit: u64,
    },
    /// The game has simultaneous moves.
    #[error(
        "{game} has simultaneous moves; exact solving needs a game where one seat acts at a \
         time"
    )]
    Simultaneous {
        /// The game string.
        game: String,
    },
    /// More seats than a tree supports.
    #[error("{game} has {seats} seats; exact solving supports at most {most}")]
    TooManySeats {
        /// The game string.
        game: String,
        /// Its seats.
        seats: usize,
        /// The most supported.
        most: usize,
    },
    /// One information-state string names states of two seats.
    #[error(
        "{game}: the information state '{key}' is both seat {}'s and seat {}'s; the tree \
         solver needs the strings of different seats to differ",
        seats.0, seats.1
    )]
    SharedKey {
        /// The game string.
        game: String,
        /// The key.
        key: String,
        /// The two seats.
        seats: (usize, usize),
    },
    /// Two histories of one information state have different legal actions.
    #[error(
        "{game}: the information state '{key}' of seat {seat} has legal actions {first:?} in \
         one history and {second:?} in another; the tree solver needs the same actions in \
         every history of an information state"
    )]
    InconsistentInfoset {
        /// The game string.
        game: String,
        /// The key.
        key: String,
        /// The seat.
        seat: usize,
        /// The actions first met.
        first: Vec<Action>,
        /// The actions met later.
        second: Vec<Action>,
    },
    /// A policy does not cover an information state it must.
    #[error(
        "the policy has no probabilities for the information state '{key}' of seat {seat} of {game}"
    )]
    MissingInfoset {
        /// The game string.
        game: String,
        /// The key.
        key: String,
        /// The seat.
        seat: usize,
    },
    /// A policy's probabilities at an information state are not a distribution over its legal
    /// actions.
    #[error("the policy's probabilities for the information state '{key}' are wrong: {reason}")]
    BadPolicy {
        /// The key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// Exploitability asked of a game whose returns do not always sum to one number.
    #[error(
        "exploitability is defined for games whose returns always sum to one number, and \
         {game}'s do not; use NashConv"
    )]
    NotConstantSum {
        /// The game string.
        game: String,
    },
    /// A seat that the game does not have.
    #[error("seat {seat} does not exist; {game} has seats 0 to {}", seats.saturating_sub(1))]
    NoSuchSeat {
        /// The game string.
        game: String,
        /// The seat asked for.
        seat: usize,
        /// The game's seats.
        seats: usize,
    },
    /// The engine refused something while the tree was enumerated.
    #[error(transparent)]
    Game(#[from] GameError),
}

impl SolveError {
    /// The error's class, as the engine's errors classify themselves (for the faces'
    /// statuses and exceptions): a game or policy that cannot be solved is a bad argument.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SolveError::Game(e) => e.kind(),
            _ => ErrorKind::InvalidArgument,
        }
    }
}

/// A solving algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Algorithm {
    /// Vanilla CFR.
    Cfr,
    /// CFR+.
    CfrPlus,
    /// Discounted CFR with α, β, γ.
    Dcfr {
        /// Discount exponent of positive regrets (usually 1.5).
        alpha: f64,
        /// Discount exponent of negative regrets (usually 0).
        beta: f64,
        /// Exponent of the averaging weight (usually 2).
        gamma: f64,
    },
    /// External-sampling Monte Carlo CFR, sampling from this seed.
    ExternalSampling {
        /// The seed of its sampler.
        seed: u64,
    },
}

/// The names `Algorithm::parse` reads.
pub const ALGORITHMS: &[&str] = &["cfr", "cfr+", "dcfr", "mccfr"];

impl Algorithm {
    /// Discounted CFR with the parameters Brown and Sandholm recommend (α 1.5, β 0, γ 2),
    /// OpenSpiel's defaults.
    pub const DCFR: Algorithm = Algorithm::Dcfr {
        alpha: 1.5,
        beta: 0.0,
        gamma: 2.0,
    };

    /// The algorithm named `name` (`cfr`, `cfr+`, `dcfr` with its usual parameters, `mccfr`:
    /// external sampling from `seed`).
    pub fn parse(name: &str, seed: u64) -> Result<Algorithm, GameError> {
        match name.trim().to_ascii_lowercase().as_str() {
            "cfr" => Ok(Algorithm::Cfr),
            "cfr+" | "cfrplus" | "cfr_plus" => Ok(Algorithm::CfrPlus),
            "dcfr" => Ok(Algorithm::DCFR),
            "mccfr" | "es-mccfr" | "external_sampling" => Ok(Algorithm::ExternalSampling { seed }),
            _ => Err(GameError::InvalidSetting {
                name: "algorithm".to_string(),
                value: name.to_string(),
                allowed: format!("one of: {}", ALGORITHMS.join(", ")),
            }),
        }
    }

    /// The algorithm's name, as `parse` reads it.
    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Cfr => "cfr",
            Algorithm::CfrPlus => "cfr+",
            Algorithm::Dcfr { .. } => "dcfr",
            Algorithm::ExternalSampling { .. } => "mccfr",
        }
    }
}

/// A solver: a game's tree and the tables of one algorithm, run for as many iterations as
/// asked (`run` continues where the last call stopped).
#[derive(Debug)]
pub struct Solver {
    tree: Tree,
    algorithm: Algorithm,
    tables: cfr::Tables,
    rng: GameRng,
}

impl Solver {
    /// A solver of `game` with `algorithm`, refusing games over `DEFAULT_MAX_NODES` nodes.
    pub fn new(game: &dyn Game, algorithm: Algorithm) -> Result<Solver, SolveError> {
        Self::with_limit(game, algorithm, DEFAULT_MAX_NODES)
    }

    /// A solver of `game` with `algorithm`, refusing games over `max_nodes` nodes.
    pub fn with_limit(
        game: &dyn Game,
        algorithm: Algorithm,
        max_nodes: u64,
    ) -> Result<Solver, SolveError> {
        let tree = Tree::build(game, max_nodes)?;
        Ok(Self::on_tree(tree, algorithm))
    }

    /// A solver on a tree already built.
    pub fn on_tree(tree: Tree, algorithm: Algorithm) -> Solver {
        let tables = cfr::Tables::new(&tree);
        let seed = match algorithm {
            Algorithm::ExternalSampling { seed } => seed,
            _ => 0,
        };
        Solver {
            tree,
            algorithm,
            tables,
            rng: GameRng::new(seed),
        }
    }

    /// Runs `iterations` more iterations.
    pub fn run(&mut self, iterations: u64) {
        for _ in 0..iterations {
            match self.algorithm {
                Algorithm::Cfr => cfr::iterate(&self.tree, &mut self.tables, Variant::Vanilla),
                Algorithm::CfrPlus => cfr::iterate(&self.tree, &mut self.tables, Variant::Plus),
                Algorithm::Dcfr { alpha, beta, gamma } => cfr::iterate(
                    &self.tree,
                    &mut self.tables,
                    Variant::Discounted { alpha, beta, gamma },
                ),
                Algorithm::ExternalSampling { .. } => {
                    mccfr::iterate(&self.tree, &mut self.tables, &mut self.rng)
                }
            }
        }
    }

    /// Iterations run so far.
    pub fn iterations(&self) -> u64 {
        self.tables.iteration
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The game's tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The average policy (the one that converges to an equilibrium in two-seat zero-sum
    /// games).
    pub fn average_policy(&self) -> TabularPolicy {
        TabularPolicy::from_flat(&self.tree, &self.tables.average(&self.tree))
    }

    /// The current policy (regret matching on the cumulative regrets).
    pub fn current_policy(&self) -> TabularPolicy {
        let mut current = self.tables.current.clone();
        if let Algorithm::ExternalSampling { .. } = self.algorithm {
            // Sampling keeps no current table: it matches regrets where it goes.
            let mut t = self.tables.clone();
            for seat in 0..self.tree.seats {
                t.regret_match(&self.tree, seat);
            }
            current = t.current;
        }
        TabularPolicy::from_flat(&self.tree, &current)
    }

    /// NashConv of the average policy.
    pub fn nash_conv(&self) -> f64 {
        best_response::nash_conv(&self.tree, &self.tables.average(&self.tree))
    }

    /// Exploitability of the average policy.
    pub fn exploitability(&self) -> Result<f64, SolveError> {
        exploitability_flat(&self.tree, &self.tables.average(&self.tree))
    }
}

/// Whether `game` is estimated small enough for the solvers (at most `DEFAULT_MAX_NODES`
/// nodes, one seat acting at a time): what the gRPC catalog asks before it offers the `cfr`
/// bot for a game. Cheap: 64 random playouts.
pub fn solvable(game: &dyn Game) -> bool {
    game.num_players() <= MAX_SEATS
        && tree::estimate_size(game, "").is_ok_and(|n| n <= DEFAULT_MAX_NODES as f64)
}

/// Exploitability of flat probabilities on `tree`.
fn exploitability_flat(tree: &Tree, policy: &[f64]) -> Result<f64, SolveError> {
    let Some(sum) = tree.utility_sum else {
        return Err(SolveError::NotConstantSum {
            game: tree.game.clone(),
        });
    };
    let best: f64 = (0..tree.seats)
        .map(|seat| best_response::best_response(tree, policy, seat).value)
        .sum();
    Ok((best - sum) / tree.seats as f64)
}

/// Measures of policies on one game's tree.
impl Tree {
    /// Every seat's expected return when every seat plays `policy` (which must cover every
    /// information state).
    pub fn policy_values(&self, policy: &TabularPolicy) -> Result<Vec<f64>, SolveError> {
        let all: Vec<usize> = (0..self.seats).collect();
        Ok(best_response::values(self, &policy.flat(self, &all)?))
    }

    /// The best response of `seat` to the other seats' parts of `policy` (which must cover
    /// every information state of the other seats; `seat`'s own are not read).
    pub fn best_response(
        &self,
        policy: &TabularPolicy,
        seat: usize,
    ) -> Result<(BestResponse, TabularPolicy), SolveError> {
        if seat >= self.seats {
            return Err(SolveError::NoSuchSeat {
                game: self.game.clone(),
                seat,
                seats: self.seats,
            });
        }
        let others: Vec<usize> = (0..self.seats).filter(|&s| s != seat).collect();
        let flat = policy.flat(self, &others)?;
        let response = best_response::best_response(self, &flat, seat);
        let mut chosen = TabularPolicy::new();
        for (infoset, choice) in self.infosets.iter().zip(&response.actions) {
            if infoset.seat != seat {
                continue;
            }
            // An information state the responder never reaches under its own choices: its
            // first action (any is a best response there).
            let pick = choice.unwrap_or(0);
            chosen.set(
                infoset.key.clone(),
                infoset
                    .actions
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| (a, if i == pick { 1.0 } else { 0.0 }))
                    .collect(),
            );
        }
        Ok((response, chosen))
    }

    /// NashConv of `policy` (which must cover every information state).
    pub fn nash_conv(&self, policy: &TabularPolicy) -> Result<f64, SolveError> {
        let all: Vec<usize> = (0..self.seats).collect();
        Ok(best_response::nash_conv(self, &policy.flat(self, &all)?))
    }

    /// Exploitability of `policy` (which must cover every information state), for games whose
    /// returns always sum to one number.
    pub fn exploitability(&self, policy: &TabularPolicy) -> Result<f64, SolveError> {
        let all: Vec<usize> = (0..self.seats).collect();
        exploitability_flat(self, &policy.flat(self, &all)?)
    }
}

#[cfg(test)]
mod tests;
