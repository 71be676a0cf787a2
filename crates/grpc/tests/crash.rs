//! The crash test: 50 clients play matches against `checkraise-server` (the real binary) while
//! it is killed with SIGKILL at random moments five times and restarted each time. Afterwards
//! every action any client saw acknowledged is in the store, every match a client knows has
//! played to its end, and no token was lost (every seat's token kept working throughout).
//! Run on SQLite, and on a PostgreSQL server the test starts itself (`initdb` and `pg_ctl` in
//! a temporary directory, as an unprivileged user when the test runs as root).

#[path = "it/common.rs"]
mod common;
#[cfg(feature = "postgres")]
#[path = "support/postgres.rs"]
mod postgres;

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use checkraise_core::make_game;
use checkraise_grpc::auth::random_hex;
use checkraise_grpc::live_match::LiveMatch;
use checkraise_grpc::matches::build_seats;
use checkraise_grpc::pb;
use checkraise_grpc::pb::matches_client::MatchesClient;
use checkraise_grpc::store::{Status as Stored, Store};
use common::temp_dir;
use tonic::transport::Channel;
use tonic::{Code, Request};

const CLIENTS: usize = 50;
const KILLS: usize = 5;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A server process, killed (SIGKILL) when dropped, so that a failing test leaves none behind.
struct Killed(Child);

impl Killed {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `checkraise-server` on `address` with `database`, once it accepts connections.
fn start_server(address: SocketAddr, database: &str, log: &Path) -> Killed {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkraise-server"))
        .args(["--address", &address.to_string(), "--database", database])
        .args(["--log-level", "warn"])
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(address).is_err() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("checkraise-server exited at start: {status}");
        }
        assert!(Instant::now() < deadline, "the server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Killed(child)
}

/// Whether an error is the server going away (retry the same call), not an answer.
fn transient(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable
            | Code::Unknown
            | Code::Cancelled
            | Code::DeadlineExceeded
            | Code::Internal
    )
}

/// Calls `call` until it is answered (not a transient error); counts the retries.
async fn answered<T, F, Fut>(retries: &AtomicU64, mut call: F) -> Result<T, tonic::Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<tonic::Response<T>, tonic::Status>>,
{
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match call().await {
            Ok(reply) => return Ok(reply.into_inner()),
            Err(status) if transient(&status) && Instant::now() < deadline => {
                retries.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(30)).await;
            }
            Err(status) => return Err(status),
        }
    }
}

fn request<T>(message: T, token: Option<&str>) -> Request<T> {
    let mut request = Request::new(message);
    request.set_timeout(Duration::from_secs(10));
    if let Some(token) = token {
        request
            .metadata_mut()
            .insert("x-seat-token", token.parse().unwrap());
    }
    request
}

/// A closure making the call `method` of `client` with `message` (cloned) and `token`, for
/// `answered`.
macro_rules! call {
    ($client:ident, $method:ident, $message:ident, $token:expr) => {
        || {
            let mut client = $client.clone();
            let request = request($message.clone(), $token);
            async move { client.$method(request).await }
        }
    };
}

/// What one client saw: each match it knows, with every action acknowledged to it
/// (the version it acted at and the action).
struct Played {
    matches: Vec<(String, Vec<(u64, u32)>)>,
}

/// One client: plays Pokeros against the random bot, match after match, until `stop` and at
/// least one match is over; every call retried through the server's deaths.
async fn client(
    k: usize,
    channel: Channel,
    stop: Arc<AtomicBool>,
    retries: Arc<AtomicU64>,
    repeats: Arc<AtomicU64>,
) -> Played {
    let matches = MatchesClient::new(channel);
    let mut played = Played {
        matches: Vec::new(),
    };
    let mut rng = k as u64 * 0x9E37_79B9 + 1;
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) || played.matches.is_empty() {
        n += 1;
        let create = pb::CreateMatchRequest {
            game: "pokeros".into(),
            parameters: [("board_size".to_string(), "5".to_string())].into(),
            seed: Some((k * 1000 + n) as u64),
            seats: vec!["human".into(), "random".into()],
        };
        let id = answered(&retries, call!(matches, create_match, create, None))
            .await
            .expect("CreateMatch")
            .match_id;
        let join = pb::JoinSeatRequest {
            match_id: id.clone(),
            seat: Some(0),
            request_id: format!("client-{k}-match-{n}-join"),
        };
        let token = answered(&retries, call!(matches, join_seat, join, None))
            .await
            .unwrap_or_else(|e| panic!("JoinSeat of {id}: {e:?}"))
            .seat_token;
        let mut acked = Vec::new();
        loop {
            let get = pb::GetViewRequest {
                match_id: id.clone(),
                seat: 0,
                view_options: None,
            };
            let view = answered(
                &retries,
                call!(matches, get_view, get, Some(token.as_str())),
            )
            .await
            .unwrap_or_else(|e| panic!("GetView of {id}: {e:?}"));
            if view.is_terminal {
                break;
            }
            assert!(view.may_act, "seat 0 waits in a match against a bot");
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let action = view.legal_actions[(rng >> 33) as usize % view.legal_actions.len()].id;
            let act = pb::ActRequest {
                match_id: id.clone(),
                seat: 0,
                action: Some(pb::act_request::Action::ActionId(action)),
                view_options: Some(pb::ViewOptions {
                    omit_observation: true,
                    omit_observation_text: true,
                    omit_action_texts: true,
                    omit_view_json: true,
                    ..Default::default()
                }),
                expected_version: Some(view.version),
            };
            let reply = answered(&retries, call!(matches, act, act, Some(token.as_str())))
                .await
                .unwrap_or_else(|e| panic!("Act in {id} at version {}: {e:?}", view.version));
            if reply.act_status == pb::ActStatus::AlreadyApplied as i32 {
                repeats.fetch_add(1, Ordering::Relaxed);
            }
            acked.push((view.version, action));
        }
        played.matches.push((id, acked));
    }
    played
}

/// The whole test against a server on `database`.
async fn crash_test(database: &str, log: &Path) {
    let address: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let mut server = start_server(address, database, log);
    let channel = Channel::from_shared(format!("http://{address}"))
        .unwrap()
        .connect_timeout(Duration::from_secs(2))
        .connect_lazy();
    let stop = Arc::new(AtomicBool::new(false));
    let retries = Arc::new(AtomicU64::new(0));
    let repeats = Arc::new(AtomicU64::new(0));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|k| {
            tokio::spawn(client(
                k,
                channel.clone(),
                stop.clone(),
                retries.clone(),
                repeats.clone(),
            ))
        })
        .collect();
    // Five deaths at random moments, a restart after each.
    let mut rng = u64::from_str_radix(&random_hex(8), 16).unwrap();
    for _ in 0..KILLS {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        tokio::time::sleep(Duration::from_millis(200 + rng % 600)).await;
        server.kill();
        let database = database.to_string();
        let log = log.to_path_buf();
        server = tokio::task::spawn_blocking(move || start_server(address, &database, &log))
            .await
            .unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let mut played = Vec::new();
    for c in clients {
        played.push(c.await.unwrap());
    }
    server.kill();

    // Every action acknowledged is stored, in the step it made (the version after it), and
    // every match a client knows is over and replays through the engine.
    let store = Store::open(database).await.unwrap();
    let (mut matches, mut actions) = (0, 0);
    for client in &played {
        for (id, acked) in &client.matches {
            let stored = store
                .load(id)
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("match {id} is not stored"));
            assert_eq!(stored.status, Stored::Finished, "match {id}");
            for &(version, action) in acked {
                assert!(
                    stored.steps.iter().any(|s| s.player == 0
                        && s.action == i64::from(action)
                        && s.version == version + 1),
                    "match {id}: the action {action} acknowledged at version {version} is not stored"
                );
            }
            let game = make_game("pokeros", [("board_size", "5")]).unwrap();
            let seats =
                build_seats(game.as_ref(), vec!["human".into(), "random".into()], None).unwrap();
            let replayed = LiveMatch::restore(game, &stored, seats)
                .unwrap_or_else(|e| panic!("match {id} does not replay: {e}"));
            assert!(replayed.is_finished());
            matches += 1;
            actions += acked.len();
        }
    }
    store.close().await;
    let retries = retries.load(Ordering::Relaxed);
    eprintln!(
        "{database}: {matches} matches, {actions} acknowledged actions checked; {retries} calls \
         retried through {KILLS} kills, {} Act retries found already applied",
        repeats.load(Ordering::Relaxed)
    );
    assert!(
        retries > 0,
        "no call was interrupted: the kills did not test anything"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kills_lose_nothing_acknowledged_on_sqlite() {
    let dir = temp_dir("crash-sqlite");
    let database = format!("sqlite://{}/checkraise.sqlite3", dir.display());
    crash_test(&database, &dir.join("server.log")).await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kills_lose_nothing_acknowledged_on_postgres() {
    let pg = tokio::task::spawn_blocking(|| postgres::Postgres::start(temp_dir("crash-postgres")))
        .await
        .unwrap();
    let log = temp_dir("crash-postgres-log");
    crash_test(&pg.url(), &log.join("server.log")).await;
    std::fs::remove_dir_all(log).unwrap();
}
