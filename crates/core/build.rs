//! Generates the game list (`$OUT_DIR/games.rs`, see `games_rs`) and the tables of the
//! exact-7-card hand evaluator (`poker::eval::best_of`) into
//! `$OUT_DIR/eval7.rs`: a displacement perfect hash from 7-card rank multisets (no flush) to
//! hand values. See docs/benchmarks/hand_eval.md for the design.
//!
//! The key of a multiset is `(R * MAGIC) << 24` (wrapping), where `R` holds the count of rank
//! `r` in bits `3r..3r + 3`; `best_of` computes the same key from a card set as a sum of
//! per-card terms read from small chunk tables. Its top 13 bits pick a row, the next 16 bits a
//! column, and the value sits at `column + offset[row]` (mod 2^16, so the value table has
//! exactly 65,536 entries and any `u16` indexes it). `MAGIC` is the first odd number of a
//! fixed pseudo-random sequence for which no two multisets of different values share a row
//! and column; the offsets are placed first-fit, largest row first. The values are computed
//! here by a short independent evaluator; the crate's tests compare every multiset with the
//! general evaluator.

use std::fmt::Write as _;
use std::path::PathBuf;

/// Bits of the row index (8,192 rows).
const ROW_BITS: u32 = 13;
/// Bits of the column index (rows 65,536 wide).
const COL_BITS: u32 = 16;

/// Every 7-card rank multiset (at most 4 cards of a rank): counts per rank.
fn multisets() -> Vec<[u8; 13]> {
    fn rec(r: usize, left: u8, c: &mut [u8; 13], out: &mut Vec<[u8; 13]>) {
        if r == 13 {
            if left == 0 {
                out.push(*c);
            }
            return;
        }
        for k in 0..=left.min(4) {
            c[r] = k;
            rec(r + 1, left - k, c, out);
        }
        c[r] = 0;
    }
    let mut out = Vec::new();
    rec(0, 7, &mut [0; 13], &mut out);
    out
}

/// The highest set bit of a mask (0 for 0).
fn high(mask: u32) -> u32 {
    if mask == 0 {
        0
    } else {
        1 << (31 - mask.leading_zeros())
    }
}

/// The `k` highest set bits of a mask.
fn keep_top(k: u32, mut mask: u32) -> u32 {
    while mask.count_ones() > k {
        mask &= mask - 1;
    }
    mask
}

/// The top rank of the best straight in a rank mask as a one-bit mask, or 0.
fn straight_top(ranks: u32) -> u32 {
    (3..13)
        .rev()
        .map(|top| {
            let need = if top == 3 {
                0b1_0000_0000_1111
            } else {
                0b1_1111 << (top - 4)
            };
            (top, need)
        })
        .find(|&(_, need)| ranks & need == need)
        .map_or(0, |(top, _)| 1 << top)
}

/// The value (`HandValue.0`) of the best 5 of 7 cards with these rank counts and no flush.
fn value(counts: &[u8; 13]) -> u32 {
    let at_least = |k: u8| {
        (0..13)
            .filter(|&r| counts[r] >= k)
            .fold(0, |m, r| m | 1 << r)
    };
    let (any, two, three, four) = (at_least(1), at_least(2), at_least(3), at_least(4));
    let v =
        |category: u32, primary: u32, secondary: u32| category << 26 | primary << 13 | secondary;
    let trips = high(three);
    let straight = straight_top(any);
    if four != 0 {
        let quads = high(four);
        v(7, quads, high(any & !quads))
    } else if trips != 0 && two & !trips != 0 {
        v(6, trips, high(two & !trips))
    } else if straight != 0 {
        v(4, 0, straight)
    } else if trips != 0 {
        v(3, trips, keep_top(2, any & !trips))
    } else if two.count_ones() >= 2 {
        let pairs = keep_top(2, two);
        v(2, pairs, high(any & !pairs))
    } else if two != 0 {
        v(1, two, keep_top(3, any & !two))
    } else {
        v(0, 0, keep_top(5, any))
    }
}

/// The hash key of a multiset for a magic (top `ROW_BITS + COL_BITS` bits used).
fn key(counts: &[u8; 13], magic: u64) -> u64 {
    let r: u64 = (0..13).map(|i| u64::from(counts[i]) << (3 * i)).sum();
    r.wrapping_mul(magic) << 24
}

/// SplitMix64: the fixed sequence the magic is drawn from.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ z >> 30).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ z >> 27).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ z >> 31
}

/// Row/column indices and values, if no two different values share them.
fn slots(entries: &[([u8; 13], u32)], magic: u64) -> Option<Vec<(u64, u32)>> {
    let mut slots: Vec<(u64, u32)> = entries
        .iter()
        .map(|(c, v)| (key(c, magic) >> (64 - ROW_BITS - COL_BITS), *v))
        .collect();
    slots.sort_unstable();
    slots.dedup();
    slots.windows(2).all(|w| w[0].0 != w[1].0).then_some(slots)
}

/// The game modules, found as the folders of `src/games/` that hold a `mod.rs`, in name order.
/// A folder named like one of the crate's features is compiled only with that feature (the
/// feature is the one line a game behind a feature adds outside its folder). Writes
/// `$OUT_DIR/games.rs`: one `mod` per compiled game and `ENTRIES`, their registry entries with
/// `feature` filled in (`registry::entries` orders them by `GameEntry::order`).
fn games_rs() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let games = dir.join("src").join("games");
    println!("cargo::rerun-if-changed={}", games.display());
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("read Cargo.toml");
    let features = manifest_features(&manifest);
    let mut names: Vec<String> = std::fs::read_dir(&games)
        .expect("read src/games")
        .filter_map(|e| {
            let e = e.expect("a src/games entry");
            let name = e.file_name().into_string().ok()?;
            e.path().join("mod.rs").is_file().then_some(name)
        })
        .collect();
    names.sort();
    let mut modules = String::new();
    let mut entries = String::new();
    for name in &names {
        assert!(
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "src/games/{name}: a game folder's name is its registered name, in snake_case"
        );
        let feature = if features.iter().any(|f| f == name) {
            let var = format!("CARGO_FEATURE_{}", name.to_ascii_uppercase());
            if std::env::var_os(var).is_none() {
                continue;
            }
            format!("Some({name:?})")
        } else {
            "None".to_string()
        };
        let path = games.join(name).join("mod.rs");
        writeln!(
            modules,
            "#[path = {:?}]\npub mod {name};",
            path.display().to_string()
        )
        .unwrap();
        writeln!(
            entries,
            "    GameEntry {{ feature: {feature}, ..{name}::ENTRY }},"
        )
        .unwrap();
    }
    let out = format!(
        "{modules}\n/// Every compiled game's registry entry, in folder-name order.\n\
         pub(crate) static ENTRIES: &[crate::game::GameEntry] = {{\n\
         use crate::game::GameEntry;\n&[\n{entries}]\n}};\n"
    );
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("games.rs");
    std::fs::write(path, out).expect("write games.rs");
}

/// The names declared in a manifest's `[features]` table.
fn manifest_features(manifest: &str) -> Vec<String> {
    let mut inside = false;
    let mut names = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[features]";
        } else if inside && let Some((key, _)) = line.split_once('=') {
            let key = key.trim().trim_matches('"');
            if !key.is_empty() && !key.starts_with('#') {
                names.push(key.to_string());
            }
        }
    }
    names
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    games_rs();
    let entries: Vec<([u8; 13], u32)> = multisets().into_iter().map(|c| (c, value(&c))).collect();
    assert_eq!(entries.len(), 49_205);
    let mut state = 2026;
    let (magic, slots) = loop {
        let magic = splitmix(&mut state) | 1;
        if let Some(slots) = slots(&entries, magic) {
            break (magic, slots);
        }
    };
    // Rows, largest first, each at the smallest offset (mod 2^COL_BITS) where its columns are
    // free or hold the same value (0 marks a free slot: no 7-card hand has value 0).
    let size = 1usize << COL_BITS;
    let mut rows: Vec<Vec<(usize, u32)>> = vec![Vec::new(); 1 << ROW_BITS];
    for &(k, v) in &slots {
        rows[(k >> COL_BITS) as usize].push(((k as usize) & (size - 1), v));
    }
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&r| (std::cmp::Reverse(rows[r].len()), r));
    let mut values = vec![0u32; size];
    let mut offsets = vec![0u16; rows.len()];
    for r in order {
        let fits = |d: usize, values: &[u32]| {
            rows[r].iter().all(|&(c, v)| {
                let old = values[(c + d) & (size - 1)];
                old == 0 || old == v
            })
        };
        let d = (0..size).find(|&d| fits(d, &values)).expect("an offset");
        for &(c, v) in &rows[r] {
            values[(c + d) & (size - 1)] = v;
        }
        offsets[r] = d as u16;
    }
    let mut out = String::new();
    writeln!(
        out,
        "/// The multiplier of the 7-card rank key (see build.rs)."
    )
    .unwrap();
    writeln!(out, "const EVAL7_MAGIC: u64 = {magic:#x};").unwrap();
    writeln!(out, "/// Bits of the row index.").unwrap();
    writeln!(out, "const EVAL7_ROW_BITS: u32 = {ROW_BITS};").unwrap();
    writeln!(out, "/// Bits of the column index.").unwrap();
    writeln!(out, "const EVAL7_COL_BITS: u32 = {COL_BITS};").unwrap();
    writeln!(
        out,
        "/// Per row: the offset added to the column (mod 2^EVAL7_COL_BITS)."
    )
    .unwrap();
    writeln!(out, "static EVAL7_OFFSETS: [u16; {}] = [", offsets.len()).unwrap();
    for chunk in offsets.chunks(16) {
        let line: Vec<String> = chunk.iter().map(u16::to_string).collect();
        writeln!(out, "{},", line.join(",")).unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(out, "/// Hand values by slot (0: unused).").unwrap();
    writeln!(out, "static EVAL7_VALUES: [u32; {}] = [", values.len()).unwrap();
    for chunk in values.chunks(16) {
        let line: Vec<String> = chunk.iter().map(u32::to_string).collect();
        writeln!(out, "{},", line.join(",")).unwrap();
    }
    writeln!(out, "];").unwrap();
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("eval7.rs");
    std::fs::write(path, out).expect("write eval7.rs");
}
