//! The JSON Schemas published in `docs/views/` (each game's view) and `docs/actions/` (each
//! game's action struct) are the ones the structs generate, so clients that rely on them read
//! exactly what the engine writes.

use std::fs;
use std::path::Path;

use checkraise_core::registry::{action_schemas, entries, view_schemas};
use checkraise_core::view::schema_text;

const REGENERATE: &str = "regenerate them with `cargo run -p checkraise-core --example schemas`";

/// The games whose docs are published: every game not behind a feature.
fn published() -> Vec<&'static str> {
    let mut names: Vec<&str> = entries()
        .iter()
        .filter(|e| e.feature.is_none())
        .map(|e| e.info.name)
        .collect();
    names.sort();
    names
}

fn check(folder: &str, schemas: Vec<(&'static str, schemars::Schema)>) {
    let games = published();
    let schemas = schemas.into_iter().filter(|(name, _)| games.contains(name));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(folder);
    let mut stale = Vec::new();
    for (name, schema) in schemas {
        let path = dir.join(format!("{name}.schema.json"));
        match fs::read_to_string(&path) {
            Ok(text) if text == schema_text(&schema) => {}
            Ok(_) => stale.push(format!("docs/{folder}/{name}.schema.json differs")),
            Err(e) => stale.push(format!("docs/{folder}/{name}.schema.json: {e}")),
        }
    }
    assert!(stale.is_empty(), "{}; {REGENERATE}", stale.join("; "));
    let mut files: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}; {REGENERATE}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let expected: Vec<String> = games.iter().map(|g| format!("{g}.schema.json")).collect();
    assert_eq!(files, expected, "docs/{folder} holds one schema per game");
}

#[test]
fn the_committed_view_schemas_are_the_generated_ones() {
    check("views", view_schemas());
}

#[test]
fn the_committed_action_schemas_are_the_generated_ones() {
    check("actions", action_schemas());
}

/// Every legal action of every seat that may act, in random games of every game (a few
/// parameter sets with more seats too), has an action struct; the legal actions' structs are
/// distinct, and `action_from_struct` gives each one's id back.
#[test]
fn every_legal_action_has_a_struct_that_names_it() {
    use checkraise_core::registry::make_game_from_string;
    use checkraise_core::{GameRng, Player};

    let mut checked = 0;
    let more = [
        "pokeros(players=3,hand_size=2)",
        "holdem_chess(players=3,bet_sizes=all)",
        "detective_poker(players=4)",
    ];
    let names = entries().iter().map(|e| e.info.name.to_string());
    for text in names.chain(more.map(String::from)) {
        let game = make_game_from_string(&text).unwrap();
        for seed in 0..3u64 {
            let mut rng = GameRng::new(seed);
            let mut state = game.new_initial_state();
            let mut steps = 0;
            while !state.is_terminal() && steps < 60 {
                steps += 1;
                match state.current_player() {
                    Player::Chance => {
                        let outcome = state.sample_chance_outcome(&mut rng);
                        state.apply_action(outcome).unwrap();
                        continue;
                    }
                    Player::Simultaneous => {
                        let mut joint = Vec::new();
                        for seat in 0..game.num_players() {
                            let legal = state.legal_actions_for(Player::Seat(seat));
                            check_structs(state.as_ref(), seat, &legal, &text);
                            checked += legal.len();
                            joint.push(if legal.is_empty() {
                                0
                            } else {
                                rng.choose(&legal)
                            });
                        }
                        state.apply_actions(&joint).unwrap();
                    }
                    Player::Seat(seat) => {
                        let legal = state.legal_actions_for(Player::Seat(seat));
                        check_structs(state.as_ref(), seat, &legal, &text);
                        checked += legal.len();
                        state.apply_action(rng.choose(&legal)).unwrap();
                    }
                    Player::Terminal => break,
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

fn check_structs(
    state: &dyn checkraise_core::State,
    seat: usize,
    legal: &[checkraise_core::Action],
    game: &str,
) {
    use checkraise_core::game::action_from_struct;
    let mut seen = std::collections::HashSet::new();
    for &a in legal {
        let value = state
            .action_struct(seat, a)
            .unwrap_or_else(|| panic!("{game}: no struct for legal action {a} of seat {seat}"));
        assert!(value.is_object(), "{game}: {value}");
        assert!(
            seen.insert(value.to_string()),
            "{game}: two actions are {value}"
        );
        assert_eq!(
            action_from_struct(state, seat, &value).unwrap(),
            a,
            "{game}: {value}"
        );
    }
}

/// A struct may name an action by some of its fields; a field no action has, a struct no legal
/// action matches, or one several match is refused with the reason.
#[test]
fn a_struct_with_some_fields_names_an_action_or_says_why_not() {
    use checkraise_core::game::action_from_struct;
    use checkraise_core::registry::make_game_from_string;
    use checkraise_core::{GameRng, env::resolve_chance};
    use serde_json::json;

    let game = make_game_from_string("pokeros").unwrap();
    let mut state = game.new_initial_state();
    resolve_chance(state.as_mut(), &mut GameRng::new(1));
    let seat = state.current_player().seat().unwrap();
    let legal = state.legal_actions_for(checkraise_core::Player::Seat(seat));
    let full = state.action_struct(seat, legal[0]).unwrap();
    let partial = json!({"card": full["card"], "x": full["x"], "y": full["y"]});
    assert_eq!(
        action_from_struct(state.as_ref(), seat, &partial).unwrap(),
        legal[0]
    );
    let error = |given| {
        action_from_struct(state.as_ref(), seat, &given)
            .unwrap_err()
            .to_string()
    };
    assert!(error(json!({"colour": 1})).contains("no legal action here has a field 'colour'"));
    assert!(error(json!({"x": 99})).contains("no legal action of seat"));
    assert!(error(json!({"card": full["card"]})).contains("legal actions match it"));
    assert!(error(json!([1, 2])).contains("a JSON object"));
}
