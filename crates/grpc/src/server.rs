//! Assembles the services into one tonic server: Catalog, Matches, Envs, dm_env_rpc's
//! Environment, health and reflection,
//! with logging, message-size limits, idle expiry and graceful shutdown.

use std::future::Future;
use std::io::IsTerminal;
use std::time::Duration;

use tokio::net::TcpListener;
use tonic::Status;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tower::util::MapResponseLayer;

use crate::catalog::CatalogService;
use crate::config::Config;
use crate::dm_env::{DmEnvService, WorldStore};
use crate::dm_env_pb::dm_env_rpc::v1::environment_server::EnvironmentServer;
use crate::envs::{EnvStore, EnvsService};
use crate::matches::{MatchStore, MatchesService};
use crate::{dm_env_pb, pb};

/// Sets up logging as the config says (once per process; later calls are no-ops).
pub fn init_logging(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_new(&config.log_level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stdout().is_terminal());
    let _ = if config.log_json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// Binds the configured address and serves until SIGINT or SIGTERM.
pub async fn run(config: Config) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let listener = TcpListener::bind(config.address).await?;
    serve(config, listener, shutdown_signal()).await
}

/// Serves on a bound listener until `shutdown` completes, then drains in-flight calls.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let address = listener.local_addr()?;
    let store = MatchStore::new(config.max_matches);
    let env_store = EnvStore::new(config.max_envs, config.max_message_size);
    let worlds = WorldStore::new(config.max_matches, config.max_bot_ms);

    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<pb::catalog_server::CatalogServer<CatalogService>>()
        .await;
    health_reporter
        .set_serving::<pb::matches_server::MatchesServer<MatchesService>>()
        .await;
    health_reporter
        .set_serving::<pb::envs_server::EnvsServer<EnvsService>>()
        .await;
    health_reporter
        .set_serving::<EnvironmentServer<DmEnvService>>()
        .await;

    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(dm_env_pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(dm_env_pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;

    let limit = config.max_message_size;
    let catalog = pb::catalog_server::CatalogServer::new(CatalogService)
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);
    let matches = pb::matches_server::MatchesServer::new(MatchesService::new(
        store.clone(),
        config.max_bot_ms,
    ))
    .max_decoding_message_size(limit)
    .max_encoding_message_size(limit);

    let envs = pb::envs_server::EnvsServer::new(EnvsService::new(env_store.clone()))
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);

    let dm_env = EnvironmentServer::new(DmEnvService::new(worlds.clone()))
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);

    let watched = store.clone();
    let worlds_closing = worlds.clone();
    let expiry = tokio::spawn(expire_idle(
        store,
        env_store,
        worlds,
        config.idle_expiry(),
        config.finished_expiry(),
    ));

    // Without TCP_NODELAY, small replies wait on delayed ACKs (about 40 ms a round trip).
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    tracing::info!(%address, "checkraise-server listening");
    let result = Server::builder()
        .layer(MapResponseLayer::new(oversized_is_resource_exhausted))
        .trace_fn(|request| tracing::info_span!("grpc", path = %request.uri().path()))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(catalog)
        .add_service(matches)
        .add_service(envs)
        .add_service(dm_env)
        .serve_with_incoming_shutdown(incoming, async move {
            shutdown.await;
            worlds_closing.close_all_connections();
            // Bots may hold a match's lock while they think: wait for it off the workers.
            let _ = tokio::task::spawn_blocking(move || {
                watched.close_all_watchers(&Status::unavailable("the server is shutting down"));
            })
            .await;
        })
        .await;
    expiry.abort();
    tracing::info!("checkraise-server stopped");
    Ok(result?)
}

/// tonic reports a message over the size limit as OUT_OF_RANGE; gRPC's convention, and this
/// server's contract, is RESOURCE_EXHAUSTED. The service itself never returns OUT_OF_RANGE, so
/// only tonic's codec errors are rewritten.
fn oversized_is_resource_exhausted<B>(mut response: http::Response<B>) -> http::Response<B> {
    let headers = response.headers_mut();
    let out_of_range = headers
        .get("grpc-status")
        .is_some_and(|code| code.as_bytes() == b"11");
    let too_large = headers.get("grpc-message").is_some_and(|message| {
        let message = message.as_bytes();
        [&b"too large"[..], &b"too%20large"[..]]
            .iter()
            .any(|needle| message.windows(needle.len()).any(|w| w == *needle))
    });
    if out_of_range && too_large {
        headers.insert("grpc-status", http::HeaderValue::from_static("8"));
    }
    response
}

/// Removes idle matches, env batches and dm_env_rpc worlds periodically.
async fn expire_idle(
    store: MatchStore,
    env_store: EnvStore,
    worlds: WorldStore,
    idle: Duration,
    finished: Duration,
) {
    let period =
        (finished.min(idle) / 4).clamp(Duration::from_millis(100), Duration::from_secs(30));
    // Each store's sweep, then a log line for what it removed (if anything) with how many are
    // left: `sweep => field = count, message`.
    macro_rules! sweep {
        ($($expire:expr => $left:ident = $count:expr, $message:literal;)*) => {$(
            let expired = $expire;
            if expired > 0 {
                tracing::info!(expired, $left = $count, $message);
            }
        )*};
    }
    let mut ticker = tokio::time::interval(period);
    loop {
        ticker.tick().await;
        sweep! {
            store.expire_idle(idle, finished)
                => live = store.len(), "idle matches removed";
            env_store.expire_idle(idle)
                => live_envs = env_store.live_envs(), "idle env batches removed";
            worlds.expire_idle(idle)
                => worlds = worlds.len(), "idle dm_env_rpc worlds removed";
        }
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT received; shutting down"),
        () = terminate => tracing::info!("SIGTERM received; shutting down"),
    }
}
