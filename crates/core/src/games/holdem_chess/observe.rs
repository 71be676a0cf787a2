//! What each Hold'em Poker Chess seat may see: the observation tensor, the history codes of
//! the information-state tensor, and resampling the cards a seat never saw.

use super::Config;
use super::betting::MAX_SEATS;
use super::state::{HoldemState, NO_CARD, Phase};
use crate::cards::{Card, CardSet};
use crate::game::{Action, EventLayout, ObservationSink, Player, PlayerAction};
use crate::rng::GameRng;
use crate::rules::{GameDef, Layout, Observe, Played, Rules};

/// Planes per grid cell in the observation: community, placed by seat 0..10, 13 ranks, 4 suits.
const CELL_PLANES: usize = 1 + MAX_SEATS + 13 + 4;
/// Floats per seat in the observation.
const SEAT_FEATURES: usize = 8;

/// The code of a hole card dealt to another seat and not revealed (cards are 0..52).
const HIDDEN_CARD: usize = 52;
/// The first code of a seat's action (its action id follows).
const ACTION_CODES: usize = 53;

impl Layout for Config {
    /// Number of floats in an observation.
    fn observation_size(&self) -> usize {
        CELL_PLANES * self.cells + 52 + SEAT_FEATURES * MAX_SEATS + 2 * MAX_SEATS + 5 + 6
    }

    /// The history rows of an information-state tensor. Codes: a card seen (a board card, a
    /// hole card dealt to the viewer, or one revealed at that hand's showdown) is its card id;
    /// another hole card is `HIDDEN_CARD`; a seat's action is `ACTION_CODES` + its id (a
    /// placement's id says which hole slot and which cell, both public, not which card).
    fn event_layout(&self) -> EventLayout {
        EventLayout::new(
            self.players,
            ACTION_CODES + self.num_actions(),
            self.max_game_length(),
        )
    }

    /// Batched float32 writes rewrite whole rows: faster than diffing entries at this size
    /// (the entries serve the compact encoding).
    fn dense_observations(&self) -> bool {
        true
    }

    /// Per seat (of `MAX_SEATS`) its chips, street bet and total bet / the chip scale (the
    /// total chips, or the big blind if larger); then the pot, current bet and minimum raise /
    /// the chip scale, placements this turn / 2 and hand
    /// number / hands.
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        let at = CELL_PLANES * self.cells + 52;
        let mut out: Vec<_> = (0..MAX_SEATS)
            .map(|s| at + s * SEAT_FEATURES..at + s * SEAT_FEATURES + 3)
            .collect();
        let tail = at + SEAT_FEATURES * MAX_SEATS + 2 * MAX_SEATS + 5;
        out.push(tail..tail + 5);
        out
    }
}

impl HoldemState {
    /// Whether `viewer` sees the face of a card on the grid or in a hand of the current hand.
    pub(super) fn sees(&self, viewer: Option<usize>, card: Card, owner: Option<usize>) -> bool {
        owner.is_none()
            || (viewer.is_some() && viewer == owner)
            || (self.phase == Phase::Over
                && self
                    .records
                    .last()
                    .is_some_and(|r| r.revealed.contains(card)))
    }

    /// The cards `player` has seen in the current hand (community and own hole cards), for
    /// resampling.
    fn seen_in_current_hand(&self, player: usize) -> CardSet {
        let mut seen: CardSet = self.community().collect();
        for c in self.holes[player] {
            if c != NO_CARD {
                seen.insert(Card(c));
            }
        }
        seen
    }
}

impl Observe for HoldemState {
    /// Seat `player`'s observation, entry by entry (the layout is in
    /// `docs/games/holdem_chess.md`).
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S) {
        let cfg = &self.config;
        let cells = cfg.cells;
        let mark = |out: &mut S, card: Card, cell: usize, owner: Option<usize>, face: bool| {
            match owner {
                None => out.set(cell, 1.0),
                Some(s) => out.set((1 + s) * cells + cell, 1.0),
            }
            if face {
                out.set((1 + MAX_SEATS + card.rank().0 as usize) * cells + cell, 1.0);
                out.set(
                    (1 + MAX_SEATS + 13 + card.suit().0 as usize) * cells + cell,
                    1.0,
                );
            }
        };
        for i in 0..self.num_community as usize {
            mark(
                out,
                Card(self.community[i]),
                cfg.community_cells[i],
                None,
                true,
            );
        }
        for p in self.placed() {
            let owner = Some(p.seat as usize);
            let face = self.sees(Some(player), p.card, owner);
            mark(out, p.card, p.cell as usize, owner, face);
        }
        let mut at = CELL_PLANES * cells;
        for c in self.kept_cards(player).iter() {
            out.set(at + c.0 as usize, 1.0);
        }
        at += 52;
        let total = cfg.chip_scale() as f32;
        let b = &self.betting;
        for s in 0..cfg.players {
            let f = at + s * SEAT_FEATURES;
            out.set(f, self.chips(s) as f32 / total);
            out.set(f + 1, b.street_bet(s) as f32 / total);
            out.set(f + 2, b.total_bet(s) as f32 / total);
            out.set(f + 3, b.is_dealt(s) as u8 as f32);
            out.set(f + 4, b.is_in_hand(s) as u8 as f32);
            out.set(f + 5, b.has_folded(s) as u8 as f32);
            out.set(f + 6, b.is_all_in(s) as u8 as f32);
            out.set(f + 7, (s == b.button()) as u8 as f32);
        }
        at += SEAT_FEATURES * MAX_SEATS;
        out.set(at + player, 1.0);
        at += MAX_SEATS;
        if let Some(s) = self.seat_to_act() {
            out.set(at + s, 1.0);
        }
        at += MAX_SEATS;
        let street = if self.phase == Phase::Over {
            4
        } else {
            b.street() as usize
        };
        out.set(at + street, 1.0);
        at += 5;
        out.set(at, b.pot() as f32 / total);
        out.set(at + 1, b.current_bet() as f32 / total);
        out.set(at + 2, b.min_raise() as f32 / total);
        out.set(at + 3, self.placed_this_turn as f32 / 2.0);
        out.set(at + 4, self.hand_no as f32 / cfg.hands as f32);
        out.set(at + 5, (self.phase == Phase::Place) as u8 as f32);
    }

    /// What seat `viewer` saw of each entry of `history` (codes of `event_layout`),
    /// replaying it to tell hole cards from board cards and which hand each belongs to.
    fn event_codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        let mut replay = HoldemState::new(self.config.clone());
        let mut out = Vec::with_capacity(history.len());
        for entry in history {
            let code = match entry.player {
                Player::Chance => {
                    let m = replay.num_dealt_seats;
                    let hand = replay.records.len();
                    let hidden = replay.holes_dealt < 2 * m && {
                        let seat = replay.deal_order[(replay.holes_dealt % m) as usize] as usize;
                        seat != viewer
                            && !self
                                .records
                                .get(hand)
                                .is_some_and(|r| r.revealed.contains(Card(entry.action as u8)))
                    };
                    if hidden {
                        HIDDEN_CARD as u32
                    } else {
                        entry.action
                    }
                }
                _ => (ACTION_CODES as u32) + entry.action,
            };
            out.push(code);
            replay
                .apply(entry.player, entry.action)
                .expect("the history replays");
        }
        out
    }

    /// A state with `history` replayed, each hand's cards that `player` never saw shuffled
    /// among themselves.
    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self> {
        // One card map per hand: the cards the player never saw in that hand are shuffled
        // among themselves; everything it saw keeps its identity.
        let hands = self.records.len() + usize::from(self.phase != Phase::Over);
        let mut maps: Vec<crate::cards::HiddenCards> = Vec::with_capacity(hands);
        for h in 0..hands {
            let seen = match self.records.get(h) {
                Some(r) => {
                    let mut seen = r.community;
                    seen.0 |= r.revealed.0;
                    for c in r.holes[player] {
                        if c != NO_CARD {
                            seen.insert(Card(c));
                        }
                    }
                    seen
                }
                None => self.seen_in_current_hand(player),
            };
            let unknown = CardSet(CardSet::full_deck().0 & !seen.0);
            maps.push(crate::cards::HiddenCards::new(unknown, rng));
        }
        Played::replay_with(
            HoldemState::new(self.config.clone()),
            history,
            |replay, entry| match entry.player {
                Player::Chance => {
                    maps[replay.records().len()]
                        .replace(Card(entry.action as u8))
                        .0 as Action
                }
                _ => entry.action,
            },
        )
    }
}
