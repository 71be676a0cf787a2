//! The showdown (docs/games/holdem_chess.md): each remaining seat's pool and best hand, and the
//! cards it reveals.
//!
//! A seat's pool is its kept hole cards, its own placed cards, and every card on the grid
//! (community, opponents', folded seats') in a cell one of its own placed cards attacks. Its
//! hand is the best hand of at most 5 pool cards in which every attacked card comes with at
//! least one own placed card attacking it (no chaining). We enumerate the subsets `T` of the
//! seat's placed cards that the hand includes: the hand is `T` plus at most `5 - |T|` cards
//! from the kept hole cards and the cards `T` attacks, so every candidate is valid and every
//! valid hand is a candidate.

use super::grid::attacks;
use crate::cards::{Card, CardSet};
use crate::poker::eval::{HandValue, best_of};

/// A card lying on the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridCard {
    /// The card.
    pub card: Card,
    /// Its cell `(x, y)`.
    pub pos: (i32, i32),
    /// The seat that placed it (`None` for a community card).
    pub owner: Option<usize>,
}

/// A seat's showdown hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatHand {
    /// The seat.
    pub seat: usize,
    /// The value of its best hand.
    pub value: HandValue,
    /// The cards of its best hand.
    pub cards: CardSet,
    /// Its whole pool.
    pub pool: CardSet,
    /// The cards its placed cards attack (other than its own).
    pub attacked: CardSet,
}

/// The best hand of `seat`, given its kept hole cards and everything on the grid.
pub fn seat_hand(
    seat: usize,
    kept: CardSet,
    grid: &[GridCard],
    centre_pawn_both: bool,
) -> SeatHand {
    let mut own = [(Card(0), CardSet::EMPTY); 2 * super::MAX_SEATS];
    let mut num_own = 0;
    let mut attacked = CardSet::EMPTY;
    for g in grid.iter().filter(|g| g.owner == Some(seat)) {
        let mut hits = CardSet::EMPTY;
        for other in grid.iter().filter(|o| o.owner != Some(seat)) {
            if attacks(g.card, g.pos, other.pos, centre_pawn_both) {
                hits.insert(other.card);
            }
        }
        attacked.0 |= hits.0;
        own[num_own] = (g.card, hits);
        num_own += 1;
    }
    let own = &own[..num_own];
    let mut pool = kept;
    pool.0 |= attacked.0;
    for (card, _) in own {
        pool.insert(*card);
    }
    let mut best = (HandValue::NONE, CardSet::EMPTY);
    for subset in 0u32..1 << own.len() {
        let mut forced = CardSet::EMPTY;
        let mut free = kept;
        for (i, (card, hits)) in own.iter().enumerate() {
            if subset >> i & 1 == 1 {
                forced.insert(*card);
                free.0 |= hits.0;
            }
        }
        if forced.len() > 5 {
            continue;
        }
        free.0 &= !forced.0;
        let candidate = best_with_forced(forced, free);
        if candidate.0 > best.0 {
            best = candidate;
        }
    }
    SeatHand {
        seat,
        value: best.0,
        cards: best.1,
        pool,
        attacked,
    }
}

/// The best hand of at most 5 cards holding every card of `forced` and any of `free`, and its
/// cards.
pub fn best_with_forced(forced: CardSet, free: CardSet) -> (HandValue, CardSet) {
    let room = 5 - forced.len() as usize;
    if free.len() as usize <= room {
        let all = CardSet(forced.0 | free.0);
        return (best_of(all), all);
    }
    let mut cards = [Card(0); 52];
    let mut n = 0;
    for c in free.iter() {
        cards[n] = c;
        n += 1;
    }
    let mut best = (HandValue::NONE, CardSet::EMPTY);
    let mut idx = [0usize; 5];
    for (i, slot) in idx.iter_mut().enumerate().take(room) {
        *slot = i;
    }
    loop {
        let mut hand = forced;
        for &i in &idx[..room] {
            hand.insert(cards[i]);
        }
        let value = best_of(hand);
        if value > best.0 {
            best = (value, hand);
        }
        // The next combination in lexicographic order.
        let mut i = room;
        loop {
            if i == 0 {
                return best;
            }
            i -= 1;
            if idx[i] < n - room + i {
                break;
            }
        }
        idx[i] += 1;
        for j in i + 1..room {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// The showdown of the seats in `live` (kept hole cards per seat): every hand, and the cards
/// revealed — the placed cards and kept hole cards of the live seats and every card their
/// placed cards attack. Unattacked cards of folded seats stay hidden.
pub fn showdown(
    live: &[(usize, CardSet)],
    grid: &[GridCard],
    centre_pawn_both: bool,
) -> (Vec<SeatHand>, CardSet) {
    let mut revealed = CardSet::EMPTY;
    let hands: Vec<SeatHand> = live
        .iter()
        .map(|&(seat, kept)| {
            let hand = seat_hand(seat, kept, grid, centre_pawn_both);
            revealed.0 |= hand.pool.0;
            hand
        })
        .collect();
    (hands, revealed)
}
