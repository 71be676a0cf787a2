//! The compact encoding of observations and legal masks: what batched envs write when asked
//! for `ObservationEncoding::Compact` (Python `observation_encoding="compact"`, gRPC
//! `OBSERVATION_ENCODING_COMPACT`), about 20–30 times fewer bytes than float32 rows.
//!
//! Every game says which entries of its observation are not binary (`Game::observation_scalars`:
//! points, chip counts, fractions); every other entry is 0 or 1. A compact row of a game whose
//! observation has `size` entries, `k` of them scalars, is `row_bytes = 8 × ⌈size / 64⌉ + 4 × k`
//! bytes:
//!
//! - bytes `0 .. 8 × ⌈size / 64⌉`: entry `i` is bit `i % 8` of byte `i / 8`, least significant
//!   bit first (numpy's `packbits(..., bitorder="little")`); bits past `size` and the bits of
//!   the scalar entries are 0;
//! - then the `k` scalar entries, in index order, each as its float32, little-endian.
//!
//! Unpacking (`CompactLayout::unpack`) gives exactly the float32 row: the bits as 0.0 or 1.0,
//! then each scalar entry's float32 put back at its index. Legal masks are packed the same way,
//! `⌈num_distinct_actions / 8⌉` bytes per row (`pack_mask`, `unpack_mask`).

use std::ops::Range;

use crate::game::{CompactSink, Game, ObservationEntries};

/// How batched envs write observations and legal masks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ObservationEncoding {
    /// Observations as float32 rows, masks as one `bool` per action (the default).
    #[default]
    Float32,
    /// Observations as compact rows (`CompactLayout`), masks as packed bits (`pack_mask`).
    Compact,
}

/// Where each entry of a game's observation goes in a compact row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactLayout {
    size: usize,
    words: usize,
    /// The non-binary entries, ascending.
    scalars: Vec<u32>,
    /// Per 64 entries: the binary ones.
    binary: Vec<u64>,
    /// Per entry: its scalar's number, or `u32::MAX` for a binary entry.
    slots: Vec<u32>,
}

impl CompactLayout {
    /// The layout of observations of `size` entries whose non-binary entries are `scalars`.
    pub fn new(size: usize, scalars: &[Range<usize>]) -> Self {
        let words = size.div_ceil(64);
        let mut binary = vec![0u64; words];
        for i in 0..size {
            binary[i / 64] |= 1 << (i % 64);
        }
        let mut indices: Vec<u32> = Vec::new();
        for range in scalars {
            assert!(
                range.end <= size,
                "scalar range {range:?} past the observation"
            );
            for i in range.clone() {
                indices.push(i as u32);
                binary[i / 64] &= !(1 << (i % 64));
            }
        }
        indices.sort_unstable();
        indices.dedup();
        let mut slots = vec![u32::MAX; size];
        for (j, &i) in indices.iter().enumerate() {
            slots[i as usize] = j as u32;
        }
        CompactLayout {
            size,
            words,
            scalars: indices,
            binary,
            slots,
        }
    }

    /// The layout of `game`'s observations.
    pub fn for_game(game: &dyn Game) -> Self {
        Self::new(game.observation_size(), &game.observation_scalars())
    }

    /// Entries of the float32 observation.
    pub fn observation_size(&self) -> usize {
        self.size
    }

    /// Bytes of the bit part of a row (`8 × ⌈size / 64⌉`).
    pub fn bit_bytes(&self) -> usize {
        8 * self.words
    }

    /// The indices of the non-binary entries, ascending (their float32s follow the bits).
    pub fn scalar_indices(&self) -> &[u32] {
        &self.scalars
    }

    /// Bytes per compact row.
    pub fn row_bytes(&self) -> usize {
        self.bit_bytes() + 4 * self.scalars.len()
    }

    /// A sink writing a compact row into `out` (`row_bytes`, zeroed here first), for
    /// `State::observation_compact`.
    pub fn sink<'a>(&'a self, out: &'a mut [u8]) -> CompactSink<'a> {
        debug_assert_eq!(out.len(), self.row_bytes());
        out.fill(0);
        CompactSink::new(&self.slots, self.bit_bytes(), out)
    }

    /// Writes seat `seat`'s compact row of `state` into `out` (`row_bytes`): through the
    /// game's compact writer, or packed from its float32 row (written into `scratch`) for a
    /// state without one.
    pub fn write(
        &self,
        state: &dyn crate::game::State,
        seat: usize,
        scratch: &mut Vec<f32>,
        out: &mut [u8],
    ) {
        if !state.observation_compact(seat, &mut self.sink(out)) {
            scratch.resize(self.size, 0.0);
            state.observation_tensor(seat, scratch);
            self.pack(scratch, out);
        }
    }

    /// Packs a float32 observation row (`size` entries) into `out` (`row_bytes`).
    pub fn pack(&self, obs: &[f32], out: &mut [u8]) {
        debug_assert_eq!(obs.len(), self.size);
        debug_assert_eq!(out.len(), self.row_bytes());
        let (bits, scalars) = out.split_at_mut(self.bit_bytes());
        for ((chunk, out), &binary) in obs
            .chunks(64)
            .zip(bits.chunks_exact_mut(8))
            .zip(&self.binary)
        {
            let mut word = 0u64;
            for (j, &v) in chunk.iter().enumerate() {
                word |= ((v != 0.0) as u64) << j;
            }
            out.copy_from_slice(&(word & binary).to_le_bytes());
        }
        for (out, &i) in scalars.chunks_exact_mut(4).zip(&self.scalars) {
            out.copy_from_slice(&obs[i as usize].to_le_bytes());
        }
    }

    /// Packs an observation given as entries (`State::observation_entries`) into `out`.
    pub fn pack_entries(&self, entries: &ObservationEntries, out: &mut [u8]) {
        debug_assert_eq!(out.len(), self.row_bytes());
        let (ones, others) = entries.parts();
        let (bits, scalars) = out.split_at_mut(self.bit_bytes());
        for ((out, &word), &binary) in bits.chunks_exact_mut(8).zip(ones).zip(&self.binary) {
            out.copy_from_slice(&(word & binary).to_le_bytes());
        }
        // Scalars equal to 1 are among the ones, the others among the (index, value) pairs.
        for (out, &i) in scalars.chunks_exact_mut(4).zip(&self.scalars) {
            let one = ones[i as usize / 64] >> (i % 64) & 1;
            out.copy_from_slice(&(one as f32).to_le_bytes());
        }
        for &(i, v) in others {
            match self.scalars.binary_search(&i) {
                Ok(j) => scalars[4 * j..4 * j + 4].copy_from_slice(&v.to_le_bytes()),
                Err(_) => debug_assert!(false, "entry {i} = {v} is declared binary"),
            }
        }
    }

    /// Writes the float32 row (`size` entries) that the compact `row` encodes.
    pub fn unpack(&self, row: &[u8], out: &mut [f32]) {
        debug_assert_eq!(row.len(), self.row_bytes());
        debug_assert_eq!(out.len(), self.size);
        let (bits, scalars) = row.split_at(self.bit_bytes());
        for (i, x) in out.iter_mut().enumerate() {
            *x = (bits[i / 8] >> (i % 8) & 1) as f32;
        }
        for (bytes, &i) in scalars.chunks_exact(4).zip(&self.scalars) {
            out[i as usize] = f32::from_le_bytes(bytes.try_into().expect("4 bytes"));
        }
    }
}

/// Bytes of a packed legal mask of `num_actions` actions.
pub fn packed_mask_bytes(num_actions: usize) -> usize {
    num_actions.div_ceil(8)
}

/// Packs `mask` into `out` (`packed_mask_bytes(mask.len())`): action `a` is bit `a % 8` of
/// byte `a / 8`, least significant bit first.
pub fn pack_mask(mask: &[bool], out: &mut [u8]) {
    out.fill(0);
    for (a, _) in mask.iter().enumerate().filter(|(_, m)| **m) {
        out[a / 8] |= 1 << (a % 8);
    }
}

/// Unpacks a packed mask into `out` (one `bool` per action).
pub fn unpack_mask(packed: &[u8], out: &mut [bool]) {
    for (a, m) in out.iter_mut().enumerate() {
        *m = packed[a / 8] >> (a % 8) & 1 == 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{ObservationSink, Player};
    use crate::registry::{entries, make_game};
    use crate::rng::GameRng;

    /// The games' default variants and a few others with more seats or other boards.
    fn variants() -> Vec<std::sync::Arc<dyn Game>> {
        let mut games: Vec<_> = entries()
            .iter()
            .map(|e| make_game::<&str, &str>(e.info.name, []).expect("defaults build"))
            .collect();
        for (name, params) in [
            ("pokeros", &[("players", "4"), ("board_size", "5")][..]),
            ("holdem_chess", &[("players", "4")][..]),
            ("detective_poker", &[("players", "5")][..]),
        ] {
            games.push(make_game(name, params.iter().copied()).expect("the variant builds"));
        }
        games
    }

    /// Random play of every game: at every state, every seat's compact row (packed from the
    /// float32 row and from the entries) unpacks to the float32 row bit for bit, every entry
    /// not declared a scalar is 0 or 1, and packed masks unpack to the masks.
    #[test]
    fn compact_rows_unpack_to_the_float32_observation() {
        for game in variants() {
            let layout = CompactLayout::for_game(game.as_ref());
            let size = game.observation_size();
            let na = game.num_distinct_actions();
            let mut rng = GameRng::new(7);
            let (mut obs, mut back) = (vec![0f32; size], vec![0f32; size]);
            let mut row = vec![0u8; layout.row_bytes()];
            let mut from_entries = vec![0u8; layout.row_bytes()];
            let mut entries = ObservationEntries::new(size);
            let (mut mask, mut mask_back) = (vec![false; na], vec![false; na]);
            let mut packed_mask = vec![0u8; packed_mask_bytes(na)];
            let mut checked = 0;
            for _ in 0..20 {
                let mut state = game.new_initial_state();
                loop {
                    for seat in 0..game.num_players() {
                        state.observation_tensor(seat, &mut obs);
                        for (i, &v) in obs.iter().enumerate() {
                            if layout.scalars.binary_search(&(i as u32)).is_err() {
                                assert!(
                                    v == 0.0 || v == 1.0,
                                    "{}: entry {i} = {v} is declared binary",
                                    game.info().name
                                );
                            }
                        }
                        row.fill(0xAA);
                        layout.pack(&obs, &mut row);
                        back.fill(f32::NAN);
                        layout.unpack(&row, &mut back);
                        let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(&back), bits(&obs), "{}", game.info().name);
                        from_entries.fill(0x33);
                        assert!(
                            state.observation_compact(seat, &mut layout.sink(&mut from_entries))
                        );
                        assert_eq!(from_entries, row, "{}", game.info().name);
                        entries.clear();
                        if state.observation_entries(seat, &mut entries) {
                            from_entries.fill(0x55);
                            layout.pack_entries(&entries, &mut from_entries);
                            assert_eq!(from_entries, row, "{}", game.info().name);
                        }
                        state.action_mask(Player::Seat(seat), &mut mask);
                        pack_mask(&mask, &mut packed_mask);
                        unpack_mask(&packed_mask, &mut mask_back);
                        assert_eq!(mask_back, mask);
                        checked += 1;
                    }
                    if state.is_terminal() {
                        break;
                    }
                    if state.is_simultaneous_node() {
                        let joint: Vec<_> = (0..game.num_players())
                            .map(|s| rng.choose(&state.legal_actions_for(Player::Seat(s))))
                            .collect();
                        state.apply_actions(&joint).expect("legal");
                    } else if state.is_chance_node() {
                        let a = state.sample_chance_outcome(&mut rng);
                        state.apply_action(a).expect("legal");
                    } else {
                        let a = rng.choose(&state.legal_actions());
                        state.apply_action(a).expect("legal");
                    }
                }
            }
            assert!(checked > 100);
        }
    }

    #[test]
    fn set_word_and_scalars_round_trip() {
        let layout = CompactLayout::new(130, &[(3..5), (129..130)]);
        assert_eq!(layout.row_bytes(), 24 + 12);
        let mut entries = ObservationEntries::new(130);
        entries.set_word(1, 0xF0);
        entries.set(3, 0.25);
        entries.set(4, 1.0);
        entries.set(129, -2.5);
        let mut dense = vec![0f32; 130];
        entries.write_into(&mut dense);
        let (mut a, mut b) = (vec![0u8; 36], vec![0u8; 36]);
        layout.pack(&dense, &mut a);
        layout.pack_entries(&entries, &mut b);
        assert_eq!(a, b);
        let mut back = vec![0f32; 130];
        layout.unpack(&a, &mut back);
        assert_eq!(back, dense);
    }
}
