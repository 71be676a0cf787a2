//! AFL++ harness: `checkraise_fuzz::grpc_requests::run` on each input.

fn main() {
    afl::fuzz!(|data: &[u8]| checkraise_fuzz::grpc_requests::run(data));
}
