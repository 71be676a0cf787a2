//! Poker hand values (the ranking every game shares): the best hand of at most 5 cards
//! out of any set of ordinary cards (Detective Poker, best 5 of 2–7), and hands of 1–5 cards
//! compared with missing cards ranking lowest (Hold'em Poker Chess, docs/games/holdem_chess.md).
//!
//! A [`HandValue`] is `category << 26 | primary << 13 | secondary`, where `primary` and
//! `secondary` are 13-bit rank masks (bit `r` = rank `r`, 0 = `2` … 12 = `A`):
//!
//! | category | primary | secondary |
//! |---|---|---|
//! | high card | — | the ranks |
//! | pair | the pair's rank | the kickers |
//! | two pair | the two pairs' ranks | the kicker |
//! | three of a kind | the trips' rank | the kickers |
//! | straight | — | the top rank (`5` for the wheel A-2-3-4-5) |
//! | flush | — | the five ranks |
//! | full house | the trips' rank | the pair's rank |
//! | four of a kind | the quads' rank | the kicker |
//! | straight flush | — | the top rank |
//!
//! Comparing two masks of distinct ranks as integers compares their ranks from the highest down, a
//! missing rank losing to any rank, which is exactly docs/games/holdem_chess.md: AA (pair, no
//! kickers) beats KKA37, AA2 beats AA, Q32 beats J9752, 77K beats 77Q25.
//!
//! [`best_of`] is the fast path (no allocation, table lookups and bit operations); it is exact
//! for any set of ordinary cards, and for at most 5 cards it values them as one hand.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::cards::{Card, CardSet, Rank};

/// A hand's strength: larger is better; values of hands of 1..=5 cards compare correctly with
/// each other (a missing card ranks below every card).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct HandValue(pub u32);

/// A hand category, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Category {
    /// No two cards of a rank, no straight, no flush.
    HighCard = 0,
    /// Two cards of one rank.
    Pair,
    /// Two cards of one rank and two of another.
    TwoPair,
    /// Three cards of one rank.
    ThreeOfAKind,
    /// Five consecutive ranks (ace high or, in A-2-3-4-5, low).
    Straight,
    /// Five cards of one suit.
    Flush,
    /// Three cards of one rank and two of another.
    FullHouse,
    /// Four cards of one rank.
    FourOfAKind,
    /// A straight of one suit.
    StraightFlush,
}

/// Number of categories.
pub const NUM_CATEGORIES: usize = 9;

impl Category {
    /// Every category, weakest first.
    pub const ALL: [Category; NUM_CATEGORIES] = [
        Category::HighCard,
        Category::Pair,
        Category::TwoPair,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::FourOfAKind,
        Category::StraightFlush,
    ];

    /// A readable name, e.g. "two pair".
    pub fn name(self) -> &'static str {
        match self {
            Category::HighCard => "high card",
            Category::Pair => "pair",
            Category::TwoPair => "two pair",
            Category::ThreeOfAKind => "three of a kind",
            Category::Straight => "straight",
            Category::Flush => "flush",
            Category::FullHouse => "full house",
            Category::FourOfAKind => "four of a kind",
            Category::StraightFlush => "straight flush",
        }
    }
}

const CATEGORY_SHIFT: u32 = 26;
const PRIMARY_SHIFT: u32 = 13;
const RANKS: u32 = 0x1FFF;

/// The value of a category with its two rank masks.
#[inline(always)]
const fn value(category: Category, primary: u32, secondary: u32) -> u32 {
    (category as u32) << CATEGORY_SHIFT | primary << PRIMARY_SHIFT | secondary
}

const RANK_NAMES: [&str; 13] = [
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen",
    "king", "ace",
];
const RANK_PLURALS: [&str; 13] = [
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens", "jacks",
    "queens", "kings", "aces",
];

/// The ranks of a mask, highest first.
fn ranks_desc(mask: u32) -> impl Iterator<Item = usize> {
    (0..13usize).rev().filter(move |&r| mask >> r & 1 == 1)
}

impl HandValue {
    /// The value of no cards at all (below every hand).
    pub const NONE: HandValue = HandValue(0);

    /// The hand's category.
    pub fn category(self) -> Category {
        Category::ALL[((self.0 >> CATEGORY_SHIFT) as usize).min(NUM_CATEGORIES - 1)]
    }

    /// The primary rank mask (group ranks: pair, pairs, trips, quads), see the module docs.
    pub fn primary(self) -> u32 {
        self.0 >> PRIMARY_SHIFT & RANKS
    }

    /// The secondary rank mask (kickers, straight top, flush ranks, full house pair).
    pub fn secondary(self) -> u32 {
        self.0 & RANKS
    }

    /// A readable description, e.g. "pair of aces, K 7 kickers".
    pub fn describe(self) -> String {
        let top = |mask: u32| ranks_desc(mask).next().unwrap_or(0);
        let (primary, secondary) = (self.primary(), self.secondary());
        let mut s = match self.category() {
            Category::HighCard => match ranks_desc(secondary).next() {
                None => return "no cards".to_string(),
                Some(r) => format!("{} high", RANK_NAMES[r]),
            },
            Category::Pair => format!("pair of {}", RANK_PLURALS[top(primary)]),
            Category::TwoPair => {
                let mut pairs = ranks_desc(primary);
                let hi = pairs.next().unwrap_or(0);
                let lo = pairs.next().unwrap_or(0);
                format!("two pair, {} and {}", RANK_PLURALS[hi], RANK_PLURALS[lo])
            }
            Category::ThreeOfAKind => format!("three {}", RANK_PLURALS[top(primary)]),
            Category::Straight => return format!("straight, {} high", RANK_NAMES[top(secondary)]),
            Category::Flush => {
                let mut s = "flush,".to_string();
                for r in ranks_desc(secondary) {
                    let _ = write!(s, " {}", Rank(r as u8).char());
                }
                return s;
            }
            Category::FullHouse => {
                return format!(
                    "full house, {} full of {}",
                    RANK_PLURALS[top(primary)],
                    RANK_PLURALS[top(secondary)]
                );
            }
            Category::FourOfAKind => format!("four {}", RANK_PLURALS[top(primary)]),
            Category::StraightFlush => {
                return if secondary == 1 << 12 {
                    "royal flush".to_string()
                } else {
                    format!("straight flush, {} high", RANK_NAMES[top(secondary)])
                };
            }
        };
        // The kickers (for high card: the ranks below the top one).
        let skip = usize::from(self.category() == Category::HighCard);
        let kickers: Vec<char> = ranks_desc(secondary)
            .skip(skip)
            .map(|r| Rank(r as u8).char())
            .collect();
        if !kickers.is_empty() {
            s.push(',');
            for k in &kickers {
                s.push(' ');
                s.push(*k);
            }
            s.push_str(if kickers.len() == 1 {
                " kicker"
            } else {
                " kickers"
            });
        }
        s
    }
}

/// Bits 0, 4, …, 48 of a card set: one bit per rank of one suit.
const SUIT_BITS: u64 = 0x1_1111_1111_1111;
/// The 52 ordinary cards.
const ORDINARY: u64 = (1 << 52) - 1;

/// Gathers bits `4r` (r = 0..13) of `m` into bits `r`.
#[inline(always)]
const fn compact(m: u64) -> u32 {
    let m = m & SUIT_BITS;
    let m = (m | m >> 3) & 0x0303_0303_0303_0303;
    let m = (m | m >> 6) & 0x000F_000F_000F_000F;
    let m = (m | m >> 12) & 0x0000_00FF_0000_00FF;
    ((m | m >> 24) & 0xFFFF) as u32
}

/// The top straight in a rank mask as a one-bit mask of its top rank, or 0.
const fn straight_top(ranks: u32) -> u32 {
    // Bit r + 1 of `low` is rank r; bit 0 is the ace playing low.
    let low = ranks << 1 | ranks >> 12 & 1;
    let runs = low & low >> 1 & low >> 2 & low >> 3 & low >> 4;
    // Bit r of `runs` set: ranks r-1 ..= r+3 (ace low at -1); top rank r + 3.
    if runs == 0 {
        0
    } else {
        1 << (31 - runs.leading_zeros() + 3)
    }
}

/// Keeps the `k` highest set bits of a 13-bit mask.
const fn keep_top(k: u32, mut ranks: u32) -> u32 {
    while ranks.count_ones() > k {
        ranks &= ranks - 1;
    }
    ranks
}

/// The value of a flush of the given rank mask (at least 5 ranks): straight flush or flush.
static FLUSH: [u32; 8192] = {
    let mut t = [0u32; 8192];
    let mut m = 0;
    while m < 8192 {
        let top = straight_top(m as u32);
        t[m] = if top != 0 {
            value(Category::StraightFlush, 0, top)
        } else {
            value(Category::Flush, 0, keep_top(5, m as u32))
        };
        m += 1;
    }
    t
};

/// Multiplier that hashes a mask of bits `4r` (r = 0..13) into 13 bits without collisions
/// (found by search; checked at compile time by `UNHASH`).
const MAGIC: u64 = 0x4010_0080_0200_4000;
/// Sums the nibbles of a word into its top nibble (when no partial sum exceeds 15).
const NIBBLE_SUM: u64 = 0x1111_1111_1111_1111;

/// The 13-bit hash of a mask of bits `4r`.
#[inline(always)]
const fn hash(m: u64) -> usize {
    (m.wrapping_mul(MAGIC) >> 51) as usize
}

/// Spreads rank bit `r` to bit `4r`.
const fn spread(ranks: u32) -> u64 {
    let mut m = 0;
    let mut r = 0;
    while r < 13 {
        m |= ((ranks >> r & 1) as u64) << (4 * r);
        r += 1;
    }
    m
}

/// The rank mask for each hash (the hash is a bijection; a collision fails the build).
static UNHASH: [u16; 8192] = {
    let mut t = [0u16; 8192];
    let mut filled = [false; 8192];
    let mut m = 0;
    while m < 8192 {
        let h = hash(spread(m as u32));
        assert!(!filled[h], "MAGIC collides");
        filled[h] = true;
        t[h] = m as u16;
        m += 1;
    }
    t
};

/// The flush (or straight flush) value of a suit's cards, by hash of the suit's bits `4r`.
static FLUSH_BY_HASH: [u32; 8192] = {
    let mut t = [0u32; 8192];
    let mut m = 0;
    while m < 8192 {
        t[hash(spread(m as u32))] = FLUSH[m];
        m += 1;
    }
    t
};

/// The top rank of the best straight in a rank mask, plus one (0: none), by hash.
static STRAIGHT_BY_HASH: [u8; 8192] = {
    let mut t = [0u8; 8192];
    let mut m = 0;
    while m < 8192 {
        let top = straight_top(m as u32);
        if top != 0 {
            t[hash(spread(m as u32))] = top.trailing_zeros() as u8 + 1;
        }
        m += 1;
    }
    t
};

/// For masks of at most two ranks (the pairs kept): the value of high card, pair or two pair
/// with those ranks as primary and no kickers, by hash.
static PAIRS_BY_HASH: [u32; 8192] = {
    let mut t = [0u32; 8192];
    let mut m = 0u32;
    while m < 8192 {
        if m.count_ones() <= 2 {
            t[hash(spread(m))] = m.count_ones() << CATEGORY_SHIFT | m << PRIMARY_SHIFT;
        }
        m += 1;
    }
    t
};

/// The rank mask of a mask of bits `4r`.
#[inline(always)]
fn ranks_of(m: u64) -> u32 {
    UNHASH[hash(m)] as u32
}

/// The highest set bit of `m` (0 for 0).
#[inline(always)]
fn top_bit(m: u64) -> u64 {
    (1u64 << 63).wrapping_shr(m.leading_zeros()) & m
}

/// Clears the lowest set bit.
#[inline(always)]
fn drop_low(m: u64) -> u64 {
    m & m.wrapping_sub(1)
}

/// Clears the `k` (0..=2) lowest set bits, without branches.
#[inline(always)]
fn drop_lowest(m: u64, k: u64) -> u64 {
    let m1 = drop_low(m);
    let m2 = drop_low(m1);
    let m = if k >= 1 { m1 } else { m };
    if k >= 2 { m2 } else { m }
}

// The exact-7-card path: generated by build.rs (a perfect hash of the 49,205 rank multisets
// of 7 cards into the values of their best 5 cards without a flush).
include!(concat!(env!("OUT_DIR"), "/eval7.rs"));
// The slot is a `u16` (column plus offset, wrapping), so every slot is in the value table.
const _: () = assert!(EVAL7_COL_BITS == 16 && EVAL7_VALUES.len() == 1 << 16);

/// Bit offset of suit `s`'s card count (5 bits each, biased by `SUIT_BIAS`) in a 7-card key.
const SUIT_FIELD: u32 = 5;
/// Added to each suit's count: its field's bit 4 is set when the suit has at least 5 cards.
const SUIT_BIAS: u64 = 11;
/// Bit offset of the card count (4 bits; wraps above 15) in a 7-card key.
const TOTAL_SHIFT: u32 = 20;
/// The flush flags and the card count of a 7-card key; `best_of`'s fast path needs exactly
/// `7 << TOTAL_SHIFT` under this mask (7 cards, no suit with 5).
const KEY_CHECK: u64 = 0x10 | 0x10 << 5 | 0x10 << 10 | 0x10 << 15 | 0xF << TOTAL_SHIFT;

/// One card's term of the 7-card key: `(1 << 3r) * EVAL7_MAGIC << 24` (the rank multiset's
/// hash, linear in the cards) plus 1 in the card's suit field and 1 in the card count. Jokers
/// and unused bits add nothing.
const fn card_term(bit: u32) -> u64 {
    if bit >= 52 {
        return 0;
    }
    let (rank, suit) = (bit / 4, bit % 4);
    ((1u64 << (3 * rank)).wrapping_mul(EVAL7_MAGIC) << 24)
        .wrapping_add(1 << (SUIT_FIELD * suit))
        .wrapping_add(1 << TOTAL_SHIFT)
}

/// The key terms of all cards of a chunk of `log2(N)` card-set bits from bit `start`, plus
/// the suit biases for the chunk at bit 0.
const fn chunk_table<const N: usize>(start: u32) -> [u64; N] {
    let mut t = [0u64; N];
    let mut b = 0;
    while b < N {
        let mut e = 0u64;
        if start == 0 {
            e = SUIT_BIAS * (1 | 1 << 5 | 1 << 10 | 1 << 15);
        }
        let mut i = 0;
        while 1 << i < N {
            if b >> i & 1 == 1 {
                e = e.wrapping_add(card_term(start + i));
            }
            i += 1;
        }
        t[b] = e;
        b += 1;
    }
    t
}

/// 7-card key terms of card-set bits 0..10, 10..20 and 20..30 (8 KB each).
static KEY_LOW: [[u64; 1024]; 3] = [chunk_table(0), chunk_table(10), chunk_table(20)];
/// 7-card key terms of card-set bits 30..41 and 41..52 (16 KB each).
static KEY_HIGH: [[u64; 2048]; 2] = [chunk_table(30), chunk_table(41)];

/// The value of the best hand of at most 5 cards out of `cards` (ordinary cards; jokers are
/// ignored). Exact for any number of cards; for at most 5 cards it is the value of the cards
/// as one hand ([`evaluate_partial`]). The fast path, for exactly 7 cards without a flush:
/// five chunk-table reads sum to a key holding the suit counts, the card count and a hash of
/// the rank multiset; two more reads (a row offset, then the value) finish it. Anything else
/// takes the general path (no allocation either).
///
/// ```
/// use checkraise_core::cards::{CardSet, parse_cards};
/// use checkraise_core::poker::eval::{Category, best_of};
///
/// let set = |s: &str| parse_cards(s).unwrap().into_iter().collect::<CardSet>();
/// let two_pair = best_of(set("As Ad Kc Kh 7s 2d 3c"));
/// assert_eq!(two_pair.category(), Category::TwoPair);
/// assert!(two_pair > best_of(set("As Ad Qc Kh 7s 2d 3c")), "two pair beats a pair");
/// ```
#[inline]
pub fn best_of(cards: CardSet) -> HandValue {
    let x = cards.0;
    let low = |i: usize, shift: u32| KEY_LOW[i][(x >> shift & 1023) as usize];
    let high = |i: usize, shift: u32| KEY_HIGH[i][(x >> shift & 2047) as usize];
    let key = (low(0, 0).wrapping_add(low(1, 10)))
        .wrapping_add(low(2, 20).wrapping_add(high(0, 30)))
        .wrapping_add(high(1, 41));
    if key & KEY_CHECK != 7 << TOTAL_SHIFT {
        return best_of_other(cards);
    }
    let column = (key >> (64 - EVAL7_ROW_BITS - EVAL7_COL_BITS)) as u16;
    let row = (key >> (64 - EVAL7_ROW_BITS)) as usize;
    HandValue(EVAL7_VALUES[column.wrapping_add(EVAL7_OFFSETS[row]) as usize])
}

/// [`best_of`] for anything but 7 cards without a flush: up to 7 cards without allocation,
/// mostly without branches (masks of bits `4r` per rank, one hash-table lookup per rank
/// mask); more than 7 cards by [`best_of_any`].
#[inline(never)]
fn best_of_other(cards: CardSet) -> HandValue {
    // Jokers (bits 52..=54) fall outside every mask below.
    let x = cards.0;
    // Cards per suit: the nibble sum of the suit's bits lands in the top nibble.
    let c0 = (x & SUIT_BITS).wrapping_mul(NIBBLE_SUM) >> 60;
    let c1 = (x >> 1 & SUIT_BITS).wrapping_mul(NIBBLE_SUM) >> 60;
    let c2 = (x >> 2 & SUIT_BITS).wrapping_mul(NIBBLE_SUM) >> 60;
    let c3 = (x >> 3 & SUIT_BITS).wrapping_mul(NIBBLE_SUM) >> 60;
    let total = c0 + c1 + c2 + c3;
    // Biased by 3, a count of at most 7 has bit 3 set when it is at least 5.
    if total > 7 || ((c0 + 3) | (c1 + 3) | (c2 + 3) | (c3 + 3)) & 8 != 0 {
        return best_of_flush_or_many(cards, [c0, c1, c2, c3], total);
    }
    // Cards per rank, one nibble each (0..=4), and the ranks held at least 1, 2, 3 times.
    let n = x - (x >> 1 & 0x5555_5555_5555_5555);
    let n = (n & 0x3333_3333_3333_3333) + (n >> 2 & 0x3333_3333_3333_3333);
    let (n1, n2) = (n >> 1, n >> 2);
    let pairs = (n1 | n2) & SUIT_BITS;
    let any = n & SUIT_BITS | pairs;
    let trips = (n & n1 | n2) & SUIT_BITS;
    let straight = STRAIGHT_BY_HASH[hash(any)];
    if trips != 0 || straight != 0 {
        return best_of_rare(n, any, pairs, trips, straight, total);
    }
    // High card, pair or two pair: the two highest pairs, then the highest kickers.
    let without_lowest = drop_low(pairs);
    let three_pairs = drop_low(without_lowest) != 0;
    let groups = if three_pairs { without_lowest } else { pairs };
    let kickers = drop_lowest(any & !groups, total.saturating_sub(5 + three_pairs as u64));
    HandValue(PAIRS_BY_HASH[hash(groups)] | ranks_of(kickers))
}

/// `best_of` for more than 7 cards, or a flush in at most 7 cards (cards per suit).
#[inline(never)]
fn best_of_flush_or_many(cards: CardSet, per_suit: [u64; 4], total: u64) -> HandValue {
    if total > 7 {
        return best_of_any(cards);
    }
    // With at most 7 cards nothing but a straight flush (in the table) beats a flush.
    let suit = per_suit.iter().position(|&c| c >= 5).unwrap_or(0);
    HandValue(FLUSH_BY_HASH[hash(cards.0 >> suit & SUIT_BITS)])
}

/// `best_of` for at most 7 cards without a flush but with trips or a straight.
#[inline(never)]
fn best_of_rare(n: u64, any: u64, pairs: u64, trips: u64, straight: u8, total: u64) -> HandValue {
    let quads = n >> 2 & SUIT_BITS;
    let v = if quads != 0 {
        value(
            Category::FourOfAKind,
            ranks_of(quads),
            ranks_of(top_bit(any & !quads)),
        )
    } else if trips != 0 && (trips & !top_bit(trips)) | (pairs & !trips) != 0 {
        let high = top_bit(trips);
        value(
            Category::FullHouse,
            ranks_of(high),
            ranks_of(top_bit(pairs & !high)),
        )
    } else if straight != 0 {
        value(Category::Straight, 0, 1 << (straight - 1))
    } else {
        let kickers = drop_lowest(any & !trips, total.saturating_sub(5));
        value(Category::ThreeOfAKind, ranks_of(trips), ranks_of(kickers))
    };
    HandValue(v)
}

/// `best_of` for any number of ordinary cards (the general path, used above 7 cards).
pub fn best_of_any(cards: CardSet) -> HandValue {
    let x = cards.0 & ORDINARY;
    let mut flush_value = 0;
    let mut suit = 0;
    while suit < 4 {
        let bits = x >> suit & SUIT_BITS;
        if bits.wrapping_mul(NIBBLE_SUM) >> 60 >= 5 {
            let v = FLUSH[compact(bits) as usize];
            if v > flush_value {
                flush_value = v;
            }
        }
        suit += 1;
    }
    if flush_value >> CATEGORY_SHIFT == Category::StraightFlush as u32 {
        return HandValue(flush_value);
    }
    // Cards per rank, one nibble each (0..=4).
    let n = x - (x >> 1 & 0x5555_5555_5555_5555);
    let n = (n & 0x3333_3333_3333_3333) + (n >> 2 & 0x3333_3333_3333_3333);
    let any = compact(n | n >> 1 | n >> 2);
    let two = compact(n >> 1 | n >> 2);
    let three = compact(n >> 2 | n & n >> 1);
    let four = compact(n >> 2);
    let rest = if four != 0 {
        let quads = keep_top(1, four);
        value(Category::FourOfAKind, quads, keep_top(1, any & !quads))
    } else if three != 0 {
        let trips = keep_top(1, three);
        let pair = keep_top(1, two & !trips);
        if pair != 0 {
            value(Category::FullHouse, trips, pair)
        } else if straight_top(any) != 0 {
            value(Category::Straight, 0, straight_top(any))
        } else {
            value(Category::ThreeOfAKind, trips, keep_top(2, any & !trips))
        }
    } else if straight_top(any) != 0 {
        value(Category::Straight, 0, straight_top(any))
    } else if two != 0 {
        if two & (two - 1) != 0 {
            let pairs = keep_top(2, two);
            value(Category::TwoPair, pairs, keep_top(1, any & !pairs))
        } else {
            value(Category::Pair, two, keep_top(3, any & !two))
        }
    } else {
        value(Category::HighCard, 0, keep_top(5, any))
    };
    HandValue(rest.max(flush_value))
}

/// The value of exactly 5 ordinary cards.
///
/// ```
/// use checkraise_core::cards::{Card, parse_cards};
/// use checkraise_core::poker::eval::{Category, evaluate5};
///
/// let wheel: [Card; 5] = parse_cards("5c 4d 3h 2s As").unwrap().try_into().unwrap();
/// assert_eq!(evaluate5(&wheel).category(), Category::Straight);
/// ```
pub fn evaluate5(cards: &[Card; 5]) -> HandValue {
    best_of(cards.iter().copied().collect())
}

/// The value of 0..=5 distinct ordinary cards as one hand (no best-of choice): straights,
/// flushes and full houses need 5 cards; group ranks then kickers; a missing card ranks below
/// every card. With more than 5 cards this is the best hand of 5 of them.
pub fn evaluate_partial(cards: &[Card]) -> HandValue {
    best_of(cards.iter().copied().collect())
}

/// The value of the best hand of at most `max` cards chosen from `cards` (distinct ordinary
/// cards). A larger hand is never worse, so it is the best hand of `min(max, len)` cards.
pub fn best_partial_of(cards: &[Card], max: usize) -> HandValue {
    let set: CardSet = cards.iter().copied().collect();
    if max >= 5 || max >= cards.len() {
        return best_of(set);
    }
    // Enumerate the `max`-card subsets (max <= 4) by index.
    let mut best = HandValue::NONE;
    let mut idx = [0usize; 4];
    for (i, slot) in idx.iter_mut().enumerate().take(max) {
        *slot = i;
    }
    if max == 0 {
        return best;
    }
    loop {
        let hand: CardSet = idx[..max].iter().map(|&i| cards[i]).collect();
        best = best.max(best_of(hand));
        // Advance to the next combination in lexicographic order.
        let mut i = max;
        loop {
            if i == 0 {
                return best;
            }
            i -= 1;
            if idx[i] < cards.len() - max + i {
                break;
            }
        }
        idx[i] += 1;
        for j in i + 1..max {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests;
