//! Assembles the services into one tonic server: Catalog, Matches, Envs, Ladder, dm_env_rpc's
//! Environment, health and reflection, and the web page (gRPC-Web and its assets, unless
//! `--no-web`), with logging, message-size limits, idle expiry and graceful shutdown.

use std::future::Future;
use std::io::IsTerminal;
use std::time::Duration;

use tokio::net::TcpListener;
use tonic::service::Routes;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tower::util::MapResponseLayer;

use crate::catalog::CatalogService;
use crate::config::Config;
use crate::connections::StreamCap;
use crate::dm_env::{DmEnvService, WorldStore};
use crate::dm_env_pb::dm_env_rpc::v1::environment_server::EnvironmentServer;
use crate::envs::{EnvStore, EnvsService};
use crate::ladder::LadderService;
use crate::live_match::MatchError;
use crate::matches::{MatchStore, MatchesService};
use crate::sessions::Expiry;
use crate::store::{Database, Store, redacted};
use crate::{dm_env_pb, pb};
use tracing_subscriber::filter::Targets;

/// Sets up logging as the config says (once per process; later calls are no-ops).
pub fn init_logging(config: &Config) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = config
        .log_level
        .parse::<Targets>()
        .unwrap_or_else(|_| Targets::new().with_default(tracing::Level::INFO));
    // Every level reaches the filter, which decides (fmt's own cap is INFO).
    let builder = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(std::io::stdout().is_terminal());
    let _ = if config.log_json {
        builder.json().finish().with(filter).try_init()
    } else {
        builder.finish().with(filter).try_init()
    };
}

/// Histogram buckets, in seconds, of every latency metric: 50 µs to 10 s.
const LATENCY_BUCKETS: [f64; 16] = [
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
    2.5, 10.0,
];

/// Binds the configured address and serves until SIGINT or SIGTERM.
pub async fn run(config: Config) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // The signals' handlers first, so that no signal finds the port open without them.
    let shutdown = shutdown_signal();
    let listener = TcpListener::bind(config.address)
        .await
        .map_err(|error| cannot_listen(config.address, &error))?;
    serve(config, listener, shutdown).await
}

/// The startup error for an address the server cannot listen on, naming the address and, for
/// the common cases, what to do.
fn cannot_listen(address: std::net::SocketAddr, error: &std::io::Error) -> String {
    let hint = match error.kind() {
        std::io::ErrorKind::AddrInUse => {
            ": the address is in use (is another server running there?); choose another with \
             --address"
        }
        std::io::ErrorKind::PermissionDenied => {
            ": permission denied (ports below 1024 need privileges); choose another with \
             --address"
        }
        std::io::ErrorKind::AddrNotAvailable => {
            ": no such local address on this machine; choose another with --address"
        }
        _ => "",
    };
    format!("cannot listen on {address}: {error}{hint}")
}

/// Serves on a bound listener until `shutdown` completes, then drains in-flight calls.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let address = listener.local_addr()?;
    let connection_limits = config.connection_limits()?;
    let tls = config.tls_identity()?;
    if let Some(metrics_address) = config.metrics_address {
        metrics_exporter_prometheus::PrometheusBuilder::new()
            .set_buckets(&LATENCY_BUCKETS)
            .map_err(|error| format!("cannot set the metrics' buckets: {error}"))?
            .with_http_listener(metrics_address)
            .install()
            .map_err(|error| format!("cannot serve metrics on {metrics_address}: {error}"))?;
        tracing::info!(%metrics_address, "serving Prometheus metrics");
    }
    let gate = crate::gate::GateLayer::new(config.gate()?);
    let streams = StreamCap::new(config.max_streams).with_peer_share(config.max_streams_per_peer());
    let lease = config.cluster_lease()?;
    let durable = match config.database() {
        Database::Memory => None,
        Database::Url(url) => Some(Store::open_with(&url, lease.is_some()).await?),
    };
    let mut store = MatchStore::with_store(
        config.max_matches,
        durable.clone(),
        config.finished_expiry(),
    )
    .with_message_limit(config.max_message_size)
    .with_peer_share(config.max_matches_per_peer);
    let cluster = match lease {
        Some(lease) => Some(std::sync::Arc::new(crate::matches::Cluster::new(
            lease,
            &config.cluster_address(address)?,
        ))),
        None => None,
    };
    if let Some(cluster) = &cluster {
        store = store.with_cluster(cluster.clone());
    }
    let cluster_tasks = store.start_cluster();
    if let Some(durable) = &durable {
        let started = std::time::Instant::now();
        let resumed = store.resume_all().await?;
        tracing::info!(
            database = %redacted(durable.url()),
            resumed,
            ms = started.elapsed().as_millis() as u64,
            "stored matches resumed"
        );
    }
    // Cluster mode: calls another server must answer are forwarded there, vouched for by the
    // secret the servers of the database share.
    let forwarder = match cluster.as_ref().zip(durable.as_ref()) {
        Some((cluster, durable)) => {
            let secret = durable.cluster_secret().await?;
            gate.trust_forwarded(secret.clone());
            Some(crate::forward::Forwarder::new(
                secret,
                config.cluster_tls()?,
                cluster.lease,
            ))
        }
        None => None,
    };
    // Cluster mode: one server runs the ladder (its role in the store) and the others forward
    // its calls there; its hub is opened when this server takes the role.
    let ladders = match cluster.as_ref().zip(durable.as_ref()) {
        None => Ladders::Single(
            crate::ladder::LadderHub::open(
                config.ladder_settings(),
                store.clone(),
                durable.clone(),
                config.max_bot_ms,
            )
            .await?,
        ),
        Some((cluster, durable)) => Ladders::Cluster(crate::ladder::ClusterLadder::new(
            config.ladder_settings(),
            store.clone(),
            durable.clone(),
            cluster.clone(),
            config.max_bot_ms,
            streams.clone(),
            forwarder.clone().expect("made in cluster mode"),
        )),
    };
    let env_store = EnvStore::new(config.max_envs, config.max_message_size)
        .with_peer_share(config.max_envs_per_peer())
        .with_bot_cap(config.max_bot_ms);
    let worlds = WorldStore::new(config.max_matches, config.max_bot_ms)
        .with_peer_share(config.max_matches_per_peer, gate.quota());

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
    health_reporter
        .set_serving::<pb::ladder_server::LadderServer<LadderService>>()
        .await;

    if let Some(durable) = &durable {
        tokio::spawn(report_store_health(
            durable.clone(),
            health_reporter.clone(),
        ));
    }

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
    let matches = pb::matches_server::MatchesServer::new(
        MatchesService::new(store.clone(), config.max_bot_ms)
            .with_watch_bytes(config.watch_buffer_kib * 1024)
            .with_stream_cap(streams.clone()),
    )
    .max_decoding_message_size(limit)
    .max_encoding_message_size(limit);

    let mut envs_service = EnvsService::new(env_store.clone());
    if let (Some(cluster), Some(durable), Some(forwarder)) = (&cluster, &durable, &forwarder) {
        envs_service = envs_service.with_cluster(
            cluster.instance.clone(),
            cluster.lease,
            durable.clone(),
            forwarder.clone(),
        );
    }
    let envs = pb::envs_server::EnvsServer::new(envs_service)
        .max_decoding_message_size(limit)
        .max_encoding_message_size(limit);

    let dm_env =
        EnvironmentServer::new(DmEnvService::new(worlds.clone()).with_stream_cap(streams.clone()))
            .max_decoding_message_size(limit)
            .max_encoding_message_size(limit);

    let watched = store.clone();
    let touched = store.clone();
    let worlds_closing = worlds.clone();
    let gauges = config.metrics_address.map(|_| {
        let (matches, envs) = (watched.clone(), env_store.clone());
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(1));
            loop {
                every.tick().await;
                metrics::gauge!("checkraise_live_matches").set(matches.len() as f64);
                metrics::gauge!("checkraise_live_envs").set(envs.live_envs() as f64);
            }
        })
    });
    let matchmaking = match &ladders {
        Ladders::Single(hub) => hub.start(),
        Ladders::Cluster(ladder) => ladder.start(),
    };
    let ladders_closing = ladders.clone();
    let expiry = tokio::spawn(expire_idle(store, env_store, worlds, config.expiry()));

    // Without TCP_NODELAY, small replies wait on delayed ACKs (about 40 ms a round trip). The
    // PROXY headers of trusted balancers are read before the limits count each client.
    let incoming = crate::connections::guard(
        crate::proxy_protocol::proxied(
            TcpIncoming::from(listener).with_nodelay(Some(true)),
            std::sync::Arc::new(config.trusted_proxies()),
            connection_limits.handshake_timeout,
        ),
        connection_limits,
    );
    tracing::info!(%address, "checkraise-server listening");
    let mut routes = Routes::builder();
    routes
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(catalog)
        .add_service(matches)
        .add_service(envs)
        .add_service(dm_env);
    match &ladders {
        Ladders::Single(hub) => routes.add_service(
            pb::ladder_server::LadderServer::new(LadderService::new(hub.clone(), streams.clone()))
                .max_decoding_message_size(limit)
                .max_encoding_message_size(limit),
        ),
        Ladders::Cluster(ladder) => routes.add_service(
            pb::ladder_server::LadderServer::new(ladder.clone())
                .max_decoding_message_size(limit)
                .max_encoding_message_size(limit),
        ),
    };
    let mut routes = routes.routes();
    if config.web {
        routes = crate::web::with_page(routes);
        tracing::info!(page = %format!("http://{address}/"), "serving the web page");
    }
    let mut builder = Server::builder();
    if let Some(identity) = tls {
        builder = builder
            .tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))
            .map_err(|error| {
                format!(
                    "cannot use the TLS certificate and key: {}",
                    crate::errors::error_chain(&error)
                )
            })?;
        tracing::info!("TLS on: clients connect with https");
    }
    let result = builder
        // The page's browser speaks gRPC-Web over HTTP/1.1; native clients still get HTTP/2.
        .accept_http1(config.web)
        .http2_keepalive_interval(Some(Duration::from_secs(config.keepalive_secs)))
        .http2_keepalive_timeout(Some(Duration::from_secs(config.keepalive_timeout_secs)))
        .max_concurrent_streams(u32::try_from(config.max_streams_per_connection).ok())
        .layer(MapResponseLayer::new(tidy_error_status))
        .layer(gate)
        .trace_fn(|request| tracing::info_span!("grpc", path = %request.uri().path()))
        .add_routes(routes)
        .serve_with_incoming_shutdown(incoming, async move {
            shutdown.await;
            worlds_closing.close_all_connections();
            matchmaking.abort();
            ladders_closing.close_all_connections();
            // Bots may hold a match's lock while they think: wait for it off the workers.
            let _ = tokio::task::spawn_blocking(move || {
                watched.close_all_watchers(&MatchError::ShuttingDown);
            })
            .await;
        })
        .await;
    expiry.abort();
    for task in cluster_tasks {
        task.abort();
    }
    if let Some(gauges) = gauges {
        gauges.abort();
    }
    if let Some(durable) = durable {
        touched.store_all().await;
        durable.close().await;
    }
    tracing::info!("checkraise-server stopped");
    result.map_err(|error| crate::errors::error_chain(&error).into())
}

/// Most bytes of an error message sent back (`grpc-message`, percent-encoded as sent):
/// messages quote bad input, and a megabyte FEN echoed back would exceed every client's
/// metadata limit and hide the real error behind RESOURCE_EXHAUSTED.
pub use crate::errors::MAX_ERROR_MESSAGE_BYTES;

/// What tonic says, as INTERNAL, of a request body that is not a valid message: bytes that do
/// not decode, no message at all, a body cut inside a message, and a message flagged as
/// compressed without a `grpc-encoding` (gRPC's compression document asks for INTERNAL there;
/// this server's contract is that a client's mistake is never INTERNAL).
const CLIENT_MISTAKES: [&str; 4] = [
    "failed to decode Protobuf message",
    "Missing request message",
    "Unexpected EOF decoding stream",
    "protocol error: received message with",
];

/// Tidies the status of an error response before it is sent (the statuses tonic itself makes,
/// and every message's length):
/// - tonic reports a message over the size limit as OUT_OF_RANGE; gRPC's convention, and this
///   server's contract, is RESOURCE_EXHAUSTED (the services never return OUT_OF_RANGE);
/// - a request body that is not a valid message (`CLIENT_MISTAKES`) is the client's mistake:
///   INVALID_ARGUMENT, not tonic's INTERNAL (the services' own INTERNAL messages never start
///   that way);
/// - a message longer than `MAX_ERROR_MESSAGE_BYTES` is cut there, with a note.
///
/// It sees the statuses sent as headers (every error returned by a call before any reply
/// message, which covers unary calls and errors at a stream's start); a status at the end of
/// a stream travels in trailers and is sent as the service made it.
fn tidy_error_status<B>(mut response: http::Response<B>) -> http::Response<B> {
    let headers = response.headers_mut();
    // The services' own mark of a retriable write conflict never leaves the server.
    headers.remove("x-checkraise-conflict");
    let Some(code) = headers.get("grpc-status").map(|c| c.as_bytes().to_vec()) else {
        return response;
    };
    let message = headers
        .get("grpc-message")
        .map(|m| m.as_bytes().to_vec())
        .unwrap_or_default();
    let contains = |needle: &[u8]| message.windows(needle.len()).any(|w| w == needle);
    if code == b"11" && (contains(b"too large") || contains(b"too%20large")) {
        headers.insert("grpc-status", http::HeaderValue::from_static("8"));
    }
    let client_mistake = CLIENT_MISTAKES.iter().any(|p| {
        message.starts_with(p.as_bytes()) || message.starts_with(p.replace(' ', "%20").as_bytes())
    });
    if code == b"13" && client_mistake {
        headers.insert("grpc-status", http::HeaderValue::from_static("3"));
    }
    if message.len() > MAX_ERROR_MESSAGE_BYTES
        && let Ok(value) = http::HeaderValue::from_bytes(&cut_message(&message))
    {
        headers.insert("grpc-message", value);
    }
    response
}

/// `message` (percent-encoded, as in `grpc-message`) cut to at most `MAX_ERROR_MESSAGE_BYTES`
/// bytes, never inside an escape or a UTF-8 character, with a note of how much was cut.
fn cut_message(message: &[u8]) -> Vec<u8> {
    let note = format!(" ... (message cut: {} bytes in all)", message.len());
    let note = note.replace(' ', "%20");
    let mut end = MAX_ERROR_MESSAGE_BYTES - note.len();
    // Back up to the start of an escape (`%XX`) that the cut would split.
    if let Some(p) = message[end.saturating_sub(2)..end]
        .iter()
        .position(|&b| b == b'%')
    {
        end = end - 2 + p;
    }
    // Back up over UTF-8 continuation bytes (escapes `%80`..`%BF`): a character's bytes are all
    // escaped, so this stops at its lead byte's escape, which the cut then leaves out too.
    let continues = |i: usize| {
        message.get(i) == Some(&b'%')
            && matches!(
                message.get(i + 1),
                Some(b'8' | b'9' | b'A' | b'B' | b'a' | b'b')
            )
    };
    while end >= 3 && continues(end) {
        end -= 3;
    }
    let mut out = message[..end].to_vec();
    out.extend_from_slice(note.as_bytes());
    out
}

/// How often a store whose commits fail is probed for writes.
const STORE_PROBE_PERIOD: Duration = Duration::from_secs(2);

/// Turns health NOT_SERVING (the whole server and every service) while the store's commits
/// fail, with the cause logged, and SERVING again once a commit or a probe succeeds.
async fn report_store_health(store: Store, health: tonic_health::server::HealthReporter) {
    use tonic::server::NamedService;
    use tonic_health::ServingStatus;
    let services = [
        "",
        <pb::catalog_server::CatalogServer<CatalogService> as NamedService>::NAME,
        <pb::matches_server::MatchesServer<MatchesService> as NamedService>::NAME,
        <pb::envs_server::EnvsServer<EnvsService> as NamedService>::NAME,
        <EnvironmentServer<DmEnvService> as NamedService>::NAME,
    ];
    let set_all = |status: ServingStatus| {
        let health = health.clone();
        async move {
            for service in services {
                health.set_service_status(service, status).await;
            }
        }
    };
    let mut failing = store.failing();
    loop {
        let why = match failing.wait_for(Option::is_some).await {
            Ok(why) => why.clone().unwrap_or_default(),
            Err(_) => return,
        };
        tracing::error!(
            database = %redacted(store.url()),
            error = %why,
            "the store cannot take writes: NOT_SERVING until it can"
        );
        set_all(ServingStatus::NotServing).await;
        loop {
            tokio::time::sleep(STORE_PROBE_PERIOD).await;
            if failing.borrow_and_update().is_none() || store.probe().await.is_ok() {
                break;
            }
        }
        tracing::info!(database = %redacted(store.url()), "the store takes writes again: SERVING");
        set_all(ServingStatus::Serving).await;
    }
}

/// Removes idle matches, env batches and dm_env_rpc worlds periodically.
async fn expire_idle(store: MatchStore, env_store: EnvStore, worlds: WorldStore, expiry: Expiry) {
    let period = expiry.sweep_period();
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
            store.expire_idle(expiry)
                => live = store.len(), "idle matches removed";
            env_store.expire_idle(expiry)
                => live_envs = env_store.live_envs(), "idle env batches removed";
            worlds.expire_idle(expiry)
                => worlds = worlds.len(), "idle dm_env_rpc worlds removed";
        }
    }
}

/// The server's ladder: its own hub, or a cluster's (run by one server of it).
#[derive(Clone)]
enum Ladders {
    Single(crate::ladder::LadderHub),
    Cluster(crate::ladder::ClusterLadder),
}

impl Ladders {
    /// Ends every bot's event stream served here (at shutdown).
    fn close_all_connections(&self) {
        match self {
            Ladders::Single(hub) => hub.close_all_connections(),
            Ladders::Cluster(ladder) => ladder.close_all_connections(),
        }
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM. SIGTERM's handler is installed when
/// this is called, not when the future is first polled: a SIGTERM that arrives while the
/// server starts is then a graceful shutdown too, never the signal's default (the process
/// killed).
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
    async move {
        let interrupt = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        #[cfg(unix)]
        let terminate = async move {
            match terminate {
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
}

#[cfg(test)]
mod tests {
    use super::{MAX_ERROR_MESSAGE_BYTES, cut_message};

    /// Decodes a percent-encoded message as grpc clients do.
    fn decode(bytes: &[u8]) -> String {
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("an escape");
                out.push(u8::from_str_radix(hex, 16).expect("hex digits"));
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).expect("whole characters")
    }

    #[test]
    fn cuts_never_split_an_escape_or_a_character() {
        for pad in 0..8 {
            // "é" is %C3%A9 and "€" is %E2%82%AC: try every alignment of the cut.
            let text = format!("{}{}", "a".repeat(pad), "%C3%A9%E2%82%AC".repeat(200));
            let cut = cut_message(text.as_bytes());
            assert!(cut.len() <= MAX_ERROR_MESSAGE_BYTES, "{} bytes", cut.len());
            let decoded = decode(&cut);
            assert!(decoded.ends_with(&format!("(message cut: {} bytes in all)", text.len())));
            assert!(decoded.starts_with(&"a".repeat(pad)));
        }
    }
}
