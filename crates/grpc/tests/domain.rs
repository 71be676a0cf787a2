//! The service's middle knows nothing of the wire, as mini-redis's `Db` knows nothing of its
//! `Frame`s: the live match (`src/live_match/`) and the store of live matches
//! (`src/matches/{match_store,cluster,error}.rs`) return their own values and errors, and only
//! the edges (`src/matches/wire.rs` for messages, `src/errors.rs` for statuses) name tonic or
//! the protobuf messages. This test reads those files and fails on a name of the wire in their
//! non-test code.

use std::fs;
use std::path::{Path, PathBuf};

/// What names the wire: tonic (statuses, metadata), prost (encoded sizes) and the generated
/// messages.
const WIRE: &[&str] = &["tonic", "prost", "crate::pb", "pb::"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each line of `text`'s non-test code (before its `#[cfg(test)]` block) that names the wire,
/// with its number; comments aside.
fn wire_names(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .take_while(|(_, line)| !line.trim_start().starts_with("#[cfg(test)]"))
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| WIRE.iter().any(|name| line.contains(name)))
        .map(|(n, line)| (n + 1, line.trim().to_string()))
        .collect()
}

#[test]
fn the_live_match_and_the_match_store_name_no_wire_type() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src.join("live_match"), &mut files);
    for name in ["match_store.rs", "cluster.rs", "error.rs"] {
        files.push(src.join("matches").join(name));
    }
    assert!(files.len() >= 8, "the domain's files moved: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (line, code) in wire_names(&text) {
            found.push(format!("{}:{line}: {code}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "the domain names the wire (build messages in matches/wire.rs, statuses in \
         errors.rs):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_a_wire_name_and_passes_over_tests_and_comments() {
    let text = "use crate::store::Store;\n// a pb::SeatView in a comment\nfn f() -> tonic::Status {}\n\
                #[cfg(test)]\nmod tests { use crate::pb; }\n";
    assert_eq!(
        wire_names(text),
        [(3, "fn f() -> tonic::Status {}".to_string())]
    );
}
