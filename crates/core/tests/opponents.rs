//! Opponent seats inside `VectorEnv` (`VectorEnv::with_opponents`): every env waits at its
//! learner's decision, writes the learner's side only, reproduces from its seed, survives a
//! snapshot, refuses bad pools with a message naming the problem, and never lets an opponent
//! see what its seat may not know.

use std::collections::BTreeSet;
use std::sync::Arc;

use checkraise_core::bots::{Bot, HeuristicBot};
use checkraise_core::env::GameRng;
use checkraise_core::game::{Action, Dynamics, Game, Player, PlayerAction, State, replay};
use checkraise_core::registry::shipped_policy_bytes as shipped_bytes;
use checkraise_core::registry::{entries, make_game};
use checkraise_core::testing::Fixture;
use checkraise_core::vector::{
    AutoresetMode, LearnerSeat, Observer, Opponent, Opponents, OwnedBuffers, VectorEnv,
};

const MODES: [AutoresetMode; 2] = [AutoresetMode::NextStep, AutoresetMode::SameStep];

fn game(name: &str) -> Arc<dyn Game> {
    make_game::<&str, &str>(name, []).unwrap()
}

fn pool(learner: LearnerSeat, specs: &[(&str, f64)]) -> Opponents {
    specs.iter().fold(Opponents::new(learner), |o, (spec, w)| {
        o.with(Opponent::spec(*spec), *w)
    })
}

fn batch(
    game: &Arc<dyn Game>,
    n: usize,
    seed: u64,
    cap: Option<usize>,
    mode: AutoresetMode,
    opponents: Opponents,
) -> VectorEnv {
    VectorEnv::new(
        game.clone(),
        n,
        seed,
        Observer::default_for(game.as_ref()),
        cap,
    )
    .unwrap()
    .with_autoreset_mode(mode)
    .with_opponents(opponents)
    .unwrap()
}

/// Every buffer a step writes, for comparing two batches.
fn rows(out: &OwnedBuffers) -> String {
    format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
        out.observations,
        out.action_masks,
        out.current_players,
        out.rewards,
        out.terminated,
        out.truncated,
        out.final_returns,
        out.final_observations
    )
}

/// The learner's legal actions as a mask.
fn legal_mask(state: &dyn State, seat: usize, na: usize) -> Vec<bool> {
    let mut mask = vec![false; na];
    for a in state.legal_actions_for(Player::Seat(seat)) {
        mask[a as usize] = true;
    }
    mask
}

/// Whether the learner decides at `state`: its turn, or a simultaneous node where it has a
/// legal action.
fn at_learners_decision(state: &dyn State, learner: usize) -> bool {
    match state.current_player() {
        Player::Seat(seat) => seat == learner,
        Player::Simultaneous => !state.legal_actions_for(Player::Seat(learner)).is_empty(),
        _ => false,
    }
}

/// In every registered game, against heuristic and random opponents, with the learner's
/// seat fixed and drawn, in both auto-reset modes (with truncation): after every reset and
/// step each env waits at its learner's decision (or at the end of a game in next-step mode),
/// the rows are the learner's observation and legal mask, each game's rewards sum to the
/// learner's final return, and a second batch of the same seed steps identically.
#[test]
fn every_game_waits_at_the_learners_decision_and_reports_the_learners_side() {
    for entry in entries() {
        let name = entry.info.name;
        let game = game(name);
        let (na, obs) = (game.num_distinct_actions(), game.observation_size());
        let players = game.num_players();
        for spec in ["heuristic", "random"] {
            for learner in [LearnerSeat::Fixed(players - 1), LearnerSeat::Drawn] {
                for mode in MODES {
                    let what = format!("{name} vs {spec}, learner {learner:?}, {mode:?}");
                    let n = 6;
                    let opponents = pool(learner, &[(spec, 1.0)]);
                    let make = || batch(&game, n, 5, Some(40), mode, opponents.clone());
                    let (mut a, mut b) = (make(), make());
                    assert_eq!(
                        (a.rows_per_env(), a.actions_per_env(), a.rewards_per_env()),
                        (1, 1, 1)
                    );
                    let mut out = OwnedBuffers::for_venv(&a, true);
                    let mut again = OwnedBuffers::for_venv(&b, true);
                    a.reset(None, out.view(true)).unwrap();
                    b.reset(None, again.view(true)).unwrap();
                    let mut actions = vec![0; n];
                    let mut sums = vec![0.0f64; n];
                    let mut ended = vec![false; n];
                    let mut seats = BTreeSet::new();
                    let (mut games, mut opponent_moves) = (0, 0);
                    for step in 0..=150 {
                        if step > 0 {
                            a.sample_actions(&mut actions).unwrap();
                            let mut copied = vec![0; n];
                            b.sample_actions(&mut copied).unwrap();
                            assert_eq!(actions, copied, "{what}");
                            a.step(&actions, out.view(true)).unwrap();
                            b.step(&actions, again.view(true)).unwrap();
                        }
                        assert_eq!(rows(&out), rows(&again), "{what} step {step}");
                        for i in 0..n {
                            let state = a.state(i).unwrap();
                            assert_eq!(
                                state.serialize(),
                                b.state(i).unwrap().serialize(),
                                "{what}"
                            );
                            let seat = a.learner_seat(i).unwrap();
                            assert_eq!(b.learner_seat(i), Some(seat));
                            if let LearnerSeat::Fixed(k) = learner {
                                assert_eq!(seat, k, "{what}");
                            }
                            seats.insert(seat);
                            for other in (0..players).filter(|&s| s != seat) {
                                assert_eq!(a.opponent_index(i, other), Some(0));
                            }
                            assert_eq!(a.opponent_index(i, seat), None);
                            opponent_moves += state
                                .history()
                                .iter()
                                .filter(|m| m.player.seat().is_some_and(|s| s != seat))
                                .count();
                            let done = out.terminated[i] || out.truncated[i];
                            if step > 0 && !ended[i] {
                                sums[i] += out.rewards[i] as f64;
                            } else {
                                // A reset, or next-step mode's step after a game's end.
                                assert_eq!(out.rewards[i], 0.0, "{what} step {step}");
                            }
                            if done {
                                let ret = out.final_returns[i] as f64;
                                assert!(
                                    (sums[i] - ret).abs() <= 1e-3 * (1.0 + ret.abs()),
                                    "{what} env {i}: rewards sum to {}, return {ret}",
                                    sums[i]
                                );
                                sums[i] = 0.0;
                                games += 1;
                            }
                            let terminal = state.is_terminal();
                            if terminal {
                                assert!(
                                    out.terminated[i] && mode == AutoresetMode::NextStep,
                                    "{what}: only next-step mode waits at a game's end"
                                );
                                assert_eq!(
                                    state.returns()[seat] as f32,
                                    out.final_returns[i],
                                    "{what}"
                                );
                            } else {
                                assert!(at_learners_decision(state, seat), "{what}\n{state}");
                            }
                            assert_eq!(out.current_players[i] as i64, state.current_player().id());
                            assert_eq!(
                                &out.action_masks[i * na..(i + 1) * na],
                                &legal_mask(state, seat, na)[..],
                                "{what} step {step}"
                            );
                            let mut expected = vec![0.0; obs];
                            state.observation_tensor(seat, &mut expected);
                            assert_eq!(&out.observations[i * obs..(i + 1) * obs], &expected[..]);
                            ended[i] = done && mode == AutoresetMode::NextStep;
                            if done && mode == AutoresetMode::SameStep {
                                // The ending step already started the next game.
                                sums[i] = 0.0;
                            }
                        }
                    }
                    assert!(games >= n, "{what}: only {games} games ended");
                    assert!(opponent_moves > 0, "{what}: the opponents never moved");
                    if learner == LearnerSeat::Drawn {
                        assert_eq!(seats.len(), players, "{what}: seats drawn {seats:?}");
                    }
                }
            }
        }
    }
}

/// A weighted pool draws each entry about as often as its weight says, per seat and game.
#[test]
fn opponents_are_drawn_by_weight() {
    let game = game("detective_poker");
    let opponents = pool(
        LearnerSeat::Fixed(0),
        &[("random", 3.0), ("heuristic", 1.0)],
    );
    let mut venv = batch(&game, 400, 9, None, AutoresetMode::NextStep, opponents);
    let mut counts = [0usize; 2];
    for i in 0..400 {
        for seat in 1..game.num_players() {
            counts[venv.opponent_index(i, seat).unwrap()] += 1;
        }
    }
    let total = (counts[0] + counts[1]) as f64;
    let share = counts[0] as f64 / total;
    assert!((0.68..0.82).contains(&share), "random drawn {counts:?}");
    // A reset draws again.
    let before: Vec<_> = (0..400).map(|i| venv.opponent_index(i, 1)).collect();
    let mut out = OwnedBuffers::for_venv(&venv, false);
    venv.reset(Some(1), out.view(false)).unwrap();
    let after: Vec<_> = (0..400).map(|i| venv.opponent_index(i, 1)).collect();
    assert_ne!(before, after);
}

/// `max_episode_steps` counts the learner's steps, not the opponents' moves.
#[test]
fn max_episode_steps_counts_the_learners_steps() {
    let game = game("poker_chess");
    for mode in MODES {
        let opponents = pool(LearnerSeat::Drawn, &[("random", 1.0)]);
        let mut venv = batch(&game, 8, 3, Some(3), mode, opponents);
        let mut out = OwnedBuffers::for_venv(&venv, false);
        venv.reset(None, out.view(false)).unwrap();
        let mut actions = vec![0; 8];
        let mut steps = [0usize; 8];
        let mut ended = [false; 8];
        let mut truncations = 0;
        for _ in 0..60 {
            venv.sample_actions(&mut actions).unwrap();
            venv.step(&actions, out.view(true)).unwrap();
            for i in 0..8 {
                if ended[i] {
                    ended[i] = false;
                    continue;
                }
                steps[i] += 1;
                if out.truncated[i] {
                    assert_eq!(steps[i], 3, "{mode:?}: truncated after {} steps", steps[i]);
                    truncations += 1;
                }
                assert!(steps[i] <= 3);
                if out.truncated[i] || out.terminated[i] {
                    steps[i] = 0;
                    ended[i] = mode == AutoresetMode::NextStep;
                }
            }
        }
        assert!(truncations > 20, "{mode:?}: {truncations} truncations");
    }
}

/// A reset with a seed gives the batch a new one of that seed would have (seats, opponents,
/// states and rows).
#[test]
fn reset_with_a_seed_matches_a_new_batch() {
    let game = game("holdem_chess");
    let opponents = pool(LearnerSeat::Drawn, &[("heuristic", 1.0), ("random", 1.0)]);
    let mut a = batch(
        &game,
        5,
        0,
        None,
        AutoresetMode::NextStep,
        opponents.clone(),
    );
    let mut out = OwnedBuffers::for_venv(&a, false);
    a.reset(None, out.view(false)).unwrap();
    let mut actions = vec![0; 5];
    for _ in 0..7 {
        a.sample_actions(&mut actions).unwrap();
        a.step(&actions, out.view(true)).unwrap();
    }
    a.reset(Some(50), out.view(true)).unwrap();
    let mut b = batch(&game, 5, 50, None, AutoresetMode::NextStep, opponents);
    let mut fresh = OwnedBuffers::for_venv(&b, false);
    b.reset(None, fresh.view(false)).unwrap();
    assert_eq!(rows(&out), rows(&fresh));
    for i in 0..5 {
        assert_eq!(a.learner_seat(i), b.learner_seat(i));
        assert_eq!(a.opponent_index(i, 0), b.opponent_index(i, 0));
        assert_eq!(
            a.state(i).unwrap().serialize(),
            b.state(i).unwrap().serialize()
        );
    }
    // The action samplers are reseeded too: both batches sample and play alike.
    let mut other = vec![0; 5];
    for _ in 0..7 {
        a.sample_actions(&mut actions).unwrap();
        b.sample_actions(&mut other).unwrap();
        assert_eq!(actions, other);
        a.step(&actions, out.view(true)).unwrap();
        b.step(&other, fresh.view(true)).unwrap();
        assert_eq!(rows(&out), rows(&fresh));
    }
}

/// `reset_each` reseeds exactly the envs given a seed: env `i` with seed `s` plays as env 0 of
/// a batch of seed `s`, and an env given `None` continues its own stream.
#[test]
fn reset_each_reseeds_the_envs_given_a_seed() {
    let game = game("pokeros");
    let opponents = pool(LearnerSeat::Drawn, &[("heuristic", 1.0), ("random", 1.0)]);
    let mut a = batch(
        &game,
        3,
        0,
        None,
        AutoresetMode::NextStep,
        opponents.clone(),
    );
    let mut out = OwnedBuffers::for_venv(&a, false);
    a.reset(None, out.view(false)).unwrap();
    let continued = {
        let mut c = batch(
            &game,
            3,
            0,
            None,
            AutoresetMode::NextStep,
            opponents.clone(),
        );
        let mut o = OwnedBuffers::for_venv(&c, false);
        c.reset(None, o.view(false)).unwrap();
        c.reset(None, o.view(true)).unwrap();
        c.state(1).unwrap().serialize()
    };
    a.reset_each(&[Some(77), None, Some(78)], out.view(true))
        .unwrap();
    for (index, seed) in [(0, 77), (2, 78)] {
        let mut single = batch(
            &game,
            1,
            seed,
            None,
            AutoresetMode::NextStep,
            opponents.clone(),
        );
        let mut o = OwnedBuffers::for_venv(&single, false);
        single.reset(None, o.view(false)).unwrap();
        assert_eq!(a.learner_seat(index), single.learner_seat(0));
        assert_eq!(
            a.state(index).unwrap().serialize(),
            single.state(0).unwrap().serialize()
        );
    }
    assert_eq!(a.state(1).unwrap().serialize(), continued);
    let error = a.reset_each(&[Some(1)], out.view(true)).unwrap_err();
    assert!(error.to_string().contains("seeds"), "{error}");
}

/// Steps `a` and `b` alike for `steps` steps, checking that they write the same rows.
fn step_alike(a: &mut VectorEnv, b: &mut VectorEnv, out: &mut OwnedBuffers, steps: usize) {
    let n = a.num_envs();
    let mut fresh = OwnedBuffers::for_venv(b, true);
    b.write_rows(fresh.view(false)).unwrap();
    assert_eq!(out.observations, fresh.observations);
    assert_eq!(out.action_masks, fresh.action_masks);
    assert_eq!(out.current_players, fresh.current_players);
    let (mut actions, mut copied) = (vec![0; n], vec![0; n]);
    for _ in 0..steps {
        a.sample_actions(&mut actions).unwrap();
        b.sample_actions(&mut copied).unwrap();
        assert_eq!(actions, copied, "the samplers continue alike");
        a.step(&actions, out.view(true)).unwrap();
        b.step(&actions, fresh.view(true)).unwrap();
        assert_eq!(rows(out), rows(&fresh));
        for i in 0..n {
            assert_eq!(a.learner_seat(i), b.learner_seat(i));
            assert_eq!(
                a.state(i).unwrap().serialize(),
                b.state(i).unwrap().serialize()
            );
        }
    }
}

/// A restored batch with opponents continues exactly as the original, in every game and both
/// modes; a pool with in-memory policy bytes comes back through `restore_with_opponents` with
/// the same pool, and `restore` refuses it, naming the entry.
#[test]
fn a_restored_batch_with_opponents_continues_identically() {
    for entry in entries() {
        let name = entry.info.name;
        let game = game(name);
        for mode in MODES {
            let opponents = pool(LearnerSeat::Drawn, &[("heuristic", 2.0), ("random", 1.0)]);
            let mut venv = batch(&game, 5, 17, Some(30), mode, opponents);
            assert!(venv.snapshot_restorable());
            let mut out = OwnedBuffers::for_venv(&venv, true);
            venv.reset(None, out.view(false)).unwrap();
            let mut actions = vec![0; 5];
            for _ in 0..23 {
                venv.sample_actions(&mut actions).unwrap();
                venv.step(&actions, out.view(true)).unwrap();
            }
            let mut copy = VectorEnv::restore(game.clone(), &venv.snapshot()).unwrap();
            assert!(copy.has_opponents());
            assert_eq!(copy.autoreset_mode(), mode);
            step_alike(&mut venv, &mut copy, &mut out, 60);
        }
    }
    let game = game("pokeros");
    let bytes: Arc<[u8]> = shipped_bytes("pokeros").unwrap().into();
    let in_memory = || {
        Opponents::new(LearnerSeat::Fixed(1))
            .with(Opponent::policy_bytes("snapshot 7", bytes.clone()), 1.0)
            .with(Opponent::spec("random"), 1.0)
    };
    let mut venv = batch(&game, 4, 2, None, AutoresetMode::SameStep, in_memory());
    assert!(!venv.snapshot_restorable());
    let mut out = OwnedBuffers::for_venv(&venv, true);
    venv.reset(None, out.view(false)).unwrap();
    let text = venv.snapshot();
    let e = VectorEnv::restore(game.clone(), &text)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("opponent 0: policy bytes snapshot 7")
            && e.contains("VectorEnv::restore_with_opponents"),
        "{e}"
    );
    let other = Opponents::new(LearnerSeat::Fixed(1))
        .with(Opponent::policy_bytes("snapshot 7", bytes.clone()), 1.0)
        .with(Opponent::spec("random"), 2.0);
    let e = VectorEnv::restore_with_opponents(game.clone(), &text, other)
        .unwrap_err()
        .to_string();
    assert!(e.contains("entry 1"), "{e}");
    let e =
        VectorEnv::restore_with_opponents(game.clone(), &text, pool(LearnerSeat::Fixed(1), &[]))
            .unwrap_err()
            .to_string();
    assert!(e.contains("empty pool"), "{e}");
    let mut copy = VectorEnv::restore_with_opponents(game.clone(), &text, in_memory()).unwrap();
    step_alike(&mut venv, &mut copy, &mut out, 40);
    // A batch without opponents is not restored with some.
    let plain = VectorEnv::new(game.clone(), 2, 0, Observer::CurrentPlayer, None).unwrap();
    assert!(VectorEnv::restore_with_opponents(game, &plain.snapshot(), in_memory()).is_err());
}

/// A policy given as bytes in memory plays as the same policy named by its spec.
#[test]
fn policy_bytes_play_as_the_policy_spec() {
    let game = game("pokeros");
    let bytes = shipped_bytes("pokeros").unwrap().to_vec();
    let by_spec = pool(LearnerSeat::Drawn, &[("policy", 1.0)]);
    let by_bytes =
        Opponents::new(LearnerSeat::Drawn).with(Opponent::policy_bytes("shipped", bytes), 1.0);
    let mut a = batch(&game, 6, 4, None, AutoresetMode::NextStep, by_spec);
    let mut b = batch(&game, 6, 4, None, AutoresetMode::NextStep, by_bytes);
    let mut out = OwnedBuffers::for_venv(&a, true);
    a.reset(None, out.view(false)).unwrap();
    b.reset(None, OwnedBuffers::for_venv(&b, true).view(false))
        .unwrap();
    step_alike(&mut a, &mut b, &mut out, 80);
}

/// Bad pools are refused, each with a message naming the problem.
#[test]
fn bad_pools_are_refused_with_their_messages() {
    let game = game("pokeros");
    let refuse = |opponents: Opponents| {
        VectorEnv::new(game.clone(), 2, 0, Observer::CurrentPlayer, None)
            .unwrap()
            .with_opponents(opponents)
            .unwrap_err()
            .to_string()
    };
    let fixed = LearnerSeat::Fixed(0);
    assert_eq!(
        refuse(Opponents::new(fixed)),
        "'opponents' cannot be 'an empty pool': at least one opponent with a weight above 0"
    );
    for (weight, text) in [
        (0.0, "0"),
        (-1.0, "-1"),
        (f64::NAN, "NaN"),
        (f64::INFINITY, "inf"),
    ] {
        assert_eq!(
            refuse(pool(fixed, &[("heuristic", 1.0), ("random", weight)])),
            format!("'weight of opponent 1 (random)' cannot be '{text}': a finite number above 0")
        );
    }
    assert_eq!(
        refuse(pool(fixed, &[("heuristic", 1.0), ("polcy", 1.0)])),
        "'opponent 1' cannot be 'polcy': a bot spec that plays pokeros (unknown bot 'polcy'; \
         bots: random, heuristic, ismcts, policy, cfr, br)"
    );
    assert_eq!(
        refuse(pool(fixed, &[("ismcts(iterations=0)", 1.0)])),
        "'opponent 0' cannot be 'ismcts(iterations=0)': a bot spec that plays pokeros \
         (setting 'iterations' of bot 'ismcts' cannot be '0': an integer from 1 to 1000000)"
    );
    let e = refuse(pool(
        fixed,
        &[("policy(path=/nonexistent/p.safetensors)", 1.0)],
    ));
    assert!(
        e.starts_with(
            "'opponent 0' cannot be 'policy(path=/nonexistent/p.safetensors)': a bot spec \
             that plays pokeros (setting 'path' of bot 'policy'"
        ),
        "{e}"
    );
    let e = refuse(Opponents::new(fixed).with(Opponent::policy_bytes("junk", &b"junk!"[..]), 1.0));
    assert!(
        e.starts_with(
            "'opponent 0' cannot be 'policy bytes junk (5 bytes)': a policy that plays \
             pokeros (setting 'bytes' of bot 'policy' cannot be 'junk (5 bytes)': a checkraise \
             policy file"
        ),
        "{e}"
    );
    let detective = shipped_bytes("detective_poker").unwrap();
    let e = refuse(Opponents::new(fixed).with(Opponent::policy_bytes("dp", detective), 1.0));
    assert!(
        e.starts_with("'opponent 0' cannot be 'policy bytes dp (")
            && e.contains("a policy trained on this game, and this one is not"),
        "{e}"
    );
    assert_eq!(
        refuse(pool(LearnerSeat::Fixed(2), &[("random", 1.0)])),
        "'learner seat' cannot be '2': a seat of pokeros from 0 to 1"
    );
    // Opponents are set once, before the first reset or step.
    let mut venv = VectorEnv::new(game.clone(), 2, 0, Observer::CurrentPlayer, None).unwrap();
    let mut out = OwnedBuffers::for_venv(&venv, false);
    venv.reset(None, out.view(false)).unwrap();
    let e = venv
        .with_opponents(pool(fixed, &[("random", 1.0)]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("before the batch's first reset or step"), "{e}");
    let twice = VectorEnv::new(game, 2, 0, Observer::CurrentPlayer, None)
        .unwrap()
        .with_opponents(pool(fixed, &[("random", 1.0)]))
        .unwrap()
        .with_opponents(pool(fixed, &[("random", 1.0)]));
    assert!(twice.unwrap_err().to_string().contains("a second pool"));
}

/// A bot that cheats: its choice depends on the whole state it is handed (hidden cards
/// included), so it chooses differently on two states its seat cannot tell apart, unless
/// the engine hands it only what its seat may know.
struct Peeker;

impl Bot for Peeker {
    fn act(&self, state: &dyn State, seat: usize, _: &mut GameRng) -> Action {
        let legal = state.legal_actions_for(Player::Seat(seat));
        let hash = state
            .serialize()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
            });
        legal[(hash % legal.len() as u64) as usize]
    }
    fn name(&self) -> &'static str {
        "peeker"
    }
}

/// `text` (a batch snapshot) with env `index`'s state replaced by `state`.
fn with_state(text: &str, index: usize, state: &dyn State) -> String {
    let mut snap: serde_json::Value = serde_json::from_str(text).unwrap();
    let env = snap["slots"][index]["env"].as_str().unwrap();
    let mut env: serde_json::Value = serde_json::from_str(env).unwrap();
    env["state"] = serde_json::Value::String(state.serialize());
    snap["slots"][index]["env"] = serde_json::Value::String(env.to_string());
    snap.to_string()
}

/// Where the first move after the learner's move at `from` is in `history` (chance outcomes
/// skipped), if there is one and another seat makes it.
fn reply_at(history: &[PlayerAction], from: usize, learner: usize) -> Option<usize> {
    (from + 1..history.len())
        .find(|&k| history[k].player != Player::Chance)
        .filter(|&k| history[k].player != Player::Seat(learner))
}

/// The information rule: at each learner decision, the state after the learner's next move
/// is resampled from the information state of the opponent who replies to it (the learner's
/// hidden cards and the unseen deck redealt, by chance outcomes consistent with what that
/// opponent saw); a copy of the batch is set at that game before the learner's move (replayed
/// from its actions and chance outcomes), and the learner makes the same move in both (its
/// action id may differ where ids name hand slots): the opponent's reply is the same. A cheating bot (`Peeker`), which
/// would reply differently on the two true states, shows that the check can fail; the
/// heuristic bot is checked the same way.
#[test]
fn opponents_never_see_the_learners_hidden_information() {
    for entry in entries() {
        let name = entry.info.name;
        if entry.info.dynamics == Dynamics::Simultaneous {
            continue;
        }
        let game = game(name);
        for (label, bot) in [
            ("peeker", Arc::new(Peeker) as Arc<dyn Bot>),
            ("heuristic", Arc::new(HeuristicBot)),
        ] {
            let opponents =
                Opponents::new(LearnerSeat::Drawn).with(Opponent::Bot(bot.clone()), 1.0);
            let n = 4;
            let mut venv = batch(
                &game,
                n,
                31,
                None,
                AutoresetMode::SameStep,
                opponents.clone(),
            );
            assert!(
                !venv.snapshot_restorable(),
                "a bot object is not in a snapshot"
            );
            let mut out = OwnedBuffers::for_venv(&venv, false);
            venv.reset(None, out.view(false)).unwrap();
            let mut rng = GameRng::new(8);
            let (mut compared, mut cheat_caught) = (0, 0);
            for _ in 0..40 {
                let text = venv.snapshot();
                let mut resampled = text.clone();
                // Per env: the learner's action in the batch and in the copy, where its move
                // goes in the history, the learner, and the seat the copy was resampled for.
                let mut plans = Vec::new();
                for i in 0..n {
                    let state = venv.state(i).unwrap();
                    let learner = venv.learner_seat(i).unwrap();
                    let legal = state.legal_actions_for(Player::Seat(learner));
                    let action = legal[rng.below(legal.len() as u64) as usize];
                    let mut after = state.clone_box();
                    after.apply_action(action).unwrap();
                    let from = state.history().len();
                    // A state the next seat cannot tell from the true one after the learner's
                    // move, and the same game before that move, replayed from its actions and
                    // chance outcomes.
                    let seat = (learner + 1) % game.num_players();
                    let seen = after.resample_from_infostate(seat, &mut rng);
                    let history = seen.history();
                    assert_eq!(history.len(), from + 1);
                    assert_eq!(history[from].player, Player::Seat(learner));
                    let mut before = game.new_initial_state();
                    replay(before.as_mut(), &history[..from]).unwrap();
                    assert!(at_learners_decision(before.as_ref(), learner));
                    assert_eq!(
                        seen.information_state_string(seat),
                        after.information_state_string(seat)
                    );
                    let differs = before.serialize() != state.serialize();
                    if differs {
                        resampled = with_state(&resampled, i, before.as_ref());
                    }
                    plans.push((action, history[from].action, from, learner, seat, differs));
                }
                let actions: Vec<Action> = plans.iter().map(|p| p.0).collect();
                let copied: Vec<Action> = plans.iter().map(|p| p.1).collect();
                // Both copies in next-step mode, so that an ended game stays to be read.
                let restore = |text: &str, actions: &[Action]| {
                    let mut copy =
                        VectorEnv::restore_with_opponents(game.clone(), text, opponents.clone())
                            .unwrap()
                            .with_autoreset_mode(AutoresetMode::NextStep);
                    let mut out = OwnedBuffers::for_venv(&copy, false);
                    copy.step(actions, out.view(false)).unwrap();
                    copy
                };
                let (truth, seen) = (restore(&text, &actions), restore(&resampled, &copied));
                for (i, &(_, _, from, learner, seat, differs)) in plans.iter().enumerate() {
                    if !differs {
                        continue;
                    }
                    // The next seat's first move after the learner's (past chance outcomes),
                    // where that seat still cannot tell the two games apart.
                    let (a, b) = (truth.state(i).unwrap(), seen.state(i).unwrap());
                    let Some(k) = reply_at(a.history(), from, learner) else {
                        continue;
                    };
                    if a.history()[k].player != Player::Seat(seat)
                        || reply_at(b.history(), from, learner) != Some(k)
                    {
                        continue;
                    }
                    let (mut x, mut y) = (game.new_initial_state(), game.new_initial_state());
                    replay(x.as_mut(), &a.history()[..k]).unwrap();
                    replay(y.as_mut(), &b.history()[..k]).unwrap();
                    if x.information_state_string(seat) != y.information_state_string(seat) {
                        continue;
                    }
                    assert_eq!(
                        a.history()[k],
                        b.history()[k],
                        "{name} ({label}): the opponent's reply read hidden information"
                    );
                    compared += 1;
                    // Would a bot handed the true states have replied differently?
                    if x.serialize() != y.serialize()
                        && bot.act(x.as_ref(), seat, &mut GameRng::new(0))
                            != bot.act(y.as_ref(), seat, &mut GameRng::new(0))
                    {
                        cheat_caught += 1;
                    }
                }
                venv.step(&actions, out.view(true)).unwrap();
            }
            println!("{name} ({label}): {compared} replies compared, {cheat_caught} cheats");
            assert!(
                compared > 20,
                "{name} ({label}): only {compared} replies compared"
            );
            if label == "peeker" {
                assert!(
                    cheat_caught > 5,
                    "{name}: a cheating bot would have been caught only {cheat_caught} times"
                );
            }
        }
    }
}

/// At a simultaneous node the engine fills the opponents' entries of the joint action, chosen
/// before the learner's action is known: whatever the learner plays, the opponent's entry is
/// the same (the cheating `Peeker` included, which reads everything in the state it gets).
#[test]
fn opponents_at_simultaneous_nodes_never_see_the_learners_choice() {
    let game = game("prediction_chess");
    for bot in [Arc::new(Peeker) as Arc<dyn Bot>, Arc::new(HeuristicBot)] {
        let opponents = Opponents::new(LearnerSeat::Drawn).with(Opponent::Bot(bot), 1.0);
        let n = 6;
        let mut venv = batch(
            &game,
            n,
            12,
            None,
            AutoresetMode::SameStep,
            opponents.clone(),
        );
        let mut out = OwnedBuffers::for_venv(&venv, false);
        venv.reset(None, out.view(false)).unwrap();
        let mut rng = GameRng::new(1);
        let mut compared = 0;
        for _ in 0..15 {
            let text = venv.snapshot();
            let mut replies: Vec<Option<Action>> = vec![None; n];
            for _ in 0..3 {
                let mut copy =
                    VectorEnv::restore_with_opponents(game.clone(), &text, opponents.clone())
                        .unwrap()
                        .with_autoreset_mode(AutoresetMode::NextStep);
                let mut copy_out = OwnedBuffers::for_venv(&copy, false);
                copy.write_rows(copy_out.view(false)).unwrap();
                let mut plans = Vec::new();
                for i in 0..n {
                    let state = copy.state(i).unwrap();
                    let learner = copy.learner_seat(i).unwrap();
                    let legal = state.legal_actions_for(Player::Seat(learner));
                    let action = legal[rng.below(legal.len() as u64) as usize];
                    plans.push((action, state.history().len(), learner));
                }
                let actions: Vec<Action> = plans.iter().map(|p| p.0).collect();
                copy.step(&actions, copy_out.view(true)).unwrap();
                for (i, &(action, from, learner)) in plans.iter().enumerate() {
                    let history = copy.state(i).unwrap().history();
                    let joint = &history[from..from + 2];
                    assert_eq!(joint[learner].action, action);
                    let theirs = joint[1 - learner].action;
                    if let Some(before) = replies[i] {
                        assert_eq!(
                            before, theirs,
                            "the opponent's entry followed the learner's"
                        );
                        compared += 1;
                    }
                    replies[i] = Some(theirs);
                }
            }
            let mut actions = vec![0; n];
            venv.sample_actions(&mut actions).unwrap();
            venv.step(&actions, out.view(true)).unwrap();
        }
        assert!(compared >= 100, "{compared}");
    }
}

/// The fixture game in turns, one round of two picks, in which seat 0 may end the game at once:
/// its pick 0 quits (seat 0 wins 1), its pick 1 plays on (paying seat 1 half a point at once);
/// then seat 1 picks (0, differing: seat 1 wins 1 more; 1, matching: seat 0 wins 1).
fn quit() -> Arc<dyn Game> {
    Fixture::<false>::game(&[("rounds", "1"), ("picks", "2"), ("quit", "true")])
}

/// Plays the lowest legal action.
struct Lowest;

impl Bot for Lowest {
    fn act(&self, state: &dyn State, seat: usize, _: &mut GameRng) -> Action {
        state.legal_actions_for(Player::Seat(seat))[0]
    }
    fn name(&self) -> &'static str {
        "lowest"
    }
}

/// A game that ends before the learner's first decision is skipped (counted); the rewards of
/// the moves before the learner's first decision come with its first step; an opponent that
/// never lets the learner decide is an error, not a hang.
#[test]
fn games_without_a_learner_decision_are_skipped_and_opening_rewards_carried() {
    let game = quit();
    for mode in MODES {
        let opponents = pool(LearnerSeat::Fixed(1), &[("random", 1.0)]);
        let n = 16;
        let mut venv = batch(&game, n, 3, None, mode, opponents);
        assert!(venv.skipped_games() > 0, "half the games end at once");
        let mut out = OwnedBuffers::for_venv(&venv, false);
        venv.reset(None, out.view(false)).unwrap();
        let mut actions = vec![0; n];
        let (mut games, mut ended) = (0, vec![false; n]);
        for _ in 0..40 {
            for (i, _) in ended.iter().enumerate().filter(|(_, ended)| !**ended) {
                // Seat 0 played on: seat 1 decides.
                let state = venv.state(i).unwrap();
                assert_eq!(state.current_player(), Player::Seat(1));
            }
            venv.sample_actions(&mut actions).unwrap();
            venv.step(&actions, out.view(true)).unwrap();
            for i in 0..n {
                if ended[i] {
                    assert_eq!(out.rewards[i], 0.0);
                    ended[i] = false;
                    continue;
                }
                // Every game has one learner step: half a point for playing on, and the pick.
                assert!(out.terminated[i]);
                let expected = if actions[i] == 0 { 1.5 } else { -0.5 };
                assert_eq!(out.rewards[i], expected, "{mode:?}");
                assert_eq!(out.final_returns[i], expected);
                games += 1;
                ended[i] = mode == AutoresetMode::NextStep;
            }
        }
        assert!(games > 300);
        assert!(venv.skipped_games() > 100);
    }
    let never = Opponents::new(LearnerSeat::Fixed(1)).with(Opponent::Bot(Arc::new(Lowest)), 1.0);
    let e = VectorEnv::new(game, 2, 0, Observer::CurrentPlayer, None)
        .unwrap()
        .with_opponents(never)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "'opponents' cannot be 'this pool': a pool against which the learner gets to decide: \
         1000 games in a row ended before seat 1 decided"
    );
}

/// The premise that lets `Bot::try_act` skip the resample for bots that read only their
/// seat's view (`random`, `policy`): at every decision of random games of every game, the
/// acting seat's observation and legal actions are the same on the true state and on
/// states resampled from its information, and the shipped policy picks the same action,
/// greedy or sampling (`play=sample`) from the same generator.
#[test]
fn what_view_only_bots_read_is_the_same_on_every_resample() {
    for entry in entries() {
        let game = game(entry.info.name);
        // The shipped policy, where the game ships one.
        let policies: Vec<checkraise_core::bots::PolicyBot> = shipped_bytes(entry.info.name)
            .map(|bytes| {
                let greedy =
                    checkraise_core::bots::PolicyBot::from_bytes(bytes, game.as_ref(), "shipped")
                        .unwrap();
                let sampling = greedy
                    .clone()
                    .with_play(checkraise_core::bots::Play::Sample);
                vec![greedy, sampling]
            })
            .unwrap_or_default();
        let size = game.observation_size();
        let mut rng = GameRng::new(5);
        let mut checked = 0;
        // Six games, or more in a short game, until more than 20 decisions were checked.
        let mut games = 0;
        while games < 6 || (checked <= 20 && games < 1000) {
            games += 1;
            let mut state = game.new_initial_state();
            while !state.is_terminal() {
                let to_act: Vec<usize> = match state.current_player() {
                    Player::Chance => {
                        let outcomes = state.chance_outcomes();
                        let pick = outcomes[rng.below(outcomes.len() as u64) as usize].0;
                        state.apply_action(pick).unwrap();
                        continue;
                    }
                    Player::Seat(s) => vec![s],
                    _ => (0..game.num_players())
                        .filter(|&s| !state.legal_actions_for(Player::Seat(s)).is_empty())
                        .collect(),
                };
                for &seat in &to_act {
                    let (mut truth, mut seen) = (vec![0.0; size], vec![0.0; size]);
                    state.observation_tensor(seat, &mut truth);
                    for _ in 0..2 {
                        let resampled = state.resample_from_infostate(seat, &mut rng);
                        resampled.observation_tensor(seat, &mut seen);
                        assert_eq!(
                            truth,
                            seen,
                            "{}: observation of seat {seat}",
                            game.info().name
                        );
                        assert_eq!(
                            state.legal_actions_for(Player::Seat(seat)),
                            resampled.legal_actions_for(Player::Seat(seat))
                        );
                        for policy in &policies {
                            let (mut a, mut b) =
                                (GameRng::new(checked as u64), GameRng::new(checked as u64));
                            assert_eq!(
                                policy.act(state.as_ref(), seat, &mut a),
                                policy.act(resampled.as_ref(), seat, &mut b)
                            );
                        }
                    }
                    checked += 1;
                }
                let actions: Vec<Action> = to_act
                    .iter()
                    .map(|&s| {
                        let legal = state.legal_actions_for(Player::Seat(s));
                        legal[rng.below(legal.len() as u64) as usize]
                    })
                    .collect();
                if actions.len() == 1 && !matches!(state.current_player(), Player::Simultaneous) {
                    state.apply_action(actions[0]).unwrap();
                } else {
                    let mut joint = vec![0; game.num_players()];
                    for (&s, &a) in to_act.iter().zip(&actions) {
                        joint[s] = a;
                    }
                    state.apply_actions(&joint).unwrap();
                }
            }
        }
        assert!(checked > 20, "{}: {checked} decisions", game.info().name);
    }
}
