//! Tabular counterfactual regret minimization on an enumerated tree: vanilla CFR, CFR+ and
//! discounted CFR, with alternating updates (one traversal per seat per iteration, each seat's
//! current policy renewed right after its traversal), as OpenSpiel's `CFRSolver`,
//! `CFRPlusSolver` and `DCFRSolver` do, so that the same number of iterations gives the same
//! policies.
//!
//! In a traversal for seat `p`, at each of `p`'s histories with current policy `σ`, value
//! `v = Σ σ(a) v(a)`, the regret of each action grows by the counterfactual reach (chance and
//! the other seats) times `v(a) − v`, and the cumulative policy by the seat's own reach times
//! `σ(a)` times the iteration's weight. Then:
//! - CFR: weight 1; regrets kept as they are.
//! - CFR+: weight `t` (linear averaging); negative regrets reset to 0 (regret matching+).
//! - DCFR(α, β, γ): weight `t^γ`; after the traversal, positive regrets are multiplied by
//!   `t^α / (t^α + 1)` and negative ones by `t^β / (t^β + 1)`.
//!
//! The current policy is regret matching: positive regrets normalised, uniform when none is
//! positive. The average policy is the cumulative policy normalised, uniform where it is all 0.

use crate::solve::tree::{MAX_SEATS, Node, Tree};

/// A CFR variant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variant {
    /// Vanilla CFR (uniform averaging, plain regret matching).
    Vanilla,
    /// CFR+: regret matching+ and linear averaging.
    Plus,
    /// Discounted CFR with parameters α, β, γ (the usual choice: 1.5, 0, 2).
    Discounted {
        /// Discount exponent of positive regrets.
        alpha: f64,
        /// Discount exponent of negative regrets.
        beta: f64,
        /// Exponent of the averaging weight.
        gamma: f64,
    },
}

/// The tables of a CFR run: per information state and action, the cumulative regret, the
/// current policy and the cumulative policy.
#[derive(Clone, Debug)]
pub(crate) struct Tables {
    pub regret: Vec<f64>,
    pub current: Vec<f64>,
    pub cumulative: Vec<f64>,
    pub iteration: u64,
}

impl Tables {
    /// Zero regrets, the uniform current policy, no cumulative policy.
    pub fn new(tree: &Tree) -> Self {
        let mut current = vec![0.0; tree.actions];
        for infoset in &tree.infosets {
            let n = infoset.actions.len();
            current[infoset.offset..infoset.offset + n].fill(1.0 / n as f64);
        }
        Tables {
            regret: vec![0.0; tree.actions],
            current,
            cumulative: vec![0.0; tree.actions],
            iteration: 0,
        }
    }

    /// The average policy: the cumulative policy normalised per information state.
    pub fn average(&self, tree: &Tree) -> Vec<f64> {
        let mut out = vec![0.0; tree.actions];
        for infoset in &tree.infosets {
            let range = infoset.offset..infoset.offset + infoset.actions.len();
            let sum: f64 = self.cumulative[range.clone()].iter().sum();
            let n = range.len() as f64;
            for i in range {
                out[i] = if sum > 0.0 {
                    self.cumulative[i] / sum
                } else {
                    1.0 / n
                };
            }
        }
        out
    }

    /// Renews the current policy of `seat`'s information states by regret matching.
    pub fn regret_match(&mut self, tree: &Tree, seat: usize) {
        for infoset in tree.infosets.iter().filter(|i| i.seat == seat) {
            let range = infoset.offset..infoset.offset + infoset.actions.len();
            let positive: f64 = self.regret[range.clone()]
                .iter()
                .filter(|r| **r > 0.0)
                .sum();
            let n = range.len() as f64;
            for i in range {
                self.current[i] = if positive > 0.0 {
                    self.regret[i].max(0.0) / positive
                } else {
                    1.0 / n
                };
            }
        }
    }
}

/// One iteration of `variant`: a traversal and an update for each seat in turn.
pub(crate) fn iterate(tree: &Tree, tables: &mut Tables, variant: Variant) {
    tables.iteration += 1;
    let t = tables.iteration as f64;
    let weight = match variant {
        Variant::Vanilla => 1.0,
        Variant::Plus => t,
        Variant::Discounted { gamma, .. } => t.powf(gamma),
    };
    for seat in 0..tree.seats {
        let mut reach = [1.0; MAX_SEATS];
        let mut walk = Walk {
            tree,
            tables: &mut *tables,
            seat,
            weight,
        };
        walk.visit(0, &mut reach[..tree.seats], 1.0);
        let seat_infosets = tree.infosets.iter().filter(|i| i.seat == seat);
        match variant {
            Variant::Vanilla => {}
            Variant::Plus => {
                for infoset in seat_infosets {
                    for r in &mut tables.regret[infoset.offset..][..infoset.actions.len()] {
                        *r = r.max(0.0);
                    }
                }
            }
            Variant::Discounted { alpha, beta, .. } => {
                let up = t.powf(alpha) / (t.powf(alpha) + 1.0);
                let down = t.powf(beta) / (t.powf(beta) + 1.0);
                for infoset in seat_infosets {
                    for r in &mut tables.regret[infoset.offset..][..infoset.actions.len()] {
                        *r *= if *r >= 0.0 { up } else { down };
                    }
                }
            }
        }
        tables.regret_match(tree, seat);
    }
}

/// One traversal for `seat`.
struct Walk<'a> {
    tree: &'a Tree,
    tables: &'a mut Tables,
    seat: usize,
    weight: f64,
}

impl Walk<'_> {
    /// The value of `node` for the traversing seat under the current policies, updating the
    /// seat's regrets and cumulative policy below it. `reach` is each seat's own probability of
    /// reaching the node, `chance` chance's.
    fn visit(&mut self, node: u32, reach: &mut [f64], chance: f64) -> f64 {
        let tree = self.tree;
        match tree.nodes[node as usize] {
            Node::Terminal { returns } => tree.terminal_returns(returns)[self.seat],
            Node::Chance { edges, len } => {
                let mut v = 0.0;
                for e in &tree.edges[edges as usize..(edges + len) as usize] {
                    v += e.prob * self.visit(e.child, reach, chance * e.prob);
                }
                v
            }
            Node::Decision {
                seat,
                infoset,
                edges,
                len,
            } => {
                // Nothing below a history that no seat reaches changes any table.
                if reach.iter().all(|&r| r == 0.0) {
                    return 0.0;
                }
                let seat = seat as usize;
                let at = tree.infosets[infoset as usize].offset;
                let len = len as usize;
                let own = reach[seat];
                let mut children = [0.0; MAX_ACTIONS_ON_STACK];
                let mut heap = Vec::new();
                let values: &mut [f64] = if len <= MAX_ACTIONS_ON_STACK {
                    &mut children[..len]
                } else {
                    heap.resize(len, 0.0);
                    &mut heap
                };
                let mut v = 0.0;
                for (i, value) in values.iter_mut().enumerate() {
                    let p = self.tables.current[at + i];
                    reach[seat] = own * p;
                    let child = tree.edges[edges as usize + i].child;
                    *value = self.visit(child, reach, chance);
                    v += p * *value;
                }
                reach[seat] = own;
                if seat == self.seat {
                    let others = chance
                        * reach
                            .iter()
                            .enumerate()
                            .filter(|&(s, _)| s != seat)
                            .map(|(_, r)| r)
                            .product::<f64>();
                    for (i, value) in values.iter().enumerate() {
                        self.tables.regret[at + i] += others * (value - v);
                        self.tables.cumulative[at + i] +=
                            self.weight * own * self.tables.current[at + i];
                    }
                }
                v
            }
        }
    }
}

/// Actions at a decision whose child values fit in a stack array.
const MAX_ACTIONS_ON_STACK: usize = 32;
