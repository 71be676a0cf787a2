//! The game tree, enumerated once from the engine's `State` API into flat arrays: every
//! history a node, every seat's information state an entry with its legal actions. The
//! solvers walk these arrays instead of cloning states, and the size guard refuses a game whose
//! tree could not fit before anything is enumerated.

use std::collections::HashMap;

use crate::game::{Action, Game, Player, State};
use crate::rng::GameRng;
use crate::solve::SolveError;

/// Most seats a tree may have (reach probabilities live in a fixed array per node).
pub const MAX_SEATS: usize = 16;

/// Nodes a tree may have unless the caller allows more (`SolveOptions::max_nodes`): about a
/// gigabyte of memory at the most.
pub const DEFAULT_MAX_NODES: u64 = 10_000_000;

/// Random descents from the root that estimate a tree's size before it is enumerated.
const DESCENTS: usize = 64;

/// One node of the tree.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Node {
    /// A finished game; its returns start at `returns` in `Tree::returns`.
    Terminal { returns: u32 },
    /// Nature acts: edges `edges..edges + len`, each with its probability.
    Chance { edges: u32, len: u32 },
    /// Seat `seat` acts in information state `infoset`: edges `edges..edges + len`, one per
    /// legal action, in the order of `Infoset::actions`.
    Decision {
        seat: u32,
        infoset: u32,
        edges: u32,
        len: u32,
    },
}

/// An edge: the child it leads to, and (chance edges) the outcome's probability.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub child: u32,
    pub prob: f64,
}

/// An information state of one seat: its key (`State::information_state_string`), its legal
/// actions (the same in every history it holds), and where its entries start in the solvers'
/// flat per-action arrays.
#[derive(Clone, Debug)]
pub struct Infoset {
    /// `State::information_state_string` of the seat.
    pub key: String,
    /// The seat that acts in it.
    pub seat: usize,
    /// Its legal actions, sorted.
    pub actions: Vec<Action>,
    /// Its first entry in arrays with one entry per (information state, action).
    pub offset: usize,
}

/// A whole game tree.
#[derive(Debug)]
pub struct Tree {
    /// The game's name with its parameters (for messages).
    pub game: String,
    /// Seats.
    pub seats: usize,
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    pub(crate) returns: Vec<f64>,
    /// Every information state, in the order the depth-first enumeration met them.
    pub infosets: Vec<Infoset>,
    index: HashMap<String, u32>,
    /// Entries in per-(information state, action) arrays.
    pub actions: usize,
    /// `Some(c)` when every terminal's returns sum to `c` (within 1e-9).
    pub utility_sum: Option<f64>,
}

impl Tree {
    /// Enumerates `game`'s tree, refusing it first when its estimated size passes
    /// `max_nodes`, and while enumerating when it does.
    pub fn build(game: &dyn Game, max_nodes: u64) -> Result<Tree, SolveError> {
        let name = game_string(game);
        if game.num_players() > MAX_SEATS {
            return Err(SolveError::TooManySeats {
                game: name,
                seats: game.num_players(),
                most: MAX_SEATS,
            });
        }
        let estimate = estimate_size(game, &name)?;
        if estimate > max_nodes as f64 {
            return Err(SolveError::TooLarge {
                game: name,
                estimate: format_estimate(estimate),
                how: format!("estimated from {DESCENTS} random descents"),
                limit: max_nodes,
            });
        }
        let mut tree = Tree {
            game: name,
            seats: game.num_players(),
            nodes: Vec::new(),
            edges: Vec::new(),
            returns: Vec::new(),
            infosets: Vec::new(),
            index: HashMap::new(),
            actions: 0,
            utility_sum: None,
        };
        let mut sums = SumCheck::default();
        let root = game.new_initial_state();
        tree.add(root.as_ref(), max_nodes, &mut sums)?;
        tree.utility_sum = sums.common();
        Ok(tree)
    }

    /// Nodes in the tree.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Terminal histories in the tree.
    pub fn num_terminals(&self) -> usize {
        self.returns.len() / self.seats.max(1)
    }

    /// The information state with key `key`, if the tree has one.
    pub fn infoset(&self, key: &str) -> Option<&Infoset> {
        self.index.get(key).map(|&i| &self.infosets[i as usize])
    }

    /// The returns of a terminal node.
    pub(crate) fn terminal_returns(&self, at: u32) -> &[f64] {
        &self.returns[at as usize..at as usize + self.seats]
    }

    /// Adds the subtree at `state` depth first, returning its root's index.
    fn add(
        &mut self,
        state: &dyn State,
        max_nodes: u64,
        sums: &mut SumCheck,
    ) -> Result<u32, SolveError> {
        if self.nodes.len() as u64 >= max_nodes {
            return Err(SolveError::TooLarge {
                game: self.game.clone(),
                estimate: format!("more than {max_nodes}"),
                how: "counted while enumerating it".to_string(),
                limit: max_nodes,
            });
        }
        let at = self.nodes.len() as u32;
        match state.current_player() {
            Player::Terminal => {
                let returns = state.returns();
                sums.add(returns.iter().sum());
                self.nodes.push(Node::Terminal {
                    returns: self.returns.len() as u32,
                });
                self.returns.extend(returns);
            }
            Player::Simultaneous => {
                return Err(SolveError::Simultaneous {
                    game: self.game.clone(),
                });
            }
            Player::Chance => {
                let outcomes = state.chance_outcomes();
                self.nodes.push(Node::Chance { edges: 0, len: 0 });
                let mut children = Vec::with_capacity(outcomes.len());
                for &(outcome, prob) in &outcomes {
                    let mut child = state.clone_box();
                    child.apply_action(outcome)?;
                    children.push(Edge {
                        child: self.add(child.as_ref(), max_nodes, sums)?,
                        prob,
                    });
                }
                self.nodes[at as usize] = Node::Chance {
                    edges: self.edges.len() as u32,
                    len: children.len() as u32,
                };
                self.edges.extend(children);
            }
            Player::Seat(seat) => {
                let key = state.information_state_string(seat);
                let actions = state.legal_actions();
                let infoset = self.infoset_for(key, seat, &actions)?;
                self.nodes.push(Node::Chance { edges: 0, len: 0 });
                let mut children = Vec::with_capacity(actions.len());
                for &action in &actions {
                    let mut child = state.clone_box();
                    child.apply_action(action)?;
                    children.push(Edge {
                        child: self.add(child.as_ref(), max_nodes, sums)?,
                        prob: 0.0,
                    });
                }
                self.nodes[at as usize] = Node::Decision {
                    seat: seat as u32,
                    infoset,
                    edges: self.edges.len() as u32,
                    len: children.len() as u32,
                };
                self.edges.extend(children);
            }
        }
        Ok(at)
    }

    /// The index of the information state `key` of `seat`, added on first sight; an
    /// information state met again must have the same seat and legal actions.
    fn infoset_for(
        &mut self,
        key: String,
        seat: usize,
        actions: &[Action],
    ) -> Result<u32, SolveError> {
        if let Some(&i) = self.index.get(&key) {
            let known = &self.infosets[i as usize];
            if known.seat != seat {
                return Err(SolveError::SharedKey {
                    game: self.game.clone(),
                    key,
                    seats: (known.seat, seat),
                });
            }
            if known.actions != actions {
                return Err(SolveError::InconsistentInfoset {
                    game: self.game.clone(),
                    key,
                    seat,
                    first: known.actions.clone(),
                    second: actions.to_vec(),
                });
            }
            return Ok(i);
        }
        let i = self.infosets.len() as u32;
        self.index.insert(key.clone(), i);
        self.infosets.push(Infoset {
            key,
            seat,
            actions: actions.to_vec(),
            offset: self.actions,
        });
        self.actions += actions.len();
        Ok(i)
    }
}

/// Whether every terminal's returns sum to one number.
#[derive(Default)]
struct SumCheck {
    first: Option<f64>,
    differs: bool,
}

impl SumCheck {
    fn add(&mut self, sum: f64) {
        match self.first {
            None => self.first = Some(sum),
            Some(f) if (f - sum).abs() > 1e-9 => self.differs = true,
            Some(_) => {}
        }
    }

    fn common(&self) -> Option<f64> {
        if self.differs { None } else { self.first }
    }
}

/// The game as a game string, every parameter written out (`kuhn_poker(players=2)`), for
/// messages.
pub fn game_string(game: &dyn Game) -> String {
    let params = game.params().to_text();
    if params.is_empty() {
        game.info().name.to_string()
    } else {
        format!("{}({params})", game.info().name)
    }
}

/// Knuth's estimate of the number of nodes: over random descents from the root, the mean of
/// the sum, over depths, of the product of the branching factors above that depth (an unbiased
/// estimate of the nodes at each depth). A descent stops adding once its sum passes 1e300.
pub(crate) fn estimate_size(game: &dyn Game, name: &str) -> Result<f64, SolveError> {
    let mut rng = GameRng::new(0x5eed_7ee5);
    let mut total = 0.0;
    for _ in 0..DESCENTS {
        let mut state = game.new_initial_state();
        let mut width = 1.0_f64;
        let mut nodes = 1.0_f64;
        loop {
            let branches = match state.current_player() {
                Player::Terminal => break,
                Player::Simultaneous => {
                    return Err(SolveError::Simultaneous {
                        game: name.to_string(),
                    });
                }
                Player::Chance => {
                    let outcomes = state.chance_outcomes();
                    let n = outcomes.len();
                    let pick = outcomes[rng.below(n as u64) as usize].0;
                    state.apply_action(pick)?;
                    n
                }
                Player::Seat(_) => {
                    let actions = state.legal_actions();
                    let n = actions.len();
                    state.apply_action(rng.choose(&actions))?;
                    n
                }
            };
            width *= branches as f64;
            nodes += width;
            if nodes > 1e300 {
                break;
            }
        }
        total += nodes / DESCENTS as f64;
    }
    Ok(total)
}

/// A size estimate for a message: an integer when small, else in scientific notation.
fn format_estimate(estimate: f64) -> String {
    if estimate < 1e9 {
        format!("{}", estimate.round() as u64)
    } else if estimate > 1e300 {
        "more than 1e300".to_string()
    } else {
        format!("{estimate:.1e}")
    }
}
