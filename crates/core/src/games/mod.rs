//! One module per game folder. The build script finds the folders (`src/games/<name>/mod.rs`)
//! and writes their `mod` lines and registry entries, so a new game is its folder and
//! nothing else; a folder named like a feature of this crate is compiled only with that
//! feature.

include!(concat!(env!("OUT_DIR"), "/games.rs"));
