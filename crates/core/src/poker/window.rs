//! Exact-window classification (Pokeros, docs/games/pokeros.md): a window of 2–5 cards in any order
//! must form the hand as a whole; no best-of choice. Jokers are wild and take, for each
//! window, whatever rank and suit make a classification possible.
//!
//! `classify` returns every classification the window satisfies as a bit set; a score table
//! then picks the highest paying one.

use crate::cards::{Card, Rank};

/// A classification of a window; `n`-card hands are distinct classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum WindowHand {
    /// Two cards of one rank.
    Pair = 0,
    /// Three cards of one suit.
    ThreeCardFlush,
    /// Three consecutive ranks.
    ThreeCardStraight,
    /// Four cards, two ranks twice each.
    TwoPair,
    /// Four cards of one suit.
    FourCardFlush,
    /// Three cards of one rank.
    ThreeOfAKind,
    /// Four consecutive ranks.
    FourCardStraight,
    /// Five cards, three of one rank and two of another.
    FullHouse,
    /// Five cards of one suit.
    FiveCardFlush,
    /// Five consecutive ranks.
    FiveCardStraight,
    /// Four cards of one rank.
    FourOfAKind,
    /// Three consecutive ranks of one suit.
    ThreeCardStraightFlush,
    /// Four consecutive ranks of one suit.
    FourCardStraightFlush,
    /// Five consecutive ranks of one suit.
    FiveCardStraightFlush,
    /// T-J-Q-K-A of one suit.
    RoyalFlush,
}

/// Number of window classifications.
pub const NUM_WINDOW_HANDS: usize = 15;

impl WindowHand {
    /// Every classification, in declaration order.
    pub const ALL: [WindowHand; NUM_WINDOW_HANDS] = [
        WindowHand::Pair,
        WindowHand::ThreeCardFlush,
        WindowHand::ThreeCardStraight,
        WindowHand::TwoPair,
        WindowHand::FourCardFlush,
        WindowHand::ThreeOfAKind,
        WindowHand::FourCardStraight,
        WindowHand::FullHouse,
        WindowHand::FiveCardFlush,
        WindowHand::FiveCardStraight,
        WindowHand::FourOfAKind,
        WindowHand::ThreeCardStraightFlush,
        WindowHand::FourCardStraightFlush,
        WindowHand::FiveCardStraightFlush,
        WindowHand::RoyalFlush,
    ];

    /// A readable name.
    pub fn name(self) -> &'static str {
        match self {
            WindowHand::Pair => "pair",
            WindowHand::ThreeCardFlush => "3-card flush",
            WindowHand::ThreeCardStraight => "3-card straight",
            WindowHand::TwoPair => "two pair",
            WindowHand::FourCardFlush => "4-card flush",
            WindowHand::ThreeOfAKind => "three of a kind",
            WindowHand::FourCardStraight => "4-card straight",
            WindowHand::FullHouse => "full house",
            WindowHand::FiveCardFlush => "5-card flush",
            WindowHand::FiveCardStraight => "5-card straight",
            WindowHand::FourOfAKind => "four of a kind",
            WindowHand::ThreeCardStraightFlush => "3-card straight flush",
            WindowHand::FourCardStraightFlush => "4-card straight flush",
            WindowHand::FiveCardStraightFlush => "5-card straight flush",
            WindowHand::RoyalFlush => "royal flush",
        }
    }
}

/// A set of window classifications as bits (`1 << WindowHand as u8`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowHands(pub u16);

impl WindowHands {
    /// Whether `hand` is in the set.
    #[inline]
    pub fn contains(self, hand: WindowHand) -> bool {
        self.0 >> hand as u8 & 1 == 1
    }

    #[inline]
    fn add(&mut self, hand: WindowHand) {
        self.0 |= 1 << hand as u8;
    }

    /// Whether the window satisfies nothing.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members.
    pub fn iter(self) -> impl Iterator<Item = WindowHand> {
        WindowHand::ALL
            .into_iter()
            .filter(move |h| self.contains(*h))
    }
}

/// Which ranks make straights: the full deck (A-2-3-4-5 … T-J-Q-K-A) or the stripped deck of
/// 7 to A (A-7-8-9-T … T-J-Q-K-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StraightRanks {
    /// The lowest rank in the deck; the ace plays low just below it.
    pub min_rank: Rank,
}

impl StraightRanks {
    /// A full 52-card deck.
    pub const FULL: StraightRanks = StraightRanks {
        min_rank: Rank::TWO,
    };
    /// The 32-card stripped deck, 7 to A.
    pub const STRIPPED: StraightRanks = StraightRanks {
        min_rank: Rank::SEVEN,
    };

    /// The rank masks of every run of `n` consecutive ranks, ace low and high.
    fn runs(self, n: usize) -> impl Iterator<Item = u16> {
        // Positions: 0 = ace low, then min_rank ..= A.
        let ace = 1u16 << Rank::ACE.0;
        let lo = self.min_rank.0 as usize;
        let len = 1 + (13 - lo);
        (0..=len - n).map(move |start| {
            let mut mask = 0u16;
            for pos in start..start + n {
                mask |= if pos == 0 { ace } else { 1 << (lo + pos - 1) };
            }
            mask
        })
    }
}

const ROYAL_MASK: u16 = 0b1_1111 << 8;

/// Every classification a window of `naturals` plus `jokers` wild cards satisfies. The window
/// has `naturals.len() + jokers` cards; windows of fewer than 2 or more than 5 satisfy nothing.
pub fn classify(naturals: &[Card], jokers: usize, straights: StraightRanks) -> WindowHands {
    let n = naturals.len() + jokers;
    let mut out = WindowHands::default();
    if !(2..=5).contains(&n) {
        return out;
    }
    let mut rank_counts = [0u8; 13];
    let mut rank_mask = 0u16;
    let mut suit_mask = 0u8;
    for c in naturals {
        let r = c.rank().0 as usize;
        rank_counts[r] += 1;
        rank_mask |= 1 << r;
        suit_mask |= 1 << c.suit().0;
    }
    let distinct = rank_mask.count_ones() as usize;
    let max_count = rank_counts.iter().copied().max().unwrap_or(0) as usize;

    // Groups of equal ranks.
    if distinct <= 1 {
        match n {
            2 => out.add(WindowHand::Pair),
            3 => out.add(WindowHand::ThreeOfAKind),
            4 => out.add(WindowHand::FourOfAKind),
            _ => {}
        }
    }
    if n == 4 && distinct <= 2 && max_count <= 2 {
        out.add(WindowHand::TwoPair);
    }
    if n == 5 && distinct <= 2 && max_count <= 3 {
        out.add(WindowHand::FullHouse);
    }
    if n < 3 {
        return out;
    }

    // Flushes and straights.
    let flush = suit_mask.count_ones() <= 1;
    let straight = distinct == naturals.len() && straights.runs(n).any(|run| rank_mask & !run == 0);
    let royal = n == 5 && distinct == naturals.len() && rank_mask & !ROYAL_MASK == 0;
    let (flush_hand, straight_hand, sf_hand) = match n {
        3 => (
            WindowHand::ThreeCardFlush,
            WindowHand::ThreeCardStraight,
            WindowHand::ThreeCardStraightFlush,
        ),
        4 => (
            WindowHand::FourCardFlush,
            WindowHand::FourCardStraight,
            WindowHand::FourCardStraightFlush,
        ),
        _ => (
            WindowHand::FiveCardFlush,
            WindowHand::FiveCardStraight,
            WindowHand::FiveCardStraightFlush,
        ),
    };
    if flush {
        out.add(flush_hand);
    }
    if straight {
        out.add(straight_hand);
    }
    if flush && straight {
        out.add(sf_hand);
    }
    if flush && royal {
        out.add(WindowHand::RoyalFlush);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn hands(s: &str) -> WindowHands {
        let cards = parse_cards(s).unwrap();
        let jokers = cards.iter().filter(|c| c.is_joker()).count();
        let naturals: Vec<Card> = cards.into_iter().filter(|c| !c.is_joker()).collect();
        classify(&naturals, jokers, StraightRanks::FULL)
    }

    #[test]
    fn straights_in_any_order_with_ace_low_or_high() {
        assert!(hands("2c 4d 3h 5s").contains(WindowHand::FourCardStraight));
        assert!(hands("Qc Kd Ah").contains(WindowHand::ThreeCardStraight));
        assert!(hands("Ac 2d 3h").contains(WindowHand::ThreeCardStraight));
        assert!(hands("Kc Ad 2h").is_empty());
        assert!(hands("2c 3d").is_empty(), "no two-card straights");
        assert!(hands("2c 9c").is_empty(), "no two-card flushes");
    }

    #[test]
    fn groups() {
        assert_eq!(hands("7c 7d").0, 1 << WindowHand::Pair as u8);
        assert!(hands("7c 7d 7h").contains(WindowHand::ThreeOfAKind));
        assert!(
            hands("7c 7d 7h 2s").is_empty(),
            "three of a kind plus a kicker scores 0"
        );
        assert!(hands("7c 2d 7h 2s").contains(WindowHand::TwoPair));
        assert!(hands("7c 7d 7h 7s").contains(WindowHand::FourOfAKind));
        assert!(hands("7c 2d 7h 2s 7s").contains(WindowHand::FullHouse));
        assert!(
            hands("7c 2d 7h 2s 9s").is_empty(),
            "two pair plus a kicker scores 0"
        );
    }

    #[test]
    fn flushes_and_straight_flushes() {
        assert!(hands("2h 9h Kh").contains(WindowHand::ThreeCardFlush));
        let sf = hands("5h 3h 4h");
        assert!(sf.contains(WindowHand::ThreeCardStraightFlush));
        assert!(sf.contains(WindowHand::ThreeCardFlush));
        assert!(sf.contains(WindowHand::ThreeCardStraight));
        assert!(hands("Ts Ks Js As Qs").contains(WindowHand::RoyalFlush));
        assert!(!hands("9s Ks Js Ts Qs").contains(WindowHand::RoyalFlush));
        assert!(hands("9s Ks Js Ts Qs").contains(WindowHand::FiveCardStraightFlush));
    }

    #[test]
    fn jokers_are_wild_per_window() {
        assert!(hands("7c X1").contains(WindowHand::Pair));
        assert!(hands("7c X1 9c").contains(WindowHand::ThreeCardStraightFlush));
        assert!(hands("Ts X1 Js X2 Qs").contains(WindowHand::RoyalFlush));
        assert!(hands("7c 7d X1 X2").contains(WindowHand::FourOfAKind));
        assert!(hands("7c 7d X1 X2").contains(WindowHand::TwoPair));
        assert!(hands("7c 7d 7h 7s X1").is_empty());
        let kx2 = hands("Kc X1 2d");
        assert!(
            !kx2.contains(WindowHand::ThreeCardStraight),
            "K-A-2 does not wrap"
        );
        assert!(kx2.is_empty());
    }

    #[test]
    fn stripped_deck_ace_plays_below_seven() {
        let cards = parse_cards("Ac 7d 8h 9s Tc").unwrap();
        assert!(
            classify(&cards, 0, StraightRanks::STRIPPED).contains(WindowHand::FiveCardStraight)
        );
        assert!(classify(&cards, 0, StraightRanks::FULL).is_empty());
    }
}
