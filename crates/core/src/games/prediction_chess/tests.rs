//! Every example of the rules (docs/games/prediction_chess.md) and of the original Physical
//! Edition, the edge cases decided in the docs, and errors.
//! Positions are set up through the public `fen` parameter.

use super::*;
use crate::chess::piece_char;
use crate::game::{ErrorKind, Player, State};
use crate::registry::make_game;

fn new_game(params: &[(&str, &str)]) -> Box<dyn State> {
    make_game("prediction_chess", params.iter().copied())
        .unwrap()
        .new_initial_state()
}

fn from_fen(fen: &str) -> Box<dyn State> {
    new_game(&[("fen", fen)])
}

fn pc(state: &dyn State) -> &PredictionChessState {
    crate::rules::rules_of(state).unwrap()
}

/// Applies one joint action given as strings.
fn act(state: &mut dyn State, white: &str, black: &str) {
    let joint = [
        state.string_to_action(Player::Seat(0), white).unwrap(),
        state.string_to_action(Player::Seat(1), black).unwrap(),
    ];
    state
        .apply_actions(&joint)
        .unwrap_or_else(|e| panic!("{white} / {black}: {e}"));
}

/// Plays a turn: both moves, then white's and black's predictions.
fn turn(state: &mut dyn State, moves: [&str; 2], predictions: [&str; 2]) {
    act(state, moves[0], moves[1]);
    act(state, predictions[0], predictions[1]);
}

/// The FEN letter on a square ('.' when empty).
fn at(state: &dyn State, square: &str) -> char {
    let sq: Square = square.parse().unwrap();
    pc(state)
        .board()
        .on(sq)
        .map_or('.', |(c, p)| piece_char(c, p))
}

fn legal_strings(state: &dyn State, seat: usize) -> Vec<String> {
    state
        .legal_actions_for(Player::Seat(seat))
        .into_iter()
        .map(|a| state.action_to_string(Player::Seat(seat), a))
        .collect()
}

// A normal battle: black's rook attacks white's knight, which stays.
const NORMAL_BATTLE: &str = "k7/8/8/3r4/8/8/3N4/K7 w - - 0 1";

#[test]
fn a_normal_battle_predicted_attacker_dies() {
    let mut s = from_fen(NORMAL_BATTLE);
    turn(s.as_mut(), ["a1b1", "d5d2"], ["d5d2", "a1a2"]);
    assert_eq!(at(s.as_ref(), "d2"), 'N');
    assert_eq!(at(s.as_ref(), "d5"), '.');
    let rec = pc(s.as_ref()).turns()[0];
    assert_eq!(rec.resolution.predicted, [false, true]);
    assert_eq!(rec.resolution.battles, 1);
}

#[test]
fn a_normal_battle_unpredicted_attacker_wins() {
    let mut s = from_fen(NORMAL_BATTLE);
    turn(s.as_mut(), ["a1b1", "d5d2"], ["d5d3", "a1a2"]);
    assert_eq!(at(s.as_ref(), "d2"), 'r');
    assert_eq!(at(s.as_ref(), "b1"), 'K');
}

// Swapping position: two rooks attack each other along the d-file.
const SWAP: &str = "3r3k/8/8/8/8/8/8/3R3K w - - 0 1";

#[test]
fn swapping_position_all_four_outcomes() {
    // Both predicted: both die.
    let mut s = from_fen(SWAP);
    turn(s.as_mut(), ["d1d8", "d8d1"], ["d8d1", "d1d8"]);
    assert_eq!((at(s.as_ref(), "d1"), at(s.as_ref(), "d8")), ('.', '.'));
    // Neither predicted: they swap.
    let mut s = from_fen(SWAP);
    turn(s.as_mut(), ["d1d8", "d8d1"], ["d8d2", "d1d2"]);
    assert_eq!((at(s.as_ref(), "d1"), at(s.as_ref(), "d8")), ('r', 'R'));
    assert_eq!(pc(s.as_ref()).turns()[0].resolution.battles, 0);
    // Only white predicted correctly: black's rook dies.
    let mut s = from_fen(SWAP);
    turn(s.as_mut(), ["d1d8", "d8d1"], ["d8d1", "d1d2"]);
    assert_eq!((at(s.as_ref(), "d1"), at(s.as_ref(), "d8")), ('.', 'R'));
    // Only black predicted correctly: white's rook dies.
    let mut s = from_fen(SWAP);
    turn(s.as_mut(), ["d1d8", "d8d1"], ["d8d2", "d1d8"]);
    assert_eq!((at(s.as_ref(), "d1"), at(s.as_ref(), "d8")), ('r', '.'));
}

#[test]
fn avoiding_an_attack_no_battle_whatever_the_predictions() {
    let fen = "k7/8/8/8/6b1/8/4N3/K7 w - - 0 1";
    for predictions in [["g4e2", "e2c3"], ["g4f3", "e2g1"]] {
        let mut s = from_fen(fen);
        turn(s.as_mut(), ["e2c3", "g4e2"], predictions);
        assert_eq!(at(s.as_ref(), "e2"), 'b');
        assert_eq!(at(s.as_ref(), "c3"), 'N');
        assert_eq!(pc(s.as_ref()).turns()[0].resolution.battles, 0);
    }
}

// A battle without an attack: two knights jump to the same empty square.
const SAME_SQUARE: &str = "k7/8/5n2/8/8/2N5/8/K7 w - - 0 1";

#[test]
fn a_battle_without_an_attack_all_four_outcomes() {
    let cases = [
        (["f6d5", "c3d5"], '.'), // both predicted: both die
        (["f6e4", "c3e4"], '.'), // neither: both die
        (["f6d5", "c3e4"], 'N'), // only white predicted correctly: black dies
        (["f6e4", "c3d5"], 'n'), // only black predicted correctly: white dies
    ];
    for (predictions, survivor) in cases {
        let mut s = from_fen(SAME_SQUARE);
        turn(s.as_mut(), ["c3d5", "f6d5"], predictions);
        assert_eq!(at(s.as_ref(), "d5"), survivor, "{predictions:?}");
        assert_eq!(at(s.as_ref(), "c3"), '.');
        assert_eq!(at(s.as_ref(), "f6"), '.');
    }
}

// The white king on g1 is attacked by the rook on a1; a bishop on e4 watches g2.
const KING_HUNT: &str = "k7/8/8/8/4b3/8/7P/r5K1 w - - 0 1";

#[test]
fn attacking_a_king_wins_whatever_the_prediction() {
    for white_prediction in ["a1g1", "a1b1"] {
        let mut s = from_fen(KING_HUNT);
        turn(s.as_mut(), ["h2h3", "a1g1"], [white_prediction, "h2h3"]);
        assert!(s.is_terminal());
        assert_eq!(s.returns(), vec![-1.0, 1.0]);
        assert_eq!(pc(s.as_ref()).end_reason(), Some(EndReason::KingCaptured));
        // A king cannot fight: the attacker survives even when predicted.
        assert_eq!(at(s.as_ref(), "g1"), 'r');
    }
}

#[test]
fn saving_your_king_by_moving_it_away() {
    let mut s = from_fen(KING_HUNT);
    turn(s.as_mut(), ["g1f2", "a1g1"], ["a1g1", "g1f2"]);
    assert!(!s.is_terminal());
    assert_eq!(at(s.as_ref(), "f2"), 'K');
    assert_eq!(at(s.as_ref(), "g1"), 'r');
}

#[test]
fn tricking_the_king_and_saving_it_from_the_trick() {
    // White expects the rook and steps to g2, but the bishop meets the king there.
    let mut s = from_fen(KING_HUNT);
    turn(s.as_mut(), ["g1g2", "e4g2"], ["a1g1", "g1g2"]);
    assert!(s.is_terminal());
    assert_eq!(s.returns(), vec![-1.0, 1.0]);
    assert_eq!(at(s.as_ref(), "g2"), 'b');
    // Even predicting the bishop does not help: the king loses any battle.
    let mut s = from_fen(KING_HUNT);
    turn(s.as_mut(), ["g1g2", "e4g2"], ["e4g2", "h2h3"]);
    assert_eq!(s.returns(), vec![-1.0, 1.0]);
    // Moving to a square no black move reaches saves the king.
    let mut s = from_fen(KING_HUNT);
    turn(s.as_mut(), ["g1f2", "e4g2"], ["a1g1", "g1g2"]);
    assert!(!s.is_terminal());
    assert_eq!((at(s.as_ref(), "f2"), at(s.as_ref(), "g2")), ('K', 'b'));
}

#[test]
fn pawn_basic_moves() {
    let mut s = new_game(&[]);
    let white = legal_strings(s.as_ref(), 0);
    assert!(white.contains(&"e2e4".to_string()) && white.contains(&"e2e3".to_string()));
    turn(s.as_mut(), ["e2e4", "e7e5"], ["d7d5", "d2d4"]);
    assert_eq!((at(s.as_ref(), "e4"), at(s.as_ref(), "e5")), ('P', 'p'));
    // Facing pawns are stuck.
    assert!(!legal_strings(s.as_ref(), 0).contains(&"e4e5".to_string()));
}

#[test]
fn pawns_battle_without_attack_all_four_outcomes() {
    let fen = "k7/8/3p4/8/3P4/8/8/K7 w - - 0 1";
    let cases = [
        (["d6d5", "d4d5"], '.'),
        (["a8a7", "a1a2"], '.'),
        (["d6d5", "a1a2"], 'P'),
        (["a8a7", "d4d5"], 'p'),
    ];
    for (predictions, survivor) in cases {
        let mut s = from_fen(fen);
        turn(s.as_mut(), ["d4d5", "d6d5"], predictions);
        assert_eq!(at(s.as_ref(), "d5"), survivor, "{predictions:?}");
    }
}

#[test]
fn stuck_pawns_facing_each_other() {
    let mut s = from_fen("k7/8/8/3p4/3P4/8/8/K7 w - - 0 1");
    assert!(!legal_strings(s.as_ref(), 0).contains(&"d4d5".to_string()));
    assert!(!legal_strings(s.as_ref(), 1).contains(&"d5d4".to_string()));
    let before = s.serialize();
    let d4d5 = pair_action(Square::D4, Square::D5).unwrap();
    let a8a7 = pair_action(Square::A8, Square::A7).unwrap();
    let err = s.apply_actions(&[d4d5, a8a7]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("cannot move to d5"), "{err}");
    assert_eq!(s.serialize(), before);
}

#[test]
fn stuck_pawn_facing_a_piece_that_leaves() {
    let mut s = from_fen("k7/8/8/3n4/3P4/8/8/K7 w - - 0 1");
    // The knight leaves this turn, but the pawn was blocked at the start of the turn.
    assert!(!legal_strings(s.as_ref(), 0).contains(&"d4d5".to_string()));
    turn(s.as_mut(), ["a1a2", "d5f6"], ["a8a7", "a1b1"]);
    // Next turn the square is empty: now it may move.
    assert!(legal_strings(s.as_ref(), 0).contains(&"d4d5".to_string()));
}

#[test]
fn pawn_changes_file_without_battle() {
    // The attacked pawn steps forward, past the attacker.
    let mut s = from_fen("k7/8/8/3p4/4P3/8/8/K7 w - - 0 1");
    turn(s.as_mut(), ["e4d5", "d5d4"], ["d5d4", "e4d5"]);
    assert_eq!((at(s.as_ref(), "d5"), at(s.as_ref(), "d4")), ('P', 'p'));
    assert_eq!(pc(s.as_ref()).turns()[0].resolution.battles, 0);
    // The attacked piece jumps away.
    let mut s = from_fen("k7/8/8/3n4/4P3/8/8/K7 w - - 0 1");
    turn(s.as_mut(), ["e4d5", "d5b6"], ["d5b6", "e4d5"]);
    assert_eq!((at(s.as_ref(), "d5"), at(s.as_ref(), "b6")), ('P', 'n'));
    assert_eq!(pc(s.as_ref()).turns()[0].resolution.battles, 0);
}

#[test]
fn pawns_swapping_all_four_outcomes() {
    let fen = "k7/8/8/3p4/4P3/8/8/K7 w - - 0 1";
    let cases = [
        (["d5e4", "e4d5"], ('.', '.')),
        (["a8a7", "a1a2"], ('p', 'P')),
        (["d5e4", "a1a2"], ('.', 'P')),
        (["a8a7", "e4d5"], ('p', '.')),
    ];
    for (predictions, (e4, d5)) in cases {
        let mut s = from_fen(fen);
        turn(s.as_mut(), ["e4d5", "d5e4"], predictions);
        assert_eq!(
            (at(s.as_ref(), "e4"), at(s.as_ref(), "d5")),
            (e4, d5),
            "{predictions:?}"
        );
    }
}

#[test]
fn illegal_diagonal_pawn_move() {
    let mut s = from_fen("k7/8/8/8/4P3/8/8/K7 w - - 0 1");
    assert!(!legal_strings(s.as_ref(), 0).contains(&"e4d5".to_string()));
    let before = s.serialize();
    let joint = [
        pair_action(Square::E4, Square::D5).unwrap(),
        pair_action(Square::A8, Square::A7).unwrap(),
    ];
    let err = s.apply_actions(&joint).unwrap_err();
    assert!(err.to_string().contains("e4d5"), "{err}");
    assert_eq!(s.serialize(), before);
}

#[test]
fn three_deaths_in_one_turn_are_all_recorded() {
    // White's king steps onto Black's king, which stays put (both kings die), while Black's
    // rook takes White's knight, unpredicted: three pieces die in one turn.
    let mut s = from_fen("r7/8/8/4k3/4K3/8/N7/8 w - - 0 1");
    turn(s.as_mut(), ["e4e5", "a8a2"], ["a8a7", "e4d4"]);
    let rec = pc(s.as_ref()).turns()[0];
    assert_eq!(rec.resolution.deaths().count(), 3, "{:?}", rec.resolution);
    assert_eq!(at(s.as_ref(), "a2"), 'r');
}

#[test]
fn two_battles_in_one_turn() {
    // Each queen lands on a piece of the other side that stays.
    let mut s = from_fen("k7/8/8/2n5/3Q1q2/6B1/8/K7 w - - 0 1");
    turn(s.as_mut(), ["d4c5", "f4g3"], ["f4g3", "a1a2"]);
    // White's attack was not predicted (the knight dies); black's was (its queen dies).
    let rec = pc(s.as_ref()).turns()[0];
    assert_eq!(rec.resolution.battles, 2);
    assert_eq!(rec.resolution.deaths().count(), 2);
    assert_eq!(at(s.as_ref(), "c5"), 'Q');
    assert_eq!(at(s.as_ref(), "g3"), 'B');
    assert_eq!(at(s.as_ref(), "f4"), '.');
}

#[test]
fn a_move_onto_a_square_the_attacked_piece_leaves_simply_lands() {
    // Black's rook takes aim at d2 while white's knight leaves d2 for f3: no battle.
    let mut s = from_fen(NORMAL_BATTLE);
    turn(s.as_mut(), ["d2f3", "d5d2"], ["d5d2", "d2f3"]);
    assert_eq!((at(s.as_ref(), "d2"), at(s.as_ref(), "f3")), ('r', 'N'));
    // Moving into the square the other side's mover vacates (not a swap) also just lands.
    let mut s = from_fen("k7/8/8/3r4/8/8/8/K2R4 w - - 0 1");
    turn(s.as_mut(), ["d1d5", "d5h5"], ["d5h5", "d1d5"]);
    assert_eq!((at(s.as_ref(), "d5"), at(s.as_ref(), "h5")), ('R', 'r'));
}

#[test]
fn both_kings_dying_is_a_draw() {
    let mut s = from_fen("8/8/3k4/8/3K4/8/8/8 w - - 0 1");
    turn(s.as_mut(), ["d4d5", "d6d5"], ["d6d5", "d4d5"]);
    assert!(s.is_terminal());
    assert_eq!(s.returns(), vec![0.0, 0.0]);
    assert_eq!(pc(s.as_ref()).end_reason(), Some(EndReason::BothKings));
}

#[test]
fn a_king_never_captures() {
    // The king steps onto a knight that stays: the king dies, the knight lives.
    let mut s = from_fen("k7/8/8/8/8/8/1n6/K7 w - - 0 1");
    turn(s.as_mut(), ["a1b2", "a8a7"], ["a8b8", "a1b1"]);
    assert_eq!(s.returns(), vec![-1.0, 1.0]);
    assert_eq!(at(s.as_ref(), "b2"), 'n');
}

#[test]
fn promotion_lost_needs_a_lost_piece() {
    // Nothing lost (a full set of officers): the pawn may not step onto the last rank.
    let full = "r1bqkb1r/1P6/8/8/8/8/8/RNBQKBNR w - - 0 1";
    let s = from_fen(full);
    let white = legal_strings(s.as_ref(), 0);
    assert!(white.iter().all(|m| !m.starts_with("b7")), "{white:?}");
    let err = s
        .clone()
        .apply_actions(&[
            s.string_to_action(Player::Seat(0), "b7b8q").unwrap(),
            s.string_to_action(Player::Seat(1), "a8a7").unwrap(),
        ])
        .unwrap_err();
    assert!(
        err.to_string().contains("no piece type has been lost") || err.to_string().contains("b7"),
        "{err}"
    );
    // Only a rook lost: promotion to a rook, not a queen.
    let mut s = from_fen("4k3/1P6/8/8/8/8/8/1NBQKBNR w - - 0 1");
    let white = legal_strings(s.as_ref(), 0);
    assert!(white.contains(&"b7b8r".to_string()));
    assert!(!white.contains(&"b7b8q".to_string()));
    let before = s.serialize();
    let q = s.string_to_action(Player::Seat(0), "b7b8q").unwrap();
    let k = s.string_to_action(Player::Seat(1), "e8e7").unwrap();
    let err = s.apply_actions(&[q, k]).unwrap_err();
    assert!(err.to_string().contains("not allowed"), "{err}");
    assert_eq!(s.serialize(), before);
    // A plain b7b8 (no piece) is refused with the choices named.
    let plain = pair_action(Square::B7, Square::B8).unwrap();
    let err = s.apply_actions(&[plain, k]).unwrap_err();
    assert!(err.to_string().contains("promotes"), "{err}");
    turn(s.as_mut(), ["b7b8r", "e8e7"], ["e8e7", "b7b8"]);
    assert_eq!(at(s.as_ref(), "b8"), 'R');
}

#[test]
fn promotion_queen_always_queens() {
    let mut s = new_game(&[
        ("fen", "r1bqkb1r/1P6/8/8/8/8/8/RNBQKBNR w - - 0 1"),
        ("promotion", "queen"),
    ]);
    let white = legal_strings(s.as_ref(), 0);
    assert!(white.contains(&"b7b8q".to_string()) && white.contains(&"b7a8q".to_string()));
    assert!(!white.contains(&"b7b8r".to_string()));
    turn(s.as_mut(), ["b7a8q", "e8e7"], ["e8e7", "b7b8"]);
    assert_eq!(at(s.as_ref(), "a8"), 'Q');
}

#[test]
fn a_pawn_that_dies_in_battle_does_not_promote() {
    let fen = "r6k/4P3/8/8/8/8/8/4K3 w - - 0 1";
    // Neither predicted: both die on e8, no promotion.
    let mut s = new_game(&[("fen", fen), ("promotion", "queen")]);
    turn(s.as_mut(), ["e7e8q", "a8e8"], ["h8h7", "e1e2"]);
    assert_eq!(at(s.as_ref(), "e8"), '.');
    // Black predicted the pawn: the pawn dies, the rook stands on e8.
    let mut s = new_game(&[("fen", fen), ("promotion", "queen")]);
    turn(s.as_mut(), ["e7e8q", "a8e8"], ["h8h7", "e7e8"]);
    assert_eq!(at(s.as_ref(), "e8"), 'r');
    // White predicted the rook: the rook dies and the pawn promotes.
    let mut s = new_game(&[("fen", fen), ("promotion", "queen")]);
    turn(s.as_mut(), ["e7e8q", "a8e8"], ["a8e8", "e1e2"]);
    assert_eq!(at(s.as_ref(), "e8"), 'Q');
}

#[test]
fn max_turns_is_a_draw() {
    let mut s = new_game(&[("max_turns", "2")]);
    turn(s.as_mut(), ["g1f3", "g8f6"], ["g8f6", "g1f3"]);
    assert!(!s.is_terminal());
    turn(s.as_mut(), ["f3g1", "f6g8"], ["f6g8", "f3g1"]);
    assert!(s.is_terminal());
    assert_eq!(s.returns(), vec![0.0, 0.0]);
    assert_eq!(pc(s.as_ref()).end_reason(), Some(EndReason::MaxTurns));
}

#[test]
fn fifty_quiet_turns_draw_when_on() {
    for (fifty, over) in [("true", true), ("false", false)] {
        let mut s = new_game(&[("fifty_move", fifty), ("max_turns", "60")]);
        // A pawn move resets the count.
        turn(s.as_mut(), ["e2e3", "e7e6"], ["e7e6", "e2e3"]);
        for i in 0..FIFTY_MOVE_TURNS {
            let (w, b) = if i % 2 == 0 {
                ("g1f3", "g8f6")
            } else {
                ("f3g1", "f6g8")
            };
            assert!(!s.is_terminal(), "ended early at quiet turn {i}");
            turn(s.as_mut(), [w, b], [b, w]);
        }
        assert_eq!(s.is_terminal(), over);
        if over {
            assert_eq!(pc(s.as_ref()).end_reason(), Some(EndReason::FiftyMove));
        }
    }
}

#[test]
fn pass_is_only_legal_without_moves_and_resolves_as_no_move() {
    let mut s = new_game(&[]);
    let before = s.serialize();
    let err = s
        .apply_actions(&[PASS, pair_action(Square::E7, Square::E5).unwrap()])
        .unwrap_err();
    assert!(err.to_string().contains("pass is only legal"), "{err}");
    assert_eq!(s.serialize(), before);
    // A passing side's piece that stays can still be attacked; its prediction still counts.
    let mut board = Board::from_fen(NORMAL_BATTLE).unwrap();
    let attack = Move::from_uci("d5d2").unwrap();
    let res = rules::resolve(
        &mut board,
        [None, Some(attack)],
        [
            Some(Prediction {
                from: Square::D5,
                to: Square::D2,
            }),
            None,
        ],
    );
    assert_eq!(res.predicted, [false, true]);
    assert_eq!(board.on(Square::D2).map(|x| x.1), Some(Piece::Knight));
    let mut board = Board::from_fen(NORMAL_BATTLE).unwrap();
    rules::resolve(&mut board, [None, Some(attack)], [None, None]);
    assert_eq!(board.on(Square::D2).map(|x| x.1), Some(Piece::Rook));
}

#[test]
fn errors_leave_the_state_unchanged() {
    let mut s = new_game(&[]);
    let before = s.serialize();
    let e2e4 = s.string_to_action(Player::Seat(0), "e2e4").unwrap();
    let e7e5 = s.string_to_action(Player::Seat(1), "e7e5").unwrap();
    // Wrong joint-action lengths.
    for joint in [vec![], vec![e2e4], vec![e2e4, e7e5, e7e5]] {
        let err = s.apply_actions(&joint).unwrap_err();
        assert!(err.to_string().contains("exactly 2"), "{err}");
    }
    // A single action at a simultaneous node.
    assert!(
        s.apply_action(e2e4)
            .unwrap_err()
            .to_string()
            .contains("simultaneous")
    );
    // Out of range, wrong colour, and a move for the other seat.
    assert!(s.apply_actions(&[99_999, e7e5]).is_err());
    assert!(
        s.apply_actions(&[e7e5, e7e5])
            .unwrap_err()
            .to_string()
            .contains("not White")
    );
    assert_eq!(s.serialize(), before);
    // Illegal prediction: a move the opponent cannot make.
    act(s.as_mut(), "e2e4", "e7e5");
    let mid = s.serialize();
    let bad = pair_action(Square::E7, Square::E4).unwrap();
    let good = s.string_to_action(Player::Seat(1), "predict e2e4").unwrap();
    let err = s.apply_actions(&[bad, good]).unwrap_err();
    assert!(err.to_string().contains("cannot move to e4"), "{err}");
    let err = s.apply_actions(&[PROMOTION_BASE, good]).unwrap_err();
    assert!(err.to_string().contains("without promotion"), "{err}");
    assert_eq!(s.serialize(), mid);
    // Bad strings.
    assert!(
        s.string_to_action(Player::Seat(0), "predict e7e5q")
            .is_err()
    );
    assert!(s.string_to_action(Player::Seat(0), "zz").is_err());
    assert!(s.string_to_action(Player::Chance, "e2e4").is_err());
    // Bad parameters.
    for fen in [
        "nonsense",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "kk6/8/8/8/8/8/8/K7 w - - 0 1",
    ] {
        let err = make_game("prediction_chess", [("fen", fen)]).unwrap_err();
        assert!(err.to_string().contains("fen"), "{err}");
    }
}

#[test]
fn seats_see_only_their_own_pending_move() {
    let mut s = new_game(&[]);
    act(s.as_mut(), "e2e4", "d7d5");
    let white = s.information_state_string(0);
    let black = s.information_state_string(1);
    assert!(white.contains("e2e4") && !white.contains("d7d5"), "{white}");
    assert!(black.contains("d7d5") && !black.contains("e2e4"), "{black}");
    assert!(!s.observation_string(0).contains("d7d5"));
    assert!(!s.observation_string(1).contains("e2e4"));
    let public = s.view(None).to_string();
    assert!(!public.contains("e2e4") && !public.contains("d7d5"));
    assert_eq!(
        s.view(Some(0))["my_move"],
        serde_json::json!({"kind": "move", "from": "e2", "to": "e4", "uci": "e2e4"})
    );
    // Both revealed after the predictions.
    act(s.as_mut(), "predict d7d5", "predict e2e4");
    assert!(s.information_state_string(0).contains("d7d5"));
    let turn = &s.view(None)["turns"][0];
    assert_eq!(turn["moves"][0]["uci"], "e2e4");
    assert_eq!(turn["moves"][1]["uci"], "d7d5");
    assert_eq!(
        turn["predictions"][0],
        serde_json::json!({"kind": "predict", "from": "d7", "to": "d5"})
    );
}

#[test]
fn the_view_board_is_a_list_of_cells() {
    let s = new_game(&[]);
    let view = s.view(None);
    let board = view["board"].as_array().unwrap();
    assert_eq!(board.len(), 32);
    let king = board.iter().find(|c| c["square"] == "e1").unwrap();
    assert_eq!(
        *king,
        serde_json::json!({"x": 4, "y": 0, "square": "e1", "piece": "K", "owner": 0})
    );
    let knight = board.iter().find(|c| c["square"] == "g8").unwrap();
    assert_eq!(
        (&knight["piece"], &knight["owner"]),
        (&serde_json::json!("n"), &serde_json::json!(1))
    );
    assert_eq!(
        view["seats"][1],
        serde_json::json!({"seat": 1, "color": "black"})
    );
    assert_eq!(view["phase"], "move");
}

#[test]
fn action_encoding_round_trips() {
    for (color, text) in [
        (Color::White, "c7b8n"),
        (Color::Black, "h2h1q"),
        (Color::White, "a7a8r"),
    ] {
        let mv = Move::from_uci(text).unwrap();
        assert_eq!(action_move(color, move_action(mv).unwrap()), Some(mv));
    }
    assert_eq!(action_move(Color::White, PASS), None);
    assert_eq!(pair_action(Square::A1, Square::B4), None);
    assert_eq!(NUM_ACTIONS, 1889);
    assert_eq!(
        action_pair(pair_action(Square::G1, Square::F3).unwrap()),
        (Square::G1, Square::F3)
    );
}
