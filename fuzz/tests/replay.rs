//! Replays the seed corpus (`corpus/<target>/`) and every regression input
//! (`regressions/<target>/`, the crashes found and fixed) through each target, uninstrumented:
//! an input that panics fails the test, so a crash fixed stays fixed.

use std::path::Path;

#[test]
fn corpus_and_regressions_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (target, run) in checkraise_fuzz::TARGETS {
        let mut replayed = 0;
        for kind in ["corpus", "regressions"] {
            let dir = root.join(kind).join(target);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut paths: Vec<_> = entries
                .map(|e| e.expect("a directory entry").path())
                .collect();
            paths.sort();
            for path in paths {
                let data = std::fs::read(&path).expect("an input");
                eprintln!("{target}: {}", path.display());
                run(&data);
                replayed += 1;
            }
        }
        assert!(replayed > 0, "no inputs for {target}");
    }
}

#[test]
fn every_seed_is_in_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (target, _) in checkraise_fuzz::TARGETS {
        for (name, bytes) in checkraise_fuzz::corpus::seeds(target) {
            let path = root.join(target).join(&name);
            let stored = std::fs::read(&path).unwrap_or_default();
            assert!(
                stored == bytes || same_saved_state(target, &stored, &bytes),
                "{} is stale: run `cargo run --bin write_corpus` in fuzz/",
                path.display()
            );
        }
    }
}

/// Whether two `serialized_states` inputs hold the same game string and the same state: a
/// state saved before a game gained a parameter is written without it, and still reads back
/// as the same state (the missing parameter at its default), so the stored seed need not be
/// rewritten whenever a game gains a parameter.
fn same_saved_state(target: &str, stored: &[u8], fresh: &[u8]) -> bool {
    if target != "serialized_states" {
        return false;
    }
    let split = |data: &[u8]| {
        let text = String::from_utf8(data.to_vec()).ok()?;
        let (game, state) = text.split_once('\n')?;
        Some((game.to_string(), state.to_string()))
    };
    let (Some((game, stored)), Some((fresh_game, fresh))) = (split(stored), split(fresh)) else {
        return false;
    };
    let Ok(made) = checkraise_core::make_game_from_string(&game) else {
        return false;
    };
    game == fresh_game
        && made
            .deserialize_state(&stored)
            .is_ok_and(|state| state.serialize() == fresh)
}
