//! AFL++ harness: `checkraise_fuzz::game_params::run` on each input.

fn main() {
    afl::fuzz!(|data: &[u8]| checkraise_fuzz::game_params::run(data));
}
