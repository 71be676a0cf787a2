//! Detective Poker unit tests: every rule of docs/games/detective_poker.md and of the original,
//! with positions set up by dealing exactly the cards a test needs as chance outcomes.
//!
//! Hand A (3 players, dealer s0; used by most tests):
//!
//! | seat | private | shown | preflop | flop `Ks Qs 9c` | turn `7d` | river `4c` |
//! |---|---|---|---|---|---|---|
//! | s0 | As | Ad | pair of aces (best) | pair of aces | pair of aces | pair of aces |
//! | s1 | 7c | 2d | 7-high (weakest) | K-high (weakest) | pair of sevens (weakest) | pair of sevens (weakest) |
//! | s2 | Kh | Qh | K-high | kings and queens (best) | kings and queens (best) | kings and queens (best) |
//!
//! No two board cards share a rank, so hand A is also a legal deal in expert mode.
//! Burns are `3c 3d 3h`. Betting order: preflop s1 s2 s0, flop s2 s0 s1, turn s0 s1 s2, river
//! s1 s2 s0. A "neutral" bet is `bet 1 on s1`, which is never correct in hand A.

use super::rules::{ActionCard, Bet, judge, max_amount};
use super::state::Event;
use super::{DetectivePokerGame, DetectivePokerState, ENTRY};
use crate::cards::{Card, Rank};
use crate::env::{GameRng, resolve_chance};
use crate::game::{ErrorKind, Game, GameError, Player, State};
use crate::registry::parse_params;
use crate::rules::{Played, rules_of};

/// A state under test: the rules in their `State` wrapper (`rules()` for the typed state).
type Table = Played<DetectivePokerState>;

fn game(params: &[(&str, &str)]) -> DetectivePokerGame {
    DetectivePokerGame::new(parse_params(&ENTRY, params.iter().copied()).unwrap()).unwrap()
}

fn start(game: &DetectivePokerGame) -> Table {
    Played::new(game.initial_state())
}

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

/// Deals the hole cards: `private` and `shown` list one card per seat, in seat order.
fn deal_hole(state: &mut Table, private: &str, shown: &str) {
    let private: Vec<&str> = private.split_whitespace().collect();
    let shown: Vec<&str> = shown.split_whitespace().collect();
    loop {
        let c = match state.rules().next_event() {
            Some(Event::Private(s)) => private[s],
            Some(Event::Shown(s)) => shown[s],
            _ => return,
        };
        state.apply_action(card(c).0 as u32).unwrap();
    }
}

/// Deals chance cards in order (burns and community cards).
fn deal(state: &mut Table, cards: &str) {
    for c in cards.split_whitespace() {
        assert!(state.is_chance_node(), "dealing {c} at a decision node");
        state.apply_action(card(c).0 as u32).unwrap();
    }
}

fn bet(state: &mut Table, text: &str) {
    let player = state.current_player();
    let action = state.string_to_action(player, text).unwrap();
    state
        .apply_action(action)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
}

fn try_bet(state: &mut Table, text: &str) -> Result<(), GameError> {
    let player = state.current_player();
    let action = state.string_to_action(player, text)?;
    state.apply_action(action)
}

const NEUTRAL: &str = "bet 1 on s1";

/// Plays hand A with these 12 bets in betting order (preflop s1 s2 s0, flop s2 s0 s1, turn
/// s0 s1 s2, river s1 s2 s0); returns the state after scoring.
fn hand_a(params: &[(&str, &str)], bets: [&str; 12]) -> Table {
    play_hand(params, "As 7c Kh", "Ad 2d Qh", "Ks Qs 9c 7d 4c", bets)
}

fn play_hand(
    params: &[(&str, &str)],
    private: &str,
    shown: &str,
    board: &str,
    bets: [&str; 12],
) -> Table {
    let mut state = start(&game(params));
    deal_hole(&mut state, private, shown);
    let b: Vec<&str> = board.split_whitespace().collect();
    let streets = [
        String::new(),
        format!("3c {} {} {}", b[0], b[1], b[2]),
        format!("3d {}", b[3]),
        format!("3h {}", b[4]),
    ];
    for (street, cards) in streets.iter().enumerate() {
        deal(&mut state, cards);
        for text in &bets[street * 3..street * 3 + 3] {
            bet(&mut state, text);
        }
    }
    state
}

fn last_hand_points(state: &Table) -> Vec<i32> {
    let n = state.rules().config().players;
    state.rules().hand_points().last().unwrap()[..n].to_vec()
}

fn neutral_except(first: [&'static str; 3]) -> [&'static str; 12] {
    let mut bets = [NEUTRAL; 12];
    bets[..3].copy_from_slice(&first);
    bets
}

#[test]
fn judge_ties_and_cards_on_made_up_values() {
    let values = [5u32, 9, 9, 1];
    let plain = |board: u8, card| Bet {
        board,
        amount: 2,
        card,
    };
    // Ties for best: both tied boards are best.
    assert!(judge(plain(1, None), &values, false).correct);
    assert!(judge(plain(2, None), &values, false).correct);
    assert!(!judge(plain(0, None), &values, false).correct);
    // Clockwise from the last board wraps to board 0.
    let cw = judge(
        plain(3, Some(ActionCard::Clockwise)),
        &[9u32, 1, 1, 1],
        false,
    );
    assert_eq!((cw.target, cw.correct, cw.points), (0, true, 2));
    // Bluff: ties count as weakest.
    assert!(judge(plain(0, Some(ActionCard::Bluff)), &[1u32, 1, 4], false).correct);
    assert!(judge(plain(1, Some(ActionCard::Bluff)), &[1u32, 1, 4], false).correct);
    assert!(!judge(plain(2, Some(ActionCard::Bluff)), &[1u32, 1, 4], false).correct);
    // +1 and expert mode.
    assert_eq!(
        judge(plain(1, Some(ActionCard::PlusOne)), &values, false).points,
        3
    );
    assert_eq!(
        judge(plain(0, Some(ActionCard::PlusOne)), &values, false).points,
        0
    );
    assert_eq!(
        judge(plain(0, Some(ActionCard::PlusOne)), &values, true).points,
        -1
    );
    // Expert mode costs nothing for other wrong bets.
    assert_eq!(judge(plain(0, None), &values, true).points, 0);
}

#[test]
fn action_encoding_round_trips() {
    for players in 2..=6 {
        for max_bet in 1..=4 {
            for action in 0..(players * max_bet * 5) as u32 {
                let bet = Bet::decode(action, players, max_bet).unwrap();
                assert_eq!(bet.encode(max_bet), action);
                assert_eq!(Bet::parse(&bet.text()).unwrap(), bet);
            }
            assert!(Bet::decode((players * max_bet * 5) as u32, players, max_bet).is_none());
        }
    }
    assert_eq!(
        Bet::parse("BET 2 on S1 With Plus1").unwrap().text(),
        "bet 2 on s1 with +1"
    );
    assert!(Bet::parse("bet 0 on s1").is_err());
    assert!(Bet::parse("bet 1 on x1").is_err());
    assert!(Bet::parse("bet 1 on s1 with joker").is_err());
    assert!(Bet::parse("wager").is_err());
}

#[test]
fn deal_order_and_betting_openers() {
    // 4 players: preflop opened left of the dealer, then the second, third, fourth left.
    let g = game(&[("players", "4")]);
    let mut state = start(&g);
    let mut rng = GameRng::new(3);
    let mut openers = Vec::new();
    let mut last = Player::Chance;
    while state.rules().hand() < 2 {
        let player = state.current_player();
        if player == Player::Chance {
            if state.rules().hand() == 0 && state.history().len() < 8 {
                // Private cards from s1 round to s0, then shown cards likewise.
                let expect = [1, 2, 3, 0][state.history().len() % 4];
                let ev = state.rules().next_event().unwrap();
                let seat = match ev {
                    Event::Private(s) | Event::Shown(s) => s,
                    other => panic!("{other:?}"),
                };
                assert_eq!(seat, expect);
            }
            let a = state.sample_chance_outcome(&mut rng);
            state.apply_action(a).unwrap();
        } else {
            if last == Player::Chance {
                openers.push((state.rules().hand(), state.rules().street(), player));
            }
            let a = state.legal_actions()[0];
            state.apply_action(a).unwrap();
        }
        last = player;
    }
    let seats: Vec<(usize, usize, usize)> = openers
        .iter()
        .map(|(h, s, p)| (*h, *s, p.seat().unwrap()))
        .collect();
    assert_eq!(
        seats,
        vec![
            (0, 0, 1),
            (0, 1, 2),
            (0, 2, 3),
            (0, 3, 0),
            (1, 0, 2),
            (1, 1, 3),
            (1, 2, 0),
            (1, 3, 1),
        ]
    );
}

#[test]
fn hidden_cards_in_observations() {
    let mut state = start(&game(&[]));
    deal_hole(&mut state, "As 7c Kh", "Ad 2d Qh");
    let s0 = state.observation_string(0);
    assert!(s0.contains("s0: private As shown ??"), "{s0}");
    assert!(s0.contains("s1: private ?? shown 2d"), "{s0}");
    let s1 = state.observation_string(1);
    assert!(s1.contains("s0: private ?? shown Ad"), "{s1}");
    assert!(s1.contains("s1: private 7c shown ??"), "{s1}");
    // A seat's cards are [private, shown], face down (null) where the viewer may not look.
    let public = state.view(None);
    assert_eq!(public["seats"][0]["cards"], serde_json::json!([null, null]));
    assert_eq!(public["seats"][0]["count"], 2);
    assert_eq!(
        state.view(Some(1))["seats"][0]["cards"],
        serde_json::json!([null, "Ad"])
    );
    assert_eq!(
        state.view(Some(0))["seats"][0]["cards"],
        serde_json::json!(["As", null])
    );
    // Action cards: names for their owner, face down to everyone else.
    assert_eq!(
        state.view(Some(1))["seats"][1]["action_cards"],
        serde_json::json!(["+1", "clockwise", "bluff", "empty"])
    );
    assert_eq!(
        state.view(Some(0))["seats"][1]["action_cards"],
        serde_json::json!([null, null, null, null])
    );
    // A hidden action card is face down (null) to others and named to its owner.
    bet(&mut state, "bet 1 on s0 with bluff");
    assert!(state.view(Some(2))["bets"][0]["action_card"].is_null());
    let public = state.view(None);
    assert!(public["bets"][0]["action_card"].is_null());
    assert!(!public.to_string().contains("bluff"), "{public}");
    assert_eq!(state.view(Some(1))["bets"][0]["action_card"], "bluff");
    assert_eq!(state.view(Some(1))["bets"][0]["seat"], 1);
    assert_eq!(state.view(Some(1))["bets"][0]["target"], 0);
    assert!(
        state
            .observation_string(2)
            .contains("s1 bet 1 on s0 with ?")
    );
}

#[test]
fn plus_one_correct_and_wrong() {
    let bets = neutral_except(["bet 3 on s0 with +1", "bet 1 on s1 with +1", NEUTRAL]);
    assert_eq!(last_hand_points(&hand_a(&[], bets)), vec![0, 4, 0]);
    // Expert mode: a wrong +1 bet loses a point.
    let expert = hand_a(&[("expert", "true")], bets);
    assert_eq!(last_hand_points(&expert), vec![0, 4, -1]);
    assert_eq!(expert.rules().points(), &[0, 4, -1]);
}

#[test]
fn clockwise_correct_wrong_and_wrapping() {
    // s1 bets on s2 → counts for s0 (best): 2. s2 bets on s0 → counts for s1: wrong. s0 bets
    // on s2, the last seat → wraps to s0: 3.
    let bets = neutral_except([
        "bet 2 on s2 with clockwise",
        "bet 1 on s0 with clockwise",
        "bet 3 on s2 with clockwise",
    ]);
    let state = hand_a(&[], bets);
    assert_eq!(last_hand_points(&state), vec![3, 2, 0]);
    let last = &state.view(Some(0))["last_scored_hand"]["bets"];
    assert_eq!(last[2]["counts_for"], 0);
    assert_eq!(last[2]["correct"], true);
}

#[test]
fn bluff_correct_and_wrong() {
    let bets = neutral_except(["bet 2 on s1 with bluff", "bet 1 on s0 with bluff", NEUTRAL]);
    assert_eq!(last_hand_points(&hand_a(&[], bets)), vec![0, 2, 0]);
}

#[test]
fn bluff_with_tied_weakest_hands() {
    // s1 (7c 2d) and s2 (7h 2s) tie for the weakest hand preflop: a Bluff on either is correct.
    let mut bets = neutral_except([
        "bet 2 on s2 with bluff",
        "bet 1 on s1 with bluff",
        "bet 1 on s1 with bluff",
    ]);
    bets[3] = "bet 1 on s0"; // flop, s2: s0 (aces and kings) is best
    let state = play_hand(&[], "As 7c 7h", "Ad 2d 2s", "Ks Kd 9c 7d 2c", bets);
    assert_eq!(last_hand_points(&state), vec![1, 2, 2]);
}

#[test]
fn empty_card_has_no_effect() {
    let bets = neutral_except(["bet 2 on s0 with empty", "bet 1 on s1 with empty", NEUTRAL]);
    assert_eq!(last_hand_points(&hand_a(&[], bets)), vec![0, 2, 0]);
}

#[test]
fn tied_best_boards_are_all_best() {
    // s0 (As Kd) and s2 (Ah Ks) hold the same hand in every betting round; s1 is weakest.
    let mut bets = [NEUTRAL; 12];
    bets[0] = "bet 2 on s0"; // s1 preflop
    bets[1] = "bet 1 on s2"; // s2 preflop
    bets[9] = "bet 3 on s2"; // s1 river
    bets[11] = "bet 2 on s0 with +1"; // s0 river
    let state = play_hand(&[], "As 7c Ah", "Kd 2d Ks", "Qs Jd 9c 8h 4c", bets);
    assert_eq!(last_hand_points(&state), vec![3, 5, 1]);
}

#[test]
fn chip_rule_refuses_a_bet_leaving_too_few_chips() {
    let mut state = start(&game(&[]));
    deal_hole(&mut state, "As 7c Kh", "Ad 2d Qh");
    bet(&mut state, "bet 3 on s0");
    bet(&mut state, NEUTRAL);
    bet(&mut state, NEUTRAL);
    deal(&mut state, "3c Ks Kd 9c");
    bet(&mut state, NEUTRAL);
    bet(&mut state, NEUTRAL);
    // s1 has 4 chips and must keep one for the turn and one for the river.
    assert_eq!(state.current_player(), Player::Seat(1));
    let before = state.serialize();
    let err = try_bet(&mut state, "bet 3 on s2").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    let msg = err.to_string();
    assert!(msg.contains("later betting rounds"), "{msg}");
    assert!(msg.contains("bet at most 2"), "{msg}");
    assert_eq!(state.serialize(), before);
    let legal: Vec<String> = state
        .legal_actions()
        .iter()
        .map(|&a| state.action_to_string(Player::Seat(1), a))
        .collect();
    assert!(legal.iter().all(|s| !s.starts_with("bet 3")));
    assert!(legal.contains(&"bet 2 on s2".to_string()));
    assert_eq!(max_amount(4, 1, 3), 2);
    assert_eq!(max_amount(2, 2, 3), 1);
    assert_eq!(max_amount(7, 0, 3), 3);
    // More than max_bet is refused by the string parser too.
    assert!(
        state
            .string_to_action(Player::Seat(1), "bet 4 on s0")
            .is_err()
    );
}

#[test]
fn reusing_an_action_card_is_refused() {
    let mut state = start(&game(&[]));
    deal_hole(&mut state, "As 7c Kh", "Ad 2d Qh");
    bet(&mut state, "bet 1 on s0 with +1");
    bet(&mut state, NEUTRAL);
    bet(&mut state, NEUTRAL);
    deal(&mut state, "3c Ks Kd 9c");
    bet(&mut state, NEUTRAL);
    bet(&mut state, NEUTRAL);
    let before = state.serialize();
    let err = try_bet(&mut state, "bet 1 on s2 with +1").unwrap_err();
    assert!(
        err.to_string().contains("+1 action card was already used"),
        "{err}"
    );
    assert_eq!(state.serialize(), before);
    assert!(
        !state.legal_actions().contains(
            &state
                .string_to_action(Player::Seat(1), "bet 1 on s2 with +1")
                .unwrap()
        )
    );
    bet(&mut state, "bet 1 on s2 with bluff");
}

#[test]
fn a_board_that_does_not_exist_is_refused() {
    let g = game(&[]);
    let mut state = start(&g);
    deal_hole(&mut state, "As 7c Kh", "Ad 2d Qh");
    let before = state.serialize();
    let err = state
        .string_to_action(Player::Seat(1), "bet 1 on s3")
        .unwrap_err();
    assert!(err.to_string().contains("board s3 does not exist"), "{err}");
    let too_big = g.num_distinct_actions() as u32;
    let err = state.apply_action(too_big).unwrap_err();
    assert!(matches!(err, GameError::IllegalAction { .. }), "{err}");
    assert_eq!(state.serialize(), before);
    // An id far past the action space is refused with the space's range.
    let err = state.apply_action(card("As").0 as u32 + 500).unwrap_err();
    assert!(
        err.to_string().contains("action ids run from 0 to 44"),
        "{err}"
    );
}

#[test]
fn expert_mode_replaces_board_cards_of_a_rank_on_the_board() {
    let mut state = start(&game(&[("expert", "true")]));
    deal_hole(&mut state, "As 7c Kh", "Ad 2d Qh");
    for _ in 0..3 {
        bet(&mut state, NEUTRAL);
    }
    // The burn is not restricted: a king may be burned.
    deal(&mut state, "Kc Ks");
    // Kd would be discarded and replaced: no king can come (Kh is a hole card, Kc burned).
    let before = state.serialize();
    let err = state.apply_action(card("Kd").0 as u32).unwrap_err();
    assert!(err.to_string().contains("already on the board"), "{err}");
    assert_eq!(state.serialize(), before);
    let outcomes = state.chance_outcomes();
    // 52 - 6 hole cards - 1 burn - Ks = 44 cards; Kd is the last king in the deck.
    assert_eq!(outcomes.len(), 43);
    assert!((outcomes[0].1 - 1.0 / 43.0).abs() < 1e-12);
    assert!(
        outcomes
            .iter()
            .all(|&(a, _)| Card(a as u8).rank() != Rank::KING)
    );
    deal(&mut state, "Qs 9c");
    for _ in 0..3 {
        bet(&mut state, NEUTRAL);
    }
    deal(&mut state, "Qc");
    // Turn: no K, Q or 9 (the 9s left: 9d 9h 9s; queens: Qd; kings: Kd).
    let outcomes = state.chance_outcomes();
    assert_eq!(outcomes.len(), 52 - 6 - 5 - 5);
    // Without expert mode the same card is dealt.
    let mut plain = start(&game(&[]));
    deal_hole(&mut plain, "As 7c Kh", "Ad 2d Qh");
    for _ in 0..3 {
        bet(&mut plain, NEUTRAL);
    }
    deal(&mut plain, "Kc Ks Kd");
    assert_eq!(plain.chance_outcomes().len(), 52 - 6 - 3);
}

/// Hand A played out with a bet of every kind; the points worked by hand:
///
/// | round | bettor | bet | counts for | best / weakest | points |
/// |---|---|---|---|---|---|
/// | preflop | s1 | 2 on s0, +1 | s0 | s0 / s1 | 3 |
/// | preflop | s2 | 1 on s2 | s2 | | 0 |
/// | preflop | s0 | 3 on s2, Clockwise | s0 | | 3 |
/// | flop | s2 | 2 on s2 | s2 | s2 / s1 | 2 |
/// | flop | s0 | 2 on s1, Bluff | s1 (weakest) | | 2 |
/// | flop | s1 | 1 on s0, Empty | s0 | | 0 |
/// | turn | s0 | 1 on s2, +1 | s2 | s2 / s1 | 2 |
/// | turn | s1 | 3 on s2 | s2 | | 3 |
/// | turn | s2 | 1 on s1, Bluff | s1 (weakest) | | 1 |
/// | river | s1 | 1 on s1, Clockwise | s2 | s2 / s1 | 1 |
/// | river | s2 | 3 on s0, +1 | s0 | | 0 (expert: −1) |
/// | river | s0 | 1 on s0 | s0 | | 0 |
///
/// s0: 3 + 2 + 2 = 7; s1: 3 + 3 + 1 = 7; s2: 2 + 1 = 3 (expert 2).
const FULL_HAND: [&str; 12] = [
    "bet 2 on s0 with +1",
    "bet 1 on s2",
    "bet 3 on s2 with clockwise",
    "bet 2 on s2",
    "bet 2 on s1 with bluff",
    "bet 1 on s0 with empty",
    "bet 1 on s2 with +1",
    "bet 3 on s2",
    "bet 1 on s1 with bluff",
    "bet 1 on s1 with clockwise",
    "bet 3 on s0 with +1",
    "bet 1 on s0",
];

#[test]
fn a_complete_hand_scored_by_hand() {
    let state = hand_a(&[("reward", "points")], FULL_HAND);
    assert_eq!(last_hand_points(&state), vec![7, 7, 3]);
    assert_eq!(state.rules().points(), &[7, 7, 3]);
    // Points rewards: points minus the mean (17 / 3), paid when the hand is scored.
    let r = state.rewards();
    assert!((r[0] - 4.0 / 3.0).abs() < 1e-9 && (r[2] + 8.0 / 3.0).abs() < 1e-9);
    // The next hand: dealer s1, fresh chips and action cards, a full deck.
    assert_eq!(state.rules().hand(), 1);
    assert_eq!(state.rules().dealer(), 1);
    assert_eq!(state.rules().next_event(), Some(Event::Private(2)));
    assert_eq!(state.rules().chips_left(0), 7);
    assert_eq!(state.rules().unused_cards(0), 0b1111);
    assert_eq!(state.rules().deck().len(), 52);
    // After scoring everything about the hand is revealed.
    let view = state.view(Some(1));
    let last = &view["last_scored_hand"];
    assert_eq!(last["seats"][2]["cards"][0], "Kh");
    assert_eq!(last["seats"][1]["cards"][1], "2d");
    assert_eq!(last["bets"][10]["action_card"], "+1");
    assert_eq!(last["bets"][10]["points"], 0);
    let info = state.information_state_string(2);
    assert!(info.contains("s0.private:As"), "{info}");
    assert!(info.contains("s1:bet_1_on_s0_with_empty"), "{info}");
    assert!(info.contains("[scored [7, 7, 3]]"), "{info}");
    assert!(info.contains("burn:??"), "{info}");

    let expert = hand_a(&[("expert", "true")], FULL_HAND);
    assert_eq!(last_hand_points(&expert), vec![7, 7, 2]);
}

#[test]
fn game_end_tie_break_by_unused_action_cards() {
    // Two players (a house rule), one round: two hands. Both bet alike on s0 every time, so
    // the points tie; in the last hand s1 uses its Empty card and loses the tie-break.
    let g = game(&[("players", "2"), ("rounds", "1")]);
    let mut state = start(&g);
    let mut rng = GameRng::new(11);
    let amounts = ["1", "1", "2", "3"];
    for hand in 0..2 {
        for (street, amount) in amounts.iter().enumerate() {
            resolve_chance(&mut state, &mut rng);
            for _ in 0..2 {
                let seat = state.current_player().seat().unwrap();
                let card = if hand == 1 && seat == 1 && street == 2 {
                    " with empty"
                } else {
                    ""
                };
                bet(&mut state, &format!("bet {amount} on s0{card}"));
            }
        }
    }
    assert!(state.is_terminal());
    assert_eq!(state.rules().points()[0], state.rules().points()[1]);
    assert_eq!(state.returns(), vec![1.0, -1.0]);
    assert_eq!(state.rewards(), vec![1.0, -1.0]);
    assert!(state.apply_action(0).is_err());
}

#[test]
fn shared_win_when_points_and_unused_cards_tie() {
    let g = game(&[("players", "2"), ("rounds", "1")]);
    let mut state = start(&g);
    let mut rng = GameRng::new(5);
    while !state.is_terminal() {
        resolve_chance(&mut state, &mut rng);
        let street = state.rules().street();
        bet(&mut state, &format!("bet {} on s1", [1, 1, 2, 3][street]));
    }
    assert_eq!(state.returns(), vec![0.0, 0.0]);
}

#[test]
fn parameters_are_validated() {
    let bad = parse_params(&ENTRY, [("players", "7")]).unwrap_err();
    assert!(bad.to_string().contains("players"));
    let p = parse_params(&ENTRY, [("chips", "7"), ("max_bet", "5")]).unwrap();
    let err = DetectivePokerGame::new(p).unwrap_err();
    assert!(err.to_string().contains("max_bet"), "{err}");
    assert!(err.to_string().contains("from 1 to 4"), "{err}");
    let g = game(&[("chips", "8"), ("max_bet", "5"), ("players", "4")]);
    assert_eq!(g.num_distinct_actions(), 4 * 5 * 5);
    assert_eq!(game(&[]).num_distinct_actions(), 45);
    assert_eq!(game(&[]).max_game_length(), 6 * 26);
}

#[test]
fn only_one_bet_of_three_per_hand() {
    // With 7 chips, a bet of 3 leaves 4 for three rounds: no later round can take 3 again.
    let g = game(&[]);
    let mut rng = GameRng::new(9);
    for seed in 0..20 {
        let mut state = start(&g);
        let mut threes = [0; 3];
        while state.rules().hand() == 0 {
            resolve_chance(&mut state, &mut rng);
            let seat = state.current_player().seat().unwrap();
            let legal = state.legal_actions();
            // Prefer a 3 whenever one is legal.
            let a = legal
                .iter()
                .copied()
                .find(|&a| Bet::decode(a, 3, 3).unwrap().amount == 3)
                .unwrap_or(legal[(seed as usize) % legal.len()]);
            if Bet::decode(a, 3, 3).unwrap().amount == 3 {
                threes[seat] += 1;
            }
            state.apply_action(a).unwrap();
        }
        assert_eq!(threes, [1, 1, 1]);
    }
}

#[test]
fn resampling_hides_own_shown_card_and_others_private_cards() {
    let mut state = start(&game(&[]));
    deal_hole(&mut state, "As 7c Kh", "Ad 2d Qh");
    bet(&mut state, "bet 1 on s0 with bluff");
    let mut rng = GameRng::new(1);
    let mut own_shown = std::collections::HashSet::new();
    let mut others_private = std::collections::HashSet::new();
    let mut s1_cards = std::collections::HashSet::new();
    for _ in 0..40 {
        let other = state.resample_from_infostate(0, &mut rng);
        let cards = rules_of::<DetectivePokerState>(other.as_ref())
            .unwrap()
            .cards();
        assert_eq!(cards.private[0], Some(card("As")));
        assert_eq!(cards.shown[1], Some(card("2d")));
        assert_eq!(cards.shown[2], Some(card("Qh")));
        own_shown.insert(cards.shown[0]);
        others_private.insert(cards.private[1]);
        s1_cards.insert(cards.bets[0][1].unwrap().card);
        assert_eq!(other.observation_string(0), state.observation_string(0));
    }
    assert!(own_shown.len() > 10 && others_private.len() > 10);
    // s1's hidden action card is redrawn; its own view keeps it.
    assert!(s1_cards.len() > 1);
    let mine = state.resample_from_infostate(1, &mut rng);
    let mine: &DetectivePokerState = rules_of(mine.as_ref()).unwrap();
    assert_eq!(
        mine.cards().bets[0][1].unwrap().card,
        Some(ActionCard::Bluff)
    );
}

#[test]
fn kickers_decide_the_best_board() {
    // The seed's kicker example (AA852 beats AA763) on a flop: s0 holds 8s 5d, s1 7s 6d, s2
    // 4c 3s, the flop Ac Ad 2h: s0 has AA852 (best), s1 AA762, s2 AA432 (weakest).
    let mut bets = [NEUTRAL; 12];
    bets[3] = "bet 2 on s0"; // flop, s2
    bets[4] = "bet 1 on s1"; // flop, s0: wrong by a kicker
    bets[5] = "bet 1 on s2 with bluff"; // flop, s1
    let state = play_hand(&[], "8s 7s 4c", "5d 6d 3s", "Ac Ad 2h Kc 9h", bets);
    assert_eq!(last_hand_points(&state), vec![0, 1, 2]);
}

/// Each board's chance of the best and the weakest hand of the round for `seat`, by brute
/// force: every deal of the cards it does not see (its own shown card, the others' private
/// cards), valued by the rules' own hands.
fn brute_force_odds(state: &Table, seat: usize) -> (Vec<f64>, Vec<f64>) {
    let rules = state.rules();
    let n = rules.config().players;
    let street = rules.street();
    let seen = rules.cards();
    let mut known: Vec<Card> = vec![seen.private[seat].unwrap()];
    known.extend((0..n).filter(|&s| s != seat).map(|s| seen.shown[s].unwrap()));
    known.extend(seen.community.iter().flatten());
    let unseen: Vec<Card> = (0..52u8).map(Card).filter(|c| !known.contains(c)).collect();
    let (mut best, mut worst, mut deals) = (vec![0.0; n], vec![0.0; n], 0.0);
    super::odds::each_deal(n, unseen.len(), &mut |p| {
        let mut hand = *seen;
        for (s, &c) in p.iter().enumerate() {
            if s == seat {
                hand.shown[s] = Some(unseen[c]);
            } else {
                hand.private[s] = Some(unseen[c]);
            }
        }
        let values: Vec<_> = (0..n).map(|s| hand.value(s, street)).collect();
        let (hi, lo) = (values.iter().max().unwrap(), values.iter().min().unwrap());
        for s in 0..n {
            best[s] += (values[s] == *hi) as u8 as f64;
            worst[s] += (values[s] == *lo) as u8 as f64;
        }
        deals += 1.0;
    });
    (
        best.iter().map(|b| b / deals).collect(),
        worst.iter().map(|w| w / deals).collect(),
    )
}

/// The odds block (`observation=odds`) of `seat`'s observation, after the plain observation,
/// which it leaves as it is.
fn odds_block(state: &Table, plain: &DetectivePokerGame, seat: usize) -> Vec<f32> {
    let size = game(&[("observation", "odds")]).observation_size();
    let mut with = vec![0.0; size];
    state.observation_tensor(seat, &mut with);
    let mut replayed = start(plain);
    for entry in state.history() {
        replayed.apply_action(entry.action).unwrap();
    }
    let mut without = vec![0.0; plain.observation_size()];
    replayed.observation_tensor(seat, &mut without);
    assert_eq!(size, without.len() + 2 * state.rules().config().players);
    assert_eq!(with[..without.len()], without[..]);
    with[without.len()..].to_vec()
}

#[test]
fn odds_observation_is_each_boards_exact_chance_from_the_cards_the_seat_sees() {
    let (odds, plain) = (game(&[("observation", "odds")]), game(&[]));
    let mut state = start(&odds);
    // The private cards of s1 and s2 (dealt from left of the dealer): a card is still to be
    // dealt, so the block is empty.
    deal(&mut state, "7c Kh");
    assert!(odds_block(&state, &plain, 0).iter().all(|&x| x == 0.0));
    deal_hole(&mut state, "As 7c Kh", "Ad 2d Qh");
    let check = |state: &Table, seat: usize| {
        let block = odds_block(state, &plain, seat);
        let (best, worst) = brute_force_odds(state, seat);
        for s in 0..3 {
            assert!((block[s] as f64 - best[s]).abs() < 1e-6, "{block:?} {best:?}");
            assert!((block[3 + s] as f64 - worst[s]).abs() < 1e-6, "{block:?} {worst:?}");
        }
        block
    };
    // Preflop, s1 to act: it sees A♦ at s0 and Q♥ at s2, and its own 7♣.
    let preflop = check(&state, 1);
    assert!(preflop[0] > preflop[2] && preflop[2] > preflop[1], "{preflop:?}");
    assert!(preflop[4] > preflop[5] && preflop[5] > preflop[3], "{preflop:?}");
    for _ in 0..3 {
        bet(&mut state, NEUTRAL);
    }
    deal(&mut state, "3c Ks Qs 9c");
    // The flop, s2 to act, holding K♥ with K♠ Q♠ on the board: its board is likeliest best.
    let flop = check(&state, 2);
    assert!(flop[2] > flop[0] && flop[2] > flop[1], "{flop:?}");
    // Every seat's chances: ties count for every tied board, so each sums to 1 or more.
    for seat in 0..3 {
        let block = odds_block(&state, &plain, seat);
        assert!(block[..3].iter().sum::<f32>() >= 1.0 - 1e-5, "{block:?}");
        assert!(block[3..].iter().sum::<f32>() >= 1.0 - 1e-5, "{block:?}");
    }
}
