//! The table around a game: who plays each seat, and a match in play.
//!
//! Every face seats players the same way: a seat is played from outside the engine (a person
//! on the server, a client, a learner, Python code) or by a bot the engine plays, named by a
//! bot spec. `SeatRules` is how a face takes those specs: which word means "outside", the
//! thinking-time cap a server puts on search, and whether a spec may name a policy file (not on
//! a server: a client must not make it read a file of its choosing). The gRPC matches, envs and
//! dm_env_rpc worlds, Python's `Driver` and the arena all seat players through it, so a spec
//! means the same, and is refused for the same reason, everywhere.
//!
//! `Match` is a game in play as every face plays one: its state and driver, a version that
//! counts the steps applied, each seat's latest decision (so that a retried action is
//! recognised, never applied twice) and each seat's reward since it last looked. The gRPC
//! matches and the dm_env_rpc worlds play through it; they keep only their transport: tokens,
//! watchers, the store, status codes.

use std::fmt;
use std::sync::atomic::AtomicBool;

use crate::bots::{Bot, BotSpec};
use crate::driver::{Driver, Halt, Step};
use crate::error::GameError;
use crate::game::{Action, Game, Player, State};

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
const NOT_SERVED: &str = "policy files (path=...) are not served: the server plays only the \
                          policies it ships (bot spec 'policy'); play your own policy file from \
                          Python or the arena";

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
        let file = match &spec {
            BotSpec::Policy { path, .. } => path.as_ref(),
            BotSpec::Ismcts(c) | BotSpec::BestResponse { config: c, .. } => c.path.as_ref(),
            _ => None,
        };
        if let Some(path) = file
            && !self.files
        {
            return Err(GameError::InvalidBotParameter {
                bot: spec.kind().to_string(),
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

/// The action a seat sends: an id in the game's action space, or its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// An id.
    Id(Action),
    /// The action's text, parsed by the game (`State::string_to_action`).
    Text(String),
}

/// What `Match::act` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acted {
    /// Applied now (at a simultaneous node: held, hidden, until every seat has chosen).
    Applied,
    /// A retry: this seat made this decision at the expected version before.
    AlreadyApplied,
}

/// Why `Match::act` refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ActError {
    /// The game refused it: out of turn, illegal, a text that names no action, a second
    /// choice at a simultaneous node.
    Game(GameError),
    /// The match is at `current`, not at `expected`, and the seat made no decision at
    /// `expected`: the action was chosen on an old view.
    Moved {
        /// The seat that acted.
        seat: usize,
        /// The version the action was chosen at.
        expected: u64,
        /// The match's version now.
        current: u64,
    },
    /// The seat already decided at `expected`, with another action.
    Decided {
        /// The seat that acted.
        seat: usize,
        /// The version the action was chosen at.
        expected: u64,
        /// The decision made there.
        decision: Decision,
    },
    /// `stop` was set before a bot's move (the action itself was applied).
    Stopped,
    /// A bot failed to act: an engine fault.
    Bot(GameError),
}

impl fmt::Display for ActError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActError::Game(e) => write!(f, "{e}"),
            ActError::Moved {
                seat,
                expected,
                current,
            } => write!(
                f,
                "the match is at version {current}, not {expected} as expected, and seat {seat} did not act at version {expected}: read the view and act again"
            ),
            ActError::Decided {
                seat,
                expected,
                decision,
            } => write!(
                f,
                "seat {seat} already acted at version {expected}, with '{}' (id {}); this request asks for another action",
                decision.text, decision.action
            ),
            ActError::Stopped => write!(f, "stopped before a bot's move"),
            ActError::Bot(e) => write!(f, "a bot could not act: {e}"),
        }
    }
}

impl std::error::Error for ActError {}

/// A seat's latest decision: the version it was made at, the action and its text (what a
/// retried action is compared with).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Decision {
    /// The match's version when the seat decided.
    pub version: u64,
    /// The action.
    pub action: Action,
    /// Its text, as the game wrote it then.
    pub text: String,
}

/// Everything of a `Match` but its state: its driver (chance and bot streams, held choices),
/// version, each seat's latest decision and each seat's return when it last took its reward.
/// With the state's own serialization, it saves a match to continue exactly
/// (`Match::progress`, `Match::resume`): Python pickles its `Match` this way.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// The driver.
    pub driver: Driver,
    /// The number of decision steps applied.
    pub version: u64,
    /// Each seat's latest decision.
    pub decisions: Vec<Option<Decision>>,
    /// Each seat's return when it last took its reward.
    pub taken: Vec<f64>,
}

/// A step `Match` applied, as its `on_step` callback is told: the state after it, the step,
/// and the version it made.
pub type OnStep<'a> = dyn FnMut(&dyn State, &Step, u64) + 'a;

/// A game in play: its state, the driver that plays chance and the engine's bots, the version
/// (the number of decision steps applied: a seat's action, or a joint action at a
/// simultaneous node), each seat's latest decision and each seat's return when it last took
/// its reward.
///
/// The seats' bots are the caller's (`bots[s]` is `Some` for a seat the engine plays), given
/// to each call that may let them act, so that a face keeps them beside what else it knows of
/// a seat.
///
/// ```
/// use checkraise_core::bots::{Bot, HeuristicBot};
/// use checkraise_core::driver::Driver;
/// use checkraise_core::table::{Acted, ActError, Choice, Match};
/// use checkraise_core::make_game_from_string;
///
/// let game = make_game_from_string("poker_chess").unwrap();
/// let bots: [Option<&dyn Bot>; 2] = [None, Some(&HeuristicBot)];
/// let mut play = Match::new(game.new_initial_state(), Driver::from_seed(7, 2));
/// play.start(&bots, None, &mut |_, _, _| {}).unwrap();
/// let version = play.version();
/// let action = play.state().legal_actions()[0];
/// let acted = play.act(0, &Choice::Id(action), Some(version), &bots, None, &mut |_, _, _| {});
/// assert_eq!(acted, Ok(Acted::Applied));
/// assert!(play.version() > version);
/// // The same request again (a retry after a lost reply) is recognised, not applied twice.
/// let again = play.act(0, &Choice::Id(action), Some(version), &bots, None, &mut |_, _, _| {});
/// assert_eq!(again, Ok(Acted::AlreadyApplied));
/// // Another action chosen on that old view is refused.
/// let other = play.act(0, &Choice::Id(action + 1), Some(version), &bots, None, &mut |_, _, _| {});
/// assert!(matches!(other, Err(ActError::Decided { .. })));
/// ```
pub struct Match {
    state: Box<dyn State>,
    driver: Driver,
    version: u64,
    decisions: Vec<Option<Decision>>,
    taken: Vec<f64>,
}

impl fmt::Debug for Match {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Match")
            .field("state", &self.state.describe())
            .field("version", &self.version)
            .finish()
    }
}

/// Why a saved match's `Progress` cannot continue at a state: it was saved for another
/// number of seats.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a saved match of {saved} seats cannot continue a game of {players}")]
pub struct ResumeError {
    /// Seats in the saved progress.
    pub saved: usize,
    /// Seats of the state it was to continue.
    pub players: usize,
}

impl Match {
    /// A match at `state` (normally the game's initial state), at version 0, played with
    /// `driver`'s chance and bot streams.
    pub fn new(state: Box<dyn State>, driver: Driver) -> Self {
        let players = state.num_players();
        Match {
            state,
            driver,
            version: 0,
            decisions: vec![None; players],
            taken: vec![0.0; players],
        }
    }

    /// A match continued from a saved `progress` at `state`; refused if they do not fit
    /// together (another number of seats).
    pub fn resume(state: Box<dyn State>, progress: Progress) -> Result<Self, ResumeError> {
        let players = state.num_players();
        let Progress {
            driver,
            version,
            decisions,
            taken,
        } = progress;
        if decisions.len() != players || taken.len() != players || driver.seats() != Some(players) {
            return Err(ResumeError {
                saved: taken.len(),
                players,
            });
        }
        Ok(Match {
            state,
            driver,
            version,
            decisions,
            taken,
        })
    }

    /// Everything but the state, to save the match (`resume` continues it).
    pub fn progress(&self) -> Progress {
        Progress {
            driver: self.driver.clone(),
            version: self.version,
            decisions: self.decisions.clone(),
            taken: self.taken.clone(),
        }
    }

    /// The seats played from outside (`bots[s]` is `None`) that must decide now: the player
    /// to move, or at a simultaneous node each such seat that has not chosen yet; none once
    /// the game is over or while chance or a bot is to act.
    pub fn waiting(&self, bots: &[Option<&dyn Bot>]) -> Vec<usize> {
        let outside = |s: usize| bots.get(s).is_none_or(Option::is_none);
        if self.state.is_terminal() {
            Vec::new()
        } else if self.state.is_simultaneous_node() {
            (0..self.state.num_players())
                .filter(|&s| outside(s) && !self.driver.has_chosen(s))
                .collect()
        } else {
            match self.state.current_player() {
                Player::Seat(s) if outside(s) => vec![s],
                _ => Vec::new(),
            }
        }
    }

    /// Resolves the deal, then lets the bots play up to the first decision of a seat played
    /// from outside (or the end); each seat's reward starts counting there.
    pub fn start(
        &mut self,
        bots: &[Option<&dyn Bot>],
        stop: Option<&AtomicBool>,
        on_step: &mut OnStep<'_>,
    ) -> Result<Halt, ActError> {
        self.deal();
        let halt = self.advance(bots, stop, on_step)?;
        self.taken = self.state.returns();
        Ok(halt)
    }

    /// Resolves chance at the start (the deal), before any decision; the bots do not move
    /// (`start` deals and lets them).
    pub fn deal(&mut self) {
        self.driver.resolve_chance(self.state.as_mut());
    }

    /// The state (read only: it changes through the match, so that the version counts).
    pub fn state(&self) -> &dyn State {
        self.state.as_ref()
    }

    /// The number of decision steps applied.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Whether `seat` has chosen at the current simultaneous node (its choice held).
    pub fn has_chosen(&self, seat: usize) -> bool {
        self.driver.has_chosen(seat)
    }

    /// `seat`'s latest decision, if it made one.
    pub fn decision(&self, seat: usize) -> Option<&Decision> {
        self.decisions.get(seat).and_then(Option::as_ref)
    }

    /// The change of `seat`'s return since it last took its reward (since `start`, at
    /// first), and takes it: what a learner is paid for its last decision and what the bots
    /// did after it.
    pub fn take_reward(&mut self, seat: usize) -> f64 {
        let now = self.state.returns()[seat];
        let reward = now - self.taken[seat];
        self.taken[seat] = now;
        reward
    }

    /// Lets chance and the bots act until a seat played from outside must decide or the game
    /// ends (or, before a bot's move, `stop` is set). Each step moves the version on and is
    /// told to `on_step`.
    pub fn advance(
        &mut self,
        bots: &[Option<&dyn Bot>],
        stop: Option<&AtomicBool>,
        on_step: &mut OnStep<'_>,
    ) -> Result<Halt, ActError> {
        let Match {
            state,
            driver,
            version,
            ..
        } = self;
        driver
            .advance(state.as_mut(), bots, stop, &mut |s, step| {
                *version += 1;
                on_step(s, step, *version);
            })
            .map_err(ActError::Bot)
    }

    /// Plays `seat`'s decision `action` (held at a simultaneous node until every seat has
    /// chosen), remembered as the seat's latest decision; the bots do not move. Returns
    /// whether the choice is held (a simultaneous node still waiting for other seats).
    pub fn decide(
        &mut self,
        seat: usize,
        action: Action,
        on_step: &mut OnStep<'_>,
    ) -> Result<bool, GameError> {
        let before = self.version;
        let text = self.state.action_to_string(Player::Seat(seat), action);
        let simultaneous = self.state.is_simultaneous_node();
        let Match {
            state,
            driver,
            version,
            ..
        } = self;
        driver.play(state.as_mut(), seat, action, &mut |s, step| {
            *version += 1;
            on_step(s, step, *version);
        })?;
        if let Some(slot) = self.decisions.get_mut(seat) {
            *slot = Some(Decision {
                version: before,
                action,
                text,
            });
        }
        Ok(simultaneous && self.version == before)
    }

    /// Plays `seat`'s choice, then lets chance and the bots act up to the next decision from
    /// outside. Retry-safe when `expected` (the version of the view the choice was made on)
    /// is given: if the seat's latest decision was made at that version with this action, it
    /// is not applied again (`AlreadyApplied`); if the match moved on without it, or the seat
    /// decided otherwise there, it is refused.
    pub fn act(
        &mut self,
        seat: usize,
        choice: &Choice,
        expected: Option<u64>,
        bots: &[Option<&dyn Bot>],
        stop: Option<&AtomicBool>,
        on_step: &mut OnStep<'_>,
    ) -> Result<Acted, ActError> {
        if let Some(expected) = expected {
            let chosen_here = self.state.is_simultaneous_node() && self.driver.has_chosen(seat);
            if expected != self.version || chosen_here {
                return self.retried(seat, choice, expected);
            }
        }
        let action = match choice {
            Choice::Id(action) => *action,
            Choice::Text(text) => {
                if !self.state.is_simultaneous_node() || self.driver.has_chosen(seat) {
                    // Out of turn, or a second choice, is the error to report, not the text.
                    self.check_may_choose(seat).map_err(ActError::Game)?;
                }
                self.state
                    .string_to_action(Player::Seat(seat), text)
                    .map_err(ActError::Game)?
            }
        };
        self.decide(seat, action, on_step).map_err(ActError::Game)?;
        match self.advance(bots, stop, on_step)? {
            Halt::Stopped => Err(ActError::Stopped),
            Halt::Decide | Halt::Over => Ok(Acted::Applied),
        }
    }

    /// The answer to a retried action (`expected` is not the current version, or the seat
    /// has chosen at this node already).
    fn retried(&self, seat: usize, choice: &Choice, expected: u64) -> Result<Acted, ActError> {
        match self.decision(seat) {
            Some(d) if d.version == expected => {
                let same = match choice {
                    Choice::Id(id) => *id == d.action,
                    Choice::Text(text) => text.trim() == d.text,
                };
                if same {
                    Ok(Acted::AlreadyApplied)
                } else {
                    Err(ActError::Decided {
                        seat,
                        expected,
                        decision: d.clone(),
                    })
                }
            }
            _ => Err(ActError::Moved {
                seat,
                expected,
                current: self.version,
            }),
        }
    }

    /// The error for `seat` choosing now, if it may not.
    pub fn check_may_choose(&self, seat: usize) -> Result<(), GameError> {
        if self.state.is_simultaneous_node() {
            if self.driver.has_chosen(seat) {
                return Err(GameError::AlreadyChosen {
                    seat,
                    state: self.state.describe(),
                });
            }
            return Ok(());
        }
        crate::game::check_turn(self.state.as_ref(), Player::Seat(seat))
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
        for spec in [
            "policy(path=/etc/passwd)",
            "ismcts(belief=policy,path=/etc/passwd)",
            "br(target=policy,path=/etc/passwd)",
        ] {
            let e = rules.bot_spec(spec).unwrap_err();
            assert!(e.to_string().contains("not served"), "{spec}: {e}");
        }
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
    fn ignore(_: &dyn State, _: &Step, _: u64) {}

    #[test]
    fn a_match_counts_versions_and_knows_a_retry() {
        use crate::bots::RandomBot;
        let game = make_game_from_string("detective_poker").unwrap();
        let random = RandomBot;
        let bots: Vec<Option<&dyn Bot>> = vec![None, Some(&random), Some(&random)];
        let mut play = Match::new(game.new_initial_state(), Driver::from_seed(3, 3));
        let mut steps = Vec::new();
        play.start(&bots, None, &mut |_, _, v| steps.push(v))
            .unwrap();
        let at = play.version();
        assert_eq!(steps, (1..=at).collect::<Vec<_>>());
        // An old view's version, with no decision there: moved on.
        if at > 0 {
            let action = play.state().legal_actions_for(Player::Seat(0))[0];
            let e = play
                .act(
                    0,
                    &Choice::Id(action),
                    Some(at - 1),
                    &bots,
                    None,
                    &mut ignore,
                )
                .unwrap_err();
            assert_eq!(
                e,
                ActError::Moved {
                    seat: 0,
                    expected: at - 1,
                    current: at
                }
            );
        }
        // A text that names no action is the game's refusal, and nothing moves.
        let e = play
            .act(
                0,
                &Choice::Text("no such".into()),
                Some(at),
                &bots,
                None,
                &mut ignore,
            )
            .unwrap_err();
        assert!(matches!(e, ActError::Game(_)), "{e}");
        assert_eq!(play.version(), at);
        let action = play.state().legal_actions_for(Player::Seat(0))[0];
        let text = play.state().action_to_string(Player::Seat(0), action);
        let acted = play.act(
            0,
            &Choice::Text(format!(" {text} ")),
            Some(at),
            &bots,
            None,
            &mut ignore,
        );
        assert_eq!(acted, Ok(Acted::Applied));
        assert_eq!(
            play.decision(0).map(|d| (d.version, d.action)),
            Some((at, action))
        );
        // The retry, by id or by text, is recognised.
        for choice in [Choice::Id(action), Choice::Text(text.clone())] {
            let again = play.act(0, &choice, Some(at), &bots, None, &mut ignore);
            assert_eq!(again, Ok(Acted::AlreadyApplied));
        }
        // Out of turn without an expected version: the game's refusal.
        if !play.state().is_terminal() && play.state().current_player() != Player::Seat(1) {
            let any = play.state().legal_actions()[0];
            assert!(matches!(
                play.act(1, &Choice::Id(any), None, &bots, None, &mut ignore),
                Err(ActError::Game(_))
            ));
        }
    }

    #[test]
    fn a_seats_reward_is_its_return_since_it_last_took_it() {
        let game = make_game_from_string("holdem_chess").unwrap();
        let random = crate::bots::RandomBot;
        let bots: Vec<Option<&dyn Bot>> = vec![None, Some(&random)];
        let mut play = Match::new(game.new_initial_state(), Driver::from_seed(11, 2));
        play.start(&bots, None, &mut ignore).unwrap();
        let start = play.state().returns()[0];
        let mut total = 0.0;
        assert_eq!(play.take_reward(0), 0.0);
        while !play.state().is_terminal() {
            let action = play.state().legal_actions_for(Player::Seat(0))[0];
            play.act(0, &Choice::Id(action), None, &bots, None, &mut ignore)
                .unwrap();
            total += play.take_reward(0);
        }
        assert!((start + total - play.state().returns()[0]).abs() < 1e-9);
        assert_eq!(play.take_reward(0), 0.0);
    }

    #[test]
    fn a_saved_match_continues_exactly_and_says_who_must_decide() {
        let game = make_game_from_string("prediction_chess").unwrap();
        let bots: Vec<Option<&dyn Bot>> = vec![None, None];
        let mut play = Match::new(game.new_initial_state(), Driver::from_seed(3, 2));
        play.start(&bots, None, &mut ignore).unwrap();
        assert!(play.state().is_simultaneous_node());
        assert_eq!(play.waiting(&bots), [0, 1]);
        let first = play.state().legal_actions_for(Player::Seat(0))[0];
        assert_eq!(play.decide(0, first, &mut ignore), Ok(true), "held");
        assert_eq!(play.waiting(&bots), [1], "seat 0 has chosen");
        let heuristic = crate::bots::HeuristicBot;
        assert_eq!(
            play.waiting(&[None, Some(&heuristic)]),
            Vec::<usize>::new(),
            "a bot's seat is the engine's to play"
        );

        let saved = serde_json::to_string(&play.progress()).unwrap();
        let state = game.deserialize_state(&play.state().serialize()).unwrap();
        let mut copy = Match::resume(state, serde_json::from_str(&saved).unwrap()).unwrap();
        assert_eq!(
            (copy.version(), copy.waiting(&bots)),
            (play.version(), vec![1])
        );
        assert_eq!(copy.decision(0), play.decision(0));
        while !play.state().is_terminal() {
            for seat in play.waiting(&bots) {
                let action = play.state().legal_actions_for(Player::Seat(seat))[0];
                play.act(seat, &Choice::Id(action), None, &bots, None, &mut ignore)
                    .unwrap();
                copy.act(seat, &Choice::Id(action), None, &bots, None, &mut ignore)
                    .unwrap();
            }
            assert_eq!(copy.state().serialize(), play.state().serialize());
            assert_eq!(copy.version(), play.version());
        }
        assert_eq!(play.waiting(&bots), Vec::<usize>::new());

        let three = make_game_from_string("pokeros(players=3)").unwrap();
        let e = Match::resume(three.new_initial_state(), play.progress()).unwrap_err();
        assert_eq!(
            e,
            ResumeError {
                saved: 2,
                players: 3
            }
        );
        assert_eq!(
            e.to_string(),
            "a saved match of 2 seats cannot continue a game of 3"
        );
    }
}
