//! Tests of the whole batch API: seeding, auto-reset in both modes, joint actions, illegal
//! actions and bad buffers, sampling; and `Buffers`, the owned buffers the tests of the other
//! files use too. (The tests of one file's own code sit in that file.)

use super::*;
use crate::registry::make_game;

/// Owned buffers for a batch.
pub(super) struct Buffers {
    pub(super) observations: Vec<f32>,
    pub(super) action_masks: Vec<bool>,
    pub(super) current_players: Vec<i32>,
    pub(super) rewards: Vec<f32>,
    pub(super) terminated: Vec<bool>,
    pub(super) truncated: Vec<bool>,
    pub(super) final_returns: Vec<f32>,
    pub(super) final_observations: Vec<f32>,
    /// Whether the next call may write only what changed (set after the first write).
    pub(super) retained: bool,
}

impl Buffers {
    pub(super) fn for_env(venv: &VectorEnv) -> Self {
        let n = venv.num_envs();
        let game = venv.game();
        let rows = venv.rows_per_env();
        Buffers {
            observations: vec![0.0; n * rows * game.observation_size()],
            action_masks: vec![false; n * rows * game.num_distinct_actions()],
            current_players: vec![0; n],
            rewards: vec![0.0; n * game.num_players()],
            terminated: vec![false; n],
            truncated: vec![false; n],
            final_returns: vec![0.0; n * game.num_players()],
            final_observations: vec![0.0; n * rows * game.observation_size()],
            retained: false,
        }
    }

    /// The buffers for the next call: retained after the first one.
    pub(super) fn view(&mut self) -> StepBuffers<'_> {
        let retained = std::mem::replace(&mut self.retained, true);
        StepBuffers {
            retained,
            observations: &mut self.observations,
            action_masks: &mut self.action_masks,
            current_players: &mut self.current_players,
            rewards: &mut self.rewards,
            terminated: &mut self.terminated,
            truncated: &mut self.truncated,
            final_returns: &mut self.final_returns,
            final_observations: Some(&mut self.final_observations),
            ..StepBuffers::default()
        }
    }

    /// The first legal action of each env (from the masks just written).
    pub(super) fn first_legal(&self, num_actions: usize) -> Vec<Action> {
        self.action_masks
            .chunks(num_actions)
            .map(|m| m.iter().position(|&b| b).unwrap_or(0) as Action)
            .collect()
    }
}

/// Rounds of the joint fixture game these tests play: matching pennies, seat 0 scoring when
/// the coins (picks 0 and 1) match, with a seat's points as its observation.
const ROUNDS: usize = 3;

fn pennies() -> Arc<dyn Game> {
    let rounds = ROUNDS.to_string();
    crate::testing::Fixture::<true>::game(&[("rounds", &rounds), ("picks", "2")])
}

#[test]
fn simultaneous_games_take_joint_actions() {
    let game = pennies();
    assert!(matches!(
        VectorEnv::new(game.clone(), 3, 0, Observer::CurrentPlayer, None),
        Err(GameError::InvalidParameter { .. })
    ));
    let mut venv = VectorEnv::new(game, 3, 0, Observer::AllSeats, None).unwrap();
    assert_eq!(venv.actions_per_env(), 2);
    let mut buf = Buffers::for_env(&venv);
    venv.reset(None, buf.view()).unwrap();
    assert_eq!(buf.current_players, vec![-2; 3]);
    assert!(buf.action_masks.iter().all(|&b| b));
    let err = venv.step(&[0, 0, 1], buf.view()).unwrap_err();
    assert_eq!(err.to_string(), "actions buffer has length 3, expected 6");
    // Env 1's seat 1 shows an impossible coin: nothing moves.
    let err = venv.step(&[0, 0, 1, 2, 1, 0], buf.view()).unwrap_err();
    assert!(matches!(err, VectorError::Env { index: 1, .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with("env 1: illegal action 2 (pick2) for seat 1")
    );
    assert!((0..3).all(|i| venv.state(i).unwrap().history().is_empty()));
    for round in 1..=ROUNDS {
        // Env 0 always matches, env 1 never does, env 2 matches on odd rounds.
        let odd = (round % 2) as Action;
        venv.step(&[1, 1, 0, 1, odd, 1], buf.view()).unwrap();
        let odd_reward = if odd == 1 { 1.0 } else { -1.0 };
        assert_eq!(
            buf.rewards,
            vec![1.0, -1.0, -1.0, 1.0, odd_reward, -odd_reward]
        );
        let last = round == ROUNDS;
        assert_eq!(buf.terminated, vec![last; 3]);
        assert_eq!(buf.current_players, vec![if last { -4 } else { -2 }; 3]);
        assert_eq!(buf.observations[0], round as f32);
        assert_eq!(buf.observations[1], -(round as f32));
    }
    assert!(buf.action_masks.iter().all(|&b| !b));
    // The next step ignores the (impossible) actions and starts new games.
    venv.step(&[9; 6], buf.view()).unwrap();
    assert_eq!(buf.current_players, vec![-2; 3]);
    assert_eq!(buf.rewards, vec![0.0; 6]);
    assert_eq!(buf.terminated, vec![false; 3]);
    assert_eq!(buf.final_returns, vec![0.0; 6]);
}

#[test]
fn same_step_mode_starts_the_next_game_in_the_ending_step() {
    let game = pennies();
    let mut venv = VectorEnv::new(game, 2, 0, Observer::AllSeats, None)
        .unwrap()
        .with_autoreset_mode(AutoresetMode::SameStep);
    let mut buf = Buffers::for_env(&venv);
    venv.reset(None, buf.view()).unwrap();
    for round in 1..=ROUNDS {
        // Env 0 always matches, env 1 never does.
        venv.step(&[1, 1, 0, 1], buf.view()).unwrap();
        let last = round == ROUNDS;
        assert_eq!(buf.rewards, vec![1.0, -1.0, -1.0, 1.0]);
        assert_eq!(buf.terminated, vec![last; 2]);
        // Never terminal: the ending step already started the next game.
        assert_eq!(buf.current_players, vec![-2; 2]);
        let n = ROUNDS as f32;
        if last {
            assert_eq!(buf.final_returns, vec![n, -n, -n, n]);
            // The final observations (the scores), and the new games' first ones.
            assert_eq!(buf.final_observations, vec![n, -n, -n, n]);
            assert_eq!(buf.observations, vec![0.0; 4]);
        } else {
            assert_eq!(buf.final_returns, vec![0.0; 4]);
            assert_eq!(buf.final_observations, vec![0.0; 4]);
            let r = round as f32;
            assert_eq!(buf.observations, vec![r, -r, -r, r]);
        }
    }
    // The next step plays the new games: its actions are not ignored.
    let err = venv.step(&[9, 0, 0, 0], buf.view()).unwrap_err();
    assert!(matches!(err, VectorError::Env { index: 0, .. }), "{err}");
    venv.step(&[1, 1, 0, 1], buf.view()).unwrap();
    assert_eq!(buf.observations, vec![1.0, -1.0, -1.0, 1.0]);
    assert_eq!(buf.final_returns, vec![0.0; 4]);
}

/// One env's history as a list of events: each step's transition, and each game's start.
#[derive(Debug, PartialEq)]
enum Event {
    /// A new game's first observation.
    Start(Vec<f32>),
    /// A step of a game: rewards, terminated, truncated, final returns, and the
    /// observation after it (the final one when the step ended the game).
    Step(Vec<f32>, bool, bool, Vec<f32>, Vec<f32>),
}

/// Plays `steps` steps of every env of `game` in `mode` with per-env seeded random legal
/// actions (drawn only for envs that play), and returns each env's events.
fn events(game: &Arc<dyn Game>, mode: AutoresetMode, steps: usize) -> Vec<Vec<Event>> {
    let n = 3;
    let observer = Observer::default_for(game.as_ref());
    let mut venv = VectorEnv::new(game.clone(), n, 5, observer, Some(12))
        .unwrap()
        .with_autoreset_mode(mode);
    let (np, per_env) = (game.num_players(), venv.actions_per_env());
    let obs_len = venv.rows_per_env() * game.observation_size();
    let mut buf = Buffers::for_env(&venv);
    venv.reset(None, buf.view()).unwrap();
    let mut rngs: Vec<GameRng> = (0..n).map(|i| GameRng::new(100 + i as u64)).collect();
    let row = |b: &[f32], i: usize| b[i * obs_len..(i + 1) * obs_len].to_vec();
    let mut out: Vec<Vec<Event>> = (0..n)
        .map(|i| vec![Event::Start(row(&buf.observations, i))])
        .collect();
    for _ in 0..steps {
        let pending: Vec<bool> = (0..n)
            .map(|i| buf.terminated[i] || buf.truncated[i])
            .collect();
        let pending: Vec<bool> = pending
            .iter()
            .map(|&ended| ended && mode == AutoresetMode::NextStep)
            .collect();
        let mut actions = vec![0; n * per_env];
        for i in 0..n {
            if pending[i] {
                continue;
            }
            let state = venv.state(i).unwrap();
            for k in 0..per_env {
                let seat = match (per_env, state.current_player()) {
                    (1, Player::Seat(seat)) => seat,
                    (_, Player::Simultaneous) => k,
                    (_, Player::Seat(seat)) if seat == k => seat,
                    _ => continue,
                };
                actions[i * per_env + k] =
                    rngs[i].choose(&state.legal_actions_for(Player::Seat(seat)));
            }
        }
        venv.step(&actions, buf.view()).unwrap();
        for i in 0..n {
            let rewards = buf.rewards[i * np..(i + 1) * np].to_vec();
            let finals = buf.final_returns[i * np..(i + 1) * np].to_vec();
            let (term, trunc) = (buf.terminated[i], buf.truncated[i]);
            let ended = term || trunc;
            if !ended {
                assert!(finals.iter().all(|&r| r == 0.0));
                assert!(row(&buf.final_observations, i).iter().all(|&x| x == 0.0));
            }
            if pending[i] {
                assert!(!ended && rewards.iter().all(|&r| r == 0.0));
                out[i].push(Event::Start(row(&buf.observations, i)));
                continue;
            }
            let after = if ended {
                row(&buf.final_observations, i)
            } else {
                row(&buf.observations, i)
            };
            if ended && mode == AutoresetMode::NextStep {
                assert_eq!(after, row(&buf.observations, i));
            }
            out[i].push(Event::Step(rewards, term, trunc, finals, after));
            if ended && mode == AutoresetMode::SameStep {
                out[i].push(Event::Start(row(&buf.observations, i)));
            }
        }
    }
    out
}

/// Both modes play the same games (chance, rewards, final returns and observations), only
/// at different steps, in every registered game, with terminations and truncations.
#[test]
fn both_modes_play_the_same_games() {
    for entry in crate::registry::entries() {
        let name = entry.info.name;
        let game = make_game::<&str, &str>(name, []).unwrap();
        let next = events(&game, AutoresetMode::NextStep, 150);
        let same = events(&game, AutoresetMode::SameStep, 150);
        let mut ended = [0; 2];
        for (next, same) in next.iter().zip(&same) {
            // Next-step mode spends a step on each reset, so it is behind.
            assert!(next.len() <= same.len(), "{name}");
            assert_eq!(next[..], same[..next.len()], "{name}");
            for event in next {
                if let Event::Step(_, term, trunc, _, _) = event {
                    assert!(!(*term && *trunc), "{name}");
                    ended[0] += usize::from(*term);
                    ended[1] += usize::from(*trunc);
                }
            }
        }
        // A game shorter than the 12-step cap ends by itself instead.
        if game.max_game_length() > 12 {
            assert!(
                ended[1] > 0,
                "{name}: no truncation in 150 steps of 12-step episodes"
            );
        } else {
            assert!(ended[0] > 0, "{name}: no episode ended in 150 steps");
        }
    }
    // A game short enough to terminate within the cap.
    let game = pokeros(&[("board_size", "3"), ("hand_size", "1")]);
    let next = events(&game, AutoresetMode::NextStep, 60);
    let same = events(&game, AutoresetMode::SameStep, 60);
    let mut terminated = 0;
    for (next, same) in next.iter().zip(&same) {
        assert_eq!(next[..], same[..next.len()]);
        for event in next {
            if let Event::Step(_, true, _, finals, _) = event {
                terminated += 1;
                assert_eq!(finals.iter().sum::<f32>(), 0.0);
            }
        }
    }
    assert!(terminated > 3);
}

fn pokeros(params: &[(&str, &str)]) -> Arc<dyn Game> {
    make_game("pokeros", params.iter().copied()).unwrap()
}

fn run(seed: u64, steps: usize) -> (Vec<Vec<f32>>, Vec<Vec<bool>>, Vec<String>) {
    let game = pokeros(&[("board_size", "7")]);
    let na = game.num_distinct_actions();
    let mut venv = VectorEnv::new(game, 5, seed, Observer::CurrentPlayer, None).unwrap();
    let mut buf = Buffers::for_env(&venv);
    venv.reset(None, buf.view()).unwrap();
    let (mut rewards, mut dones) = (Vec::new(), Vec::new());
    for _ in 0..steps {
        let actions = buf.first_legal(na);
        venv.step(&actions, buf.view()).unwrap();
        rewards.push(buf.rewards.clone());
        dones.push(buf.terminated.clone());
    }
    let states = (0..5).map(|i| venv.state(i).unwrap().serialize()).collect();
    (rewards, dones, states)
}

#[test]
fn same_seed_same_trajectories() {
    assert_eq!(run(3, 60), run(3, 60));
    assert_ne!(run(3, 60).2, run(4, 60).2);
}

#[test]
fn env_i_is_the_env_seeded_with_seed_plus_i() {
    let game = pokeros(&[]);
    let venv = VectorEnv::new(game.clone(), 3, 10, Observer::AllSeats, None).unwrap();
    for i in 0..3 {
        let env = Env::new(game.clone(), 10 + i as u64);
        assert_eq!(venv.state(i).unwrap().serialize(), env.state().serialize());
    }
}

#[test]
fn auto_reset_on_the_step_after_the_end() {
    // A 3x3 board with 1-card hands ends quickly.
    let game = pokeros(&[("board_size", "3"), ("hand_size", "1")]);
    let na = game.num_distinct_actions();
    let mut venv = VectorEnv::new(game, 2, 0, Observer::CurrentPlayer, None).unwrap();
    let mut buf = Buffers::for_env(&venv);
    venv.reset(None, buf.view()).unwrap();
    let mut ended = false;
    for _ in 0..40 {
        let actions = buf.first_legal(na);
        venv.step(&actions, buf.view()).unwrap();
        if buf.terminated[0] {
            ended = true;
            assert_eq!(buf.current_players[0], -4);
            assert!(!buf.action_masks[..na].iter().any(|&b| b));
            let sum: f32 = buf.rewards[..2].iter().sum();
            assert_eq!(sum, 0.0);
            // The game's returns and its final observation (the step's own) are reported.
            let returns: Vec<f32> = venv
                .state(0)
                .unwrap()
                .returns()
                .iter()
                .map(|&r| r as f32)
                .collect();
            assert_eq!(&buf.final_returns[..2], &returns[..]);
            let obs = venv.game().observation_size();
            assert_eq!(&buf.final_observations[..obs], &buf.observations[..obs]);
            assert!(
                buf.final_returns[2..]
                    .iter()
                    .zip(&buf.terminated[1..])
                    .all(|(&r, &t)| t || r == 0.0)
            );
            let final_history = venv.state(0).unwrap().history().len();
            // The next step ignores the action (any id) and starts a new game.
            let mut actions = buf.first_legal(na);
            actions[0] = Action::MAX;
            venv.step(&actions, buf.view()).unwrap();
            assert!(!buf.terminated[0] && !buf.truncated[0]);
            assert_eq!(&buf.rewards[..2], &[0.0, 0.0]);
            assert_eq!(&buf.final_returns[..2], &[0.0, 0.0]);
            assert!(buf.final_observations[..obs].iter().all(|&x| x == 0.0));
            assert!(buf.current_players[0] >= 0);
            assert!(venv.state(0).unwrap().history().len() < final_history);
            break;
        }
    }
    assert!(ended);
}

#[test]
fn illegal_action_names_the_env_and_changes_nothing() {
    let game = pokeros(&[]);
    let na = game.num_distinct_actions();
    let mut venv = VectorEnv::new(game, 4, 1, Observer::CurrentPlayer, None).unwrap();
    let mut buf = Buffers::for_env(&venv);
    venv.reset(None, buf.view()).unwrap();
    let before: Vec<String> = (0..4).map(|i| venv.state(i).unwrap().serialize()).collect();
    let mut actions = buf.first_legal(na);
    actions[2] = 0; // a corner, next to no card
    let err = venv.step(&actions, buf.view()).unwrap_err();
    assert!(matches!(err, VectorError::Env { index: 2, .. }), "{err}");
    let text = err.to_string();
    assert!(text.starts_with("env 2: illegal action 0 "), "{text}");
    let after: Vec<String> = (0..4).map(|i| venv.state(i).unwrap().serialize()).collect();
    assert_eq!(before, after);
    actions[2] = na as Action + 5;
    let err = venv.step(&actions, buf.view()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("env 2: illegal action {}", na + 5))
    );
}

/// Actions are checked in parallel; with several illegal ones the lowest env is named,
/// and no env steps.
#[test]
fn the_lowest_illegal_env_is_named() {
    let game = pokeros(&[]);
    let na = game.num_distinct_actions();
    let mut venv = VectorEnv::new(game, 300, 1, Observer::CurrentPlayer, None).unwrap();
    let mut buf = Buffers::for_env(&venv);
    venv.reset(None, buf.view()).unwrap();
    let before: Vec<String> = (0..300)
        .map(|i| venv.state(i).unwrap().serialize())
        .collect();
    let mut actions = buf.first_legal(na);
    for bad in [290, 151, 200] {
        actions[bad] = na as Action + 1;
    }
    for _ in 0..20 {
        let err = venv.step(&actions, buf.view()).unwrap_err();
        assert!(matches!(err, VectorError::Env { index: 151, .. }), "{err}");
    }
    let after: Vec<String> = (0..300)
        .map(|i| venv.state(i).unwrap().serialize())
        .collect();
    assert_eq!(before, after);
}

#[test]
fn bad_buffers_and_observers_are_refused() {
    let game = pokeros(&[]);
    let mut venv = VectorEnv::new(game.clone(), 2, 0, Observer::Seat(1), None).unwrap();
    let mut buf = Buffers::for_env(&venv);
    buf.rewards.pop();
    let err = venv.reset(None, buf.view()).unwrap_err();
    assert_eq!(err.to_string(), "rewards buffer has length 3, expected 4");
    let mut buf = Buffers::for_env(&venv);
    let err = venv.step(&[0], buf.view()).unwrap_err();
    assert_eq!(err.to_string(), "actions buffer has length 1, expected 2");
    assert!(matches!(
        VectorEnv::new(game.clone(), 2, 0, Observer::Seat(2), None),
        Err(GameError::InvalidSeat { seat: 2, .. })
    ));
    assert!(VectorEnv::new(game.clone(), 0, 0, Observer::AllSeats, None).is_err());
    assert!(VectorEnv::new(game, 1, 0, Observer::AllSeats, Some(0)).is_err());
}

#[test]
fn all_seats_writes_every_seat_and_truncation_resets() {
    let game = pokeros(&[("players", "3")]);
    let (na, obs) = (game.num_distinct_actions(), game.observation_size());
    let mut venv = VectorEnv::new(game.clone(), 3, 7, Observer::AllSeats, Some(4)).unwrap();
    let mut buf = Buffers::for_env(&venv);
    venv.reset(None, buf.view()).unwrap();
    let first_decision = venv.state(0).unwrap().history().len();
    for step in 1..=5 {
        let actions: Vec<Action> = (0..3)
            .map(|i| {
                let seat = buf.current_players[i] as usize;
                let rows = &buf.action_masks[(i * 3 + seat) * na..(i * 3 + seat + 1) * na];
                rows.iter().position(|&b| b).unwrap() as Action
            })
            .collect();
        venv.step(&actions, buf.view()).unwrap();
        for i in 0..3 {
            let state = venv.state(i).unwrap();
            for seat in 0..3 {
                let mut expected = vec![0.0; obs];
                state.observation_tensor(seat, &mut expected);
                let at = (i * 3 + seat) * obs;
                assert_eq!(&buf.observations[at..at + obs], &expected[..]);
                let mut mask = vec![false; na];
                state.action_mask(Player::Seat(seat), &mut mask);
                assert_eq!(&buf.action_masks[(i * 3 + seat) * na..][..na], &mask[..]);
            }
            assert_eq!(buf.truncated[i], step == 4, "step {step}");
            assert!(!buf.terminated[i]);
        }
    }
    // Step 5 started new games.
    assert_eq!(venv.state(0).unwrap().history().len(), first_decision);
}

#[test]
fn reset_with_seed_matches_a_new_batch() {
    let game = pokeros(&[]);
    let na = game.num_distinct_actions();
    let mut a = VectorEnv::new(game.clone(), 3, 0, Observer::CurrentPlayer, None).unwrap();
    let mut buf = Buffers::for_env(&a);
    a.reset(None, buf.view()).unwrap();
    let actions = buf.first_legal(na);
    a.step(&actions, buf.view()).unwrap();
    a.reset(Some(50), buf.view()).unwrap();
    let b = VectorEnv::new(game, 3, 50, Observer::CurrentPlayer, None).unwrap();
    for i in 0..3 {
        assert_eq!(
            a.state(i).unwrap().serialize(),
            b.state(i).unwrap().serialize()
        );
    }
}

/// `sample_actions` draws legal actions for every env (joint ones too), reproducibly.
#[test]
fn sampled_actions_are_legal_and_reproducible() {
    for entry in crate::registry::entries() {
        let game = make_game::<&str, &str>(entry.info.name, []).unwrap();
        let observer = if entry.info.dynamics == Dynamics::Simultaneous {
            Observer::AllSeats
        } else {
            Observer::CurrentPlayer
        };
        let make = || VectorEnv::new(game.clone(), 6, 21, observer, None).unwrap();
        let (mut a, mut b) = (make(), make());
        let mut buf_a = Buffers::for_env(&a);
        let mut buf_b = Buffers::for_env(&b);
        a.reset(None, buf_a.view()).unwrap();
        b.reset(None, buf_b.view()).unwrap();
        let mut actions = vec![0; 6 * a.actions_per_env()];
        let mut again = actions.clone();
        for _ in 0..300 {
            a.sample_actions(&mut actions).unwrap();
            b.sample_actions(&mut again).unwrap();
            assert_eq!(actions, again);
            a.step(&actions, buf_a.view()).unwrap();
            b.step(&again, buf_b.view()).unwrap();
        }
        assert_eq!(buf_a.observations, buf_b.observations);
        assert!(matches!(
            a.sample_actions(&mut [0; 1]),
            Err(VectorError::Batch(GameError::BadBuffer { .. }))
        ));
    }
}
