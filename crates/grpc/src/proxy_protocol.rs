//! The PROXY protocol (HAProxy's, versions 1 and 2): a load balancer in front of the server
//! opens each connection with a header naming the client's address, so that the server's
//! per-address limits, shares and quotas count each client, not the balancer.
//!
//! Only connections from the addresses of `--proxy-protocol-from` are read for a header (a
//! client anywhere else cannot claim an address: its bytes go to HTTP as they are). From those
//! addresses a header is optional: a connection that starts with anything else (a health
//! probe, a direct client) is served as it came. The header is read on a task of its own per
//! connection, within the handshake timeout, so a slow one holds up no other connection.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Version 2's signature, its first 12 bytes.
const V2_SIGNATURE: [u8; 12] = *b"\r\n\r\n\0\r\nQUIT\n";

/// Version 1's header is one line of at most this many bytes, its CRLF included.
const V1_MAX: usize = 107;

/// Version 2's address block is at most this long (TLVs included); longer is refused.
const V2_MAX_BLOCK: usize = 1024;

/// The bytes read to tell a header from anything else: as many as version 2's fixed part.
const PEEK: usize = 16;

/// Connections accepted and not yet handed to the server, at most.
const QUEUE: usize = 1024;

/// The addresses whose connections may start with a PROXY header: single addresses and
/// networks (`10.0.0.0/8`, `fd00::/8`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<(IpAddr, u8)>);

/// A `--proxy-protocol-from` entry that does not read.
#[derive(Debug, thiserror::Error)]
#[error("'{0}' is not an address or a network (ADDRESS or ADDRESS/BITS, as 10.0.0.0/8)")]
pub struct TrustedProxiesError(pub String);

impl TrustedProxies {
    /// Comma-separated addresses and networks; empty text trusts nobody.
    pub fn parse(text: &str) -> Result<Self, TrustedProxiesError> {
        let mut out = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let bad = || TrustedProxiesError(entry.to_string());
            let (address, bits) = match entry.split_once('/') {
                Some((address, bits)) => (address, Some(bits)),
                None => (entry, None),
            };
            let address: IpAddr = address.parse().map_err(|_| bad())?;
            let most = if address.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                Some(bits) => bits
                    .parse::<u8>()
                    .ok()
                    .filter(|&b| b <= most)
                    .ok_or_else(bad)?,
                None => most,
            };
            out.push((address, bits));
        }
        Ok(TrustedProxies(out))
    }

    /// No address is trusted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `ip` is one of the trusted addresses or in one of the networks (an IPv4 address
    /// mapped into IPv6 counts as the IPv4 address).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.0.iter().any(|&(network, bits)| match (network, ip) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
                u32::from(n) & mask == u32::from(a) & mask
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
                u128::from(n) & mask == u128::from(a) & mask
            }
            _ => false,
        })
    }
}

/// A connection, its client address the one its PROXY header named (or its own), and the
/// bytes read past the header's place that were not a header, to be read first.
pub struct Proxied {
    stream: TcpStream,
    info: TcpConnectInfo,
    prefix: Vec<u8>,
    at: usize,
}

impl Proxied {
    /// A connection served as it came.
    fn direct(stream: TcpStream) -> Self {
        let info = stream.connect_info();
        Proxied {
            stream,
            info,
            prefix: Vec::new(),
            at: 0,
        }
    }
}

impl Connected for Proxied {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.info.clone()
    }
}

impl AsyncRead for Proxied {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.at < self.prefix.len() {
            let n = (self.prefix.len() - self.at).min(buf.remaining());
            let at = self.at;
            buf.put_slice(&self.prefix[at..at + n]);
            self.at += n;
            if self.at == self.prefix.len() {
                self.prefix = Vec::new();
                self.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Proxied {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Why a trusted connection's header was refused (the connection is closed).
#[derive(Debug, thiserror::Error)]
enum HeaderError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("a PROXY header that does not read: {0}")]
    Malformed(&'static str),
}

/// `incoming` with the PROXY headers of trusted connections read (each on a task of its own,
/// within `timeout`); other connections pass as they came.
pub fn proxied<S, E>(
    incoming: S,
    trusted: Arc<TrustedProxies>,
    timeout: Duration,
) -> impl Stream<Item = Result<Proxied, E>>
where
    S: Stream<Item = Result<TcpStream, E>> + Send + 'static,
    E: Send + 'static,
{
    let (sender, receiver) = mpsc::channel(QUEUE);
    tokio::spawn(async move {
        let mut incoming = std::pin::pin!(incoming);
        while let Some(accepted) = incoming.next().await {
            let stream = match accepted {
                Ok(stream) => stream,
                Err(error) => {
                    if sender.send(Err(error)).await.is_err() {
                        return;
                    }
                    continue;
                }
            };
            let from = stream.peer_addr().ok();
            if !from.is_some_and(|a| trusted.contains(a.ip())) {
                if sender.send(Ok(Proxied::direct(stream))).await.is_err() {
                    return;
                }
                continue;
            }
            let sender = sender.clone();
            tokio::spawn(async move {
                match tokio::time::timeout(timeout, read_header(stream)).await {
                    Ok(Ok(proxied)) => {
                        let _ = sender.send(Ok(proxied)).await;
                    }
                    Ok(Err(error)) => {
                        tracing::warn!(?from, %error, "connection closed: its PROXY header was refused")
                    }
                    Err(_) => tracing::warn!(
                        ?from,
                        "connection closed: nothing to read within the handshake timeout"
                    ),
                }
            });
        }
    });
    ReceiverStream::new(receiver)
}

/// Reads a trusted connection's PROXY header, if it starts with one.
async fn read_header(mut stream: TcpStream) -> Result<Proxied, HeaderError> {
    let mut first = [0u8; PEEK];
    let mut got = 0;
    // Enough to tell: version 2's signature, "PROXY " or something else. A connection that
    // ends before sending that much is served as it came (HTTP answers it).
    while got < PEEK {
        let n = stream.read(&mut first[got..]).await?;
        if n == 0 {
            break;
        }
        got += n;
        let seen = &first[..got];
        let maybe_v2 = V2_SIGNATURE.starts_with(&seen[..got.min(12)]);
        let maybe_v1 = b"PROXY ".starts_with(&seen[..got.min(6)]);
        if !maybe_v2 && !maybe_v1 {
            break;
        }
    }
    let seen = first[..got].to_vec();
    let own = stream.connect_info();
    let mut proxied = Proxied {
        stream,
        info: own,
        prefix: Vec::new(),
        at: 0,
    };
    if got == PEEK && seen[..12] == V2_SIGNATURE {
        let source = read_v2(&mut proxied.stream, &seen).await?;
        if let Some(source) = source {
            proxied.info.remote_addr = Some(source);
        }
    } else if got >= 6 && &seen[..6] == b"PROXY " {
        let (source, rest) = read_v1(&mut proxied.stream, seen).await?;
        if let Some(source) = source {
            proxied.info.remote_addr = Some(source);
        }
        proxied.prefix = rest;
    } else {
        proxied.prefix = seen;
    }
    Ok(proxied)
}

/// The rest of a version 2 header (`fixed`: its first 16 bytes): the source address of a
/// PROXY command over TCP, `None` for LOCAL (a health check of the balancer's own) or
/// another family.
async fn read_v2(stream: &mut TcpStream, fixed: &[u8]) -> Result<Option<SocketAddr>, HeaderError> {
    let version_command = fixed[12];
    if version_command >> 4 != 2 {
        return Err(HeaderError::Malformed(
            "version 2's signature with another version",
        ));
    }
    let family = fixed[13];
    let len = usize::from(u16::from_be_bytes([fixed[14], fixed[15]]));
    if len > V2_MAX_BLOCK {
        return Err(HeaderError::Malformed(
            "an address block longer than 1,024 bytes",
        ));
    }
    let mut block = vec![0u8; len];
    stream.read_exact(&mut block).await?;
    match version_command & 0x0f {
        0 => return Ok(None), // LOCAL: the connection is the balancer's own
        1 => {}
        _ => return Err(HeaderError::Malformed("a command neither LOCAL nor PROXY")),
    }
    match family {
        // TCP over IPv4: source, destination, source port, destination port.
        0x11 => {
            let b = block
                .get(..12)
                .ok_or(HeaderError::Malformed("an IPv4 address block too short"))?;
            let ip = Ipv4Addr::new(b[0], b[1], b[2], b[3]);
            Ok(Some(SocketAddr::new(
                IpAddr::V4(ip),
                u16::from_be_bytes([b[8], b[9]]),
            )))
        }
        // TCP over IPv6.
        0x21 => {
            let b = block
                .get(..36)
                .ok_or(HeaderError::Malformed("an IPv6 address block too short"))?;
            let mut octets = [0u8; 16];
            octets.copy_from_slice(&b[..16]);
            Ok(Some(SocketAddr::new(
                IpAddr::V6(Ipv6Addr::from(octets)),
                u16::from_be_bytes([b[32], b[33]]),
            )))
        }
        // UNSPEC, UDP, UNIX sockets: no client address to take.
        _ => Ok(None),
    }
}

/// The rest of a version 1 header (`line`: its first bytes, maybe with bytes past it): the
/// source address of a TCP4 or TCP6 line (`None` for UNKNOWN), and the bytes read past it.
async fn read_v1(
    stream: &mut TcpStream,
    mut line: Vec<u8>,
) -> Result<(Option<SocketAddr>, Vec<u8>), HeaderError> {
    let mut rest = Vec::new();
    if let Some(end) = line.windows(2).position(|w| w == b"\r\n") {
        rest = line.split_off(end + 2);
    }
    while !line.ends_with(b"\r\n") {
        if line.len() >= V1_MAX {
            return Err(HeaderError::Malformed(
                "a version 1 line longer than 107 bytes",
            ));
        }
        let mut byte = [0u8; 1];
        stream.read_exact(&mut byte).await?;
        line.push(byte[0]);
    }
    let text = std::str::from_utf8(&line[..line.len() - 2])
        .map_err(|_| HeaderError::Malformed("a version 1 line that is not text"))?;
    let parts: Vec<&str> = text.split(' ').collect();
    let source = match parts.as_slice() {
        ["PROXY", "UNKNOWN", ..] => None,
        [
            "PROXY",
            family @ ("TCP4" | "TCP6"),
            source,
            _destination,
            port,
            _,
        ] => {
            let ip: IpAddr = source
                .parse()
                .map_err(|_| HeaderError::Malformed("a version 1 source that is no address"))?;
            if ip.is_ipv4() != (*family == "TCP4") {
                return Err(HeaderError::Malformed(
                    "a version 1 source of the other family",
                ));
            }
            let port: u16 = port
                .parse()
                .map_err(|_| HeaderError::Malformed("a version 1 source port that is no port"))?;
            Some(SocketAddr::new(ip, port))
        }
        _ => {
            return Err(HeaderError::Malformed(
                "a version 1 line of neither TCP4, TCP6 nor UNKNOWN",
            ));
        }
    };
    Ok((source, rest))
}

#[cfg(test)]
mod tests {
    use super::TrustedProxies;

    #[test]
    fn trusted_addresses_and_networks_match_as_written() {
        let trusted = TrustedProxies::parse("127.0.0.1, 10.0.0.0/8,fd00::/8").unwrap();
        for ip in ["127.0.0.1", "10.1.2.3", "fd12::1", "::ffff:10.9.9.9"] {
            assert!(trusted.contains(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["127.0.0.2", "11.0.0.1", "fe80::1"] {
            assert!(!trusted.contains(ip.parse().unwrap()), "{ip}");
        }
        assert!(
            TrustedProxies::parse("0.0.0.0/0")
                .unwrap()
                .contains("8.8.8.8".parse().unwrap())
        );
        assert!(TrustedProxies::parse("").unwrap().is_empty());
        for bad in ["10.0.0.0/33", "example.com", "10.0.0.0/x", "::/129"] {
            assert!(TrustedProxies::parse(bad).is_err(), "{bad}");
        }
    }
}
