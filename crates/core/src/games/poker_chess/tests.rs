//! Every row of the card table, castling, the joker, en passant, discards, the end of the
//! deck, king capture, scoring and refused actions; positions come from the `fen` parameter
//! and hands from dealing exactly the cards a test needs.

use super::moves;
use super::table::{self, MoveTraits, PieceKind, PieceValues};
use super::*;
use crate::cards::{Card, parse_cards};
use crate::game::{ErrorKind, Player, State};
use crate::registry::{make_game, parse_params};
use crate::rules::{Played, rules_of};

/// A Poker Chess state with its history (`rules()` gives the game's own state).
type S = Played<PokerChessState>;

/// A state of a game with these parameters, before the deal.
fn new_state(params: &[(&str, &str)]) -> S {
    let params = parse_params(&ENTRY, params.iter().copied()).unwrap();
    Played::new(PokerChessGame::new(params).unwrap().initial_state())
}

/// A state at `fen` after dealing `white` to seat 0 and `black` to seat 1 (hand size = the
/// number of white cards, which must equal the number of black cards).
fn dealt(fen: &str, white: &str, black: &str, extra: &[(&str, &str)]) -> S {
    let (w, b) = (parse_cards(white).unwrap(), parse_cards(black).unwrap());
    assert_eq!(w.len(), b.len());
    let size = w.len().to_string();
    let mut params = vec![("fen", fen), ("hand_size", size.as_str())];
    params.extend_from_slice(extra);
    let mut state = new_state(&params);
    for card in w.iter().chain(&b) {
        assert_eq!(state.current_player(), Player::Chance);
        state.apply_action(card.0 as u32).unwrap();
    }
    state
}

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

/// The action strings the seat to act may choose now.
fn legal_strings(state: &S) -> Vec<String> {
    let player = state.current_player();
    let mut out: Vec<String> = state
        .legal_actions()
        .into_iter()
        .map(|a| state.action_to_string(player, a))
        .collect();
    out.sort();
    out
}

/// The moves (UCI, sorted) that playing `text` allows, or None when it cannot be played.
fn allowed(state: &S, text: &str) -> Option<Vec<String>> {
    let player = state.current_player();
    let play = state
        .string_to_action(player, &format!("play {text}"))
        .unwrap();
    let mut copy = state.clone();
    copy.apply_action(play).ok()?;
    assert_eq!(copy.rules().step(), Some(TurnStep::Move(card(text))));
    Some(legal_strings(&copy))
}

fn strings(list: &[&str]) -> Option<Vec<String>> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    Some(v)
}

/// Applies an action given as text by the seat to act.
fn act(state: &mut S, text: &str) {
    let player = state.current_player();
    let a = state
        .string_to_action(player, text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    state
        .apply_action(a)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
}

/// Deals the draws after a turn (the cards given, in order).
fn draw(state: &mut S, cards: &str) {
    for c in parse_cards(cards).unwrap() {
        assert_eq!(state.current_player(), Player::Chance);
        state.apply_action(c.0 as u32).unwrap();
    }
}

const START: &str = START_FEN;

#[test]
fn card_classes_follow_the_table() {
    let class = |t: &str| table::card_class(card(t));
    assert_eq!(class("Ac"), table::BLACK_FILE);
    assert_eq!(class("8s"), table::BLACK_FILE + 7);
    assert_eq!(class("9c"), table::BLACK_ODD);
    assert_eq!(class("Ts"), table::BLACK_EVEN);
    for t in ["Jc", "Qs", "Kc"] {
        assert_eq!(class(t), table::BLACK_CAPTURE);
    }
    assert_eq!(class("Ad"), table::RED_FILE);
    assert_eq!(class("8h"), table::RED_FILE + 7);
    assert_eq!(class("9d"), table::RED_ROOK);
    assert_eq!(class("Th"), table::RED_KNIGHT);
    assert_eq!(class("Jd"), table::RED_BISHOP);
    assert_eq!(class("Qh"), table::RED_QUEEN);
    assert_eq!(class("Kd"), table::RED_KING);
    for t in ["X1", "X2", "X3"] {
        assert_eq!(class(t), table::JOKER);
    }
    // Pure function over a move description: a pawn capture ending on file d.
    let m = MoveTraits {
        piece: PieceKind::Pawn,
        to_file: 3,
        is_capture: true,
        is_en_passant: false,
        is_castle: false,
        from_attacked: false,
    };
    for (t, ok) in [
        ("4c", true),
        ("Ts", true),
        ("9s", false),
        ("Kc", true),
        ("4d", false),
        ("X1", false),
    ] {
        assert_eq!(table::card_allows(card(t), &m), ok, "{t}");
    }
    let castle = MoveTraits {
        piece: PieceKind::King,
        to_file: 6,
        is_capture: false,
        is_en_passant: false,
        is_castle: true,
        from_attacked: true,
    };
    for (t, ok) in [
        ("7h", true),
        ("Kd", true),
        ("X2", true),
        ("3h", false),
        ("9d", false),
        ("7c", false),
    ] {
        assert_eq!(table::card_allows(card(t), &castle), ok, "{t}");
    }
}

#[test]
fn black_one_to_eight_move_a_pawn_to_that_file() {
    let s = dealt(START, "Ac 3s 8c Ks 2d", "2c 3c 4c 5c 6c", &[]);
    assert_eq!(allowed(&s, "Ac"), strings(&["a2a3", "a2a4"]));
    assert_eq!(allowed(&s, "3s"), strings(&["c2c3", "c2c4"]));
    assert_eq!(allowed(&s, "8c"), strings(&["h2h3", "h2h4"]));
    // No pawn capture at the start: black K is dead.
    assert_eq!(allowed(&s, "Ks"), None);
    // Captures and promotions count by the file they end on.
    let fen = "3qk3/4P3/8/3p4/4P3/8/8/4K3 w - - 0 1";
    let s = dealt(fen, "4c 5s", "2c 3c", &[]);
    assert_eq!(
        allowed(&s, "4c"),
        strings(&["e4d5", "e7d8b", "e7d8n", "e7d8q", "e7d8r"])
    );
    assert_eq!(allowed(&s, "5s"), strings(&["e4e5"]));
}

#[test]
fn black_nine_and_ten_move_pawns_to_odd_and_even_files() {
    let s = dealt(START, "9c Ts", "2c 3c", &[]);
    assert_eq!(
        allowed(&s, "9c"),
        strings(&[
            "a2a3", "a2a4", "c2c3", "c2c4", "e2e3", "e2e4", "g2g3", "g2g4"
        ])
    );
    assert_eq!(
        allowed(&s, "Ts"),
        strings(&[
            "b2b3", "b2b4", "d2d3", "d2d4", "f2f3", "f2f4", "h2h3", "h2h4"
        ])
    );
    // A capture from e (odd) to d (even) is a 10's move, not a 9's.
    let fen = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1";
    let s = dealt(fen, "9s Tc", "2c 3c", &[]);
    assert_eq!(allowed(&s, "9s"), strings(&["e4e5"]));
    assert_eq!(allowed(&s, "Tc"), strings(&["e4d5"]));
}

#[test]
fn black_picture_cards_take_with_a_pawn_en_passant_included() {
    // Black to move plays d7d5 with black 4; White may then take en passant with a black J.
    let fen = "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1";
    let mut s = dealt(fen, "Jc Qs", "4c 3c", &[]);
    act(&mut s, "play 4c");
    act(&mut s, "d7d5");
    draw(&mut s, "5c");
    for t in ["Jc", "Qs"] {
        assert_eq!(allowed(&s, t), strings(&["e5d6"]), "{t}");
    }
    let mut taken = s.clone();
    act(&mut taken, "play Jc");
    act(&mut taken, "e5d6");
    assert_eq!(taken.rules().points(), [1, 0]);
    assert_eq!(
        taken.rules().board().to_fen(),
        "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2"
    );
    // With en_passant off the capture does not exist and the J and Q are dead.
    let mut off = dealt(fen, "Jc Qs", "4c 3c", &[("en_passant", "false")]);
    act(&mut off, "play 4c");
    act(&mut off, "d7d5");
    draw(&mut off, "5c");
    assert_eq!(allowed(&off, "Jc"), None);
    assert_eq!(legal_strings(&off), vec!["discard Jc Qs"]);
}

#[test]
fn en_passant_lasts_one_ply_and_a_discard_uses_it() {
    let fen = "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1";
    let mut s = dealt(fen, "Jc 2c", "4c 3c", &[]);
    act(&mut s, "play 4c");
    act(&mut s, "d7d5");
    draw(&mut s, "5c");
    assert!(allowed(&s, "Jc").is_some());
    // In a second line White discards instead, and the right lapses.
    let mut s = dealt(fen, "7c 2c", "4c 3c", &[]);
    act(&mut s, "play 4c");
    act(&mut s, "d7d5");
    draw(&mut s, "5h");
    // White holds 2c (b-file pawn: none) and 7c (g-file pawn: none): both dead, so it may
    // discard them, which uses its ply.
    act(&mut s, "discard 2c 7c");
    assert_eq!(s.rules().board().en_passant(), None);
    draw(&mut s, "Qs Kc");
    // Black moves its king with a red 5 (a non-pawn move ending on file e).
    act(&mut s, "play 5h");
    act(&mut s, "e8e7");
    draw(&mut s, "6c");
    // The en passant right is gone: White's black picture cards are dead.
    assert_eq!(allowed(&s, "Kc"), None);
    assert_eq!(allowed(&s, "Qs"), None);
}

#[test]
fn red_one_to_eight_move_a_non_pawn_to_that_file() {
    let s = dealt(START, "6h 3d 7h Ad", "2c 3c 4c 5c", &[]);
    assert_eq!(allowed(&s, "6h"), strings(&["g1f3"]));
    assert_eq!(allowed(&s, "3d"), strings(&["b1c3"]));
    assert_eq!(allowed(&s, "Ad"), strings(&["b1a3"]));
    // Nothing non-pawn can reach the g-file at the start.
    assert_eq!(allowed(&s, "7h"), None);
}

#[test]
fn red_nine_to_king_move_that_piece() {
    let fen = "4k3/8/8/8/8/8/8/R1N1KBQ1 w - - 0 1";
    let s = dealt(fen, "9d Th Jd Qh Kd", "2c 3c 4c 5c 6c", &[]);
    assert_eq!(
        allowed(&s, "9d"),
        strings(&[
            "a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1a7", "a1a8", "a1b1"
        ])
    );
    assert_eq!(
        allowed(&s, "Th"),
        strings(&["c1a2", "c1b3", "c1d3", "c1e2"])
    );
    assert_eq!(
        allowed(&s, "Jd"),
        strings(&["f1a6", "f1b5", "f1c4", "f1d3", "f1e2", "f1g2", "f1h3"])
    );
    let queen = allowed(&s, "Qh").unwrap();
    assert!(queen.iter().all(|m| m.starts_with("g1")));
    assert!(queen.contains(&"g1g8".to_string()) && queen.contains(&"g1a7".to_string()));
    assert_eq!(
        allowed(&s, "Kd"),
        strings(&["e1d1", "e1d2", "e1e2", "e1f2"])
    );
}

const CASTLE_FEN: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

#[test]
fn castling_is_a_king_move_to_g_or_c_for_red_seven_three_and_king() {
    let s = dealt(CASTLE_FEN, "7h 3d Kh 9d", "2c 3c 4c 5c", &[]);
    assert_eq!(allowed(&s, "7h"), strings(&["e1g1", "h1g1"]));
    assert_eq!(allowed(&s, "3d"), strings(&["a1c1", "e1c1"]));
    assert_eq!(
        allowed(&s, "Kh"),
        strings(&["e1c1", "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e1g1"])
    );
    // A red 9 moves rooks only; castling is not a rook move.
    assert!(!allowed(&s, "9d").unwrap().contains(&"e1g1".to_string()));
    let mut short = s.clone();
    act(&mut short, "play 7h");
    act(&mut short, "e1g1");
    assert_eq!(
        short.rules().board().to_fen(),
        "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    );
    let mut long = s.clone();
    act(&mut long, "play 3d");
    act(&mut long, "e1c1");
    assert_eq!(
        long.rules().board().to_fen(),
        "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1"
    );
}

#[test]
fn castling_may_start_from_or_pass_through_attacked_squares_and_a_joker_can_castle() {
    // Black rooks attack e1 (check) and f1: castling is still allowed, and the attacked king
    // may castle with a joker.
    let fen = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let attacked = "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let s = dealt(fen, "X1 7h", "2c 3c", &[]);
    // Nothing is attacked: the joker is dead.
    assert_eq!(allowed(&s, "X1"), None);
    let s = dealt(attacked, "X1 7h", "2c 3c", &[]);
    assert_eq!(allowed(&s, "7h"), strings(&["e1g1", "h1g1"]));
    let in_check = "4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let s = dealt(in_check, "X1 7h", "2c 3c", &[]);
    assert_eq!(allowed(&s, "7h"), strings(&["e1g1", "h1g1"]));
    assert_eq!(
        allowed(&s, "X1"),
        strings(&["e1c1", "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e1g1"])
    );
    // Castling needs empty squares between king and rook, and the right.
    let blocked = "4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1";
    let s = dealt(blocked, "Kh 7h", "2c 3c", &[]);
    assert_eq!(
        allowed(&s, "Kh"),
        strings(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"])
    );
    let no_right = "4k3/8/8/8/8/8/8/R3K2R w Q - 0 1";
    let s = dealt(no_right, "7h 3h", "2c 3c", &[]);
    assert_eq!(allowed(&s, "7h"), strings(&["h1g1"]));
    assert_eq!(allowed(&s, "3h"), strings(&["a1c1", "e1c1"]));
}

#[test]
fn a_joker_moves_an_attacked_piece_pawns_included() {
    // The black bishop on b4 attacks the pawn on d2 (and nothing else white).
    let fen = "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1";
    let s = dealt(fen, "X2 2c", "2d 3c", &[]);
    assert_eq!(allowed(&s, "X2"), strings(&["d2d3", "d2d4"]));
    let mut saved = s.clone();
    act(&mut saved, "play X2");
    act(&mut saved, "d2d4");
    assert!(
        saved
            .rules()
            .board()
            .to_fen()
            .starts_with("4k3/8/8/8/1b1P4/8/8/4K3 b")
    );
    // A pawn attacks diagonally only: a pawn straight ahead is not an attack.
    let fen = "4k3/8/8/8/8/3p4/3P4/4K3 w - - 0 1";
    let s = dealt(fen, "X2 2c", "2d 3c", &[]);
    assert_eq!(allowed(&s, "X2"), None);
    // The king attacked by a pawn: the joker moves the king (and may take the pawn).
    let fen = "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1";
    let s = dealt(fen, "X3 2c", "2d 3c", &[]);
    assert_eq!(
        allowed(&s, "X3"),
        strings(&["e1d1", "e1d2", "e1e2", "e1f1", "e1f2"])
    );
}

#[test]
fn promotion_is_free_and_a_promoted_piece_scores_as_what_it_is() {
    let fen = "4k2r/6P1/8/8/8/8/8/4K3 w - - 0 1";
    let mut s = dealt(fen, "7c Kc", "9d 2c", &[]);
    assert_eq!(
        allowed(&s, "7c"),
        strings(&["g7g8b", "g7g8n", "g7g8q", "g7g8r"])
    );
    assert_eq!(
        allowed(&s, "Kc"),
        strings(&["g7h8b", "g7h8n", "g7h8q", "g7h8r"])
    );
    act(&mut s, "play 7c");
    act(&mut s, "g7g8n");
    draw(&mut s, "3c");
    act(&mut s, "play 9d");
    act(&mut s, "h8g8");
    assert_eq!(s.rules().points(), [0, 3]);
    assert_eq!(
        s.rules().board().to_fen(),
        "4k1r1/8/8/8/8/8/8/4K3 w - - 0 2"
    );
}

#[test]
fn discarding_needs_two_unplayable_cards() {
    // At the start: 2c (b-pawn) is playable, Kc (pawn capture) and 7h (nothing to g) are dead.
    let mut s = dealt(START, "2c Kc 7h", "2d 3d 4d", &[]);
    assert_eq!(legal_strings(&s), vec!["discard 7h Kc", "play 2c"]);
    let before = s.serialize();
    let a = s.rules().discard_action(card("2c"), card("Kc")).unwrap();
    let err = s.apply_action(a).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    let text = err.to_string();
    assert!(text.contains("2c is playable"), "{text}");
    assert_eq!(s.serialize(), before);
    // Both dead: shown, discarded, two drawn, and Black to move.
    act(&mut s, "discard Kc 7h");
    assert!(s.rules().discards().contains(card("Kc")) && s.rules().discards().contains(card("7h")));
    assert_eq!(s.current_player(), Player::Chance);
    draw(&mut s, "5c 6c");
    assert_eq!(s.rules().hand(0).len(), 3);
    assert_eq!(s.current_player(), Player::Seat(1));
    assert!(s.information_state_string(1).contains("s0 discards 7h Kc"));
}

#[test]
fn discarding_is_allowed_with_an_empty_pile() {
    // Two jokerless decks' worth cannot run out quickly; use the largest hands and count.
    let mut s = new_state(&[
        ("jokers", "0"),
        ("hand_size", "2"),
        ("fen", "k7/8/8/8/8/8/8/7K w - - 0 1"),
    ]);
    // Deal and play out so the pile empties: kings only, so only red cards and jokers play.
    let mut rng = crate::env::GameRng::new(3);
    let mut saw_empty_discard = false;
    while !s.is_terminal() {
        if s.is_chance_node() {
            let a = s.sample_chance_outcome(&mut rng);
            s.apply_action(a).unwrap();
            continue;
        }
        let legal = s.legal_actions();
        let discard = legal.iter().copied().find(|&a| {
            s.action_to_string(s.current_player(), a)
                .starts_with("discard")
        });
        let a = match discard {
            Some(d) => {
                if s.rules().pile().is_empty() {
                    saw_empty_discard = true;
                }
                d
            }
            None => legal[0],
        };
        s.apply_action(a).unwrap();
    }
    assert!(saw_empty_discard);
    assert!(s.rules().pile().is_empty());
}

#[test]
fn the_game_ends_when_the_pile_is_empty_and_the_player_to_act_can_do_nothing() {
    // Kings only: black cards are always dead. Play until the end by taking the first legal
    // action; the game must end with the pile empty, no king taken, and the seat to act
    // unable to do anything.
    let fen = "k7/8/8/8/8/8/8/7K w - - 0 1";
    let game = make_game("poker_chess", [("fen", fen), ("jokers", "0")]).unwrap();
    let mut s = game.new_initial_state();
    let mut rng = crate::env::GameRng::new(11);
    let mut last = None;
    while !s.is_terminal() {
        if s.is_chance_node() {
            let a = s.sample_chance_outcome(&mut rng);
            s.apply_action(a).unwrap();
        } else {
            last = Some(s.clone_box());
            let legal = s.legal_actions();
            s.apply_action(legal[0]).unwrap();
        }
    }
    let end: &PokerChessState = rules_of(s.as_ref()).unwrap();
    assert!(end.pile().is_empty());
    assert_eq!(end.points(), [0, 0]);
    assert_eq!(s.returns(), vec![0.0, 0.0]);
    let seat = end.to_move();
    let hand = end.hand(seat);
    let playable = hand.iter().filter(|&c| end.is_playable(c)).count();
    assert!(hand.is_empty() || (playable == 0 && hand.len() < 2));
    assert!(last.is_some());
    assert_eq!(s.legal_actions(), Vec::<u32>::new());
}

#[test]
fn capturing_the_king_scores_100_and_ends_at_once() {
    // The white queen on a4 attacks the black king on e8 along the diagonal.
    let fen = "4k3/8/8/8/Q7/8/8/4K3 w - - 0 1";
    for (reward, expected) in [("rank", [1.0, -1.0]), ("points", [100.0, -100.0])] {
        let mut s = dealt(fen, "Qh 5d", "2d 3d", &[("reward", reward)]);
        // Red 5 (file e) also allows the capture: the queen ends on the e-file.
        assert!(allowed(&s, "5d").unwrap().contains(&"a4e8".to_string()));
        act(&mut s, "play Qh");
        act(&mut s, "a4e8");
        assert!(s.is_terminal());
        assert_eq!(s.rules().points(), [100, 0]);
        assert_eq!(s.returns(), expected.to_vec());
        assert_eq!(s.rewards(), expected.to_vec());
        assert!(s.legal_actions_for(Player::Seat(1)).is_empty());
    }
}

#[test]
fn custom_piece_values_score_captures() {
    let fen = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1";
    let mut s = dealt(
        fen,
        "Jc 2c",
        "2d 3d",
        &[("piece_values", "p=7, k=50"), ("reward", "points")],
    );
    act(&mut s, "play Jc");
    act(&mut s, "e4d5");
    assert_eq!(s.rules().points(), [7, 0]);
    assert_eq!(s.rewards(), vec![7.0, -7.0]);
    assert_eq!(s.returns(), vec![7.0, -7.0]);
}

#[test]
fn piece_values_parse_and_refuse_bad_text() {
    assert_eq!(
        PieceValues::parse("k=100 q=9 r=5 b=3 n=3 p=1").unwrap(),
        PieceValues::STANDARD
    );
    assert_eq!(PieceValues::parse("").unwrap(), PieceValues::STANDARD);
    assert_eq!(
        PieceValues::parse("Q=10;p=2").unwrap(),
        PieceValues([2, 3, 3, 5, 10, 100])
    );
    assert_eq!(
        PieceValues::parse(&PieceValues::STANDARD.to_text()).unwrap(),
        PieceValues::STANDARD
    );
    for bad in ["x=1", "q", "q=-1", "q=nine", "q=1 q=2", "q=10001", "qq=1"] {
        assert!(PieceValues::parse(bad).is_err(), "{bad}");
        let err = make_game("poker_chess", [("piece_values", bad)]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("piece_values"), "{text}");
    }
}

#[test]
fn parameters_are_validated_with_clear_errors() {
    for (name, value) in [
        ("jokers", "4"),
        ("hand_size", "1"),
        ("hand_size", "9"),
        ("en_passant", "maybe"),
        ("reward", "money"),
        ("fen", "not a fen"),
        ("fen", "8/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("fen", "4k3/8/8/8/8/8/8/4KK2 w - - 0 1"),
    ] {
        let err = make_game("poker_chess", [(name, value)]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument);
        assert!(err.to_string().contains(name), "{err}");
    }
    let game = make_game("poker_chess", [("jokers", "0")]).unwrap();
    let mut s = game.new_initial_state();
    assert_eq!(s.chance_outcomes().len(), 52);
    let game = make_game("poker_chess", Vec::<(String, String)>::new()).unwrap();
    s = game.new_initial_state();
    assert_eq!(s.chance_outcomes().len(), 55);
    assert_eq!(game.num_distinct_actions(), CARD_BASE as usize + 5 + 10);
}

#[test]
fn refused_actions_name_the_problem_and_change_nothing() {
    let mut s = dealt(START, "2c Kc 7h", "2d 3d 4d", &[]);
    let before = s.serialize();
    let player = s.current_player();
    // A card not in hand.
    let err = s.string_to_action(player, "play Ah").unwrap_err();
    assert!(
        err.to_string().contains("Ah is not in seat 0's hand"),
        "{err}"
    );
    // The first discard pair (2c, 7h) holds a playable card.
    let err = s.apply_action(CARD_BASE + 3).unwrap_err();
    assert!(err.to_string().contains("2c is playable"), "{err}");
    // A dead card.
    let err = s
        .apply_action(s.rules().play_action(card("Kc")).unwrap())
        .unwrap_err();
    assert!(err.to_string().contains("any pawn capture"), "{err}");
    // A move at the card step.
    let err = s.apply_action(788).unwrap_err();
    assert!(err.to_string().contains("card step"), "{err}");
    // Out of range.
    assert!(s.apply_action(100_000).is_err());
    assert_eq!(s.serialize(), before);
    // A move the card does not allow.
    act(&mut s, "play 2c");
    let before = s.serialize();
    let e2e4 = s.string_to_action(player, "e2e4").unwrap();
    let err = s.apply_action(e2e4).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("2c allows a pawn move ending on file b; e2e4 is not such a move"),
        "{text}"
    );
    // Not a move at all, and a card action at the move step.
    let err = s
        .apply_action(s.string_to_action(player, "e2e5").unwrap())
        .unwrap_err();
    assert!(err.to_string().contains("cannot move"), "{err}");
    assert!(s.apply_action(CARD_BASE).is_err());
    assert_eq!(s.serialize(), before);
    // Bad strings.
    for bad in [
        "",
        "play",
        "play Zz",
        "discard 2c",
        "e9e4",
        "e7e8k",
        "b2b1q",
    ] {
        assert!(s.string_to_action(player, bad).is_err(), "{bad}");
    }
    // Out of turn: seat 1 asks for its legal actions: none.
    assert!(s.legal_actions_for(Player::Seat(1)).is_empty());
    // A chance outcome not in the pile.
    act(&mut s, "b2b4");
    let err = s.apply_action(card("2c").0 as u32).unwrap_err();
    assert!(err.to_string().contains("not in the draw pile"), "{err}");
}

#[test]
fn action_strings_round_trip_for_moves_and_promotions() {
    let fen = "1n2k3/P7/8/8/8/8/p7/4K3 w - - 0 1";
    let s = dealt(fen, "Ac 2c", "Ad 2d", &[]);
    let p = Player::Seat(0);
    for text in [
        "a7a8q",
        "a7b8n",
        "e1e2",
        "play Ac",
        "play 2c",
        "discard 2c Ac",
    ] {
        let a = s.string_to_action(p, text).unwrap();
        assert_eq!(s.action_to_string(p, a), text);
    }
    assert_eq!(
        s.string_to_action(p, "discard Ac 2c").unwrap(),
        s.string_to_action(p, "discard 2c Ac").unwrap()
    );
    let black = Player::Seat(1);
    let a = s.string_to_action(black, "a2a1r").unwrap();
    assert_eq!(s.action_to_string(black, a), "a2a1r");
    assert!(s.string_to_action(p, "a2a1r").is_err());
}

#[test]
fn hands_are_private_and_draws_hidden() {
    let mut s = dealt(START, "2c 3c", "2d 3d", &[]);
    let info1 = s.information_state_string(1);
    assert!(info1.contains("deal s0:?") && !info1.contains("2c"));
    let view = s.view(Some(1));
    assert_eq!(view["seats"][0]["cards"], serde_json::json!([null, null]));
    assert_eq!(view["seats"][0]["count"], 2);
    assert_eq!(view["seats"][1]["cards"], serde_json::json!(["2d", "3d"]));
    assert!(!view.to_string().contains("2c") && !view.to_string().contains("3c"));
    let public = s.view(None);
    assert_eq!(public["seats"][1]["cards"], serde_json::json!([null, null]));
    assert!(public.get("played_card").is_none());
    assert_eq!(public["phase"], "card");
    act(&mut s, "play 2c");
    // The played card is public at once.
    assert!(s.information_state_string(1).contains("s0 plays 2c"));
    assert_eq!(s.view(None)["played_card"], "2c");
    assert_eq!(s.view(None)["phase"], "move");
}

#[test]
fn view_events_are_structs_with_hidden_deals_null() {
    use serde_json::json;
    let mut s = dealt(START, "2c 3c", "2d 3d", &[]);
    act(&mut s, "play 2c");
    act(&mut s, "b2b4");
    let events = &s.view(Some(1))["events"];
    assert_eq!(events[0], json!({"kind": "deal", "seat": 0, "card": null}));
    assert_eq!(events[2], json!({"kind": "deal", "seat": 1, "card": "2d"}));
    assert_eq!(events[4], json!({"kind": "play", "seat": 0, "card": "2c"}));
    assert_eq!(
        events[5],
        json!({"kind": "move", "seat": 0, "from": "b2", "to": "b4", "uci": "b2b4"})
    );
    let public = s.view(None);
    assert_eq!(public["events"][2], json!({"kind": "deal", "seat": 1, "card": null}));
}

/// The information-state string's entry of a view's event (`deal s1:?`, `s0 plays 7h`,
/// `s1 d7d5xp`, `s0 discards 2c 3d`), written from its fields alone.
fn event_words(event: &serde_json::Value) -> String {
    let seat = &event["seat"];
    let text = |v: &serde_json::Value| v.as_str().unwrap().to_string();
    match event["kind"].as_str().unwrap() {
        "deal" => match event["card"].as_str() {
            Some(card) => format!("deal s{seat}:{card}"),
            None => format!("deal s{seat}:?"),
        },
        "play" => format!("s{seat} plays {}", text(&event["card"])),
        "move" => {
            let mut uci = format!("{}{}", text(&event["from"]), text(&event["to"]));
            if let Some(p) = event.get("promotion") {
                uci.push_str(&text(p));
            }
            assert_eq!(uci, text(&event["uci"]));
            match event.get("captured") {
                Some(p) => format!("s{seat} {uci}x{}", text(p).to_lowercase()),
                None => format!("s{seat} {uci}"),
            }
        }
        "discard" => format!(
            "s{seat} discards {} {}",
            text(&event["cards"][0]),
            text(&event["cards"][1])
        ),
        kind => panic!("no event kind {kind}"),
    }
}

/// A whole game of `game` (`spec`, for errors) with the heuristic in both seats and chance
/// from `seed`, at its end.
fn heuristic_game(game: &dyn crate::Game, seed: u64, spec: &str) -> Box<dyn State> {
    let mut rng = crate::env::GameRng::new(seed);
    let mut s = game.new_initial_state();
    while !s.is_terminal() {
        let a = match s.current_player() {
            Player::Chance => s.sample_chance_outcome(&mut rng),
            Player::Seat(p) => s.heuristic_action(p, &mut rng),
            _ => unreachable!(),
        };
        s.apply_action(a).unwrap_or_else(|e| panic!("{spec}: {e}"));
    }
    s
}

#[test]
fn view_events_say_what_the_information_state_says() {
    let mut kinds = std::collections::HashSet::new();
    for spec in ["poker_chess", "poker_chess(hand_size=2,jokers=0)"] {
        let game = crate::registry::make_game_from_string(spec).unwrap();
        for seed in 0..4 {
            let s = heuristic_game(game.as_ref(), seed, spec);
            for seat in 0..2 {
                let view = s.view(Some(seat));
                let events = view["events"].as_array().unwrap();
                let words: Vec<String> = events.iter().map(event_words).collect();
                let info = s.information_state_string(seat);
                assert_eq!(format!("seat {seat} | {}", words.join(", ")), info);
                for event in events {
                    let captured = event.get("captured").is_some();
                    kinds.insert((event["kind"].to_string(), captured));
                }
            }
        }
    }
    assert!(kinds.len() >= 5, "{kinds:?}");
}

#[test]
fn fast_class_masks_match_the_card_table_on_every_move() {
    // Along random games, the classes and per-card move lists the hot path computes equal
    // the pure card table applied to every generated move.
    use crate::chess::MoveList;
    let mut rng = crate::env::GameRng::new(5);
    let mut list = MoveList::new();
    for fen in [
        START,
        CASTLE_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    ] {
        for game_index in 0..4 {
            let mut s = new_state(&[("fen", fen)]);
            let mut steps = 0;
            while !s.is_terminal() && steps < 200 {
                if s.is_chance_node() {
                    let a = s.sample_chance_outcome(&mut rng);
                    s.apply_action(a).unwrap();
                    continue;
                }
                if s.rules().step() == Some(TurnStep::Card) {
                    let board = *s.rules().board();
                    board.generate_moves(s.rules().move_options(), &mut list);
                    let mut classes = 0u32;
                    for &mv in list.iter() {
                        classes |= table::move_classes(&moves::traits(&board, mv).unwrap());
                    }
                    assert_eq!(
                        moves::playable_classes(&board, s.rules().move_options()),
                        classes,
                        "{board} (game {game_index})"
                    );
                    for id in 0..55u8 {
                        let c = Card(id);
                        let mut expected: Vec<u32> = list
                            .iter()
                            .filter(|&&mv| {
                                table::card_allows(c, &moves::traits(&board, mv).unwrap())
                            })
                            .map(|&mv| moves::encode(mv))
                            .collect();
                        expected.sort_unstable();
                        let got: Vec<u32> =
                            s.rules().moves_for(c).into_iter().map(|m| m.0).collect();
                        assert_eq!(got, expected, "{c} at {board}");
                        for &id in &got {
                            assert_eq!(
                                moves::encode(moves::decode(id, board.side_to_move()).unwrap()),
                                id
                            );
                        }
                    }
                }
                let legal = s.legal_actions();
                let a = rng.choose(&legal);
                s.apply_action(a).unwrap();
                steps += 1;
            }
        }
    }
}

#[test]
fn the_heuristic_plays_whole_games_in_every_variant() {
    for spec in [
        "poker_chess",
        "poker_chess(hand_size=2,jokers=0)",
        "poker_chess(hand_size=8,en_passant=false,reward=points)",
        "poker_chess(fen=4k3/8/8/8/8/8/8/4K3 w - - 0 1)",
    ] {
        let game = crate::registry::make_game_from_string(spec).unwrap();
        for seed in 0..3 {
            heuristic_game(game.as_ref(), seed, spec);
        }
    }
}

#[test]
fn resampling_changes_the_hidden_cards_but_not_what_the_seat_sees() {
    let mut s = dealt(START, "2c 3c 4c 5c 6c", "2d 3d 4d 5d 6d", &[]);
    act(&mut s, "play 2c");
    act(&mut s, "b2b4");
    draw(&mut s, "Ks");
    act(&mut s, "play 3d");
    act(&mut s, "b8c6");
    draw(&mut s, "X1");
    let mut rng = crate::env::GameRng::new(9);
    let mut changed = false;
    for _ in 0..8 {
        let other = s.resample_from_infostate(0, &mut rng);
        let resampled: &PokerChessState = rules_of(other.as_ref()).unwrap();
        assert_eq!(resampled.hand(0), s.rules().hand(0));
        assert_eq!(other.observation_string(0), s.observation_string(0));
        assert_eq!(
            other.information_state_string(0),
            s.information_state_string(0)
        );
        assert_eq!(other.view(Some(0)), s.view(Some(0)));
        assert_eq!(resampled.discards(), s.rules().discards());
        assert_eq!(resampled.board(), s.rules().board());
        changed |= resampled.hand(1) != s.rules().hand(1);
        assert!(!resampled.hand(1).contains(card("3d")));
    }
    assert!(changed, "the opponent's hand was never resampled");
}

/// Seat `seat`'s scores block in `state` (a game with `observation=scores`), checking that
/// the rest of its observation is the plain game's, replayed from the same history.
fn scores_block(state: &dyn State, plain: &dyn crate::Game, seat: usize) -> Vec<f32> {
    let mut with = vec![0.0; plain.observation_size() + plain.num_distinct_actions()];
    state.observation_tensor(seat, &mut with);
    let mut replayed = plain.new_initial_state();
    for entry in state.history() {
        replayed.apply_action(entry.action).unwrap();
    }
    let mut without = vec![0.0; plain.observation_size()];
    replayed.observation_tensor(seat, &mut without);
    assert_eq!(with.len(), without.len() + plain.num_distinct_actions());
    assert_eq!(with[..without.len()], without[..]);
    with[without.len()..].to_vec()
}

#[test]
fn scores_observation_is_the_heuristics_score_of_each_action_for_the_seat_to_move() {
    // The white queen on a4 can take the black rook on a8 with the red ace (a move ending on
    // file a) or the red queen (any queen move); the queen is worth more in hand, so playing
    // the ace scores higher by what keeping a red queen is worth (10 score points).
    let fen = "r6k/8/8/8/Q7/8/8/4K3 w - - 0 1";
    let plain_fen = [("fen", fen), ("hand_size", "2")];
    let plain = PokerChessGame::new(parse_params(&ENTRY, plain_fen).unwrap()).unwrap();
    let mut s = dealt(fen, "Ah Qh", "2d 3d", &[("observation", "scores")]);
    let play = |s: &S, text: &str| s.string_to_action(Player::Seat(0), text).unwrap() as usize;
    let block = scores_block(&s, &plain, 0);
    let (ace, queen) = (play(&s, "play Ah"), play(&s, "play Qh"));
    assert!((block[ace] - block[queen] - 10.0 / 1000.0).abs() < 1e-6, "{block:?}");
    assert!(scores_block(&s, &plain, 1).iter().all(|&x| x == 0.0));
    act(&mut s, "play Ah");
    let block = scores_block(&s, &plain, 0);
    let best = |block: &[f32], s: &S| {
        let legal = s.legal_actions();
        for (a, &x) in block.iter().enumerate() {
            assert!(x == 0.0 || legal.contains(&(a as u32)), "illegal action {a} scored");
        }
        *legal
            .iter()
            .max_by(|&&a, &&b| block[a as usize].total_cmp(&block[b as usize]).then(b.cmp(&a)))
            .unwrap()
    };
    assert_eq!(s.action_to_string(Player::Seat(0), best(&block, &s)), "a4a8");
    // The rook taken is worth 5 pawns: 500 score points over the quietest move at least.
    let quiet = play(&s, "a4a5");
    assert!(block[best(&block, &s) as usize] - block[quiet] >= 0.5, "{block:?}");

    // Whole heuristic games: the block is 0 for the seat not to move and off the legal
    // actions, and the heuristic's own choice is a best-scored action (among the discards,
    // when it discards).
    let game = crate::registry::make_game_from_string("poker_chess(observation=scores)").unwrap();
    let plain = crate::registry::make_game_from_string("poker_chess").unwrap();
    let mut rng = crate::env::GameRng::new(5);
    let (mut decisions, mut discards) = (0, 0);
    for _ in 0..3 {
        let mut s = game.new_initial_state();
        while !s.is_terminal() {
            let a = match s.current_player() {
                Player::Chance => s.sample_chance_outcome(&mut rng),
                Player::Seat(p) => {
                    assert!(scores_block(s.as_ref(), plain.as_ref(), 1 - p).iter().all(|&x| x == 0.0));
                    let block = scores_block(s.as_ref(), plain.as_ref(), p);
                    let legal = s.legal_actions();
                    let a = s.heuristic_action(p, &mut rng);
                    let discard = a >= CARD_BASE + 5;
                    discards += usize::from(discard);
                    let top = legal
                        .iter()
                        .filter(|&&b| !discard || b >= CARD_BASE + 5)
                        .map(|&b| block[b as usize])
                        .fold(f32::MIN, f32::max);
                    assert_eq!(block[a as usize], top, "{:?}", s.history());
                    for (b, &x) in block.iter().enumerate() {
                        assert!(x == 0.0 || legal.contains(&(b as u32)));
                    }
                    decisions += 1;
                    a
                }
                _ => unreachable!(),
            };
            s.apply_action(a).unwrap();
        }
    }
    assert!(decisions > 100 && discards > 0, "{decisions} decisions, {discards} discards");
}
