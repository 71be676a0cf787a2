//! Hold'em Poker Chess: every example of docs/games/holdem_chess.md and of the original, set up by
//! dealing exactly the cards a test needs and playing legal actions by their strings.

use std::collections::BTreeSet;

use super::grid::{Window, attacked_cells, attacks};
use super::showdown::{GridCard, showdown};
use super::*;
use crate::cards::{Card, CardSet, parse_cards};
use crate::game::{ErrorKind, Player, State};
use crate::poker::eval::{Category, evaluate_partial};
use crate::registry;
use crate::rules::{Played, rules_of};

/// A state of the game under test: the rules with their history (`rules()` for the rules).
type Table = Played<HoldemState>;

fn make(spec: &[(&str, &str)]) -> Table {
    let entry = registry::entry("holdem_chess").unwrap();
    let params = registry::parse_params(entry, spec.iter().copied()).unwrap();
    Played::new(HoldemChessGame::new(params).unwrap().initial_state())
}

fn deal(state: &mut Table, cards: &str) {
    for card in parse_cards(cards).unwrap() {
        assert!(state.is_chance_node(), "not a chance node:\n{state}");
        state.apply_action(card.0 as u32).unwrap();
    }
}

fn act(state: &mut Table, text: &str) {
    let player = state.current_player();
    let action = state
        .string_to_action(player, text)
        .unwrap_or_else(|e| panic!("{text}: {e}\n{state}"));
    state
        .apply_action(action)
        .unwrap_or_else(|e| panic!("{text}: {e}\n{state}"));
}

fn acts(state: &mut Table, texts: &[&str]) {
    for t in texts {
        act(state, t);
    }
}

fn set(cards: &str) -> CardSet {
    parse_cards(cards).unwrap().into_iter().collect()
}

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

/// The error of an action given by id, checking that the state did not change.
fn refused(state: &mut Table, action: u32) -> String {
    let before = state.serialize();
    let shown = state.to_string();
    let err = state.apply_action(action).unwrap_err();
    assert_eq!(state.serialize(), before);
    assert_eq!(state.to_string(), shown);
    err.to_string()
}

fn action_of(state: &Table, text: &str) -> u32 {
    state
        .string_to_action(state.current_player(), text)
        .unwrap()
}

#[test]
fn seed_partial_hand_examples() {
    let v = |s: &str| evaluate_partial(&parse_cards(s).unwrap());
    assert!(v("As Ad") > v("Ks Kd Ah 3c 7d"), "AA beats KKA37");
    assert!(v("As Ad 2c") > v("As Ad"), "AA2 beats AA");
    assert!(v("Qs 3d 2c") > v("Js 9d 7c 5h 2s"), "Q32 beats J9752");
    assert!(v("7s 7d Kc") > v("7h 7c Qd 2s 5h"), "77K beats 77Q25");
}

/// The worked showdown example of docs/games/holdem_chess.md, played through the engine with five
/// seats: seat 0 Purple, 1 Blue, 2 Red, 3 and 4 fold after placing.
#[test]
fn worked_showdown_example_through_the_engine() {
    let mut s = make(&[("players", "5")]);
    // Button 0: cards go to seats 1, 2, 3, 4, 0, twice.
    deal(&mut s, "As Ts 9h Js Kd 2c Qd 5d 6d Jh");
    assert_eq!(
        s.rules().hole_cards(0),
        [Some(card("Kd")), Some(card("Jh"))]
    );
    assert_eq!(
        s.rules().hole_cards(2),
        [Some(card("Ts")), Some(card("Qd"))]
    );
    // Preflop: seat 3 first (seat 1 small blind, seat 2 big blind).
    acts(&mut s, &["call", "call", "call", "call", "check"]);
    deal(&mut s, "Ah 2h 3c");
    acts(
        &mut s,
        &[
            "place As@-1,-1",
            "place 2c@2,-1",
            "check",
            "place Qd@-1,-2",
            "check",
            "place 9h@1,1",
            "place 5d@3,1",
            "check",
            "place Js@3,-1",
            "place 6d@4,1",
            "check",
            "place Kd@-1,0",
            "place Jh@2,1",
            "check",
        ],
    );
    // Blue cannot see Red's cards, only where they lie.
    let view = s.view(Some(1));
    let red: Vec<_> = view["board"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["owner"] == 2)
        .collect();
    assert_eq!(red.len(), 1);
    assert!(red[0]["card"].is_null());
    assert_eq!(
        (red[0]["x"].as_i64(), red[0]["y"].as_i64()),
        (Some(-1), Some(-2))
    );
    // Hole cards still held: Blue sees its own faces, every other seat's face down.
    for seat in view["seats"].as_array().unwrap() {
        let cards = seat["cards"].as_array().unwrap();
        assert_eq!(
            cards.len() as u64,
            seat["count"].as_u64().unwrap(),
            "{seat}"
        );
        let own = seat["seat"] == 1;
        assert!(cards.iter().all(|c| c.is_null() != own), "{seat}");
    }
    assert_eq!(
        view["seats"][2]["count"], 1,
        "Red placed one of its two hole cards"
    );
    assert!(
        s.view(None)["seats"]
            .as_array()
            .unwrap()
            .iter()
            .all(|seat| seat["cards"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c.is_null()))
    );
    deal(&mut s, "Tc");
    acts(
        &mut s,
        &[
            "check",
            "place Ts@5,0",
            "raise to 2",
            "fold",
            "fold",
            "call",
            "call",
        ],
    );
    deal(&mut s, "4c");
    acts(&mut s, &["check", "check", "check"]);
    assert!(s.is_terminal());
    let record = &s.rules().records()[0];
    let hand = |seat: usize| record.hands().iter().find(|h| h.seat == seat).unwrap();
    assert_eq!(hand(0).cards, set("Ah As Jh Js Kd"), "Purple: A-A-J-J-K");
    assert_eq!(hand(0).value.category(), Category::TwoPair);
    assert_eq!(hand(1).cards, set("As Ah 2c 2h Tc"), "Blue: A-A-2-2-T");
    assert_eq!(hand(1).value.category(), Category::TwoPair);
    assert_eq!(hand(2).cards, set("Ts Jh Qd Kd Ah"), "Red: T-J-Q-K-A");
    assert_eq!(hand(2).value.category(), Category::Straight);
    assert!(hand(2).value > hand(0).value && hand(0).value > hand(1).value);
    // Pools.
    assert_eq!(hand(0).pool, set("Kd Jh Ah As 4c Js"));
    assert_eq!(hand(1).pool, set("As 2c Ah 9h 2h Tc"));
    assert_eq!(hand(2).pool, set("Ts Qd 4c Tc 3c 2h Ah Kd Jh As"));
    // Red wins the pot of 16 (4 from each of the three, 2 from each folder).
    assert_eq!(s.returns(), vec![-4.0, -4.0, 12.0, -2.0, -2.0]);
    // The folded 9h and Js are revealed because they are attacked; 5d and 6d stay hidden.
    assert!(record.revealed.contains(card("9h")) && record.revealed.contains(card("Js")));
    assert!(!record.revealed.contains(card("5d")) && !record.revealed.contains(card("6d")));
    for seat in 0..5 {
        let view = s.view(Some(seat));
        for g in view["board"].as_array().unwrap() {
            let at = (g["x"].as_i64().unwrap(), g["y"].as_i64().unwrap());
            let hidden = g["card"].is_null();
            let expect_hidden = match at {
                (3, 1) => seat != 3,
                (4, 1) => seat != 4,
                _ => false,
            };
            assert_eq!(hidden, expect_hidden, "seat {seat} at {at:?}: {g}");
        }
    }
    assert!(
        s.view(None)["board"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["card"] == "9h")
    );
}

/// The same layout through the public showdown helper.
#[test]
fn worked_showdown_example_from_a_layout() {
    let g = |c: &str, x: i32, y: i32, owner: Option<usize>| GridCard {
        card: card(c),
        pos: (x, y),
        owner,
    };
    let (purple, blue, red, folded) = (Some(0), Some(1), Some(2), Some(3));
    let grid = [
        g("Ah", 0, 0, None),
        g("2h", 1, 0, None),
        g("3c", 2, 0, None),
        g("Tc", 3, 0, None),
        g("4c", 4, 0, None),
        g("9h", 1, 1, folded),
        g("Js", 3, -1, folded),
        g("5d", 3, 1, folded),
        g("6d", 4, 1, folded),
        g("Kd", -1, 0, purple),
        g("Jh", 2, 1, purple),
        g("As", -1, -1, blue),
        g("2c", 2, -1, blue),
        g("Ts", 5, 0, red),
        g("Qd", -1, -2, red),
    ];
    let live = [
        (0, CardSet::EMPTY),
        (1, CardSet::EMPTY),
        (2, CardSet::EMPTY),
    ];
    let (hands, revealed) = showdown(&live, &grid, false);
    assert_eq!(hands[0].cards, set("Ah As Jh Js Kd"));
    assert_eq!(hands[1].cards, set("As Ah 2c 2h Tc"));
    assert_eq!(hands[2].cards, set("Ts Jh Qd Kd Ah"));
    let best = hands.iter().max_by_key(|h| h.value).unwrap();
    assert_eq!(best.seat, 2, "Red wins");
    assert_eq!(
        revealed,
        set("Ah 2h 3c Tc 4c 9h Js Kd Jh As 2c Ts Qd"),
        "placed cards of the seats still in and every attacked card"
    );
}

#[test]
fn no_chaining_and_the_attacker_must_be_in_the_hand() {
    let g = |c: &str, x: i32, y: i32, owner: Option<usize>| GridCard {
        card: card(c),
        pos: (x, y),
        owner,
    };
    let grid = [
        g("Ah", 0, 0, None),
        g("Kc", 1, 0, None),
        g("Kh", 2, 0, None),
        g("2d", -1, 0, Some(0)),
        g("Ks", 0, 1, Some(1)),
    ];
    // Seat 0's pawn at (-1,0) attacks nothing (centre row); its hand is its own cards only.
    let (hands, _) = showdown(&[(0, set("Ac"))], &grid, false);
    assert_eq!(hands[0].cards, set("Ac 2d"));
    // With centre_pawn=both it attacks (0,1) and (0,-1): the opponent's Ks, but not the cards
    // that Ks attacks (no chaining).
    let (hands, revealed) = showdown(&[(0, set("Ac"))], &grid, true);
    assert_eq!(hands[0].cards, set("Ac 2d Ks"));
    assert!(!revealed.contains(card("Ah")));
    // Using an attacked card needs its attacker: a pair of kings needs 2d in the hand.
    let grid = [
        g("Kh", 0, 0, None),
        g("Qs", -1, 1, Some(0)),
        g("9c", 1, 1, Some(0)),
    ];
    // Qs attacks (0,0) diagonally; 9c (pawn at y=1) attacks (0,0) and (2,0).
    let (hands, _) = showdown(&[(0, set("Kd"))], &grid, false);
    assert_eq!(hands[0].cards, set("Kd Kh Qs 9c"));
}

#[test]
fn attack_sets_of_every_piece() {
    let w = Window::DEFAULT;
    let cells = |c: &str, x: i32, y: i32| -> BTreeSet<(i32, i32)> {
        attacked_cells(card(c), (x, y), &w, false)
            .into_iter()
            .collect()
    };
    let list = |v: &[(i32, i32)]| -> BTreeSet<(i32, i32)> { v.iter().copied().collect() };
    // King: the 8 neighbours, above and below the centre row and in it.
    for (x, y) in [(2, 2), (-1, -1), (5, 0)] {
        let mut want = BTreeSet::new();
        for dx in -1..=1 {
            for dy in -1..=1 {
                if (dx, dy) != (0, 0) {
                    want.insert((x + dx, y + dy));
                }
            }
        }
        assert_eq!(cells("Kd", x, y), want, "king at {x},{y}");
    }
    // Queen: rows, columns and diagonals to the window's edge, never blocked.
    let q = cells("Qd", -1, -2);
    assert!(q.contains(&(1, 0)) && q.contains(&(2, 1)) && q.contains(&(5, 4)));
    assert!(q.contains(&(-1, 4)) && q.contains(&(8, -2)) && q.contains(&(-3, -4)));
    assert!(q.contains(&(-3, 0)) && !q.contains(&(0, 0)) && !q.contains(&(1, -1)));
    assert_eq!(q.len(), 12 + 8 + (6 + 2) + (3 + 2));
    // Bishop (ace): the 4 diagonals.
    assert_eq!(
        cells("As", 1, 1),
        list(&[
            (0, 0),
            (-1, -1),
            (-2, -2),
            (-3, -3),
            (-4, -4),
            (2, 2),
            (3, 3),
            (4, 4),
            (0, 2),
            (-1, 3),
            (-2, 4),
            (2, 0),
            (3, -1),
            (4, -2),
            (5, -3),
            (6, -4),
        ])
    );
    let b = cells("Ac", 1, -2);
    assert!(b.contains(&(0, -1)) && b.contains(&(-1, 0)) && b.contains(&(3, 0)));
    assert!(b.contains(&(4, 1)) && b.contains(&(2, -3)) && !b.contains(&(1, 0)));
    let q = cells("Qc", 3, 2);
    assert!(q.contains(&(3, 0)) && q.contains(&(1, 0)) && q.contains(&(5, 0)));
    assert!(q.contains(&(-4, 2)) && q.contains(&(3, -4)) && !q.contains(&(2, 0)));
    // Rook (ten): its row and column.
    let r = cells("Ts", 5, 0);
    assert_eq!(r.len(), 12 + 8);
    assert!((-4..=8).filter(|&x| x != 5).all(|x| r.contains(&(x, 0))));
    assert!((-4..=4).filter(|&y| y != 0).all(|y| r.contains(&(5, y))));
    let r = cells("Tc", 0, -3);
    assert!(r.contains(&(0, 0)) && r.contains(&(0, 4)) && r.contains(&(8, -3)));
    // Knight (jack): the 8 jumps (clipped by the window).
    assert_eq!(
        cells("Jh", 2, 1),
        list(&[
            (0, 0),
            (4, 0),
            (0, 2),
            (4, 2),
            (1, 3),
            (3, 3),
            (1, -1),
            (3, -1)
        ])
    );
    assert_eq!(
        cells("Jc", -4, -4),
        list(&[(-3, -2), (-2, -3)]),
        "clipped at the corner"
    );
    // Pawns attack one row towards the centre row, diagonally.
    assert_eq!(cells("2c", 2, -1), list(&[(1, 0), (3, 0)]));
    assert_eq!(cells("9h", 1, 1), list(&[(0, 0), (2, 0)]));
    assert_eq!(cells("5d", 0, 3), list(&[(-1, 2), (1, 2)]));
    assert_eq!(cells("7s", 4, -3), list(&[(3, -2), (5, -2)]));
    // In the centre row a pawn attacks nothing, or both vertical diagonals.
    assert!(cells("8s", -2, 0).is_empty());
    let both: BTreeSet<_> = attacked_cells(card("8s"), (-2, 0), &w, true)
        .into_iter()
        .collect();
    assert_eq!(both, list(&[(-3, 1), (-1, 1), (-3, -1), (-1, -1)]));
    // Nothing attacks its own cell.
    for c in ["Kd", "Qd", "As", "Ts", "Jh", "2c"] {
        assert!(!attacks(card(c), (1, 1), (1, 1), true));
    }
}

#[test]
fn heads_up_order_through_the_engine() {
    let mut s = make(&[]);
    // Seat 0 is the button: it posts the small blind, acts first preflop and last after.
    assert_eq!(s.rules().betting().small_blind_seat(), 0);
    deal(&mut s, "2c 3c 4c 5c");
    assert_eq!(
        s.rules().hole_cards(1),
        [Some(card("2c")), Some(card("4c"))]
    );
    assert_eq!(s.current_player(), Player::Seat(0));
    // Cards are placed only after the flop.
    let a = s.rules().config().place_action(0, 0);
    let err = refused(&mut s, a);
    assert!(err.contains("only on the flop"), "{err}");
    acts(&mut s, &["call", "check"]);
    deal(&mut s, "7d 8d 9d");
    assert_eq!(s.current_player(), Player::Seat(1));
    acts(&mut s, &["check"]);
    assert_eq!(s.current_player(), Player::Seat(0));
    acts(&mut s, &["check"]);
    assert!(s.is_chance_node());
}

#[test]
fn placement_legality() {
    let mut s = make(&[]);
    deal(&mut s, "2c 3c Tc 5c");
    acts(&mut s, &["call", "check"]);
    deal(&mut s, "7d 8d 9d");
    let cfg = s.rules().config().clone();
    let cell = |x: i32, y: i32| cfg.window.cell(x, y).unwrap();
    let legal = s.legal_actions();
    // Adjacent cells of the flop: x -1..3, y -1..1, minus the flop cells and the turn cell.
    let cells: BTreeSet<(i32, i32)> = legal
        .iter()
        .filter(|&&a| (a as usize) < cfg.cells)
        .map(|&a| cfg.window.coords(a as usize))
        .collect();
    let mut want = BTreeSet::new();
    for x in -1..=3 {
        for y in -1..=1 {
            want.insert((x, y));
        }
    }
    for c in [(0, 0), (1, 0), (2, 0), (3, 0)] {
        want.remove(&c);
    }
    assert_eq!(cells, want);
    // The turn cell is reserved; the river cell is not adjacent yet; taken and far cells.
    let err = refused(&mut s, cfg.place_action(0, cell(3, 0)));
    assert!(err.contains("reserved for the turn"), "{err}");
    let err = refused(&mut s, cfg.place_action(0, cell(4, 0)));
    assert!(err.contains("reserved for the river"), "{err}");
    let err = refused(&mut s, cfg.place_action(0, cell(0, 0)));
    assert!(err.contains("taken"), "{err}");
    let err = refused(&mut s, cfg.place_action(0, cell(5, 0)));
    assert!(err.contains("not 8-adjacent"), "{err}");
    // Seat 1 (2c Tc) places 2c left of the flop.
    act(&mut s, "place 2c@-1,0");
    let err = refused(&mut s, cfg.place_action(0, cell(-1, 1)));
    assert!(err.contains("already placed"), "{err}");
    let err = s
        .string_to_action(Player::Seat(1), "place 3c@-2,0")
        .unwrap_err();
    assert!(err.to_string().contains("not a hole card"), "{err}");
    // The second card may go next to the first (face-down cards count).
    act(&mut s, "place Tc@-2,1");
    // Folding after placing is refused; checking ends the turn.
    let err = refused(&mut s, cfg.fold_action());
    assert!(err.contains("not possible after placing"), "{err}");
    act(&mut s, "check");
    // The window's edge: outside cells have no action.
    let err = s
        .string_to_action(Player::Seat(0), "place 3c@9,0")
        .unwrap_err();
    assert!(err.to_string().contains("outside the grid window"), "{err}");
    let err = refused(&mut s, cfg.num_actions() as u32);
    assert!(err.contains("action ids run from 0"), "{err}");
    // A small window: the edge of the window limits placements.
    let mut s = make(&[("grid", "-1..5:0..1")]);
    deal(&mut s, "2c 3c Tc 5c");
    acts(&mut s, &["call", "check"]);
    deal(&mut s, "7d 8d 9d");
    let cfg = s.rules().config().clone();
    let cells: BTreeSet<(i32, i32)> = s
        .legal_actions()
        .iter()
        .filter(|&&a| (a as usize) < cfg.cells)
        .map(|&a| cfg.window.coords(a as usize))
        .collect();
    let want: BTreeSet<(i32, i32)> = [(-1, 0), (-1, 1), (0, 1), (1, 1), (2, 1), (3, 1)]
        .into_iter()
        .collect();
    assert_eq!(cells, want);
}

#[test]
fn grid_parameter_is_validated() {
    let entry = registry::entry("holdem_chess").unwrap();
    for bad in [
        "-4,8,-4,4",
        "1..8:-4..4",
        "-4..3:-4..4",
        "-4..8:1..4",
        "-20..20:-20..20",
        "a..b:0..0",
    ] {
        let params = registry::parse_params(entry, [("grid", bad)]).unwrap();
        let err = HoldemChessGame::new(params).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument);
        assert!(err.to_string().contains("grid"), "{err}");
    }
    let params = registry::parse_params(entry, [("small_blind", "3")]).unwrap();
    assert!(
        HoldemChessGame::new(params)
            .unwrap_err()
            .to_string()
            .contains("small_blind")
    );
    assert!(registry::make_game_from_string("holdem_chess(grid=0..4:0..0)").is_ok());
}

#[test]
fn raise_errors_and_minimum_raises() {
    let mut s = make(&[("bet_sizes", "all")]);
    deal(&mut s, "2c 3c 4c 5c");
    // Seat 0 may raise to 4..200.
    let first = action_of(&s, "raise to 4");
    let err = refused(&mut s, first - 1);
    assert!(err.contains("raise-to amounts run from 4 to 200"), "{err}");
    act(&mut s, "raise to 7");
    // A raise of 5: seat 1's minimum is raise to 12.
    let a = action_of(&s, "raise to 11");
    let err = refused(&mut s, a);
    assert!(err.contains("from 12 to 200"), "{err}");
    let a = action_of(&s, "raise to 201");
    let err = refused(&mut s, a);
    assert!(err.contains("to 200"), "{err}");
    assert!(s.string_to_action(Player::Seat(1), "raise to 401").is_err());
    let legal = s.legal_actions();
    assert_eq!(
        legal.len(),
        2 + (200 - 12 + 1),
        "fold, call and every raise-to"
    );
    // Out of turn: seat 0 has no legal actions now, and the game refuses nothing else.
    assert!(s.legal_actions_for(Player::Seat(0)).is_empty());
    act(&mut s, "raise to 200");
    act(&mut s, "call");
    // All in: the board runs out with no decisions.
    assert!(s.is_chance_node());
    deal(&mut s, "Kd Kh Ks Qd Qh");
    assert!(s.is_terminal());
    let err = s.apply_action(0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::FailedPrecondition);
    // Seat 1 (2c 4c) and seat 0 (3c 5c) play their hole cards: 5-3 beats 4-2.
    assert_eq!(s.returns(), vec![200.0, -200.0]);
}

#[test]
fn standard_sizes_are_distinct_and_legal() {
    let mut s = make(&[]);
    deal(&mut s, "2c 3c 4c 5c");
    let texts: Vec<String> = s
        .legal_actions()
        .iter()
        .map(|&a| s.action_to_string(Player::Seat(0), a))
        .collect();
    // Pot after calling is 4: min 4 (= half pot), pot 6, 2x pot 10, all-in 200.
    assert_eq!(
        texts,
        [
            "fold",
            "call 1",
            "raise to 4",
            "raise to 6",
            "raise to 10",
            "raise to 200 (all-in)"
        ]
    );
    // A dealt card cannot be dealt again.
    let mut s = make(&[]);
    deal(&mut s, "2c");
    let err = refused(&mut s, card("2c").0 as u32);
    assert!(err.contains("not in the deck"), "{err}");
}

#[test]
fn split_pot_with_an_odd_chip_through_the_engine() {
    let mut s = make(&[("players", "3")]);
    // Button 0: cards to seats 1, 2, 0, then again.
    deal(&mut s, "2c As Ah 3d Kd Kc");
    // Seat 0 first preflop: call; seat 1 (small blind) folds; seat 2 checks. Pot 5.
    acts(&mut s, &["call", "fold", "check"]);
    deal(&mut s, "7h 8s 9d");
    acts(&mut s, &["check", "check"]);
    deal(&mut s, "Jc");
    acts(&mut s, &["check", "check"]);
    deal(&mut s, "4h");
    acts(&mut s, &["check", "check"]);
    // Seats 2 and 0 both hold A-K (no placements): split 5, the odd chip to seat 2, the first
    // winner left of the button.
    assert!(s.is_terminal());
    assert_eq!(&s.rules().records()[0].won[..3], &[2, 0, 3]);
    assert_eq!(s.returns(), vec![0.0, -1.0, 1.0]);
}

#[test]
fn uncontested_hands_reveal_nothing() {
    let mut s = make(&[]);
    deal(&mut s, "2c 3c 4c 5c");
    acts(&mut s, &["call", "check"]);
    deal(&mut s, "7d 8d 9d");
    acts(&mut s, &["place 2c@-1,0", "raise to 2", "fold"]);
    assert!(s.is_terminal());
    assert!(s.rules().records()[0].hands().is_empty());
    assert!(s.rules().records()[0].revealed.is_empty());
    assert_eq!(s.returns(), vec![-2.0, 2.0]);
    let view = s.view(Some(0));
    let placed = &view["board"].as_array().unwrap()[3];
    assert!(placed["card"].is_null(), "{placed}");
}

#[test]
fn ten_players() {
    let mut s = make(&[("players", "10")]);
    assert_eq!(
        (
            s.rules().betting().small_blind_seat(),
            s.rules().betting().big_blind_seat()
        ),
        (1, 2)
    );
    let deck = "2c 2d 2h 2s 3c 3d 3h 3s 4c 4d 4h 4s 5c 5d 5h 5s 6c 6d 6h 6s";
    deal(&mut s, deck);
    assert_eq!(s.current_player(), Player::Seat(3));
    for _ in 0..9 {
        act(&mut s, "call");
    }
    act(&mut s, "check");
    deal(&mut s, "Ac Ad Ah");
    assert_eq!(s.current_player(), Player::Seat(1));
    for street in 0..3 {
        for _ in 0..10 {
            act(&mut s, "check");
        }
        if street < 2 {
            deal(&mut s, ["Kc", "Kd"][street]);
        }
    }
    assert!(s.is_terminal());
    let r = s.returns();
    assert_eq!(r.iter().sum::<f64>(), 0.0);
    assert!(r.iter().any(|&x| x > 0.0));
}

#[test]
fn allin_place_gives_placement_turns() {
    let mut s = make(&[("allin_place", "true")]);
    deal(&mut s, "2c 3c Tc 5c");
    acts(&mut s, &["raise to 200 (all-in)", "call"]);
    deal(&mut s, "7d 8d 9d");
    // Both are all-in: each gets a placement turn, from left of the button.
    assert_eq!(s.rules().phase(), Phase::Place);
    assert_eq!(s.current_player(), Player::Seat(1));
    let texts: Vec<String> = s
        .legal_actions()
        .iter()
        .map(|&a| s.action_to_string(Player::Seat(1), a))
        .collect();
    assert_eq!(texts.last().unwrap(), "done");
    assert!(!texts.contains(&"fold".to_string()));
    let a = s.rules().config().fold_action();
    let err = refused(&mut s, a);
    assert!(err.contains("only placements and done"), "{err}");
    acts(&mut s, &["place 2c@-1,0", "done"]);
    assert_eq!(s.current_player(), Player::Seat(0));
    acts(&mut s, &["place 3c@3,1", "done"]);
    assert!(s.is_chance_node());
    deal(&mut s, "Kd");
    // Seat 1 still holds Tc; seat 0 holds 5c.
    acts(&mut s, &["done", "done"]);
    deal(&mut s, "Kh");
    acts(&mut s, &["done", "done"]);
    assert!(s.is_terminal());
    // Without allin_place nobody decides after the all-in.
    let mut s = make(&[]);
    deal(&mut s, "2c 3c Tc 5c");
    acts(&mut s, &["raise to 200 (all-in)", "call"]);
    deal(&mut s, "7d 8d 9d Kd Kh");
    assert!(s.is_terminal());
}

#[test]
fn several_hands_carry_stacks_and_rotate_the_button() {
    let mut s = make(&[("hands", "3"), ("stack", "20")]);
    deal(&mut s, "2c 3c 4c 5c");
    acts(&mut s, &["raise to 4", "fold"]);
    // Hand 2: seat 1 is the button, seat 0 has 22, seat 1 has 18.
    assert_eq!(s.rules().hand_no(), 1);
    assert_eq!(s.rules().betting().button(), 1);
    assert_eq!(s.rules().betting().small_blind_seat(), 1);
    assert_eq!(s.rules().chips(0) + s.rules().betting().total_bet(0), 22);
    assert!(!s.is_terminal());
    assert_eq!(s.returns(), vec![0.0, 0.0]);
    // Seat 1 shoves and seat 0 calls with aces: seat 1 busts.
    deal(&mut s, "As 2d Ad 3d");
    acts(&mut s, &["raise to 18 (all-in)", "call"]);
    deal(&mut s, "7h 8h 9c Jd Qs");
    // Only seat 0 has chips: the game ends before hand 3.
    assert!(s.is_terminal());
    assert_eq!(s.returns(), vec![20.0, -20.0]);
    assert_eq!(s.rules().records().len(), 2);
    let info = s.information_state_string(1);
    assert!(info.contains("hand1 button1"), "{info}");
}

#[test]
fn information_state_hides_opponent_cards() {
    let mut s = make(&[]);
    deal(&mut s, "2c 3c Tc 5c");
    acts(&mut s, &["call", "check"]);
    deal(&mut s, "7d 8d 9d");
    acts(&mut s, &["place 2c@-1,0", "check"]);
    let own = s.information_state_string(1);
    let other = s.information_state_string(0);
    assert!(own.contains("place 2c@-1,0"), "{own}");
    assert!(other.contains("s1:place h0@-1,0"), "{other}");
    assert!(!other.contains("2c"), "{other}");
    assert!(!s.observation_string(0).contains("2c"));
    assert!(s.observation_string(1).contains("2c"));
    let mut rng = crate::env::GameRng::new(5);
    for _ in 0..5 {
        let r = s.resample_from_infostate(0, &mut rng);
        assert_eq!(r.information_state_string(0), other);
        let r = rules_of::<HoldemState>(r.as_ref()).unwrap();
        assert_eq!(r.kept_cards(0), s.rules().kept_cards(0));
        assert_eq!(r.placed()[0].cell, s.rules().placed()[0].cell);
    }
}

/// The view says what each placed card the viewer sees attacks, by the game's own rule
/// (`centre_pawn` included), and leaves out the cards it does not see.
#[test]
fn views_carry_the_attacks_of_the_placed_cards_the_viewer_sees() {
    // Each attack as (x, y, owner, attacked cells).
    type Attack = (i64, i64, i64, Vec<(i64, i64)>);
    let cells = |view: &serde_json::Value| -> Vec<Attack> {
        view["attacks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                let xy = |c: &serde_json::Value| (c["x"].as_i64().unwrap(), c["y"].as_i64().unwrap());
                let (x, y) = xy(a);
                let to = a["cells"].as_array().unwrap().iter().map(xy).collect();
                (x, y, a["owner"].as_i64().unwrap(), to)
            })
            .collect()
    };
    for (centre_pawn, expected) in [
        ("none", vec![]),
        ("both", vec![(-2, 1), (0, 1), (-2, -1), (0, -1)]),
    ] {
        let mut s = make(&[("centre_pawn", centre_pawn)]);
        // Seat 1 is dealt 2c and 3c, seat 0 Tc and 5c.
        deal(&mut s, "2c Tc 3c 5c");
        acts(&mut s, &["call", "check"]);
        deal(&mut s, "7d 8d 9d");
        acts(&mut s, &["place 2c@-1,0", "check"]);
        assert_eq!(cells(&s.view(Some(1))), vec![(-1, 0, 1, expected.clone())]);
        // Face down to the other seat and to spectators: its attacks would tell its rank.
        assert_eq!(cells(&s.view(Some(0))), vec![]);
        assert_eq!(cells(&s.view(None)), vec![]);
        // Seat 0's rook on the turn's row attacks its row and column inside the window.
        acts(&mut s, &["place Tc@1,1", "check"]);
        let rook = cells(&s.view(Some(0)));
        assert_eq!(rook.len(), 1);
        let (x, y, owner, to) = &rook[0];
        assert_eq!((*x, *y, *owner), (1, 1, 0));
        let w = Window::DEFAULT;
        let rule = attacked_cells(card("Tc"), (1, 1), &w, centre_pawn == "both");
        let rule: Vec<(i64, i64)> = rule.iter().map(|&(x, y)| (x as i64, y as i64)).collect();
        assert_eq!(to, &rule);
        assert_eq!(to.len(), (w.width() - 1) + (w.height() - 1));
    }
}

/// Chips are conserved at every step of random play (stacks behind plus the pot), over
/// several table sizes, bet sizes and multi-hand games, and returns sum to zero.
#[test]
fn chip_conservation_over_random_play() {
    let mut rng = crate::env::GameRng::new(7);
    let specs: [&[(&str, &str)]; 4] = [
        &[],
        &[("players", "3"), ("hands", "4"), ("stack", "15")],
        &[
            ("players", "6"),
            ("bet_sizes", "all"),
            ("stack", "25"),
            ("hands", "2"),
        ],
        &[
            ("players", "4"),
            ("allin_place", "true"),
            ("stack", "8"),
            ("hands", "3"),
        ],
    ];
    for spec in specs {
        for _ in 0..8 {
            let mut s = make(spec);
            let n = s.rules().config().players;
            let total = s.rules().config().total_chips();
            while !s.is_terminal() {
                let b = s.rules().betting();
                let on_table: u32 = (0..n).map(|p| b.stack(p) + b.total_bet(p)).sum();
                assert_eq!(on_table, total, "{s}");
                let action = match s.current_player() {
                    Player::Chance => s.sample_chance_outcome(&mut rng),
                    _ => rng.choose(&s.legal_actions()),
                };
                s.apply_action(action).unwrap();
            }
            let chips: u32 = (0..n).map(|p| s.rules().chips(p)).sum();
            assert_eq!(chips, total);
            assert_eq!(s.returns().iter().sum::<f64>(), 0.0);
        }
    }
}

#[test]
fn acting_out_of_turn_is_refused() {
    let mut s = make(&[]);
    // At a chance node a seat's action id is not a card.
    let call = s.rules().config().call_action();
    let err = refused(&mut s, call);
    assert!(err.contains("not in the deck"), "{err}");
    deal(&mut s, "2c 3c 4c 5c");
    // Only the seat to act has legal actions; the other seat has none.
    assert_eq!(s.current_player(), Player::Seat(0));
    assert!(s.legal_actions_for(Player::Seat(1)).is_empty());
    assert!(s.legal_actions_for(Player::Chance).is_empty());
    let mut mask = vec![true; s.rules().config().num_actions()];
    s.action_mask(Player::Seat(1), &mut mask);
    assert!(mask.iter().all(|&m| !m));
    // The betting engine itself names who is to act.
    let mut b = s.rules().betting().clone();
    let err = b.apply(1, BetAction::CheckCall).unwrap_err();
    assert_eq!(err.to_string(), "seat 1 cannot act: seat 0 is to act");
}

/// A big blind over every stack (found by the property tests): the bet to call is larger
/// than all the chips in play, and the observation still stays within the game's bounds.
#[test]
fn a_blind_over_every_stack_keeps_the_observation_in_its_bounds() {
    let mut state = make(&[("stack", "1"), ("small_blind", "0"), ("big_blind", "3")]);
    let game = HoldemChessGame::new(
        registry::parse_params(
            registry::entry("holdem_chess").unwrap(),
            [("stack", "1"), ("small_blind", "0"), ("big_blind", "3")],
        )
        .unwrap(),
    )
    .unwrap();
    let mut observation = vec![0f32; crate::game::Game::observation_size(&game)];
    let (low, high) = crate::game::Game::observation_bounds(&game);
    for _ in 0..6 {
        for seat in 0..2 {
            state.observation_tensor(seat, &mut observation);
            assert!(
                observation.iter().all(|x| (low..=high).contains(x)),
                "{state}"
            );
        }
        if !state.is_chance_node() {
            break;
        }
        let (outcome, _) = state.chance_outcomes()[0];
        state.apply_action(outcome).unwrap();
    }
}
