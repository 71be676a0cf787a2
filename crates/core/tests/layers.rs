//! The core crate is layered: a module imports only from modules in layers below its own, so
//! there are no import circles and a newcomer can read it bottom up. This test reads every
//! source file and fails on an import of a module in the same layer or one above.
//!
//! Test code (`tests.rs` files and `#[cfg(test)]` blocks) may import anything.

use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module and its layer, lowest first (as `lib.rs` lists them).
const LAYERS: &[(&str, u32)] = &[
    ("vocabulary", 0),
    ("error", 1),
    ("rng", 1),
    ("cards", 2),
    ("chess", 2),
    ("params", 2),
    ("poker", 3),
    ("serial", 3),
    ("observation", 3),
    ("game", 4),
    ("rules", 5),
    ("compact", 5),
    ("view", 6),
    ("games", 7),
    ("env", 8),
    ("solve", 8),
    ("bots", 9),
    ("driver", 10),
    ("table", 11),
    ("vector", 11),
    ("registry", 12),
    ("arena", 13),
    ("conformance", 13),
    ("testing", 13),
    ("ladder", 14),
];

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

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

/// The top-level modules a file's non-test code names as `crate::<module>`.
fn imports(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push((n + 1, name));
            }
            rest = after;
        }
        if let Some(i) = code.find("crate::{") {
            panic!(
                "line {}: grouped `crate::{{..}}` imports hide their modules; name each module ({})",
                n + 1,
                &code[i..]
            );
        }
    }
    found
}

#[test]
fn every_module_imports_only_from_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        if rel.file_name().is_some_and(|f| f == "tests.rs") || rel == Path::new("lib.rs") {
            continue;
        }
        let module = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let Some(own) = layer(&module) else {
            problems.push(format!(
                "{}: module '{module}' has no layer in LAYERS",
                rel.display()
            ));
            continue;
        };
        checked += 1;
        for (line, target) in imports(&fs::read_to_string(file).unwrap()) {
            if target == module {
                continue;
            }
            match layer(&target) {
                Some(l) if l < own => {}
                Some(l) => problems.push(format!(
                    "{}:{line}: '{module}' (layer {own}) imports '{target}' (layer {l})",
                    rel.display()
                )),
                None => problems.push(format!(
                    "{}:{line}: imports 'crate::{target}', which has no layer in LAYERS",
                    rel.display()
                )),
            }
        }
    }
    assert!(checked > 30, "only {checked} files checked");
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_layer_table_lists_every_module_of_lib_rs() {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    let mut listed: Vec<&str> = LAYERS.iter().map(|(m, _)| *m).collect();
    let mut declared_sorted = declared.clone();
    listed.sort();
    declared_sorted.sort();
    assert_eq!(listed, declared_sorted);
    // lib.rs declares them in layer order.
    let order: Vec<u32> = declared.iter().map(|m| layer(m).unwrap()).collect();
    assert!(
        order.is_sorted(),
        "lib.rs lists modules out of layer order: {declared:?}"
    );
}
