//! `checkraise-server`: parses flags and serves the checkraise gRPC services.

use clap::Parser;

use checkraise_grpc::config::Config;
use checkraise_grpc::server;

/// Building views and replies is allocation-heavy (JSON views, action strings, tensors):
/// glibc's malloc took about 40% of the server's CPU in an Act round trip, mimalloc much less.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let config = Config::parse();
    server::init_logging(&config);
    // Bots think on the blocking pool (see `matches`). tokio's default lets it grow to 512
    // threads, and each thread that allocates keeps mimalloc pages of its own: 200 clients
    // creating matches at once grew the server from 22 MB to 366 MB. `--bot-threads` bounds
    // the pool, so requests beyond it queue for a thread instead.
    let served = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(config.bot_threads())
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}").into())
        .and_then(|runtime| runtime.block_on(server::run(config)));
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // Plain text, not Debug's quoting: this is what a person starting the server reads.
            tracing::error!(%error, "checkraise-server cannot run");
            eprintln!("checkraise-server: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
