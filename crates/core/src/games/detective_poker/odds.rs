//! Each board's chance of holding the best and the weakest hand of the current betting round,
//! given the cards one seat sees: the odds block of `observation=odds` (not a rule: the
//! observation only).
//!
//! Every board has exactly one card the seat does not see (its own shown card; each other
//! player's private card), so the n unseen cards are n distinct cards drawn uniformly from the
//! cards the seat has not seen (bets are not read: they are the rest of the observation). The
//! chances are exact, not sampled: for board s and each candidate c for its unseen card, the
//! number of ways to give the other boards distinct unseen cards, none of them c, that leave
//! every other board at or below (best) or at or above (weakest) board s is counted by
//! inclusion–exclusion over the partitions of the other boards (the Möbius function of the
//! partition lattice: a partition with blocks B weighs Π (−1)^(|B|−1) (|B|−1)!, times Π of
//! the number of cards that satisfy every board of a block at once).

use std::sync::OnceLock;

use super::rules::MAX_SEATS;
use super::state::{DetectivePokerState, Event};
use crate::poker::eval::HandValue;

/// Chances per board (seat order), best and weakest; entries past the seats are 0.
pub type Odds = ([f64; MAX_SEATS], [f64; MAX_SEATS]);

/// The odds of the betting round `seat` is in, from the cards it sees; `None` where no bet is
/// due (a card is being dealt, or the game is over), as a round's hands are then incomplete.
pub fn odds(state: &DetectivePokerState, seat: usize) -> Option<Odds> {
    let Some(Event::Bet { street, .. }) = state.next_event() else {
        return None;
    };
    let n = state.config().players;
    let seen = state.cards();
    let (hand, unseen) = seen.seen_by(seat, n);
    // values[s][i]: board s's hand of this round with unseen[i] as its unseen card.
    let values: Vec<Vec<HandValue>> = (0..n)
        .map(|s| {
            unseen
                .iter()
                .map(|&c| {
                    let mut filled = hand;
                    if s == seat {
                        filled.shown[s] = Some(c);
                    } else {
                        filled.private[s] = Some(c);
                    }
                    filled.value(s, street)
                })
                .collect()
        })
        .collect();
    Some(exact_odds(&values))
}

/// The odds from the table of each board's value per unseen card (`values[s][i]`: board s
/// with card i; every board draws a distinct card, uniformly).
///
/// For board s with card i (value x), the cards that keep every board of a block B of the
/// other boards at or below x are those whose highest value over B is at most x: one binary
/// search in the sorted highest values of B (likewise the lowest values for the weakest hand),
/// less card i itself.
fn exact_odds(values: &[Vec<HandValue>]) -> Odds {
    let n = values.len();
    let u = values[0].len();
    let m = n - 1;
    let partitions = &partitions()[m];
    // Ways to deal the other boards distinct cards out of the u - 1 left.
    let ways: f64 = (0..m).map(|k| (u - 1 - k) as f64).product();
    let (mut best, mut worst) = ([0.0; MAX_SEATS], [0.0; MAX_SEATS]);
    let blocks = 1usize << m;
    // Per block of other boards (bit k: the k-th other board), per card: the highest and the
    // lowest value over the block, and both sorted.
    let empty: Vec<HandValue> = Vec::new();
    let (mut highest, mut lowest) = (vec![empty.clone(); blocks], vec![empty.clone(); blocks]);
    let (mut high_sorted, mut low_sorted) = (vec![empty.clone(); blocks], vec![empty; blocks]);
    for s in 0..n {
        let others: Vec<&[HandValue]> = (0..n)
            .filter(|&t| t != s)
            .map(|t| values[t].as_slice())
            .collect();
        for block in 1..blocks {
            let (low_bit, rest) = (block.trailing_zeros() as usize, block & (block - 1));
            let (high, low): (Vec<HandValue>, Vec<HandValue>) = if rest == 0 {
                (others[low_bit].to_vec(), others[low_bit].to_vec())
            } else {
                (0..u)
                    .map(|j| {
                        let v = others[low_bit][j];
                        (highest[rest][j].max(v), lowest[rest][j].min(v))
                    })
                    .unzip()
            };
            high_sorted[block] = high.clone();
            high_sorted[block].sort_unstable();
            low_sorted[block] = low.clone();
            low_sorted[block].sort_unstable();
            highest[block] = high;
            lowest[block] = low;
        }
        let (mut b, mut w) = (0i64, 0i64);
        let (mut below, mut above) = ([0i64; 1 << (MAX_SEATS - 1)], [0i64; 1 << (MAX_SEATS - 1)]);
        for (i, &x) in values[s].iter().enumerate() {
            for block in 1..blocks {
                below[block] = high_sorted[block].partition_point(|&v| v <= x) as i64
                    - (highest[block][i] <= x) as i64;
                above[block] = (u - low_sorted[block].partition_point(|&v| v < x)) as i64
                    - (lowest[block][i] >= x) as i64;
            }
            b += injective_count(&below, partitions);
            w += injective_count(&above, partitions);
        }
        best[s] = b as f64 / (u as f64 * ways);
        worst[s] = w as f64 / (u as f64 * ways);
    }
    (best, worst)
}

/// From `at_least[block]` (the cards that satisfy every board of `block` at once), the number
/// of ways to give each board its own distinct card satisfying it.
fn injective_count(at_least: &[i64], partitions: &[Partition]) -> i64 {
    partitions
        .iter()
        .map(|p| p.weight * p.blocks.iter().map(|&b| at_least[b]).product::<i64>())
        .sum()
}

/// A partition of the boards `0..m`: its blocks as bit masks and its Möbius weight.
struct Partition {
    blocks: Vec<usize>,
    weight: i64,
}

/// The partitions of `0..m` for every m up to `MAX_SEATS - 1` (52 at most).
fn partitions() -> &'static [Vec<Partition>] {
    static TABLE: OnceLock<Vec<Vec<Partition>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        (0..MAX_SEATS)
            .map(|m| {
                let mut out = Vec::new();
                extend(&mut Vec::new(), 0, m, &mut out);
                out
            })
            .collect()
    })
}

/// Every partition of `0..m` that puts the elements before `next` in `blocks`.
fn extend(blocks: &mut Vec<usize>, next: usize, m: usize, out: &mut Vec<Partition>) {
    if next == m {
        let weight = blocks
            .iter()
            .map(|b| {
                let size = b.count_ones() as i64;
                let factorial: i64 = (1..size).product();
                if size % 2 == 0 { -factorial } else { factorial }
            })
            .product();
        out.push(Partition {
            blocks: blocks.clone(),
            weight,
        });
        return;
    }
    for k in 0..blocks.len() {
        blocks[k] |= 1 << next;
        extend(blocks, next + 1, m, out);
        blocks[k] &= !(1 << next);
    }
    blocks.push(1 << next);
    extend(blocks, next + 1, m, out);
    blocks.pop();
}

/// Calls `visit` with every deal of distinct cards `0..u` to `n` boards (tests' brute force).
#[cfg(test)]
pub(super) fn each_deal(n: usize, u: usize, visit: &mut dyn FnMut(&[usize])) {
    fn walk(k: usize, pick: &mut [usize], u: usize, visit: &mut dyn FnMut(&[usize])) {
        if k == pick.len() {
            return visit(pick);
        }
        for c in 0..u {
            if !pick[..k].contains(&c) {
                pick[k] = c;
                walk(k + 1, pick, u, visit);
            }
        }
    }
    walk(0, &mut vec![0; n], u, visit);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over every injective deal of the table's cards.
    fn brute(values: &[Vec<HandValue>]) -> Odds {
        let n = values.len();
        let u = values[0].len();
        let (mut best, mut worst, mut deals) = ([0.0; MAX_SEATS], [0.0; MAX_SEATS], 0.0);
        each_deal(n, u, &mut |p| {
            let v: Vec<HandValue> = p.iter().enumerate().map(|(s, &c)| values[s][c]).collect();
            let (hi, lo) = (*v.iter().max().unwrap(), *v.iter().min().unwrap());
            for s in 0..n {
                best[s] += (v[s] == hi) as u8 as f64;
                worst[s] += (v[s] == lo) as u8 as f64;
            }
            deals += 1.0;
        });
        for s in 0..n {
            best[s] /= deals;
            worst[s] /= deals;
        }
        (best, worst)
    }

    #[test]
    fn partitions_are_bell_numbers_and_weights_invert_the_lattice() {
        let counts: Vec<usize> = partitions().iter().map(Vec::len).collect();
        assert_eq!(counts, [1, 1, 2, 5, 15, 52]);
        // With every card satisfying every board, the count is the falling factorial u (u-1)...
        for m in 0..MAX_SEATS {
            let counts = vec![9i64; 1 << (MAX_SEATS - 1)];
            let expected: i64 = (0..m as i64).map(|k| 9 - k).product();
            assert_eq!(injective_count(&counts, &partitions()[m]), expected, "m={m}");
        }
    }

    #[test]
    fn exact_odds_match_brute_force_with_ties() {
        // Small tables with many ties, for 2 to 5 boards.
        let mut rng = crate::rng::GameRng::new(7);
        for n in 2..=5 {
            for _ in 0..4 {
                let u = 7;
                let values: Vec<Vec<HandValue>> = (0..n)
                    .map(|_| (0..u).map(|_| HandValue(rng.below(4) as u32)).collect())
                    .collect();
                let (exact, brute) = (exact_odds(&values), brute(&values));
                for s in 0..n {
                    assert!((exact.0[s] - brute.0[s]).abs() < 1e-12, "{n} best {s}");
                    assert!((exact.1[s] - brute.1[s]).abs() < 1e-12, "{n} worst {s}");
                }
            }
        }
    }
}
