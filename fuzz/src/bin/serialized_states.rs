//! AFL++ harness: `checkraise_fuzz::serialized_states::run` on each input.

fn main() {
    afl::fuzz!(|data: &[u8]| checkraise_fuzz::serialized_states::run(data));
}
