//! What a Detective Poker seat (or a spectator) may know, as the typed view behind
//! `Visible::view_of`.

// Seats and betting rounds index several parallel arrays at once; index loops read best.
#![allow(clippy::needless_range_loop)]

use schemars::JsonSchema;
use serde::Serialize;

use super::rules::{ActionCard, Bet, STREETS};
use super::state::DetectivePokerState;
use crate::game::PlayerAction;
use crate::rules::Visible;
use crate::view::{CardText, Header, Held, SeatCards, Street, Viewer, face, faces};

/// A Detective Poker view: the current hand (each seat's two cards, chips, action cards and
/// points, the community cards and the bets) and the last scored hand, revealed. A seat
/// sees its own private card and the other seats' shown cards, and the action cards under
/// its own bets; everything is revealed once a hand is scored.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DetectivePokerView {
    /// The common header.
    #[serde(flatten)]
    pub header: Header,
    /// Seats at the table.
    pub players: usize,
    /// The hand on the table, from 1 (at the end: the last one).
    pub hand_number: usize,
    /// Hands in the game.
    pub hands: usize,
    /// The dealer seat of this hand.
    pub dealer: usize,
    /// The betting round (`preflop`, `flop`, `turn`, `river`); null at the end.
    pub street: Option<Street>,
    /// Each seat, in seat order.
    pub seats: Vec<DetectivePokerSeat>,
    /// The community cards dealt, face up.
    pub community: Vec<CardText>,
    /// How many cards were burned in this hand (never which).
    pub burns: usize,
    /// The bets of this hand, in betting order.
    pub bets: Vec<DetectivePokerBet>,
    /// The last scored hand, revealed (null before the first is scored).
    pub last_scored_hand: Option<DetectivePokerScoredHand>,
}

/// A Detective Poker seat.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DetectivePokerSeat {
    /// The seat.
    pub seat: usize,
    /// Its cards dealt so far: first its private card (face up only to itself), then its
    /// shown card (face up to every other seat, not to itself); all face up once the hand is
    /// scored, all face down to a spectator before.
    #[serde(flatten)]
    pub hand: Held,
    /// Chips it has left to bet in this hand.
    pub chips: u32,
    /// Its unused action cards (`+1`, `clockwise`, `bluff`, `empty`): names for the viewer's
    /// own and for everyone at the end, else null (face down).
    pub action_cards: Vec<Option<ActionCardName>>,
    /// Points scored so far.
    pub points: i32,
}

/// A bet: chips on a seat's board, maybe with an action card face down under them.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DetectivePokerBet {
    /// The betting round.
    pub street: Street,
    /// The seat that bet.
    pub seat: usize,
    /// The seat whose board the chips lie on.
    pub target: usize,
    /// How many chips.
    pub amount: u32,
    /// The action card under the bet: its name, or null when face down for this viewer.
    /// Absent when the bet has no action card.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<ActionCardName>")]
    pub action_card: Option<Option<ActionCardName>>,
}

/// A scored hand, every card revealed.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DetectivePokerScoredHand {
    /// The hand, from 1.
    pub hand_number: usize,
    /// Its dealer seat.
    pub dealer: usize,
    /// Each seat's private then shown card, face up.
    pub seats: Vec<SeatCards>,
    /// Its community cards, face up.
    pub community: Vec<CardText>,
    /// Its bets, in betting order, with how each was judged.
    pub bets: Vec<DetectivePokerScoredBet>,
    /// Points each seat scored in it.
    pub points: Vec<i32>,
}

/// A bet of a scored hand and how it was judged.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DetectivePokerScoredBet {
    /// The bet, its action card face up.
    #[serde(flatten)]
    pub bet: DetectivePokerBet,
    /// The seat the bet counted for (the next board clockwise with `clockwise`).
    pub counts_for: usize,
    /// Whether it was correct.
    pub correct: bool,
    /// Points it scored.
    pub points: i32,
}

/// An action card, by the name action strings use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub enum ActionCardName {
    /// One more point if the bet is correct (expert: one point lost if wrong).
    #[serde(rename = "+1")]
    PlusOne,
    /// The bet counts for the next board clockwise from the one bet on.
    #[serde(rename = "clockwise")]
    Clockwise,
    /// The bet is correct when its board holds the weakest hand.
    #[serde(rename = "bluff")]
    Bluff,
    /// No effect.
    #[serde(rename = "empty")]
    Empty,
}

impl ActionCardName {
    fn of(card: ActionCard) -> ActionCardName {
        match card {
            ActionCard::PlusOne => ActionCardName::PlusOne,
            ActionCard::Clockwise => ActionCardName::Clockwise,
            ActionCard::Bluff => ActionCardName::Bluff,
            ActionCard::Empty => ActionCardName::Empty,
        }
    }
}

fn bet_view(street: usize, seat: usize, bet: Bet, card_visible: bool) -> DetectivePokerBet {
    DetectivePokerBet {
        street: Street::ALL[street],
        seat,
        target: bet.board as usize,
        amount: bet.amount as u32,
        action_card: bet
            .card
            .map(|c| card_visible.then(|| ActionCardName::of(c))),
    }
}

impl Visible for DetectivePokerState {
    type View = DetectivePokerView;

    /// What `viewer` may know, given `history` (this state's).
    fn view_of(&self, history: &[PlayerAction], viewer: Viewer) -> DetectivePokerView {
        let n = self.config.players;
        let h = self.hand;
        let seats = (0..n)
            .map(|seat| {
                let dealt = [
                    (true, self.cards.private[seat]),
                    (false, self.cards.shown[seat]),
                ];
                let cards = dealt
                    .into_iter()
                    .filter_map(|(private, card)| {
                        card.map(|c| {
                            face(
                                c,
                                viewer.sees(n, |v| self.sees_hole(v, seat, private, h)),
                            )
                        })
                    })
                    .collect();
                let own = viewer.sees(n, |v| v == Some(seat)) || self.over;
                DetectivePokerSeat {
                    seat,
                    hand: Held::new(cards),
                    chips: self.chips[seat] as u32,
                    action_cards: ActionCard::ALL
                        .iter()
                        .filter(|c| self.unused[seat] & c.bit() != 0)
                        .map(|&c| own.then(|| ActionCardName::of(c)))
                        .collect(),
                    points: self.points[seat],
                }
            })
            .collect();
        let mut bets = Vec::new();
        for street in 0..STREETS {
            for bettor in self.bettors(h, street) {
                if let Some(bet) = self.cards.bets[street][bettor] {
                    let visible = viewer.sees(n, |v| self.sees_action_card(v, bettor, h));
                    bets.push(bet_view(street, bettor, bet, visible));
                }
            }
        }
        DetectivePokerView {
            header: Header::of(self, viewer),
            players: n,
            hand_number: h + 1,
            hands: self.config.hands(),
            dealer: self.dealer(),
            street: (!self.over).then(|| Street::ALL[self.street()]),
            seats,
            community: faces(self.cards.community_cards()),
            burns: self.cards.burns.iter().filter(|b| b.is_some()).count(),
            bets,
            last_scored_hand: self.last_scored(history),
        }
    }
}

impl DetectivePokerState {
    /// The last scored hand, revealed (`history`: this state's).
    fn last_scored(&self, history: &[PlayerAction]) -> Option<DetectivePokerScoredHand> {
        let n = self.config.players;
        let h = if self.over {
            self.hand
        } else if self.hand > 0 {
            self.hand - 1
        } else {
            return None;
        };
        let record = self.record_of(history, h);
        let judged = record.judge_all(n, self.config.expert);
        let mut bets = Vec::new();
        for street in 0..STREETS {
            for bettor in self.bettors(h, street) {
                if let (Some(bet), Some(j)) = (record.bets[street][bettor], judged[street][bettor])
                {
                    bets.push(DetectivePokerScoredBet {
                        bet: bet_view(street, bettor, bet, true),
                        counts_for: j.target as usize,
                        correct: j.correct,
                        points: j.points,
                    });
                }
            }
        }
        Some(DetectivePokerScoredHand {
            hand_number: h + 1,
            dealer: h % n,
            seats: (0..n)
                .map(|seat| SeatCards {
                    seat,
                    held: Held::new(
                        [record.private[seat], record.shown[seat]]
                            .into_iter()
                            .flatten()
                            .map(|c| Some(CardText::of(c)))
                            .collect(),
                    ),
                })
                .collect(),
            community: faces(record.community_cards()),
            bets,
            points: self.hand_points[h][..n].to_vec(),
        })
    }
}
