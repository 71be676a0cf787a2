//! The portable seeded generator and the bit-set helpers every layer above uses.
//!
//! Determinism: (game, parameters, seed, actions) give the same trajectory on every platform.
//! The generator is Xoshiro256++ seeded through SplitMix64 (`rand_xoshiro`), and every draw
//! goes through `GameRng::below`, our own unbiased bounded integer, so an upgrade of `rand`
//! cannot change games.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::vocabulary::Action;

/// The portable seeded generator every game and env uses.
/// Its state serializes (`serde`), so a saved env or bot continues its stream exactly.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GameRng(Xoshiro256PlusPlus);

impl GameRng {
    /// A generator from a 64-bit seed.
    pub fn new(seed: u64) -> Self {
        GameRng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform integer in `0..n` (unbiased, Lemire's method with rejection). `n` > 0.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let mut m = (self.next_u64() as u128) * (n as u128);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = (self.next_u64() as u128) * (n as u128);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform float in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// A uniformly chosen element of a non-empty slice.
    #[inline]
    pub fn choose<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    /// The `k`-th set bit (0-based) of `mask`, for a uniformly chosen k: a uniform member of a
    /// non-empty bit set.
    #[inline]
    pub fn choose_bit(&mut self, mask: u64) -> u32 {
        let k = self.below(mask.count_ones() as u64) as u32;
        nth_set_bit(mask, k)
    }

    /// An outcome drawn by probability from (outcome, probability) pairs summing to 1.
    pub fn choose_weighted(&mut self, outcomes: &[(Action, f64)]) -> Action {
        let first_p = outcomes[0].1;
        if outcomes.iter().all(|o| o.1 == first_p) {
            return self.choose(outcomes).0;
        }
        let mut u = self.unit_f64();
        for &(a, p) in outcomes {
            if u < p {
                return a;
            }
            u -= p;
        }
        outcomes[outcomes.len() - 1].0
    }
}

/// A uniformly random set entry of a legal-action mask (`None` when none is set). Reads the
/// mask eight entries at a time, so a large mask costs about a hundred word operations.
pub fn choose_in_mask(mask: &[bool], rng: &mut GameRng) -> Option<usize> {
    // SAFETY: `bool` is one byte holding 0 or 1, so a `[bool]` is a valid `[u8]` of the same
    // length.
    let bytes: &[u8] = unsafe { std::slice::from_raw_parts(mask.as_ptr().cast(), mask.len()) };
    let (words, tail) = bytes.as_chunks::<8>();
    let word = |w: &[u8; 8]| u64::from_le_bytes(*w);
    // Each byte is 0 or 1: multiplying by 0x0101.. sums the eight bytes into the top byte
    // (baseline x86-64 has no popcount instruction).
    let set_in = |bits: u64| (bits.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    let count = words.iter().map(|w| set_in(word(w))).sum::<usize>()
        + tail.iter().map(|&b| b as usize).sum::<usize>();
    if count == 0 {
        return None;
    }
    let mut k = rng.below(count as u64) as usize;
    for (i, w) in words.iter().enumerate() {
        let bits = word(w);
        let here = set_in(bits);
        if k < here {
            return Some(i * 8 + nth_set_bit(bits, k as u32) as usize / 8);
        }
        k -= here;
    }
    let offset = words.len() * 8;
    tail.iter()
        .enumerate()
        .filter(|b| *b.1 != 0)
        .nth(k)
        .map(|b| offset + b.0)
}

/// The indices of the set bits of `words`, in increasing order (bit `b` of word `w` is index
/// `64 × w + b`): walks a bit set by its words, skipping empty ones.
#[inline]
pub fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(w, &word)| {
        let mut bits = word;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                w * 64 + b
            })
        })
    })
}

/// The index of the `k`-th set bit of `mask` (0-based). `mask` must have more than k bits.
#[inline]
pub fn nth_set_bit(mut mask: u64, k: u32) -> u32 {
    for _ in 0..k {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}
