//! The table around a game: who plays each seat.
//!
//! Every face seats players the same way: a seat is played from outside the engine (a person
//! on the server, a client, a learner, Python code) or by a bot the engine plays, named by a
//! bot spec. `SeatRules` is how a face takes those specs: which word means "outside", the
//! thinking-time cap a server puts on search, and whether a spec may name a policy file (not on
//! a server: a client must not make it read a file of its choosing). The gRPC matches, envs and
//! dm_env_rpc worlds, Python's `Driver` and the arena all seat players through it, so a spec
//! means the same, and is refused for the same reason, everywhere.

use std::fmt;

use crate::bots::{Bot, BotSpec};
use crate::error::GameError;
use crate::game::Game;

/// Who plays a seat.
#[derive(Clone, Debug, PartialEq)]
pub enum SeatSpec {
    /// Someone outside the engine: a person, a client, a learner.
    Outside,
    /// A bot the engine plays.
    Bot(BotSpec),
}

/// A seat set up for a game: who plays it, and the bot when the engine does.
pub struct Seat {
    /// Who plays it (a bot spec with every setting written out).
    pub spec: SeatSpec,
    /// The engine's bot for a `SeatSpec::Bot` seat, built for the game; `None` outside.
    pub bot: Option<Box<dyn Bot>>,
}

impl fmt::Debug for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Seat").field("spec", &self.spec).finish()
    }
}

/// How a face takes seat specs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRules {
    /// The word that seats someone from outside (`human` on the server); `None`: only an
    /// absent spec does (Python's `None`).
    pub outside: Option<&'static str>,
    /// A per-move thinking-time cap in milliseconds for search bots, with the name of the
    /// limit an error gives (a server's `--max-bot-ms`); `None`: no cap.
    pub cap: Option<(u64, &'static str)>,
    /// Whether `policy(path=FILE)` may read a file.
    pub files: bool,
}

/// What a refused policy file is told on a face that serves clients.
const NOT_SERVED: &str = "policy(path=...) is not served: the server plays only the policies \
                          it ships (bot spec 'policy'); play your own policy file from Python \
                          or the arena";

impl SeatRules {
    /// A program on the caller's own machine (Python, the arena): any bot spec, policy files
    /// included, no cap.
    pub const LOCAL: SeatRules = SeatRules {
        outside: None,
        cap: None,
        files: true,
    };

    /// A server for clients: `human` seats a person, search is capped at `cap_ms` per move
    /// (named `limit` in errors), and no spec may name a file.
    pub const fn served(cap_ms: u64, limit: &'static str) -> SeatRules {
        SeatRules {
            outside: Some("human"),
            cap: Some((cap_ms, limit)),
            files: false,
        }
    }

    /// A bot spec as this face takes it: parsed, capped, and refused if it names a file where
    /// files are not read.
    pub fn bot_spec(&self, text: &str) -> Result<BotSpec, GameError> {
        let mut spec = BotSpec::parse::<&str, &str>(text, [])?;
        if let Some((cap, limit)) = self.cap {
            spec = spec.capped(cap, limit)?;
        }
        if let BotSpec::Policy { path: Some(path) } = &spec
            && !self.files
        {
            return Err(GameError::InvalidBotParameter {
                bot: "policy".to_string(),
                name: "path".to_string(),
                value: path.clone(),
                allowed: NOT_SERVED.to_string(),
            });
        }
        Ok(spec)
    }

    /// The seat `text` names for `game`: outside for `None` or the outside word, else a bot
    /// (built now, so a policy that does not fit the game is refused here).
    pub fn seat(&self, game: &dyn Game, text: Option<&str>) -> Result<Seat, GameError> {
        match text {
            None => Ok(Seat {
                spec: SeatSpec::Outside,
                bot: None,
            }),
            Some(word) if Some(word) == self.outside => Ok(Seat {
                spec: SeatSpec::Outside,
                bot: None,
            }),
            Some(text) => {
                let spec = self.bot_spec(text)?;
                let bot = spec.build(game)?;
                Ok(Seat {
                    spec: SeatSpec::Bot(spec),
                    bot: Some(bot),
                })
            }
        }
    }

    /// Every seat of a table, in seat order; `Err` gives the first refused seat's index and
    /// why.
    pub fn seats<'a>(
        &self,
        game: &dyn Game,
        texts: impl IntoIterator<Item = Option<&'a str>>,
    ) -> Result<Vec<Seat>, (usize, GameError)> {
        texts
            .into_iter()
            .enumerate()
            .map(|(i, text)| self.seat(game, text).map_err(|e| (i, e)))
            .collect()
    }

    /// A seat spec's text as this face writes it: the bot spec with every setting, or the
    /// outside word (`None` where only an absent spec means outside).
    pub fn text(&self, spec: &SeatSpec) -> Option<String> {
        match spec {
            SeatSpec::Outside => self.outside.map(str::to_string),
            SeatSpec::Bot(bot) => Some(bot.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::make_game_from_string;

    #[test]
    fn a_server_seats_humans_caps_search_and_reads_no_file() {
        let game = make_game_from_string("detective_poker").unwrap();
        let rules = SeatRules::served(500, "the server's --max-bot-ms");
        let seats = rules
            .seats(
                game.as_ref(),
                [Some("human"), Some("ismcts"), Some("policy")],
            )
            .unwrap();
        assert_eq!(seats[0].spec, SeatSpec::Outside);
        assert!(seats[0].bot.is_none() && seats[1].bot.is_some());
        let texts: Vec<Option<String>> = seats.iter().map(|s| rules.text(&s.spec)).collect();
        assert_eq!(texts[0].as_deref(), Some("human"));
        let capped = texts[1].as_deref().unwrap();
        assert!(capped.contains("max_ms=500"), "{capped}");
        assert_eq!(texts[2].as_deref(), Some("policy"));
        let (seat, e) = rules
            .seats(game.as_ref(), [Some("human"), Some("ismcts(max_ms=900)")])
            .unwrap_err();
        assert_eq!(seat, 1);
        assert!(
            e.to_string()
                .contains("at most 500 (the server's --max-bot-ms)"),
            "{e}"
        );
        let e = rules.bot_spec("policy(path=/etc/passwd)").unwrap_err();
        assert!(e.to_string().contains("not served"), "{e}");
        // A policy trained on other parameters is refused when the seat is set up.
        let other = make_game_from_string("detective_poker(players=4)").unwrap();
        let e = rules.seat(other.as_ref(), Some("policy")).unwrap_err();
        assert!(e.to_string().contains("trained on"), "{e}");
    }

    #[test]
    fn a_local_face_reads_files_and_knows_no_human() {
        let game = make_game_from_string("pokeros").unwrap();
        let rules = SeatRules::LOCAL;
        assert_eq!(
            rules.seat(game.as_ref(), None).unwrap().spec,
            SeatSpec::Outside
        );
        assert!(matches!(
            rules.seat(game.as_ref(), Some("human")),
            Err(GameError::UnknownBot { .. })
        ));
        assert_eq!(rules.text(&SeatSpec::Outside), None);
        // The file is read (and here missing): refused by the policy bot, not by the rules.
        let e = rules
            .seat(game.as_ref(), Some("policy(path=/nonexistent.safetensors)"))
            .unwrap_err();
        assert!(!e.to_string().contains("not served"), "{e}");
        assert!(
            rules
                .bot_spec("ismcts(max_ms=100000)")
                .unwrap()
                .to_string()
                .contains("100000")
        );
    }
}
