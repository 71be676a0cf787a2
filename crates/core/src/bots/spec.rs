//! Bot specs: one string that names a bot and its settings, accepted by every face.
//!
//! `random`, `heuristic`, `ismcts`, `ismcts(iterations=2000,rollout=heuristic)`, `policy`,
//! `policy(path=runs/pokeros/policy.safetensors)`, `cfr(iterations=1000,algorithm=cfr+)`. Settings
//! are validated like game parameters: an unknown bot, an unknown setting or a bad value is
//! an error naming the bot, the setting, the value and what is allowed.

use std::fmt;

use std::sync::Arc;

use crate::bots::ismcts::{Belief, IsmctsBot, IsmctsConfig, Rollout, Target};
use crate::bots::policy::{self, Play, PolicyBot, PolicyNet};
use crate::bots::solved::{SolvedBot, SolvedConfig};
use crate::bots::{Bot, HeuristicBot, RandomBot};
use crate::game::{Game, GameError};
use crate::solve::Algorithm;

/// The bot kinds every game offers.
pub const BOT_KINDS: &[&str] = &["random", "heuristic", "ismcts", "policy", "cfr", "br"];

/// Most iterations a `cfr` bot's solver runs.
pub const MAX_SOLVER_ITERATIONS: u32 = 100_000;

/// Most IS-MCTS iterations per move (bounds a search's memory; see `ismcts`).
pub const MAX_ITERATIONS: u32 = 1_000_000;
/// Largest IS-MCTS time budget per move, in milliseconds (one hour).
pub const MAX_MS: u64 = 3_600_000;

/// One setting of a bot kind: name, allowed values, default and meaning.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct BotParamSpec {
    /// The setting's name.
    pub name: &'static str,
    /// What values it takes.
    pub allowed: &'static str,
    /// Its default, as text (`none`: not set).
    pub default: &'static str,
    /// What it does.
    pub description: &'static str,
}

/// The settings of IS-MCTS bots.
pub static ISMCTS_PARAMS: &[BotParamSpec] = &ISMCTS_SETTINGS;

/// `ISMCTS_PARAMS` as an array (the best-response search shares its first five and the last).
const ISMCTS_SETTINGS: [BotParamSpec; 7] = [
    BotParamSpec {
        name: "iterations",
        allowed: "an integer from 1 to 1000000",
        default: "1000",
        description: "search iterations per move",
    },
    BotParamSpec {
        name: "max_ms",
        allowed: "an integer from 1 to 3600000",
        default: "none",
        description: "a time budget per move in milliseconds; the search stops at whichever \
                      of iterations and max_ms ends first (with max_ms a move may differ \
                      between machines)",
    },
    BotParamSpec {
        name: "c",
        allowed: "a number above 0 and at most 100",
        default: "0.7",
        description: "the UCB1 exploration constant, on returns scaled into [0, 1]",
    },
    BotParamSpec {
        name: "rollout",
        allowed: "one of: random, heuristic",
        default: "heuristic",
        description: "how playouts choose actions: uniformly at random, or the game's \
                      heuristic bot",
    },
    BotParamSpec {
        name: "seed",
        allowed: "an integer from 0 to 18446744073709551615",
        default: "none",
        description: "search every move from this seed (otherwise one draw from the caller's \
                      generator per move)",
    },
    BotParamSpec {
        name: "belief",
        allowed: "one of: none, heuristic, policy",
        default: "none",
        description: "weight the search's deals by how likely the other seats' actions so far \
                      were under an opponent model: the game's heuristic, or its shipped \
                      policy (none: every deal the seat cannot rule out is equally likely)",
    },
    BotParamSpec {
        name: "path",
        allowed: "a policy file (safetensors, written by python -m checkraise.train) trained on \
                  this game, with belief=policy (br: target=policy); no ',' or ')' in the path",
        default: "none",
        description: "the opponent model of belief=policy (br: the policy target) is this \
                      policy file instead of the one shipped for the game",
    },
];

/// The settings of policy bots.
pub static POLICY_PARAMS: &[BotParamSpec] = &[
    BotParamSpec {
        name: "path",
        allowed: "a policy file (safetensors, written by python -m checkraise.train) trained \
                  on this game; no ',' or ')' in the path",
        default: "none",
        description: "play this policy file instead of the one shipped for the game (the \
                      shipped ones are trained on each game's default parameters)",
    },
    BotParamSpec {
        name: "play",
        allowed: "one of: greedy, sample",
        default: "none",
        description: "greedy: the legal action the network rates highest; sample: one drawn \
                      from the network's distribution over the legal actions (a mixed \
                      strategy, which a best response cannot count on); none: as the policy \
                      file's metadata play says, greedy without it",
    },
];

/// The settings of `cfr` bots (small games only: the solver enumerates the whole tree).
pub static CFR_PARAMS: &[BotParamSpec] = &[
    BotParamSpec {
        name: "iterations",
        allowed: "an integer from 1 to 100000",
        default: "1000",
        description: "iterations of the solver, run once when the bot is made; the bot plays \
                      the average policy",
    },
    BotParamSpec {
        name: "algorithm",
        allowed: "one of: cfr, cfr+, dcfr, mccfr",
        default: "cfr+",
        description: "the solver: vanilla CFR, CFR+, discounted CFR (1.5, 0, 2) or \
                      external-sampling Monte Carlo CFR",
    },
    BotParamSpec {
        name: "seed",
        allowed: "an integer from 0 to 18446744073709551615",
        default: "0",
        description: "the sampling seed of mccfr (the other solvers draw nothing)",
    },
];

/// The settings of best-response searches (`br`): the target, then IS-MCTS's own but
/// `belief` (the target's is used).
pub static BR_PARAMS: &[BotParamSpec] = &[
    BotParamSpec {
        name: "target",
        allowed: "one of: random, heuristic, policy",
        default: "policy",
        description: "the bot responded to: the search plays its actions at every other seat \
                      and weights its deals by how likely the target was to act as it did \
                      (policy: the game's shipped policy)",
    },
    ISMCTS_SETTINGS[0],
    ISMCTS_SETTINGS[1],
    ISMCTS_SETTINGS[2],
    ISMCTS_SETTINGS[3],
    ISMCTS_SETTINGS[4],
    ISMCTS_SETTINGS[6],
];

/// The settings of a bot kind.
pub fn bot_params(kind: &str) -> &'static [BotParamSpec] {
    match kind {
        "ismcts" => ISMCTS_PARAMS,
        "policy" => POLICY_PARAMS,
        "cfr" => CFR_PARAMS,
        "br" => BR_PARAMS,
        _ => &[],
    }
}

/// The error for `value`, refused for the setting `name` of bot `kind`, saying what its table
/// entry in `specs` allows (`name` has been checked to be in the table).
fn refusal(kind: &str, specs: &[BotParamSpec], name: &str, value: &str) -> GameError {
    let spec = specs.iter().find(|s| s.name == name).expect("checked");
    GameError::InvalidBotParameter {
        bot: kind.to_string(),
        name: name.to_string(),
        value: value.to_string(),
        allowed: spec.allowed.to_string(),
    }
}

/// A validated bot spec.
#[derive(Clone, Debug, PartialEq)]
pub enum BotSpec {
    /// Uniformly random legal actions.
    Random,
    /// The game's heuristic bot.
    Heuristic,
    /// IS-MCTS with these settings.
    Ismcts(IsmctsConfig),
    /// A trained policy: the one shipped for the game, or a policy file.
    Policy {
        /// The policy file (`None`: the shipped policy).
        path: Option<String>,
        /// How it chooses among the legal actions (`None`: as its file says).
        play: Option<Play>,
    },
    /// A small game solved exactly: the solver's average policy.
    Solved(SolvedConfig),
    /// A best-response search against a known bot (IS-MCTS playing the target at its seats).
    BestResponse {
        /// The bot responded to.
        target: Target,
        /// The search's settings (its belief is the target's).
        config: IsmctsConfig,
    },
}

impl BotSpec {
    /// Parses `kind` or `kind(name=value,...)`, then applies `extra` settings (for faces that
    /// take settings as keyword arguments; they override the string's).
    ///
    /// ```
    /// use checkraise_core::bots::BotSpec;
    ///
    /// let spec = BotSpec::parse("ismcts(iterations=200)", [("seed", "3")]).unwrap();
    /// assert_eq!(spec.kind(), "ismcts");
    /// assert!(BotSpec::parse::<&str, &str>("ismcts(depth=oops)", []).is_err());
    /// ```
    pub fn parse<K: AsRef<str>, V: AsRef<str>>(
        text: &str,
        extra: impl IntoIterator<Item = (K, V)>,
    ) -> Result<BotSpec, GameError> {
        let text = text.trim();
        let (kind, inner) = match text.find('(') {
            Some(i) => {
                let inner = text[i..]
                    .strip_prefix('(')
                    .and_then(|r| r.strip_suffix(')'))
                    .ok_or_else(|| GameError::InvalidBotParameter {
                        bot: text[..i].trim().to_string(),
                        name: "(settings)".to_string(),
                        value: text[i..].to_string(),
                        allowed: "kind(name=value,name=value)".to_string(),
                    })?;
                (text[..i].trim(), inner)
            }
            None => (text, ""),
        };
        if !BOT_KINDS.contains(&kind) {
            return Err(GameError::UnknownBot {
                name: kind.to_string(),
                known: BOT_KINDS.join(", "),
            });
        }
        let mut pairs: Vec<(String, String)> = Vec::new();
        for item in inner.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| GameError::InvalidBotParameter {
                    bot: kind.to_string(),
                    name: item.trim().to_string(),
                    value: String::new(),
                    allowed: "name=value".to_string(),
                })?;
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
        for (k, v) in extra {
            pairs.push((k.as_ref().trim().to_string(), v.as_ref().trim().to_string()));
        }
        let specs = bot_params(kind);
        for (name, _) in &pairs {
            if !specs.iter().any(|s| s.name == name) {
                let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                return Err(GameError::UnknownBotParameter {
                    bot: kind.to_string(),
                    name: name.clone(),
                    known: if known.is_empty() {
                        "(none)".to_string()
                    } else {
                        known.join(", ")
                    },
                });
            }
        }
        match kind {
            "random" => Ok(BotSpec::Random),
            "heuristic" => Ok(BotSpec::Heuristic),
            "policy" => {
                let (mut path, mut play) = (None, None);
                for (name, value) in &pairs {
                    let bad = || refusal(kind, specs, name, value);
                    match name.as_str() {
                        "path" if value.is_empty() => return Err(bad()),
                        "path" => path = Some(value.clone()),
                        "play" => play = Some(Play::parse(value).ok_or_else(bad)?),
                        _ => unreachable!("checked against the table"),
                    }
                }
                Ok(BotSpec::Policy { path, play })
            }
            "cfr" => {
                let mut config = SolvedConfig::default();
                let (mut name, mut seed) = ("cfr+".to_string(), 0);
                for (setting, value) in &pairs {
                    let bad = || refusal(kind, specs, setting, value);
                    match setting.as_str() {
                        "iterations" => {
                            config.iterations = value
                                .parse()
                                .ok()
                                .filter(|v| (1..=MAX_SOLVER_ITERATIONS).contains(v))
                                .ok_or_else(bad)?
                        }
                        "algorithm" => {
                            Algorithm::parse(value, 0).map_err(|_| bad())?;
                            name = value.clone();
                        }
                        "seed" => seed = value.parse().map_err(|_| bad())?,
                        _ => unreachable!("checked against the table"),
                    }
                }
                config.algorithm = Algorithm::parse(&name, seed)?;
                Ok(BotSpec::Solved(config))
            }
            _ => {
                let mut config = IsmctsConfig::default();
                let mut target = Target::Policy;
                for (name, value) in &pairs {
                    let bad = || refusal(kind, specs, name, value);
                    match name.as_str() {
                        "iterations" => {
                            config.iterations = value
                                .parse()
                                .ok()
                                .filter(|v| (1..=MAX_ITERATIONS).contains(v))
                                .ok_or_else(bad)?
                        }
                        "max_ms" => {
                            config.max_ms = Some(
                                value
                                    .parse()
                                    .ok()
                                    .filter(|v| (1..=MAX_MS).contains(v))
                                    .ok_or_else(bad)?,
                            )
                        }
                        "c" => {
                            config.c = value
                                .parse::<f64>()
                                .ok()
                                .filter(|v| v.is_finite() && *v > 0.0 && *v <= 100.0)
                                .ok_or_else(bad)?
                        }
                        "rollout" => {
                            config.rollout = match value.as_str() {
                                "random" => Rollout::Random,
                                "heuristic" => Rollout::Heuristic,
                                _ => return Err(bad()),
                            }
                        }
                        "seed" => config.seed = Some(value.parse().map_err(|_| bad())?),
                        "target" => {
                            target = match value.as_str() {
                                "random" => Target::Random,
                                "heuristic" => Target::Heuristic,
                                "policy" => Target::Policy,
                                _ => return Err(bad()),
                            }
                        }
                        "belief" => {
                            config.belief = match value.as_str() {
                                "none" => Belief::None,
                                "heuristic" => Belief::Heuristic,
                                "policy" => Belief::Policy,
                                _ => return Err(bad()),
                            }
                        }
                        "path" => {
                            if value.is_empty() {
                                return Err(bad());
                            }
                            config.path = Some(value.clone());
                        }
                        _ => unreachable!("checked against the table"),
                    }
                }
                // A file is read only as a policy model: refused beside any other.
                let reads_policy = if kind == "br" {
                    target == Target::Policy
                } else {
                    config.belief == Belief::Policy
                };
                if let Some(path) = &config.path
                    && !reads_policy
                {
                    return Err(GameError::InvalidBotParameter {
                        bot: kind.to_string(),
                        name: "path".to_string(),
                        value: path.clone(),
                        allowed: if kind == "br" {
                            "a policy file, with target=policy only".to_string()
                        } else {
                            "a policy file, with belief=policy only".to_string()
                        },
                    });
                }
                if kind == "br" {
                    config.belief = target.belief();
                    return Ok(BotSpec::BestResponse { target, config });
                }
                Ok(BotSpec::Ismcts(config))
            }
        }
    }

    /// The kind's name.
    pub fn kind(&self) -> &'static str {
        match self {
            BotSpec::Random => "random",
            BotSpec::Heuristic => "heuristic",
            BotSpec::Ismcts(_) => "ismcts",
            BotSpec::Policy { .. } => "policy",
            BotSpec::Solved(_) => "cfr",
            BotSpec::BestResponse { .. } => "br",
        }
    }

    /// The time budget per move, if the spec has one.
    pub fn max_ms(&self) -> Option<u64> {
        match self {
            BotSpec::Ismcts(c) | BotSpec::BestResponse { config: c, .. } => c.max_ms,
            _ => None,
        }
    }

    /// The spec under a time cap of `cap_ms` per move (a server's limit): a searching bot
    /// without a budget gets `cap_ms`; one asking for more than `cap_ms` is refused, naming
    /// `what` (the limit) in the error.
    pub fn capped(self, cap_ms: u64, what: &str) -> Result<BotSpec, GameError> {
        if let BotSpec::BestResponse { target, config } = self {
            return match BotSpec::Ismcts(config).capped(cap_ms, what) {
                Ok(BotSpec::Ismcts(config)) => Ok(BotSpec::BestResponse { target, config }),
                Err(GameError::InvalidBotParameter {
                    name,
                    value,
                    allowed,
                    ..
                }) => Err(GameError::InvalidBotParameter {
                    bot: "br".to_string(),
                    name,
                    value,
                    allowed,
                }),
                other => other,
            };
        }
        match self {
            BotSpec::Ismcts(mut c) => {
                match c.max_ms {
                    Some(ms) if ms > cap_ms => {
                        return Err(GameError::InvalidBotParameter {
                            bot: "ismcts".to_string(),
                            name: "max_ms".to_string(),
                            value: ms.to_string(),
                            allowed: format!("at most {cap_ms} ({what})"),
                        });
                    }
                    Some(_) => {}
                    None => c.max_ms = Some(cap_ms),
                }
                Ok(BotSpec::Ismcts(c))
            }
            other => Ok(other),
        }
    }

    /// The bot for `game`. Every kind plays every game (the heuristic is the state's own);
    /// a policy is read (the shipped one for the game, or its file) and must have been trained
    /// on `game`, else the error says why.
    ///
    /// ```
    /// use checkraise_core::bots::BotSpec;
    /// use checkraise_core::{make_bot, make_game_from_string};
    ///
    /// let game = make_game_from_string("poker_chess").unwrap();
    /// let spec = BotSpec::parse::<&str, &str>("ismcts(iterations=100)", []).unwrap();
    /// let bot = spec.build(game.as_ref()).unwrap();
    /// let again = make_bot("poker_chess", &bot.spec()).unwrap();
    /// assert_eq!(again.spec(), bot.spec(), "a bot's spec reads back as the same bot");
    /// ```
    pub fn build(&self, game: &dyn Game) -> Result<Box<dyn Bot>, GameError> {
        Ok(match self {
            BotSpec::Random => Box::new(RandomBot),
            BotSpec::Heuristic => Box::new(HeuristicBot),
            BotSpec::Ismcts(c) => Box::new(IsmctsBot::for_game(c.clone(), game)?),
            BotSpec::Solved(c) => Box::new(SolvedBot::for_game(c.clone(), game)?),
            BotSpec::BestResponse { target, config } => {
                Box::new(IsmctsBot::best_response(config.clone(), *target, game)?)
            }
            BotSpec::Policy { path, play } => {
                let refuse = |why: String| GameError::InvalidBotParameter {
                    bot: "policy".to_string(),
                    name: "path".to_string(),
                    value: path
                        .clone()
                        .unwrap_or_else(|| "none (the shipped policy)".into()),
                    allowed: why,
                };
                let net: Arc<PolicyNet> =
                    policy::shipped_or_file(game, path.as_deref()).map_err(refuse)?;
                let bot = PolicyBot::for_game(net, path.clone(), game).map_err(|e| {
                    refuse(format!(
                        "a policy trained on this game, and this one is not: {e}"
                    ))
                })?;
                Box::new(match play {
                    Some(play) => bot.with_play(*play),
                    None => bot,
                })
            }
        })
    }
}

impl fmt::Display for BotSpec {
    /// The canonical spec string (every setting, in table order; `belief` only when set, so
    /// plain searches keep the strings they had before it existed).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotSpec::Ismcts(c) => {
                write!(f, "ismcts(iterations={}", c.iterations)?;
                if let Some(ms) = c.max_ms {
                    write!(f, ",max_ms={ms}")?;
                }
                write!(f, ",c={},rollout={}", c.c, c.rollout.name())?;
                if let Some(seed) = c.seed {
                    write!(f, ",seed={seed}")?;
                }
                if c.belief != Belief::None {
                    write!(f, ",belief={}", c.belief.name())?;
                }
                if let Some(path) = &c.path {
                    write!(f, ",path={path}")?;
                }
                f.write_str(")")
            }
            BotSpec::Policy { path, play } => {
                let mut settings: Vec<String> = Vec::new();
                if let Some(path) = path {
                    settings.push(format!("path={path}"));
                }
                if let Some(play) = play {
                    settings.push(format!("play={}", play.name()));
                }
                if settings.is_empty() {
                    f.write_str("policy")
                } else {
                    write!(f, "policy({})", settings.join(","))
                }
            }
            BotSpec::Solved(c) => f.write_str(&c.spec()),
            BotSpec::BestResponse { target, config: c } => {
                write!(f, "br(target={},iterations={}", target.name(), c.iterations)?;
                if let Some(ms) = c.max_ms {
                    write!(f, ",max_ms={ms}")?;
                }
                write!(f, ",c={},rollout={}", c.c, c.rollout.name())?;
                if let Some(seed) = c.seed {
                    write!(f, ",seed={seed}")?;
                }
                if let Some(path) = &c.path {
                    write!(f, ",path={path}")?;
                }
                f.write_str(")")
            }
            other => f.write_str(other.kind()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        BotSpec::parse::<&str, &str>(text, [])
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn specs_parse_and_print_canonically() {
        assert_eq!(
            BotSpec::parse::<&str, &str>("random", []).unwrap(),
            BotSpec::Random
        );
        let spec =
            BotSpec::parse::<&str, &str>(" ismcts( iterations = 2000 , rollout=random) ", [])
                .unwrap();
        assert_eq!(
            spec.to_string(),
            "ismcts(iterations=2000,c=0.7,rollout=random)"
        );
        let again = BotSpec::parse::<&str, &str>(&spec.to_string(), []).unwrap();
        assert_eq!(again, spec);
        let kw =
            BotSpec::parse("ismcts(iterations=5)", [("iterations", "7"), ("seed", "3")]).unwrap();
        assert_eq!(
            kw.to_string(),
            "ismcts(iterations=7,c=0.7,rollout=heuristic,seed=3)"
        );
    }

    #[test]
    fn bad_specs_name_the_setting_the_value_and_what_is_allowed() {
        assert_eq!(
            err("alphazero"),
            "unknown bot 'alphazero'; bots: random, heuristic, ismcts, policy, cfr, br"
        );
        assert_eq!(
            err("ismcts(iterations=0)"),
            "setting 'iterations' of bot 'ismcts' cannot be '0': an integer from 1 to 1000000"
        );
        assert!(err("ismcts(c=-1)").contains("'c'"));
        assert!(err("ismcts(c=nan)").contains("a number above 0"));
        assert!(err("ismcts(rollout=smart)").contains("one of: random, heuristic"));
        assert!(err("ismcts(max_ms=0)").contains("'max_ms'"));
        assert!(err("ismcts(seed=-3)").contains("'seed'"));
        assert!(err("ismcts(belief=oracle)").contains("one of: none, heuristic, policy"));
        assert_eq!(
            err("ismcts(depth=3)"),
            "bot 'ismcts' has no setting 'depth'; its settings are: iterations, max_ms, c, \
             rollout, seed, belief, path"
        );
        assert!(err("random(iterations=3)").contains("its settings are: (none)"));
        assert!(err("ismcts(iterations=3").contains("kind(name=value"));
        assert!(err("ismcts(iterations)").contains("name=value"));
        assert!(crate::registry::make_bot("chess", "random").is_err());
    }

    #[test]
    fn a_time_cap_fills_or_refuses_budgets() {
        let spec = BotSpec::parse::<&str, &str>("ismcts", []).unwrap();
        assert_eq!(
            spec.clone().capped(2000, "--max-bot-ms").unwrap().max_ms(),
            Some(2000)
        );
        let slow = BotSpec::parse::<&str, &str>("ismcts(max_ms=5000)", []).unwrap();
        let e = slow.capped(2000, "the server's --max-bot-ms").unwrap_err();
        assert_eq!(
            e.to_string(),
            "setting 'max_ms' of bot 'ismcts' cannot be '5000': at most 2000 (the server's \
             --max-bot-ms)"
        );
        assert_eq!(
            BotSpec::Heuristic.capped(10, "cap").unwrap(),
            BotSpec::Heuristic
        );
    }
}
