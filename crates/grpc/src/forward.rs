//! Cluster mode: calls one server forwards to another. The ladder's calls go to the server
//! that runs the ladder (`ladder::ClusterLadder`); an `Envs` call goes to the server that
//! holds its batch (`envs`). A forwarded call keeps the client's metadata (a bot's token, an
//! API key) and carries the client's address, vouched for by the secret the servers of one
//! database share (`gate::trust_forwarded`), so the receiving server's per-address shares count
//! the client and a client cannot claim another's address.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

use crate::gate::{CLUSTER_SECRET_HEADER, FORWARDED_PEER_HEADER, peer_of};

/// Most channels kept to other servers (the oldest is dropped past it).
const MAX_CHANNELS: usize = 64;

/// How this server reaches the cluster's others.
#[derive(Clone)]
pub struct Forwarder(Arc<Inner>);

struct Inner {
    secret: String,
    tls: Option<ClientTlsConfig>,
    /// The cluster's lease: connections time out and are kept alive on its scale.
    lease: Duration,
    channels: Mutex<Vec<(String, Channel)>>,
}

impl Forwarder {
    /// Forwarding with the cluster's `secret`, over TLS when `tls` is set, timed on `lease`.
    pub fn new(secret: String, tls: Option<ClientTlsConfig>, lease: Duration) -> Self {
        Forwarder(Arc::new(Inner {
            secret,
            tls,
            lease,
            channels: Mutex::new(Vec::new()),
        }))
    }

    /// A channel to the server at `address` (made once, connected when first used);
    /// `UNAVAILABLE` naming the address when it is not one (`what` serves the message).
    pub fn channel(&self, address: &str, what: &str) -> Result<Channel, Status> {
        let inner = &self.0;
        let mut channels = inner.channels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, channel)) = channels.iter().find(|(a, _)| a == address) {
            return Ok(channel.clone());
        }
        let unusable = |error: &str| {
            tracing::error!(%address, error, "another server of the cluster advertises an address that cannot be used");
            Status::unavailable(format!(
                "{what} is on another server of the cluster, whose address ({address}) cannot \
                 be used; its operator must fix its --cluster-advertise"
            ))
        };
        let scheme = if inner.tls.is_some() { "https" } else { "http" };
        let mut endpoint = Endpoint::from_shared(format!("{scheme}://{address}"))
            .map_err(|e| unusable(&e.to_string()))?
            .connect_timeout(inner.lease)
            .tcp_nodelay(true)
            .http2_keep_alive_interval(inner.lease / 2)
            .keep_alive_timeout(inner.lease)
            .keep_alive_while_idle(true);
        if let Some(tls) = &inner.tls {
            endpoint = endpoint
                .tls_config(tls.clone())
                .map_err(|e| unusable(&e.to_string()))?;
        }
        let channel = endpoint.connect_lazy();
        if channels.len() >= MAX_CHANNELS {
            channels.remove(0);
        }
        channels.push((address.to_string(), channel.clone()));
        Ok(channel)
    }

    /// `request` as a call to forward: its metadata kept, the client's address and the
    /// cluster's secret added, `timeout` set when given.
    pub fn request<T>(&self, request: Request<T>, timeout: Option<Duration>) -> Request<T> {
        let peer = peer_of(&request);
        let (metadata, _, message) = request.into_parts();
        let mut out = Request::new(message);
        *out.metadata_mut() = metadata;
        if let Ok(secret) = self.0.secret.parse() {
            out.metadata_mut().insert(CLUSTER_SECRET_HEADER, secret);
        }
        if let Some(peer) = peer.and_then(|p| p.to_string().parse().ok()) {
            out.metadata_mut().insert(FORWARDED_PEER_HEADER, peer);
        }
        if let Some(timeout) = timeout {
            out.set_timeout(timeout);
        }
        out
    }
}

/// The status says the other server was not reached (or did not answer): a transport error,
/// a timeout or a cancelled call, not an answer of its own.
pub fn unreached(status: &Status) -> bool {
    std::error::Error::source(status).is_some()
        || matches!(
            status.code(),
            tonic::Code::Cancelled | tonic::Code::DeadlineExceeded
        )
}

/// A copy of `request` (its metadata, extensions and message), to send again.
pub fn copy<T: Clone>(request: &Request<T>) -> Request<T> {
    Request::from_parts(
        request.metadata().clone(),
        request.extensions().clone(),
        request.get_ref().clone(),
    )
}

/// The other server's answer as this server's: its own errors kept, a failure to reach it
/// said in the service's own words (`what` is on another server ...; the transport's text
/// goes to the log).
pub fn relayed(status: Status, what: &str) -> Status {
    if !unreached(&status) {
        return status;
    }
    tracing::warn!(error = %status, "a forwarded call did not reach the other server");
    Status::unavailable(format!(
        "{what} is on another server of the cluster, which cannot be reached right now; retry \
         in a few seconds"
    ))
}
