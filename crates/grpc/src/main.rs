//! `checkraise-server`: parses flags and serves the checkraise gRPC services.

use clap::Parser;

use checkraise_grpc::config::Config;
use checkraise_grpc::server;

/// Building views and replies is allocation-heavy (JSON views, action strings, tensors):
/// glibc's malloc took about 40% of the server's CPU in an Act round trip, mimalloc much less.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let config = Config::parse();
    server::init_logging(&config);
    server::run(config).await
}
