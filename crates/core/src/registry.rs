//! Game names → constructors, with parameter schemas, parsing and validation.
//!
//! Each game declares its parameters as a `&'static [ParamSpec]`; the registry parses
//! strings against that schema (rejecting unknown names and bad values with a message naming
//! the parameter, the value and what is allowed) and hands the game a validated `Params`,
//! from which the game builds its own typed parameter struct.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::game::{Game, GameError, GameInfo};

/// The type and allowed values of a parameter.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ParamKind {
    /// An integer in `min..=max`.
    Int {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// `true` / `false` (also `on`/`off`, `1`/`0`).
    Bool,
    /// One of a fixed list of words.
    Choice {
        /// The allowed words.
        options: &'static [&'static str],
    },
    /// Free text (e.g. a FEN position), validated by the game's constructor.
    Text,
}

/// One parameter of a game: name, type, default and meaning.
#[derive(Clone, Debug, Serialize)]
pub struct ParamSpec {
    /// The parameter's name.
    pub name: &'static str,
    /// Its type and allowed values.
    pub kind: ParamKind,
    /// Its default, as text.
    pub default: &'static str,
    /// What it does.
    pub description: &'static str,
}

/// A validated parameter value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A choice word.
    Choice(String),
    /// Free text.
    Text(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Bool(v) => write!(f, "{v}"),
            ParamValue::Choice(v) | ParamValue::Text(v) => f.write_str(v),
        }
    }
}

/// A full set of validated parameters (every parameter present, defaults filled in).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    values: BTreeMap<String, ParamValue>,
}

impl Params {
    /// An integer parameter (panics only on a schema bug: the registry validated it).
    pub fn int(&self, name: &str) -> i64 {
        match self.values.get(name) {
            Some(ParamValue::Int(v)) => *v,
            other => panic!("parameter {name} is not an integer: {other:?}"),
        }
    }
    /// A boolean parameter.
    pub fn bool(&self, name: &str) -> bool {
        match self.values.get(name) {
            Some(ParamValue::Bool(v)) => *v,
            other => panic!("parameter {name} is not a boolean: {other:?}"),
        }
    }
    /// A choice parameter.
    pub fn choice(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(ParamValue::Choice(v)) => v,
            other => panic!("parameter {name} is not a choice: {other:?}"),
        }
    }
    /// A text parameter.
    pub fn text(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(ParamValue::Text(v)) => v,
            other => panic!("parameter {name} is not text: {other:?}"),
        }
    }
    /// All values by name.
    pub fn values(&self) -> &BTreeMap<String, ParamValue> {
        &self.values
    }
    /// The parameters as `name=value` strings, comma-separated (stable order).
    pub fn to_text(&self) -> String {
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// A registered game: its facts, its parameter schema and its constructor.
pub struct GameEntry {
    /// The game's facts.
    pub info: &'static GameInfo,
    /// Its parameters.
    pub params: &'static [ParamSpec],
    /// Builds a game from validated parameters (may still refuse combinations).
    pub build: fn(Params) -> Result<Arc<dyn Game>, GameError>,
    /// The game's heuristic bot.
    pub heuristic: crate::bots::HeuristicFn,
}

/// Every registered game, in a fixed order. A new game is one line here.
pub fn entries() -> &'static [GameEntry] {
    static ENTRIES: &[GameEntry] = &[
        crate::games::pokeros::ENTRY,
        crate::games::poker_chess::ENTRY,
    ];
    ENTRIES
}

/// The registered game names.
pub fn game_names() -> Vec<&'static str> {
    entries().iter().map(|e| e.info.name).collect()
}

/// The entry for a name.
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
    let game = entry.info.name;
    let mut values = BTreeMap::new();
    for spec in entry.params {
        values.insert(
            spec.name.to_string(),
            parse_value(game, spec, spec.default).expect("defaults are valid"),
        );
    }
    for (name, value) in given {
        let (name, value) = (name.as_ref(), value.as_ref().trim());
        let spec = entry
            .params
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| GameError::UnknownParameter {
                game: game.to_string(),
                name: name.to_string(),
                known: entry
                    .params
                    .iter()
                    .map(|s| s.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        values.insert(name.to_string(), parse_value(game, spec, value)?);
    }
    Ok(Params { values })
}

fn parse_value(game: &str, spec: &ParamSpec, text: &str) -> Result<ParamValue, GameError> {
    let bad = |allowed: String| GameError::InvalidParameter {
        game: game.to_string(),
        name: spec.name.to_string(),
        value: text.to_string(),
        allowed,
    };
    match &spec.kind {
        ParamKind::Int { min, max } => {
            let v: i64 = text
                .parse()
                .map_err(|_| bad(format!("an integer from {min} to {max}")))?;
            if v < *min || v > *max {
                return Err(bad(format!("an integer from {min} to {max}")));
            }
            Ok(ParamValue::Int(v))
        }
        ParamKind::Bool => match text.to_ascii_lowercase().as_str() {
            "true" | "on" | "1" | "yes" => Ok(ParamValue::Bool(true)),
            "false" | "off" | "0" | "no" => Ok(ParamValue::Bool(false)),
            _ => Err(bad("true or false (also on/off, 1/0)".to_string())),
        },
        ParamKind::Choice { options } => {
            if options.contains(&text) {
                Ok(ParamValue::Choice(text.to_string()))
            } else {
                Err(bad(format!("one of: {}", options.join(", "))))
            }
        }
        ParamKind::Text => Ok(ParamValue::Text(text.to_string())),
    }
}

/// Makes a game from its name and string parameters.
pub fn make_game<K: AsRef<str>, V: AsRef<str>>(
    name: &str,
    params: impl IntoIterator<Item = (K, V)>,
) -> Result<Arc<dyn Game>, GameError> {
    let entry = entry(name)?;
    let params = parse_params(entry, params)?;
    (entry.build)(params)
}

/// Makes a game from a string such as `pokeros(players=3,hand_size=0)` or `pokeros`.
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
            .ok_or_else(|| GameError::InvalidParameter {
                game: name.to_string(),
                name: "(parameter list)".to_string(),
                value: rest.to_string(),
                allowed: "name(key=value,key=value)".to_string(),
            })?;
        for item in inner.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| GameError::InvalidParameter {
                    game: name.to_string(),
                    name: item.trim().to_string(),
                    value: String::new(),
                    allowed: "key=value".to_string(),
                })?;
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    make_game(name.trim(), pairs)
}

/// Rebuilds a game from its validated parameters (as stored in a serialized state).
pub fn rebuild(name: &str, params: &Params) -> Result<Arc<dyn Game>, GameError> {
    let pairs: Vec<(String, String)> = params
        .values()
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    make_game(name, pairs)
}
