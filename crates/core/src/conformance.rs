//! Conformance checks every game must pass (the gates the README names): the
//! generic random simulation, the information-hiding check by resampling, and playthrough
//! golden files. Each game joins with one line in `crates/core/tests/conformance.rs`.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::env::GameRng;
use crate::game::{Action, Game, Player, State};
use crate::registry;

/// Makes a game from `name(k=v,...)` text, panicking with the engine's message on error.
pub fn game(spec: &str) -> Arc<dyn Game> {
    registry::make_game_from_string(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// The seats that may act at `state` (the current seat, or all at a simultaneous node).
fn acting_seats(state: &dyn State) -> Vec<usize> {
    match state.current_player() {
        Player::Seat(s) => vec![s],
        Player::Simultaneous => (0..state.num_players()).collect(),
        _ => Vec::new(),
    }
}

/// A view is a JSON object that starts with the common header (`view::Header`), true to the
/// state; the rest of its shape is the game's published schema (`tests/test_views.py`).
fn check_view_header(game: &dyn Game, state: &dyn State, viewer: Option<usize>) {
    let view = state.view(viewer);
    let terminal = state.is_terminal();
    let expected = serde_json::json!({
        "game": game.info().name,
        "viewer": viewer,
        "current_player": state.current_player().id(),
        "terminal": terminal,
        "returns": terminal.then(|| state.returns()),
    });
    for (key, value) in expected.as_object().expect("an object") {
        assert_eq!(
            view.get(key),
            Some(value),
            "{}: view({viewer:?}) field '{key}'\n{view}",
            game.info().name
        );
    }
}

/// The view of everyone (`State::everyone_view`, what a finished match's replay shows) is
/// the union of the seats' and the spectator's views: its header names no seat and says
/// `everyone`, and it shows exactly the texts (cards, action cards, names) some seat or a
/// spectator sees here, leaving out only one seat's own choices (`legal_actions`, a pending
/// `my_move`): so every card a seat holds is face up, and nothing no seat sees is.
fn check_everyone_view(game: &dyn Game, state: &dyn State) {
    let view = state.everyone_view();
    assert_eq!(view.get("viewer"), Some(&serde_json::Value::Null));
    assert_eq!(view.get("everyone"), Some(&serde_json::Value::Bool(true)));
    let mut seen = std::collections::BTreeSet::new();
    for viewer in std::iter::once(None).chain((0..state.num_players()).map(Some)) {
        assert_eq!(state.view(viewer).get("everyone"), None, "view({viewer:?})");
        texts(&state.view(viewer), &mut seen);
    }
    let mut everyone = std::collections::BTreeSet::new();
    texts(&view, &mut everyone);
    assert!(
        everyone == seen,
        "{}: the view of everyone is not the union of the seats' views: only in it {:?}, \
         missing from it {:?}\n{view}",
        game.info().name,
        everyone.difference(&seen).collect::<Vec<_>>(),
        seen.difference(&everyone).collect::<Vec<_>>(),
    );
}

/// Every string in `value` but those under one seat's own keys (`legal_actions`, `my_move`).
fn texts(value: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
    match value {
        serde_json::Value::String(text) => {
            out.insert(text.clone());
        }
        serde_json::Value::Array(items) => items.iter().for_each(|item| texts(item, out)),
        serde_json::Value::Object(fields) => {
            for (key, item) in fields {
                if key != "legal_actions" && key != "my_move" {
                    texts(item, out);
                }
            }
        }
        _ => {}
    }
}

/// Checks every invariant of the random simulation at one state.
/// At the `deep` states every seat's strings and view are built; at the others one seat's, in
/// turn (seat `step % n`): they grow with the history, so that a long game with many seats
/// does not cost the square of its length times the seats, and still every state is read.
fn check_state(game: &dyn Game, state: &dyn State, rng: &mut GameRng, deep: bool, step: usize) {
    let n = game.num_players();
    let ctx = || format!("{}: {}\n{state}", game.info().name, state.describe());
    // Observations: declared shape, finite, for every seat.
    let size = game.observation_size();
    let mut obs = vec![0f32; size];
    for p in 0..n {
        obs.fill(f32::NAN);
        state.observation_tensor(p, &mut obs);
        assert!(
            obs.iter().all(|x| x.is_finite()),
            "non-finite observation, {}",
            ctx()
        );
        let (low, high) = game.observation_bounds();
        if let Some((i, x)) = obs
            .iter()
            .enumerate()
            .find(|(_, x)| !(low..=high).contains(*x))
        {
            panic!(
                "observation entry {i} of seat {p} is {x}, outside the game's bounds \
                 [{low}, {high}], {}",
                ctx()
            );
        }
        // The sparse form, where a game gives one, is the same observation.
        let mut entries = crate::game::ObservationEntries::new(size);
        if state.observation_entries(p, &mut entries) {
            let mut sparse = vec![0f32; size];
            entries.write_into(&mut sparse);
            assert_eq!(sparse, obs, "observation entries differ, {}", ctx());
        }
        if deep || p == step % n {
            let _ = state.observation_string(p);
            let _ = state.information_state_string(p);
            check_view_header(game, state, Some(p));
        }
        let mut info = vec![f32::NAN; game.information_state_tensor_size()];
        state.information_state_tensor(p, &mut info);
        assert!(
            info.iter().all(|x| x.is_finite()),
            "non-finite information-state tensor, {}",
            ctx()
        );
    }
    check_view_header(game, state, None);
    // At the deep states only: it builds every seat's view, which costs a random property
    // test minutes on a long Hold'em game when done at every state.
    if deep {
        check_everyone_view(game, state);
    }
    // Returns within bounds, zero-sum where declared.
    let returns = state.returns();
    assert_eq!(returns.len(), n);
    for r in &returns {
        assert!(
            *r >= game.min_utility() - 1e-9 && *r <= game.max_utility() + 1e-9,
            "return {r} outside [{}, {}], {}",
            game.min_utility(),
            game.max_utility(),
            ctx()
        );
    }
    if let Some(total) = game.utility_sum() {
        let sum: f64 = returns.iter().sum();
        assert!(
            (sum - total).abs() < 1e-6,
            "returns {returns:?} do not sum to {total}, {}",
            ctx()
        );
    }
    assert_eq!(state.rewards().len(), n);
    let mut added = vec![0.0; n];
    state.add_rewards_to(&mut added);
    assert_eq!(
        added,
        state.rewards(),
        "add_rewards_to differs from rewards, {}",
        ctx()
    );
    // A game that declares terminal rewards pays nothing (returns stay zero) before the end.
    if game.reward_model() == crate::game::RewardModel::Terminal && !state.is_terminal() {
        assert!(
            returns.iter().all(|r| *r == 0.0),
            "returns {returns:?} before the end of a game with terminal rewards, {}",
            ctx()
        );
    }
    if state.is_terminal() {
        for p in 0..n {
            assert!(state.legal_actions_for(Player::Seat(p)).is_empty());
        }
        return;
    }
    if state.is_chance_node() {
        let outcomes = state.chance_outcomes();
        assert!(
            !outcomes.is_empty(),
            "chance node without outcomes, {}",
            ctx()
        );
        let total: f64 = outcomes.iter().map(|o| o.1).sum();
        assert!(
            (total - 1.0).abs() < 1e-9,
            "chance probabilities sum to {total}, {}",
            ctx()
        );
        let actions: Vec<Action> = outcomes.iter().map(|o| o.0).collect();
        assert!(
            actions.windows(2).all(|w| w[0] < w[1]),
            "chance outcomes unsorted"
        );
        assert!(
            actions
                .iter()
                .all(|&a| (a as usize) < game.max_chance_outcomes())
        );
        assert_eq!(state.legal_actions_for(Player::Chance), actions);
        check_strings(state, Player::Chance, &actions);
        return;
    }
    let num_actions = game.num_distinct_actions();
    let mut mask = vec![false; num_actions];
    for seat in acting_seats(state) {
        let player = Player::Seat(seat);
        let actions = state.legal_actions_for(player);
        assert!(
            !actions.is_empty(),
            "no legal actions for {player}, {}",
            ctx()
        );
        assert!(
            actions.windows(2).all(|w| w[0] < w[1]),
            "legal actions unsorted, {}",
            ctx()
        );
        assert!(actions.iter().all(|&a| (a as usize) < num_actions));
        state.action_mask(player, &mut mask);
        let from_mask: Vec<Action> = (0..num_actions as Action)
            .filter(|&a| mask[a as usize])
            .collect();
        assert_eq!(from_mask, actions, "mask differs from the list, {}", ctx());
        check_strings(state, player, &actions);
        if deep && !state.is_simultaneous_node() {
            // Each legal action applies (a sample of them, to keep the test fast).
            let tries = actions.len().min(6);
            for _ in 0..tries {
                let a = rng.choose(&actions);
                let mut copy = state.clone_box();
                copy.apply_action(a)
                    .unwrap_or_else(|e| panic!("legal {a} failed: {e}"));
            }
            // An illegal action is refused and changes nothing.
            if let Some(bad) = (0..num_actions as Action).find(|a| !actions.contains(a)) {
                let mut copy = state.clone_box();
                assert!(copy.apply_action(bad).is_err(), "illegal {bad} accepted");
                assert_eq!(copy.serialize(), state.serialize());
            }
            let mut copy = state.clone_box();
            assert!(copy.apply_action(num_actions as Action + 7).is_err());
        }
        if deep && state.is_simultaneous_node() {
            // With the other seats playing legal actions, this seat's entry is accepted
            // exactly when it is legal: every legal action, and a spread of the illegal ones
            // (the ids in a residue class that varies from state to state) and past the end.
            let mut joint: Vec<Action> = (0..n)
                .map(|p| rng.choose(&state.legal_actions_for(Player::Seat(p))))
                .collect();
            let offset = rng.below(16) as Action;
            let candidates = (0..num_actions as Action)
                .filter(|a| a % 16 == offset || actions.binary_search(a).is_ok())
                .chain([num_actions as Action, num_actions as Action + 7]);
            for a in candidates {
                joint[seat] = a;
                let mut copy = state.clone_box();
                let legal = actions.binary_search(&a).is_ok();
                match copy.apply_actions(&joint) {
                    Ok(()) => assert!(legal, "illegal {a} of seat {seat} accepted, {}", ctx()),
                    Err(e) => {
                        assert!(!legal, "legal {a} of seat {seat} refused: {e}, {}", ctx());
                        assert_eq!(copy.serialize(), state.serialize());
                    }
                }
            }
        }
    }
    if deep {
        // Clone and serialize round trips.
        let text = state.serialize();
        let back = game
            .deserialize_state(&text)
            .unwrap_or_else(|e| panic!("deserialize failed: {e}, {}", ctx()));
        assert_eq!(back.serialize(), text);
        assert_eq!(back.to_string(), state.to_string());
        assert_eq!(back.history(), state.history());
        for p in 0..n {
            assert_eq!(back.observation_string(p), state.observation_string(p));
        }
        let copy = state.clone_box();
        assert_eq!(copy.serialize(), text);
    }
}

/// Checks every invariant of the random simulation at one state reached any way (a fuzz
/// input, a property test's play): legal actions, masks, observations, views, returns,
/// strings, clone and serialization round trips, and information hiding by resampling.
pub fn check_state_deeply(game: &dyn Game, state: &dyn State, rng: &mut GameRng) {
    check_state(game, state, rng, true, 0);
    check_information_hiding(game, state, rng);
}

/// Action strings are unique among `actions` and round-trip.
fn check_strings(state: &dyn State, player: Player, actions: &[Action]) {
    let mut seen = HashSet::new();
    for &a in actions {
        let s = state.action_to_string(player, a);
        assert!(
            seen.insert(s.clone()),
            "action string '{s}' repeats for {player}"
        );
        let back = state
            .string_to_action(player, &s)
            .unwrap_or_else(|e| panic!("'{s}' does not parse back: {e}"));
        assert_eq!(back, a, "'{s}' parses to {back}, not {a}");
    }
}

/// Checks that resampling seat p's hidden information leaves what p sees unchanged.
pub fn check_information_hiding(game: &dyn Game, state: &dyn State, rng: &mut GameRng) {
    let n = state.num_players();
    let size = game.observation_size();
    let mut a = vec![0f32; size];
    let mut b = vec![0f32; size];
    for p in 0..n {
        for _ in 0..2 {
            let other = state.resample_from_infostate(p, rng);
            assert_eq!(other.current_player(), state.current_player());
            state.observation_tensor(p, &mut a);
            other.observation_tensor(p, &mut b);
            assert_eq!(
                a, b,
                "seat {p}'s observation changed on resampling\n{state}\n{other}"
            );
            assert_eq!(
                state.observation_string(p),
                other.observation_string(p),
                "seat {p}'s observation string changed on resampling"
            );
            assert_eq!(
                state.information_state_string(p),
                other.information_state_string(p),
                "seat {p}'s information state changed on resampling"
            );
            assert!(
                information_state_tensor(game, state, p)
                    == information_state_tensor(game, other.as_ref(), p),
                "seat {p}'s information-state tensor changed on resampling\n{state}\n{other}"
            );
            assert_eq!(
                state.legal_actions_for(Player::Seat(p)),
                other.legal_actions_for(Player::Seat(p)),
                "seat {p}'s legal actions changed on resampling"
            );
            assert_eq!(
                state.view(Some(p)),
                other.view(Some(p)),
                "seat {p}'s view changed on resampling"
            );
            assert_eq!(
                state.view(None),
                other.view(None),
                "the public view changed"
            );
            // Resampling is a function of the information state and the generator: from
            // `other`, which p cannot tell from `state`, the same draws give the same state.
            let seed = rng.next_u64();
            let from_state = state.resample_from_infostate(p, &mut GameRng::new(seed));
            let from_other = other.resample_from_infostate(p, &mut GameRng::new(seed));
            assert_eq!(
                from_state.serialize(),
                from_other.serialize(),
                "seat {p}'s resample depends on more than its information state\n{state}\n{other}"
            );
        }
    }
}

/// Plays `games` random games of `spec` from `seed`, checking every invariant at every
/// state (deeply at `deep_every`-th states) and information hiding along the way.
/// Seat `p`'s information-state tensor.
fn information_state_tensor(game: &dyn Game, state: &dyn State, p: usize) -> Vec<f32> {
    let mut out = vec![0f32; game.information_state_tensor_size()];
    state.information_state_tensor(p, &mut out);
    out
}

/// Checks that information-state tensors and strings determine each other, over every state
/// seen: a tensor is a function of the information state (equal strings, equal tensors) and
/// has perfect recall (different strings, different tensors). Tensors are kept as hashes.
#[derive(Default)]
struct InfoStates {
    by_string: HashMap<String, u64>,
    by_tensor: HashMap<u64, String>,
}

impl InfoStates {
    fn check(&mut self, game: &dyn Game, state: &dyn State) {
        for p in 0..state.num_players() {
            let text = state.information_state_string(p);
            let mut hasher = std::hash::DefaultHasher::new();
            for x in information_state_tensor(game, state, p) {
                x.to_bits().hash(&mut hasher);
            }
            let hash = hasher.finish();
            if let Some(&seen) = self.by_string.get(&text) {
                assert_eq!(
                    seen, hash,
                    "one information state, two tensors: {text}\n{state}"
                );
            }
            if let Some(seen) = self.by_tensor.get(&hash) {
                assert_eq!(
                    seen, &text,
                    "two information states, one tensor (no perfect recall)\n{state}"
                );
            }
            self.by_string.insert(text.clone(), hash);
            self.by_tensor.insert(hash, text);
        }
    }
}

/// Replays `history` on a new state, the entry at `change` replaced by another legal choice
/// (the same node, another outcome or action), and the rest kept while it stays legal.
/// `None` when that node had no other choice.
fn replay_changed(
    game: &dyn Game,
    history: &[crate::game::PlayerAction],
    change: usize,
    rng: &mut GameRng,
) -> Option<Box<dyn State>> {
    let n = game.num_players();
    let mut state = game.new_initial_state();
    let mut i = 0;
    while i < history.len() && !state.is_terminal() {
        let width = if state.is_simultaneous_node() { n } else { 1 };
        let mut joint: Vec<Action> = history[i..(i + width).min(history.len())]
            .iter()
            .map(|e| e.action)
            .collect();
        if joint.len() < width {
            break;
        }
        if (i..i + width).contains(&change) {
            let k = change - i;
            let choices: Vec<Action> = state
                .legal_actions_for(history[change].player)
                .into_iter()
                .filter(|&a| a != joint[k])
                .collect();
            if choices.is_empty() {
                return None;
            }
            joint[k] = rng.choose(&choices);
        }
        let applied = if width == 1 {
            state.apply_action(joint[0])
        } else {
            state.apply_actions(&joint)
        };
        if applied.is_err() {
            break;
        }
        i += width;
    }
    Some(state)
}

/// Perfect recall, entry by entry: changing one earlier choice (a card dealt, an action)
/// changes a seat's information-state tensor whenever it changes its information state.
fn check_perfect_recall(game: &dyn Game, state: &dyn State, rng: &mut GameRng) {
    let history = state.history();
    if history.is_empty() {
        return;
    }
    for _ in 0..2 {
        let change = rng.below(history.len() as u64) as usize;
        let Some(other) = replay_changed(game, history, change, rng) else {
            continue;
        };
        for p in 0..state.num_players() {
            if state.information_state_string(p) != other.information_state_string(p) {
                assert!(
                    information_state_tensor(game, state, p)
                        != information_state_tensor(game, other.as_ref(), p),
                    "seat {p} tells these apart but its tensors are equal (entry {change})\n\
                     {}\n{}",
                    state.information_state_string(p),
                    other.information_state_string(p)
                );
            }
        }
    }
}

/// Plays `games` random games of `spec` from `seed` and checks every state on the way with
/// the conformance gate (legal sets, masks, tensors, strings, serialization, resampling and
/// information hiding).
pub fn random_simulation(spec: &str, games: u64, seed: u64) {
    let game = game(spec);
    let n = game.num_players();
    let mut info_states = InfoStates::default();
    for g in 0..games {
        let mut rng = GameRng::new(seed.wrapping_add(g));
        let mut state = game.new_initial_state();
        let mut trajectory = Vec::new();
        let mut steps = 0;
        while !state.is_terminal() {
            // The costly checks (every seat's strings, a replay of the history) grow with the
            // history, so they thin out as a game goes on: at every 7th state for the first
            // 200, every 14th for the next 200, and so on (every 11th, 22nd, ... for hiding).
            let spacing = 1 + steps / 200;
            let deep = steps % (7 * spacing) == 0;
            check_state(game.as_ref(), state.as_ref(), &mut rng, deep, steps);
            if steps % (11 * spacing) == 0 {
                check_information_hiding(game.as_ref(), state.as_ref(), &mut rng);
            }
            if deep {
                info_states.check(game.as_ref(), state.as_ref());
                check_perfect_recall(game.as_ref(), state.as_ref(), &mut rng);
            }
            match state.current_player() {
                Player::Chance => {
                    let a = state.sample_chance_outcome(&mut rng);
                    state.apply_action(a).unwrap();
                    trajectory.push(a);
                }
                Player::Simultaneous => {
                    let joint: Vec<Action> = (0..n)
                        .map(|p| rng.choose(&state.legal_actions_for(Player::Seat(p))))
                        .collect();
                    state.apply_actions(&joint).unwrap();
                    trajectory.extend(joint);
                }
                Player::Seat(p) => {
                    let a = rng.choose(&state.legal_actions_for(Player::Seat(p)));
                    let mut copy = state.clone_box();
                    assert!(
                        copy.apply_actions(&vec![a; n]).is_err(),
                        "a joint action at a sequential node was accepted"
                    );
                    state.apply_action(a).unwrap();
                    trajectory.push(a);
                }
                Player::Terminal => unreachable!(),
            }
            steps += 1;
            assert!(
                state.history().len() <= game.max_game_length(),
                "{spec}: history longer than max_game_length {}",
                game.max_game_length()
            );
        }
        check_state(game.as_ref(), state.as_ref(), &mut rng, true, 0);
        check_information_hiding(game.as_ref(), state.as_ref(), &mut rng);
        info_states.check(game.as_ref(), state.as_ref());
        check_perfect_recall(game.as_ref(), state.as_ref(), &mut rng);
        let mut after = state.clone_box();
        assert!(
            after.apply_action(0).is_err(),
            "an action on a finished game was accepted"
        );
    }
    // Same seed, same game.
    for g in 0..games.min(3) {
        let a = random_trajectory(game.as_ref(), seed.wrapping_add(g));
        let b = random_trajectory(game.as_ref(), seed.wrapping_add(g));
        assert_eq!(a, b, "{spec}: the same seed played differently");
    }
}

/// A random game from a seed: every action and chance outcome, and the returns.
pub fn random_trajectory(game: &dyn Game, seed: u64) -> (Vec<Action>, Vec<f64>) {
    let n = game.num_players();
    let mut rng = GameRng::new(seed);
    let mut state = game.new_initial_state();
    let mut actions = Vec::new();
    while !state.is_terminal() {
        match state.current_player() {
            Player::Chance => {
                let a = state.sample_chance_outcome(&mut rng);
                state.apply_action(a).unwrap();
                actions.push(a);
            }
            Player::Simultaneous => {
                let joint: Vec<Action> = (0..n)
                    .map(|p| rng.choose(&state.legal_actions_for(Player::Seat(p))))
                    .collect();
                state.apply_actions(&joint).unwrap();
                actions.extend(joint);
            }
            player => {
                let a = rng.choose(&state.legal_actions_for(player));
                state.apply_action(a).unwrap();
                actions.push(a);
            }
        }
    }
    (actions, state.returns())
}

/// A playthrough: a fixed seeded random game with every observation, legal action and
/// return written out, for golden-file diffs.
pub fn playthrough(spec: &str, seed: u64) -> String {
    let game = game(spec);
    let n = game.num_players();
    let mut rng = GameRng::new(seed);
    let mut state = game.new_initial_state();
    let mut out = String::new();
    let _ = writeln!(out, "game: {spec}");
    let _ = writeln!(out, "seed: {seed}");
    let _ = writeln!(
        out,
        "num_players: {n}\nnum_distinct_actions: {}\nmax_chance_outcomes: {}\nobservation_shape: {:?}\nutility: [{}, {}]\n",
        game.num_distinct_actions(),
        game.max_chance_outcomes(),
        game.observation_shape(),
        game.min_utility(),
        game.max_utility()
    );
    let mut step = 0;
    loop {
        let _ = writeln!(out, "# step {step}: {}", state.current_player());
        let _ = writeln!(out, "{state}");
        for p in 0..n {
            let _ = writeln!(out, "observation_string({p}):");
            for line in state.observation_string(p).lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
        let _ = writeln!(out, "returns: {:?}", state.returns());
        if state.is_terminal() {
            break;
        }
        let chosen: Vec<(Player, Action)> = match state.current_player() {
            Player::Chance => {
                let outcomes = state.chance_outcomes();
                let _ = writeln!(
                    out,
                    "chance outcomes: {} (p = {:.6} first)",
                    outcomes.len(),
                    outcomes[0].1
                );
                vec![(Player::Chance, state.sample_chance_outcome(&mut rng))]
            }
            Player::Simultaneous => (0..n)
                .map(|p| {
                    let player = Player::Seat(p);
                    let acts = state.legal_actions_for(player);
                    write_legal(&mut out, state.as_ref(), player, &acts);
                    (player, rng.choose(&acts))
                })
                .collect(),
            player => {
                let acts = state.legal_actions_for(player);
                write_legal(&mut out, state.as_ref(), player, &acts);
                vec![(player, rng.choose(&acts))]
            }
        };
        for (player, a) in &chosen {
            let _ = writeln!(
                out,
                "{player} plays {a} = {}",
                state.action_to_string(*player, *a)
            );
        }
        if state.is_simultaneous_node() {
            let joint: Vec<Action> = chosen.iter().map(|c| c.1).collect();
            state.apply_actions(&joint).unwrap();
        } else {
            state.apply_action(chosen[0].1).unwrap();
        }
        let _ = writeln!(out, "rewards: {:?}\n", state.rewards());
        step += 1;
    }
    out
}

fn write_legal(out: &mut String, state: &dyn State, player: Player, acts: &[Action]) {
    let strings: Vec<String> = acts
        .iter()
        .map(|&a| format!("{a}:{}", state.action_to_string(player, a)))
        .collect();
    let _ = writeln!(
        out,
        "legal {player} ({}): {}",
        acts.len(),
        strings.join(" ")
    );
}

/// Compares a playthrough with its golden file under `dir`; with the environment variable
/// `CHECKRAISE_UPDATE_PLAYTHROUGHS=1` the file is (re)written instead.
pub fn check_playthrough(dir: &std::path::Path, file: &str, spec: &str, seed: u64) {
    let text = playthrough(spec, seed);
    let path = dir.join(file);
    let update = std::env::var("CHECKRAISE_UPDATE_PLAYTHROUGHS").as_deref() == Ok("1");
    if !path.exists() && std::env::var_os("CI").is_some() && !update {
        panic!("playthrough {file} is missing; generate it with CHECKRAISE_UPDATE_PLAYTHROUGHS=1");
    }
    if update || !path.exists() {
        std::fs::write(&path, &text).expect("write playthrough");
        return;
    }
    let golden = std::fs::read_to_string(&path).expect("read playthrough");
    if golden != text {
        let line = golden
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(golden.lines().count().min(text.lines().count()));
        panic!(
            "playthrough {file} differs from the engine at line {}:\n golden: {:?}\n engine: {:?}\n\
             (rerun with CHECKRAISE_UPDATE_PLAYTHROUGHS=1 if the change is intended)",
            line + 1,
            golden.lines().nth(line),
            text.lines().nth(line)
        );
    }
}
