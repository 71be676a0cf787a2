//! The `checkraise-arena` command end to end: its formats, its determinism and its errors.

use std::process::Command;

fn arena(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_checkraise-arena"))
        .args(args)
        .output()
        .expect("the arena runs")
}

#[test]
fn markdown_json_and_csv_from_one_seed() {
    let base = [
        "--game",
        "poker_chess",
        "random",
        "heuristic",
        "ismcts(iterations=20,rollout=random)",
        "--deals",
        "2",
        "--seed",
        "4",
        "--quiet",
    ];
    let md = arena(&base);
    assert!(
        md.status.success(),
        "{}",
        String::from_utf8_lossy(&md.stderr)
    );
    let text = String::from_utf8(md.stdout).unwrap();
    assert!(text.starts_with("poker_chess: 2 deals per pair × 2 seatings, seed 4"));
    assert!(text.contains("| `random` | 0 | 0 to 0 |"), "{text}");
    assert_eq!(text.matches("| `heuristic` | `").count(), 2);
    assert_eq!(
        String::from_utf8(arena(&base).stdout).unwrap(),
        text,
        "same seed"
    );

    let json = arena(&[&base[..], &["--format", "json"]].concat());
    let json = String::from_utf8(json.stdout).unwrap();
    assert!(json.contains("\"anchor\": \"random\""), "{json}");
    assert!(json.contains("\"seatings\": 2"));

    let dir = std::env::temp_dir().join(format!("checkraise-arena-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("r.csv");
    let csv = arena(
        &[
            &base[..],
            &["--format", "csv", "--out", out.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(csv.status.success());
    assert!(csv.stdout.is_empty());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("table,game,bot,opponent,games,mean"));
    assert_eq!(text.lines().count(), 1 + 6 + 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_an_error_that_says_why() {
    let out = arena(&[
        "--game",
        "poker_chess",
        "random",
        "ismcts(iterations=0)",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("setting 'iterations' of bot 'ismcts' cannot be '0'"),
        "{err}"
    );
    let out = arena(&["--game", "chess", "random", "heuristic", "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("unknown game 'chess'")
    );
    let out = arena(&["--game", "pokeros", "random", "heuristic", "--deals", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("'deals' cannot be '0'")
    );
    let out = arena(&["--game", "pokeros", "random"]);
    assert!(!out.status.success(), "one bot is a usage error");
}
