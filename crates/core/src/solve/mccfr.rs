//! External-sampling Monte Carlo CFR (Lanctot et al. 2009) with simple averaging, as
//! OpenSpiel's `ExternalSamplingSolver` does it: per iteration, one traversal per seat `p`
//! that samples chance and the other seats' actions (the latter from their current policies)
//! and walks every action of `p`; `p`'s regrets grow by `v(a) − v` of the sampled values, and
//! the next seat's (`p + 1`) cumulative policy by its current policy where the traversal meets
//! it.

use crate::rng::GameRng;
use crate::solve::cfr::Tables;
use crate::solve::tree::{Node, Tree};

/// One iteration: a sampled traversal for each seat in turn.
pub(crate) fn iterate(tree: &Tree, tables: &mut Tables, rng: &mut GameRng) {
    tables.iteration += 1;
    for seat in 0..tree.seats {
        visit(tree, tables, rng, seat, 0);
    }
}

/// Regret matching on the regrets of the information state at `at` with `n` actions, into
/// `out`.
fn regret_matching(regret: &[f64], out: &mut [f64]) {
    let positive: f64 = regret.iter().filter(|r| **r > 0.0).sum();
    let n = regret.len() as f64;
    for (o, r) in out.iter_mut().zip(regret) {
        *o = if positive > 0.0 {
            r.max(0.0) / positive
        } else {
            1.0 / n
        };
    }
}

/// Draws an index from `probs` (summing to 1).
fn draw(probs: impl IntoIterator<Item = f64>, rng: &mut GameRng) -> usize {
    let mut u = rng.unit_f64();
    let mut last = 0;
    for (i, p) in probs.into_iter().enumerate() {
        if u < p {
            return i;
        }
        u -= p;
        if p > 0.0 {
            last = i;
        }
    }
    // Rounding left `u` past the last bucket: the last action with any probability.
    last
}

/// The sampled value of `node` for `seat`.
fn visit(tree: &Tree, tables: &mut Tables, rng: &mut GameRng, seat: usize, node: u32) -> f64 {
    match tree.nodes[node as usize] {
        Node::Terminal { returns } => tree.terminal_returns(returns)[seat],
        Node::Chance { edges, len } => {
            let chance = &tree.edges[edges as usize..(edges + len) as usize];
            let pick = draw(chance.iter().map(|e| e.prob), rng);
            visit(
                tree,
                tables,
                rng,
                seat,
                tree.edges[edges as usize + pick].child,
            )
        }
        Node::Decision {
            seat: actor,
            infoset,
            edges,
            len,
        } => {
            let actor = actor as usize;
            let at = tree.infosets[infoset as usize].offset;
            let len = len as usize;
            let mut policy = vec![0.0; len];
            regret_matching(&tables.regret[at..at + len], &mut policy);
            let value = if actor != seat {
                let pick = draw(policy.iter().copied(), rng);
                visit(
                    tree,
                    tables,
                    rng,
                    seat,
                    tree.edges[edges as usize + pick].child,
                )
            } else {
                let mut values = vec![0.0; len];
                let mut v = 0.0;
                for (i, value) in values.iter_mut().enumerate() {
                    *value = visit(
                        tree,
                        tables,
                        rng,
                        seat,
                        tree.edges[edges as usize + i].child,
                    );
                    v += policy[i] * *value;
                }
                for (i, value) in values.iter().enumerate() {
                    tables.regret[at + i] += value - v;
                }
                v
            };
            if actor == (seat + 1) % tree.seats {
                for (i, p) in policy.iter().enumerate() {
                    tables.cumulative[at + i] += p;
                }
            }
            value
        }
    }
}
