//! The web page on the server's address: its files over HTTP/1.1, gRPC-Web for browsers next
//! to native gRPC, and `--no-web` turning both off.

use crate::common::TestServer;
use checkraise_grpc::config::Config;
use checkraise_grpc::pb;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends one HTTP/1.1 request (closing the connection after it) and returns the raw reply.
async fn http1(address: std::net::SocketAddr, request: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut reply = Vec::new();
    // A server that does not speak HTTP/1.1 may reset the connection: what came is the reply.
    let _ = stream.read_to_end(&mut reply).await;
    reply
}

fn get(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").into_bytes()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test]
async fn the_page_and_grpc_web_are_served_next_to_native_grpc() {
    let server = TestServer::start(Config::in_memory()).await;

    let page = http1(server.address, &get("/")).await;
    assert!(
        page.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&page)
    );
    assert!(contains(&page, b"content-type: text/html"));
    assert!(contains(&page, b"src=\"app.js\""));
    for (path, kind) in [("/app.js", "text/javascript"), ("/app.css", "text/css")] {
        let reply = http1(server.address, &get(path)).await;
        assert!(reply.starts_with(b"HTTP/1.1 200"), "{path}");
        assert!(contains(&reply, format!("content-type: {kind}").as_bytes()));
    }

    // Catalog.ListGames over gRPC-Web: one empty message frame in, a message frame and a
    // trailers frame (flag 0x80) with grpc-status 0 out.
    let request = b"POST /checkraise.v1.Catalog/ListGames HTTP/1.1\r\nHost: localhost\r\n\
        Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nContent-Length: 5\r\n\
        Connection: close\r\n\r\n\x00\x00\x00\x00\x00";
    let reply = http1(server.address, request).await;
    assert!(
        reply.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&reply)
    );
    assert!(contains(
        &reply,
        b"content-type: application/grpc-web+proto"
    ));
    assert!(contains(&reply, b"pokeros") && contains(&reply, b"detective_poker"));
    assert!(contains(&reply, b"grpc-status:0"));

    // Native gRPC still works on the same address.
    let mut catalog = pb::catalog_client::CatalogClient::new(server.channel.clone());
    let games = catalog
        .list_games(pb::ListGamesRequest {})
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), checkraise_core::registry::entries().len());
    server.shutdown().await;
}

#[tokio::test]
async fn no_web_serves_native_grpc_only() {
    let config = Config {
        web: false,
        ..Config::in_memory()
    };
    let server = TestServer::start(config).await;
    let page = http1(server.address, &get("/")).await;
    assert!(
        !page.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&page)
    );
    let mut catalog = pb::catalog_client::CatalogClient::new(server.channel.clone());
    assert!(catalog.list_games(pb::ListGamesRequest {}).await.is_ok());
    server.shutdown().await;
}
