//! Cluster mode against the real binaries: three `checkraise-server` processes with
//! `--cluster` on one PostgreSQL server the test starts. Every call lands on any of them:
//! - a match played with each call on a different server, watched from every server, is seen
//!   by every watcher version by version, in order, exactly as stored;
//! - two servers told different actions for one seat at one version at once: one is applied,
//!   the other refused, and no watcher anywhere sees the refused one;
//! - the bots of a match move once, on its owner, whichever server the human acts through;
//!   the owner killed (SIGKILL), a survivor takes the match over and its bot moves again;
//! - an owner paused (SIGSTOP) past its lease loses its matches, and once resumed it follows
//!   the match as it is stored, without forking its history;
//! - one server runs the ladder, the others forward its calls there; its server killed, a
//!   survivor takes the ladder over and its games go on being placed and finished.
#![cfg(feature = "postgres")]

#[path = "it/common.rs"]
mod common;
#[path = "support/postgres.rs"]
mod postgres;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use checkraise_grpc::pb;
use checkraise_grpc::pb::matches_client::MatchesClient;
use checkraise_grpc::store::Store;
use common::temp_dir;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Request};

/// The lease the servers run with: short, so that takeovers happen within the test.
const LEASE_MS: u64 = 1000;

struct Server {
    child: Child,
    address: SocketAddr,
}

impl Server {
    fn start(database: &str, log: &Path) -> Self {
        Self::start_with(database, log, &[])
    }

    fn start_with(database: &str, log: &Path, more: &[&str]) -> Self {
        let address: SocketAddr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_checkraise-server"))
            .args(["--address", &address.to_string(), "--database", database])
            .args(["--cluster", "--cluster-lease-ms", &LEASE_MS.to_string()])
            .args([
                "--log-level",
                "info,checkraise_grpc::matches=debug",
                "--no-web",
            ])
            .args(more)
            .stdout(log.try_clone().unwrap())
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
        Server { child, address }
    }

    fn client(&self) -> MatchesClient<Channel> {
        MatchesClient::new(
            Channel::from_shared(format!("http://{}", self.address))
                .unwrap()
                .connect_lazy(),
        )
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    /// Killed, resumed first if the test left it paused.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-CONT", &self.child.id().to_string()])
            .status();
        self.kill();
    }
}

fn with_token<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request.set_timeout(Duration::from_secs(20));
    request
        .metadata_mut()
        .insert("x-seat-token", token.parse().unwrap());
    request
}

const LEAN: pb::ViewOptions = pb::ViewOptions {
    omit_observation: true,
    omit_observation_text: true,
    omit_action_texts: false,
    omit_view_json: true,
    with_sample_state: false,
};

async fn create(client: &mut MatchesClient<Channel>, seats: &[&str], seed: u64) -> String {
    create_game(client, "pokeros", &[("board_size", "5")], seats, seed).await
}

async fn create_game(
    client: &mut MatchesClient<Channel>,
    game: &str,
    parameters: &[(&str, &str)],
    seats: &[&str],
    seed: u64,
) -> String {
    client
        .create_match(pb::CreateMatchRequest {
            game: game.into(),
            parameters: parameters
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            seed: Some(seed),
            seats: seats.iter().map(|s| s.to_string()).collect(),
        })
        .await
        .expect("CreateMatch")
        .into_inner()
        .match_id
}

/// The stored match replays through the engine: no step stored twice, no fork.
fn replays(game: &str, parameters: &[(&str, &str)], stored: &checkraise_grpc::store::StoredMatch) {
    let game = checkraise_core::make_game(game, parameters.iter().copied()).unwrap();
    let kinds: Vec<String> = serde_json::from_str(&stored.row.seats).unwrap();
    let seats = checkraise_grpc::matches::build_seats(game.as_ref(), kinds, None).unwrap();
    if let Err(e) = checkraise_grpc::live_match::LiveMatch::restore(game, stored, seats) {
        panic!(
            "the history does not replay ({e}): revision {}, version {}, owner {:?}, steps {:?}",
            stored.revision,
            stored.version,
            stored.owner,
            stored
                .steps
                .iter()
                .map(|s| (s.player, s.action, s.version))
                .collect::<Vec<_>>()
        );
    }
}

async fn join(client: &mut MatchesClient<Channel>, id: &str, seat: u32) -> String {
    client
        .join_seat(pb::JoinSeatRequest {
            match_id: id.into(),
            seat: Some(seat),
            request_id: String::new(),
        })
        .await
        .expect("JoinSeat")
        .into_inner()
        .seat_token
}

async fn view(
    client: &mut MatchesClient<Channel>,
    id: &str,
    seat: u32,
    token: &str,
) -> Result<pb::SeatView, tonic::Status> {
    client
        .get_view(with_token(
            pb::GetViewRequest {
                match_id: id.into(),
                seat,
                view_options: Some(LEAN),
            },
            token,
        ))
        .await
        .map(|r| r.into_inner())
}

async fn act(
    client: &mut MatchesClient<Channel>,
    id: &str,
    seat: u32,
    token: &str,
    action: u32,
    expected: u64,
) -> Result<pb::SeatView, tonic::Status> {
    client
        .act(with_token(
            pb::ActRequest {
                match_id: id.into(),
                seat,
                action: Some(pb::act_request::Action::ActionId(action)),
                view_options: Some(LEAN),
                expected_version: Some(expected),
            },
            token,
        ))
        .await
        .map(|r| r.into_inner())
}

/// Collects a watch stream's events (actor, version, own action) until it ends.
fn collect(
    mut stream: tonic::Streaming<pb::MatchEvent>,
) -> tokio::task::JoinHandle<Vec<(i64, u64, Option<u32>)>> {
    tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(Ok(event)) = stream.next().await {
            let version = event.view.as_ref().map_or(0, |v| v.version);
            seen.push((event.actor, version, event.own_action.map(|a| a.id)));
        }
        seen
    })
}

/// Polls a seat's view through `client` until `done` holds for it, up to `within`.
async fn wait_view(
    client: &MatchesClient<Channel>,
    id: &str,
    seat: u32,
    token: &str,
    within: Duration,
    what: &str,
    done: impl Fn(&pb::SeatView) -> bool,
) -> pb::SeatView {
    let started = Instant::now();
    loop {
        let mut c = client.clone();
        if let Ok(v) = view(&mut c, id, seat, token).await
            && done(&v)
        {
            return v;
        }
        assert!(started.elapsed() < within, "{what} within {within:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The distinct versions of a watcher's step events, in the order seen.
fn versions(seen: &[(i64, u64, Option<u32>)]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for &(_, version, _) in seen {
        if out.last() != Some(&version) {
            out.push(version);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_servers_on_one_database_serve_every_call_of_every_match() {
    let dir = temp_dir("cluster");
    let pg_dir = dir.join("pg");
    std::fs::create_dir_all(&pg_dir).unwrap();
    let pg = tokio::task::spawn_blocking(move || postgres::Postgres::start(pg_dir))
        .await
        .unwrap();
    let url = pg.url();
    let logs: Vec<PathBuf> = (0..3)
        .map(|k| dir.join(format!("server-{k}.log")))
        .collect();
    let mut servers: Vec<Server> = logs.iter().map(|log| Server::start(&url, log)).collect();
    let mut clients: Vec<MatchesClient<Channel>> = servers.iter().map(Server::client).collect();

    // `checkraise-server health`, the probe for container health checks.
    let health = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_checkraise-server"))
            .arg("health")
            .args(args)
            .output()
            .unwrap()
    };
    let address = servers[0].address.to_string();
    let serving = health(&["--address", &address]);
    assert!(serving.status.success(), "{serving:?}");
    assert_eq!(String::from_utf8_lossy(&serving.stdout).trim(), "SERVING");
    let ladder = health(&["--address", &address, "--service", "checkraise.v1.Ladder"]);
    assert!(ladder.status.success(), "{ladder:?}");
    let nobody = health(&["--address", "127.0.0.1:1", "--timeout-secs", "2"]);
    assert!(!nobody.status.success(), "{nobody:?}");
    assert!(
        String::from_utf8_lossy(&nobody.stderr).contains("cannot connect"),
        "{nobody:?}"
    );

    // Envs: a batch made on server 0 is reset, stepped and closed through the others (each
    // call forwarded to server 0); an id naming no live server is NOT_FOUND, saying why.
    let envs_client = |k: usize| {
        checkraise_grpc::pb::envs_client::EnvsClient::new(
            Channel::from_shared(format!("http://{}", servers[k].address))
                .unwrap()
                .connect_lazy(),
        )
    };
    let made = envs_client(0)
        .create_envs(pb::CreateEnvsRequest {
            game: "pokeros".to_string(),
            num_envs: 2,
            seed: 5,
            ..Default::default()
        })
        .await
        .expect("CreateEnvs")
        .into_inner();
    assert!(made.envs_id.contains('-'), "{}", made.envs_id);
    let reset = envs_client(1)
        .reset(pb::ResetRequest {
            envs_id: made.envs_id.clone(),
            seed: Some(5),
        })
        .await
        .expect("Reset through another server")
        .into_inner();
    let mask = reset.action_masks.as_ref().unwrap();
    let actions_per_env = mask.shape[1] as usize;
    let actions: Vec<i32> = mask
        .data
        .chunks(actions_per_env)
        .map(|row| row.iter().position(|&b| b == 1).unwrap() as i32)
        .collect();
    envs_client(2)
        .step(pb::StepRequest {
            envs_id: made.envs_id.clone(),
            actions: Some(checkraise_grpc::tensor::i32_tensor(vec![2], &actions)),
        })
        .await
        .expect("Step through another server");
    envs_client(1)
        .close_envs(pb::CloseEnvsRequest {
            envs_id: made.envs_id.clone(),
        })
        .await
        .expect("CloseEnvs through another server");
    let closed = envs_client(2)
        .reset(pb::ResetRequest {
            envs_id: made.envs_id.clone(),
            seed: Some(5),
        })
        .await
        .expect_err("a closed batch");
    assert_eq!(closed.code(), Code::NotFound, "{closed:?}");
    let gone = envs_client(2)
        .reset(pb::ResetRequest {
            envs_id: format!("{}-{}", "0".repeat(16), "1".repeat(32)),
            seed: Some(5),
        })
        .await
        .expect_err("a batch of a server that is gone");
    assert_eq!(gone.code(), Code::NotFound, "{gone:?}");
    assert!(gone.message().contains("is gone"), "{gone:?}");

    // 1. Two humans, every call on another server, watched from all three.
    let id = create(&mut clients[0], &["human", "human"], 7).await;
    let tokens = [
        join(&mut clients[1], &id, 0).await,
        join(&mut clients[2], &id, 1).await,
    ];
    let mut watches = Vec::new();
    for (k, client) in clients.iter_mut().enumerate() {
        let spectator = client
            .watch_spectator(pb::WatchSpectatorRequest {
                match_id: id.clone(),
                presence: false,
            })
            .await
            .expect("WatchSpectator")
            .into_inner();
        watches.push(("spectator", k, collect(spectator)));
        let seat = (k % 2) as u32;
        let seat_stream = client
            .watch_seat(with_token(
                pb::WatchSeatRequest {
                    match_id: id.clone(),
                    seat,
                    view_options: Some(LEAN),
                    presence: false,
                },
                &tokens[seat as usize],
            ))
            .await
            .expect("WatchSeat")
            .into_inner();
        watches.push(("seat", k, collect(seat_stream)));
    }
    let mut call = 0usize;
    let mut final_version = 0;
    for _ in 0..400 {
        call += 1;
        let on = call % 3;
        let mut mover = None;
        for seat in 0..2u32 {
            let v = view(&mut clients[on], &id, seat, &tokens[seat as usize])
                .await
                .expect("GetView");
            assert!(
                v.version >= final_version,
                "server {on} showed version {} after version {final_version} was acknowledged",
                v.version
            );
            if v.may_act {
                mover = Some((seat, v));
            } else if v.is_terminal {
                final_version = v.version;
            }
        }
        let Some((seat, v)) = mover else {
            break;
        };
        let action = v.legal_actions[call % v.legal_actions.len()].id;
        let next = (call + 1) % 3;
        let reply = act(
            &mut clients[next],
            &id,
            seat,
            &tokens[seat as usize],
            action,
            v.version,
        )
        .await
        .unwrap_or_else(|e| panic!("Act through server {next}: {e:?}"));
        assert!(reply.version > v.version);
        final_version = reply.version;
    }
    let store = Store::open(&url).await.unwrap();
    let stored = store.load(&id).await.unwrap().expect("stored");
    let mut stored_versions: Vec<u64> = stored.steps.iter().map(|s| s.version).collect();
    stored_versions.dedup();
    stored_versions.retain(|&v| v > 0);
    assert_eq!(stored.version, final_version);
    for (kind, server, watch) in watches {
        let seen = tokio::time::timeout(Duration::from_secs(20), watch)
            .await
            .unwrap_or_else(|_| panic!("the {kind} watcher on server {server} never ended"))
            .unwrap();
        let mut seen_versions = versions(&seen);
        // The first event is the view at the moment of watching (version 0 here).
        assert_eq!(seen_versions.first(), Some(&0), "{kind} on {server}");
        seen_versions.remove(0);
        assert_eq!(
            seen_versions, stored_versions,
            "the {kind} watcher on server {server} saw other versions than the stored ones"
        );
    }
    eprintln!(
        "a match of {} versions through 3 servers: every watcher saw each, in order",
        stored.version
    );
    // The copies followed the others' writes from what their announcements carried, without
    // reading the store back for each.
    let followed: usize = logs
        .iter()
        .map(|log| {
            std::fs::read_to_string(log)
                .unwrap()
                .matches("followed an announced change")
                .count()
        })
        .sum();
    assert!(
        followed >= stored_versions.len(),
        "{followed} changes followed from announcements for {} versions",
        stored_versions.len()
    );

    // 2. One seat, two different actions at one version, sent to two servers at once.
    let id = create(&mut clients[0], &["human", "human"], 11).await;
    let tokens = [
        join(&mut clients[0], &id, 0).await,
        join(&mut clients[0], &id, 1).await,
    ];
    let mut watchers = Vec::new();
    for client in clients.iter_mut() {
        let stream = client
            .watch_seat(with_token(
                pb::WatchSeatRequest {
                    match_id: id.clone(),
                    seat: 0,
                    view_options: Some(LEAN),
                    presence: false,
                },
                &tokens[0],
            ))
            .await
            .expect("WatchSeat")
            .into_inner();
        watchers.push(collect(stream));
    }
    let v = view(&mut clients[1], &id, 0, &tokens[0]).await.unwrap();
    let seat = if v.may_act { 0 } else { 1 };
    let v = view(&mut clients[1], &id, seat, &tokens[seat as usize])
        .await
        .unwrap();
    assert!(v.legal_actions.len() >= 2);
    let (a, b) = (v.legal_actions[0].id, v.legal_actions[1].id);
    let (mut c1, mut c2) = (clients[1].clone(), clients[2].clone());
    let (t1, t2) = (tokens[seat as usize].clone(), tokens[seat as usize].clone());
    let (id1, id2) = (id.clone(), id.clone());
    let version = v.version;
    let (r1, r2) = tokio::join!(
        async move { act(&mut c1, &id1, seat, &t1, a, version).await },
        async move { act(&mut c2, &id2, seat, &t2, b, version).await },
    );
    let applied: Vec<u32> = [(&r1, a), (&r2, b)]
        .iter()
        .filter(|(r, _)| r.is_ok())
        .map(|(_, action)| *action)
        .collect();
    assert_eq!(
        applied.len(),
        1,
        "exactly one of two rival actions: {r1:?} {r2:?}"
    );
    // The rival is refused: ABORTED when both were applied to copies at once and its write
    // lost, FAILED_PRECONDITION when its server saw the other action stored first.
    for r in [&r1, &r2] {
        if let Err(status) = r {
            assert!(
                matches!(status.code(), Code::Aborted | Code::FailedPrecondition),
                "{status:?}"
            );
        }
    }
    let stored = store.load(&id).await.unwrap().unwrap();
    let step = stored
        .steps
        .iter()
        .find(|s| s.player == i64::from(seat) && s.version == version + 1)
        .expect("the applied action is stored");
    assert_eq!(step.action, i64::from(applied[0]));
    // Every server's view shows the stored action, never the refused one.
    for client in clients.iter_mut() {
        let now = view(client, &id, seat, &tokens[seat as usize])
            .await
            .unwrap();
        assert_eq!(now.version, version + 1);
    }
    drop(watchers);

    // 3. A human against a bot, created on server 0 (its owner): acting through server 1 and
    // 2, the bot answers once each turn; then the owner is killed and a survivor takes over.
    let id = create(&mut clients[0], &["human", "random"], 21).await;
    let token = join(&mut clients[1], &id, 0).await;
    let mut moves = 0;
    for k in 0..3usize {
        let on = 1 + k % 2;
        let mut c = clients[on].clone();
        let v = wait_view(
            &c,
            &id,
            0,
            &token,
            Duration::from_secs(10),
            "the bot moves",
            |v| v.may_act || v.is_terminal,
        )
        .await;
        if v.is_terminal {
            break;
        }
        let reply = act(&mut c, &id, 0, &token, v.legal_actions[0].id, v.version)
            .await
            .expect("Act through a server that does not own the match");
        // As on one server, the reply shows the match once the bot (on its owner) has moved.
        assert!(
            reply.may_act || reply.is_terminal,
            "the reply came before the bot's move: {reply:?}"
        );
        moves += 1;
    }
    assert!(moves > 0);
    let stored = store.load(&id).await.unwrap().unwrap();
    replays("pokeros", &[("board_size", "5")], &stored);

    // 4. The owner killed where only it can go on: Prediction Chess against a bot, created on
    // server 0; the human's simultaneous choice is held through server 2 (a simultaneous
    // node is never claimed: the bot's hidden choice belongs to its owner), then server 0 is
    // killed. A survivor takes the match over and its bot chooses: the Act's reply shows the
    // node resolved.
    let id = create_game(
        &mut clients[0],
        "prediction_chess",
        &[],
        &["human", "random"],
        41,
    )
    .await;
    let token = join(&mut clients[2], &id, 0).await;
    let v = view(&mut clients[2], &id, 0, &token).await.unwrap();
    assert!(v.may_act, "{v:?}");
    servers[0].kill();
    let killed = Instant::now();
    let mut survivor = clients[2].clone();
    let reply = act(
        &mut survivor,
        &id,
        0,
        &token,
        v.legal_actions[0].id,
        v.version,
    )
    .await
    .expect("Act after the owner died");
    let took = killed.elapsed();
    if reply.version <= v.version {
        let stored = store.load(&id).await.unwrap().unwrap();
        panic!(
            "the bot did not choose after the owner died: {reply:?}; stored: revision {}, \
             version {}, owner {:?}, held {:?}, steps {}",
            stored.revision,
            stored.version,
            stored.owner,
            stored.held,
            stored.steps.len()
        );
    }
    eprintln!("the owner killed: a survivor took over and its bot chose after {took:?}");
    let stored = store.load(&id).await.unwrap().unwrap();
    replays("prediction_chess", &[], &stored);

    // 5. The owner paused (SIGSTOP) past its lease with the match waiting on its bot: a
    // survivor takes it over; the paused server, resumed, follows the match as stored (its
    // old epoch refused), and the history does not fork.
    let id = create_game(
        &mut clients[1],
        "prediction_chess",
        &[],
        &["human", "random"],
        51,
    )
    .await;
    let token = join(&mut clients[2], &id, 0).await;
    let v = view(&mut clients[2], &id, 0, &token).await.unwrap();
    servers[1].signal("-STOP");
    let mut other = clients[2].clone();
    let reply = act(&mut other, &id, 0, &token, v.legal_actions[0].id, v.version)
        .await
        .expect("Act on a survivor while the owner is paused");
    assert!(reply.version > v.version, "no takeover: {reply:?}");
    let taken = store.load(&id).await.unwrap().unwrap();
    servers[1].signal("-CONT");
    let resumed = wait_view(
        &clients[1],
        &id,
        0,
        &token,
        Duration::from_secs(10),
        "the resumed server serves the match",
        |_| true,
    )
    .await;
    let now = store.load(&id).await.unwrap().unwrap();
    assert_eq!(
        resumed.version, now.version,
        "the resumed server follows the store"
    );
    assert!(
        now.owner.as_ref().map(|(_, e)| *e) >= taken.owner.as_ref().map(|(_, e)| *e),
        "the epoch never goes back"
    );
    replays("prediction_chess", &[], &now);
    store.close().await;
    for server in &mut servers {
        server.kill();
    }
    drop(pg);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A ladder bot's seat played with the first legal action through `matches` until the game
/// ends (or the seat is no longer the bot's).
async fn play_ladder_seat(mut matches: MatchesClient<Channel>, id: String, seat: pb::LadderSeat) {
    loop {
        let Ok(v) = view(&mut matches, &id, seat.seat, &seat.seat_token).await else {
            return;
        };
        if v.is_terminal {
            return;
        }
        if v.may_act {
            let _ = act(
                &mut matches,
                &id,
                seat.seat,
                &seat.seat_token,
                v.legal_actions[0].id,
                v.version,
            )
            .await;
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A bot's `Events` call with its token.
fn bot_events(bot: &pb::RegisterBotResponse) -> Request<pb::EventsRequest> {
    let mut request = Request::new(pb::EventsRequest {
        name: bot.name.clone(),
        max_games: None,
    });
    request
        .metadata_mut()
        .insert("x-bot-token", bot.bot_token.parse().unwrap());
    request
}

/// Reads a bot's events until `games` of its games have finished (each seat it is placed in
/// played through `matches`); returns the finished games' match ids and how the stream
/// ended (`None`: still open).
async fn play_ladder(
    events: &mut tonic::Streaming<pb::LadderEvent>,
    matches: &MatchesClient<Channel>,
    games: usize,
    within: Duration,
) -> Vec<String> {
    let deadline = Instant::now() + within;
    let mut finished = Vec::new();
    while finished.len() < games {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = tokio::time::timeout(left, events.next())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "only {} ladder games finished in {within:?}",
                    finished.len()
                )
            })
            .expect("the bot's stream ended")
            .expect("the bot's stream failed");
        if event.kind == pb::LadderEventKind::GameStarted as i32 {
            let id = event.game.unwrap().match_id;
            for seat in event.seats {
                tokio::spawn(play_ladder_seat(matches.clone(), id.clone(), seat));
            }
        } else if event.kind == pb::LadderEventKind::GameFinished as i32 {
            finished.push(event.game.unwrap().match_id);
        }
    }
    finished
}

/// The ladder of a cluster: one server runs it (its role in the store), every server serves
/// its calls (registered through one, the bot's stream through another, its games played
/// through a third); that server killed, a survivor takes the role over within a few leases,
/// the bot's stream ends UNAVAILABLE and, connected again, the bot is placed in new games that
/// finish. A former holder's ladder writes are refused (fenced by the role's epoch).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_cluster_runs_one_ladder_and_a_survivor_takes_it_over() {
    let dir = temp_dir("cluster-ladder");
    let pg_dir = dir.join("pg");
    std::fs::create_dir_all(&pg_dir).unwrap();
    let pg = tokio::task::spawn_blocking(move || postgres::Postgres::start(pg_dir))
        .await
        .unwrap();
    let url = pg.url();
    let ladder_args = [
        "--ladder-house",
        "random",
        "--ladder-move-ms",
        "5000",
        "--ladder-grace-ms",
        "5000",
    ];
    let mut servers: Vec<Server> = (0..3)
        .map(|k| Server::start_with(&url, &dir.join(format!("ladder-{k}.log")), &ladder_args))
        .collect();
    let store = Store::open(&url).await.unwrap();
    let holder_of = |holder: &checkraise_grpc::store::RoleHolder, servers: &[Server]| {
        let address = holder.address.clone().unwrap_or_default();
        servers
            .iter()
            .position(|s| s.address.to_string() == address)
    };
    let mut first = None;
    for _ in 0..200 {
        if let Some(holder) = store.role_holder("ladder").await.unwrap()
            && let Some(k) = holder_of(&holder, &servers)
        {
            first = Some((holder, k));
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (holder, k) = first.expect("a server runs the ladder");
    let others: Vec<usize> = (0..3).filter(|&j| j != k).collect();
    let addresses: Vec<SocketAddr> = servers.iter().map(|s| s.address).collect();
    let ladder_client = |j: usize| {
        checkraise_grpc::pb::ladder_client::LadderClient::new(
            Channel::from_shared(format!("http://{}", addresses[j]))
                .unwrap()
                .connect_lazy(),
        )
    };
    // Registered through a server that does not run the ladder (forwarded), its stream
    // through another, its games played through the holder itself.
    let bot = ladder_client(others[0])
        .register_bot(pb::RegisterBotRequest {
            name: "roamer".to_string(),
            games: vec!["pokeros(board_size=3)".to_string()],
        })
        .await
        .expect("RegisterBot through a server that forwards it")
        .into_inner();
    let mut events = ladder_client(others[1])
        .events(bot_events(&bot))
        .await
        .expect("Events through a server that relays it")
        .into_inner();
    let played_through = servers[others[0]].client();
    let before = play_ladder(&mut events, &played_through, 2, Duration::from_secs(60)).await;

    // The ladder's server killed: the relayed stream ends UNAVAILABLE, a survivor takes the
    // role, and the bot, connected again through a survivor, plays on.
    servers[k].kill();
    let killed = Instant::now();
    let ended = loop {
        match tokio::time::timeout(Duration::from_secs(15), events.next()).await {
            Ok(Some(Ok(_))) => continue,
            Ok(Some(Err(status))) => break status,
            Ok(None) => panic!("the relayed stream ended without a status"),
            Err(_) => panic!("the relayed stream went on after the ladder's server died"),
        }
    };
    assert_eq!(ended.code(), Code::Unavailable, "{ended:?}");
    assert!(!ended.message().contains("transport"), "{ended:?}");
    let mut events = loop {
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "no survivor took the ladder over"
        );
        match ladder_client(others[1]).events(bot_events(&bot)).await {
            Ok(events) => break events.into_inner(),
            Err(status) => {
                assert_eq!(status.code(), Code::Unavailable, "{status:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    let after = play_ladder(&mut events, &played_through, 2, Duration::from_secs(60)).await;
    eprintln!(
        "the ladder's server killed: games placed and finished again {:?} after",
        killed.elapsed()
    );
    let new_holder = store.role_holder("ladder").await.unwrap().unwrap();
    assert_ne!(new_holder.instance, holder.instance);
    assert!(new_holder.epoch > holder.epoch);
    assert!(holder_of(&new_holder, &servers).is_some_and(|j| j != k));

    // Every finished game is listed once, by every survivor, and stored finished. The bot
    // leaves first; a game it was still playing may end between the two survivors' lists, so
    // they are read again until no game ends between them.
    drop(events);
    let deadline = Instant::now() + Duration::from_secs(30);
    let listed = loop {
        let mut listed = Vec::new();
        for &j in &others {
            let games = ladder_client(j)
                .list_ladder_games(pb::ListLadderGamesRequest::default())
                .await
                .expect("ListLadderGames")
                .into_inner()
                .games;
            let mut finished: Vec<String> = games
                .iter()
                .filter(|g| !g.live)
                .map(|g| g.match_id.clone())
                .collect();
            finished.sort();
            listed.push(finished);
        }
        if listed[0] == listed[1] {
            break listed;
        }
        assert!(
            Instant::now() < deadline,
            "the survivors list different games: {listed:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let mut ids = listed[0].clone();
    ids.dedup();
    assert_eq!(ids.len(), listed[0].len(), "a game listed twice");
    for id in before.iter().chain(&after) {
        assert!(ids.contains(id), "finished game {id} not listed: {ids:?}");
        let stored = store.load(id).await.unwrap().unwrap();
        assert!(stored.returns.is_some(), "{id} is not stored finished");
    }
    let board = ladder_client(others[0])
        .get_leaderboard(pb::GetLeaderboardRequest {
            game: "pokeros(board_size=3)".to_string(),
        })
        .await
        .expect("GetLeaderboard")
        .into_inner();
    let roamer = board.standings.iter().find(|s| s.bot == "roamer").unwrap();
    assert!(roamer.games >= 4, "{board:?}");

    // The former holder's writes are refused: the role's epoch moved on.
    let stale = store.fenced_for_ladder(&holder.instance, holder.epoch);
    let refused = stale
        .insert_ladder_bot(&checkraise_grpc::store::LadderBotRow {
            name: "ghost".to_string(),
            token_hash: "0".repeat(64),
            games: vec!["pokeros".to_string()],
            retired: false,
            created_ms: 0,
        })
        .await
        .expect_err("a former holder's write");
    assert!(
        matches!(refused, checkraise_grpc::store::StoreError::NotLadderHolder),
        "{refused:?}"
    );
    store.close().await;
    for server in &mut servers {
        server.kill();
    }
    drop(pg);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--cluster` with a store other servers cannot share: the binary refuses to start, and says
/// what it needs.
#[test]
fn cluster_mode_needs_postgres_and_says_so() {
    let dir = temp_dir("cluster-refused");
    for database in [
        "memory".to_string(),
        format!("sqlite://{}/c.sqlite3", dir.display()),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_checkraise-server"))
            .args([
                "--address",
                "127.0.0.1:0",
                "--database",
                &database,
                "--cluster",
            ])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{database}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--cluster needs a PostgreSQL database"),
            "{database}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
