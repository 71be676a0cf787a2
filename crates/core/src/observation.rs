//! Where the games' observation writers put their entries (`ObservationSink`: a dense row, a
//! compact row, or a list of entries), and the information-state tensor's history rows
//! (`EventLayout`).

use crate::vocabulary::{Player, PlayerAction};

/// Where a game's observation writer puts its entries: a row it cleared first
/// (`DenseSink`) or an `ObservationEntries`, so one writer serves both
/// `State::observation_tensor` and `State::observation_entries`.
pub trait ObservationSink {
    /// Sets entry `index` to `value` (a writer sets each entry at most once).
    fn set(&mut self, index: usize, value: f32);
    /// Sets to 1 the entries `64 × word + b` for every bit `b` of `bits` (a 64-entry plane,
    /// such as a chess bitboard, at an offset that is a multiple of 64).
    #[inline]
    fn set_word(&mut self, word: usize, bits: u64) {
        for b in crate::rng::set_bits(&[bits]) {
            self.set(word * 64 + b, 1.0);
        }
    }
}

/// Writes into a row that the caller cleared.
pub struct DenseSink<'a>(pub &'a mut [f32]);

impl ObservationSink for DenseSink<'_> {
    #[inline(always)]
    fn set(&mut self, index: usize, value: f32) {
        self.0[index] = value;
    }
}

/// Writes an observation as a compact row (`crate::compact::CompactLayout`) into a row of
/// zeros: an entry whose slot is a scalar's goes to that scalar's float32, any other non-zero
/// entry sets its bit.
pub struct CompactSink<'a> {
    /// Per observation entry: its scalar's number, or `u32::MAX` for a binary entry.
    slots: &'a [u32],
    bit_bytes: usize,
    out: &'a mut [u8],
}

impl<'a> CompactSink<'a> {
    /// A sink writing into `out` (zeros, `bit_bytes` + 4 × scalars long), with each entry's
    /// scalar slot (`u32::MAX`: binary).
    pub fn new(slots: &'a [u32], bit_bytes: usize, out: &'a mut [u8]) -> Self {
        CompactSink {
            slots,
            bit_bytes,
            out,
        }
    }
}

impl ObservationSink for CompactSink<'_> {
    #[inline(always)]
    fn set(&mut self, index: usize, value: f32) {
        let slot = self.slots[index];
        if slot != u32::MAX {
            let at = self.bit_bytes + 4 * slot as usize;
            self.out[at..at + 4].copy_from_slice(&value.to_le_bytes());
        } else if value != 0.0 {
            self.out[index / 8] |= 1 << (index % 8);
        }
    }

    /// A 64-entry plane of binary entries (chess bitboards): no scalar lies in it.
    #[inline(always)]
    fn set_word(&mut self, word: usize, bits: u64) {
        debug_assert!((0..64).all(|b| bits >> b & 1 == 0 || self.slots[word * 64 + b] == u32::MAX));
        for (o, b) in self.out[8 * word..8 * word + 8]
            .iter_mut()
            .zip(bits.to_le_bytes())
        {
            *o |= b;
        }
    }
}

/// An observation as its non-zero entries: the entries equal to 1 as a bit set, the others
/// as (index, value) pairs.
#[derive(Clone, Debug, Default)]
pub struct ObservationEntries {
    ones: Vec<u64>,
    others: Vec<(u32, f32)>,
}

impl ObservationEntries {
    /// No entries, for observations of `size` floats.
    pub fn new(size: usize) -> Self {
        ObservationEntries {
            ones: vec![0; size.div_ceil(64)],
            others: Vec::new(),
        }
    }

    /// The entries equal to 1 as a bit set (entry `64 × w + b` is bit `b` of word `w`), and
    /// the other non-zero entries as (index, value) pairs.
    pub fn parts(&self) -> (&[u64], &[(u32, f32)]) {
        (&self.ones, &self.others)
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.ones.fill(0);
        self.others.clear();
    }

    /// Writes these entries into `out` (all zeros on entry).
    pub fn write_into(&self, out: &mut [f32]) {
        for i in crate::rng::set_bits(&self.ones) {
            out[i] = 1.0;
        }
        for &(i, v) in &self.others {
            out[i as usize] = v;
        }
    }

    /// Turns `out`, which holds `previous` (written by `write_into` or by this function),
    /// into a row holding `self`, touching only the entries that differ.
    pub fn update(&self, previous: &ObservationEntries, out: &mut [f32]) {
        for &(i, _) in &previous.others {
            out[i as usize] = 0.0;
        }
        for (w, (&new, &old)) in self.ones.iter().zip(&previous.ones).enumerate() {
            for b in crate::rng::set_bits(&[new ^ old]) {
                out[w * 64 + b] = (new >> b & 1) as f32;
            }
        }
        for &(i, v) in &self.others {
            out[i as usize] = v;
        }
    }
}

impl ObservationSink for ObservationEntries {
    #[inline(always)]
    fn set(&mut self, index: usize, value: f32) {
        if value == 1.0 {
            self.ones[index / 64] |= 1 << (index % 64);
        } else if value != 0.0 {
            self.others.push((index as u32, value));
        }
    }

    #[inline(always)]
    fn set_word(&mut self, word: usize, bits: u64) {
        self.ones[word] |= bits;
    }
}

/// The history part of an information-state tensor: one row per history entry, up to
/// `max_len` rows (the game's `max_game_length`), each
/// `[present, actor one-hot over the seats then chance, code bits, least significant first]`,
/// and rows past the end of the history all zeros. A code is a game's number for what one
/// seat saw of an entry: an action or card seen whole, one seen in part (a card placed face
/// down: where, not which), or only that it happened. Who acted is public in every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLayout {
    /// Seats of the game.
    pub seats: usize,
    /// Bits per code.
    pub bits: usize,
    /// Rows: the most history entries a game can have.
    pub max_len: usize,
}

impl EventLayout {
    /// A layout for `seats` seats, codes below `codes`, and `max_len` entries.
    pub fn new(seats: usize, codes: usize, max_len: usize) -> Self {
        let bits = (usize::BITS - codes.saturating_sub(1).leading_zeros()).max(1) as usize;
        EventLayout {
            seats,
            bits,
            max_len,
        }
    }

    /// Floats per row.
    pub fn width(&self) -> usize {
        1 + self.seats + 1 + self.bits
    }

    /// Floats in all rows.
    pub fn size(&self) -> usize {
        self.max_len * self.width()
    }

    /// Writes the rows for `history` with one code per entry into `out` (length `size`).
    pub fn write(&self, out: &mut [f32], history: &[PlayerAction], codes: &[u32]) {
        debug_assert_eq!(history.len(), codes.len());
        debug_assert!(
            history.len() <= self.max_len,
            "history past max_game_length"
        );
        debug_assert_eq!(out.len(), self.size());
        out.fill(0.0);
        let width = self.width();
        for ((row, entry), &code) in out.chunks_exact_mut(width).zip(history).zip(codes) {
            debug_assert!(
                self.bits >= 32 || code >> self.bits == 0,
                "code past the layout"
            );
            row[0] = 1.0;
            let actor = match entry.player {
                Player::Seat(seat) => seat,
                _ => self.seats,
            };
            row[1 + actor] = 1.0;
            for (bit, x) in row[2 + self.seats..].iter_mut().enumerate() {
                *x = (code >> bit & 1) as f32;
            }
        }
    }
}
