//! Pokeros rules on a board: where a card may go (the run cap) and what a placement scores
//! (the prototype's backward / forward / straddling procedure and the multiplier).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Config, Multiplier, RunCapCheck};
use crate::cards::Card;
use crate::poker::window::{WindowHand, classify};

/// Marks an empty cell.
pub const EMPTY: u8 = u8::MAX;
/// The longest run a placement may make (docs/games/pokeros.md).
pub const MAX_RUN: usize = 5;

/// The board: a square window of cells, each empty or holding a card id, plus the set of
/// empty cells orthogonally next to a card (the frontier) and, kept up to date on every
/// placement, the frontier cells where the run cap allows a card (the legal cells), both as
/// bit sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    size: usize,
    check: RunCapCheck,
    /// Per cell, its neighbour in each direction of `Dir` (`NONE` past the edge), shared.
    neighbours: Arc<[[u16; 4]]>,
    cells: Vec<u8>,
    /// The occupied cells as a bit set (so walking the cards skips empty cells by words).
    occupied: Vec<u64>,
    frontier: Vec<u64>,
    legal: Vec<u64>,
}

/// No neighbour: the edge of the window.
const NONE: u16 = u16::MAX;
/// Directions: east, west, south (down a row), north.
const EAST: usize = 0;
const WEST: usize = 1;
const SOUTH: usize = 2;
const NORTH: usize = 3;
/// The two axes as (backward, forward) directions: the row first, then the column.
const AXES: [(usize, usize); 2] = [(WEST, EAST), (NORTH, SOUTH)];

fn neighbour_table(size: usize) -> Arc<[[u16; 4]]> {
    (0..size * size)
        .map(|cell| {
            let (x, y) = (cell % size, cell / size);
            [
                if x + 1 < size {
                    (cell + 1) as u16
                } else {
                    NONE
                },
                if x > 0 { (cell - 1) as u16 } else { NONE },
                if y + 1 < size {
                    (cell + size) as u16
                } else {
                    NONE
                },
                if y > 0 { (cell - size) as u16 } else { NONE },
            ]
        })
        .collect()
}

impl Board {
    /// An empty board of `size` × `size` cells with a run cap rule.
    pub fn new(size: usize, check: RunCapCheck) -> Self {
        let words = (size * size).div_ceil(64);
        Board {
            size,
            check,
            neighbours: neighbour_table(size),
            cells: vec![EMPTY; size * size],
            occupied: vec![0; words],
            frontier: vec![0; words],
            legal: vec![0; words],
        }
    }

    /// Side length.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The card at a cell, if any.
    #[inline]
    pub fn card(&self, cell: usize) -> Option<Card> {
        let c = self.cells[cell];
        (c != EMPTY).then_some(Card(c))
    }

    /// Every occupied cell with its card, in cell order.
    pub fn cards(&self) -> impl Iterator<Item = (usize, Card)> + '_ {
        crate::rng::set_bits(&self.occupied).map(|cell| (cell, Card(self.cells[cell])))
    }

    /// The cell one step from `cell` in direction `dir`, if inside the window.
    #[inline]
    fn step(&self, cell: usize, dir: usize) -> Option<usize> {
        let n = self.neighbours[cell][dir];
        (n != NONE).then_some(n as usize)
    }

    /// Places a card on an empty cell and updates the frontier and the legal cells.
    pub fn place(&mut self, cell: usize, card: Card) {
        debug_assert_eq!(self.cells[cell], EMPTY);
        self.cells[cell] = card.0;
        self.occupied[cell / 64] |= 1 << (cell % 64);
        self.frontier[cell / 64] &= !(1 << (cell % 64));
        self.legal[cell / 64] &= !(1 << (cell % 64));
        for dir in [EAST, WEST, SOUTH, NORTH] {
            if let Some(n) = self.step(cell, dir)
                && self.cells[n] == EMPTY
            {
                self.frontier[n / 64] |= 1 << (n % 64);
            }
        }
        // Only runs along this row and column changed, and only for the first empty cell past
        // the run through the new card in each direction.
        for end in self.run_ends(cell).into_iter().flatten() {
            self.recheck(end);
        }
    }

    /// The empty cells a card on `cell` is connected to along its row and column: in each
    /// direction, the first empty cell past the run of cards next to `cell` (an empty cell
    /// behind a gap is not connected). A card on `cell` changes what a placement scores and
    /// whether it is legal on these cells and on no other empty cell.
    pub fn run_ends(&self, cell: usize) -> [Option<usize>; 4] {
        [EAST, WEST, SOUTH, NORTH].map(|dir| {
            let mut at = cell;
            while let Some(next) = self.step(at, dir) {
                at = next;
                if self.cells[at] == EMPTY {
                    return Some(at);
                }
            }
            None
        })
    }

    fn recheck(&mut self, cell: usize) {
        let (w, bit) = (cell / 64, 1u64 << (cell % 64));
        if self.frontier[w] & bit != 0 && self.run_cap_allows(cell) {
            self.legal[w] |= bit;
        } else {
            self.legal[w] &= !bit;
        }
    }

    /// Cards in a row from `cell` (exclusive) in direction `dir`, nearest first, at most
    /// `limit`.
    #[inline]
    fn run(&self, cell: usize, dir: usize, limit: usize, out: &mut [Card; 8]) -> usize {
        let mut n = 0;
        let mut at = cell;
        while n < limit {
            match self.step(at, dir) {
                Some(next) if self.cells[next] != EMPTY => {
                    out[n] = Card(self.cells[next]);
                    n += 1;
                    at = next;
                }
                _ => break,
            }
        }
        n
    }

    /// Length of the run of cards from `cell` (exclusive) in direction `dir`, up to `limit`.
    #[inline]
    fn run_len(&self, cell: usize, dir: usize, limit: usize) -> usize {
        let mut n = 0;
        let mut at = cell;
        while n < limit {
            match self.step(at, dir) {
                Some(next) if self.cells[next] != EMPTY => {
                    n += 1;
                    at = next;
                }
                _ => break,
            }
        }
        n
    }

    /// Whether the run cap allows a card on the empty `cell`.
    fn run_cap_allows(&self, cell: usize) -> bool {
        AXES.iter().all(|&(backward, forward)| {
            let back = self.run_len(cell, backward, MAX_RUN);
            let fwd = self.run_len(cell, forward, MAX_RUN);
            match self.check {
                RunCapCheck::Line => back + fwd < MAX_RUN,
                RunCapCheck::Prototype => back < MAX_RUN && fwd < MAX_RUN,
            }
        })
    }

    /// Whether a card may be placed on `cell`: empty, next to a card, within the run cap.
    #[inline]
    pub fn is_legal(&self, cell: usize) -> bool {
        cell < self.cells.len() && self.legal[cell / 64] >> (cell % 64) & 1 == 1
    }

    /// Whether `cell` is empty and orthogonally next to a card.
    #[inline]
    pub fn is_frontier(&self, cell: usize) -> bool {
        cell < self.cells.len() && self.frontier[cell / 64] >> (cell % 64) & 1 == 1
    }

    /// Calls `f` with every legal cell, in increasing order.
    #[inline]
    pub fn for_each_legal(&self, mut f: impl FnMut(usize)) {
        for (w, &word) in self.legal.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let cell = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                f(cell);
            }
        }
    }

    /// Whether any legal cell exists.
    #[inline]
    pub fn has_legal(&self) -> bool {
        self.legal.iter().any(|w| *w != 0)
    }
}

/// One hand scored by a placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoredHand {
    /// The classification that paid.
    #[serde(with = "hand_name")]
    pub hand: WindowHand,
    /// Number of cards in the window.
    pub cards: u8,
    /// Its score from the table, before the multiplier.
    pub score: u32,
}

mod hand_name {
    use super::WindowHand;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(h: &WindowHand, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(h.name())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<WindowHand, D::Error> {
        let name = String::deserialize(d)?;
        WindowHand::ALL
            .into_iter()
            .find(|h| h.name() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown hand {name}")))
    }
}

/// What a placement scores.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The hands that scored (at most two per axis).
    pub hands: Vec<ScoredHand>,
    /// The sum of their table scores, before the multiplier.
    pub base: u32,
    /// The points paid, after the multiplier.
    pub points: u32,
}

/// The best-scoring classification of a window (score 0 when it is no hand).
#[inline]
fn best_of(window: &[Card], config: &Config) -> (u32, Option<WindowHand>) {
    let mut naturals = [Card(0); 5];
    let mut n = 0;
    let mut jokers = 0;
    for &c in window {
        if c.is_joker() {
            jokers += 1;
        } else {
            naturals[n] = c;
            n += 1;
        }
    }
    let hands = classify(&naturals[..n], jokers, config.straights);
    let mut best = (0, None);
    for h in hands.iter() {
        let s = config.scores[h as usize];
        if s > best.0 {
            best = (s, Some(h));
        }
    }
    best
}

/// The hands one axis pays for a card at `cell`: B (ending at the card), F (starting at it)
/// and S (with cards on both sides); S alone if it beats B + F, else B and F.
fn score_axis(
    board: &Board,
    cell: usize,
    card: Card,
    (backward, forward): (usize, usize),
    config: &Config,
    out: &mut Vec<ScoredHand>,
) {
    let mut back = [Card(0); 8];
    let mut fwd = [Card(0); 8];
    let nb = board.run(cell, backward, MAX_RUN - 1, &mut back);
    let nf = board.run(cell, forward, MAX_RUN - 1, &mut fwd);
    if nb + nf == 0 {
        return;
    }
    let mut window = [Card(0); 5];
    window[0] = card;
    let mut best_b = (0, None, 0);
    for k in 1..=nb {
        window[k] = back[k - 1];
        let (s, h) = best_of(&window[..=k], config);
        if s > best_b.0 {
            best_b = (s, h, k + 1);
        }
    }
    let mut best_f = (0, None, 0);
    for k in 1..=nf {
        window[k] = fwd[k - 1];
        let (s, h) = best_of(&window[..=k], config);
        if s > best_f.0 {
            best_f = (s, h, k + 1);
        }
    }
    let mut best_s = (0, None, 0);
    for i in 1..=nb {
        for j in 1..=nf {
            if i + j + 1 > MAX_RUN {
                break;
            }
            window[1..=i].copy_from_slice(&back[..i]);
            window[i + 1..=i + j].copy_from_slice(&fwd[..j]);
            let (s, h) = best_of(&window[..=i + j], config);
            if s > best_s.0 {
                best_s = (s, h, i + j + 1);
            }
        }
    }
    let push = |out: &mut Vec<ScoredHand>, (s, h, n): (u32, Option<WindowHand>, usize)| {
        if let Some(hand) = h {
            out.push(ScoredHand {
                hand,
                cards: n as u8,
                score: s,
            });
        }
    };
    if best_s.0 > best_b.0 + best_f.0 {
        push(out, best_s);
    } else {
        push(out, best_b);
        push(out, best_f);
    }
}

/// What placing `card` on the empty `cell` scores (the board is not changed).
pub fn score_placement(board: &Board, cell: usize, card: Card, config: &Config) -> Placement {
    let mut hands = Vec::new();
    score_axis(board, cell, card, AXES[0], config, &mut hands);
    let horizontal = hands.len();
    score_axis(board, cell, card, AXES[1], config, &mut hands);
    let vertical = hands.len() - horizontal;
    let base: u32 = hands.iter().map(|h| h.score).sum();
    let factor = match config.multiplier {
        Multiplier::Hands => hands.len() as u32,
        Multiplier::Cross if horizontal > 0 && vertical > 0 => 2,
        Multiplier::Cross | Multiplier::None => 1,
    };
    Placement {
        hands,
        base,
        points: base * factor,
    }
}

/// The sum of table scores a placement would make, ignoring the multiplier (the baseline
/// bot's measure).
pub fn base_score(board: &Board, cell: usize, card: Card, config: &Config) -> u32 {
    score_placement(board, cell, card, config).base
}
