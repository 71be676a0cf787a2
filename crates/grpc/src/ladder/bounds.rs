//! The measured lower bounds on the house bots' exploitability that leaderboards show, read
//! from the results file the server is built with (`docs/strength/exploitability.json`,
//! written by `benchmarks/exploitability_table.py` from the committed measurements). The
//! ladder computes none live: a best response takes minutes to hours.

use std::collections::HashMap;
use std::sync::LazyLock;

use checkraise_core::bots::BotSpec;
use serde::Deserialize;

use super::canonical;
use crate::pb;

/// The committed results file.
const RESULTS: &str = include_str!("../../../../docs/strength/exploitability.json");

#[derive(Deserialize)]
struct Results {
    bounds: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    game: String,
    bot: String,
    value: f64,
    ci: [f64; 2],
    games: u64,
    method: String,
    command: String,
}

/// A game string and a bot spec, both canonical (every parameter and setting spelled out),
/// so that `ismcts(iterations=1000)` finds the entry written
/// `ismcts(iterations=1000,rollout=random)`.
fn key(game: &str, bot: &str) -> Option<(String, String)> {
    let (_, game) = canonical(game).ok()?;
    let bot = BotSpec::parse::<&str, &str>(bot, []).ok()?.to_string();
    Some((game, bot))
}

/// Why the results file does not read.
#[derive(Debug, thiserror::Error)]
enum BoundsError {
    #[error("the results file is not the expected JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the entry for {bot} in {game} does not parse")]
    Entry { game: String, bot: String },
}

/// Every entry of `text` by its key; an entry whose game or bot does not parse is an error
/// naming it (the tests read the committed file with this, so a bad entry fails them).
fn parse(text: &str) -> Result<HashMap<(String, String), pb::ExploitabilityBound>, BoundsError> {
    let results: Results = serde_json::from_str(text)?;
    let mut out = HashMap::new();
    for e in results.bounds {
        let k = key(&e.game, &e.bot).ok_or_else(|| BoundsError::Entry {
            game: e.game.clone(),
            bot: e.bot.clone(),
        })?;
        out.insert(
            k,
            pb::ExploitabilityBound {
                value: e.value,
                low: e.ci[0],
                high: e.ci[1],
                games: e.games,
                method: e.method,
                command: e.command,
            },
        );
    }
    Ok(out)
}

static BOUNDS: LazyLock<HashMap<(String, String), pb::ExploitabilityBound>> = LazyLock::new(|| {
    parse(RESULTS).unwrap_or_else(|error| {
            tracing::warn!(%error, "the exploitability results file does not read; leaderboards show no bounds");
            HashMap::new()
        })
});

/// The measured bound on `bot` (a spec) in `game` (a game string), if one above 0 was.
pub(super) fn bound(game: &str, bot: &str) -> Option<pb::ExploitabilityBound> {
    BOUNDS
        .get(&key(game, bot)?)
        .filter(|b| b.value > 0.0)
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_results_read_and_find_house_bots_by_any_spelling() {
        let all = parse(RESULTS).expect("docs/strength/exploitability.json reads");
        assert!(!all.is_empty());
        for b in all.values() {
            assert!(b.low <= b.value && b.value <= b.high, "{b:?}");
            assert!(b.games > 0 && !b.method.is_empty() && !b.command.is_empty());
        }
        let random = bound("holdem_chess", "random").expect("random is measured");
        let spelled = bound("holdem_chess(players=2,stack=200)", " random ")
            .expect("the same ladder and bot, spelled otherwise");
        assert_eq!(random, spelled);
        assert!(random.value > 0.0);
        // Another game's parameters are another ladder, and a registered bot has no entry.
        assert_eq!(bound("holdem_chess(stack=100)", "random"), None);
        assert_eq!(bound("holdem_chess", "my-bot"), None);
    }

    #[test]
    fn a_bad_entry_is_an_error_naming_it() {
        let text = r#"{"bounds": [{"game": "no_such_game", "bot": "random", "value": 1,
            "ci": [0, 2], "games": 1, "method": "m", "command": "c"}]}"#;
        assert!(
            parse(text)
                .unwrap_err()
                .to_string()
                .contains("no_such_game")
        );
        assert!(matches!(parse("{"), Err(BoundsError::Json(_))));
    }
}
