//! AFL++ harness: `checkraise_fuzz::view_requests::run` on each input.

fn main() {
    afl::fuzz!(|data: &[u8]| checkraise_fuzz::view_requests::run(data));
}
