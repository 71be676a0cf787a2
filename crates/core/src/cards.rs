//! Playing cards: ranks, suits, cards (with up to three jokers) and card sets as bit masks.
//!
//! A card id is `rank * 4 + suit` for the 52 ordinary cards (rank 0 = `2` … 12 = `A`; suits
//! `c d h s`), and 52, 53, 54 for the jokers `X1 X2 X3`. A `CardSet` is a `u64` with bit `id`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::vocabulary::Action;

/// A rank, 0 = `2` … 8 = `T`, 9 = `J`, 10 = `Q`, 11 = `K`, 12 = `A`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Rank(pub u8);

/// The rank characters in order.
pub const RANK_CHARS: &[u8; 13] = b"23456789TJQKA";
/// The suit characters in order (clubs, diamonds, hearts, spades).
pub const SUIT_CHARS: &[u8; 4] = b"cdhs";

impl Rank {
    /// The rank `2`.
    pub const TWO: Rank = Rank(0);
    /// The rank `7`.
    pub const SEVEN: Rank = Rank(5);
    /// The rank `T`.
    pub const TEN: Rank = Rank(8);
    /// The rank `J`.
    pub const JACK: Rank = Rank(9);
    /// The rank `Q`.
    pub const QUEEN: Rank = Rank(10);
    /// The rank `K`.
    pub const KING: Rank = Rank(11);
    /// The rank `A`.
    pub const ACE: Rank = Rank(12);

    /// The rank's character.
    pub fn char(self) -> char {
        RANK_CHARS[self.0 as usize] as char
    }

    /// The rank for a character.
    pub fn from_char(c: char) -> Option<Rank> {
        char_index(RANK_CHARS, c.to_ascii_uppercase()).map(Rank)
    }

    /// The face value used by Poker Chess's card table: A = 1, 2..10, J = 11, Q = 12, K = 13.
    pub fn pip_value(self) -> u8 {
        if self == Rank::ACE { 1 } else { self.0 + 2 }
    }
}

/// The index of `c`'s low byte in `chars` (the characters are ASCII).
fn char_index(chars: &[u8], c: char) -> Option<u8> {
    let c = c as u8;
    chars.iter().position(|&x| x == c).map(|i| i as u8)
}

/// A suit, 0 = clubs, 1 = diamonds, 2 = hearts, 3 = spades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Suit(pub u8);

impl Suit {
    /// The suit's character.
    pub fn char(self) -> char {
        SUIT_CHARS[self.0 as usize] as char
    }

    /// The suit for a character.
    pub fn from_char(c: char) -> Option<Suit> {
        char_index(SUIT_CHARS, c.to_ascii_lowercase()).map(Suit)
    }

    /// Whether the suit is red (diamonds, hearts).
    pub fn is_red(self) -> bool {
        self.0 == 1 || self.0 == 2
    }
}

/// A card: one of the 52 ordinary cards or a joker.
///
/// ```
/// use checkraise_core::cards::Card;
///
/// let ace: Card = "As".parse().unwrap();
/// assert_eq!((ace.to_string(), ace.rank().char(), ace.suit().char()), ("As".into(), 'A', 's'));
/// assert_eq!(Card::from_id(ace.id() as u32), Some(ace));
/// assert!("Zz".parse::<Card>().is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Card(pub u8);

/// Number of ordinary cards.
pub const NUM_ORDINARY: u8 = 52;
/// Number of card ids including the three jokers.
pub const NUM_CARD_IDS: usize = 55;

impl Card {
    /// The ordinary card of a rank and suit.
    #[inline]
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(rank.0 * 4 + suit.0)
    }

    /// Joker number `i` (0, 1 or 2), written `X1`, `X2`, `X3`.
    #[inline]
    pub const fn joker(i: u8) -> Card {
        Card(NUM_ORDINARY + i)
    }

    /// Whether this is a joker.
    #[inline]
    pub fn is_joker(self) -> bool {
        self.0 >= NUM_ORDINARY
    }

    /// The rank of an ordinary card.
    #[inline]
    pub fn rank(self) -> Rank {
        debug_assert!(!self.is_joker());
        Rank(self.0 / 4)
    }

    /// The suit of an ordinary card.
    #[inline]
    pub fn suit(self) -> Suit {
        debug_assert!(!self.is_joker());
        Suit(self.0 % 4)
    }

    /// The card's id (its bit in a `CardSet`).
    #[inline]
    pub fn id(self) -> u8 {
        self.0
    }

    /// The card for an id, if it is one.
    pub fn from_id(id: u32) -> Option<Card> {
        (id < NUM_CARD_IDS as u32).then_some(Card(id as u8))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_joker() {
            write!(f, "X{}", self.0 - NUM_ORDINARY + 1)
        } else {
            write!(f, "{}{}", self.rank().char(), self.suit().char())
        }
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A card string that does not name a card.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a card (expected rank 2-9TJQKA then suit cdhs, e.g. As, Td; or X1-X3)")]
pub struct BadCard(pub String);

impl FromStr for Card {
    type Err = BadCard;

    fn from_str(s: &str) -> Result<Card, BadCard> {
        let bad = || BadCard(s.to_string());
        let mut chars = s.trim().chars();
        let (a, b) = (chars.next().ok_or_else(bad)?, chars.next().ok_or_else(bad)?);
        if chars.next().is_some() {
            return Err(bad());
        }
        if a == 'X' || a == 'x' {
            return match b {
                '1'..='3' => Ok(Card::joker(b as u8 - b'1')),
                _ => Err(bad()),
            };
        }
        let rank = Rank::from_char(a).ok_or_else(bad)?;
        let suit = Suit::from_char(b).ok_or_else(bad)?;
        Ok(Card::new(rank, suit))
    }
}

/// Parses a space-separated list of cards, e.g. `"As Kd X1"`.
///
/// ```
/// let cards = checkraise_core::cards::parse_cards("As Kd X1").unwrap();
/// assert_eq!(cards.len(), 3);
/// assert!(cards[2].is_joker() && !cards[0].is_joker());
/// ```
pub fn parse_cards(s: &str) -> Result<Vec<Card>, BadCard> {
    s.split_whitespace().map(str::parse).collect()
}

/// A set of cards as a bit mask over card ids.
///
/// ```
/// use checkraise_core::cards::{Card, CardSet};
///
/// let mut deck = CardSet::full_deck();
/// assert_eq!(deck.len(), 52);
/// let ace: Card = "As".parse().unwrap();
/// deck.remove(ace);
/// assert!(!deck.contains(ace) && deck.len() == 51);
/// assert_eq!(deck.uniform_outcomes().len(), 51, "one chance outcome per card left");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CardSet(pub u64);

impl CardSet {
    /// The empty set.
    pub const EMPTY: CardSet = CardSet(0);

    /// The 52 ordinary cards.
    pub const fn full_deck() -> CardSet {
        CardSet((1u64 << 52) - 1)
    }

    /// The cards of ranks `min_rank..=A` in all suits, plus `jokers` jokers.
    pub fn deck(min_rank: Rank, jokers: u8) -> CardSet {
        let ordinary = ((1u64 << 52) - 1) & !((1u64 << (min_rank.0 as u64 * 4)) - 1);
        let jokers = ((1u64 << jokers) - 1) << 52;
        CardSet(ordinary | jokers)
    }

    /// Whether the set holds `card`.
    #[inline]
    pub fn contains(self, card: Card) -> bool {
        self.0 >> card.0 & 1 == 1
    }

    /// Adds a card.
    #[inline]
    pub fn insert(&mut self, card: Card) {
        self.0 |= 1 << card.0;
    }

    /// Removes a card.
    #[inline]
    pub fn remove(&mut self, card: Card) {
        self.0 &= !(1 << card.0);
    }

    /// Number of cards.
    #[inline]
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The cards as chance outcomes (their ids, in id order), all equally likely: a deal from
    /// this set.
    pub fn uniform_outcomes(self) -> Vec<(Action, f64)> {
        let p = 1.0 / self.len() as f64;
        self.iter().map(|c| (c.0 as Action, p)).collect()
    }

    /// The cards in id order.
    pub fn iter(self) -> impl Iterator<Item = Card> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                None
            } else {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                Some(Card(i as u8))
            }
        })
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> Self {
        let mut s = CardSet::EMPTY;
        for c in iter {
            s.insert(c);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_round_trip_through_text() {
        for id in 0..NUM_CARD_IDS as u32 {
            let c = Card::from_id(id).unwrap();
            assert_eq!(c.to_string().parse::<Card>().unwrap(), c);
        }
        assert_eq!("As".parse::<Card>().unwrap(), Card::new(Rank::ACE, Suit(3)));
        assert_eq!("Td".parse::<Card>().unwrap().to_string(), "Td");
        assert!("1s".parse::<Card>().is_err());
        assert!("Asx".parse::<Card>().is_err());
        assert!("X4".parse::<Card>().is_err());
        assert!("".parse::<Card>().is_err());
    }

    #[test]
    fn decks() {
        assert_eq!(CardSet::full_deck().len(), 52);
        assert_eq!(CardSet::deck(Rank::SEVEN, 0).len(), 32);
        assert_eq!(CardSet::deck(Rank::TWO, 2).len(), 54);
        assert!(!CardSet::deck(Rank::SEVEN, 0).contains("6s".parse().unwrap()));
        assert!(CardSet::deck(Rank::SEVEN, 0).contains("7c".parse().unwrap()));
    }
}

/// Resampling of hidden cards (for `State::resample_from_infostate`): the unknown cards are
/// shuffled once, and each hidden card is replaced, in the order it was dealt, by the next
/// card of that shuffle; every card the seat knows stays itself.
///
/// The result depends only on the set of unknown cards, on the positions of the hidden deals
/// and on the generator, never on which hidden cards were really dealt. So two states a seat
/// cannot tell apart resample, with the same generator, to the same state: a search that
/// reaches the true state only through resampling (IS-MCTS) plays the same move on both.
#[derive(Clone, Debug)]
pub struct HiddenCards {
    unknown: CardSet,
    shuffled: Vec<Card>,
    next: usize,
    map: [u8; 64],
}

impl HiddenCards {
    /// Shuffles `unknown` with `rng` (one shuffle, drawn now).
    pub fn new(unknown: CardSet, rng: &mut crate::rng::GameRng) -> Self {
        let mut shuffled: Vec<Card> = unknown.iter().collect();
        rng.shuffle(&mut shuffled);
        HiddenCards {
            unknown,
            shuffled,
            next: 0,
            map: [u8::MAX; 64],
        }
    }

    /// The card that replaces the dealt card `card`: itself when the seat knows it, else the
    /// next card of the shuffle (the same one again if `card` was replaced before).
    pub fn replace(&mut self, card: Card) -> Card {
        if !self.unknown.contains(card) {
            return card;
        }
        let slot = &mut self.map[card.0 as usize];
        if *slot == u8::MAX {
            *slot = self.shuffled[self.next].0;
            self.next += 1;
        }
        Card(*slot)
    }
}
