//! What a seat observes of a Detective Poker state, as numbers: the observation tensor, the
//! information state's event codes (with the tensor's layout), and resampling the history
//! consistently with one seat's information state.

// Seats and betting rounds index several parallel arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

use super::{Config, odds};
use super::rules::{ActionCard, Bet, MAX_SEATS, STREETS};
use super::state::{DetectivePokerState, Event, event_at};
use crate::cards::{Card, CardSet, NUM_ORDINARY};
use crate::game::{Action, EventLayout, ObservationSink, Player, PlayerAction};
use crate::rng::GameRng;
use crate::rules::{GameDef, Layout, Observe, Played, Rules};

/// Features per bet: board one-hot, amount, card-under flag, card one-hot.
fn bet_features(n: usize) -> usize {
    n + 2 + 4
}

/// The code of a card not seen (another seat's private card, the seat's own shown card, a
/// burn) before the hand reveals it (cards are 0..52).
const HIDDEN_CARD: usize = 52;
/// The first code of a bet seen whole (its action id follows); after those, a bet whose
/// action card stays hidden is coded as the same bet without a card.
const BET_CODES: usize = 53;

impl Layout for Config {
    /// Number of floats in a Detective Poker observation (see docs/games/detective_poker.md).
    fn observation_size(&self) -> usize {
        self.cards_observation_size() + self.odds_size()
    }

    /// The history rows of an information-state tensor (codes above).
    fn event_layout(&self) -> EventLayout {
        EventLayout::new(
            self.players,
            BET_CODES + 2 * self.num_actions(),
            self.max_game_length(),
        )
    }

    fn observation_bounds(&self) -> (f32, f32) {
        // Points are written as points / max_hand_points, and a seat wins or loses at most
        // max_hand_points + 1 in each hand.
        let most =
            (self.hands() * (self.max_hand_points() + 1)) as f32 / self.max_hand_points() as f32;
        (-most, most.max(1.0))
    }

    /// Batched float32 writes rewrite whole rows: faster than diffing entries at this size
    /// (the entries serve the compact encoding).
    fn dense_observations(&self) -> bool {
        true
    }

    /// Each bet's amount / max_bet (one per street and bettor), each seat's chips / chips
    /// and points / max_hand_points, and the hand number / hands (the last entry).
    fn observation_scalars(&self) -> Vec<std::ops::Range<usize>> {
        let n = self.players;
        let cards = NUM_ORDINARY as usize;
        let bets = 2 * n * cards + cards;
        let per_bet = bet_features(n);
        let mut out: Vec<_> = (0..STREETS * n)
            .map(|k| bets + k * per_bet + n..bets + k * per_bet + n + 1)
            .collect();
        let seats = bets + STREETS * n * per_bet + 4;
        out.push(seats..seats + 2 * n);
        let size = self.cards_observation_size();
        out.push(size - 1..size);
        if self.odds {
            out.push(size..size + self.odds_size());
        }
        out
    }
}

impl Config {
    /// Entries of the observation without the odds block (`observation=cards`).
    fn cards_observation_size(&self) -> usize {
        let n = self.players;
        let cards = NUM_ORDINARY as usize;
        2 * n * cards + cards + STREETS * n * bet_features(n) + 4 + 2 * n + STREETS + 3 * n + 1
    }

    /// Entries of the odds block: each board's chance of the best hand, then of the weakest,
    /// with `observation=odds`; else none.
    fn odds_size(&self) -> usize {
        if self.odds { 2 * self.players } else { 0 }
    }
}

impl Observe for DetectivePokerState {
    /// Seat `player`'s observation, entry by entry (the layout is in
    /// `docs/games/detective_poker.md`).
    fn write_observation<S: ObservationSink>(&self, player: usize, out: &mut S) {
        let n = self.config.players;
        let h = self.hand;
        let cards = NUM_ORDINARY as usize;
        let mut at = 0;
        for (private, hole) in [(true, &self.cards.private), (false, &self.cards.shown)] {
            for seat in 0..n {
                if let Some(c) = hole[seat]
                    && self.sees_hole(Some(player), seat, private, h)
                {
                    out.set(at + seat * cards + c.0 as usize, 1.0);
                }
            }
            at += n * cards;
        }
        for c in self.cards.community_cards() {
            out.set(at + c.0 as usize, 1.0);
        }
        at += cards;
        let per_bet = bet_features(n);
        for street in 0..STREETS {
            for bettor in 0..n {
                if let Some(bet) = self.cards.bets[street][bettor] {
                    out.set(at + bet.board as usize, 1.0);
                    out.set(at + n, bet.amount as f32 / self.config.max_bet as f32);
                    if let Some(c) = bet.card {
                        out.set(at + n + 1, 1.0);
                        if self.sees_action_card(Some(player), bettor, h) {
                            out.set(at + n + 2 + c.index(), 1.0);
                        }
                    }
                }
                at += per_bet;
            }
        }
        for i in 0..4 {
            out.set(at + i, (self.unused[player] >> i & 1) as f32);
        }
        at += 4;
        let scale = self.config.max_hand_points() as f32;
        for seat in 0..n {
            out.set(
                at + seat,
                self.chips[seat] as f32 / self.config.chips as f32,
            );
            out.set(at + n + seat, self.points[seat] as f32 / scale);
        }
        at += 2 * n;
        if !self.over {
            out.set(at + self.street(), 1.0);
        }
        at += STREETS;
        out.set(at + self.dealer(), 1.0);
        at += n;
        if let Player::Seat(s) = self.current_player() {
            out.set(at + s, 1.0);
        }
        at += n;
        out.set(at + player, 1.0);
        at += n;
        out.set(at, h as f32 / self.config.hands() as f32);
        at += 1;
        if self.config.odds
            && let Some((best, worst)) = odds::odds(self, player)
        {
            for seat in 0..n {
                out.set(at + seat, best[seat] as f32);
                out.set(at + n + seat, worst[seat] as f32);
            }
        }
    }

    /// What seat `viewer` saw of each entry of `history` (this state's; codes of
    /// `event_layout`), as `event_text` shows it.
    fn event_codes(&self, history: &[PlayerAction], viewer: usize) -> Vec<u32> {
        let n = self.config.players;
        let len = self.config.hand_length();
        let viewer = Some(viewer);
        history
            .iter()
            .enumerate()
            .map(|(index, entry)| {
                let (h, j) = (index / len, index % len);
                let card = |seen: bool| {
                    if seen {
                        entry.action
                    } else {
                        HIDDEN_CARD as u32
                    }
                };
                match event_at(n, h % n, j) {
                    Event::Private(s) => card(self.sees_hole(viewer, s, true, h)),
                    Event::Shown(s) => card(self.sees_hole(viewer, s, false, h)),
                    Event::Burn(_) => HIDDEN_CARD as u32,
                    Event::Community(_) => entry.action,
                    Event::Bet { seat, .. } => {
                        let bet =
                            Bet::decode(entry.action, n, self.config.max_bet).expect("a legal bet");
                        if bet.card.is_none() || self.sees_action_card(viewer, seat, h) {
                            (BET_CODES as u32) + entry.action
                        } else {
                            let plain = Bet { card: None, ..bet }.encode(self.config.max_bet);
                            (BET_CODES + self.config.num_actions()) as u32 + plain
                        }
                    }
                }
            })
            .collect()
    }

    /// A state consistent with everything `player` knows of `history` (this state's), the
    /// rest resampled (see `resampled_history`).
    fn resample(&self, history: &[PlayerAction], player: usize, rng: &mut GameRng) -> Played<Self> {
        let mut actions = self.resampled_history(history, player, rng).into_iter();
        Played::replay_with(
            DetectivePokerState::new(self.config.clone()),
            history,
            |_, _| actions.next().expect("one action per entry"),
        )
    }

    /// The hands before this one: every card a seat saw in them, and every action card under
    /// their bets, was revealed when they were scored (their burns no seat ever saw).
    fn settled_prefix(&self, history: &[PlayerAction]) -> usize {
        (self.hand() * self.config.hand_length()).min(history.len())
    }
}

impl DetectivePokerState {
    /// `history` (this state's) with everything `player` cannot see resampled: per hand, the
    /// cards it does not know (own shown card, others' private cards, burns, and the deck)
    /// permuted at random, and other seats' action cards under unrevealed bets drawn afresh.
    fn resampled_history(
        &self,
        history: &[PlayerAction],
        player: usize,
        rng: &mut GameRng,
    ) -> Vec<Action> {
        let n = self.config.players;
        let len = self.config.hand_length();
        let mut out = Vec::with_capacity(history.len());
        for (h, entries) in history.chunks(len).enumerate() {
            // The cards `player` knows in hand h; every other card may be anywhere.
            let record = self.record_of(history, h);
            let mut known = CardSet::EMPTY;
            for c in record.community.iter().flatten() {
                known.insert(*c);
            }
            for seat in 0..n {
                if let Some(c) = record.private[seat]
                    && self.sees_hole(Some(player), seat, true, h)
                {
                    known.insert(c);
                }
                if let Some(c) = record.shown[seat]
                    && self.sees_hole(Some(player), seat, false, h)
                {
                    known.insert(c);
                }
            }
            let unknown = CardSet(CardSet::full_deck().0 & !known.0);
            let mut hidden = crate::cards::HiddenCards::new(unknown, rng);
            // Hidden action cards: each other seat's used cards, in a random order.
            let mut order = [[0usize; 4]; MAX_SEATS];
            let mut next = [0usize; MAX_SEATS];
            for o in order.iter_mut() {
                *o = [0, 1, 2, 3];
                rng.shuffle(o);
            }
            for (j, entry) in entries.iter().enumerate() {
                out.push(match event_at(n, h % n, j) {
                    Event::Bet { seat, .. } => {
                        let mut bet =
                            Bet::decode(entry.action, n, self.config.max_bet).expect("legal");
                        if bet.card.is_some() && !self.sees_action_card(Some(player), seat, h) {
                            bet.card = Some(ActionCard::ALL[order[seat][next[seat]]]);
                            next[seat] += 1;
                        }
                        bet.encode(self.config.max_bet)
                    }
                    _ => hidden.replace(Card(entry.action as u8)).0 as Action,
                });
            }
        }
        out
    }
}
