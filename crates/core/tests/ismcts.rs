//! IS-MCTS: determinism, the information rule on every game, decoupled simultaneous search,
//! and strength against random play.

use std::sync::Arc;

use checkraise_core::bots::policy::{SafetensorsFile, TensorValues};
use checkraise_core::bots::{
    Belief, Bot, BotSpec, IsmctsBot, IsmctsConfig, OpponentModel, PolicyNet, Rollout,
};
use checkraise_core::env::resolve_chance;
use checkraise_core::make_bot;
use checkraise_core::registry::{entries, make_game_from_string};
use checkraise_core::{GameRng, Player, PlayerAction, State};

fn ismcts(spec: &str) -> IsmctsBot {
    match BotSpec::parse::<&str, &str>(spec, []).unwrap() {
        BotSpec::Ismcts(config) => IsmctsBot::new(config),
        other => panic!("not a search spec: {other}"),
    }
}

/// The bot of a search spec for `game` (a belief needs the game).
fn ismcts_for(game: &str, spec: &str) -> IsmctsBot {
    let game = make_game_from_string(game).unwrap();
    match BotSpec::parse::<&str, &str>(spec, []).unwrap() {
        BotSpec::Ismcts(config) => IsmctsBot::for_game(config, game.as_ref()).unwrap(),
        other => panic!("not a search spec: {other}"),
    }
}

/// States where a seat must decide, reached by random play from `seed`: up to `count`,
/// `every` decisions apart.
fn decision_points(game: &str, seed: u64, count: usize, every: usize) -> Vec<Box<dyn State>> {
    let game = make_game_from_string(game).unwrap();
    let mut rng = GameRng::new(seed);
    let mut state = game.new_initial_state();
    let mut out = Vec::new();
    let mut decisions = 0;
    loop {
        resolve_chance(state.as_mut(), &mut rng);
        match state.current_player() {
            Player::Terminal => return out,
            Player::Seat(s) => {
                if decisions % every == 0 && state.legal_actions().len() > 1 {
                    out.push(state.clone());
                    if out.len() == count {
                        return out;
                    }
                }
                let a = rng.choose(&state.legal_actions_for(Player::Seat(s)));
                state.apply_action(a).unwrap();
            }
            Player::Simultaneous => {
                if decisions % every == 0 {
                    out.push(state.clone());
                    if out.len() == count {
                        return out;
                    }
                }
                let joint: Vec<u32> = (0..state.num_players())
                    .map(|p| rng.choose(&state.legal_actions_for(Player::Seat(p))))
                    .collect();
                state.apply_actions(&joint).unwrap();
            }
            Player::Chance => unreachable!(),
        }
        decisions += 1;
    }
}

fn seats_to_act(state: &dyn State) -> Vec<usize> {
    match state.current_player() {
        Player::Seat(s) => vec![s],
        Player::Simultaneous => (0..state.num_players()).collect(),
        _ => vec![],
    }
}

#[test]
fn same_seed_and_iterations_give_the_same_move_and_tree() {
    for e in entries() {
        let name = e.info.name;
        let bot = ismcts("ismcts(iterations=150,seed=11)");
        for state in decision_points(name, 5, 2, 3) {
            for seat in seats_to_act(state.as_ref()) {
                let a = bot.search(state.as_ref(), seat, &mut GameRng::new(1));
                let b = bot.search(state.as_ref(), seat, &mut GameRng::new(2));
                assert_eq!(a, b, "{name}: a fixed seed ignores the caller's generator");
                assert!(a.iterations == 150 || a.root.len() == 1);
                assert_eq!(
                    a.deals, a.iterations,
                    "{name}: plain search draws a deal each time"
                );
                assert!(a.nodes <= 151, "{name}: at most one node per iteration");
                let legal = state.legal_actions_for(Player::Seat(seat));
                assert!(legal.contains(&a.action));
            }
        }
        // Without a fixed seed: reproducible from the caller's generator.
        let free = ismcts("ismcts(iterations=100)");
        let state = &decision_points(name, 9, 1, 1)[0];
        let seat = seats_to_act(state.as_ref())[0];
        assert_eq!(
            free.search(state.as_ref(), seat, &mut GameRng::new(4)),
            free.search(state.as_ref(), seat, &mut GameRng::new(4)),
        );
    }
}

/// The information rule: a bot's move is a function of its seat's information state. On
/// every game, at decision points along random games, the move (and the whole root
/// statistics) is the same on every resample of the seat's information state.
#[test]
fn the_move_is_the_same_on_every_resample_of_the_seats_information() {
    for e in entries() {
        let name = e.info.name;
        for rollout in ["random", "heuristic"] {
            let bot = ismcts(&format!("ismcts(iterations=60,seed=3,rollout={rollout})"));
            for (k, state) in decision_points(name, 17, 4, 4).into_iter().enumerate() {
                for seat in seats_to_act(state.as_ref()) {
                    let truth = bot.search(state.as_ref(), seat, &mut GameRng::new(0));
                    let mut rng = GameRng::new(100 + k as u64);
                    for _ in 0..3 {
                        let other = state.resample_from_infostate(seat, &mut rng);
                        let seen = bot.search(other.as_ref(), seat, &mut GameRng::new(0));
                        assert_eq!(
                            truth, seen,
                            "{name} ({rollout} rollouts): seat {seat}'s search read hidden \
                             information\n{state}\n---\n{other}"
                        );
                    }
                }
            }
        }
    }
}

/// The information rule holds for belief-weighted searches too: the opponent model reads the
/// other seats' observations in the search's own determinizations, never the true state.
#[test]
fn a_belief_weighted_move_is_the_same_on_every_resample_of_the_seats_information() {
    for e in entries() {
        let name = e.info.name;
        let beliefs: &[&str] = if e.policy.is_some() {
            &["heuristic", "policy"]
        } else {
            &["heuristic"]
        };
        for belief in beliefs {
            let bot = ismcts_for(
                name,
                &format!("ismcts(iterations=40,seed=3,rollout=random,belief={belief})"),
            );
            for (k, state) in decision_points(name, 23, 3, 5).into_iter().enumerate() {
                for seat in seats_to_act(state.as_ref()) {
                    let truth = bot.search(state.as_ref(), seat, &mut GameRng::new(0));
                    let mut rng = GameRng::new(200 + k as u64);
                    for _ in 0..2 {
                        let other = state.resample_from_infostate(seat, &mut rng);
                        let seen = bot.search(other.as_ref(), seat, &mut GameRng::new(0));
                        assert_eq!(
                            truth, seen,
                            "{name} (belief={belief}): seat {seat}'s search read hidden \
                             information\n{state}\n---\n{other}"
                        );
                    }
                }
            }
        }
    }
}

/// Each seat's observation when it decided, for the decisions among the first `len` entries
/// of `history`, replayed from the game's initial state.
fn observations_at_decisions(game: &str, history: &[PlayerAction], len: usize) -> Vec<Vec<f32>> {
    let game = make_game_from_string(game).unwrap();
    let mut state = game.new_initial_state();
    let mut out = Vec::new();
    let mut observe = |state: &dyn State, seat: usize| {
        let mut o = vec![0.0; game.observation_size()];
        state.observation_tensor(seat, &mut o);
        out.push(o);
    };
    let n = state.num_players();
    let mut i = 0;
    while i < len {
        if state.is_simultaneous_node() {
            let joint: Vec<_> = history[i..i + n].iter().map(|e| e.action).collect();
            (0..n).for_each(|seat| observe(state.as_ref(), seat));
            state.apply_actions(&joint).unwrap();
            i += n;
        } else {
            if let Player::Seat(seat) = history[i].player {
                observe(state.as_ref(), seat);
            }
            state.apply_action(history[i].action).unwrap();
            i += 1;
        }
    }
    out
}

/// `State::settled_prefix`, which a belief-weighted search leaves out of its weights: at every
/// decision in it, the deciding seat saw the same in the true history as in every resample
/// of it, from every seat's information.
#[test]
fn the_settled_prefix_was_decided_on_the_same_information_in_every_resample() {
    let mut settled_decisions = 0;
    for e in entries() {
        let name = e.info.name;
        let mut rng = GameRng::new(77);
        for state in decision_points(name, 41, 8, 6) {
            let settled = state.settled_prefix();
            assert!(settled <= state.history().len());
            let truth = observations_at_decisions(name, state.history(), settled);
            settled_decisions += truth.len();
            for observer in 0..state.num_players() {
                for _ in 0..2 {
                    let other = state.resample_from_infostate(observer, &mut rng);
                    assert_eq!(other.settled_prefix(), settled, "{name}");
                    assert_eq!(
                        &other.history()[..settled]
                            .iter()
                            .map(|e| e.player)
                            .collect::<Vec<_>>(),
                        &state.history()[..settled]
                            .iter()
                            .map(|e| e.player)
                            .collect::<Vec<_>>(),
                    );
                    let seen = observations_at_decisions(name, other.history(), settled);
                    assert!(
                        truth == seen,
                        "{name}: a decision in the settled prefix saw something a resample \
                         for seat {observer} changes"
                    );
                }
            }
        }
    }
    assert!(settled_decisions > 0, "no game settles a prefix");
}

/// The game's shipped policy with its policy head zeroed: every legal action has logit 0.
fn indifferent_policy(name: &str) -> PolicyNet {
    let game = make_game_from_string(name).unwrap();
    let mut file = SafetensorsFile::read(game.shipped_policy().unwrap()).unwrap();
    for (tensor_name, tensor) in &mut file.tensors {
        if tensor_name.starts_with("policy.")
            && let TensorValues::F32(values) = &mut tensor.values
        {
            values.iter_mut().for_each(|v| *v = 0.0);
        }
    }
    PolicyNet::from_bytes(&file.to_bytes().unwrap()).unwrap()
}

/// A belief under which every action of every seat is equally likely weights every
/// determinization alike, and the search is plain IS-MCTS on the same seed, move for move and
/// statistic for statistic. The shipped policy as the model does change the search.
#[test]
fn a_belief_that_finds_every_action_equally_likely_is_plain_search() {
    let mut changed = 0;
    for name in ["detective_poker", "holdem_chess", "prediction_chess"] {
        let game = make_game_from_string(name).unwrap();
        let config = IsmctsConfig {
            iterations: 120,
            rollout: Rollout::Random,
            seed: Some(9),
            ..IsmctsConfig::default()
        };
        let plain = IsmctsBot::new(config.clone());
        let belief = IsmctsConfig {
            belief: Belief::Policy,
            ..config
        };
        let indifferent = IsmctsBot::with_model(
            belief.clone(),
            game.as_ref(),
            OpponentModel::Policy(Arc::new(indifferent_policy(name))),
        );
        let shipped = IsmctsBot::for_game(belief, game.as_ref()).unwrap();
        for state in decision_points(name, 31, 4, 3) {
            for seat in seats_to_act(state.as_ref()) {
                let expected = plain.search(state.as_ref(), seat, &mut GameRng::new(0));
                let got = indifferent.search(state.as_ref(), seat, &mut GameRng::new(0));
                assert_eq!(
                    expected, got,
                    "{name}: an indifferent belief changed the search"
                );
                let informed = shipped.search(state.as_ref(), seat, &mut GameRng::new(0));
                changed += usize::from(informed != expected);
            }
        }
    }
    assert!(changed > 0, "the shipped policies changed no search at all");
}

/// `belief=policy` needs a shipped policy; the spec names the belief only when it is set.
#[test]
fn belief_specs_round_trip_and_need_a_model() {
    let bot = make_bot("detective_poker", "ismcts(iterations=5,belief=policy)").unwrap();
    assert_eq!(
        bot.spec(),
        "ismcts(iterations=5,c=0.7,rollout=heuristic,belief=policy)"
    );
    assert_eq!(
        make_bot("detective_poker", &bot.spec()).unwrap().spec(),
        bot.spec()
    );
    let err = make_bot("detective_poker", "ismcts(belief=opponents)")
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("one of: none, heuristic, policy"),
        "{err}"
    );
}

/// The shipped policy of `game` written to a file of this test's own, for `path=` specs.
fn shipped_policy_file(game: &str, test: &str) -> String {
    let g = make_game_from_string(game).unwrap();
    let path = std::env::temp_dir().join(format!(
        "checkraise-{test}-{game}-{}.safetensors",
        std::process::id()
    ));
    std::fs::write(&path, g.shipped_policy().unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

/// `path=` names the policy file a `belief=policy` search (and a `br` search's policy target)
/// reads instead of the shipped one: the shipped policy's own file searches exactly as the
/// shipped policy does, the spec reads back with its path, and a path beside any other
/// belief or target, or a file that is not a policy, is refused naming the setting.
#[test]
fn a_policy_file_is_a_belief_and_a_target_like_the_shipped_policy() {
    let game = "holdem_chess";
    let file = shipped_policy_file(game, "path");
    let cases = [
        (
            "ismcts(iterations=60,rollout=random,seed=4,belief=policy)".to_string(),
            format!("ismcts(iterations=60,rollout=random,seed=4,belief=policy,path={file})"),
        ),
        (
            "br(target=policy,iterations=60,rollout=random,seed=4)".to_string(),
            format!("br(target=policy,iterations=60,rollout=random,seed=4,path={file})"),
        ),
    ];
    for (shipped, from_file) in &cases {
        let a = make_bot(game, shipped).unwrap();
        let b = make_bot(game, from_file).unwrap();
        assert!(
            b.spec().ends_with(&format!(",path={file})")),
            "{}",
            b.spec()
        );
        assert_eq!(make_bot(game, &b.spec()).unwrap().spec(), b.spec());
        for (k, state) in decision_points(game, 41, 4, 3).into_iter().enumerate() {
            for seat in seats_to_act(state.as_ref()) {
                let mut ra = GameRng::new(k as u64);
                let mut rb = GameRng::new(k as u64);
                assert_eq!(
                    a.act(state.as_ref(), seat, &mut ra),
                    b.act(state.as_ref(), seat, &mut rb),
                    "{from_file} chose otherwise than {shipped}\n{state}"
                );
            }
        }
    }
    let err = |spec: &str| make_bot(game, spec).err().unwrap().to_string();
    for spec in [
        format!("ismcts(path={file})"),
        format!("ismcts(belief=heuristic,path={file})"),
    ] {
        let e = err(&spec);
        assert!(e.contains("setting 'path' of bot 'ismcts'"), "{e}");
        assert!(e.contains("with belief=policy only"), "{e}");
    }
    let e = err(&format!("br(target=heuristic,path={file})"));
    assert!(e.contains("with target=policy only"), "{e}");
    // A file that is missing, or a policy of another game, is refused naming `path`.
    let missing = "/nonexistent/policy.safetensors";
    let other = shipped_policy_file("detective_poker", "path");
    for (spec, why) in [
        (
            format!("ismcts(belief=policy,path={missing})"),
            "a readable policy file",
        ),
        (format!("br(path={missing})"), "a readable policy file"),
        (
            format!("ismcts(belief=policy,path={other})"),
            "a policy trained on holdem_chess",
        ),
        (
            format!("br(target=policy,path={other})"),
            "a policy trained on holdem_chess",
        ),
    ] {
        let e = err(&spec);
        assert!(e.contains("setting 'path' of bot"), "{spec}: {e}");
        assert!(e.contains(why), "{spec}: {e}");
    }
    std::fs::remove_file(&file).unwrap();
    std::fs::remove_file(&other).unwrap();
}

/// At Prediction Chess's prediction node the other seat's chosen move is in the state but
/// hidden; the search for either seat gives the same result whatever that move is, for all
/// of the other seat's legal moves.
#[test]
fn the_simultaneous_search_never_reads_the_other_seats_pending_choice() {
    let game = make_game_from_string("prediction_chess").unwrap();
    let bot = ismcts("ismcts(iterations=80,seed=5)");
    let mut state = game.new_initial_state();
    // Move node: both seats choose; the choice of seat 1 varies below.
    state
        .apply_actions(&[
            state.string_to_action(Player::Seat(0), "e2e4").unwrap(),
            state.string_to_action(Player::Seat(1), "e7e5").unwrap(),
        ])
        .unwrap();
    // Prediction node: predict each other's moves; now at the second turn's move node.
    let a0 = state.legal_actions_for(Player::Seat(0))[0];
    let a1 = state.legal_actions_for(Player::Seat(1))[0];
    state.apply_actions(&[a0, a1]).unwrap();
    assert!(state.is_simultaneous_node());
    let own = state.legal_actions_for(Player::Seat(0))[3];
    let mut results = Vec::new();
    for &theirs in state.legal_actions_for(Player::Seat(1)).iter() {
        let mut s = state.clone();
        s.apply_actions(&[own, theirs]).unwrap();
        assert!(s.is_simultaneous_node(), "the prediction node");
        results.push(bot.search(s.as_ref(), 0, &mut GameRng::new(0)));
    }
    assert!(results.len() > 5);
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn specs_build_bots_that_report_their_spec() {
    for e in entries() {
        let bot = make_bot(e.info.name, "ismcts(iterations=20,rollout=random,seed=1)").unwrap();
        assert_eq!(bot.name(), "ismcts");
        assert_eq!(
            bot.spec(),
            "ismcts(iterations=20,c=0.7,rollout=random,seed=1)"
        );
        let again = make_bot(e.info.name, &bot.spec()).unwrap();
        assert_eq!(again.spec(), bot.spec());
        assert_eq!(
            make_bot(e.info.name, "heuristic").unwrap().spec(),
            "heuristic"
        );
    }
    let config = IsmctsConfig {
        rollout: Rollout::Random,
        ..IsmctsConfig::default()
    };
    assert_eq!(config.iterations, 1000);
}

/// A search with a time budget stops on time, whatever its iteration budget.
#[test]
fn a_time_budget_ends_the_search() {
    let bot = ismcts("ismcts(iterations=1000000,max_ms=30)");
    let state = &decision_points("poker_chess", 1, 1, 1)[0];
    let seat = seats_to_act(state.as_ref())[0];
    let result = bot.search(state.as_ref(), seat, &mut GameRng::new(0));
    assert!(result.iterations >= 1 && result.iterations < 1_000_000);
}

/// IS-MCTS with a modest budget beats uniformly random play in Poker Chess (seats
/// alternate, fixed seeds).
#[test]
fn a_modest_search_beats_random_play() {
    let game = make_game_from_string("poker_chess").unwrap();
    let bot = ismcts("ismcts(iterations=100,rollout=random)");
    let random = make_bot("poker_chess", "random").unwrap();
    let mut total = 0.0;
    let games = 12;
    for g in 0..games {
        let search_seat = g % 2;
        let mut rng = GameRng::new(g as u64);
        let mut state = game.new_initial_state();
        loop {
            resolve_chance(state.as_mut(), &mut rng);
            match state.current_player() {
                Player::Seat(s) => {
                    let a = if s == search_seat {
                        bot.act(state.as_ref(), s, &mut rng)
                    } else {
                        random.act(state.as_ref(), s, &mut rng)
                    };
                    state.apply_action(a).unwrap();
                }
                Player::Terminal => break,
                _ => unreachable!(),
            }
        }
        total += state.returns()[search_seat];
    }
    assert!(
        total / games as f64 > 0.0,
        "IS-MCTS averaged {} against random",
        total / games as f64
    );
}

/// The sizes docs/bots.md's memory bound is computed from.
#[test]
fn tree_sizes_match_the_documented_bound() {
    assert_eq!(checkraise_core::bots::ismcts::NODE_BYTES, 48);
    assert_eq!(checkraise_core::bots::ismcts::ARM_BYTES, 24);
}

/// The bot of a best-response spec for `game`.
fn best_response_for(game: &str, spec: &str) -> IsmctsBot {
    let game = make_game_from_string(game).unwrap();
    match BotSpec::parse::<&str, &str>(spec, []).unwrap() {
        BotSpec::BestResponse { target, config } => {
            IsmctsBot::best_response(config, target, game.as_ref()).unwrap()
        }
        other => panic!("not a best-response spec: {other}"),
    }
}

/// The information rule for best-response searches: the target decides on states resampled
/// from its own seat's information inside the search's determinizations, so the move is the
/// same on every resample of the searcher's information.
#[test]
fn a_best_response_move_is_the_same_on_every_resample_of_the_seats_information() {
    for e in entries() {
        let name = e.info.name;
        let targets: &[&str] = if e.policy.is_some() {
            &["random", "heuristic", "policy"]
        } else {
            &["random", "heuristic"]
        };
        for target in targets {
            let bot = best_response_for(
                name,
                &format!("br(target={target},iterations=30,seed=3,rollout=random)"),
            );
            for (k, state) in decision_points(name, 29, 3, 5).into_iter().enumerate() {
                for seat in seats_to_act(state.as_ref()) {
                    let truth = bot.search(state.as_ref(), seat, &mut GameRng::new(0));
                    let mut rng = GameRng::new(300 + k as u64);
                    for _ in 0..2 {
                        let other = state.resample_from_infostate(seat, &mut rng);
                        let seen = bot.search(other.as_ref(), seat, &mut GameRng::new(0));
                        assert_eq!(
                            truth, seen,
                            "{name} (br target={target}): seat {seat}'s search read hidden \
                             information\n{state}\n---\n{other}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn best_response_specs_parse_print_and_refuse() {
    let spec = BotSpec::parse::<&str, &str>("br(target=heuristic,iterations=50)", []).unwrap();
    assert_eq!(
        spec.to_string(),
        "br(target=heuristic,iterations=50,c=0.7,rollout=heuristic)"
    );
    assert_eq!(
        BotSpec::parse::<&str, &str>(&spec.to_string(), []).unwrap(),
        spec
    );
    let bot = make_bot("pokeros", "br(iterations=20)").unwrap();
    assert_eq!(bot.name(), "br");
    assert_eq!(
        bot.spec(),
        "br(target=policy,iterations=20,c=0.7,rollout=heuristic)"
    );
    let err = |spec: &str| {
        BotSpec::parse::<&str, &str>(spec, [])
            .unwrap_err()
            .to_string()
    };
    assert!(err("br(target=ismcts)").contains("one of: random, heuristic, policy"));
    assert!(err("br(belief=policy)").contains("bot 'br' has no setting 'belief'"));
    let capped = BotSpec::parse::<&str, &str>("br(max_ms=9000)", [])
        .unwrap()
        .capped(2000, "the cap")
        .unwrap_err()
        .to_string();
    assert_eq!(
        capped,
        "setting 'max_ms' of bot 'br' cannot be '9000': at most 2000 (the cap)"
    );
    #[cfg(feature = "kuhn_poker")]
    {
        let e = make_bot("kuhn_poker", "br").err().unwrap().to_string();
        assert_eq!(
            e,
            "setting 'target' of bot 'br' cannot be 'policy': random or heuristic: no policy \
             is shipped for kuhn_poker"
        );
    }
}

/// In Kuhn poker the search's value against a random opponent approaches the exact best
/// response's (`solve`: 0.4583 a game, both seats averaged), and beats what an equilibrium
/// wins from random play.
#[cfg(feature = "kuhn_poker")]
#[test]
fn a_best_response_search_wins_what_the_exact_best_response_wins_in_kuhn_poker() {
    use checkraise_core::solve::{DEFAULT_MAX_NODES, TabularPolicy, Tree};
    let game = make_game_from_string("kuhn_poker").unwrap();
    let tree = Tree::build(game.as_ref(), DEFAULT_MAX_NODES).unwrap();
    let exact = tree.exploitability(&TabularPolicy::uniform(&tree)).unwrap();
    let search = best_response_for("kuhn_poker", "br(target=random,iterations=400)");
    let random = make_bot("kuhn_poker", "random").unwrap();
    let mut rng = GameRng::new(11);
    let games = 3000;
    let mut returns = Vec::with_capacity(games);
    for g in 0..games {
        let me = g % 2;
        let mut state = game.new_initial_state();
        while !state.is_terminal() {
            resolve_chance(state.as_mut(), &mut rng);
            if let Player::Seat(s) = state.current_player() {
                let bot: &dyn Bot = if s == me { &search } else { random.as_ref() };
                let a = bot.try_act(state.as_ref(), s, &mut rng).unwrap();
                state.apply_action(a).unwrap();
            }
        }
        returns.push(state.returns()[me]);
    }
    let mean = returns.iter().sum::<f64>() / games as f64;
    let var = returns.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (games - 1) as f64;
    let half = 1.96 * (var / games as f64).sqrt();
    assert!(
        (mean - exact).abs() <= half,
        "search {mean:.3} ± {half:.3}, exact best response {exact:.4}"
    );
}
