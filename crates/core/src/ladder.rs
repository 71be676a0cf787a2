//! The ladder's rules, apart from any server: which two bots play next, the games a pairing
//! plays (a duplicate set: one deal, every seating), and the ratings its finished games give.
//!
//! A ladder rates bots that come and go while it runs, so unlike the arena it never has
//! every pair's results at once, nor the same number of games for each pair:
//!
//! - **Pairing** (`next_pair`): among the bots with a free slot (fewer sets in play than the
//!   limit), the one with the fewest games plays; its opponent is the free bot it has played
//!   the fewest sets with, then the closest in rating, then the first by name. A new bot is
//!   therefore placed at once, and every pair is played about as often as every other.
//! - **Duplicate sets** (`duplicate_set`): a pairing plays one deal (one chance seed) in every
//!   seating of the two bots around the table (`arena::seatings`: A–B and B–A at two seats),
//!   so the luck of the cards cancels within the set.
//! - **Ratings** (`ratings`): Bradley–Terry by maximum likelihood on the Elo scale (400 ×
//!   log10 of strength), with the anchor (`random` on a server) at 0, from every game's
//!   outcome: a win for the bot whose seats' mean return is higher, a tie counted half. A
//!   prior of one drawn game against the anchor for every other bot keeps every rating finite
//!   (a bot that has won every game, a bot that has not met the anchor's opponents yet), and
//!   shrinks a bot with few games towards the anchor. The 95% intervals come from the
//!   likelihood's curvature (the inverse of the observed information). Beside it, a rating
//!   on returns in the game's units: the least-squares fit of every set's mean margin (half
//!   the difference of the two bots' mean returns per seat) by the difference of two
//!   ratings, with the same prior, and its 95% interval from the fit's residuals.
//!
//! A forfeited game counts as played: the seat was played out by another bot and its return
//! is the bot's. The forfeits are counted beside the rating.
//!
//! `Ladder` keeps one game's ladder: the house bots (bot specs the engine plays, such as
//! `random` and `heuristic`), the bots registered from outside, which of them are connected,
//! the sets in play and every finished game. A server asks it for the next set to start,
//! plays the set's games, and records each one as it ends; a restarted server rebuilds it from
//! the games it stored (`Ladder::restore`).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::arena::{invalid, seatings};
use crate::bots::{BOT_KINDS, BotSpec};
use crate::game::GameError;
use crate::registry::make_game_from_string;

mod ratings;

pub use ratings::{LadderRating, ratings};

/// Elo points per natural-log unit of strength.
const ELO: f64 = 400.0 / std::f64::consts::LN_10;

/// The normal distribution's 97.5% quantile.
const Z95: f64 = 1.959_964;

/// One finished ladder game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderGame {
    /// The duplicate set it belongs to: the games of one set share their deal.
    pub set: u64,
    /// The bot at each seat: two distinct bots, each at one seat or more.
    pub seats: Vec<String>,
    /// Each seat's return.
    pub returns: Vec<f64>,
    /// The seats whose bot forfeited (ran out of time, or did not come back).
    pub forfeits: Vec<bool>,
}

/// A bot of a game and its mean return per seat.
type BotReturn<'a> = (&'a str, f64);

impl LadderGame {
    /// The game's two bots, first seat's first, and each one's mean return per seat; an error
    /// when the lengths differ or the seats do not hold exactly two bots.
    fn pair(&self) -> Result<(BotReturn<'_>, BotReturn<'_>), GameError> {
        let n = self.seats.len();
        if self.returns.len() != n || self.forfeits.len() != n {
            return Err(invalid(
                "ladder game",
                format!(
                    "{n} seats, {} returns, {} forfeits",
                    self.returns.len(),
                    self.forfeits.len()
                ),
                "a return and a forfeit flag for every seat",
            ));
        }
        let Some(a) = self.seats.first() else {
            return Err(invalid("ladder game", "no seats", "two bots or more seats"));
        };
        let Some(b) = self.seats.iter().find(|s| *s != a) else {
            return Err(invalid("ladder game", a, "two distinct bots"));
        };
        if let Some(c) = self.seats.iter().find(|s| *s != a && *s != b) {
            return Err(invalid(
                "ladder game",
                format!("{a}, {b}, {c}"),
                "exactly two distinct bots",
            ));
        }
        let mean_of = |bot: &str| {
            let mine: Vec<f64> = self
                .seats
                .iter()
                .zip(&self.returns)
                .filter(|(s, _)| *s == bot)
                .map(|(_, r)| *r)
                .collect();
            mine.iter().sum::<f64>() / mine.len() as f64
        };
        Ok(((a.as_str(), mean_of(a)), (b.as_str(), mean_of(b))))
    }
}

/// How many sets each bot, and each pair of bots, has played (or is playing).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    games: HashMap<String, usize>,
    sets: HashMap<(String, String), usize>,
}

fn pair_key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

impl Tally {
    /// The tally of finished games (each distinct set counted once per pair).
    pub fn from_games(games: &[LadderGame]) -> Result<Self, GameError> {
        let mut tally = Tally::default();
        let mut seen: BTreeMap<u64, (String, String)> = BTreeMap::new();
        for game in games {
            let ((a, _), (b, _)) = game.pair()?;
            *tally.games.entry(a.to_string()).or_default() += 1;
            *tally.games.entry(b.to_string()).or_default() += 1;
            seen.entry(game.set).or_insert_with(|| pair_key(a, b));
        }
        for pair in seen.into_values() {
            *tally.sets.entry(pair).or_default() += 1;
        }
        Ok(tally)
    }

    /// Counts a set of `games` games between `a` and `b` (one being scheduled or played).
    pub fn add_set(&mut self, a: &str, b: &str, games: usize) {
        *self.games.entry(a.to_string()).or_default() += games;
        *self.games.entry(b.to_string()).or_default() += games;
        *self.sets.entry(pair_key(a, b)).or_default() += 1;
    }

    /// Games a bot has played.
    pub fn games(&self, bot: &str) -> usize {
        self.games.get(bot).copied().unwrap_or(0)
    }

    /// Sets two bots have played together.
    pub fn sets(&self, a: &str, b: &str) -> usize {
        self.sets.get(&pair_key(a, b)).copied().unwrap_or(0)
    }
}

/// A bot the matchmaker may place: its name and how many sets it is playing now.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The bot's name.
    pub name: String,
    /// Sets in play.
    pub playing: usize,
}

/// The next pairing, or `None` when fewer than two of `candidates` have a free slot (fewer
/// than `limit` sets in play): the free bot with the fewest games, ties by name, against the
/// free bot it has played the fewest sets with, ties by the closest rating (`ratings`, 0 for
/// a bot without one), then by name.
pub fn next_pair(
    candidates: &[Candidate],
    tally: &Tally,
    ratings: &HashMap<String, f64>,
    limit: usize,
) -> Option<(String, String)> {
    next_pair_where(candidates, tally, ratings, limit, &|_, _| true)
}

/// `next_pair` among the pairs `allowed` admits: the first bot in `next_pair`'s order that
/// has an admitted opponent plays its best admitted one.
pub fn next_pair_where(
    candidates: &[Candidate],
    tally: &Tally,
    ratings: &HashMap<String, f64>,
    limit: usize,
    allowed: &dyn Fn(&str, &str) -> bool,
) -> Option<(String, String)> {
    let mut free: Vec<&Candidate> = candidates.iter().filter(|c| c.playing < limit).collect();
    free.sort_by(|x, y| x.name.cmp(&y.name));
    free.dedup_by(|x, y| x.name == y.name);
    let rating = |name: &str| ratings.get(name).copied().unwrap_or(0.0);
    // Fewest games first; a stable sort keeps the names' order among ties.
    let mut firsts = free.clone();
    firsts.sort_by_key(|c| tally.games(&c.name));
    for first in firsts {
        let second = free
            .iter()
            .filter(|c| c.name != first.name && allowed(&first.name, &c.name))
            .min_by(|x, y| {
                let sets = tally
                    .sets(&first.name, &x.name)
                    .cmp(&tally.sets(&first.name, &y.name));
                let gap = |name: &str| (rating(name) - rating(&first.name)).abs();
                sets.then(gap(&x.name).total_cmp(&gap(&y.name)))
            });
        if let Some(second) = second {
            return Some((first.name.clone(), second.name.clone()));
        }
    }
    None
}

/// One game of a duplicate set: the bot at each seat and the deal's chance seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetGame {
    /// The bot at each seat.
    pub seats: Vec<String>,
    /// The chance seed, the same for every game of the set.
    pub chance_seed: u64,
}

/// The games of a duplicate set of `a` and `b` at a table of `players` seats: every seating
/// of the pair (`arena::seatings`), all with the chance seed `chance_seed`.
pub fn duplicate_set(a: &str, b: &str, players: usize, chance_seed: u64) -> Vec<SetGame> {
    seatings(players)
        .into_iter()
        .map(|seating| SetGame {
            seats: seating
                .iter()
                .map(|&who| (if who == 0 { a } else { b }).to_string())
                .collect(),
            chance_seed,
        })
        .collect()
}

/// The shortest and longest name a bot may register.
pub const NAME_LENGTH: (usize, usize) = (3, 32);

/// A name a bot may register: 3 to 32 characters, lowercase ASCII letters, digits, `-` and
/// `_`, starting with a letter, and not starting with the name of a kind of house bot
/// (`random`, `heuristic`, `ismcts`, `policy`) or `human`, so that no registered bot passes
/// for one of the server's own.
pub fn check_bot_name(name: &str) -> Result<(), GameError> {
    let allowed = "3 to 32 characters: lowercase letters, digits, '-' and '_', starting with a \
                   letter";
    let (shortest, longest) = NAME_LENGTH;
    let well_formed = (shortest..=longest).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !well_formed {
        return Err(invalid("bot name", name, allowed));
    }
    // `cfr` and `br` are left out: their specs always carry settings in parentheses, which no
    // registered name can, and their names begin ordinary words (bravo).
    if let Some(kind) = BOT_KINDS
        .iter()
        .filter(|kind| !matches!(**kind, "cfr" | "br"))
        .chain(&["human"])
        .find(|kind| name.starts_with(**kind))
    {
        return Err(invalid(
            "bot name",
            name,
            &format!("a name that does not start with '{kind}' (the server's own bots' names)"),
        ));
    }
    Ok(())
}

/// A bot on a ladder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LadderBot {
    /// Its name: a bot spec for a house bot, the registered name for the others.
    pub name: String,
    /// One of the server's own bots (always connected).
    pub house: bool,
    /// Connected now: only connected bots are placed.
    pub connected: bool,
    /// Retired: never placed again; its games still count.
    pub retired: bool,
    /// Sets in play.
    pub playing: usize,
}

/// A set `Ladder::start_set` started: its number and its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartedSet {
    /// The set's number on this ladder.
    pub set: u64,
    /// Its games, to be played and recorded.
    pub games: Vec<SetGame>,
}

/// A set in play: its two bots and how many of its games have not been recorded yet.
#[derive(Clone, Debug)]
struct InPlay {
    bots: (String, String),
    left: usize,
}

/// SplitMix64 of a seed and a number: a set's chance seed from the ladder's seed and the set's
/// number (and, for a server that gives each game of a set its own deal, a game's seed from
/// the set's).
pub fn set_seed(seed: u64, set: u64) -> u64 {
    let mut z = seed ^ set.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One game's ladder (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Ladder {
    game: String,
    players: usize,
    anchor: String,
    limit: usize,
    seed: u64,
    bots: BTreeMap<String, LadderBot>,
    games: Vec<LadderGame>,
    tally: Tally,
    in_play: BTreeMap<u64, InPlay>,
    next_set: u64,
    house_sets: Option<usize>,
    /// The ratings pairing reads, and how many games they were computed from: computed again
    /// once the games grew by a twentieth (a rating only breaks ties between opponents, and
    /// rating every game at every set would cost the square of the games).
    pairing_ratings: (usize, HashMap<String, f64>),
}

impl Ladder {
    /// A ladder of the game `game` (a game string) with the house bots `house` (bot specs; the
    /// anchor, rated 0, is `random` when it is one of them, else the first), at most `limit`
    /// sets in play per bot, and chance seeds drawn from `seed`.
    pub fn new(game: &str, house: &[&str], limit: usize, seed: u64) -> Result<Self, GameError> {
        let made = make_game_from_string(game)?;
        if limit == 0 {
            return Err(invalid("sets per bot", limit, "at least 1"));
        }
        let Some(first) = house.first() else {
            return Err(invalid("house bots", "none", "at least one (the anchor)"));
        };
        let mut bots = BTreeMap::new();
        for spec in house {
            BotSpec::parse::<&str, &str>(spec, [])?.build(made.as_ref())?;
            let bot = LadderBot {
                name: spec.to_string(),
                house: true,
                connected: true,
                retired: false,
                playing: 0,
            };
            if bots.insert(spec.to_string(), bot).is_some() {
                return Err(invalid("house bots", spec, "distinct bot specs"));
            }
        }
        let anchor = if bots.contains_key("random") {
            "random"
        } else {
            *first
        };
        Ok(Ladder {
            game: game.to_string(),
            players: made.num_players(),
            anchor: anchor.to_string(),
            limit,
            seed,
            bots,
            games: Vec::new(),
            tally: Tally::default(),
            in_play: BTreeMap::new(),
            next_set: 1,
            house_sets: None,
            pairing_ratings: (0, HashMap::new()),
        })
    }

    /// The ladder as it stood after `games` (finished games a server stored) with the
    /// registered bots `registered` (name, retired): every set recorded counts as finished, and
    /// the next set's number follows the last one's.
    pub fn restore(
        mut self,
        registered: &[(&str, bool)],
        games: Vec<LadderGame>,
    ) -> Result<Self, GameError> {
        for &(name, retired) in registered {
            self.register(name)?;
            if retired {
                self.retire(name)?;
            }
        }
        for game in &games {
            let ((a, _), (b, _)) = game.pair()?;
            for bot in [a, b] {
                if !self.bots.contains_key(bot) {
                    return Err(invalid("ladder game", bot, "a game of this ladder's bots"));
                }
            }
        }
        self.tally = Tally::from_games(&games)?;
        self.next_set = games.iter().map(|g| g.set + 1).max().unwrap_or(1);
        self.games = games;
        Ok(self)
    }

    /// This ladder with two house bots paired at most `sets` times: enough to rate them
    /// against each other, after which they play only the registered bots (without it a
    /// ladder whose house bots are quick would play them against each other without end).
    pub fn with_house_sets(mut self, sets: usize) -> Self {
        self.house_sets = Some(sets);
        self
    }

    /// The game string.
    pub fn game(&self) -> &str {
        &self.game
    }

    /// The bot rated 0.
    pub fn anchor(&self) -> &str {
        &self.anchor
    }

    /// Every bot, by name.
    pub fn bots(&self) -> impl Iterator<Item = &LadderBot> {
        self.bots.values()
    }

    /// Every finished game, in the order recorded.
    pub fn games(&self) -> &[LadderGame] {
        &self.games
    }

    fn bot_mut(&mut self, name: &str) -> Result<&mut LadderBot, GameError> {
        self.bots
            .get_mut(name)
            .ok_or_else(|| invalid("bot", name, "a bot on this ladder"))
    }

    /// Registers a bot from outside (not connected yet); its name must be free and pass
    /// `check_bot_name`.
    pub fn register(&mut self, name: &str) -> Result<(), GameError> {
        check_bot_name(name)?;
        if self.bots.contains_key(name) {
            return Err(invalid(
                "bot name",
                name,
                "a name no bot on this ladder has",
            ));
        }
        let bot = LadderBot {
            name: name.to_string(),
            house: false,
            connected: false,
            retired: false,
            playing: 0,
        };
        self.bots.insert(name.to_string(), bot);
        Ok(())
    }

    /// Marks a registered bot connected or not; a bot that is not connected is not placed
    /// (the sets it is playing go on).
    pub fn set_connected(&mut self, name: &str, connected: bool) -> Result<(), GameError> {
        let bot = self.bot_mut(name)?;
        if bot.house {
            return Err(invalid(
                "bot",
                name,
                "a registered bot (house bots are always connected)",
            ));
        }
        if bot.retired && connected {
            return Err(invalid("bot", name, "a bot that is not retired"));
        }
        bot.connected = connected;
        Ok(())
    }

    /// Retires a registered bot: it is never placed again, and its name stays taken.
    pub fn retire(&mut self, name: &str) -> Result<(), GameError> {
        let bot = self.bot_mut(name)?;
        if bot.house {
            return Err(invalid("bot", name, "a registered bot"));
        }
        bot.retired = true;
        bot.connected = false;
        Ok(())
    }

    /// Starts the next set (`next_pair` over the connected bots that are not retired, with the
    /// current ratings), or `None` when no two of them have a free slot.
    pub fn start_set(&mut self) -> Result<Option<StartedSet>, GameError> {
        self.start_set_where(&|_, _| true)
    }

    /// `start_set` among the pairs `admits` admits (besides the ladder's own rules): how a
    /// server keeps each client's share of the games it plays at once.
    pub fn start_set_where(
        &mut self,
        admits: &dyn Fn(&str, &str) -> bool,
    ) -> Result<Option<StartedSet>, GameError> {
        let candidates: Vec<Candidate> = self
            .bots
            .values()
            .filter(|b| b.connected && !b.retired)
            .map(|b| Candidate {
                name: b.name.clone(),
                playing: b.playing,
            })
            .collect();
        let (rated, _) = self.pairing_ratings;
        if self.games.len() >= rated + (rated / 20).max(1) {
            let fresh = ratings(&self.games, &self.anchor)?
                .into_iter()
                .map(|r| (r.bot, r.rating))
                .collect();
            self.pairing_ratings = (self.games.len(), fresh);
        }
        let ratings = &self.pairing_ratings.1;
        let house = |name: &str| self.bots.get(name).is_some_and(|b| b.house);
        let allowed = |a: &str, b: &str| {
            (!(house(a) && house(b)) || self.house_sets.is_none_or(|n| self.tally.sets(a, b) < n))
                && admits(a, b)
        };
        let Some((a, b)) = next_pair_where(&candidates, &self.tally, ratings, self.limit, &allowed)
        else {
            return Ok(None);
        };
        let set = self.next_set;
        self.next_set += 1;
        let games = duplicate_set(&a, &b, self.players, set_seed(self.seed, set));
        self.tally.add_set(&a, &b, games.len());
        for name in [&a, &b] {
            self.bot_mut(name)?.playing += 1;
        }
        self.in_play.insert(
            set,
            InPlay {
                bots: (a, b),
                left: games.len(),
            },
        );
        Ok(Some(StartedSet { set, games }))
    }

    /// Records a finished game of a set in play; the set ends (and frees its bots' slots) with
    /// its last game.
    pub fn record(&mut self, game: LadderGame) -> Result<(), GameError> {
        let ((a, _), (b, _)) = game.pair()?;
        let Some(play) = self.in_play.get_mut(&game.set) else {
            return Err(invalid("ladder set", game.set, "a set in play"));
        };
        if pair_key(a, b) != pair_key(&play.bots.0, &play.bots.1) {
            return Err(invalid(
                "ladder game",
                format!("{a} and {b}"),
                &format!("the set's bots, {} and {}", play.bots.0, play.bots.1),
            ));
        }
        play.left -= 1;
        if play.left == 0 {
            let (x, y) = self.in_play.remove(&game.set).expect("in play").bots;
            for name in [&x, &y] {
                let bot = self.bot_mut(name)?;
                bot.playing = bot.playing.saturating_sub(1);
            }
        }
        self.games.push(game);
        Ok(())
    }

    /// Gives up a set in play whose remaining games will not be played (the server could not
    /// start them, or stopped): frees its bots' slots. Its games recorded so far stay; its
    /// unplayed games still count towards the pair's sets, so the pair is not favoured again.
    pub fn abandon(&mut self, set: u64) -> Result<(), GameError> {
        let Some(play) = self.in_play.remove(&set) else {
            return Err(invalid("ladder set", set, "a set in play"));
        };
        let (x, y) = play.bots;
        for name in [&x, &y] {
            let bot = self.bot_mut(name)?;
            bot.playing = bot.playing.saturating_sub(1);
        }
        Ok(())
    }

    /// The sets in play: number and bots.
    pub fn in_play(&self) -> Vec<(u64, String, String)> {
        self.in_play
            .iter()
            .map(|(set, p)| (*set, p.bots.0.clone(), p.bots.1.clone()))
            .collect()
    }

    /// The ratings of every bot that has played, and of the anchor (`ratings`).
    pub fn leaderboard(&self) -> Result<Vec<LadderRating>, GameError> {
        ratings(&self.games, &self.anchor)
    }
}

#[cfg(test)]
mod tests;
