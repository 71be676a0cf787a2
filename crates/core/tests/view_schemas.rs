//! The JSON Schemas of the views published in `docs/views/` are the ones the view structs
//! generate, so clients that rely on them read exactly what the engine writes.

use std::fs;
use std::path::Path;

use checkraise_core::games::view_schemas;
use checkraise_core::registry::game_names;
use checkraise_core::view::schema_text;

const REGENERATE: &str =
    "regenerate them with `cargo run -p checkraise-core --example view_schemas`";

#[test]
fn the_committed_view_schemas_are_the_generated_ones() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/views");
    let mut stale = Vec::new();
    for (name, schema) in view_schemas() {
        let path = dir.join(format!("{name}.schema.json"));
        match fs::read_to_string(&path) {
            Ok(text) if text == schema_text(&schema) => {}
            Ok(_) => stale.push(format!("docs/views/{name}.schema.json differs")),
            Err(e) => stale.push(format!("docs/views/{name}.schema.json: {e}")),
        }
    }
    assert!(stale.is_empty(), "{}; {REGENERATE}", stale.join("; "));
}

#[test]
fn every_game_has_a_view_schema_and_no_other_file_is_there() {
    let mut named: Vec<&str> = view_schemas().iter().map(|(n, _)| *n).collect();
    named.sort();
    let mut games = game_names();
    games.sort();
    assert_eq!(
        named, games,
        "games::view_schemas lists every registered game"
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/views");
    let mut files: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}; {REGENERATE}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let expected: Vec<String> = games.iter().map(|g| format!("{g}.schema.json")).collect();
    assert_eq!(files, expected, "docs/views holds one schema per game");
}
