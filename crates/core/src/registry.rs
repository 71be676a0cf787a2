//! Game names → constructors, with parameter schemas, parsing and validation.
//!
//! Each game declares its parameters as a `&'static [ParamSpec]`; the registry parses
//! strings against that schema (rejecting unknown names and bad values with a message naming
//! the parameter, the value and what is allowed) and hands the game a validated `Params`,
//! from which the game builds its own typed parameter struct.

use std::sync::{Arc, OnceLock};

use crate::bots::{Bot, BotSpec};
pub use crate::game::GameEntry;
use crate::game::{Game, GameError};
pub use crate::params::{ParamKind, ParamSpec, ParamValue, Params};

/// Every game compiled in, in list order (`GameEntry::order`, then name). The list is not
/// kept by hand: the build script finds each game's folder under `src/games/`.
pub fn entries() -> &'static [GameEntry] {
    static SORTED: OnceLock<Vec<GameEntry>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut entries = crate::games::ENTRIES.to_vec();
        entries.sort_by_key(|e| (e.order, e.info.name));
        entries
    })
}

/// Each game's name and the JSON Schema of its view (`State::view`), as published in
/// `docs/views/<name>.schema.json` (`cargo run -p checkraise-core --example schemas` writes
/// them; a test fails when they differ).
pub fn view_schemas() -> Vec<(&'static str, schemars::Schema)> {
    entries()
        .iter()
        .map(|e| (e.info.name, (e.view_schema)()))
        .collect()
}

/// Each game's name and the JSON Schema of its action struct (`State::action_struct`), as
/// published in `docs/actions/<name>.schema.json`.
pub fn action_schemas() -> Vec<(&'static str, schemars::Schema)> {
    entries()
        .iter()
        .map(|e| (e.info.name, (e.action_schema)()))
        .collect()
}

/// The bytes of the policy file shipped for game `name` (`GameEntry::policy`), if it is
/// registered and ships one.
pub fn shipped_policy_bytes(name: &str) -> Option<&'static [u8]> {
    entry(name).ok()?.policy
}

/// The registered game names.
///
/// ```
/// let names = checkraise_core::registry::game_names();
/// assert!(names.contains(&"pokeros") && names.contains(&"prediction_chess"));
/// ```
pub fn game_names() -> Vec<&'static str> {
    entries().iter().map(|e| e.info.name).collect()
}

/// The entry for a name.
///
/// ```
/// use checkraise_core::ErrorKind;
/// use checkraise_core::registry::entry;
///
/// assert_eq!(entry("poker_chess").unwrap().info.max_players, 2);
/// assert_eq!(entry("checkers").unwrap_err().kind(), ErrorKind::NotFound);
/// ```
pub fn entry(name: &str) -> Result<&'static GameEntry, GameError> {
    entries()
        .iter()
        .find(|e| e.info.name == name)
        .ok_or_else(|| GameError::UnknownGame {
            name: name.to_string(),
            known: game_names().join(", "),
        })
}

/// Parses and validates string parameters against a game's schema, filling defaults.
pub fn parse_params<K: AsRef<str>, V: AsRef<str>>(
    entry: &GameEntry,
    given: impl IntoIterator<Item = (K, V)>,
) -> Result<Params, GameError> {
    crate::params::parse(entry.info.name, entry.params, given)
}

/// Makes a game from its name and string parameters.
///
/// ```
/// let game = checkraise_core::make_game("pokeros", [("players", "3")]).unwrap();
/// assert_eq!(game.num_players(), 3);
/// assert_eq!(game.params().int("hand_size"), 3, "the others take their defaults");
/// ```
pub fn make_game<K: AsRef<str>, V: AsRef<str>>(
    name: &str,
    params: impl IntoIterator<Item = (K, V)>,
) -> Result<Arc<dyn Game>, GameError> {
    let entry = entry(name)?;
    let params = parse_params(entry, params)?;
    (entry.build)(params)
}

/// Makes a game from a string such as `pokeros(players=3,hand_size=0)` or `pokeros`.
///
/// ```
/// use checkraise_core::make_game_from_string;
///
/// let game = make_game_from_string("holdem_chess(players=4)").unwrap();
/// assert_eq!((game.info().name, game.num_players()), ("holdem_chess", 4));
/// let err = make_game_from_string("pokeros(colour=red)").unwrap_err();
/// assert!(err.to_string().contains("colour"), "{err}");
/// ```
pub fn make_game_from_string(text: &str) -> Result<Arc<dyn Game>, GameError> {
    let text = text.trim();
    let (name, rest) = match text.find('(') {
        Some(i) => (&text[..i], &text[i..]),
        None => (text, ""),
    };
    let mut pairs = Vec::new();
    if !rest.is_empty() {
        let inner = rest
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| {
                GameError::invalid_parameter(
                    name,
                    "(parameter list)",
                    rest,
                    "name(key=value,key=value)",
                )
            })?;
        for item in inner.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| GameError::invalid_parameter(name, item.trim(), "", "key=value"))?;
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    make_game(name.trim(), pairs)
}

/// Rebuilds a game from its validated parameters (as stored in a serialized state).
///
/// ```
/// use checkraise_core::{make_game_from_string, registry::rebuild};
///
/// let game = make_game_from_string("pokeros(players=3)").unwrap();
/// let again = rebuild("pokeros", game.params()).unwrap();
/// assert_eq!(again.params(), game.params());
/// ```
pub fn rebuild(name: &str, params: &Params) -> Result<Arc<dyn Game>, GameError> {
    let pairs: Vec<(String, String)> = params
        .values()
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    make_game(name, pairs)
}

/// A bot for game `game` (a registered name) from a spec string (`random`, `heuristic`,
/// `ismcts(iterations=500)`).
///
/// ```
/// use checkraise_core::{GameRng, make_bot, make_game_from_string};
///
/// let bot = make_bot("pokeros", "ismcts(iterations=50)").unwrap();
/// assert_eq!(bot.name(), "ismcts");
/// let mut state = make_game_from_string("pokeros").unwrap().new_initial_state();
/// let mut rng = GameRng::new(1);
/// checkraise_core::env::resolve_chance(state.as_mut(), &mut rng);
/// let action = bot.try_act(state.as_ref(), 0, &mut rng).unwrap();
/// assert!(state.legal_actions().contains(&action));
/// ```
pub fn make_bot(game: &str, spec: &str) -> Result<Box<dyn Bot>, GameError> {
    let game = make_game::<&str, &str>(game, [])?;
    BotSpec::parse::<&str, &str>(spec, [])?.build(game.as_ref())
}
