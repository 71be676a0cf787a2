//! The card table of docs/games/poker_chess.md as pure functions: which moves a card allows, over a
//! small description of a move (`MoveTraits`), plus the piece values used for scoring.
//!
//! Every card falls in one of 25 *classes* (black 1–8, black 9, black 10, black J/Q/K, red
//! 1–8, red 9–K, joker); a move satisfies a set of classes (a `u32` bit mask). A card allows a
//! move when the move's mask holds the card's class, so a whole hand is checked against a
//! position with one OR over its moves and one mask per class.

use crate::cards::{Card, CardSet, NUM_CARD_IDS};
use crate::error::NotationError;

/// A kind of chess piece, in the order pawn, knight, bishop, rook, queen, king.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PieceKind {
    /// A pawn.
    Pawn,
    /// A knight.
    Knight,
    /// A bishop.
    Bishop,
    /// A rook.
    Rook,
    /// A queen.
    Queen,
    /// A king.
    King,
}

impl PieceKind {
    /// All kinds, pawn first.
    pub const ALL: [PieceKind; 6] = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
        PieceKind::King,
    ];

    /// The kind's index (pawn 0 … king 5).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The kind's lower-case letter (`p n b r q k`).
    pub fn letter(self) -> char {
        b"pnbrqk"[self.index()] as char
    }

    /// The kind for a letter (either case).
    pub fn from_letter(c: char) -> Option<PieceKind> {
        let i = b"pnbrqk"
            .iter()
            .position(|&l| l == c.to_ascii_lowercase() as u8)?;
        Some(PieceKind::ALL[i])
    }
}

/// What the card table needs to know about a move (files are 0 = a … 7 = h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveTraits {
    /// The moving piece (the king for castling).
    pub piece: PieceKind,
    /// The file the piece ends on (the king's landing file, g or c, for castling).
    pub to_file: u8,
    /// Whether the move captures (en passant included).
    pub is_capture: bool,
    /// Whether the move is an en passant capture.
    pub is_en_passant: bool,
    /// Whether the move is castling.
    pub is_castle: bool,
    /// Whether an enemy piece attacks the moving piece's square at the start of the turn.
    pub from_attacked: bool,
}

/// Number of card classes.
pub const NUM_CLASSES: usize = 25;
/// Class of a black card 1–8: a pawn move ending on file `pip - 1` (classes 0–7).
pub const BLACK_FILE: u32 = 0;
/// Class of a black 9: a pawn move ending on an odd file (a, c, e, g).
pub const BLACK_ODD: u32 = 8;
/// Class of a black 10: a pawn move ending on an even file (b, d, f, h).
pub const BLACK_EVEN: u32 = 9;
/// Class of a black J, Q or K: any pawn capture.
pub const BLACK_CAPTURE: u32 = 10;
/// Class of a red card 1–8: a non-pawn move ending on file `pip - 1` (classes 11–18).
pub const RED_FILE: u32 = 11;
/// Class of a red 9: a rook move.
pub const RED_ROOK: u32 = 19;
/// Class of a red 10: a knight move.
pub const RED_KNIGHT: u32 = 20;
/// Class of a red J: a bishop move.
pub const RED_BISHOP: u32 = 21;
/// Class of a red Q: a queen move.
pub const RED_QUEEN: u32 = 22;
/// Class of a red K: a king move (castling included).
pub const RED_KING: u32 = 23;
/// Class of a joker: a move of an attacked piece.
pub const JOKER: u32 = 24;

/// The class of a card.
pub const fn card_class(card: Card) -> u32 {
    let id = card.0;
    if id >= 52 {
        return JOKER;
    }
    let (rank, suit) = (id / 4, id % 4);
    // Ace = 1, 2..10, J = 11, Q = 12, K = 13.
    let pip = if rank == 12 { 1 } else { rank as u32 + 2 };
    let red = suit == 1 || suit == 2;
    if !red {
        match pip {
            1..=8 => BLACK_FILE + pip - 1,
            9 => BLACK_ODD,
            10 => BLACK_EVEN,
            _ => BLACK_CAPTURE,
        }
    } else {
        match pip {
            1..=8 => RED_FILE + pip - 1,
            9 => RED_ROOK,
            10 => RED_KNIGHT,
            11 => RED_BISHOP,
            12 => RED_QUEEN,
            _ => RED_KING,
        }
    }
}

/// The class of every card id.
pub const CARD_CLASS: [u8; NUM_CARD_IDS] = {
    let mut out = [0u8; NUM_CARD_IDS];
    let mut i = 0;
    while i < NUM_CARD_IDS {
        out[i] = card_class(Card(i as u8)) as u8;
        i += 1;
    }
    out
};

/// The cards of every class, as card sets.
pub const CLASS_CARDS: [u64; NUM_CLASSES] = {
    let mut out = [0u64; NUM_CLASSES];
    let mut i = 0;
    while i < NUM_CARD_IDS {
        out[CARD_CLASS[i] as usize] |= 1 << i;
        i += 1;
    }
    out
};

/// The classes of cards that allow a move, as a bit mask.
#[inline]
pub fn move_classes(m: &MoveTraits) -> u32 {
    let f = m.to_file as u32;
    let mut mask = match m.piece {
        PieceKind::Pawn => {
            let parity = if f & 1 == 0 { BLACK_ODD } else { BLACK_EVEN };
            let capture = if m.is_capture { 1 << BLACK_CAPTURE } else { 0 };
            1 << (BLACK_FILE + f) | 1 << parity | capture
        }
        piece => {
            let kind = match piece {
                PieceKind::Knight => RED_KNIGHT,
                PieceKind::Bishop => RED_BISHOP,
                PieceKind::Rook => RED_ROOK,
                PieceKind::Queen => RED_QUEEN,
                _ => RED_KING,
            };
            1 << (RED_FILE + f) | 1 << kind
        }
    };
    if m.from_attacked {
        mask |= 1 << JOKER;
    }
    mask
}

/// Whether `card` allows the move.
#[inline]
pub fn card_allows(card: Card, m: &MoveTraits) -> bool {
    move_classes(m) >> CARD_CLASS[card.0 as usize] & 1 == 1
}

/// The cards of `hand` whose class is in `classes` (the playable cards, given the OR of the
/// class masks of every move in the position).
#[inline]
pub fn playable_cards(hand: CardSet, classes: u32) -> CardSet {
    let mut set = 0u64;
    let mut bits = classes;
    while bits != 0 {
        let c = bits.trailing_zeros();
        bits &= bits - 1;
        set |= CLASS_CARDS[c as usize];
    }
    CardSet(hand.0 & set)
}

/// What a card allows, in words (for views and docs).
pub fn card_meaning(card: Card) -> String {
    const FILES: &[u8; 8] = b"abcdefgh";
    let c = card_class(card);
    match c {
        0..=7 => format!("a pawn move ending on file {}", FILES[c as usize] as char),
        BLACK_ODD => "a pawn move ending on file a, c, e or g".to_string(),
        BLACK_EVEN => "a pawn move ending on file b, d, f or h".to_string(),
        BLACK_CAPTURE => "any pawn capture".to_string(),
        11..=18 => format!(
            "a non-pawn move ending on file {}",
            FILES[(c - RED_FILE) as usize] as char
        ),
        RED_ROOK => "a rook move".to_string(),
        RED_KNIGHT => "a knight move".to_string(),
        RED_BISHOP => "a bishop move".to_string(),
        RED_QUEEN => "a queen move".to_string(),
        RED_KING => "a king move (castling included)".to_string(),
        _ => "a move of a piece an enemy piece attacks".to_string(),
    }
}

/// Points for capturing each kind of piece, indexed by `PieceKind::index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceValues(pub [u32; 6]);

impl PieceValues {
    /// The standard values: pawn 1, knight 3, bishop 3, rook 5, queen 9, king 100.
    pub const STANDARD: PieceValues = PieceValues([1, 3, 3, 5, 9, 100]);
    /// The largest value a parameter may give a piece.
    pub const MAX_VALUE: u32 = 10_000;

    /// The value of a kind.
    #[inline]
    pub fn of(self, kind: PieceKind) -> u32 {
        self.0[kind.index()]
    }

    /// Parses `k=100 q=9 r=5 b=3 n=3 p=1`: entries `letter=value` separated by spaces,
    /// commas or semicolons, any order, each piece at most once; pieces left out keep their
    /// standard value. Values are integers from 0 to 10000.
    pub fn parse(text: &str) -> Result<PieceValues, NotationError> {
        let bad = NotationError::new;
        let mut values = PieceValues::STANDARD;
        let mut seen = [false; 6];
        for entry in text
            .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
            .filter(|e| !e.is_empty())
        {
            let (letter, value) = entry
                .split_once('=')
                .ok_or_else(|| bad(format!("entry '{entry}' is not of the form letter=value")))?;
            let mut chars = letter.trim().chars();
            let kind = match (chars.next(), chars.next()) {
                (Some(c), None) => PieceKind::from_letter(c),
                _ => None,
            }
            .ok_or_else(|| {
                bad(format!(
                    "'{letter}' in '{entry}' is not a piece letter (one of k q r b n p)"
                ))
            })?;
            let v: u32 = value
                .trim()
                .parse()
                .ok()
                .filter(|v| *v <= Self::MAX_VALUE)
                .ok_or_else(|| {
                    bad(format!(
                        "value '{value}' in '{entry}' is not an integer from 0 to {}",
                        Self::MAX_VALUE
                    ))
                })?;
            if std::mem::replace(&mut seen[kind.index()], true) {
                return Err(bad(format!("piece '{}' is given twice", kind.letter())));
            }
            values.0[kind.index()] = v;
        }
        Ok(values)
    }

    /// The values as parameter text (`k=100 q=9 r=5 b=3 n=3 p=1`).
    pub fn to_text(self) -> String {
        [5, 4, 3, 2, 1, 0]
            .iter()
            .map(|&i| format!("{}={}", PieceKind::ALL[i].letter(), self.0[i]))
            .collect::<Vec<_>>()
            .join(" ")
    }
}
