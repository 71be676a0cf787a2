//! What the service's integration tests share: a server on 127.0.0.1 with an OS-chosen port,
//! and the requests they build again and again.

// Each test crate uses its part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;

use checkraise_grpc::config::Config;
use checkraise_grpc::pb;
use checkraise_grpc::pb::matches_client::MatchesClient;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::Request;
use tonic::transport::Channel;

/// A running server and a connection to it.
pub struct TestServer {
    pub address: SocketAddr,
    pub channel: Channel,
    stop: Option<oneshot::Sender<()>>,
    running: Option<Running>,
}

/// Where the server runs.
enum Running {
    /// A task on the test's runtime.
    Task(tokio::task::JoinHandle<()>),
    /// A thread with a runtime of its own.
    Thread(std::thread::JoinHandle<()>),
}

impl TestServer {
    /// A server running as a task on the test's own runtime.
    pub async fn start(config: Config) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(config, listener, stopped));
        Self::connected(address, stop, Running::Task(task)).await
    }

    /// A server on its own multi-threaded runtime (two workers, as `checkraise-server` has on a
    /// 2-core machine) in its own thread, so the test's client side never shares a worker with
    /// it: a stalled server shows as a slow answer.
    pub async fn start_on_own_runtime(config: Config) -> Self {
        let (bound, address) = std::sync::mpsc::channel::<SocketAddr>();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                bound.send(listener.local_addr().unwrap()).unwrap();
                serve(config, listener, stopped).await;
            });
        });
        let address = tokio::task::spawn_blocking(move || address.recv().unwrap())
            .await
            .unwrap();
        Self::connected(address, stop, Running::Thread(thread)).await
    }

    async fn connected(address: SocketAddr, stop: oneshot::Sender<()>, running: Running) -> Self {
        TestServer {
            address,
            channel: connect(address).await,
            stop: Some(stop),
            running: Some(running),
        }
    }

    /// A new connection (so that its calls never queue behind another client's).
    pub async fn connect(&self) -> Channel {
        connect(self.address).await
    }

    pub fn matches(&self) -> MatchesClient<Channel> {
        MatchesClient::new(self.channel.clone())
    }

    /// Stops the server and waits until it has.
    pub async fn shutdown(mut self) {
        let _ = self.stop.take().unwrap().send(());
        match self.running.take().unwrap() {
            Running::Task(task) => task.await.unwrap(),
            Running::Thread(thread) => tokio::task::spawn_blocking(move || thread.join().unwrap())
                .await
                .unwrap(),
        }
    }
}

/// Serves `config` on `listener` until `stopped` fires.
async fn serve(config: Config, listener: TcpListener, stopped: oneshot::Receiver<()>) {
    checkraise_grpc::server::serve(config, listener, async {
        let _ = stopped.await;
    })
    .await
    .unwrap();
}

async fn connect(address: SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{address}"))
        .unwrap()
        .connect()
        .await
        .unwrap()
}

/// A fresh directory under the system's temporary directory.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "checkraise-{name}-{}-{}",
        std::process::id(),
        checkraise_grpc::auth::random_hex(4)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `message` with a seat's token in the metadata.
pub fn with_token<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("x-seat-token", token.parse().unwrap());
    request
}

/// A request to create a match of `game` with `params`, `seats` (their kinds) and `seed`.
pub fn create(
    game: &str,
    params: &[(&str, &str)],
    seats: &[&str],
    seed: u64,
) -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: game.to_string(),
        parameters: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
        seed: Some(seed),
        seats: seats.iter().map(|s| s.to_string()).collect(),
    }
}

/// Joins seat `seat` of match `id`; returns the seat's token.
pub async fn join(matches: &mut MatchesClient<Channel>, id: &str, seat: u32) -> String {
    matches
        .join_seat(pb::JoinSeatRequest {
            match_id: id.to_string(),
            seat: Some(seat),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .seat_token
}
