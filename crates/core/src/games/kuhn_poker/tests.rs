//! Kuhn poker tests: every rule of the module doc, with positions set up by dealing the cards
//! a test needs as chance outcomes and playing the betting as text; the engine's conformance
//! harness over every player count; the heuristic.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::bot::{BLUFF, bet_probability};
use super::rules::deck_text;
use super::{ENTRY, KuhnPokerGame, KuhnPokerState, SeatStatus};
use crate::conformance::{check_information_hiding, check_state_deeply, random_simulation};
use crate::env::GameRng;
use crate::game::{ErrorKind, Game, GameError, Player, State, action_from_struct};
use crate::registry::{make_bot, make_game_from_string, parse_params};
use crate::rules::Played;

/// A state under test: the rules in their `State` wrapper (`rules()` for the typed state).
type Table = Played<KuhnPokerState>;

fn game(players: usize) -> KuhnPokerGame {
    let players = players.to_string();
    KuhnPokerGame::new(parse_params(&ENTRY, [("players", players.as_str())]).unwrap()).unwrap()
}

/// A game of `players` seats with `cards` dealt (names in seat order, `K J`) and `moves`
/// played (`pass bet ...`).
fn table(players: usize, cards: &str, moves: &str) -> Table {
    let mut state = Played::new(game(players).initial_state());
    for card in cards.split_whitespace() {
        assert!(state.is_chance_node(), "dealing {card} at a decision node");
        let a = state.string_to_action(Player::Chance, card).unwrap();
        state.apply_action(a).unwrap();
    }
    for m in moves.split_whitespace() {
        act(&mut state, m);
    }
    state
}

/// Plays `text` for the seat to act.
fn act(state: &mut Table, text: &str) {
    let player = state.current_player();
    let a = state.string_to_action(player, text).unwrap();
    state
        .apply_action(a)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
}

/// The card each seat's view shows it (`None`: face down), for viewer `viewer`.
fn seen_cards(state: &Table, viewer: Option<usize>) -> Vec<Option<String>> {
    let view = state.view(viewer);
    view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["card"].as_str().map(str::to_string))
        .collect()
}

fn some(cards: &[&str]) -> Vec<Option<String>> {
    cards
        .iter()
        .map(|c| (!c.is_empty()).then(|| c.to_string()))
        .collect()
}

#[test]
fn pass_pass_is_a_showdown_for_one_chip() {
    for (cards, expected) in [("K J", [1.0, -1.0]), ("J Q", [-1.0, 1.0])] {
        let t = table(2, cards, "pass");
        assert!(!t.is_terminal(), "one check does not end the round");
        let t = table(2, cards, "pass pass");
        assert!(t.is_terminal());
        assert_eq!(t.returns(), expected, "{cards}");
        assert_eq!(t.rules().pot(), 2);
        assert!(t.rules().showdown());
    }
}

#[test]
fn bet_fold_wins_one_without_a_showdown() {
    // The bettor holds the worse card and still wins: nobody shows.
    let t = table(2, "J Q", "bet pass");
    assert!(t.is_terminal());
    assert_eq!(t.returns(), [1.0, -1.0]);
    assert!(!t.rules().showdown());
    assert_eq!(t.rules().winner(), Some(0));
    assert_eq!(seen_cards(&t, None), some(&["", ""]));
    assert_eq!(seen_cards(&t, Some(0)), some(&["J", ""]));
    assert_eq!(seen_cards(&t, Some(1)), some(&["", "Q"]));
    let result = &t.view(None)["result"];
    assert_eq!(result["showdown"], json!(false));
    assert_eq!(result["shown"], json!([]));
    assert_eq!(result["winner"], json!(0));
    assert!(t.observation_string(1).ends_with("s0 wins 1 uncontested"));
}

#[test]
fn bet_call_is_a_showdown_for_two_chips() {
    for (cards, expected, winner) in [("Q K", [-2.0, 2.0], 1), ("K J", [2.0, -2.0], 0)] {
        let t = table(2, cards, "bet bet");
        assert!(t.is_terminal());
        assert_eq!(t.returns(), expected, "{cards}");
        assert_eq!(t.rules().pot(), 4);
        assert_eq!(t.rules().winner(), Some(winner));
        let shown: Vec<&str> = cards.split_whitespace().collect();
        assert_eq!(seen_cards(&t, None), some(&shown));
    }
}

#[test]
fn pass_bet_fold_gives_the_second_seat_one_chip() {
    let t = table(2, "K Q", "pass bet");
    assert!(!t.is_terminal(), "the first seat must answer the bet");
    assert_eq!(t.current_player(), Player::Seat(0));
    let t = table(2, "K Q", "pass bet pass");
    assert!(t.is_terminal());
    assert_eq!(t.returns(), [-1.0, 1.0]);
    assert!(!t.rules().showdown());
    assert_eq!(t.rules().status(0), SeatStatus::Folded);
    assert_eq!(t.rules().status(1), SeatStatus::Bet);
}

#[test]
fn pass_bet_call_is_a_showdown_for_two_chips() {
    for (cards, expected) in [("K Q", [2.0, -2.0]), ("J Q", [-2.0, 2.0])] {
        let t = table(2, cards, "pass bet bet");
        assert!(t.is_terminal());
        assert_eq!(t.returns(), expected, "{cards}");
        assert_eq!(t.rules().status(0), SeatStatus::Called);
        assert!(t.rules().showdown());
    }
}

#[test]
fn three_players_pass_bet_call_fold() {
    // s0 T, s1 K, s2 Q (J undealt): s0 checks, s1 bets, s2 calls, s0 folds.
    let t = table(3, "T K Q", "pass bet bet");
    assert!(!t.is_terminal(), "s0 checked and must still answer the bet");
    assert_eq!(t.current_player(), Player::Seat(0));
    let t = table(3, "T K Q", "pass bet bet pass");
    assert!(t.is_terminal());
    assert_eq!(t.rules().pot(), 5);
    assert_eq!(t.returns(), [-1.0, 3.0, -2.0]);
    assert_eq!(t.rules().contenders(), [1, 2]);
    let statuses: Vec<SeatStatus> = (0..3).map(|s| t.rules().status(s)).collect();
    assert_eq!(
        statuses,
        [SeatStatus::Folded, SeatStatus::Bet, SeatStatus::Called]
    );
    // The two in the showdown show; the folded card never does.
    assert_eq!(seen_cards(&t, None), some(&["", "K", "Q"]));
    assert_eq!(seen_cards(&t, Some(0)), some(&["T", "K", "Q"]));
    assert_eq!(seen_cards(&t, Some(2)), some(&["", "K", "Q"]));
    // The caller with the better card wins instead.
    let t = table(3, "T Q K", "pass bet bet pass");
    assert_eq!(t.returns(), [-1.0, -2.0, 3.0]);
}

#[test]
fn a_bet_by_the_last_seat_is_answered_by_every_seat_before_it() {
    // s0 K, s1 J, s2 Q: check, check, s2 bets; s0 folds its K, s1 calls with J.
    let t = table(3, "K J Q", "pass pass bet pass");
    assert!(!t.is_terminal());
    assert_eq!(t.current_player(), Player::Seat(1));
    let t = table(3, "K J Q", "pass pass bet pass bet");
    assert!(t.is_terminal());
    assert_eq!(
        t.history().len(),
        3 + 5,
        "the longest round: 2n - 1 actions"
    );
    assert_eq!(t.returns(), [-1.0, -2.0, 3.0]);
}

#[test]
fn everybody_checks_and_the_highest_card_wins() {
    let t = table(3, "T J Q", "pass pass pass");
    assert!(t.is_terminal());
    assert_eq!(t.returns(), [-1.0, -1.0, 2.0]);
    assert_eq!(seen_cards(&t, None), some(&["T", "J", "Q"]));
}

#[test]
fn everybody_folds_to_the_first_bet() {
    let t = table(4, "9 T J Q", "bet pass pass pass");
    assert!(t.is_terminal());
    assert_eq!(t.returns(), [3.0, -1.0, -1.0, -1.0]);
    assert!(!t.rules().showdown());
    assert_eq!(seen_cards(&t, None), some(&["", "", "", ""]));
    // After a bet by seat 1 of 5, seat 0 answers last.
    let t = table(5, "8 9 T J Q", "pass bet pass pass pass");
    assert!(!t.is_terminal());
    let t = table(5, "8 9 T J Q", "pass bet pass pass pass bet");
    assert!(t.is_terminal());
    assert_eq!(t.rules().pot(), 7);
    assert_eq!(
        t.returns(),
        [-2.0, 5.0, -1.0, -1.0, -1.0],
        "s1's 9 beats s0's 8"
    );
    assert_eq!(t.rules().contenders(), [0, 1]);
}

#[test]
fn legal_actions_at_each_point() {
    let mut t = table(2, "", "");
    assert_eq!(t.current_player(), Player::Chance);
    assert_eq!(t.legal_actions(), [0, 1, 2]);
    let third = 1.0 / 3.0;
    assert_eq!(t.chance_outcomes(), [(0, third), (1, third), (2, third)]);
    t.apply_action(2).unwrap();
    assert_eq!(t.chance_outcomes(), [(0, 0.5), (1, 0.5)], "K is dealt");
    t.apply_action(0).unwrap();
    assert_eq!(t.current_player(), Player::Seat(0));
    assert_eq!(t.legal_actions(), [0, 1]);
    assert!(t.legal_actions_for(Player::Seat(1)).is_empty());
    assert!(t.legal_actions_for(Player::Chance).is_empty());
    act(&mut t, "bet");
    assert_eq!(t.current_player(), Player::Seat(1));
    assert_eq!(t.legal_actions(), [0, 1]);
    assert!(t.legal_actions_for(Player::Seat(0)).is_empty());
    act(&mut t, "pass");
    assert!(t.is_terminal());
    assert!(t.legal_actions().is_empty());
    assert!(t.legal_actions_for(Player::Seat(0)).is_empty());
    assert!(t.legal_actions_for(Player::Seat(1)).is_empty());
    // Five players: six cards.
    let t = table(5, "", "");
    assert_eq!(t.chance_outcomes().len(), 6);
    assert!(t.chance_outcomes().iter().all(|o| o.1 == 1.0 / 6.0));
}

#[test]
fn illegal_and_out_of_turn_actions_are_refused_with_a_reason() {
    let mut t = table(2, "K", "");
    let before = t.serialize();
    let err = t.apply_action(2).unwrap_err();
    assert!(err.to_string().contains("already dealt to seat 0"), "{err}");
    let err = t.apply_action(3).unwrap_err();
    assert!(err.to_string().contains("outside the deck"), "{err}");
    assert!(err.to_string().contains("J Q K"), "{err}");
    assert_eq!(t.serialize(), before, "a refused deal changes nothing");
    t.apply_action(0).unwrap();
    let before = t.serialize();
    let err = t.apply_action(2).unwrap_err();
    assert!(matches!(err, GameError::IllegalAction { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.to_string().contains("0 (pass"), "{err}");
    assert_eq!(t.serialize(), before, "a refused action changes nothing");
    // A joint action, or a seat that is not to act, is out of turn.
    let err = t.apply_actions(&[0, 1]).unwrap_err();
    assert!(matches!(err, GameError::OutOfTurn { .. }), "{err}");
    let bot = make_bot("kuhn_poker", "heuristic").unwrap();
    let err = bot
        .try_act(&t, 1, &mut GameRng::new(1))
        .expect_err("seat 1 is not to act");
    assert!(matches!(err, GameError::OutOfTurn { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::FailedPrecondition);
    // Nothing is accepted once the game is over.
    act(&mut t, "pass");
    act(&mut t, "pass");
    assert!(t.is_terminal());
    for a in [0, 1] {
        let err = t.apply_action(a).unwrap_err();
        assert!(matches!(err, GameError::GameOver { .. }), "{err}");
    }
}

#[test]
fn action_text_parses_in_any_case() {
    let t = table(2, "K J", "");
    let seat = Player::Seat(0);
    for (text, action) in [
        ("bet", 1),
        ("b", 1),
        ("B", 1),
        ("Bet", 1),
        (" BET ", 1),
        ("pass", 0),
        ("p", 0),
        ("Pass", 0),
        ("P", 0),
    ] {
        assert_eq!(t.string_to_action(seat, text).unwrap(), action, "{text}");
    }
    for bad in ["raise", "", "bets", "1", "pass bet"] {
        let err = t.string_to_action(seat, bad).unwrap_err();
        assert!(matches!(err, GameError::BadActionString { .. }), "{bad}");
        assert!(err.to_string().contains("'pass'"), "{err}");
    }
    let err = t.string_to_action(Player::Seat(2), "bet").unwrap_err();
    assert!(err.to_string().contains("takes no actions"), "{err}");
    assert_eq!(t.action_to_string(seat, 0), "pass");
    assert_eq!(t.action_to_string(seat, 1), "bet");
    assert_eq!(t.action_to_string(seat, 5), "action#5");
    // Chance outcomes are the deck's cards, by name.
    let chance = Player::Chance;
    assert_eq!(t.string_to_action(chance, "K").unwrap(), 2);
    assert_eq!(t.string_to_action(chance, "j").unwrap(), 0);
    let err = t.string_to_action(chance, "9").unwrap_err();
    assert!(err.to_string().contains("J Q K"), "{err}");
    assert_eq!(t.action_to_string(chance, 1), "Q");
    let t5 = table(5, "", "");
    assert_eq!(t5.string_to_action(chance, "9").unwrap(), 1);
    assert_eq!(t5.string_to_action(chance, "8").unwrap(), 0);
    assert!(t5.string_to_action(chance, "A").is_err());
}

#[test]
fn decks_grow_downwards_from_the_king() {
    assert_eq!(deck_text(2), "J Q K");
    assert_eq!(deck_text(3), "T J Q K");
    assert_eq!(deck_text(4), "9 T J Q K");
    assert_eq!(deck_text(5), "8 9 T J Q K");
    let view = table(3, "", "").view(None);
    assert_eq!(view["deck"], json!(["T", "J", "Q", "K"]));
}

#[test]
fn views_hide_other_cards_until_a_showdown() {
    let mut t = table(3, "T K", "");
    // Dealt so far: s0 and s1; s2's card is absent (not null) before it is dealt.
    let view = t.view(Some(0));
    assert_eq!(view["seats"][0]["card"], json!("T"));
    assert_eq!(view["seats"][1]["card"], Value::Null);
    assert!(view["seats"][1].get("card").is_some(), "dealt: null");
    assert!(view["seats"][2].get("card").is_none(), "not dealt: absent");
    act(&mut t, "Q");
    act(&mut t, "pass");
    act(&mut t, "bet");
    for viewer in 0..3 {
        let mut expected = vec![None; 3];
        expected[viewer] = Some(["T", "K", "Q"][viewer].to_string());
        assert_eq!(seen_cards(&t, Some(viewer)), expected, "viewer {viewer}");
    }
    assert_eq!(seen_cards(&t, None), some(&["", "", ""]));
    let view = t.view(Some(2));
    assert_eq!(view["legal_actions"][1], json!({"id": 1, "text": "bet"}));
    assert_eq!(t.view(Some(0))["legal_actions"], json!([]));
    assert_eq!(view["history"][1]["text"], json!("seat 1 bets"));
    assert_eq!(view["first_bettor"], json!(1));
    assert_eq!(view["pot"], json!(4));
    assert_eq!(view["seats"][1]["status"], json!("bet"));
    assert_eq!(view["seats"][2]["status"], json!("waiting"));
    act(&mut t, "bet");
    act(&mut t, "pass");
    // The showdown shows s1 and s2 to everyone; s0 folded and stays hidden.
    assert_eq!(seen_cards(&t, None), some(&["", "K", "Q"]));
    assert_eq!(seen_cards(&t, Some(1)), some(&["", "K", "Q"]));
    let view = t.view(None);
    assert_eq!(
        view["result"],
        json!({"winner": 1, "pot": 5, "showdown": true, "shown": [1, 2]})
    );
    assert_eq!(view["history"][3]["meaning"], json!("fold"));
    assert_eq!(view["returns"], json!([-1.0, 3.0, -2.0]));
}

#[test]
fn observation_tensor_is_seat_card_and_chips() {
    // Q, T, K dealt to s0, s1, s2; s0 checks and s1 bets.
    let t = table(3, "Q T K", "pass bet");
    let mut obs = vec![0.0; game(3).observation_size()];
    t.observation_tensor(0, &mut obs);
    assert_eq!(obs, [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 2.0, 1.0]);
    t.observation_tensor(2, &mut obs);
    assert_eq!(obs, [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 1.0]);
    // Before its card is dealt a seat sees no card.
    let t = table(2, "K", "");
    let mut obs = vec![0.0; 7];
    t.observation_tensor(1, &mut obs);
    assert_eq!(obs, [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
    let scalars = game(2).observation_scalars();
    assert_eq!(scalars.len(), 1, "{scalars:?}");
    assert_eq!(scalars[0], 5..7, "the chips entries");
}

#[test]
fn information_state_and_observation_strings() {
    let t = table(2, "K J", "pass bet");
    assert_eq!(t.information_state_string(0), "s0 cards:K? bets:pb");
    assert_eq!(t.information_state_string(1), "s1 cards:?J bets:pb");
    assert_eq!(t.observation_string(1), "s1 J | chips 1 2 | pot 3");
    assert_eq!(
        table(2, "K", "").information_state_string(1),
        "s1 cards:? bets:"
    );
    let t = table(2, "K J", "pass bet bet");
    assert_eq!(t.information_state_string(1), "s1 cards:KJ bets:pbb");
    assert_eq!(
        t.observation_string(1),
        "s1 J | chips 2 2 | pot 4 | shown s0:K s1:J | s0 wins 2"
    );
    let t = table(2, "K J", "pass bet pass");
    assert_eq!(t.information_state_string(1), "s1 cards:?J bets:pbp");
    assert_eq!(
        t.to_string(),
        "cards s0:K s1:J | betting: s0 checks, s1 bets, s0 folds | pot 3 | s1 wins 1 uncontested"
    );
}

#[test]
fn action_structs_name_the_kind_and_what_it_does() {
    let t = table(2, "K J", "");
    assert_eq!(
        t.action_struct(0, 0),
        Some(json!({"kind": "pass", "meaning": "check"}))
    );
    assert_eq!(
        t.action_struct(0, 1),
        Some(json!({"kind": "bet", "meaning": "bet"}))
    );
    assert_eq!(t.action_struct(0, 2), None);
    assert_eq!(
        action_from_struct(&t, 0, &json!({"kind": "bet"})).unwrap(),
        1
    );
    assert_eq!(
        action_from_struct(&t, 0, &json!({"meaning": "check"})).unwrap(),
        0
    );
    let t = table(2, "K J", "bet");
    assert_eq!(
        t.action_struct(1, 1),
        Some(json!({"kind": "bet", "meaning": "call"}))
    );
    assert_eq!(
        action_from_struct(&t, 1, &json!({"meaning": "fold"})).unwrap(),
        0
    );
    assert!(action_from_struct(&t, 1, &json!({"meaning": "check"})).is_err());
    assert!(action_from_struct(&t, 1, &json!({"amount": 1})).is_err());
    assert!(action_from_struct(&t, 0, &json!({"kind": "bet"})).is_err());
}

#[test]
fn parameters_and_facts() {
    for bad in ["kuhn_poker(players=1)", "kuhn_poker(players=6)"] {
        let err = make_game_from_string(bad).unwrap_err();
        assert!(matches!(err, GameError::InvalidParameter { .. }), "{err}");
    }
    let g = make_game_from_string("kuhn_poker").unwrap();
    assert_eq!(g.num_players(), 2);
    for n in 2..=5 {
        let g = game(n);
        assert_eq!(g.num_players(), n);
        assert_eq!(g.num_distinct_actions(), 2);
        assert_eq!(g.max_chance_outcomes(), 6);
        assert_eq!(g.max_utility(), 2.0 * (n as f64 - 1.0));
        assert_eq!(g.min_utility(), -2.0);
        assert_eq!(g.utility_sum(), Some(0.0));
        assert_eq!(g.max_game_length(), 3 * n - 1);
        assert_eq!(g.observation_shape(), [3 * n + 1]);
    }
}

#[test]
fn returns_and_rewards_come_only_at_the_end() {
    let mut t = table(2, "Q K", "bet");
    assert_eq!(t.returns(), [0.0, 0.0]);
    assert_eq!(t.rewards(), [0.0, 0.0]);
    act(&mut t, "bet");
    assert_eq!(t.rewards(), [-2.0, 2.0]);
    let mut added = [1.0, 1.0];
    t.add_rewards_to(&mut added);
    assert_eq!(added, [-1.0, 3.0]);
}

#[test]
fn conformance_random_simulation_for_every_player_count() {
    for n in 2..=5 {
        random_simulation(&format!("kuhn_poker(players={n})"), 40, 7 + n as u64);
    }
}

#[test]
fn conformance_deep_checks_at_set_positions() {
    let mut rng = GameRng::new(5);
    for (n, cards, moves) in [
        (2, "", ""),
        (2, "Q", ""),
        (2, "K J", "pass bet"),
        (2, "J Q", "bet pass"),
        (2, "K J", "bet bet"),
        (3, "T K Q", "pass bet bet pass"),
        (3, "K J Q", "pass pass bet pass"),
        (5, "8 9 T J Q", "pass bet pass pass pass bet"),
    ] {
        let g = game(n);
        let t = table(n, cards, moves);
        check_state_deeply(&g, &t, &mut rng);
        check_information_hiding(&g, &t, &mut rng);
    }
}

#[test]
fn resampling_redeals_only_the_cards_a_seat_cannot_see() {
    // After a fold seat 0 knows only its own K: seat 1 holds J or Q, each for some seed.
    let t = table(2, "K Q", "bet pass");
    let mut seen = BTreeMap::new();
    for seed in 0..64 {
        let other = t.resample_from_infostate(0, &mut GameRng::new(seed));
        assert_eq!(other.history()[0].action, 2, "seat 0's own card stays");
        assert_eq!(other.returns(), t.returns());
        *seen.entry(other.history()[1].action).or_insert(0) += 1;
    }
    assert_eq!(seen.keys().copied().collect::<Vec<_>>(), [0, 1]);
    // After a showdown both cards are known to both seats: nothing changes.
    let t = table(2, "K Q", "bet bet");
    for seed in 0..16 {
        for seat in 0..2 {
            let other = t.resample_from_infostate(seat, &mut GameRng::new(seed));
            assert_eq!(other.serialize(), t.serialize());
        }
    }
    // Three players, s0 folded: s1 and s2 are known to all; s0's card may be T or J for s1.
    let t = table(3, "T K Q", "pass bet bet pass");
    let mut seen = BTreeMap::new();
    for seed in 0..64 {
        let other = t.resample_from_infostate(1, &mut GameRng::new(seed));
        assert_eq!(&other.history()[1..], &t.history()[1..]);
        *seen.entry(other.history()[0].action).or_insert(0) += 1;
    }
    assert_eq!(seen.keys().copied().collect::<Vec<_>>(), [0, 1]);
}

/// Each seat's expected returns from `state` when seat `s` bets with probability
/// `policy(state, s)`, over every deal.
fn expected_returns(state: &Table, policy: &dyn Fn(&Table, usize) -> f64) -> Vec<f64> {
    let mix = |weighted: Vec<(f64, Vec<f64>)>| {
        let mut out = vec![0.0; state.num_players()];
        for (p, r) in weighted {
            for (o, x) in out.iter_mut().zip(r) {
                *o += p * x;
            }
        }
        out
    };
    let child = |a: u32| {
        let mut next = state.clone();
        next.apply_action(a).unwrap();
        expected_returns(&next, policy)
    };
    match state.current_player() {
        Player::Terminal => state.returns(),
        Player::Chance => mix(state
            .chance_outcomes()
            .into_iter()
            .map(|(a, p)| (p, child(a)))
            .collect()),
        Player::Seat(s) => {
            let p = policy(state, s);
            mix(vec![(p, child(1)), (1.0 - p, child(0))])
        }
        Player::Simultaneous => unreachable!(),
    }
}

/// Every information state of `seat` at which it acts, by its string.
fn decision_points(state: &Table, seat: usize, out: &mut Vec<String>) {
    match state.current_player() {
        Player::Terminal => return,
        Player::Seat(s) if s == seat => {
            let key = state.information_state_string(seat);
            if !out.contains(&key) {
                out.push(key);
            }
        }
        _ => {}
    }
    for a in state.legal_actions() {
        let mut next = state.clone();
        next.apply_action(a).unwrap();
        decision_points(&next, seat, out);
    }
}

#[test]
fn two_player_heuristic_is_an_equilibrium() {
    let start = table(2, "", "");
    let heuristic = |t: &Table, s: usize| bet_probability(t.rules(), s);
    let value = expected_returns(&start, &heuristic);
    assert!((value[0] + 1.0 / 18.0).abs() < 1e-12, "{value:?}");
    assert!((value[1] - 1.0 / 18.0).abs() < 1e-12, "{value:?}");
    // No pure strategy of either seat does better against it.
    for (seat, &own) in value.iter().enumerate() {
        let mut points = Vec::new();
        decision_points(&start, seat, &mut points);
        assert_eq!(points.len(), 6, "three cards, two decision points each");
        let mut best = f64::NEG_INFINITY;
        for plan in 0..1u32 << points.len() {
            let policy = |t: &Table, s: usize| {
                if s == seat {
                    let i = points
                        .iter()
                        .position(|p| *p == t.information_state_string(s))
                        .unwrap();
                    (plan >> i & 1) as f64
                } else {
                    bet_probability(t.rules(), s)
                }
            };
            best = best.max(expected_returns(&start, &policy)[seat]);
        }
        assert!(
            best <= own + 1e-12,
            "seat {seat} gains {best} > {own} by deviating"
        );
    }
}

#[test]
fn heuristic_for_more_players_bets_the_top_card_and_bluffs_the_lowest() {
    fn walk(state: &Table) {
        if let Player::Seat(s) = state.current_player() {
            let rules = state.rules();
            let card = rules.card(s).unwrap() as usize;
            let n = rules.config().players;
            let expected = match (rules.facing_bet(), card) {
                (_, c) if c == n => 1.0,
                (false, 0) => BLUFF,
                _ => 0.0,
            };
            assert_eq!(bet_probability(rules, s), expected, "{state}");
        }
        for a in state.legal_actions() {
            let mut next = state.clone();
            next.apply_action(a).unwrap();
            walk(&next);
        }
    }
    walk(&table(3, "", ""));
    walk(&table(4, "9 K", ""));
}

#[test]
fn heuristic_plays_only_legal_actions() {
    for n in 2..=5 {
        let g = game(n);
        let mut rng = GameRng::new(n as u64);
        let mut bets = 0;
        for _ in 0..200 {
            let mut state = g.new_initial_state();
            while !state.is_terminal() {
                let a = match state.current_player() {
                    Player::Chance => state.sample_chance_outcome(&mut rng),
                    Player::Seat(s) => {
                        let a = state.heuristic_action(s, &mut rng);
                        assert!(state.legal_actions().contains(&a), "{a} at {state}");
                        bets += a;
                        a
                    }
                    other => unreachable!("{other}"),
                };
                state.apply_action(a).unwrap();
            }
            assert_eq!(state.returns().iter().sum::<f64>(), 0.0);
        }
        assert!(bets > 0, "{n} players: the heuristic never bet");
    }
}
