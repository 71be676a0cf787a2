//! What a Kuhn poker seat (or a spectator) may know, as the typed view behind
//! `Visible::view_of`.

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::{Meaning, Move, card_name};
use super::state::{KuhnPokerState, SeatStatus};
use crate::game::{Player, PlayerAction};
use crate::rules::{Describe, Rules, Visible};
use crate::view::{Header, LegalAction, Viewer};

/// A Kuhn poker view: the deck, the pot, each seat's card, chips and standing, the betting
/// in words and, at the end, the result. A seat sees its own card; the cards of the seats in
/// a showdown are face up to everyone once the game is over; a folded seat's card, and the
/// bettor's when everybody folds, are never shown.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct KuhnPokerView {
    /// The common header.
    #[serde(flatten)]
    pub header: Header,
    /// Seats at the table.
    pub players: usize,
    /// The deck's cards, lowest first (`J`, `Q`, `K` with two players).
    pub deck: Vec<KuhnCardText>,
    /// Chips in the pot (every ante, and every bet and call).
    pub pot: u32,
    /// The seat that made the first bet; null while nobody has.
    pub first_bettor: Option<usize>,
    /// Each seat, in seat order.
    pub seats: Vec<KuhnPokerSeat>,
    /// Every action of the betting, in order.
    pub history: Vec<KuhnPokerMove>,
    /// The viewer's legal actions when it is to act (empty otherwise).
    pub legal_actions: Vec<LegalAction>,
    /// How the game ended; null before the end.
    pub result: Option<KuhnPokerResult>,
    /// The end in words (`seat 1 wins the pot of 4 chips at the showdown: seat 0 J, seat 1 K`),
    /// for a client without words of its own for this game; null before the end.
    pub outcome: Option<String>,
}

/// A Kuhn poker card: its rank's name, `8`, `9`, `T`, `J`, `Q` or `K` (the game's cards have
/// no suits, so not the engine's usual card text).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct KuhnCardText(#[schemars(regex(pattern = r"^[89TJQK]$"))] String);

impl KuhnCardText {
    /// The text of card `index` in the deck of a game of `players` seats.
    pub fn of(players: usize, index: u8) -> KuhnCardText {
        KuhnCardText(card_name(players, index).to_string())
    }
}

/// A Kuhn poker seat.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct KuhnPokerSeat {
    /// The seat.
    pub seat: usize,
    /// Its card: its name when this viewer may see it (the viewer's own; at the end, a card
    /// shown at the showdown), null face down; absent before it is dealt.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<KuhnCardText>")]
    pub card: Option<Option<KuhnCardText>>,
    /// Chips it has put in the pot: 1 (its ante), 2 after a bet or call.
    pub chips: u32,
    /// Where it stands: `waiting` (not acted yet), `checked`, `bet` (the first bet),
    /// `called` or `folded`.
    pub status: SeatStatus,
}

/// One action of the betting.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct KuhnPokerMove {
    /// The seat that acted.
    pub seat: usize,
    /// The action: `pass` or `bet`.
    pub kind: Move,
    /// What it did: `check`, `bet`, `call` or `fold`.
    pub meaning: Meaning,
    /// In words: `seat 1 calls`.
    pub text: String,
}

/// How a Kuhn poker game ended.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct KuhnPokerResult {
    /// The seat that won the pot.
    pub winner: usize,
    /// Chips in the pot it won.
    pub pot: u32,
    /// Whether cards were shown (false when everybody folded to the bet).
    pub showdown: bool,
    /// The seats that showed their cards, in seat order (their cards are face up in `seats`);
    /// empty without a showdown.
    pub shown: Vec<usize>,
}

impl Visible for KuhnPokerState {
    type View = KuhnPokerView;

    /// What `viewer` may know.
    fn view_of(&self, _history: &[PlayerAction], viewer: Viewer) -> KuhnPokerView {
        let n = self.config.players;
        let seats = (0..n)
            .map(|seat| KuhnPokerSeat {
                seat,
                card: self
                    .card(seat)
                    .map(|c| {
                        viewer
                            .sees(n, |v| self.sees_card(v, seat))
                            .then(|| KuhnCardText::of(n, c))
                    }),
                chips: self.chips_in(seat),
                status: self.status(seat),
            })
            .collect();
        let mut bet_seen = false;
        let history = self
            .moves()
            .iter()
            .enumerate()
            .map(|(k, &kind)| {
                let meaning = kind.meaning(bet_seen);
                bet_seen |= kind == Move::Bet;
                KuhnPokerMove {
                    seat: k % n,
                    kind,
                    meaning,
                    text: format!("seat {} {}", k % n, meaning.verb()),
                }
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
        let outcome = self.winner().map(|winner| {
            if self.showdown() {
                let shown: Vec<String> = self
                    .contenders()
                    .into_iter()
                    .filter_map(|s| Some(format!("seat {s} {}", card_name(n, self.card(s)?))))
                    .collect();
                format!(
                    "seat {winner} wins the pot of {} chips at the showdown: {}",
                    self.pot(),
                    shown.join(", ")
                )
            } else {
                format!(
                    "seat {winner} wins the pot of {} chips: every other seat folded",
                    self.pot()
                )
            }
        });
        KuhnPokerView {
            header: Header::of(self, viewer),
            players: n,
            deck: (0..=n as u8).map(|c| KuhnCardText::of(n, c)).collect(),
            pot: self.pot(),
            first_bettor: self.first_bettor(),
            seats,
            history,
            legal_actions,
            result: self.winner().map(|winner| KuhnPokerResult {
                winner,
                pot: self.pot(),
                showdown: self.showdown(),
                shown: if self.showdown() {
                    self.contenders()
                } else {
                    Vec::new()
                },
            }),
            outcome,
        }
    }
}
