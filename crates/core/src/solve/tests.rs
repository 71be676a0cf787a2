//! The solvers against numbers OpenSpiel computes for the same games (`pyspiel` 1.6, by
//! `CFRPlusSolver`, `CFRSolver`, `DCFRSolver`, `exploitability` and `nash_conv` after the
//! same iterations; tests/test_solve.py recomputes them live), and against values derived by
//! hand.

use super::*;
use crate::registry::make_game_from_string;

/// Exploitability after `checkpoints` iterations of `algorithm` on `game`.
#[allow(dead_code)]
fn curve(game: &str, algorithm: Algorithm, checkpoints: &[u64]) -> Vec<f64> {
    let game = make_game_from_string(game).unwrap();
    let mut solver = Solver::new(game.as_ref(), algorithm).unwrap();
    checkpoints
        .iter()
        .map(|&n| {
            solver.run(n - solver.iterations());
            solver.exploitability().unwrap()
        })
        .collect()
}

#[allow(dead_code)]
fn assert_close(got: &[f64], want: &[f64]) {
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "got {got:?}, want {want:?}");
    }
}

#[cfg(feature = "kuhn_poker")]
mod kuhn {
    use super::*;

    #[test]
    fn the_uniform_policys_nash_conv_is_openspiels() {
        for (game, want) in [
            ("kuhn_poker", 0.9166666666666666),
            ("kuhn_poker(players=3)", 2.0624999999999996),
        ] {
            let g = make_game_from_string(game).unwrap();
            let tree = Tree::build(g.as_ref(), DEFAULT_MAX_NODES).unwrap();
            let uniform = TabularPolicy::uniform(&tree);
            let got = tree.nash_conv(&uniform).unwrap();
            assert!((got - want).abs() < 1e-12, "{game}: {got} vs {want}");
        }
    }

    #[test]
    fn cfr_plus_matches_openspiel_after_1_10_100_and_1000_iterations() {
        assert_close(
            &curve("kuhn_poker", Algorithm::CfrPlus, &[1, 10, 100, 1000]),
            &[
                0.45833333333333326,
                0.032687090668344826,
                0.0011944041011116846,
                8.736532252084928e-05,
            ],
        );
    }

    #[test]
    fn vanilla_cfr_and_dcfr_match_openspiel() {
        assert_close(
            &curve("kuhn_poker", Algorithm::Cfr, &[1, 10, 100, 1000]),
            &[
                0.45833333333333326,
                0.06869879381715754,
                0.008225977315915206,
                0.0009376166469929614,
            ],
        );
        assert_close(
            &curve("kuhn_poker", Algorithm::DCFR, &[10]),
            &[0.0227787839257636],
        );
    }

    #[test]
    fn three_seat_nash_conv_matches_openspiel() {
        let game = make_game_from_string("kuhn_poker(players=3)").unwrap();
        let mut solver = Solver::new(game.as_ref(), Algorithm::CfrPlus).unwrap();
        solver.run(10);
        let got = solver.nash_conv();
        assert!((got - 0.14933017560455653).abs() < 1e-9, "{got}");
    }

    /// Both seats always bet (and call). Seat 1 facing a bet calls with the king (+2), calls
    /// or folds with the queen (0 or -1: calls), folds the jack (-1): 1/3. Seat 0 against a
    /// seat that always bets: bets the king (+2), with the queen bets (0: +2 or -2) rather
    /// than check-fold (-1), checks and folds the jack (-1): 1/3.
    #[test]
    fn a_best_response_to_always_bet_wins_a_third() {
        let game = make_game_from_string("kuhn_poker").unwrap();
        let tree = Tree::build(game.as_ref(), DEFAULT_MAX_NODES).unwrap();
        let mut always = TabularPolicy::new();
        for infoset in &tree.infosets {
            always.set(infoset.key.clone(), vec![(0, 0.0), (1, 1.0)]);
        }
        for seat in 0..2 {
            let (response, policy) = tree.best_response(&always, seat).unwrap();
            assert!((response.value - 1.0 / 3.0).abs() < 1e-12, "{response:?}");
            // The response is a pure policy of the seat's information states.
            assert_eq!(
                policy.len(),
                tree.infosets.iter().filter(|i| i.seat == seat).count()
            );
        }
        assert!((tree.exploitability(&always).unwrap() - 1.0 / 3.0).abs() < 1e-12);
        // Values when both always bet: every deal is a showdown for 2, zero on average.
        let values = tree.policy_values(&always).unwrap();
        assert!(values.iter().all(|v| v.abs() < 1e-12), "{values:?}");
    }

    #[test]
    fn the_tree_has_kuhns_size() {
        let game = make_game_from_string("kuhn_poker").unwrap();
        let tree = Tree::build(game.as_ref(), DEFAULT_MAX_NODES).unwrap();
        // 6 deals × 5 betting lines ending the game; 12 information states (6 per seat).
        assert_eq!(tree.num_terminals(), 30);
        assert_eq!(tree.infosets.len(), 12);
        // The deals (1 + 3 chance nodes), then per deal 4 decisions and 5 ends.
        assert_eq!(tree.num_nodes(), 1 + 3 + 6 * 9);
        assert_eq!(tree.utility_sum, Some(0.0));
    }

    #[test]
    fn external_sampling_converges() {
        let game = make_game_from_string("kuhn_poker").unwrap();
        let mut solver =
            Solver::new(game.as_ref(), Algorithm::ExternalSampling { seed: 7 }).unwrap();
        solver.run(100);
        let early = solver.exploitability().unwrap();
        solver.run(9_900);
        let late = solver.exploitability().unwrap();
        assert!(late < 0.01 && late < early, "{early} then {late}");
        // The same seed gives the same policy.
        let mut again =
            Solver::new(game.as_ref(), Algorithm::ExternalSampling { seed: 7 }).unwrap();
        again.run(10_000);
        assert_eq!(again.average_policy(), solver.average_policy());
    }

    #[test]
    fn bad_policies_are_refused_with_the_information_state() {
        let game = make_game_from_string("kuhn_poker").unwrap();
        let tree = Tree::build(game.as_ref(), DEFAULT_MAX_NODES).unwrap();
        let mut policy = TabularPolicy::uniform(&tree);
        let key = tree.infosets[0].key.clone();
        policy.set(key.clone(), vec![(0, 0.7), (1, 0.7)]);
        let e = tree.exploitability(&policy).unwrap_err().to_string();
        assert!(e.contains(&key) && e.contains("sum to 1.4"), "{e}");
        policy.set(key.clone(), vec![(5, 1.0)]);
        let e = tree.exploitability(&policy).unwrap_err().to_string();
        assert!(e.contains("action 5 is not legal"), "{e}");
        policy.set(key.clone(), vec![(0, f64::NAN), (1, 1.0)]);
        assert!(tree.nash_conv(&policy).is_err());
        let empty = TabularPolicy::new();
        let e = tree.policy_values(&empty).unwrap_err().to_string();
        assert!(e.contains("has no probabilities"), "{e}");
        let e = tree.best_response(&empty, 2).unwrap_err().to_string();
        assert_eq!(
            e,
            "seat 2 does not exist; kuhn_poker(players=2) has seats 0 to 1"
        );
    }
}

#[cfg(feature = "leduc_poker")]
mod leduc {
    use super::*;

    #[test]
    fn the_uniform_policys_nash_conv_is_openspiels() {
        let game = make_game_from_string("leduc_poker").unwrap();
        let tree = Tree::build(game.as_ref(), DEFAULT_MAX_NODES).unwrap();
        let got = tree.nash_conv(&TabularPolicy::uniform(&tree)).unwrap();
        assert!((got - 4.747222222222222).abs() < 1e-9, "{got}");
        // OpenSpiel's count of Leduc's information states.
        assert_eq!(tree.infosets.len(), 936);
    }

    /// pyspiel's `CFRPlusSolver` took 89 s for the 1,000 iterations on the 2-core machine.
    #[test]
    fn cfr_plus_matches_openspiel_after_1_10_100_and_1000_iterations() {
        assert_close(
            &curve("leduc_poker", Algorithm::CfrPlus, &[1, 10, 100, 1000]),
            &[
                2.373611111111111,
                0.6104389015904066,
                0.013415994970897835,
                0.0002571516161564563,
            ],
        );
    }
}

#[test]
fn games_too_large_to_enumerate_are_refused_with_their_size() {
    for name in ["pokeros", "poker_chess", "holdem_chess", "detective_poker"] {
        let game = make_game_from_string(name).unwrap();
        let e = Solver::new(game.as_ref(), Algorithm::CfrPlus).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, SolveError::TooLarge { .. }) && text.contains("too large to solve"),
            "{name}: {text}"
        );
        assert!(text.contains("estimated from 64 random descents"), "{text}");
    }
    let game = make_game_from_string("prediction_chess").unwrap();
    let e = Solver::new(game.as_ref(), Algorithm::CfrPlus).unwrap_err();
    assert!(
        matches!(
            e,
            SolveError::Simultaneous { .. } | SolveError::TooLarge { .. }
        ),
        "{e}"
    );
}

#[test]
fn the_python_faces_default_limit_is_the_engines() {
    // crates/py/src/solve.rs writes the default out (pyo3 shows a constant as `...`).
    assert_eq!(DEFAULT_MAX_NODES, 10_000_000);
}

#[test]
fn only_small_sequential_games_are_solvable() {
    for name in [
        "pokeros",
        "poker_chess",
        "holdem_chess",
        "detective_poker",
        "prediction_chess",
    ] {
        assert!(
            !solvable(make_game_from_string(name).unwrap().as_ref()),
            "{name}"
        );
    }
    #[cfg(feature = "kuhn_poker")]
    assert!(solvable(
        make_game_from_string("kuhn_poker").unwrap().as_ref()
    ));
}

#[test]
fn algorithms_parse_by_name() {
    assert_eq!(Algorithm::parse("CFR+", 0).unwrap(), Algorithm::CfrPlus);
    assert_eq!(Algorithm::parse("dcfr", 0).unwrap(), Algorithm::DCFR);
    assert_eq!(
        Algorithm::parse("mccfr", 9).unwrap(),
        Algorithm::ExternalSampling { seed: 9 }
    );
    let e = Algorithm::parse("fictitious", 0).unwrap_err().to_string();
    assert_eq!(
        e,
        "'algorithm' cannot be 'fictitious': one of: cfr, cfr+, dcfr, mccfr"
    );
}
