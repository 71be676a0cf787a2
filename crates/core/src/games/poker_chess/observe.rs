//! What a seat observes of a Poker Chess state: the observation tensor, the codes of the
//! information-state tensor's history rows (what each seat saw of each event), and
//! resampling the cards a seat cannot see.

use super::Config;
use super::state::{Event, Phase, PokerChessState, TurnStep};
use crate::cards::{CardSet, HiddenCards, NUM_CARD_IDS};
use crate::chess::{Color, Piece};
use crate::game::{Action, EventLayout, ObservationSink, PlayerAction};
use crate::rng::GameRng;
use crate::rules::{GameDef, Layout, Observe, Played};

/// Number of floats in an observation without the scores block (see
/// docs/games/poker_chess.md).
pub const OBSERVATION_SIZE: usize = 12 * 64 + 3 * NUM_CARD_IDS + 2 + 2 + 2 + 4 + 8 + 2 + 3;

/// Codes of the history rows of an information-state tensor, in blocks: a card seen dealt
/// (`NUM_CARD_IDS`, then one code for a deal to the other seat), a card played, a move
/// (from, to, promotion piece), a discarded pair.
const PLAY_CODES: usize = NUM_CARD_IDS + 1;
const MOVE_CODES: usize = PLAY_CODES + NUM_CARD_IDS;
const DISCARD_CODES: usize = MOVE_CODES + 64 * 64 * 6;
const EVENT_CODES: usize = DISCARD_CODES + NUM_CARD_IDS * NUM_CARD_IDS;

/// The scores block's unit: score points (100 per pawn) per entry unit.
const SCORE_UNIT: f32 = 1000.0;
/// The scores block's largest entry (a king capture scores above every other move by far).
const SCORE_CAP: f32 = 10.0;

impl Config {
    /// Entries of the scores block: one per action with `observation=scores`; else none.
    fn scores_size(&self) -> usize {
        if self.scores { self.num_actions() } else { 0 }
    }
}

impl Layout for Config {
    fn observation_size(&self) -> usize {
        OBSERVATION_SIZE + self.scores_size()
    }

    /// The history rows of an information-state tensor (codes: `EVENT_CODES`' blocks).
    fn event_layout(&self) -> EventLayout {
        EventLayout::new(2, EVENT_CODES, self.max_game_length())
    }

    fn observation_bounds(&self) -> (f32, f32) {
        // Points are written as points / 100, and a seat scores at most `max_points`.
        let top = (self.max_points() as f32 / 100.0).max(1.0);
        (0.0, if self.scores { top.max(SCORE_CAP) } else { top })
    }

    /// Batched float32 writes rewrite whole rows: faster than diffing entries at this size
    /// (the entries serve the compact encoding).
    fn dense_observations(&self) -> bool {
        true
    }

    /// Both seats' points / 100, hand sizes / hand size and the draw pile / deck (the last
    /// five entries before the scores block), and the scores block.
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        let counts = OBSERVATION_SIZE - 5..OBSERVATION_SIZE;
        let scores = OBSERVATION_SIZE..OBSERVATION_SIZE + self.scores_size();
        std::iter::once(counts)
            .chain(self.scores.then_some(scores))
            .collect()
    }

    /// The scores block (`observation=scores`), one entry per action.
    fn action_features(&self) -> Option<usize> {
        self.scores.then_some(OBSERVATION_SIZE)
    }
}

impl Observe for PokerChessState {
    /// Seat `player`'s observation, entry by entry (the layout is in
    /// `docs/games/poker_chess.md`).
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S) {
        for color in [Color::White, Color::Black] {
            for piece in Piece::ALL {
                let plane = color as usize * 6 + piece as usize;
                out.set_word(plane, self.board.colored(color, piece).0);
            }
        }
        let mut at = 12 * 64;
        for c in self.hands[player].iter() {
            out.set(at + c.0 as usize, 1.0);
        }
        at += NUM_CARD_IDS;
        for c in self.discards.iter() {
            out.set(at + c.0 as usize, 1.0);
        }
        at += NUM_CARD_IDS;
        if let Phase::Turn(TurnStep::Move(card)) = self.phase {
            out.set(at + card.0 as usize, 1.0);
        }
        at += NUM_CARD_IDS;
        out.set(at + player, 1.0);
        at += 2;
        if let Phase::Turn(step) = self.phase {
            out.set(at + self.to_move(), 1.0);
            out.set(at + 2 + usize::from(step != TurnStep::Card), 1.0);
        }
        at += 4;
        let rights = self.board.castling_rights();
        for (i, (color, short)) in [
            (Color::White, true),
            (Color::White, false),
            (Color::Black, true),
            (Color::Black, false),
        ]
        .into_iter()
        .enumerate()
        {
            if rights.has(color, short) {
                out.set(at + i, 1.0);
            }
        }
        at += 4;
        if self.config.en_passant
            && let Some(sq) = self.board.en_passant()
        {
            out.set(at + sq.file() as usize, 1.0);
        }
        at += 8;
        out.set(at, self.points[player] as f32 / 100.0);
        out.set(at + 1, self.points[1 - player] as f32 / 100.0);
        at += 2;
        let h = self.config.hand_size as f32;
        out.set(at, self.hands[player].len() as f32 / h);
        out.set(at + 1, self.hands[1 - player].len() as f32 / h);
        out.set(
            at + 2,
            self.pile.len() as f32 / self.config.deck.len() as f32,
        );
        at += 3;
        if self.config.scores
            && matches!(self.phase, Phase::Turn(_))
            && self.to_move() == player
        {
            // Per legal action: the heuristic's score of it, less the lowest legal action's,
            // / SCORE_UNIT, capped at SCORE_CAP; 0 for the others and when the observer is not
            // to move. A function of the board, the cards played and the observer's own hand.
            let mut scored: Vec<(Action, i64)> = Vec::new();
            super::bot::for_each_action_score(self, |a, s| scored.push((a, s)));
            let low = scored.iter().map(|&(_, s)| s).min().unwrap_or(0);
            for (a, s) in scored {
                let entry = ((s - low) as f32 / SCORE_UNIT).min(SCORE_CAP);
                out.set(at + a as usize, entry);
            }
        }
    }

    /// What seat `viewer` saw of each history entry (codes of `event_layout`). A move's
    /// capture is not coded: the board before it, known from the earlier moves, tells it.
    fn event_codes(&self, _history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        self.events
            .iter()
            .map(|event| {
                (match *event {
                    Event::Deal { seat, card } if seat == viewer => card.0 as usize,
                    Event::Deal { .. } => NUM_CARD_IDS,
                    Event::Play { card, .. } => PLAY_CODES + card.0 as usize,
                    Event::Move { mv, .. } => {
                        let promotion = mv.promotion.map_or(0, |p| p as usize);
                        MOVE_CODES + (mv.from as usize * 64 + mv.to as usize) * 6 + promotion
                    }
                    Event::Discard { cards, .. } => {
                        DISCARD_CODES + cards[0].0 as usize * NUM_CARD_IDS + cards[1].0 as usize
                    }
                }) as u32
            })
            .collect()
    }

    /// A state with this `history` as seat `player` saw it, the cards it cannot see (the
    /// draw pile and the other hand) dealt afresh: the same deals to `player`, the same
    /// cards played and discarded, the same moves.
    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self> {
        let unknown = CardSet(self.pile.0 | self.hands[1 - player].0);
        let mut hidden = HiddenCards::new(unknown, rng);
        let mut events = self.events.iter();
        Played::replay_with(
            PokerChessState::new(self.config.clone()),
            history,
            |replay, entry| match *events.next().expect("one event per entry") {
                Event::Deal { card, .. } => hidden.replace(card).0 as Action,
                Event::Play { card, .. } => {
                    replay.play_action(card).expect("the played card is held")
                }
                Event::Discard { cards, .. } => replay
                    .discard_action(cards[0], cards[1])
                    .expect("the discarded cards are held"),
                Event::Move { .. } => entry.action,
            },
        )
    }
}
