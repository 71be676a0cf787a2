//! AFL++ harness: `checkraise_fuzz::action_strings::run` on each input.

fn main() {
    afl::fuzz!(|data: &[u8]| checkraise_fuzz::action_strings::run(data));
}
