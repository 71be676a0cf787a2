//! The server's settings: command-line flags with defaults that serve on 127.0.0.1:50051.

use std::net::SocketAddr;
use std::time::Duration;

use checkraise_core::bots::spec::MAX_MS;
use clap::{Parser, Subcommand};

use crate::gate::ApiKeysError;
use crate::sessions::Expiry;
use crate::store::{Database, DatabaseUrlError};

/// Settings of `checkraise-server`.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "checkraise-server",
    version,
    about = "Serves the checkraise games over gRPC (Catalog, Matches, Envs, health, reflection) and a web page to play them",
    // `checkraise-server [FLAGS]` serves; `checkraise-server export ...` exports instead, and
    // the serving flags do not mix with it.
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true
)]
pub struct Config {
    /// What to do instead of serving.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Address to listen on (port 0 picks a free port; the chosen address is logged).
    #[arg(long, env = "CHECKRAISE_ADDRESS", default_value = "127.0.0.1:50051")]
    pub address: SocketAddr,
    /// Most matches alive at once; creating one more is RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = 10_000, value_parser = at_least::<1>)]
    pub max_matches: usize,
    /// Most matches in memory created from one client address (IP), so that one client
    /// cannot fill `--max-matches` alone; one more is RESOURCE_EXHAUSTED. The same share caps
    /// the dm_env_rpc worlds a client address holds. At least `--max-matches`: no per-client
    /// share.
    #[arg(long, default_value_t = 1_000, value_parser = at_least::<1>)]
    pub max_matches_per_peer: usize,
    /// Most envs alive at once, over all batches; more is RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = 65_536, value_parser = at_least::<1>)]
    pub max_envs: usize,
    /// Most envs alive at once created from one client address, so that one client cannot
    /// fill `--max-envs` alone; more is RESOURCE_EXHAUSTED. Default: a quarter of
    /// `--max-envs`.
    #[arg(long, value_parser = at_least::<1>)]
    pub max_envs_per_peer: Option<usize>,
    /// Seconds without a request after which a match or env batch is removed.
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_expiry_secs: u64,
    /// Seconds without a request after which a finished match is removed (at most the idle
    /// expiry): long enough to read the result, short enough that finished matches do not
    /// fill `--max-matches`.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub finished_expiry_secs: u64,
    /// Most milliseconds a bot may think per move. A searching bot (`ismcts`) without
    /// `max_ms` gets this budget, so its `iterations` are cut short by it too; a seat asking
    /// for more is INVALID_ARGUMENT.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=MAX_MS))]
    pub max_bot_ms: u64,
    /// Threads on which bots think (and on which requests wait for a match whose bots are
    /// thinking); more such requests at once queue for a thread. Default: two per core.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=512))]
    pub bot_threads: Option<u64>,
    /// Largest gRPC message, in bytes, received or sent (at least 64 KiB); more is
    /// RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = 64 * 1024 * 1024, value_parser = at_least::<65_536>)]
    pub max_message_size: usize,
    /// Log filter: a level and `target=level` directives, comma-separated (`info`, `warn`,
    /// `checkraise_grpc=debug,tower=warn`, ...); a filter that does not parse is refused at
    /// startup.
    #[arg(long, default_value = "info", value_parser = log_filter)]
    pub log_level: String,
    /// Log as JSON lines instead of text.
    #[arg(long)]
    pub log_json: bool,
    /// Most connections open at once; one more is closed as soon as it is accepted.
    #[arg(long, default_value_t = 1024, value_parser = at_least::<1>)]
    pub max_connections: usize,
    /// Most connections open at once from one client address, so that one client's idle
    /// channels cannot hold every place under `--max-connections`; one more is closed as soon
    /// as it is accepted. Default: a quarter of `--max-connections` (at least 1).
    #[arg(long, value_parser = at_least::<1>)]
    pub max_connections_per_peer: Option<usize>,
    /// Seconds a new connection may stay silent (before it sends the HTTP/2 preface or an
    /// HTTP/1.1 request) before it is closed.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub handshake_timeout_secs: u64,
    /// The load balancers that send the PROXY protocol (HAProxy's `send-proxy-v2`, or
    /// version 1): comma-separated addresses and networks (`10.0.0.5,10.1.0.0/16`). A
    /// connection from one of them may start with a PROXY header, and the client address it
    /// names is the one every per-address limit, share, quota and log line counts; a header
    /// from anywhere else is not read (it fails as HTTP). Default: nobody.
    #[arg(long, env = "CHECKRAISE_PROXY_PROTOCOL_FROM", value_name = "ADDRESSES", default_value = "", value_parser = trusted_proxies)]
    pub proxy_protocol_from: String,
    /// Seconds a connection may go without sending anything before it is closed. Live
    /// clients answer the server's keepalive pings, so this only closes dead or idle ones;
    /// it must exceed `--keepalive-secs` plus `--keepalive-timeout-secs`.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_connection_secs: u64,
    /// Seconds between HTTP/2 keepalive pings the server sends on each connection.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub keepalive_secs: u64,
    /// Seconds the server waits for a ping's acknowledgement before closing the connection.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub keepalive_timeout_secs: u64,
    /// Most calls (streams) open at once on one connection; the client waits for more.
    #[arg(long, default_value_t = 256, value_parser = at_least::<1>)]
    pub max_streams_per_connection: usize,
    /// Most long-lived streams open at once over all connections: match watchers
    /// (`WatchSeat`, `WatchSpectator`), ladder bots' `Events` streams and dm_env_rpc
    /// sessions; one more is RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = crate::connections::DEFAULT_MAX_STREAMS, value_parser = at_least::<1>)]
    pub max_streams: usize,
    /// Most long-lived streams open at once from one client address, so that one client
    /// cannot open every place under `--max-streams` and leave the others none; one more is
    /// RESOURCE_EXHAUSTED. Default: a quarter of `--max-streams` (at least 1).
    #[arg(long, value_parser = at_least::<1>)]
    pub max_streams_per_peer: Option<usize>,
    /// A file of API keys, one per line (`#` starts a comment). When set, creating a match,
    /// an env batch or a dm_env_rpc world needs one, sent as `x-api-key: KEY` or
    /// `authorization: Bearer KEY` metadata; everything else stays open.
    #[arg(long, value_name = "FILE")]
    pub api_keys: Option<std::path::PathBuf>,
    /// Most creating calls (CreateMatch, CreateEnvs, dm_env_rpc's Process) per peer address
    /// per minute, with bursts of ten seconds' worth; more is RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = 6000, value_parser = at_least::<1>)]
    pub max_creates_per_minute: usize,
    /// KiB of events a match watcher (`WatchSeat`, `WatchSpectator`) may fall behind by: a
    /// client that reads more slowly than its match moves is cut off with RESOURCE_EXHAUSTED
    /// past it, so that it cannot make the server hold its events without bound.
    #[arg(long, default_value_t = 256, value_parser = at_least::<16>)]
    pub watch_buffer_kib: usize,
    /// A PEM certificate chain: with `--tls-key`, the server speaks TLS only (gRPC over
    /// HTTPS, and the web page on https://).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of `--tls-cert`.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Where to serve Prometheus metrics (`GET /metrics`, plain HTTP): calls by method and
    /// status, call latency, live matches and envs, open connections, the store's commit
    /// latency. Off by default.
    #[arg(long, value_name = "ADDRESS")]
    pub metrics_address: Option<SocketAddr>,
    /// Do not serve the web page (and gRPC-Web) on the address: native gRPC over HTTP/2 only.
    #[arg(long = "no-web", action = clap::ArgAction::SetFalse)]
    pub web: bool,
    /// Where matches are stored: `sqlite://PATH` (a file, created with its directory if
    /// missing), `postgres://USER@HOST/DB`, or `memory` (kept in memory only: lost when the
    /// server stops). Default: a SQLite file in ./checkraise-data.
    #[arg(long, env = "CHECKRAISE_DATABASE", default_value_t = Database::default_url(), value_parser = database)]
    pub database: String,
    /// Share the database with other checkraise servers (cluster mode; PostgreSQL only): any
    /// server then serves any call of any match, behind one load balancer. See
    /// docs/cluster.md.
    #[arg(long, env = "CHECKRAISE_CLUSTER")]
    pub cluster: bool,
    /// Cluster mode: how long a server's heartbeat stays valid, in milliseconds; the matches
    /// of a server silent for longer are taken over by the others.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(200..=60_000))]
    pub cluster_lease_ms: u64,
    /// Cluster mode: the HOST:PORT at which the cluster's other servers reach this one (the
    /// ladder's calls are forwarded to the server that runs it). Default: `--address`, unless
    /// that listens on every interface (0.0.0.0 or [::]), when it must be given.
    #[arg(long, env = "CHECKRAISE_CLUSTER_ADVERTISE", value_name = "HOST:PORT")]
    pub cluster_advertise: Option<String>,
    /// The bot ladder's house bots, comma-separated bot specs (a comma inside a spec's
    /// parentheses belongs to the spec); each ladder keeps those that can play its game. The
    /// anchor, rated 0, is `random` when it is one of them.
    #[arg(long, default_value = crate::ladder::DEFAULT_HOUSE, value_parser = house_bots)]
    pub ladder_house: String,
    /// Most duplicate sets each ladder bot plays at once.
    #[arg(long, default_value_t = 2, value_parser = at_least::<1>)]
    pub ladder_sets_per_bot: usize,
    /// Most duplicate sets two house bots play against each other on a ladder: enough to rate
    /// them, after which they play only registered bots (quick house bots would otherwise play
    /// each other without end while any bot is connected).
    #[arg(long, default_value_t = 50)]
    pub ladder_house_sets: usize,
    /// Most ladder games in play at once, over every ladder (each also counts under
    /// `--max-matches`). Each client address whose bots can be placed, and the house (for
    /// games of two house bots), has an equal share of them (this divided by their number,
    /// rounded up).
    #[arg(long, default_value_t = 8, value_parser = at_least::<1>)]
    pub ladder_max_games: usize,
    /// Most ladder bots registered from one client address since the server started (retired
    /// ones too), so that one client cannot grow the server's bots without bound; one more is
    /// RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = crate::ladder::DEFAULT_BOTS_PER_PEER, value_parser = at_least::<1>)]
    pub ladder_max_bots_per_peer: usize,
    /// Most ladders (one per game string a bot registered for) the server runs; a
    /// registration naming a game string past it is RESOURCE_EXHAUSTED.
    #[arg(long, default_value_t = crate::ladder::DEFAULT_MAX_LADDERS, value_parser = at_least::<1>)]
    pub ladder_max_ladders: usize,
    /// Most milliseconds a ladder bot may take over a move; past it the bot forfeits the game
    /// (the server plays the rest of its seats with `random`).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(100..=3_600_000))]
    pub ladder_move_ms: u64,
    /// Most milliseconds a ladder bot whose turn it is may stay disconnected (its `Connect`
    /// stream closed) before it forfeits, if that is later than its move time.
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub ladder_grace_ms: u64,
    /// Give every ladder game its own deal instead of playing duplicate sets (one deal, the
    /// seats swapped). A duplicate set's second game deals what the first dealt, which a bot
    /// that remembers the first can use: see docs/ladder.md.
    #[arg(long = "no-ladder-duplicate", action = clap::ArgAction::SetFalse)]
    pub ladder_duplicate: bool,
}

/// What `checkraise-server` does instead of serving.
#[derive(Clone, Debug, Subcommand)]
pub enum Command {
    /// Writes every finished match of a store as trajectories (JSON lines or Parquet) and
    /// exits; see docs/storage.md ("Export").
    Export(crate::export::ExportArgs),
    /// Asks a running server's gRPC health service whether it serves (the whole server, or
    /// one service) and exits 0 if it does, 1 if it does not or does not answer: a probe for
    /// container health checks, which have no other gRPC client.
    Health(HealthArgs),
}

/// `checkraise-server health`'s flags.
#[derive(Clone, Debug, clap::Args)]
pub struct HealthArgs {
    /// The server to ask.
    #[arg(long, env = "CHECKRAISE_ADDRESS", default_value = "127.0.0.1:50051")]
    pub address: String,
    /// The service to ask about (empty: the whole server).
    #[arg(long, default_value = "")]
    pub service: String,
    /// Seconds to wait for the answer.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub timeout_secs: u64,
}

/// Why a flag's value or the flags together are refused: each text names the flag or the
/// file, and says what would do.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `--ladder-house` names no bot.
    #[error("no bot named: give at least one bot spec (the anchor)")]
    NoHouseBot,
    /// `--cluster` with a store other servers cannot share.
    #[error(
        "--cluster needs a PostgreSQL database (--database postgres://...), which every server \
         of the cluster shares; {0} serves one server only"
    )]
    ClusterNeedsPostgres(&'static str),
    /// Cluster mode on every interface with no `--cluster-advertise`.
    #[error(
        "--cluster listens on {0}, every interface: say where the other servers reach this one \
         with --cluster-advertise HOST:PORT (or CHECKRAISE_CLUSTER_ADVERTISE)"
    )]
    ClusterNeedsAdvertise(std::net::SocketAddr),
    /// A `--cluster-advertise` that is not HOST:PORT.
    #[error("--cluster-advertise '{0}' is not HOST:PORT (a name or an address, and a port)")]
    ClusterAdvertise(String),
    /// A `--ladder-house` spec that does not parse.
    #[error("'{spec}' is not a bot spec: {source}")]
    BotSpec {
        /// The spec.
        spec: String,
        /// Why.
        #[source]
        source: Box<checkraise_core::GameError>,
    },
    /// A limit that is not a whole number.
    #[error("'{0}' is not a whole number")]
    NotWhole(String),
    /// A limit below its least.
    #[error("{n} is below the least allowed, {least}")]
    BelowLeast {
        /// The value.
        n: usize,
        /// The least allowed.
        least: usize,
    },
    /// `--log` that tracing does not read.
    #[error("not a log filter ({0}); examples: info, warn, checkraise_grpc=debug")]
    LogFilter(#[source] tracing_subscriber::filter::ParseError),
    /// An idle limit that keepalive acknowledgements could not keep ahead of.
    #[error(
        "--idle-connection-secs ({idle}) must exceed --keepalive-secs ({keepalive}) plus \
         --keepalive-timeout-secs ({timeout}), or live clients would be cut off"
    )]
    IdleBelowKeepalive {
        /// `--idle-connection-secs`.
        idle: u64,
        /// `--keepalive-secs`.
        keepalive: u64,
        /// `--keepalive-timeout-secs`.
        timeout: u64,
    },
    /// A TLS file that cannot be read.
    #[error("cannot read the TLS {what} {}: {source}", path.display())]
    TlsRead {
        /// `certificate` or `key`.
        what: &'static str,
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A TLS certificate file without a PEM certificate.
    #[error(
        "the TLS certificate {} holds no PEM certificate (a '-----BEGIN CERTIFICATE-----' \
         block)",
        .0.display()
    )]
    NoCertificate(std::path::PathBuf),
    /// A TLS key file without a PEM private key.
    #[error(
        "the TLS key {} holds no PEM private key (a '-----BEGIN PRIVATE KEY-----', \
         'RSA PRIVATE KEY' or 'EC PRIVATE KEY' block)",
        .0.display()
    )]
    NoPrivateKey(std::path::PathBuf),
    /// An API key file refused.
    #[error(transparent)]
    ApiKeys(#[from] ApiKeysError),
}

/// A `--database` value the store can open.
fn database(text: &str) -> Result<String, DatabaseUrlError> {
    Database::parse(text).map(|_| text.trim().to_string())
}

/// A `--ladder-house` value: bot specs that parse.
fn trusted_proxies(text: &str) -> Result<String, crate::proxy_protocol::TrustedProxiesError> {
    crate::proxy_protocol::TrustedProxies::parse(text).map(|_| text.to_string())
}

fn house_bots(text: &str) -> Result<String, ConfigError> {
    let specs = crate::ladder::split_specs(text);
    if specs.is_empty() {
        return Err(ConfigError::NoHouseBot);
    }
    for spec in &specs {
        checkraise_core::bots::BotSpec::parse::<&str, &str>(spec, []).map_err(|source| {
            ConfigError::BotSpec {
                spec: spec.to_string(),
                source: Box::new(source),
            }
        })?;
    }
    Ok(text.to_string())
}

/// A whole number of at least `MIN` (limits of 0 would refuse everything or mean nothing).
fn at_least<const MIN: usize>(text: &str) -> Result<usize, ConfigError> {
    let n: usize = text
        .parse()
        .map_err(|_| ConfigError::NotWhole(text.to_string()))?;
    if n < MIN {
        return Err(ConfigError::BelowLeast { n, least: MIN });
    }
    Ok(n)
}

/// A log filter: comma-separated `LEVEL` (the default) and `TARGET=LEVEL` directives, as
/// tracing's `Targets` reads them.
fn log_filter(text: &str) -> Result<String, ConfigError> {
    text.parse::<tracing_subscriber::filter::Targets>()
        .map(|_| text.to_string())
        .map_err(ConfigError::LogFilter)
}

impl Config {
    /// The default settings with matches kept in memory only (`--database memory`).
    pub fn in_memory() -> Self {
        Config::parse_from(["checkraise-server", "--database", "memory"])
    }

    /// What `--database` asks for.
    pub fn database(&self) -> Database {
        Database::parse(&self.database).expect("checked when parsed")
    }

    /// Cluster mode's lease, when `--cluster` is set; an error when the database cannot be
    /// shared (memory, SQLite).
    pub fn cluster_lease(&self) -> Result<Option<Duration>, ConfigError> {
        if !self.cluster {
            return Ok(None);
        }
        match self.database() {
            Database::Memory => Err(ConfigError::ClusterNeedsPostgres("a memory store")),
            Database::Url(url) if url.starts_with("sqlite:") => {
                Err(ConfigError::ClusterNeedsPostgres("a SQLite file"))
            }
            Database::Url(_) => Ok(Some(Duration::from_millis(self.cluster_lease_ms))),
        }
    }

    /// Cluster mode: where the other servers reach this one, given the address it listens on
    /// (`--cluster-advertise`, or that address when it is not every interface's).
    pub fn cluster_address(&self, bound: std::net::SocketAddr) -> Result<String, ConfigError> {
        match &self.cluster_advertise {
            Some(given) => {
                let given = given.trim();
                let port_ok = given
                    .rsplit_once(':')
                    .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
                if !port_ok || given.contains('/') || given.contains(char::is_whitespace) {
                    return Err(ConfigError::ClusterAdvertise(given.to_string()));
                }
                Ok(given.to_string())
            }
            None if bound.ip().is_unspecified() => Err(ConfigError::ClusterNeedsAdvertise(bound)),
            None => Ok(bound.to_string()),
        }
    }

    /// Cluster mode with TLS: how this server reaches the others (TLS, trusting the
    /// certificates of `--tls-cert`: one certificate for the cluster, or its CA in the file).
    pub fn cluster_tls(&self) -> Result<Option<tonic::transport::ClientTlsConfig>, ConfigError> {
        let Some(cert) = &self.tls_cert else {
            return Ok(None);
        };
        let pem = std::fs::read(cert).map_err(|source| ConfigError::TlsRead {
            what: "certificate",
            path: cert.to_path_buf(),
            source,
        })?;
        Ok(Some(
            tonic::transport::ClientTlsConfig::new()
                .ca_certificate(tonic::transport::Certificate::from_pem(pem)),
        ))
    }

    /// The balancers whose connections may start with a PROXY header.
    pub fn trusted_proxies(&self) -> crate::proxy_protocol::TrustedProxies {
        crate::proxy_protocol::TrustedProxies::parse(&self.proxy_protocol_from)
            .expect("checked when parsed")
    }

    /// How long a match or env batch may stay idle.
    pub fn idle_expiry(&self) -> Duration {
        Duration::from_secs(self.idle_expiry_secs)
    }

    /// The size of tokio's blocking pool, where bots think (`--bot-threads`).
    pub fn bot_threads(&self) -> usize {
        match self.bot_threads {
            Some(n) => n as usize,
            None => 2 * std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// The limits on each connection; an idle limit that a live client's keepalive
    /// acknowledgements could not keep ahead of is an error.
    pub fn connection_limits(&self) -> Result<crate::connections::ConnectionLimits, ConfigError> {
        if self.idle_connection_secs <= self.keepalive_secs + self.keepalive_timeout_secs {
            return Err(ConfigError::IdleBelowKeepalive {
                idle: self.idle_connection_secs,
                keepalive: self.keepalive_secs,
                timeout: self.keepalive_timeout_secs,
            });
        }
        Ok(crate::connections::ConnectionLimits {
            max_connections: self.max_connections,
            max_per_peer: self
                .max_connections_per_peer
                .unwrap_or((self.max_connections / 4).max(1)),
            handshake_timeout: Duration::from_secs(self.handshake_timeout_secs),
            idle_timeout: Duration::from_secs(self.idle_connection_secs),
        })
    }

    /// The TLS identity (certificate chain and key, PEM) when `--tls-cert` and `--tls-key`
    /// are set; a file that cannot be read is an error naming it.
    pub fn tls_identity(&self) -> Result<Option<tonic::transport::Identity>, ConfigError> {
        let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) else {
            return Ok(None);
        };
        let read = |path: &std::path::Path, what: &'static str| {
            std::fs::read(path).map_err(|source| ConfigError::TlsRead {
                what,
                path: path.to_path_buf(),
                source,
            })
        };
        let (cert_pem, key_pem) = (read(cert, "certificate")?, read(key, "key")?);
        let holds = |pem: &[u8], begin: &str, end: &str| {
            let text = String::from_utf8_lossy(pem);
            text.lines()
                .any(|l| l.starts_with(begin) && l.trim_end().ends_with(end))
        };
        if !holds(&cert_pem, "-----BEGIN CERTIFICATE", "-----") {
            return Err(ConfigError::NoCertificate(cert.clone()));
        }
        if !holds(&key_pem, "-----BEGIN ", "PRIVATE KEY-----") {
            return Err(ConfigError::NoPrivateKey(key.clone()));
        }
        Ok(Some(tonic::transport::Identity::from_pem(
            cert_pem, key_pem,
        )))
    }

    /// The gate's settings, reading the API key file if there is one.
    pub fn gate(&self) -> Result<crate::gate::GateConfig, ConfigError> {
        let api_keys = match &self.api_keys {
            Some(path) => Some(crate::gate::read_api_keys(path)?),
            None => None,
        };
        Ok(crate::gate::GateConfig {
            api_keys,
            creates_per_minute: u32::try_from(self.max_creates_per_minute).unwrap_or(u32::MAX),
        })
    }

    /// Most long-lived streams one client address may have open (`--max-streams-per-peer`).
    pub fn max_streams_per_peer(&self) -> usize {
        self.max_streams_per_peer
            .unwrap_or_else(|| crate::connections::default_streams_per_peer(self.max_streams))
    }

    /// Most envs one client address may hold (`--max-envs-per-peer`).
    pub fn max_envs_per_peer(&self) -> usize {
        self.max_envs_per_peer.unwrap_or((self.max_envs / 4).max(1))
    }

    /// How long a finished match may stay idle.
    pub fn finished_expiry(&self) -> Duration {
        Duration::from_secs(self.finished_expiry_secs.min(self.idle_expiry_secs))
    }

    /// How the ladders run (`--ladder-*`).
    pub fn ladder_settings(&self) -> crate::ladder::LadderSettings {
        crate::ladder::LadderSettings {
            house: crate::ladder::split_specs(&self.ladder_house),
            sets_per_bot: self.ladder_sets_per_bot,
            move_ms: self.ladder_move_ms,
            grace_ms: self.ladder_grace_ms,
            duplicate: self.ladder_duplicate,
            max_games: self.ladder_max_games,
            house_sets: self.ladder_house_sets,
            max_bots_per_peer: self.ladder_max_bots_per_peer,
            max_ladders: self.ladder_max_ladders,
        }
    }

    /// The expiry policy of matches, env batches and dm_env_rpc worlds
    /// (`--idle-expiry-secs`, `--finished-expiry-secs`).
    pub fn expiry(&self) -> Expiry {
        Expiry {
            idle: self.idle_expiry(),
            finished: self.finished_expiry(),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::parse_from(["checkraise-server"])
    }
}
