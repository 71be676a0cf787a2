//! One module per game. A new game is a module here plus one line in `registry::entries`
//! (and one in `view_schemas`).

pub mod detective_poker;
pub mod holdem_chess;
pub mod poker_chess;
pub mod pokeros;
pub mod prediction_chess;

use crate::view::schema_of;

/// Each game's name and the JSON Schema of its view (`State::view`), as published in
/// `docs/views/<name>.schema.json` (`cargo run -p checkraise-core --example view_schemas`
/// writes them; a test fails when they differ).
pub fn view_schemas() -> Vec<(&'static str, schemars::Schema)> {
    vec![
        (
            detective_poker::INFO.name,
            schema_of::<detective_poker::DetectivePokerView>(),
        ),
        (
            holdem_chess::INFO.name,
            schema_of::<holdem_chess::HoldemChessView>(),
        ),
        (
            poker_chess::INFO.name,
            schema_of::<poker_chess::PokerChessView>(),
        ),
        (pokeros::INFO.name, schema_of::<pokeros::PokerosView>()),
        (
            prediction_chess::INFO.name,
            schema_of::<prediction_chess::PredictionChessView>(),
        ),
    ]
}
