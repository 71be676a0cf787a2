//! The shapes every game's view is built from (`Visible::view_of`, `State::view`): one shape per
//! concept, so a client reads a card, a board cell, a chess piece or a seat's cards the same
//! way in every game. Each game's view is a `#[derive(Serialize, JsonSchema)]` struct made of
//! these (in `games/<game>/view.rs`); its JSON Schema is generated from it and published in
//! `docs/views/` (`docs/views.md` describes them).
//!
//! The conventions:
//! - A card is its text (`"Kd"`, `"Th"`, `"X1"` for a joker), or `null` when it is face down
//!   for this viewer. A field or list that may hold a card nobody sees uses `null`; a field
//!   for a card that may not exist at all (a cell with no card, a bet with no action card) is
//!   absent instead, so `null` always means "a card is there, face down".
//! - A board is a list of cells, each with integer `x`, `y` and what is on it.
//! - A chess piece is its FEN letter (`"K"` a white king, `"n"` a black knight).
//! - Chips (a betting stack) are `chips`, scores are `points`, and a seat's own numbers live
//!   in its entry of `seats`.
//! - Every view starts with the same header (`Header`, flattened into it).

use schemars::JsonSchema;
use serde::Serialize;

use crate::cards::Card;
use crate::chess::{Board, Color, Move, Piece, Square, piece_char};
use crate::rules::Rules;
use crate::vocabulary::Player;
pub use crate::vocabulary::Viewer;

/// The fields every view has, first.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Header {
    /// The game's registered name (`pokeros`, `prediction_chess`, `poker_chess`,
    /// `holdem_chess`, `detective_poker`).
    pub game: &'static str,
    /// Whose view this is: a seat, or null for a spectator (public information only) and
    /// for everyone (see `everyone`).
    pub viewer: Option<usize>,
    /// Present, and true, only in the view of every seat's information together: what a
    /// finished match's replay shows, with every card any seat held face up.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub everyone: bool,
    /// Who acts now: a seat (0, 1, ...), -1 chance, -2 every seat at once (a simultaneous
    /// node), -4 nobody (the game is over).
    #[schemars(range(min = -4))]
    pub current_player: i64,
    /// Whether the game is over.
    pub terminal: bool,
    /// Each seat's return, once the game is over; null before.
    pub returns: Option<Vec<f64>>,
}

impl Header {
    /// The header of `rules`' view for `viewer`.
    pub fn of<R: Rules>(rules: &R, viewer: Viewer) -> Header {
        let current = rules.current_player();
        let terminal = current == Player::Terminal;
        Header {
            game: rules.info().name,
            viewer: viewer.seat(),
            everyone: viewer == Viewer::Everyone,
            current_player: current.id(),
            terminal,
            returns: terminal.then(|| rules.returns()),
        }
    }
}

/// A face-up card: rank (`2`-`9`, `T`, `J`, `Q`, `K`, `A`) then suit (`c`, `d`, `h`, `s`),
/// or `X1`, `X2`, ... for a joker. Where a card may be face down the field is this or null.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct CardText(#[schemars(regex(pattern = r"^([2-9TJQKA][cdhs]|X[1-9])$"))] String);

impl CardText {
    /// The text of `card`.
    pub fn of(card: Card) -> CardText {
        CardText(card.to_string())
    }
}

/// `card`'s text when `visible`, else null (face down).
pub fn face(card: Card, visible: bool) -> Option<CardText> {
    visible.then(|| CardText::of(card))
}

/// The texts of `cards`, all face up.
pub fn faces(cards: impl IntoIterator<Item = Card>) -> Vec<CardText> {
    cards.into_iter().map(CardText::of).collect()
}

/// A chess piece: its FEN letter, uppercase for white (`K`, `Q`, `R`, `B`, `N`, `P`),
/// lowercase for black.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct PieceText(#[schemars(regex(pattern = r"^[KQRBNPkqrbnp]$"))] String);

impl PieceText {
    /// The FEN letter of `color`'s `piece`.
    pub fn of(color: Color, piece: Piece) -> PieceText {
        PieceText(piece_char(color, piece).to_string())
    }
}

/// A chess square, file then rank: `a1` ... `h8`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct SquareText(#[schemars(regex(pattern = r"^[a-h][1-8]$"))] String);

impl SquareText {
    /// The name of `square`.
    pub fn of(square: Square) -> SquareText {
        SquareText(square.to_string())
    }
}

/// A chess side. Seat 0 plays white and seat 1 black in both chess games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White (seat 0).
    White,
    /// Black (seat 1).
    Black,
}

impl Side {
    /// The side of `color`.
    pub fn of(color: Color) -> Side {
        match color {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }

    /// The side seat `seat` plays (0 white, 1 black).
    pub fn of_seat(seat: usize) -> Side {
        if seat == 0 { Side::White } else { Side::Black }
    }
}

/// One cell of a board and what is on it. Card games: `x` grows to the right and `y`
/// upwards, in the game's own coordinates (the ones its action strings use), with `card`.
/// Chess boards: `x` is the file (0 = a ... 7 = h) and `y` the rank minus one (0 = rank 1),
/// with `square`, `piece` and `owner`. Fields a cell does not have are absent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Cell {
    /// Column.
    pub x: i32,
    /// Row.
    pub y: i32,
    /// The square's name (chess boards).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "SquareText")]
    pub square: Option<SquareText>,
    /// The piece on the square (chess boards).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "PieceText")]
    pub piece: Option<PieceText>,
    /// The card on the cell: its text, or null when it lies face down for this viewer.
    /// Absent on a cell without a card.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<CardText>")]
    pub card: Option<Option<CardText>>,
    /// The seat the cell's content belongs to: the seat that placed the card, or the side
    /// of the piece (0 white, 1 black). Absent when it belongs to nobody (a community card).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub owner: Option<usize>,
}

impl Cell {
    /// A cell at (`x`, `y`) holding a card (`None`: face down).
    pub fn with_card(x: i32, y: i32, card: Option<CardText>) -> Cell {
        Cell {
            x,
            y,
            square: None,
            piece: None,
            card: Some(card),
            owner: None,
        }
    }

    /// The same cell, belonging to `owner`.
    pub fn owned_by(mut self, owner: Option<usize>) -> Cell {
        self.owner = owner;
        self
    }

    /// A chess square holding `color`'s `piece`.
    pub fn with_piece(square: Square, color: Color, piece: Piece) -> Cell {
        Cell {
            x: square.file() as i32,
            y: square.rank() as i32,
            square: Some(SquareText::of(square)),
            piece: Some(PieceText::of(color, piece)),
            card: None,
            owner: Some(color as usize),
        }
    }
}

/// Every piece on a chess board, a1 first, rank by rank.
pub fn chess_cells(board: &Board) -> Vec<Cell> {
    Square::ALL
        .into_iter()
        .filter_map(|sq| board.on(sq).map(|(c, p)| Cell::with_piece(sq, c, p)))
        .collect()
}

/// The cards a seat holds (flattened into its entry of `seats`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Held {
    /// One entry per card held, in the game's order: its text, or null when this viewer may
    /// not see it.
    pub cards: Vec<Option<CardText>>,
    /// How many cards the seat holds (the length of `cards`).
    pub count: usize,
}

impl Held {
    /// These cards, each face up or down as given.
    pub fn new(cards: Vec<Option<CardText>>) -> Held {
        Held {
            count: cards.len(),
            cards,
        }
    }

    /// `cards`, all face up when `visible`, else all face down.
    pub fn of(cards: impl IntoIterator<Item = Card>, visible: bool) -> Held {
        Held::new(cards.into_iter().map(|c| face(c, visible)).collect())
    }
}

/// A seat and its cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SeatCards {
    /// The seat.
    pub seat: usize,
    /// Its cards.
    #[serde(flatten)]
    pub held: Held,
}

/// A poker betting round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Street {
    /// Before any community card.
    Preflop,
    /// After the first three community cards.
    Flop,
    /// After the fourth.
    Turn,
    /// After the fifth.
    River,
}

impl Street {
    /// The rounds in order.
    pub const ALL: [Street; 4] = [Street::Preflop, Street::Flop, Street::Turn, Street::River];
}

/// An action the viewer may take now: its id and its text (both accepted by `apply_action`
/// and gRPC's `Act`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct LegalAction {
    /// The action id.
    pub id: u32,
    /// The action as text.
    pub text: String,
}

/// A schema as the text of its file in `docs/views/`: pretty JSON, keys sorted, a final
/// newline.
pub fn schema_text(schema: &schemars::Schema) -> String {
    let mut text = serde_json::to_string_pretty(schema.as_value()).expect("a schema serializes");
    text.push('\n');
    text
}

/// A chess move's parts as action structs write them (flattened into the game's struct).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct MoveParts {
    /// The square the piece leaves (`e2`).
    pub from: String,
    /// The square it reaches (`e4`).
    pub to: String,
    /// The piece a pawn promotes to (`q`, `r`, `b`, `n`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promotion: Option<String>,
}

impl MoveParts {
    /// The parts of `mv`.
    pub fn of(mv: Move) -> MoveParts {
        MoveParts {
            from: mv.from.to_string(),
            to: mv.to.to_string(),
            promotion: mv.promotion.map(|p| char::from(p).to_string()),
        }
    }
}
