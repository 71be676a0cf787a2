//! Requests no gRPC client library sends, over raw HTTP/2 to the real service stack: a call
//! with no message at all, and a message flagged as compressed without a `grpc-encoding`. Both
//! are the client's mistake: INVALID_ARGUMENT, never INTERNAL.

use crate::common::TestServer;
use bytes::Bytes;
use checkraise_grpc::config::Config;

/// Sends one call to `path` with `body` (none: the request ends with its headers) and returns
/// the reply's `grpc-status` and `grpc-message`.
async fn raw_call(
    server: &TestServer,
    path: &str,
    body: Option<&'static [u8]>,
) -> (String, String) {
    let tcp = tokio::net::TcpStream::connect(server.address)
        .await
        .unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    let request = http::Request::builder()
        .method("POST")
        .uri(format!("http://{}{path}", server.address))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
    let (response, mut send) = client.send_request(request, body.is_none()).unwrap();
    if let Some(body) = body {
        send.send_data(Bytes::from_static(body), true).unwrap();
    }
    let response = response.await.unwrap();
    let (head, mut body) = response.into_parts();
    let mut headers = head.headers;
    while body.data().await.is_some() {}
    if let Some(trailers) = body.trailers().await.unwrap() {
        headers.extend(trailers);
    }
    let text = |name: &str| {
        headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    (text("grpc-status"), text("grpc-message"))
}

#[tokio::test]
async fn a_call_without_a_message_is_invalid_argument() {
    let server = TestServer::start(Config::in_memory()).await;
    let (status, message) = raw_call(&server, "/checkraise.v1.Catalog/ListGames", None).await;
    assert_eq!(status, "3", "{message}");
    assert!(message.contains("Missing"), "{message}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_compressed_flag_without_an_encoding_is_invalid_argument() {
    let server = TestServer::start(Config::in_memory()).await;
    // The compressed flag, then an empty message.
    let frame: &'static [u8] = &[1, 0, 0, 0, 0];
    let (status, message) =
        raw_call(&server, "/checkraise.v1.Matches/CreateMatch", Some(frame)).await;
    assert_eq!(status, "3", "{message}");
    assert!(message.contains("compressed"), "{message}");
    // A body cut inside a message (it claims 16 bytes, none follow) is the client's too.
    let cut: &'static [u8] = &[0, 0, 0, 0, 16];
    let (status, message) =
        raw_call(&server, "/checkraise.v1.Matches/CreateMatch", Some(cut)).await;
    assert_eq!(status, "3", "{message}");
    server.shutdown().await;
}
