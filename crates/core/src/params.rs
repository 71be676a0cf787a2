//! Game parameters: each game's schema (`ParamSpec`), and the validated values (`Params`) a
//! game is built from. Parsing rejects unknown names and bad values with a message naming the
//! parameter, the value and what is allowed.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::GameError;

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

/// Constructors for a game's `PARAMS` table: a kind's constructor, then `about`, so that a
/// parameter is written `ParamSpec::int("players", 2, 4, "2").about("number of seats")`.
impl ParamSpec {
    const fn new(name: &'static str, kind: ParamKind, default: &'static str) -> Self {
        ParamSpec {
            name,
            kind,
            default,
            description: "",
        }
    }

    /// An integer parameter in `min..=max`.
    pub const fn int(name: &'static str, min: i64, max: i64, default: &'static str) -> Self {
        ParamSpec::new(name, ParamKind::Int { min, max }, default)
    }

    /// A boolean parameter.
    pub const fn bool(name: &'static str, default: &'static str) -> Self {
        ParamSpec::new(name, ParamKind::Bool, default)
    }

    /// A parameter that is one of `options`.
    pub const fn choice(
        name: &'static str,
        options: &'static [&'static str],
        default: &'static str,
    ) -> Self {
        ParamSpec::new(name, ParamKind::Choice { options }, default)
    }

    /// A free-text parameter (validated by the game's constructor).
    pub const fn text(name: &'static str, default: &'static str) -> Self {
        ParamSpec::new(name, ParamKind::Text, default)
    }

    /// This parameter, described as `description`.
    pub const fn about(self, description: &'static str) -> Self {
        ParamSpec {
            description,
            ..self
        }
    }
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

/// Parses and validates string parameters against game `game`'s schema, filling defaults.
pub fn parse<K: AsRef<str>, V: AsRef<str>>(
    game: &str,
    specs: &[ParamSpec],
    given: impl IntoIterator<Item = (K, V)>,
) -> Result<Params, GameError> {
    let mut values = BTreeMap::new();
    for spec in specs {
        values.insert(
            spec.name.to_string(),
            parse_value(game, spec, spec.default).expect("defaults are valid"),
        );
    }
    for (name, value) in given {
        let (name, value) = (name.as_ref(), value.as_ref().trim());
        let spec =
            specs
                .iter()
                .find(|s| s.name == name)
                .ok_or_else(|| GameError::UnknownParameter {
                    game: game.to_string(),
                    name: name.to_string(),
                    known: specs.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
                })?;
        values.insert(name.to_string(), parse_value(game, spec, value)?);
    }
    Ok(Params { values })
}

fn parse_value(game: &str, spec: &ParamSpec, text: &str) -> Result<ParamValue, GameError> {
    let bad = |allowed: String| GameError::invalid_parameter(game, spec.name, text, allowed);
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
