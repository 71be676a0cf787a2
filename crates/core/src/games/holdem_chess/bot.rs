//! The heuristic bot: place hole cards where they make the best hand, then keep raising
//! without ever folding.
//!
//! Placement (on its turns from the flop on, one card per step): every legal (hole card, cell)
//! is scored over 24 sampled guesses of what the seat cannot see (the rest of the board, the
//! faces of the opponents' placed cards, their kept hole cards) by its chance to win the
//! showdown and its average hand, plus the community cells its placed cards attack, minus the
//! risk that an opponent's placed card of unknown rank attacks one of its own (and uses it). It
//! places the best card when that beats keeping its cards in hand (a kept card cannot be
//! attacked).
//!
//! Betting: it never folds. Preflop it raises the minimum once and then only calls (a raising
//! war mostly ends all-in before any card can be placed); after the flop it raises every time
//! it acts (the minimum, or about the pot with a strong hand), since each bet is another chance
//! for a weak opponent to fold.

use super::grid::{COMMUNITY_CELLS, attacks};
use super::showdown::{GridCard, seat_hand};
use super::{HoldemState, Phase};
use crate::cards::{Card, CardSet, Rank, Suit};
use crate::game::{Action, Player};
use crate::poker::eval::{Category, HandValue};
use crate::rng::GameRng;
use crate::rules::Rules;

/// The bot's action for `seat` at `state` (its turn); `HoldemState`'s `Rules::heuristic`.
pub fn choose(state: &HoldemState, seat: usize, rng: &mut GameRng) -> Action {
    let cfg = state.config();
    let may_place = match state.phase() {
        Phase::Place => true,
        Phase::Bet => state.betting().street() >= 1,
        _ => false,
    };
    if may_place
        && !state.kept_cards(seat).is_empty()
        && let Some(action) = best_placement(state, seat, rng)
    {
        return action;
    }
    let mut legal = Vec::new();
    state.legal_actions_into(Player::Seat(seat), &mut legal);
    if state.phase() == Phase::Place || legal.is_empty() {
        return cfg.call_action();
    }
    let strength = strength(state, seat);
    let raises: Vec<Action> = legal
        .iter()
        .copied()
        .filter(|&a| a > cfg.call_action())
        .collect();
    if raises.is_empty() {
        return cfg.call_action();
    }
    // Against opponents that fold now and then, every raise is another chance for them to
    // give up: strong hands raise big, the rest raise the minimum.
    let b = state.betting();
    if b.street() == 0 && b.current_bet() > cfg.big_blind {
        // Preflop, one raise is enough: a raising war mostly ends all-in before any card can
        // be placed.
        return cfg.call_action();
    }
    let roll = rng.unit_f64();
    if strength > 0.75 && roll < 0.5 {
        raises[raises.len() / 2]
    } else {
        raises[0]
    }
}

/// The cards `seat` knows on the grid: community cards and its own placed cards.
fn known_grid(state: &HoldemState, seat: usize) -> Vec<GridCard> {
    let w = &state.config().window;
    let mut grid: Vec<GridCard> = state
        .community()
        .enumerate()
        .map(|(i, card)| GridCard {
            card,
            pos: COMMUNITY_CELLS[i],
            owner: None,
        })
        .collect();
    grid.extend(
        state
            .placed()
            .iter()
            .filter(|p| p.seat as usize == seat)
            .map(|p| GridCard {
                card: p.card,
                pos: w.coords(p.cell as usize),
                owner: Some(seat),
            }),
    );
    grid
}

/// One guess at everything the seat cannot see: the rest of the board, the faces of the
/// opponents' placed cards and the opponents' kept hole cards.
struct World {
    /// The full board (dealt cards first).
    board: [Card; 5],
    /// The opponents' placed cards with guessed faces.
    placed: Vec<GridCard>,
    /// Each seat's guessed kept hole cards (opponents still in the hand).
    kept: [CardSet; super::MAX_SEATS],
}

/// Guesses per placement decision.
const WORLDS: usize = 24;

/// `WORLDS` random guesses, drawn from the cards `seat` has not seen.
fn sample_worlds(state: &HoldemState, seat: usize, rng: &mut GameRng) -> Vec<World> {
    let cfg = state.config();
    let mut unseen = CardSet::full_deck();
    for c in state.community() {
        unseen.remove(c);
    }
    for c in state.hole_cards(seat).into_iter().flatten() {
        unseen.remove(c);
    }
    let dealt: Vec<Card> = state.community().collect();
    let b = state.betting();
    (0..WORLDS)
        .map(|_| {
            let mut left = unseen;
            let mut draw = || {
                let c = Card(rng.choose_bit(left.0) as u8);
                left.remove(c);
                c
            };
            let placed = state
                .placed()
                .iter()
                .filter(|p| p.seat as usize != seat)
                .map(|p| GridCard {
                    card: draw(),
                    pos: cfg.window.coords(p.cell as usize),
                    owner: Some(p.seat as usize),
                })
                .collect();
            let mut kept = [CardSet::EMPTY; super::MAX_SEATS];
            for (o, slot) in kept.iter_mut().enumerate().take(cfg.players) {
                if o != seat && b.is_in_hand(o) {
                    for _ in 0..state.kept_cards(o).len() {
                        slot.insert(draw());
                    }
                }
            }
            let mut board = [Card(0); 5];
            for (i, slot) in board.iter_mut().enumerate() {
                *slot = if i < dealt.len() { dealt[i] } else { draw() };
            }
            World {
                board,
                placed,
                kept,
            }
        })
        .collect()
}

/// The chance that a placed card of unknown rank at `from` attacks `to` (13 ranks equally
/// likely).
fn attack_chance(from: (i32, i32), to: (i32, i32), both: bool) -> f64 {
    let hits = (0..13u8)
        .filter(|&r| attacks(Card::new(Rank(r), Suit(0)), from, to, both))
        .count();
    hits as f64 / 13.0
}

/// The placement score of a layout: the chance of winning the showdown over the sampled
/// worlds (opponents' future placements unknown and left out) plus the average hand (category
/// first), plus the community cells the seat's placed cards attack (dealt or not), less the
/// risk that opponents' placed cards attack its own.
fn score(
    state: &HoldemState,
    seat: usize,
    kept: CardSet,
    grid: &[GridCard],
    worlds: &[World],
) -> f64 {
    let cfg = state.config();
    let both = cfg.centre_pawn_both;
    let own: Vec<&GridCard> = grid.iter().filter(|g| g.owner == Some(seat)).collect();
    let covered = COMMUNITY_CELLS
        .iter()
        .filter(|&&cell| own.iter().any(|g| attacks(g.card, g.pos, cell, both)))
        .count() as f64;
    let mut exposure = 0.0;
    for p in state.placed().iter().filter(|p| p.seat as usize != seat) {
        let pos = cfg.window.coords(p.cell as usize);
        for g in &own {
            let worth = (g.card.rank().0 as f64 + 2.0) / 14.0;
            exposure += worth * attack_chance(pos, g.pos, both);
        }
    }
    let dealt = state.community().count();
    let b = state.betting();
    let mut full: Vec<GridCard> = Vec::with_capacity(grid.len() + 25);
    let (mut wins, mut value) = (0.0, 0.0);
    for world in worlds {
        full.clear();
        full.extend_from_slice(grid);
        full.extend_from_slice(&world.placed);
        for (i, &card) in world.board.iter().enumerate().skip(dealt) {
            full.push(GridCard {
                card,
                pos: COMMUNITY_CELLS[i],
                owner: None,
            });
        }
        let mine = seat_hand(seat, kept, &full, both).value;
        value += 100.0 * mine.category() as u32 as f64 + mine.0 as f64 / (1u64 << 30) as f64 * 50.0;
        let best_other = (0..cfg.players)
            .filter(|&o| o != seat && b.is_in_hand(o))
            .map(|o| seat_hand(o, world.kept[o], &full, both).value)
            .max()
            .unwrap_or(HandValue::NONE);
        wins += match mine.cmp(&best_other) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        };
    }
    let n = worlds.len() as f64;
    100.0 * wins / n + value / n + 4.0 * covered - 20.0 * exposure
}

fn best_placement(state: &HoldemState, seat: usize, rng: &mut GameRng) -> Option<Action> {
    let cfg = state.config();
    let base = known_grid(state, seat);
    let kept = state.kept_cards(seat);
    let boards = sample_worlds(state, seat, rng);
    // Place only when it beats keeping the cards (a kept card cannot be attacked).
    let keep = score(state, seat, kept, &base, &boards);
    let mut best: Option<(f64, Action)> = None;
    let cells = state.placement_cells();
    for (slot, hole) in state.hole_cards(seat).iter().enumerate() {
        let Some(card) = *hole else { continue };
        if !kept.contains(card) {
            continue;
        }
        let mut rest = kept;
        rest.remove(card);
        cells.for_each(|cell| {
            let mut grid = base.clone();
            grid.push(GridCard {
                card,
                pos: cfg.window.coords(cell),
                owner: Some(seat),
            });
            let s = score(state, seat, rest, &grid, &boards);
            if best.is_none_or(|(b, _)| s > b) {
                best = Some((s, cfg.place_action(slot, cell)));
            }
        });
    }
    best.filter(|(s, _)| *s > keep + 5.0).map(|(_, a)| a)
}

/// A rough strength in [0, 1] of the seat's hand now.
fn strength(state: &HoldemState, seat: usize) -> f64 {
    if state.betting().street() == 0 {
        let cards: Vec<_> = state.kept_cards(seat).iter().collect();
        if cards.len() < 2 {
            return 0.3;
        }
        let (a, b) = (cards[0].rank().0 as f64, cards[1].rank().0 as f64);
        if a == b {
            return 0.6 + a / 30.0;
        }
        return (a + b) / 24.0 * 0.6;
    }
    let grid = known_grid(state, seat);
    let hand = seat_hand(
        seat,
        state.kept_cards(seat),
        &grid,
        state.config().centre_pawn_both,
    );
    category_strength(hand.value)
}

fn category_strength(value: HandValue) -> f64 {
    let top = (value.primary().max(value.secondary()) as f64)
        .log2()
        .max(0.0)
        / 13.0;
    match value.category() {
        Category::HighCard => 0.1 + 0.2 * top,
        Category::Pair => 0.4 + 0.2 * top,
        Category::TwoPair => 0.65,
        Category::ThreeOfAKind => 0.75,
        _ => 0.9,
    }
}
