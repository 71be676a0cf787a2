//! The arena on tiny fixed runs: its table's shape, its determinism, and what it measures.

use checkraise_core::arena::{ArenaConfig, run};

#[test]
fn a_tiny_run_gives_a_complete_reproducible_table() {
    let config = ArenaConfig::new(
        "poker_chess",
        &[
            "random",
            "heuristic",
            "ismcts(iterations=30,rollout=random)",
        ],
        3,
        7,
    );
    let a = run(&config, None).unwrap();
    let b = run(&config, None).unwrap();
    assert_eq!(a, b, "same seed, same results");
    assert_eq!(a.to_markdown(), b.to_markdown());
    assert_eq!(a.seatings, 2);
    assert_eq!(a.pairs.len(), 6, "every ordered pair");
    assert_eq!(a.anchor, "random");
    for p in &a.pairs {
        assert_eq!(p.games, 6);
        assert!(p.mean_ci.0 <= p.mean && p.mean <= p.mean_ci.1);
        assert!(0.0 <= p.win_ci.0 && p.win_ci.0 <= p.win_rate && p.win_rate <= p.win_ci.1);
        // Two seats, zero-sum: B's line is A's negated.
        let back = a
            .pairs
            .iter()
            .find(|q| q.bot == p.opponent && q.opponent == p.bot)
            .unwrap();
        assert!((back.mean + p.mean).abs() < 1e-9);
        assert!((back.win_rate + p.win_rate - 1.0).abs() < 1e-9);
    }
    let random = a.ratings.iter().find(|r| r.bot == "random").unwrap();
    assert_eq!(random.rating, 0.0);
    assert!(a.ratings.windows(2).all(|w| w[0].rating >= w[1].rating));
    for r in &a.ratings {
        assert!(r.ci.0 <= r.ci.1);
    }
    let md = a.to_markdown();
    assert!(md.contains("| `heuristic` | `random` | 6 |"), "{md}");
    let csv = a.to_csv();
    assert_eq!(csv.lines().count(), 1 + 6 + 3);
    let json: serde_json::Value = serde_json::from_str(&a.to_json()).unwrap();
    assert_eq!(json["pairs"].as_array().unwrap().len(), 6);
    // Another seed, other games.
    let other = run(
        &ArenaConfig::new("poker_chess", &["random", "heuristic"], 3, 8),
        None,
    )
    .unwrap();
    assert_ne!(other.pairs[0], a.pairs[0]);
}

#[test]
fn more_seats_play_every_rotation_and_progress_is_reported() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let seen = AtomicUsize::new(0);
    let report = |done: usize, total: usize| {
        assert!(done <= total && total == 2);
        seen.fetch_max(done, Ordering::Relaxed);
    };
    let r = run(
        &ArenaConfig::new("detective_poker(players=3)", &["random", "heuristic"], 2, 1),
        Some(&report),
    )
    .unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), 2);
    assert_eq!(r.seatings, 6);
    assert_eq!(r.pairs[0].games, 12);
}

/// The heuristic bot beats random play at Poker Chess in a duplicate run (it does by a wide
/// margin; 20 deals are plenty for the interval to clear 0).
#[test]
fn the_arena_separates_a_strong_bot_from_a_weak_one() {
    let r = run(
        &ArenaConfig::new("poker_chess", &["random", "heuristic"], 20, 3),
        None,
    )
    .unwrap();
    let h = r.pairs.iter().find(|p| p.bot == "heuristic").unwrap();
    assert!(h.mean_ci.0 > 0.0, "{}", r.to_markdown());
    assert!(r.ratings[0].bot == "heuristic" && r.ratings[0].ci.0 > 0.0);
}
