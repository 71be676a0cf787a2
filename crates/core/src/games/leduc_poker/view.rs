//! What a Leduc poker seat (or a spectator) may know, as the typed view behind
//! `Visible::view_of`.

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::{DECK, MAX_RAISES, Meaning, Move, SEATS, card_name};
use super::state::LeducPokerState;
use crate::game::{Player, PlayerAction};
use crate::rules::{Describe, Rules, Visible};
use crate::view::{Header, LegalAction, Viewer};

/// A Leduc poker view: the deck, the public card, the pot, each seat's card and chips, the
/// betting in words and, at the end, the result. A seat sees its own card and the public
/// card once dealt; both private cards are face up to everyone after a showdown; a card is
/// never shown after a fold.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct LeducPokerView {
    /// The common header.
    #[serde(flatten)]
    pub header: Header,
    /// Seats at the table (2).
    pub players: usize,
    /// The deck's cards, lowest first: `Js`, `Jh`, `Qs`, `Qh`, `Ks`, `Kh`.
    pub deck: Vec<LeducCardText>,
    /// The betting round: 1 before the public card is dealt, 2 after.
    #[schemars(range(min = 1, max = 2))]
    pub round: usize,
    /// The public card; null before it is dealt.
    pub public_card: Option<LeducCardText>,
    /// Chips in the pot (both antes, and every bet, raise and call).
    pub pot: u32,
    /// Raises (the bet included) made in this round so far, at most `max_raises`.
    pub raises: u32,
    /// Raises (the bet included) a round allows.
    pub max_raises: u32,
    /// Each seat, in seat order.
    pub seats: Vec<LeducPokerSeat>,
    /// Every action of the betting, both rounds, in order.
    pub history: Vec<LeducPokerMove>,
    /// The viewer's legal actions when it is to act (empty otherwise).
    pub legal_actions: Vec<LegalAction>,
    /// How the game ended; null before the end.
    pub result: Option<LeducPokerResult>,
    /// The end in words (`seat 1 wins the pot of 10 chips at the showdown: seat 0 Js, seat 1
    /// Qh, board Qs`), for a client without words of its own for this game; null before the
    /// end.
    pub outcome: Option<String>,
}

/// A Leduc poker card: its rank (`J`, `Q`, `K`) then its suit (`s`, `h`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct LeducCardText(#[schemars(regex(pattern = r"^[JQK][sh]$"))] String);

impl LeducCardText {
    /// The text of card `card` (0 to 5).
    pub fn of(card: u8) -> LeducCardText {
        LeducCardText(card_name(card))
    }
}

/// A Leduc poker seat.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct LeducPokerSeat {
    /// The seat.
    pub seat: usize,
    /// Its card: its name when this viewer may see it (the viewer's own; after a showdown,
    /// both), null face down; absent before it is dealt.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<LeducCardText>")]
    pub card: Option<Option<LeducCardText>>,
    /// Chips it has put in the pot.
    pub chips: u32,
    /// Whether it folded.
    pub folded: bool,
}

/// One action of the betting.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct LeducPokerMove {
    /// The seat that acted.
    pub seat: usize,
    /// The betting round: 1 or 2.
    #[schemars(range(min = 1, max = 2))]
    pub round: usize,
    /// The action: `fold`, `call` or `raise`.
    pub kind: Move,
    /// What it did: `check`, `bet`, `call`, `raise` or `fold`.
    pub meaning: Meaning,
    /// In words: `seat 1 raises`.
    pub text: String,
}

/// How a Leduc poker game ended.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct LeducPokerResult {
    /// The seats that won the pot: one, or both on a split.
    pub winners: Vec<usize>,
    /// Chips in the pot.
    pub pot: u32,
    /// Whether the cards were shown (false after a fold).
    pub showdown: bool,
    /// The seat that folded; null after a showdown.
    pub folded: Option<usize>,
}

impl Visible for LeducPokerState {
    type View = LeducPokerView;

    /// What `viewer` may know.
    fn view_of(&self, _history: &[PlayerAction], viewer: Viewer) -> LeducPokerView {
        let seats = (0..SEATS)
            .map(|seat| LeducPokerSeat {
                seat,
                card: self.card(seat).map(|c| {
                    viewer
                        .sees(SEATS, |v| self.sees_deal(v, seat))
                        .then(|| LeducCardText::of(c))
                }),
                chips: self.chips_in(seat),
                folded: self.folded() == Some(seat),
            })
            .collect();
        let history = self
            .steps()
            .into_iter()
            .map(|step| LeducPokerMove {
                seat: step.seat,
                round: step.round + 1,
                kind: step.kind,
                meaning: step.meaning,
                text: format!("seat {} {}", step.seat, step.meaning.verb()),
            })
            .collect();
        let legal_actions = match (viewer.seat(), self.current_player()) {
            (Some(v), Player::Seat(s)) if v == s => {
                let mut actions = Vec::new();
                self.legal_actions_into(Player::Seat(s), &mut actions);
                actions
                    .into_iter()
                    .map(|a| LegalAction {
                        id: a,
                        text: self.action_to_string(Player::Seat(s), a),
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let winners = self.winners();
        let outcome = (!winners.is_empty()).then(|| {
            let pot = self.pot();
            if let Some(folded) = self.folded() {
                return format!(
                    "seat {} wins the pot of {pot} chips: seat {folded} folded",
                    1 - folded
                );
            }
            let cards: Vec<String> = (0..SEATS)
                .filter_map(|s| Some(format!("seat {s} {}", card_name(self.card(s)?))))
                .chain(self.public_card().map(|c| format!("board {}", card_name(c))))
                .collect();
            match winners[..] {
                [winner] => format!(
                    "seat {winner} wins the pot of {pot} chips at the showdown: {}",
                    cards.join(", ")
                ),
                _ => format!(
                    "the seats split the pot of {pot} chips at the showdown: {}",
                    cards.join(", ")
                ),
            }
        });
        LeducPokerView {
            header: Header::of(self, viewer),
            players: SEATS,
            deck: (0..DECK as u8).map(LeducCardText::of).collect(),
            round: self.round() + 1,
            public_card: self.public_card().map(LeducCardText::of),
            pot: self.pot(),
            raises: self.raises(),
            max_raises: MAX_RAISES,
            seats,
            history,
            legal_actions,
            result: (!winners.is_empty()).then(|| LeducPokerResult {
                winners,
                pot: self.pot(),
                showdown: self.showdown(),
                folded: self.folded(),
            }),
            outcome,
        }
    }
}
