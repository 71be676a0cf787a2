//! Limits on connections, applied to each accepted TCP stream before HTTP/2 sees it: at most
//! `--max-connections` open at once, and at most `--max-connections-per-peer` of them from one
//! client address, so that one client's idle channels cannot hold every place (one more is
//! closed at once, so its descriptor is freed); and a deadline on silence: a connection that sends nothing within `--handshake-timeout-secs`
//! of being accepted (no HTTP/2 preface), or nothing for `--idle-connection-secs` after that,
//! is closed. A live client is never silent that long: the server pings every connection
//! (HTTP/2 keepalive, more often than the idle limit) and the client's acknowledgements count.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tokio_stream::{Stream, StreamExt};
use tonic::Status;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// The limits on each connection.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Most connections open at once from one client address.
    pub max_per_peer: usize,
    /// How long a new connection may stay silent.
    pub handshake_timeout: Duration,
    /// How long an established connection may stay silent.
    pub idle_timeout: Duration,
}

/// `incoming` with the limits applied: connections over the cap are closed as they arrive
/// (logged), the others are wrapped in a [`Guarded`] stream that enforces the deadlines.
pub fn guard<S, IO, E>(
    incoming: S,
    limits: ConnectionLimits,
) -> impl Stream<Item = Result<Guarded<IO>, E>>
where
    S: Stream<Item = Result<IO, E>>,
    IO: Connected<ConnectInfo = TcpConnectInfo>,
{
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let peers = PeerCounts::default();
    incoming.filter_map(move |accepted| {
        let io = match accepted {
            Err(error) => return Some(Err(error)),
            Ok(io) => io,
        };
        let peer = io.connect_info().remote_addr.map(|a| a.ip());
        let Some(slot) = peers.take(peer, limits.max_per_peer) else {
            tracing::warn!(
                peer = %peer.map_or_else(|| "unknown".to_string(), |p| p.to_string()),
                max_connections_per_peer = limits.max_per_peer,
                "connection refused: this client address has --max-connections-per-peer open"
            );
            return None;
        };
        match open.clone().try_acquire_owned() {
            Ok(permit) => Some(Ok(Guarded::new(io, limits, permit, slot))),
            Err(_) => {
                tracing::warn!(
                    max_connections = limits.max_connections,
                    "connection refused: --max-connections are open"
                );
                None
            }
        }
    })
}

/// Connections open from each client address.
#[derive(Clone, Debug, Default)]
struct PeerCounts(Arc<Mutex<HashMap<IpAddr, usize>>>);

impl PeerCounts {
    /// A place for one more connection from `peer`, or `None` when it has `max` open.
    fn take(&self, peer: Option<IpAddr>, max: usize) -> Option<PeerSlot> {
        let Some(ip) = peer else {
            return Some(PeerSlot(None));
        };
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let open = counts.entry(ip).or_default();
        if *open >= max {
            return None;
        }
        *open += 1;
        Some(PeerSlot(Some((self.clone(), ip))))
    }
}

/// A connection's place in its address's count, freed when dropped.
#[derive(Debug)]
pub struct PeerSlot(Option<(PeerCounts, IpAddr)>);

impl Drop for PeerSlot {
    fn drop(&mut self) {
        if let Some((counts, ip)) = &self.0 {
            let mut counts = counts.0.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(open) = counts.get_mut(ip) {
                *open -= 1;
                if *open == 0 {
                    counts.remove(ip);
                }
            }
        }
    }
}

/// A connection that fails its reads once the peer has been silent past its deadline, and
/// frees its place under `--max-connections` when dropped.
pub struct Guarded<IO> {
    inner: IO,
    deadline: Pin<Box<Sleep>>,
    idle_timeout: Duration,
    _permit: OwnedSemaphorePermit,
    _slot: PeerSlot,
}

impl<IO> Guarded<IO> {
    fn new(
        inner: IO,
        limits: ConnectionLimits,
        permit: OwnedSemaphorePermit,
        slot: PeerSlot,
    ) -> Self {
        metrics::gauge!("checkraise_open_connections").increment(1.0);
        Guarded {
            inner,
            deadline: Box::pin(tokio::time::sleep(limits.handshake_timeout)),
            idle_timeout: limits.idle_timeout,
            _permit: permit,
            _slot: slot,
        }
    }
}

impl<IO> Drop for Guarded<IO> {
    fn drop(&mut self) {
        metrics::gauge!("checkraise_open_connections").decrement(1.0);
    }
}

impl<IO: Connected> Connected for Guarded<IO> {
    type ConnectInfo = IO::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.inner.connect_info()
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Guarded<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before {
                    let next = Instant::now() + self.idle_timeout;
                    self.deadline.as_mut().reset(next);
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the peer was silent past the connection's deadline",
                ))),
                Poll::Pending => Poll::Pending,
            },
            ready => ready,
        }
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Guarded<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};
    use tonic::transport::server::TcpIncoming;

    async fn guarded_listener(
        limits: ConnectionLimits,
    ) -> (
        std::net::SocketAddr,
        impl Stream<Item = Result<Guarded<TcpStream>, io::Error>>,
    ) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        (address, guard(TcpIncoming::from(listener), limits))
    }

    #[tokio::test]
    async fn a_silent_connection_is_closed_and_a_talking_one_is_kept() {
        let limits = ConnectionLimits {
            max_connections: 8,
            max_per_peer: 8,
            handshake_timeout: Duration::from_millis(200),
            idle_timeout: Duration::from_millis(600),
        };
        let (address, incoming) = guarded_listener(limits).await;
        let mut incoming = Box::pin(incoming);
        // Echo server: reads until the guard fails the read.
        let server = tokio::spawn(async move {
            let mut outcomes = Vec::new();
            for _ in 0..2 {
                let mut conn = incoming.next().await.unwrap().unwrap();
                outcomes.push(tokio::spawn(async move {
                    let mut buf = [0u8; 16];
                    loop {
                        match conn.read(&mut buf).await {
                            Ok(0) => return "eof",
                            Ok(n) => conn.write_all(&buf[..n]).await.unwrap(),
                            Err(e) if e.kind() == io::ErrorKind::TimedOut => return "timed out",
                            Err(_) => return "error",
                        }
                    }
                }));
            }
            outcomes
        });
        let silent = TcpStream::connect(address).await.unwrap();
        let mut talking = TcpStream::connect(address).await.unwrap();
        // Talk every 100 ms for 1 s: well past both deadlines in total, never silent long.
        for _ in 0..10 {
            talking.write_all(b"ping").await.unwrap();
            let mut buf = [0u8; 4];
            talking.read_exact(&mut buf).await.unwrap();
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        drop(talking);
        let outcomes = server.await.unwrap();
        let mut results = Vec::new();
        for outcome in outcomes {
            results.push(outcome.await.unwrap());
        }
        results.sort();
        assert_eq!(results, ["eof", "timed out"]);
        drop(silent);
    }

    #[tokio::test]
    async fn connections_over_the_cap_are_closed_at_once() {
        let limits = ConnectionLimits {
            max_connections: 2,
            max_per_peer: 2,
            handshake_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
        };
        let (address, incoming) = guarded_listener(limits).await;
        let accepted = tokio::spawn(async move {
            let mut incoming = Box::pin(incoming);
            // Each connection is held until its peer closes it, as the server's would be.
            while let Some(conn) = incoming.next().await {
                let mut conn = conn.unwrap();
                tokio::spawn(async move {
                    let mut buf = [0u8; 16];
                    while let Ok(n) = conn.read(&mut buf).await
                        && n > 0
                    {}
                });
            }
        });
        let first = TcpStream::connect(address).await.unwrap();
        let second = TcpStream::connect(address).await.unwrap();
        let mut third = TcpStream::connect(address).await.unwrap();
        // The third is accepted by the kernel, then closed by the guard: its read ends.
        let mut buf = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(5), third.read(&mut buf))
            .await
            .expect("the connection over the cap is closed");
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
        // Freeing a place lets a new connection stay open.
        drop(first);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut fourth = TcpStream::connect(address).await.unwrap();
        let still_open =
            tokio::time::timeout(Duration::from_millis(300), fourth.read(&mut buf)).await;
        assert!(still_open.is_err(), "the fourth connection stays open");
        drop(second);
        accepted.abort();
    }
}

/// The cap on long-lived streams open at once over every connection (`--max-streams`): match
/// watchers (`WatchSeat`, `WatchSpectator`), ladder bots' `Events` streams and dm_env_rpc
/// sessions; and each client address's share of it (`--max-streams-per-peer`), so that one
/// client cannot open every place and leave the others none. Each open stream holds a
/// [`StreamPermit`]; one more is RESOURCE_EXHAUSTED naming the flag it is over.
#[derive(Clone, Debug)]
pub struct StreamCap {
    open: Arc<Semaphore>,
    max: usize,
    per_peer: usize,
    peers: PeerCounts,
}

/// A place under `--max-streams` (and its address's share), freed when the stream holding it
/// is dropped.
#[derive(Debug)]
pub struct StreamPermit {
    _permit: OwnedSemaphorePermit,
    _slot: PeerSlot,
}

impl StreamCap {
    /// At most `max` streams open at once, a quarter of them (at least one) from one address.
    pub fn new(max: usize) -> Self {
        let max = max.min(Semaphore::MAX_PERMITS);
        StreamCap {
            open: Arc::new(Semaphore::new(max)),
            max,
            per_peer: default_streams_per_peer(max),
            peers: PeerCounts::default(),
        }
    }

    /// This cap with at most `per_peer` streams open at once from one client address.
    pub fn with_peer_share(mut self, per_peer: usize) -> Self {
        self.per_peer = per_peer.max(1);
        self
    }

    /// A place for one more stream from `peer` (`None`: an address unknown, counted only
    /// under `max`), or RESOURCE_EXHAUSTED when its address has its share open or `max` are
    /// open.
    pub fn open(&self, peer: Option<IpAddr>) -> Result<StreamPermit, Status> {
        let Some(slot) = self.peers.take(peer, self.per_peer) else {
            let peer = peer.map_or_else(|| "unknown".to_string(), |p| p.to_string());
            return Err(Status::resource_exhausted(format!(
                "this client address ({peer}) has its most streams open ({}, \
                 --max-streams-per-peer: match watchers, ladder Events streams and dm_env_rpc \
                 sessions); close one or try again later",
                self.per_peer
            )));
        };
        match self.open.clone().try_acquire_owned() {
            Ok(permit) => {
                metrics::gauge!("checkraise_open_streams").increment(1.0);
                Ok(StreamPermit {
                    _permit: permit,
                    _slot: slot,
                })
            }
            Err(_) => Err(Status::resource_exhausted(format!(
                "the server has its most streams open ({}, --max-streams: match watchers, \
                 ladder Events streams and dm_env_rpc sessions); close one or try again later",
                self.max
            ))),
        }
    }
}

impl Default for StreamCap {
    /// The default of `--max-streams`.
    fn default() -> Self {
        StreamCap::new(DEFAULT_MAX_STREAMS)
    }
}

/// `--max-streams` unless set.
pub const DEFAULT_MAX_STREAMS: usize = 4096;

/// `--max-streams-per-peer` unless set: a quarter of `--max-streams`, at least one.
pub fn default_streams_per_peer(max_streams: usize) -> usize {
    (max_streams / 4).max(1)
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        metrics::gauge!("checkraise_open_streams").decrement(1.0);
    }
}

#[cfg(test)]
mod stream_tests {
    use super::*;

    #[test]
    fn one_address_gets_its_share_and_another_still_gets_in() {
        let cap = StreamCap::new(8).with_peer_share(3);
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let held: Vec<_> = (0..3).map(|_| cap.open(Some(a)).unwrap()).collect();
        let refused = cap.open(Some(a)).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        assert!(refused.message().contains("--max-streams-per-peer"));
        assert!(refused.message().contains("127.0.0.2"));
        let other = cap.open(Some(b)).unwrap();
        drop(held);
        // Freed places are taken again.
        let again: Vec<_> = (0..3).map(|_| cap.open(Some(a)).unwrap()).collect();
        drop((other, again));
        assert_eq!(StreamCap::new(4096).per_peer, 1024);
    }

    #[test]
    fn the_server_wide_cap_still_holds() {
        let cap = StreamCap::new(2).with_peer_share(2);
        let peers: Vec<IpAddr> = ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
            .iter()
            .map(|p| p.parse().unwrap())
            .collect();
        let _a = cap.open(Some(peers[0])).unwrap();
        let _b = cap.open(Some(peers[1])).unwrap();
        let refused = cap.open(Some(peers[2])).unwrap_err();
        assert!(refused.message().contains("--max-streams:"), "{refused:?}");
        // The refused stream holds no place in its address's count.
        assert!(!cap.peers.0.lock().unwrap().contains_key(&peers[2]));
    }
}
