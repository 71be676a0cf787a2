//! What a Pokeros seat observes: the observation tensor (dense or as entries), the
//! information-state tensor's history rows (layout and event codes), and resampling the
//! cards a seat cannot see.

use super::{ActionBlock, Config, lookahead};
use super::rules::score_placement;
use super::state::{MAX_SEATS, Phase, PokerosState};
use crate::cards::{Card, HiddenCards, NUM_CARD_IDS};
use crate::game::{Action, EventLayout, ObservationSink, Player, PlayerAction};
use crate::rng::GameRng;
use crate::rules::{GameDef, Layout, Observe, Played};

/// Feature planes per board cell: 13 ranks, 4 suits, 1 joker.
const CELL_PLANES: usize = 18;

impl Layout for Config {
    /// Number of floats in a Pokeros observation.
    fn observation_size(&self) -> usize {
        self.board_observation_size() + self.placements_size()
    }

    /// The history rows of an information-state tensor. Codes: a card seen dealt (or the
    /// centre card) is its card id; a deal to another seat's hidden hand is `NUM_CARD_IDS`; a
    /// placement is `NUM_CARD_IDS + 1 + cell × NUM_CARD_IDS + card` (the card and the cell, both
    /// public; never the action id, whose hand slot would tell the order of the hidden hand).
    fn event_layout(&self) -> EventLayout {
        EventLayout::new(
            self.players,
            NUM_CARD_IDS + 1 + self.cells() * NUM_CARD_IDS,
            self.max_game_length(),
        )
    }

    fn observation_bounds(&self) -> (f32, f32) {
        // Points are written as points / 100; a seat scores at most every card's best placement.
        // A lookahead entry spans at most two and a half placements' points (now and half a
        // follow-up, less a reply), within the same bound.
        let most = self.deck.len() as f32 * self.max_placement_points() as f32;
        (0.0, (most / 100.0).max(1.0))
    }

    /// Points / 100 and hand sizes / slots (a block of `MAX_SEATS` each), the deck fraction
    /// (the last entry of the board part), and the placements block's points.
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        let at = CELL_PLANES * self.cells() + 2 * NUM_CARD_IDS;
        let board = self.board_observation_size();
        let mut scalars = vec![at..at + 2 * MAX_SEATS, board - 1..board];
        if self.action_block != ActionBlock::None {
            scalars.push(board..board + self.placements_size());
        }
        scalars
    }

    /// The per-action block (`observation=placements` or `lookahead`), one entry per action.
    fn action_features(&self) -> Option<usize> {
        (self.action_block != ActionBlock::None).then(|| self.board_observation_size())
    }
}

impl Config {
    /// The observation without the placements block (`observation=board`).
    fn board_observation_size(&self) -> usize {
        CELL_PLANES * self.cells() + 2 * NUM_CARD_IDS + 4 * MAX_SEATS + 1
    }

    /// The per-action block's entries: one per action with `observation=placements` or
    /// `lookahead`.
    fn placements_size(&self) -> usize {
        if self.action_block != ActionBlock::None {
            self.cells() * self.slots()
        } else {
            0
        }
    }
}

impl Observe for PokerosState {
    /// Seat `player`'s observation, entry by entry (the layout is in `docs/games/pokeros.md`).
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S) {
        let cells = self.config.cells();
        for (cell, card) in self.board.cards() {
            if card.is_joker() {
                out.set(17 * cells + cell, 1.0);
            } else {
                out.set(card.rank().0 as usize * cells + cell, 1.0);
                out.set((13 + card.suit().0 as usize) * cells + cell, 1.0);
            }
        }
        let mut at = CELL_PLANES * cells;
        for c in self.hands[player].iter() {
            out.set(at + c.0 as usize, 1.0);
        }
        at += NUM_CARD_IDS;
        if self.hands_public() && self.phase == Phase::Turn {
            for c in self.hands[self.to_move].iter() {
                out.set(at + c.0 as usize, 1.0);
            }
        }
        at += NUM_CARD_IDS;
        let n = self.config.players;
        for s in 0..n {
            out.set(at + s, self.points[s] as f32 / 100.0);
            out.set(
                at + MAX_SEATS + s,
                self.hands[s].len() as f32 / self.config.slots() as f32,
            );
        }
        at += 2 * MAX_SEATS;
        out.set(at + player, 1.0);
        at += MAX_SEATS;
        if self.phase == Phase::Turn {
            out.set(at + self.to_move, 1.0);
        }
        at += MAX_SEATS;
        out.set(at, self.deck.len() as f32 / self.config.deck.len() as f32);
        at += 1;
        if self.config.action_block == ActionBlock::Lookahead {
            // Per action, the two-ply estimate (`lookahead::for_each_estimate`) less the
            // lowest legal action's, / 100; 0 off the legal actions and for a seat not to
            // move. From the public board, the observer's own hand and the cards it cannot
            // see (a set the rest of the observation already tells).
            if self.phase == Phase::Turn && self.to_move == player {
                let mut estimates = Vec::new();
                lookahead::for_each_estimate(self, |action, value| {
                    estimates.push((action, value))
                });
                let low = estimates.iter().map(|&(_, v)| v).fold(f64::INFINITY, f64::min);
                for (action, value) in estimates {
                    if value > low {
                        out.set(at + action as usize, ((value - low) / 100.0) as f32);
                    }
                }
            }
        } else if self.config.action_block == ActionBlock::Placements {
            // Per action `cell * slots + slot`: the points placing the observer's card in
            // `slot` on `cell` would score now, / 100; 0 where the cell is not legal. A
            // function of the public board and the observer's own hand, so it tells nothing
            // the rest of the observation does not.
            let slots = self.config.slots();
            let hand = self.hands[player];
            self.board.for_each_legal(|cell| {
                for (slot, card) in hand.iter().enumerate() {
                    let points = score_placement(&self.board, cell, card, &self.config).points;
                    if points > 0 {
                        out.set(at + cell * slots + slot, points as f32 / 100.0);
                    }
                }
            });
        }
    }

    /// What seat `viewer` saw of each history entry (codes of `event_layout`).
    fn event_codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        let targets = self.deal_targets(history);
        let mut moves = self.moves.iter();
        history
            .iter()
            .zip(targets)
            .map(|(entry, target)| match entry.player {
                Player::Seat(_) => {
                    let m = moves.next().expect("a move per placement");
                    (NUM_CARD_IDS + 1 + m.cell * NUM_CARD_IDS + m.card.0 as usize) as u32
                }
                _ => match target {
                    Some(seat) if seat != viewer && !self.hands_public() => NUM_CARD_IDS as u32,
                    _ => entry.action,
                },
            })
            .collect()
    }

    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self> {
        let mut unknown = self.deck;
        if !self.hands_public() {
            for seat in (0..self.config.players).filter(|&s| s != player) {
                unknown.0 |= self.hands[seat].0;
            }
        }
        let mut hidden = HiddenCards::new(unknown, rng);
        let mut moves = self.moves.iter();
        Played::replay_with(
            PokerosState::new(self.config.clone()),
            history,
            |replay, entry| match entry.player {
                Player::Chance => hidden.replace(Card(entry.action as u8)).0 as Action,
                _ => {
                    let m = moves.next().expect("one move per seat action");
                    replay
                        .action_for(m.card, m.cell)
                        .expect("the placed card is held")
                }
            },
        )
    }
}
