//! AFL++ harness: `checkraise_fuzz::bot_specs::run` on each input.

fn main() {
    afl::fuzz!(|data: &[u8]| checkraise_fuzz::bot_specs::run(data));
}
