//! The arena: ranks any set of bots on one game by playing them against each other.
//!
//! Every pair of bots plays `deals` deals. A deal is one chance seed, played once with every
//! seating of the pair (`seatings`): for two seats, A–B and B–A; for more, the two bots
//! alternate around the table in every distinct rotation (A B A and its rotations and swaps
//! at three seats, A B A B and B A B A at four). The same chance seed in every seating
//! (duplicate deals) cancels most of the luck of the cards, and deal `d` uses the same seed
//! for every pair. Games run on all cores (rayon); the
//! results do not depend on the number of threads.
//!
//! Every bot acts on a state resampled from its own seat's information (`resample_from_
//! infostate`), so no bot can read cards its seat may not see, whatever its code does.
//!
//! Results, per ordered pair (A, B): A's mean return per seat with a 95% confidence interval
//! (the deal is the unit: each deal's mean over its seatings is one sample), and A's win rate
//! (a game is a win when A's seats' mean return beats B's, a tie counts half) with its 95%
//! Wilson interval. Overall: Bradley–Terry ratings by maximum likelihood on the Elo scale
//! (400 × log10 of strength), anchored at `random` = 0 (or at the first bot when `random`
//! does not play), with 95% bootstrap intervals (deals resampled within each pair).

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use crate::bots::Bot;
use crate::driver::Driver;
use crate::env::GameRng;
use crate::game::{Game, GameError};
use crate::registry::make_game_from_string;
use crate::table::Match;
use crate::table::SeatRules;

/// What to play.
#[derive(Clone, Debug)]
pub struct ArenaConfig {
    /// A game string, such as `holdem_chess(players=6)`.
    pub game: String,
    /// Two or more bot specs (distinct), such as `ismcts(iterations=1000)`.
    pub bots: Vec<String>,
    /// Deals per pair of bots (each played with every seating).
    pub deals: usize,
    /// The seed of every deal, bot generator and bootstrap.
    pub seed: u64,
    /// Bootstrap resamples for the rating intervals.
    pub bootstrap: usize,
}

impl ArenaConfig {
    /// A config with 200 bootstrap resamples.
    pub fn new(game: &str, bots: &[&str], deals: usize, seed: u64) -> Self {
        ArenaConfig {
            game: game.to_string(),
            bots: bots.iter().map(|b| b.to_string()).collect(),
            deals,
            seed,
            bootstrap: 200,
        }
    }
}

/// One ordered pair's results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PairResult {
    /// The bot measured (A).
    pub bot: String,
    /// Its opponent (B).
    pub opponent: String,
    /// Games played (deals × seatings).
    pub games: usize,
    /// A's mean return per seat.
    pub mean: f64,
    /// 95% confidence interval of `mean` (normal, over deals).
    pub mean_ci: (f64, f64),
    /// A's wins (ties half) over games.
    pub win_rate: f64,
    /// 95% Wilson interval of `win_rate`.
    pub win_ci: (f64, f64),
}

/// One bot's rating.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Rating {
    /// The bot spec.
    pub bot: String,
    /// Bradley–Terry rating on the Elo scale, the anchor at 0.
    pub rating: f64,
    /// 95% bootstrap interval.
    pub ci: (f64, f64),
    /// Least-squares rating on mean return (in the game's return units, the anchor at 0):
    /// the ratings whose differences best fit every pair's mean margin per seat. Where wins
    /// and returns disagree (a poker bot that folds often but wins big pots) this is the one
    /// that measures chips.
    pub return_rating: f64,
    /// 95% bootstrap interval of `return_rating`.
    pub return_ci: (f64, f64),
}

/// An arena run's results.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ArenaResult {
    /// The game string.
    pub game: String,
    /// The bot specs, as given.
    pub bots: Vec<String>,
    /// Deals per pair.
    pub deals: usize,
    /// Seatings per deal.
    pub seatings: usize,
    /// The seed.
    pub seed: u64,
    /// The bot rated 0.
    pub anchor: String,
    /// Every ordered pair, in bot order.
    pub pairs: Vec<PairResult>,
    /// Every bot, best first.
    pub ratings: Vec<Rating>,
}

/// A setting of the arena (or the ladder built on it) outside what is allowed.
pub(crate) fn invalid(name: &str, value: impl ToString, allowed: &str) -> GameError {
    GameError::InvalidSetting {
        name: name.to_string(),
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

/// SplitMix64 of a tuple: independent seeds for deals, seats and resamples.
fn mix(parts: &[u64]) -> u64 {
    let mut h = 0x243F_6A88_85A3_08D3u64;
    for &p in parts {
        h = h.wrapping_add(p).wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        h = z ^ (z >> 31);
    }
    h
}

/// The seatings of a pair at `n` seats: for each game, which of the two bots (0 = A, 1 = B)
/// sits at each seat. The bots alternate around the table (A B A B …), in every distinct
/// rotation of that pattern and of its swap (B A B A …): two seatings for an even `n`, `2n`
/// for an odd one. Each bot holds every seat equally often, and half the seats of each game
/// (one more or less when `n` is odd).
///
/// ```
/// use checkraise_core::arena::seatings;
///
/// assert_eq!(seatings(2), vec![vec![0, 1], vec![1, 0]]);
/// assert_eq!(seatings(3).len(), 6, "every rotation of A B A and of B A B");
/// ```
pub fn seatings(n: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for first in 0..2 {
        for shift in 0..n {
            let seating: Vec<usize> = (0..n).map(|s| ((s + shift) % n + first) % 2).collect();
            if !out.contains(&seating) {
                out.push(seating);
            }
        }
    }
    out
}

/// Plays one game as a `Match` every seat of which a bot plays: `players[s]` acts for seat
/// `s`, each on a state resampled from its own seat's information; returns each seat's
/// return.
///
/// ```
/// use checkraise_core::arena::play_game;
/// use checkraise_core::bots::{HeuristicBot, RandomBot};
///
/// let game = checkraise_core::make_game_from_string("pokeros").unwrap();
/// let returns = play_game(game.as_ref(), &[&HeuristicBot, &RandomBot], 1, 2);
/// assert_eq!(returns.iter().sum::<f64>(), 0.0);
/// assert_eq!(play_game(game.as_ref(), &[&HeuristicBot, &RandomBot], 1, 2), returns);
/// ```
pub fn play_game(
    game: &dyn Game,
    players: &[&dyn Bot],
    chance_seed: u64,
    bot_seed: u64,
) -> Vec<f64> {
    let rngs = (0..players.len())
        .map(|s| GameRng::new(mix(&[bot_seed, s as u64])))
        .collect();
    let driver = Driver::new(GameRng::new(chance_seed), rngs);
    let bots: Vec<Option<&dyn Bot>> = players.iter().map(|&b| Some(b)).collect();
    let mut play = Match::new(game.new_initial_state(), driver);
    play.start(&bots, None, &mut |_, _, _| {})
        .expect("bots play legal actions");
    play.state().returns()
}

/// One deal of one pair: every seating's returns.
struct Deal {
    /// Per seating: (A's mean return per seat, B's).
    means: Vec<(f64, f64)>,
}

/// Most deals per pair.
pub const MAX_DEALS: usize = 1_000_000;

/// Runs the arena; `progress` is called with (deals done, deals in all) after each deal.
///
/// ```
/// use checkraise_core::arena::{ArenaConfig, run};
///
/// let config = ArenaConfig::new("pokeros", &["heuristic", "random"], 4, 1);
/// let result = run(&config, None).unwrap();
/// assert_eq!(result.pairs.len(), 2, "each bot measured against the other");
/// assert_eq!(result.pairs[0].games, 4 * result.seatings);
/// assert_eq!(result.ratings.len(), 2);
/// ```
pub fn run(
    config: &ArenaConfig,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Result<ArenaResult, GameError> {
    let never = AtomicBool::new(false);
    Ok(run_until(config, progress, &never)?.expect("never stopped"))
}

/// `run`, which stops early when `stop` is set: the deals not yet started are skipped, the
/// ones being played finish, and the result is `None`.
pub fn run_until(
    config: &ArenaConfig,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
    stop: &AtomicBool,
) -> Result<Option<ArenaResult>, GameError> {
    let game: Arc<dyn Game> = make_game_from_string(&config.game)?;
    if config.bots.len() < 2 {
        return Err(invalid(
            "bots",
            config.bots.join(" "),
            "two or more bot specs",
        ));
    }
    let mut bots: Vec<Box<dyn Bot>> = Vec::new();
    let mut canonical: Vec<String> = Vec::new();
    for spec in &config.bots {
        let parsed = SeatRules::LOCAL.bot_spec(spec)?;
        let text = parsed.to_string();
        if let Some(i) = canonical.iter().position(|c| *c == text) {
            return Err(invalid(
                "bots",
                spec,
                &format!(
                    "distinct bots ('{}' is the same bot as '{spec}')",
                    config.bots[i]
                ),
            ));
        }
        bots.push(parsed.build(game.as_ref())?);
        canonical.push(text);
    }
    if !(1..=MAX_DEALS).contains(&config.deals) {
        return Err(invalid(
            "deals",
            config.deals,
            "an integer from 1 to 1000000",
        ));
    }
    let n = game.num_players();
    let seats = seatings(n);
    let k = bots.len();
    let pairs: Vec<(usize, usize)> = (0..k)
        .flat_map(|a| (a + 1..k).map(move |b| (a, b)))
        .collect();
    let total = pairs.len() * config.deals;
    let done = AtomicUsize::new(0);
    let jobs: Vec<(usize, usize)> = (0..pairs.len())
        .flat_map(|p| (0..config.deals).map(move |d| (p, d)))
        .collect();
    let deals: Vec<Option<Deal>> = jobs
        .par_iter()
        .map(|&(p, d)| {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            let (a, b) = pairs[p];
            let chance_seed = mix(&[config.seed, d as u64]);
            let means = seats
                .iter()
                .enumerate()
                .map(|(si, seating)| {
                    let players: Vec<&dyn Bot> = seating
                        .iter()
                        .map(|&w| {
                            if w == 0 {
                                bots[a].as_ref()
                            } else {
                                bots[b].as_ref()
                            }
                        })
                        .collect();
                    let bot_seed = mix(&[config.seed, d as u64, a as u64, b as u64, si as u64]);
                    let returns = play_game(game.as_ref(), &players, chance_seed, bot_seed);
                    let mean_of = |who: usize| {
                        let (sum, count) = seating
                            .iter()
                            .zip(&returns)
                            .filter(|(w, _)| **w == who)
                            .fold((0.0, 0), |(s, c), (_, r)| (s + r, c + 1));
                        sum / count as f64
                    };
                    (mean_of(0), mean_of(1))
                })
                .collect();
            let now = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(report) = progress {
                report(now, total);
            }
            Some(Deal { means })
        })
        .collect();
    let Some(deals) = deals.into_iter().collect::<Option<Vec<Deal>>>() else {
        return Ok(None);
    };
    let per_pair: Vec<&[Deal]> = deals.chunks(config.deals).collect();
    let mut results = Vec::new();
    for (p, &(a, b)) in pairs.iter().enumerate() {
        for (me, them, flip) in [(a, b, false), (b, a, true)] {
            let samples: Vec<f64> = per_pair[p]
                .iter()
                .map(|d| {
                    d.means
                        .iter()
                        .map(|&(x, y)| if flip { y } else { x })
                        .sum::<f64>()
                        / d.means.len() as f64
                })
                .collect();
            let (wins, games) = wins_of(per_pair[p].iter(), flip);
            results.push(PairResult {
                bot: config.bots[me].clone(),
                opponent: config.bots[them].clone(),
                games,
                mean: mean(&samples),
                mean_ci: mean_ci(&samples),
                win_rate: wins / games as f64,
                win_ci: wilson(wins, games),
            });
        }
    }
    results.sort_by_key(|r| {
        (
            config.bots.iter().position(|b| *b == r.bot),
            config.bots.iter().position(|b| *b == r.opponent),
        )
    });
    let anchor = config
        .bots
        .iter()
        .position(|b| b.trim() == "random")
        .unwrap_or(0);
    let point = bradley_terry(k, &pairs, &per_pair, None, anchor);
    let point_returns = return_ratings(k, &pairs, &per_pair, None, anchor);
    let mut boot_rng = GameRng::new(mix(&[config.seed, 0xB007]));
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); k];
    let mut return_samples: Vec<Vec<f64>> = vec![Vec::new(); k];
    for _ in 0..config.bootstrap {
        let picks: Vec<Vec<usize>> = per_pair
            .iter()
            .map(|deals| {
                (0..deals.len())
                    .map(|_| boot_rng.below(deals.len() as u64) as usize)
                    .collect()
            })
            .collect();
        let r = bradley_terry(k, &pairs, &per_pair, Some(&picks), anchor);
        for (s, v) in samples.iter_mut().zip(r) {
            s.push(v);
        }
        let r = return_ratings(k, &pairs, &per_pair, Some(&picks), anchor);
        for (s, v) in return_samples.iter_mut().zip(r) {
            s.push(v);
        }
    }
    let mut ratings: Vec<Rating> = (0..k)
        .map(|i| Rating {
            bot: config.bots[i].clone(),
            rating: point[i],
            ci: percentile_ci(&mut samples[i]).unwrap_or((point[i], point[i])),
            return_rating: point_returns[i],
            return_ci: percentile_ci(&mut return_samples[i])
                .unwrap_or((point_returns[i], point_returns[i])),
        })
        .collect();
    ratings.sort_by(|x, y| y.rating.total_cmp(&x.rating));
    Ok(Some(ArenaResult {
        game: config.game.clone(),
        bots: config.bots.clone(),
        deals: config.deals,
        seatings: seats.len(),
        seed: config.seed,
        anchor: config.bots[anchor].clone(),
        pairs: results,
        ratings,
    }))
}

/// A's wins (ties half) and games over `deals` (B's when `flip`).
fn wins_of<'a>(deals: impl Iterator<Item = &'a Deal>, flip: bool) -> (f64, usize) {
    let mut wins = 0.0;
    let mut games = 0;
    for d in deals {
        for &(x, y) in &d.means {
            let (me, them) = if flip { (y, x) } else { (x, y) };
            wins += if me > them {
                1.0
            } else if me == them {
                0.5
            } else {
                0.0
            };
            games += 1;
        }
    }
    (wins, games)
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// The normal 95% interval of a mean (the point itself for one sample).
fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let m = mean(xs);
    if xs.len() < 2 {
        return (m, m);
    }
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64;
    let half = 1.959_964 * (var / xs.len() as f64).sqrt();
    (m - half, m + half)
}

/// The 95% Wilson score interval of `wins` out of `n`.
pub fn wilson(wins: f64, n: usize) -> (f64, f64) {
    let n = n as f64;
    let z = 1.959_964f64;
    let p = wins / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    // Rounding can put an end a hair past the point at 0 or 1 wins.
    ((centre - half).clamp(0.0, p), (centre + half).clamp(p, 1.0))
}

/// The 2.5% and 97.5% percentiles.
fn percentile_ci(xs: &mut [f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| xs[((xs.len() - 1) as f64 * q).round() as usize];
    Some((at(0.025), at(0.975)))
}

/// Least-squares ratings on returns: `r` minimising the sum over pairs of
/// `(margin(A, B) − (r_A − r_B))²`, where a deal's margin is the mean over its seatings of
/// half the difference between A's and B's mean return per seat (A's return, in a two-seat
/// zero-sum game), and `r_anchor` = 0. Every pair plays the same number of deals, so the
/// solution is each bot's mean margin against all bots (itself at 0), shifted.
fn return_ratings(
    k: usize,
    pairs: &[(usize, usize)],
    deals: &[&[Deal]],
    picks: Option<&[Vec<usize>]>,
    anchor: usize,
) -> Vec<f64> {
    let mut sums = vec![0.0f64; k];
    for (p, &(a, b)) in pairs.iter().enumerate() {
        let margin = |d: &Deal| {
            d.means.iter().map(|&(x, y)| (x - y) / 2.0).sum::<f64>() / d.means.len() as f64
        };
        let margins: Vec<f64> = match picks {
            Some(picks) => picks[p].iter().map(|&i| margin(&deals[p][i])).collect(),
            None => deals[p].iter().map(margin).collect(),
        };
        let m = mean(&margins);
        sums[a] += m;
        sums[b] -= m;
    }
    let base = sums[anchor] / k as f64;
    sums.iter().map(|s| s / k as f64 - base).collect()
}

/// Bradley–Terry ratings (Elo scale, `anchor` at 0) by maximum likelihood with Hunter's MM
/// iteration, from the pairs' games (the deals of `picks` when bootstrapping). One virtual
/// tie per pair keeps ratings finite when a bot wins every game.
fn bradley_terry(
    k: usize,
    pairs: &[(usize, usize)],
    deals: &[&[Deal]],
    picks: Option<&[Vec<usize>]>,
    anchor: usize,
) -> Vec<f64> {
    let mut wins = vec![vec![0.0f64; k]; k];
    let mut games = vec![vec![0.0f64; k]; k];
    for (p, &(a, b)) in pairs.iter().enumerate() {
        let chosen: Vec<&Deal> = match picks {
            Some(picks) => picks[p].iter().map(|&i| &deals[p][i]).collect(),
            None => deals[p].iter().collect(),
        };
        let (w, g) = wins_of(chosen.iter().copied(), false);
        wins[a][b] += w + 0.5;
        wins[b][a] += g as f64 - w + 0.5;
        games[a][b] += g as f64 + 1.0;
        games[b][a] += g as f64 + 1.0;
    }
    let won: Vec<f64> = wins.iter().map(|row| row.iter().sum()).collect();
    bradley_terry_strengths(&won, &games, anchor)
        .iter()
        .map(|s| 400.0 * s.log10())
        .collect()
}

/// Bradley–Terry strengths by maximum likelihood (Hunter's MM iteration), the anchor's at 1:
/// `wins[i]` is bot `i`'s wins (ties half) and `games[i][j]` the games `i` and `j` played.
pub(crate) fn bradley_terry_strengths(wins: &[f64], games: &[Vec<f64>], anchor: usize) -> Vec<f64> {
    let k = wins.len();
    let mut strength = vec![1.0f64; k];
    for _ in 0..10_000 {
        let mut next = vec![0.0; k];
        for i in 0..k {
            let denom: f64 = (0..k)
                .filter(|&j| j != i && games[i][j] > 0.0)
                .map(|j| games[i][j] / (strength[i] + strength[j]))
                .sum();
            next[i] = if denom > 0.0 {
                wins[i] / denom
            } else {
                strength[i]
            };
        }
        let norm = next[anchor];
        let change = next
            .iter()
            .zip(&strength)
            .map(|(x, y)| (x / norm - y).abs())
            .fold(0.0, f64::max);
        strength = next.iter().map(|x| x / norm).collect();
        if change < 1e-10 {
            break;
        }
    }
    strength
}

impl ArenaResult {
    /// The pairs and ratings as markdown tables.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}: {} deals per pair × {} seatings, seed {}\n",
            self.game, self.deals, self.seatings, self.seed
        );
        let _ = writeln!(
            s,
            "| bot | rating (Elo) | 95% interval | return rating | 95% interval |\n\
             |---|---:|---|---:|---|"
        );
        for r in &self.ratings {
            let _ = writeln!(
                s,
                "| `{}` | {:.0} | {:.0} to {:.0} | {:+.3} | {:+.3} to {:+.3} |",
                r.bot, r.rating, r.ci.0, r.ci.1, r.return_rating, r.return_ci.0, r.return_ci.1
            );
        }
        let _ = writeln!(
            s,
            "\n| bot | opponent | games | mean return | 95% interval | win rate | 95% interval |\n\
             |---|---|---:|---:|---|---:|---|"
        );
        for p in &self.pairs {
            let _ = writeln!(
                s,
                "| `{}` | `{}` | {} | {:+.3} | {:+.3} to {:+.3} | {:.3} | {:.3} to {:.3} |",
                p.bot,
                p.opponent,
                p.games,
                p.mean,
                p.mean_ci.0,
                p.mean_ci.1,
                p.win_rate,
                p.win_ci.0,
                p.win_ci.1
            );
        }
        s
    }

    /// Pairs and ratings as one CSV table (`table` is `pair` or `rating`).
    pub fn to_csv(&self) -> String {
        let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let mut s = String::from(
            "table,game,bot,opponent,games,mean,mean_lo,mean_hi,win_rate,win_lo,win_hi,\
             rating,rating_lo,rating_hi,return_rating,return_lo,return_hi\n",
        );
        for p in &self.pairs {
            let _ = writeln!(
                s,
                "pair,{},{},{},{},{},{},{},{},{},{},,,,,,",
                q(&self.game),
                q(&p.bot),
                q(&p.opponent),
                p.games,
                p.mean,
                p.mean_ci.0,
                p.mean_ci.1,
                p.win_rate,
                p.win_ci.0,
                p.win_ci.1
            );
        }
        for r in &self.ratings {
            let _ = writeln!(
                s,
                "rating,{},{},,,,,,,,,{},{},{},{},{},{}",
                q(&self.game),
                q(&r.bot),
                r.rating,
                r.ci.0,
                r.ci.1,
                r.return_rating,
                r.return_ci.0,
                r.return_ci.1
            );
        }
        s
    }

    /// The whole result as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seatings_put_each_bot_at_every_seat() {
        assert_eq!(seatings(2), vec![vec![0, 1], vec![1, 0]]);
        let s = seatings(3);
        assert_eq!(s.len(), 6);
        assert_eq!(s[0], vec![0, 1, 0]);
        assert_eq!(s[5], vec![1, 1, 0]);
        assert_eq!(seatings(4), vec![vec![0, 1, 0, 1], vec![1, 0, 1, 0]]);
        for n in 2..=10 {
            let s = seatings(n);
            for seat in 0..n {
                let a = s.iter().filter(|x| x[seat] == 0).count();
                assert_eq!(2 * a, s.len(), "each bot holds seat {seat} equally often");
            }
        }
    }

    #[test]
    fn wilson_matches_known_values() {
        let (lo, hi) = wilson(8.0, 10);
        assert!((lo - 0.4902).abs() < 1e-3 && (hi - 0.9433).abs() < 1e-3);
        let (lo, hi) = wilson(0.0, 10);
        assert!(lo.abs() < 1e-12 && (hi - 0.2775).abs() < 1e-3);
    }

    #[test]
    fn bradley_terry_recovers_an_even_and_a_lopsided_pair() {
        let even = [Deal {
            means: vec![(1.0, -1.0), (-1.0, 1.0)],
        }];
        let r = bradley_terry(2, &[(0, 1)], &[&even], None, 0);
        assert!(r[0].abs() < 1e-9 && r[1].abs() < 1e-6);
        let lopsided: Vec<Deal> = (0..10)
            .map(|_| Deal {
                means: vec![(1.0, -1.0), (1.0, -1.0)],
            })
            .collect();
        let r = bradley_terry(2, &[(0, 1)], &[&lopsided], None, 1);
        // 20.5 wins to 0.5: strength ratio 41.
        assert!((r[0] - 400.0 * 41f64.log10()).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn return_ratings_are_mean_margins() {
        // A beats B by 2 per deal, B beats C by 1, A beats C by 3: ratings 0, -2, -3 from A.
        let deal = |m: f64| Deal {
            means: vec![(m, -m), (m, -m)],
        };
        let ab = [deal(2.0)];
        let bc = [deal(1.0)];
        let ac = [deal(3.0)];
        let r = return_ratings(3, &[(0, 1), (0, 2), (1, 2)], &[&ab, &ac, &bc], None, 0);
        assert!((r[0]).abs() < 1e-12 && (r[1] + 2.0).abs() < 1e-12 && (r[2] + 3.0).abs() < 1e-12);
    }

    #[test]
    fn bad_configs_are_refused() {
        let e = run(&ArenaConfig::new("pokeros", &["random"], 1, 0), None).unwrap_err();
        assert!(e.to_string().contains("two or more bot specs"), "{e}");
        let e = run(
            &ArenaConfig::new("pokeros", &["random", "random"], 1, 0),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("distinct"), "{e}");
        let e = run(
            &ArenaConfig::new("pokeros", &["random", "heuristic"], 0, 0),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("'deals'"), "{e}");
        let e = run(
            &ArenaConfig::new("pokeros", &["random", "smart"], 1, 0),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown bot 'smart'"), "{e}");
        assert!(
            run(
                &ArenaConfig::new("nope", &["random", "heuristic"], 1, 0),
                None
            )
            .is_err()
        );
    }
}
