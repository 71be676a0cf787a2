//! What every call passes through before a service sees it: API keys (when `--api-keys` is
//! set) and per-peer quotas on the calls that create matches, env batches or dm_env_rpc
//! worlds, and an access log line and metrics per call (method, status, latency, peer).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::net::IpAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tonic::Status;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};

/// The calls that create something that lives on the server: they need an API key when keys
/// are required, and count against the caller's creation quota.
pub const CREATING_PATHS: [&str; 4] = [
    "/checkraise.v1.Matches/CreateMatch",
    "/checkraise.v1.Envs/CreateEnvs",
    "/checkraise.v1.Ladder/RegisterBot",
    DM_ENV_PROCESS,
];

/// dm_env_rpc's one bidirectional call, which creates worlds inside it: it needs the API key,
/// and each `CreateWorld` in it takes from the creation quota (`CreationQuota::take`), not the
/// call itself.
const DM_ENV_PROCESS: &str = "/dm_env_rpc.v1.Environment/Process";

/// The metadata keys that carry an API key: `x-api-key: KEY` or `authorization: Bearer KEY`.
pub const API_KEY_HEADER: &str = "x-api-key";

/// The gate's settings.
#[derive(Clone, Debug, Default)]
pub struct GateConfig {
    /// The accepted keys; `None`: no key needed.
    pub api_keys: Option<HashSet<String>>,
    /// Most creating calls per peer address per minute (a token bucket holding ten seconds'
    /// worth, at least one).
    pub creates_per_minute: u32,
}

/// Why an API key file is refused: each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ApiKeysError {
    /// It cannot be read.
    #[error("cannot read the API key file {}: {source}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It holds no key.
    #[error(
        "the API key file {} holds no key (one per line; # starts a comment)",
        path.display()
    )]
    Empty {
        /// The file.
        path: std::path::PathBuf,
    },
}

/// Reads an API key file: one key per line; blank lines and lines starting with `#` are
/// skipped. A file that cannot be read or holds no key is an error naming the file.
pub fn read_api_keys(path: &Path) -> Result<HashSet<String>, ApiKeysError> {
    let text = std::fs::read_to_string(path).map_err(|source| ApiKeysError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let keys: HashSet<String> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect();
    if keys.is_empty() {
        return Err(ApiKeysError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(keys)
}

/// Per-peer token buckets for creating calls (`--max-creates-per-minute`): taken by the gate
/// for CreateMatch and CreateEnvs, and by the dm_env_rpc service for each world created.
#[derive(Debug)]
pub struct CreationQuota {
    per_second: f64,
    capacity: f64,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl CreationQuota {
    /// `per_minute` creations per peer address, in bursts of ten seconds' worth (at least one).
    pub fn new(per_minute: u32) -> Self {
        let per_second = f64::from(per_minute) / 60.0;
        CreationQuota {
            per_second,
            capacity: (per_second * 10.0).max(1.0),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one creation for `peer`, or RESOURCE_EXHAUSTED saying when it may try again.
    pub fn take(&self, peer: IpAddr) -> Result<(), Status> {
        self.take_at(peer, Instant::now()).map_err(|wait| {
            Status::resource_exhausted(format!(
                "{peer} has made too many creating calls (--max-creates-per-minute); try again \
                 in {:.1} s",
                wait.as_secs_f64().max(0.1)
            ))
        })
    }

    /// Takes one token for `peer`; `Err(wait)` when its bucket is empty.
    fn take_at(&self, peer: IpAddr, now: Instant) -> Result<(), Duration> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() > 100_000 {
            // Forget full buckets (peers idle long enough to have refilled): bounded memory.
            let (rate, capacity) = (self.per_second, self.capacity);
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * rate < capacity
            });
        }
        let (tokens, at) = buckets.entry(peer).or_insert((self.capacity, now));
        *tokens =
            (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(self.capacity);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - *tokens) / self.per_second))
        }
    }
}

/// The metadata a cluster's server sends with a call it forwards to another: the client
/// address the call came from, and the cluster's shared secret vouching for it.
pub const FORWARDED_PEER_HEADER: &str = "x-checkraise-forwarded-for";
/// See `FORWARDED_PEER_HEADER`.
pub const CLUSTER_SECRET_HEADER: &str = "x-checkraise-cluster-secret";

/// The client address a call was forwarded for by another server of the cluster, set by the
/// gate on a forwarded call whose secret is the cluster's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForwardedPeer(pub IpAddr);

/// The client address of a call: the one another server of the cluster forwarded it for,
/// or the connection's.
pub fn peer_of<T>(request: &tonic::Request<T>) -> Option<IpAddr> {
    request
        .extensions()
        .get::<ForwardedPeer>()
        .map(|p| p.0)
        .or_else(|| request.remote_addr().map(|a| a.ip()))
}

/// The gate as a tower layer (`Server::builder().layer(..)`).
#[derive(Clone, Debug)]
pub struct GateLayer {
    keys: Option<Arc<HashSet<String>>>,
    quotas: Arc<CreationQuota>,
    /// Cluster mode: the secret that vouches for a forwarded call's client address.
    cluster_secret: Arc<std::sync::OnceLock<String>>,
}

impl GateLayer {
    /// A gate with these settings.
    pub fn new(config: GateConfig) -> Self {
        GateLayer {
            keys: config.api_keys.map(Arc::new),
            quotas: Arc::new(CreationQuota::new(config.creates_per_minute)),
            cluster_secret: Arc::new(std::sync::OnceLock::new()),
        }
    }

    /// Trusts calls forwarded by the cluster's other servers: those carrying `secret` as
    /// `CLUSTER_SECRET_HEADER` are taken to come from their `FORWARDED_PEER_HEADER` address
    /// and pass without a key or a quota (the forwarding server checked them). Set once.
    pub fn trust_forwarded(&self, secret: String) {
        let _ = self.cluster_secret.set(secret);
    }

    /// The client address a forwarded call vouches for, if its secret is the cluster's.
    fn forwarded_peer(&self, headers: &http::HeaderMap) -> Option<IpAddr> {
        let secret = self.cluster_secret.get()?;
        let sent = headers.get(CLUSTER_SECRET_HEADER)?.as_bytes();
        let same = sent.len() == secret.len()
            && sent
                .iter()
                .zip(secret.as_bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        if !same {
            return None;
        }
        headers
            .get(FORWARDED_PEER_HEADER)?
            .to_str()
            .ok()?
            .parse()
            .ok()
    }

    /// The creation quota the gate takes from, for the services that create inside a call.
    pub fn quota(&self) -> Arc<CreationQuota> {
        self.quotas.clone()
    }
}

impl<S> tower::Layer<S> for GateLayer {
    type Service = Gate<S>;

    fn layer(&self, inner: S) -> Gate<S> {
        Gate {
            inner,
            layer: self.clone(),
        }
    }
}

/// The gate around the services (see the module's documentation).
#[derive(Clone, Debug)]
pub struct Gate<S> {
    inner: S,
    layer: GateLayer,
}

impl<S> Gate<S> {
    /// Why a call may not go on, if it may not.
    fn refusal<B>(&self, request: &http::Request<B>, peer: Option<IpAddr>) -> Option<Status> {
        let path = request.uri().path();
        if !CREATING_PATHS.contains(&path) {
            return None;
        }
        if let Some(keys) = &self.layer.keys {
            let headers = request.headers();
            let key = headers
                .get(API_KEY_HEADER)
                .and_then(|v| v.to_str().ok())
                .or_else(|| {
                    headers
                        .get(http::header::AUTHORIZATION)
                        .and_then(|v| v.to_str().ok())
                        .and_then(bearer_token)
                });
            match key {
                None => {
                    return Some(Status::unauthenticated(format!(
                        "{path} needs an API key on this server: send it as `{API_KEY_HEADER}: \
                         KEY` or `authorization: Bearer KEY` metadata"
                    )));
                }
                Some(key) if !keys.contains(key.trim()) => {
                    return Some(Status::unauthenticated(
                        "the API key is not one this server accepts",
                    ));
                }
                Some(_) => {}
            }
        }
        if path == DM_ENV_PROCESS {
            return None;
        }
        self.layer.quotas.take(peer?).err()
    }
}

/// The credentials of an `authorization: Bearer KEY` value (the scheme in any case, as HTTP
/// has it).
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

impl<S, B> tower::Service<http::Request<B>> for Gate<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future =
        Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send + 'static>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let started = Instant::now();
        // A forwarded call's client address, vouched for by the cluster's secret; the
        // headers are never passed on, so that no client can claim another's address.
        let forwarded = self.layer.forwarded_peer(request.headers());
        request.headers_mut().remove(CLUSTER_SECRET_HEADER);
        request.headers_mut().remove(FORWARDED_PEER_HEADER);
        if let Some(peer) = forwarded {
            request.extensions_mut().insert(ForwardedPeer(peer));
        }
        let extensions = request.extensions();
        let peer = extensions
            .get::<TcpConnectInfo>()
            .or_else(|| {
                extensions
                    .get::<TlsConnectInfo<TcpConnectInfo>>()
                    .map(|info| info.get_ref())
            })
            .and_then(|info| info.remote_addr);
        let method = request.uri().path().to_string();
        let refusal = match forwarded {
            Some(_) => None,
            None => self.refusal(&request, peer.map(|p| p.ip())),
        };
        // The clone that was made ready is the one to call (tower's contract).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let response = match refusal {
                Some(status) => Ok(status.into_http()),
                None => inner.call(request).await,
            };
            if let Ok(response) = &response {
                log_call(&method, response, started.elapsed(), peer);
            }
            response
        })
    }
}

/// The access log line of a call. The status is the one in the reply's headers (every error
/// of a unary call, and errors at a stream's start); "OK" otherwise, since a stream's final
/// status travels in trailers after this line.
fn log_call<B>(
    method: &str,
    response: &http::Response<B>,
    latency: Duration,
    peer: Option<std::net::SocketAddr>,
) {
    let code = response
        .headers()
        .get("grpc-status")
        .and_then(|c| c.to_str().ok())
        .and_then(|c| c.parse::<i32>().ok())
        .map_or(tonic::Code::Ok, tonic::Code::from_i32);
    // A path the server does not serve is counted under one label, so that clients cannot
    // grow the metrics without bound.
    let label = if code == tonic::Code::Unimplemented || response.status() == 404 {
        "unknown".to_string()
    } else {
        method.to_string()
    };
    metrics::counter!("checkraise_grpc_requests_total", "method" => label.clone(), "code" => format!("{code:?}"))
        .increment(1);
    metrics::histogram!("checkraise_grpc_request_duration_seconds", "method" => label)
        .record(latency.as_secs_f64());
    let peer = peer.map_or_else(|| "unknown".to_string(), |p| p.to_string());
    let latency_us = latency.as_micros() as u64;
    // A balancer checks health every few seconds: a check answered (SERVING or NOT_SERVING,
    // which is the reply's) is logged at debug, so that the calls' lines at info are the
    // clients'; a failed check (an unknown service) stays at info.
    if code == tonic::Code::Ok && method.starts_with("/grpc.health.v1.Health/") {
        tracing::debug!(target: "checkraise_grpc::access", method, status = ?code, latency_us, peer = %peer, "call");
    } else {
        tracing::info!(target: "checkraise_grpc::access", method, status = ?code, latency_us, peer = %peer, "call");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_holds_ten_seconds_and_refills_at_the_rate() {
        let quotas = CreationQuota::new(60); // one a second, ten at once
        let peer: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        let t0 = Instant::now();
        for _ in 0..10 {
            quotas.take_at(peer, t0).unwrap();
        }
        let wait = quotas.take_at(peer, t0).unwrap_err();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        // Another peer has its own bucket.
        quotas.take_at(other, t0).unwrap();
        // Two seconds later, two more.
        let t2 = t0 + Duration::from_secs(2);
        quotas.take_at(peer, t2).unwrap();
        quotas.take_at(peer, t2).unwrap();
        assert!(quotas.take_at(peer, t2).is_err());
    }

    #[test]
    fn bearer_schemes_are_read_in_any_case() {
        assert_eq!(bearer_token("Bearer k1"), Some("k1"));
        assert_eq!(bearer_token("bearer k1"), Some("k1"));
        assert_eq!(bearer_token("BEARER  k1 "), Some("k1"));
        assert_eq!(bearer_token("Basic k1"), None);
        assert_eq!(bearer_token("Bearer"), None);
    }

    #[test]
    fn key_files_skip_comments_and_refuse_to_be_empty() {
        let dir = std::env::temp_dir().join(format!("checkraise-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("keys");
        std::fs::write(&path, "# team keys\n\n  alpha  \nbeta\n").unwrap();
        let keys = read_api_keys(&path).unwrap();
        assert_eq!(keys.len(), 2);
        assert!(keys.contains("alpha") && keys.contains("beta"));
        std::fs::write(&path, "# nothing\n\n").unwrap();
        let error = read_api_keys(&path).unwrap_err().to_string();
        assert!(error.contains("holds no key"), "{error}");
        let error = read_api_keys(&dir.join("missing")).unwrap_err().to_string();
        assert!(error.contains("cannot read the API key file"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
