//! Pokeros rules tests: every example of docs/games/pokeros.md and of the original, with positions
//! set up by dealing exactly the cards each test needs and playing legal actions.

use super::PokerosState;
use crate::cards::Card;
use crate::env::GameRng;
use crate::game::{ErrorKind, GameError, Player, State};
use crate::registry::make_bot;
use crate::registry::make_game_from_string;

/// A game under test: deals come from a script of cards, seat actions are `CARD@X,Y`.
struct Table {
    state: Box<dyn State>,
    deals: Vec<Card>,
}

impl Table {
    /// `spec` is the game string; `deals` the cards chance deals, in order (the centre card
    /// first, then the initial hands seat by seat, then every refill).
    fn new(spec: &str, deals: &str) -> Table {
        let game = make_game_from_string(spec).unwrap();
        let deals = crate::cards::parse_cards(deals).unwrap();
        let mut t = Table {
            state: game.new_initial_state(),
            deals: deals.into_iter().rev().collect(),
        };
        t.deal();
        t
    }

    fn deal(&mut self) {
        while self.state.is_chance_node() {
            // A script may end before the last refill: the state then waits at chance.
            let Some(card) = self.deals.pop() else { return };
            self.state.apply_action(card.0 as u32).unwrap();
        }
    }

    /// Plays `CARD@X,Y` for the seat to move; returns the points it scored.
    fn play(&mut self, mv: &str) -> u32 {
        let seat = self
            .state
            .current_player()
            .seat()
            .expect("a seat is to move");
        let before = self.pokeros().points()[seat];
        let a = self
            .state
            .string_to_action(Player::Seat(seat), mv)
            .unwrap_or_else(|e| panic!("{mv}: {e}"));
        self.state
            .apply_action(a)
            .unwrap_or_else(|e| panic!("{mv}: {e}"));
        let scored = self.pokeros().points()[seat] - before;
        self.deal();
        scored
    }

    fn try_play(&mut self, mv: &str) -> Result<(), GameError> {
        let seat = self.state.current_player().seat().unwrap();
        let a = self.state.string_to_action(Player::Seat(seat), mv)?;
        self.state.apply_action(a)
    }

    fn pokeros(&self) -> &PokerosState {
        crate::rules::rules_of(self.state.as_ref()).unwrap()
    }
}

#[test]
fn pair_and_pair_across_axes_pays_four() {
    // 2s in the centre; 7c above it, 7d right of it; 7h in the corner pairs both ways.
    let mut t = Table::new("pokeros", "2s  7c 7h Kd  7d 9s Jc  4c 5c");
    assert_eq!(t.play("7c@0,1"), 0);
    assert_eq!(t.play("7d@1,0"), 0);
    assert_eq!(t.play("7h@1,1"), 4, "(1 + 1) x 2");
    let hands = &t.pokeros().moves()[2].placement.hands;
    assert_eq!(hands.len(), 2);
    assert!(hands.iter().all(|h| h.hand.name() == "pair"));
}

/// Builds 5d _ 6h 7h on row 0 (with Kc Qd 9s above) and returns the table with seat 1 about
/// to place 5h between 5d and 6h.
fn pair_behind_straight_flush_ahead(spec: &str) -> Table {
    let mut t = Table::new(spec, "5d  Kc 9s 7h  Qd 6h 5h  2c 3d 4s 8d");
    t.play("Kc@0,1");
    t.play("Qd@1,1");
    t.play("9s@2,1");
    t.play("6h@2,0");
    t.play("7h@3,0");
    t
}

#[test]
fn pair_behind_and_straight_flush_ahead_pays_twenty_two() {
    let mut t = pair_behind_straight_flush_ahead("pokeros");
    assert_eq!(t.play("5h@1,0"), 22, "(1 + 10) x 2");
}

#[test]
fn multiplier_modes() {
    let mut cross = pair_behind_straight_flush_ahead("pokeros(multiplier=cross)");
    assert_eq!(
        cross.play("5h@1,0"),
        11,
        "cross pays x2 only when both axes score"
    );
    let mut none = pair_behind_straight_flush_ahead("pokeros(multiplier=none)");
    assert_eq!(none.play("5h@1,0"), 11);
    let mut t = Table::new("pokeros(multiplier=cross)", "2s  7c 7h Kd  7d 9s Jc  4c 5c");
    t.play("7c@0,1");
    t.play("7d@1,0");
    assert_eq!(t.play("7h@1,1"), 4, "both axes score: (1 + 1) x 2");
}

#[test]
fn original_score_table() {
    let mut t = pair_behind_straight_flush_ahead("pokeros(scores=original)");
    assert_eq!(
        t.play("5h@1,0"),
        16,
        "(pair 1 + 3-card straight flush 7) x 2"
    );
}

#[test]
fn straddling_window_scores_alone_when_it_beats_both_sides() {
    // Row 0 becomes 4c 5c _ 7c 8c (with Kd Qh 2s above); 6c in the gap makes a 5-card
    // straight flush (40), more than B (4c 5c 6c: 10) + F (6c 7c 8c: 10): S alone, x1.
    let mut t = Table::new("pokeros", "5c  Kd 2s 8c  Qh 7c 4c  6c 3h 9d Th Jd");
    t.play("Kd@0,1");
    t.play("Qh@1,1");
    t.play("2s@2,1");
    t.play("7c@2,0");
    t.play("8c@3,0");
    t.play("4c@-1,0");
    assert_eq!(t.play("6c@1,0"), 40);
    let hands = &t.pokeros().moves()[6].placement.hands;
    assert_eq!(hands.len(), 1);
    assert_eq!(hands[0].hand.name(), "5-card straight flush");
}

#[test]
fn spoiled_windows_score_zero() {
    // 7c 2s 7h: the pair is broken by the 2s between them.
    let mut t = Table::new("pokeros", "7c  2s Ad Kd  7h Qs Jd  3c 4c");
    assert_eq!(t.play("2s@1,0"), 0);
    assert_eq!(t.play("7h@2,0"), 0);
}

#[test]
fn straight_in_any_order_scores() {
    // 2-4-3-5 on the board is a 4-card straight (5 points); K-A-2 is nothing.
    let mut t = Table::new("pokeros", "2c  4d 5s Kh  3h Ac 9d  7c 8c 9c");
    assert_eq!(t.play("4d@1,0"), 0);
    assert_eq!(t.play("3h@2,0"), 2, "2-4-3 is a 3-card straight");
    assert_eq!(t.play("5s@3,0"), 5, "2-4-3-5 is a 4-card straight");
    let mut t = Table::new("pokeros", "2c  Ks Ad 9h  Jc 8d 4s  7c 8c 9c");
    assert_eq!(t.play("Ad@-1,0"), 0);
    assert_eq!(t.play("Jc@1,0"), 0);
    assert_eq!(t.play("Ks@-2,0"), 0, "K-A-2 is not a straight");
}

#[test]
fn run_cap_limits_lines_to_five_unless_prototype() {
    // Row 0 gets cells 0,1,2 and 4,5 (reached through row 1); cell 3 would join a line of 6.
    let deals = "2c  3c 4c 5c  6c 7c 8c  9c Tc Jc Qc Kc Ac 2d 3d 4d 5d";
    let build = |spec: &str| {
        let mut t = Table::new(spec, deals);
        for mv in ["1,0", "2,0", "2,1", "3,1", "4,1", "4,0", "5,0"] {
            t.play(&format!("slot0@{mv}"));
        }
        t
    };
    let mut strict = build("pokeros");
    let before = strict.state.serialize();
    let err = strict.try_play("slot0@3,0").unwrap_err();
    assert!(err.to_string().contains("longer than 5"), "{err}");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        strict.state.serialize(),
        before,
        "a refused action changes nothing"
    );
    let mut prototype = build("pokeros(run_cap_check=prototype)");
    prototype
        .try_play("slot0@3,0")
        .expect("the prototype allows lines up to 9");
    // A run of five can never grow in either mode.
    let mut t = build("pokeros(run_cap_check=prototype)");
    t.play("slot0@3,0");
    assert!(t.try_play("slot0@6,0").is_err());
    assert!(t.try_play("slot0@-1,0").is_err());
}

#[test]
fn placement_errors_are_clear_and_change_nothing() {
    let mut t = Table::new("pokeros", "2s  7c 7h Kd  7d 9s Jc  4c 5c");
    let before = t.state.serialize();
    let not_adjacent = t.try_play("7c@3,3").unwrap_err();
    assert!(
        not_adjacent
            .to_string()
            .contains("not orthogonally next to a card")
    );
    let taken = t.try_play("7c@0,0").unwrap_err();
    assert!(taken.to_string().contains("already taken"), "{taken}");
    let not_held = t.try_play("7d@1,0").unwrap_err();
    assert!(
        not_held.to_string().contains("not in seat 0's hand"),
        "{not_held}"
    );
    let outside = t.try_play("7c@9,0").unwrap_err();
    assert!(
        outside.to_string().contains("outside the board"),
        "{outside}"
    );
    let out_of_range = t.state.apply_action(1_000_000).unwrap_err();
    assert!(
        out_of_range
            .to_string()
            .contains("action ids run from 0 to"),
        "{out_of_range}"
    );
    let joint = t.state.apply_actions(&[0, 0]).unwrap_err();
    assert_eq!(joint.kind(), ErrorKind::FailedPrecondition);
    assert_eq!(t.state.serialize(), before);
    // A chance outcome that is not in the deck.
    let mut fresh = make_game_from_string("pokeros")
        .unwrap()
        .new_initial_state();
    fresh.apply_action(5).unwrap();
    assert!(
        fresh.apply_action(5).is_err(),
        "the same card cannot be dealt twice"
    );
    assert!(fresh.apply_action(55).is_err());
}

#[test]
fn bad_parameters_name_the_parameter_and_what_is_allowed() {
    let err = make_game_from_string("pokeros(players=5)").unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("players") && msg.contains("'5'") && msg.contains("2 to 4"),
        "{msg}"
    );
    let err = make_game_from_string("pokeros(colour=red)").unwrap_err();
    assert!(err.to_string().contains("no parameter 'colour'"), "{err}");
    let err = make_game_from_string("pokeros(scores=best)").unwrap_err();
    assert!(err.to_string().contains("final, original"), "{err}");
    let err = make_game_from_string("pokeros(wildcards=x)").unwrap_err();
    assert!(err.to_string().contains("an integer"), "{err}");
    let err = make_game_from_string("texas").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
}

#[test]
fn decks_and_wildcards() {
    let stripped = make_game_from_string("pokeros(deck=stripped)").unwrap();
    assert_eq!(stripped.new_initial_state().chance_outcomes().len(), 32);
    let wild = make_game_from_string("pokeros(wildcards=2)").unwrap();
    assert_eq!(wild.new_initial_state().chance_outcomes().len(), 54);
    // A joker next to any card is a pair; with 7c 8c it completes a straight flush.
    let mut t = Table::new("pokeros(wildcards=2)", "7c  X1 2d 3s  9c Kh Qs  4h 5h");
    assert_eq!(t.play("X1@1,0"), 1, "the joker pairs with 7c");
    assert_eq!(t.play("9c@2,0"), 10, "7c X1 9c: a 3-card straight flush");
    let mut s = Table::new("pokeros(deck=stripped)", "Ac  7d 9s Kh  8h Qs Jd  Tc Jc Qc");
    s.play("7d@1,0");
    assert_eq!(
        s.play("8h@2,0"),
        2,
        "A-7-8 is a straight with the stripped deck"
    );
}

#[test]
fn two_players_with_three_cards_play_the_whole_deck() {
    let game = make_game_from_string("pokeros").unwrap();
    for seed in 0..5 {
        let mut rng = GameRng::new(seed);
        let mut state = game.new_initial_state();
        crate::env::resolve_chance(state.as_mut(), &mut rng);
        let bot = make_bot("pokeros", "heuristic").unwrap();
        while !state.is_terminal() {
            let seat = state.current_player().seat().unwrap();
            let a = bot.act(state.as_ref(), seat, &mut rng);
            state.apply_action(a).unwrap();
            crate::env::resolve_chance(state.as_mut(), &mut rng);
        }
        let s: &PokerosState = crate::rules::rules_of(state.as_ref()).unwrap();
        assert_eq!(s.moves().len(), 51, "seed {seed}: all 51 cards are played");
        let returns = state.returns();
        let points = s.points();
        assert_eq!(returns[0] > 0.0, points[0] > points[1]);
        assert_eq!(returns.iter().sum::<f64>(), 0.0);
    }
}

#[test]
fn play_the_top_card_mode_is_public() {
    let mut t = Table::new("pokeros(hand_size=0)", "Kc  Qc  9d");
    assert_eq!(t.state.current_player(), Player::Seat(0));
    assert!(t.state.observation_string(1).contains("s0 shows: Qc"));
    assert_eq!(t.play("Qc@1,0"), 0);
    assert!(t.state.observation_string(0).contains("s1 shows: 9d"));
    assert_eq!(
        t.state.legal_actions().len(),
        6,
        "one card, six frontier cells"
    );
}

#[test]
fn greedy_bot_takes_the_best_placement() {
    let mut t = pair_behind_straight_flush_ahead("pokeros");
    // Seat 1 holds 5h 3d 8d: 5h between 5d and 6h 7h is worth 1 + 10 before the multiplier.
    let bot = make_bot("pokeros", "heuristic").unwrap();
    let a = bot.act(t.state.as_ref(), 1, &mut GameRng::new(0));
    assert_eq!(t.state.action_to_string(Player::Seat(1), a), "5h@1,0");
    t.state.apply_action(a).unwrap();
}

#[test]
fn points_reward_pays_as_scored() {
    let mut t = pair_behind_straight_flush_ahead("pokeros(reward=points)");
    t.play("5h@1,0");
    assert_eq!(t.state.returns(), vec![-11.0, 11.0]);
    assert_eq!(t.state.rewards(), vec![-11.0, 11.0]);
}

#[test]
fn views_show_the_viewers_hand_and_hide_the_others() {
    // Centre Kc; seat 0 holds 2c 3c 4c, seat 1 holds 5d 6d 7d; seat 0 plays 2c, draws 9h.
    let mut t = Table::new("pokeros", "Kc  2c 3c 4c  5d 6d 7d  9h");
    t.play("2c@1,0");
    let mine = t.state.view(Some(0));
    assert_eq!(mine["viewer"], 0);
    assert_eq!(mine["seats"][0]["cards"], serde_json::json!(["3c", "4c"]));
    assert_eq!(mine["seats"][0]["count"], 2);
    assert_eq!(
        mine["seats"][1]["cards"],
        serde_json::json!([null, null, null])
    );
    assert_eq!(mine["seats"][1]["count"], 3);
    let text = mine.to_string();
    for hidden in ["5d", "6d", "7d"] {
        assert!(!text.contains(hidden), "seat 0 sees {hidden}: {text}");
    }
    // The board and the moves are public cells.
    assert_eq!(
        mine["board"],
        serde_json::json!([{"x": 0, "y": 0, "card": "Kc"}, {"x": 1, "y": 0, "card": "2c"}])
    );
    assert_eq!(mine["moves"][0]["seat"], 0);
    assert_eq!(
        mine["moves"][0]["cell"],
        serde_json::json!({"x": 1, "y": 0, "card": "2c"})
    );
    let public = t.state.view(None);
    assert!(public["viewer"].is_null());
    for seat in public["seats"].as_array().unwrap() {
        assert!(
            seat["cards"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c.is_null())
        );
    }
    assert_eq!(public["board"], mine["board"]);
    // With hand_size=0 every hand is public.
    let t = Table::new("pokeros(hand_size=0)", "Kc  Qc  9d");
    assert_eq!(
        t.state.view(None)["seats"][0]["cards"],
        serde_json::json!(["Qc"])
    );
    assert_eq!(
        t.state.view(Some(1))["seats"][0]["cards"],
        serde_json::json!(["Qc"])
    );
}

#[test]
fn placements_observation_adds_what_each_placement_would_score() {
    use super::rules::score_placement;
    let t = pair_behind_straight_flush_ahead("pokeros(observation=placements)");
    let plain = pair_behind_straight_flush_ahead("pokeros");
    let board_size = make_game_from_string("pokeros").unwrap().observation_size();
    let size = make_game_from_string("pokeros(observation=placements)")
        .unwrap()
        .observation_size();
    assert_eq!(size, board_size + 15 * 15 * 3, "one entry per action");
    let state = t.pokeros();
    let config = state.config();
    for seat in 0..2 {
        let mut full = vec![f32::NAN; size];
        t.state.observation_tensor(seat, &mut full);
        let mut board = vec![f32::NAN; board_size];
        plain.state.observation_tensor(seat, &mut board);
        assert_eq!(full[..board_size], board[..], "the board part is unchanged");
        let hand: Vec<_> = state.hand(seat).iter().collect();
        for cell in 0..config.cells() {
            for slot in 0..3 {
                let expected = match hand.get(slot) {
                    Some(&card) if state.board().is_legal(cell) => {
                        score_placement(state.board(), cell, card, config).points as f32 / 100.0
                    }
                    _ => 0.0,
                };
                assert_eq!(full[board_size + cell * 3 + slot], expected, "seat {seat}");
            }
        }
    }
    // Seat 1, to move, holds 5h 3d 8d: 5h between 5d and 6h 7h pays (1 + 10) x 2.
    let mut full = vec![0.0; size];
    t.state.observation_tensor(1, &mut full);
    let a = t.state.string_to_action(Player::Seat(1), "5h@1,0").unwrap();
    assert_eq!(full[board_size + a as usize], 0.22);
    let best = (0..15 * 15 * 3)
        .max_by(|&i, &j| full[board_size + i].total_cmp(&full[board_size + j]))
        .unwrap();
    assert_eq!(best as u32, a, "the best placement is the largest entry");
}

/// The lookahead estimate computed the slow way: every legal cell of the new board scored
/// for every card, no shortcuts.
fn lookahead_by_brute_force(state: &PokerosState) -> Vec<(u32, f64)> {
    use super::rules::score_placement;
    let config = state.config();
    let mover = state.to_move();
    let slots = config.slots();
    let hand: Vec<Card> = state.hand(mover).iter().collect();
    let public = config.hand_size == 0;
    let unseen: Vec<Card> = config
        .deck
        .iter()
        .filter(|&c| {
            state.board().cards().all(|(_, b)| b != c)
                && !state.hand(mover).contains(c)
                && (!public || (0..config.players).all(|s| !state.hand(s).contains(c)))
        })
        .collect();
    let next = (mover + 1) % config.players;
    let m = slots.min(state.hand(next).len() as usize + state.deck().len() as usize);
    let best_on = |board: &super::rules::Board, card: Card| {
        let mut best = 0;
        board.for_each_legal(|cell| {
            best = best.max(score_placement(board, cell, card, config).points);
        });
        best
    };
    let mut out = Vec::new();
    state.board().for_each_legal(|cell| {
        for (slot, &card) in hand.iter().enumerate() {
            let now = score_placement(state.board(), cell, card, config).points;
            let mut after = state.board().clone();
            after.place(cell, card);
            let mut replies: Vec<f64> = unseen.iter().map(|&u| best_on(&after, u) as f64).collect();
            // The expected best of m cards drawn from the unseen ones: the chance that the
            // i-th best is the best drawn is C(n - 1 - i, m - 1) / C(n, m).
            replies.sort_by(|a, b| b.total_cmp(a));
            let n = replies.len();
            let choose = |a: usize, b: usize| -> f64 {
                if b > a {
                    return 0.0;
                }
                (0..b).map(|j| (a - j) as f64 / (j + 1) as f64).product()
            };
            let m = m.min(n);
            let reply: f64 = if m == 0 {
                0.0
            } else {
                (0..n)
                    .map(|i| replies[i] * choose(n - 1 - i, m - 1) / choose(n, m))
                    .sum()
            };
            let keep = hand
                .iter()
                .enumerate()
                .filter(|&(s, _)| s != slot)
                .map(|(_, &k)| best_on(&after, k))
                .max()
                .unwrap_or(0);
            let estimate = now as f64 - reply + keep as f64 / 2.0;
            out.push(((cell * slots + slot) as u32, estimate));
        }
    });
    out
}

#[test]
fn lookahead_observation_is_the_two_ply_estimate_of_each_placement() {
    // Seat 1 holds 5h 3d 8d (the rules' example above): 5h between 5d and 6h 7h pays 22 now.
    let t = pair_behind_straight_flush_ahead("pokeros(observation=lookahead)");
    let game = make_game_from_string("pokeros(observation=lookahead)").unwrap();
    let plain_size = make_game_from_string("pokeros").unwrap().observation_size();
    assert_eq!(game.observation_size(), plain_size + 15 * 15 * 3);
    assert_eq!(game.action_features(), Some(plain_size));
    let mut obs = vec![0.0; game.observation_size()];
    t.state.observation_tensor(1, &mut obs);
    let a = t.state.string_to_action(Player::Seat(1), "5h@1,0").unwrap();
    let best = (0..15 * 15 * 3)
        .max_by(|&i, &j| obs[plain_size + i].total_cmp(&obs[plain_size + j]))
        .unwrap();
    assert_eq!(best as u32, a, "22 points now is still the best two-ply estimate");

    // Whole games in several variants: every turn's block against the slow computation, zero
    // for every seat not to move, and the rest of the observation as the plain game's.
    for (spec, plain_spec) in [
        ("pokeros(observation=lookahead)", "pokeros"),
        ("pokeros(observation=lookahead,players=3,wildcards=2)", "pokeros(players=3,wildcards=2)"),
        ("pokeros(observation=lookahead,hand_size=0,board_size=7)", "pokeros(hand_size=0,board_size=7)"),
        (
            "pokeros(observation=lookahead,board_size=5,run_cap_check=prototype,multiplier=cross)",
            "pokeros(board_size=5,run_cap_check=prototype,multiplier=cross)",
        ),
        ("pokeros(observation=lookahead,players=4,hand_size=2,deck=stripped)", "pokeros(players=4,hand_size=2,deck=stripped)"),
    ] {
        let game = make_game_from_string(spec).unwrap();
        let plain = make_game_from_string(plain_spec).unwrap();
        let at = plain.observation_size();
        let bots = [
            make_bot("pokeros", "heuristic").unwrap(),
            make_bot("pokeros", "random").unwrap(),
        ];
        let mut rng = GameRng::new(7);
        let mut state = game.new_initial_state();
        let mut turns = 0;
        loop {
            match state.current_player() {
                Player::Terminal => break,
                Player::Chance => {
                    let a = state.sample_chance_outcome(&mut rng);
                    state.apply_action(a).unwrap();
                }
                Player::Seat(seat) => {
                    turns += 1;
                    let pokeros: &PokerosState = crate::rules::rules_of(state.as_ref()).unwrap();
                    let want = lookahead_by_brute_force(pokeros);
                    let low = want.iter().map(|&(_, v)| v).fold(f64::INFINITY, f64::min);
                    let mut plain_state = plain.new_initial_state();
                    for entry in state.history() {
                        plain_state.apply_action(entry.action).unwrap();
                    }
                    for viewer in 0..game.num_players() {
                        let mut obs = vec![f32::NAN; game.observation_size()];
                        state.observation_tensor(viewer, &mut obs);
                        let mut plain_obs = vec![f32::NAN; at];
                        plain_state.observation_tensor(viewer, &mut plain_obs);
                        assert_eq!(obs[..at], plain_obs[..], "{spec}: the plain part");
                        let mut expected = vec![0.0f32; game.num_distinct_actions()];
                        if viewer == seat {
                            for &(a, v) in &want {
                                expected[a as usize] = ((v - low) / 100.0) as f32;
                            }
                        }
                        for (a, (&got, &want)) in obs[at..].iter().zip(&expected).enumerate() {
                            assert!(
                                (got - want).abs() < 1e-6,
                                "{spec}, turn {turns}, viewer {viewer}, action {a}: {got} against {want}"
                            );
                        }
                    }
                    let a = bots[turns % 2].act(state.as_ref(), seat, &mut rng);
                    state.apply_action(a).unwrap();
                }
                _ => unreachable!(),
            }
        }
        assert!(turns > 10, "{spec}: a whole game");
    }
}
