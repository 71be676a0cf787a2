//! The ladder's ratings from its finished games: Bradley–Terry by maximum likelihood on the
//! Elo scale with its intervals from the likelihood's curvature, and beside it a rating on
//! returns in the game's units (see the `ladder` module's documentation).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{ELO, LadderGame, Z95};
use crate::arena::{bradley_terry_strengths, invalid};
use crate::game::GameError;

/// One bot's standing on the ladder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderRating {
    /// The bot.
    pub bot: String,
    /// Bradley–Terry rating on the Elo scale, the anchor at 0.
    pub rating: f64,
    /// Its 95% interval.
    pub ci: (f64, f64),
    /// Rating on returns, in the game's units (the anchor at 0).
    pub return_rating: f64,
    /// Its 95% interval.
    pub return_ci: (f64, f64),
    /// Games played.
    pub games: usize,
    /// Games won, ties counted half.
    pub wins: f64,
    /// Games it forfeited.
    pub forfeits: usize,
}

/// Solves `a x = b` (symmetric positive definite, small) by Gaussian elimination with partial
/// pivoting; `None` when singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let k = a.len();
    for col in 0..k {
        let pivot = (col..k).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in 0..k {
            if row != col {
                let f = a[row][col] / a[col][col];
                if f != 0.0 {
                    let (pivot_a, pivot_b) = (a[col].clone(), b[col].clone());
                    for (x, p) in a[row].iter_mut().zip(&pivot_a).skip(col) {
                        *x -= f * p;
                    }
                    for (x, p) in b[row].iter_mut().zip(&pivot_b) {
                        *x -= f * p;
                    }
                }
            }
        }
    }
    Some(
        (0..k)
            .map(|i| b[i].iter().map(|x| x / a[i][i]).collect())
            .collect(),
    )
}

/// The inverse of a small symmetric positive definite matrix.
fn inverse(a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let k = a.len();
    let identity = (0..k)
        .map(|i| (0..k).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    solve(a, identity)
}

/// The ladder's ratings from its finished games, best first (ties by name), every bot that
/// has played and the anchor included; `anchor` is rated 0 (whether or not it has played).
pub fn ratings(games: &[LadderGame], anchor: &str) -> Result<Vec<LadderRating>, GameError> {
    // Every bot, the anchor first.
    let mut bots: Vec<String> = vec![anchor.to_string()];
    let mut index: HashMap<String, usize> = HashMap::from([(anchor.to_string(), 0)]);
    let mut id = |name: &str, bots: &mut Vec<String>| {
        *index.entry(name.to_string()).or_insert_with(|| {
            bots.push(name.to_string());
            bots.len() - 1
        })
    };
    // Per ordered pair: wins (ties half) and games; per set: the pair and its margins.
    let mut outcomes: Vec<(usize, usize, f64)> = Vec::new();
    let mut sets: BTreeMap<u64, (usize, usize, Vec<f64>)> = BTreeMap::new();
    let mut played = Vec::new();
    let mut won = Vec::new();
    let mut forfeited = Vec::new();
    for game in games {
        let ((a, ra), (b, rb)) = game.pair()?;
        let (i, j) = (id(a, &mut bots), id(b, &mut bots));
        for list in [&mut played, &mut forfeited] {
            list.resize(bots.len(), 0usize);
        }
        won.resize(bots.len(), 0.0f64);
        let score = if ra > rb {
            1.0
        } else if ra == rb {
            0.5
        } else {
            0.0
        };
        outcomes.push((i, j, score));
        played[i] += 1;
        played[j] += 1;
        won[i] += score;
        won[j] += 1.0 - score;
        // A bot forfeits a game once, however many of its seats were played out.
        for (bot, who) in [(a, i), (b, j)] {
            if game
                .seats
                .iter()
                .zip(&game.forfeits)
                .any(|(s, &f)| f && s == bot)
            {
                forfeited[who] += 1;
            }
        }
        let entry = sets.entry(game.set).or_insert((i, j, Vec::new()));
        let margin = (ra - rb) / 2.0;
        // A set's games all have the same two bots; the first game's order is the set's.
        if (entry.0, entry.1) == (i, j) {
            entry.2.push(margin);
        } else if (entry.0, entry.1) == (j, i) {
            entry.2.push(-margin);
        } else {
            return Err(invalid(
                "ladder set",
                game.set,
                "games of one set between the same two bots",
            ));
        }
    }
    let k = bots.len();
    for list in [&mut played, &mut forfeited] {
        list.resize(k, 0);
    }
    won.resize(k, 0.0);

    // The prior: one drawn game, and one set of margin 0, against the anchor for every bot.
    let prior: Vec<(usize, usize, f64)> = (1..k).map(|i| (i, 0, 0.5)).collect();
    let all: Vec<(usize, usize, f64)> = outcomes.iter().chain(&prior).copied().collect();

    // Bradley–Terry (the arena's MM iteration), strengths relative to the anchor's.
    let mut wins = vec![0.0f64; k];
    let mut count = vec![vec![0.0f64; k]; k];
    for &(i, j, s) in &all {
        wins[i] += s;
        wins[j] += 1.0 - s;
        count[i][j] += 1.0;
        count[j][i] += 1.0;
    }
    let strength = bradley_terry_strengths(&wins, &count, 0);
    // The observed information in log-strength, the anchor's row and column left out.
    let information: Vec<Vec<f64>> = (1..k)
        .map(|i| {
            (1..k)
                .map(|j| {
                    if i == j {
                        (0..k)
                            .filter(|&m| m != i)
                            .map(|m| {
                                let p = strength[i] / (strength[i] + strength[m]);
                                count[i][m] * p * (1.0 - p)
                            })
                            .sum()
                    } else {
                        let p = strength[i] / (strength[i] + strength[j]);
                        -count[i][j] * p * (1.0 - p)
                    }
                })
                .collect()
        })
        .collect();
    let covariance = inverse(information).unwrap_or_default();

    // Returns: least squares over the sets' mean margins and the prior's sets.
    let mut laplacian = vec![vec![0.0f64; k]; k];
    let mut rhs = vec![0.0f64; k];
    let mut fits: Vec<(usize, usize, f64)> = sets
        .values()
        .map(|(i, j, margins)| (*i, *j, margins.iter().sum::<f64>() / margins.len() as f64))
        .collect();
    let observed = fits.len();
    fits.extend((1..k).map(|i| (i, 0, 0.0)));
    for &(i, j, m) in &fits {
        laplacian[i][i] += 1.0;
        laplacian[j][j] += 1.0;
        laplacian[i][j] -= 1.0;
        laplacian[j][i] -= 1.0;
        rhs[i] += m;
        rhs[j] -= m;
    }
    let reduced: Vec<Vec<f64>> = (1..k).map(|i| laplacian[i][1..].to_vec()).collect();
    let reduced_inverse = inverse(reduced).unwrap_or_default();
    let returns: Vec<f64> = (0..k)
        .map(|i| match i {
            0 => 0.0,
            _ => (1..k).map(|j| reduced_inverse[i - 1][j - 1] * rhs[j]).sum(),
        })
        .collect();
    let residuals: f64 = fits
        .iter()
        .map(|&(i, j, m)| (m - (returns[i] - returns[j])).powi(2))
        .sum();
    let freedom = observed.saturating_sub(k.saturating_sub(1)).max(1);
    let variance = residuals / freedom as f64;

    let mut out: Vec<LadderRating> = (0..k)
        .map(|i| {
            let rating = ELO * strength[i].ln();
            let (half, return_half) = if i == 0 || covariance.is_empty() {
                (0.0, 0.0)
            } else {
                (
                    Z95 * ELO * covariance[i - 1][i - 1].max(0.0).sqrt(),
                    Z95 * (variance * reduced_inverse[i - 1][i - 1]).max(0.0).sqrt(),
                )
            };
            LadderRating {
                bot: bots[i].clone(),
                rating,
                ci: (rating - half, rating + half),
                return_rating: returns[i],
                return_ci: (returns[i] - return_half, returns[i] + return_half),
                games: played[i],
                wins: won[i],
                forfeits: forfeited[i],
            }
        })
        .collect();
    out.sort_by(|x, y| y.rating.total_cmp(&x.rating).then(x.bot.cmp(&y.bot)));
    Ok(out)
}
