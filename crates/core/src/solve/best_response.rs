//! Exact best responses, policy values, NashConv and exploitability on an enumerated tree.
//!
//! A best response of seat `p` to a policy of the other seats picks, in each of `p`'s
//! information states, the action whose counterfactual value (the value below it summed over
//! the state's histories, each weighted by how likely the other seats and chance were to reach
//! it) is largest; with perfect recall the deeper information states are decided first.

use crate::solve::tree::{Node, Tree};

/// What a best response of one seat is and wins.
#[derive(Clone, Debug)]
pub struct BestResponse {
    /// The seat that responds.
    pub seat: usize,
    /// Its expected return against the policy.
    pub value: f64,
    /// For each of its information states (by index in `Tree::infosets`; other seats'
    /// entries are `None`), the action index (in `Infoset::actions`) it plays.
    pub actions: Vec<Option<usize>>,
}

/// Every seat's expected return when every seat plays `policy` (flat, one probability per
/// information state and action).
pub(crate) fn values(tree: &Tree, policy: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; tree.seats];
    add_values(tree, policy, 0, 1.0, &mut out);
    out
}

/// Adds `weight` times the values at `node` to `out`.
fn add_values(tree: &Tree, policy: &[f64], node: u32, weight: f64, out: &mut [f64]) {
    match tree.nodes[node as usize] {
        Node::Terminal { returns } => {
            for (o, r) in out.iter_mut().zip(tree.terminal_returns(returns)) {
                *o += weight * r;
            }
        }
        Node::Chance { edges, len } => {
            for e in &tree.edges[edges as usize..(edges + len) as usize] {
                add_values(tree, policy, e.child, weight * e.prob, out);
            }
        }
        Node::Decision {
            infoset,
            edges,
            len,
            ..
        } => {
            let at = tree.infosets[infoset as usize].offset;
            for (i, e) in tree.edges[edges as usize..(edges + len) as usize]
                .iter()
                .enumerate()
            {
                let p = policy[at + i];
                if p > 0.0 {
                    add_values(tree, policy, e.child, weight * p, out);
                }
            }
        }
    }
}

/// The best response of `seat` to `policy` (the other seats' entries are read; `seat`'s are
/// not).
pub(crate) fn best_response(tree: &Tree, policy: &[f64], seat: usize) -> BestResponse {
    let mut solver = Responder {
        tree,
        policy,
        seat,
        reach: vec![0.0; tree.nodes.len()],
        members: vec![Vec::new(); tree.infosets.len()],
        choice: vec![None; tree.infosets.len()],
        value: vec![f64::NAN; tree.nodes.len()],
    };
    solver.forward(0, 1.0);
    let value = solver.value_of(0);
    BestResponse {
        seat,
        value,
        actions: solver.choice,
    }
}

/// The state of one best-response computation.
struct Responder<'a> {
    tree: &'a Tree,
    policy: &'a [f64],
    seat: usize,
    /// Per node: the probability that chance and the other seats reach it.
    reach: Vec<f64>,
    /// Per information state of `seat`: its histories.
    members: Vec<Vec<u32>>,
    /// Per information state of `seat`: the action chosen, once decided.
    choice: Vec<Option<usize>>,
    /// Per node: its value for `seat` under the best response, once computed (NaN before).
    value: Vec<f64>,
}

impl Responder<'_> {
    /// Records every node's reach by chance and the other seats, and the histories of each of
    /// `seat`'s information states.
    fn forward(&mut self, node: u32, reach: f64) {
        self.reach[node as usize] = reach;
        match self.tree.nodes[node as usize] {
            Node::Terminal { .. } => {}
            Node::Chance { edges, len } => {
                for e in edges..edges + len {
                    let e = self.tree.edges[e as usize];
                    self.forward(e.child, reach * e.prob);
                }
            }
            Node::Decision {
                seat,
                infoset,
                edges,
                len,
            } => {
                let mine = seat as usize == self.seat;
                if mine {
                    self.members[infoset as usize].push(node);
                }
                let at = self.tree.infosets[infoset as usize].offset;
                for i in 0..len {
                    let e = self.tree.edges[(edges + i) as usize];
                    let p = if mine {
                        1.0
                    } else {
                        self.policy[at + i as usize]
                    };
                    self.forward(e.child, reach * p);
                }
            }
        }
    }

    /// The value of `node` for the responding seat.
    fn value_of(&mut self, node: u32) -> f64 {
        let known = self.value[node as usize];
        if !known.is_nan() {
            return known;
        }
        let v = match self.tree.nodes[node as usize] {
            Node::Terminal { returns } => self.tree.terminal_returns(returns)[self.seat],
            Node::Chance { edges, len } => {
                let mut v = 0.0;
                for e in edges..edges + len {
                    let e = self.tree.edges[e as usize];
                    v += e.prob * self.value_of(e.child);
                }
                v
            }
            Node::Decision {
                seat,
                infoset,
                edges,
                len,
            } => {
                if seat as usize == self.seat {
                    let i = self.decide(infoset as usize);
                    self.value_of(self.tree.edges[edges as usize + i].child)
                } else {
                    let at = self.tree.infosets[infoset as usize].offset;
                    let mut v = 0.0;
                    for i in 0..len {
                        let p = self.policy[at + i as usize];
                        if p > 0.0 {
                            let child = self.tree.edges[(edges + i) as usize].child;
                            v += p * self.value_of(child);
                        }
                    }
                    v
                }
            }
        };
        self.value[node as usize] = v;
        v
    }

    /// The action of the responding seat's information state `infoset`: the one with the
    /// largest counterfactual value (the first of equals).
    fn decide(&mut self, infoset: usize) -> usize {
        if let Some(i) = self.choice[infoset] {
            return i;
        }
        let actions = self.tree.infosets[infoset].actions.len();
        let members = std::mem::take(&mut self.members[infoset]);
        let mut best = (0, f64::NEG_INFINITY);
        for a in 0..actions {
            let mut total = 0.0;
            for &h in &members {
                let Node::Decision { edges, .. } = self.tree.nodes[h as usize] else {
                    unreachable!("an information state's members are decisions");
                };
                let child = self.tree.edges[edges as usize + a].child;
                total += self.reach[h as usize] * self.value_of(child);
            }
            if total > best.1 {
                best = (a, total);
            }
        }
        self.members[infoset] = members;
        self.choice[infoset] = Some(best.0);
        best.0
    }
}

/// NashConv of `policy`: the sum over seats of what a best response gains over the policy's
/// own value.
pub(crate) fn nash_conv(tree: &Tree, policy: &[f64]) -> f64 {
    let on_policy = values(tree, policy);
    (0..tree.seats)
        .map(|seat| best_response(tree, policy, seat).value - on_policy[seat])
        .sum()
}
