//! `checkraise-server`: parses flags and serves the checkraise gRPC services.

use clap::Parser;

use checkraise_grpc::config::Config;
use checkraise_grpc::server;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let config = Config::parse();
    server::init_logging(&config);
    server::run(config).await
}
