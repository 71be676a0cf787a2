//! View requests: the first line is a game string, the second `seed steps`, and each further
//! byte a viewer (bytes `0xf0..` stand for large seats, up to `usize::MAX`). Each viewer, in
//! range or not, asks for a view (`State::view`), and a viewer in range also asks for its
//! observation, information state (text and tensors) and a resample from it.

use checkraise_core::GameRng;

use crate::{game_from, seed_and_steps, seeded_state};

/// Feeds one input.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(3, '\n');
    let Some(game) = lines.next().and_then(game_from) else {
        return;
    };
    let (seed, steps) = seed_and_steps(lines.next().unwrap_or(""));
    let (state, mut rng) = seeded_state(game.as_ref(), seed, steps);
    let viewers = lines.next().unwrap_or("").as_bytes().to_vec();
    let n = state.num_players();
    let _ = state.view(None);
    for &b in viewers.iter().take(32) {
        let viewer = match b {
            0xff => usize::MAX,
            0xf0..=0xfe => 1usize << (b - 0xf0 + 8),
            b => usize::from(b % 16),
        };
        let _ = state.view(Some(viewer));
        if viewer >= n {
            continue;
        }
        let _ = state.observation_string(viewer);
        let _ = state.information_state_string(viewer);
        let mut obs = vec![0f32; game.observation_size()];
        state.observation_tensor(viewer, &mut obs);
        let mut info = vec![0f32; game.information_state_tensor_size()];
        state.information_state_tensor(viewer, &mut info);
        let other = state.resample_from_infostate(viewer, &mut rng);
        assert_eq!(other.view(Some(viewer)), state.view(Some(viewer)));
        let mut seeded = GameRng::new(seed);
        let _ = state.resample_from_infostate(viewer, &mut seeded);
    }
}
