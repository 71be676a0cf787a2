//! The ladder's tests: duplicate sets, ratings, restores.

use super::*;
use crate::rng::GameRng;

fn game(set: u64, seats: &[&str], returns: &[f64]) -> LadderGame {
    LadderGame {
        set,
        seats: seats.iter().map(|s| s.to_string()).collect(),
        returns: returns.to_vec(),
        forfeits: vec![false; seats.len()],
    }
}

fn candidate(name: &str, playing: usize) -> Candidate {
    Candidate {
        name: name.to_string(),
        playing,
    }
}

fn rating<'a>(table: &'a [LadderRating], bot: &str) -> &'a LadderRating {
    table.iter().find(|r| r.bot == bot).expect("rated")
}

#[test]
fn a_duplicate_set_plays_every_seating_on_one_deal() {
    let two = duplicate_set("a", "b", 2, 7);
    let seats: Vec<Vec<String>> = two.iter().map(|g| g.seats.clone()).collect();
    assert_eq!(seats, [["a", "b"], ["b", "a"]]);
    assert!(two.iter().all(|g| g.chance_seed == 7));
    // Three seats: every rotation of A B A and of B A B, each bot at every seat equally.
    let three = duplicate_set("a", "b", 3, 9);
    assert_eq!(three.len(), 6);
    for seat in 0..3 {
        let a_here = three.iter().filter(|g| g.seats[seat] == "a").count();
        assert_eq!(a_here, 3, "seat {seat}");
    }
}

#[test]
fn the_free_bot_with_fewest_games_meets_the_one_it_has_played_least() {
    let mut tally = Tally::default();
    tally.add_set("random", "heuristic", 2);
    tally.add_set("random", "heuristic", 2);
    tally.add_set("random", "mine", 2);
    let ratings = HashMap::from([
        ("random".to_string(), 0.0),
        ("heuristic".to_string(), 300.0),
        ("mine".to_string(), 250.0),
    ]);
    let all = [
        candidate("random", 0),
        candidate("heuristic", 0),
        candidate("mine", 0),
        candidate("new", 0),
    ];
    // "new" has no games, and has played no set with anyone: the closest rating (0 for a
    // bot without one) decides, so it meets random.
    assert_eq!(
        next_pair(&all, &tally, &ratings, 1),
        Some(("new".to_string(), "random".to_string()))
    );
    // Without "new": "mine" (2 games) has met heuristic least.
    assert_eq!(
        next_pair(&all[..3], &tally, &ratings, 1),
        Some(("mine".to_string(), "heuristic".to_string()))
    );
    // A bot at its limit is not placed; with one bot free there is no pair.
    let busy = [
        candidate("random", 1),
        candidate("heuristic", 0),
        candidate("mine", 2),
    ];
    assert_eq!(
        next_pair(&busy, &tally, &ratings, 2),
        Some(("heuristic".to_string(), "random".to_string()))
    );
    assert_eq!(next_pair(&busy, &tally, &ratings, 1), None);
    assert_eq!(next_pair(&[], &tally, &ratings, 1), None);
}

#[test]
fn the_tally_counts_games_and_each_set_once() {
    let games = [
        game(1, &["a", "b"], &[1.0, -1.0]),
        game(1, &["b", "a"], &[1.0, -1.0]),
        game(2, &["a", "c"], &[0.0, 0.0]),
    ];
    let tally = Tally::from_games(&games).unwrap();
    assert_eq!(
        (tally.games("a"), tally.games("b"), tally.games("d")),
        (3, 2, 0)
    );
    assert_eq!(
        (
            tally.sets("a", "b"),
            tally.sets("b", "a"),
            tally.sets("b", "c")
        ),
        (1, 1, 0)
    );
}

/// Games between bots of known Bradley–Terry strengths (Elo scale), each pair `sets`
/// duplicate sets of two games, the outcome drawn from the model.
fn simulated(elo: &[(&str, f64)], sets: usize, seed: u64) -> Vec<LadderGame> {
    let mut rng = GameRng::new(seed);
    let mut games = Vec::new();
    let mut set = 0;
    for (x, &(a, ra)) in elo.iter().enumerate() {
        for &(b, rb) in &elo[x + 1..] {
            let p = 1.0 / (1.0 + 10f64.powf((rb - ra) / 400.0));
            for _ in 0..sets {
                set += 1;
                for seats in [[a, b], [b, a]] {
                    let a_wins = rng.unit_f64() < p;
                    let returns = if (seats[0] == a) == a_wins {
                        [1.0, -1.0]
                    } else {
                        [-1.0, 1.0]
                    };
                    games.push(game(set, &seats, &returns));
                }
            }
        }
    }
    games
}

#[test]
fn ratings_order_bots_of_known_strength_with_intervals_apart() {
    let truth = [("random", 0.0), ("heuristic", 200.0), ("search", 400.0)];
    let table = ratings(&simulated(&truth, 150, 3), "random").unwrap();
    let names: Vec<&str> = table.iter().map(|r| r.bot.as_str()).collect();
    assert_eq!(names, ["search", "heuristic", "random"]);
    for &(bot, elo) in &truth {
        let r = rating(&table, bot);
        assert!(
            r.ci.0 <= elo && elo <= r.ci.1,
            "{bot}: {elo} outside {:?}",
            r.ci
        );
        assert_eq!(r.games, 600);
    }
    assert!(
        table[0].ci.0 > table[1].ci.1 && table[1].ci.0 > table[2].ci.1,
        "{table:?}"
    );
    // The anchor is 0 exactly, its interval a point.
    assert_eq!(rating(&table, "random").ci, (0.0, 0.0));
    // Returns: the better bot gains in every pair, so the order is the same.
    assert!(table[0].return_rating > table[1].return_rating);
    assert!(table[1].return_rating > 0.0);
}

#[test]
fn a_bot_that_wins_every_game_has_a_finite_rating_and_a_bot_never_met_is_near_the_anchor() {
    let games: Vec<LadderGame> = (0..10)
        .map(|set| game(set, &["ace", "random"], &[1.0, -1.0]))
        .chain([game(99, &["x", "y"], &[0.0, 0.0])])
        .collect();
    let table = ratings(&games, "random").unwrap();
    let ace = rating(&table, "ace");
    assert!(ace.rating.is_finite() && ace.rating > 300.0, "{ace:?}");
    assert!(ace.ci.0 > 0.0 && ace.ci.1.is_finite());
    assert_eq!(ace.wins, 10.0);
    // x and y drew one game with each other and have not met the anchor's side: the
    // prior holds them at 0 with wide intervals.
    let x = rating(&table, "x");
    assert!(x.rating.abs() < 1e-6 && x.ci.1 - x.ci.0 > 500.0, "{x:?}");
}

#[test]
fn the_return_rating_is_the_mean_margin_shrunk_by_one_set_of_the_prior() {
    // Four sets in which "up" wins 1 per seat against the anchor (a margin of 1): the
    // fit with the prior's one set at 0 is 4/5.
    let games: Vec<LadderGame> = (0..4)
        .flat_map(|set| {
            [
                game(set, &["up", "random"], &[1.0, -1.0]),
                game(set, &["random", "up"], &[-1.0, 1.0]),
            ]
        })
        .collect();
    let table = ratings(&games, "random").unwrap();
    let up = rating(&table, "up");
    assert!((up.return_rating - 0.8).abs() < 1e-9, "{up:?}");
    assert!(up.return_ci.0 <= 0.8 && 0.8 <= up.return_ci.1);
    assert_eq!(rating(&table, "random").return_rating, 0.0);
}

#[test]
fn a_forfeit_counts_once_per_game_and_the_game_counts_as_played() {
    let mut lost = game(1, &["slow", "random", "slow"], &[-1.0, 2.0, -1.0]);
    lost.forfeits = vec![true, false, true];
    let table = ratings(
        &[
            lost,
            game(2, &["slow", "random", "slow"], &[0.5, -1.0, 0.5]),
        ],
        "random",
    )
    .unwrap();
    let slow = rating(&table, "slow");
    assert_eq!((slow.games, slow.forfeits, slow.wins), (2, 1, 1.0));
    assert_eq!(rating(&table, "random").forfeits, 0);
}

#[test]
fn a_game_without_exactly_two_bots_or_a_set_of_other_bots_is_refused() {
    let refused = |games: &[LadderGame]| ratings(games, "random").unwrap_err().to_string();
    assert!(refused(&[game(1, &["a", "b", "c"], &[0.0; 3])]).contains("exactly two distinct bots"));
    assert!(refused(&[game(1, &["a", "a"], &[0.0; 2])]).contains("two distinct bots"));
    assert!(refused(&[game(1, &[], &[])]).contains("no seats"));
    assert!(refused(&[game(1, &["a", "b"], &[0.0])]).contains("a return and a forfeit flag"));
    let mixed = [
        game(1, &["a", "b"], &[0.0; 2]),
        game(1, &["a", "c"], &[0.0; 2]),
    ];
    assert!(refused(&mixed).contains("same two bots"));
    assert!(Tally::from_games(&[game(1, &["a"], &[0.0])]).is_err());
}

#[test]
fn registered_names_are_checked_and_cannot_pass_for_house_bots() {
    for good in ["alice", "deep-bot_2", "abc"] {
        assert!(check_bot_name(good).is_ok(), "{good}");
    }
    for bad in [
        "ab",
        "Alice",
        "2bot",
        "bot name",
        "a".repeat(33).as_str(),
        "bøt",
    ] {
        let error = check_bot_name(bad).unwrap_err().to_string();
        assert!(error.contains("3 to 32 characters"), "{bad}: {error}");
    }
    for impostor in [
        "heuristic2",
        "random-bot",
        "ismcts_fast",
        "policy",
        "human1",
    ] {
        let error = check_bot_name(impostor).unwrap_err().to_string();
        assert!(
            error.contains("the server's own bots"),
            "{impostor}: {error}"
        );
    }
    let mut ladder = Ladder::new("pokeros", &["random", "heuristic"], 1, 1).unwrap();
    ladder.register("alice").unwrap();
    assert!(
        ladder
            .register("alice")
            .unwrap_err()
            .to_string()
            .contains("no bot on this ladder has")
    );
    assert!(ladder.set_connected("random", false).is_err());
    assert!(ladder.retire("heuristic").is_err());
    assert!(ladder.set_connected("bob", true).is_err());
}

#[test]
fn a_ladder_is_refused_without_a_game_an_anchor_or_a_slot() {
    assert!(Ladder::new("no_such_game", &["random"], 1, 0).is_err());
    assert!(Ladder::new("pokeros", &[], 1, 0).is_err());
    assert!(Ladder::new("pokeros", &["random"], 0, 0).is_err());
    assert!(Ladder::new("pokeros", &["random", "random"], 1, 0).is_err());
    assert!(Ladder::new("pokeros", &["nobody"], 1, 0).is_err());
    assert_eq!(
        Ladder::new("pokeros", &["heuristic", "random"], 1, 0)
            .unwrap()
            .anchor(),
        "random"
    );
    assert_eq!(
        Ladder::new("pokeros", &["heuristic"], 1, 0)
            .unwrap()
            .anchor(),
        "heuristic"
    );
}

/// Plays a ladder to `sets` sets in process: every bot (house or registered) is played by
/// the engine's bot named by `spec_of`, each set's games as the ladder gives them.
fn play_ladder(ladder: &mut Ladder, sets: usize, spec_of: &dyn Fn(&str) -> String) {
    let game = make_game_from_string(ladder.game()).unwrap();
    let mut started = 0;
    while started < sets {
        let mut batch = Vec::new();
        while let Some(set) = ladder.start_set().unwrap() {
            batch.push(set);
            started += 1;
            if started == sets {
                break;
            }
        }
        assert!(!batch.is_empty(), "no set could start");
        for set in batch {
            for (g, play) in set.games.iter().enumerate() {
                let bots: Vec<Box<dyn crate::bots::Bot>> = play
                    .seats
                    .iter()
                    .map(|name| {
                        BotSpec::parse::<&str, &str>(&spec_of(name), [])
                            .unwrap()
                            .build(game.as_ref())
                            .unwrap()
                    })
                    .collect();
                let refs: Vec<&dyn crate::bots::Bot> = bots.iter().map(|b| b.as_ref()).collect();
                let returns = crate::arena::play_game(
                    game.as_ref(),
                    &refs,
                    play.chance_seed,
                    set.set * 100 + g as u64,
                );
                ladder
                    .record(LadderGame {
                        set: set.set,
                        seats: play.seats.clone(),
                        forfeits: vec![false; returns.len()],
                        returns,
                    })
                    .unwrap();
            }
        }
    }
}

#[test]
fn a_ladder_of_real_games_places_everyone_fairly_and_rates_known_strengths_apart() {
    let mut ladder = Ladder::new("pokeros", &["random", "heuristic"], 1, 5).unwrap();
    for name in ["steady", "coin"] {
        ladder.register(name).unwrap();
        ladder.set_connected(name, true).unwrap();
    }
    // "steady" is played by the heuristic, "coin" by the random bot.
    let spec_of = |name: &str| match name {
        "steady" => "heuristic".to_string(),
        "coin" => "random".to_string(),
        house => house.to_string(),
    };
    play_ladder(&mut ladder, 120, &spec_of);
    assert!(ladder.in_play().is_empty());
    assert_eq!(ladder.games().len(), 240);
    // Every pair of the four bots met 20 times: the pairing spreads the sets evenly.
    let tally = Tally::from_games(ladder.games()).unwrap();
    let names = ["random", "heuristic", "steady", "coin"];
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            assert_eq!(tally.sets(a, b), 20, "{a} and {b}");
        }
    }
    let table = ladder.leaderboard().unwrap();
    let strong = ["heuristic", "steady"].map(|b| rating(&table, b).ci.0);
    let weak = ["random", "coin"].map(|b| rating(&table, b).ci.1);
    assert!(
        strong.iter().cloned().fold(f64::INFINITY, f64::min)
            > weak.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        "{table:#?}"
    );
    // A duplicate set's two games share their deal and swap the seats.
    let first: Vec<&LadderGame> = ladder.games().iter().filter(|g| g.set == 1).collect();
    assert_eq!(first.len(), 2);
    assert_eq!(
        first[0].seats,
        [first[1].seats[1].clone(), first[1].seats[0].clone()]
    );
}

#[test]
fn house_bots_meet_each_other_only_as_often_as_the_cap_says() {
    let mut ladder = Ladder::new("pokeros", &["random", "heuristic"], 1, 3)
        .unwrap()
        .with_house_sets(3);
    ladder.register("alice").unwrap();
    ladder.set_connected("alice", true).unwrap();
    let mut house_sets = std::collections::BTreeSet::new();
    let mut alice_sets = 0;
    for _ in 0..30 {
        let Some(set) = ladder.start_set().unwrap() else {
            break;
        };
        let seats = &set.games[0].seats;
        if seats.iter().any(|s| s == "alice") {
            alice_sets += 1;
        } else {
            house_sets.insert(set.set);
        }
        for play in &set.games {
            ladder
                .record(LadderGame {
                    set: set.set,
                    seats: play.seats.clone(),
                    returns: vec![1.0, 0.0],
                    forfeits: vec![false; 2],
                })
                .unwrap();
        }
    }
    assert_eq!(house_sets.len(), 3);
    // Alice goes on playing the house bots.
    assert_eq!(alice_sets, 27);
    // Without a registered bot the capped house bots are not paired at all.
    ladder.set_connected("alice", false).unwrap();
    assert!(ladder.start_set().unwrap().is_none());
}

#[test]
fn the_limit_caps_each_bots_sets_in_play_and_a_retired_or_absent_bot_is_not_placed() {
    let mut ladder = Ladder::new("pokeros", &["random", "heuristic"], 2, 1).unwrap();
    for name in ["alice", "bob", "carol"] {
        ladder.register(name).unwrap();
    }
    ladder.set_connected("alice", true).unwrap();
    ladder.set_connected("bob", true).unwrap();
    // carol registered but is not connected.
    let mut started = Vec::new();
    while let Some(set) = ladder.start_set().unwrap() {
        started.push(set);
    }
    let mut playing: HashMap<String, usize> = HashMap::new();
    for (_, a, b) in ladder.in_play() {
        *playing.entry(a).or_default() += 1;
        *playing.entry(b).or_default() += 1;
    }
    assert!(playing.values().all(|&n| n <= 2), "{playing:?}");
    assert!(!playing.contains_key("carol"));
    // Four bots with two slots each: four sets.
    assert_eq!(started.len(), 4);
    // Finishing the sets frees their bots' slots; a retired bot is not placed again.
    for set in &started {
        for play in &set.games {
            ladder
                .record(LadderGame {
                    set: set.set,
                    seats: play.seats.clone(),
                    returns: vec![0.0; 2],
                    forfeits: vec![false; 2],
                })
                .unwrap();
        }
    }
    assert!(ladder.in_play().is_empty());
    ladder.retire("alice").unwrap();
    let next = ladder.start_set().unwrap().expect("a freed pair");
    assert!(next.games[0].seats.iter().all(|s| s != "alice"));
    // A game of a set not in play, or of other bots, is refused.
    let stray = LadderGame {
        set: 999,
        seats: vec!["random".into(), "bob".into()],
        returns: vec![0.0; 2],
        forfeits: vec![false; 2],
    };
    assert!(
        ladder
            .record(stray)
            .unwrap_err()
            .to_string()
            .contains("a set in play")
    );
    let wrong = LadderGame {
        set: next.set,
        seats: vec!["carol".into(), "alice".into()],
        returns: vec![0.0; 2],
        forfeits: vec![false; 2],
    };
    assert!(
        ladder
            .record(wrong)
            .unwrap_err()
            .to_string()
            .contains("the set's bots")
    );
    // An abandoned set frees its bots' slots and takes no more games.
    let before: usize = ladder.bots().map(|b| b.playing).sum();
    ladder.abandon(next.set).unwrap();
    assert_eq!(ladder.bots().map(|b| b.playing).sum::<usize>(), before - 2);
    assert!(ladder.in_play().iter().all(|(set, _, _)| *set != next.set));
    assert!(ladder.abandon(next.set).is_err());
}

#[test]
fn a_restored_ladder_has_the_same_leaderboard_and_numbers_sets_on() {
    let mut ladder = Ladder::new("pokeros", &["random", "heuristic"], 1, 3).unwrap();
    ladder.register("steady").unwrap();
    ladder.set_connected("steady", true).unwrap();
    play_ladder(&mut ladder, 9, &|name| {
        if name == "steady" {
            "heuristic".into()
        } else {
            name.into()
        }
    });
    let games = ladder.games().to_vec();
    let last = games.iter().map(|g| g.set).max().unwrap();
    let fresh = Ladder::new("pokeros", &["random", "heuristic"], 1, 3).unwrap();
    let mut again = fresh.restore(&[("steady", false)], games.clone()).unwrap();
    assert_eq!(again.leaderboard().unwrap(), ladder.leaderboard().unwrap());
    // Registered bots come back not connected; once connected, the sets go on.
    again.set_connected("steady", true).unwrap();
    assert!(again.start_set().unwrap().unwrap().set > last);
    // Games of a bot the ladder does not have are refused.
    let fresh = Ladder::new("pokeros", &["random", "heuristic"], 1, 3).unwrap();
    assert!(fresh.restore(&[], games).is_err());
}
